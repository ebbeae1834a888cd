"""Census records (bytes per token, micro-batch 1) of every kind of a model and of its
output layer, in the schema ndlua reads (`activations`, `output_activations`; model-spec-census-train-yaml.md §c.1).

A record measures the layer (X1) and the layer with its tensor-parallel widths halved
(X2, spec.halved): the part TP does not divide is max(0, 2*X2 - X1)/s, the part it
does max(0, 2*(X1 - X2))/s (measure.split_tp). The per-op maps are split op by op and
`saved` / `saved_tp` are their sums, so the maps always add up to them; when no op is
clamped at 0 that equals splitting the totals.
"""

import torch

from .blocks import SELECTIVE_RECOMPUTE, Build
from .layers import build_layer, build_output, constants, layer_input
from .measure import OPS, measure, split_tp
from .spec import dims_of, family_of, halved, kinds_to_measure

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


class Options:
    """How the census runs: tokens, dtype name, device, eager attention, delta rule."""

    def __init__(self, seq_len, dtype="bf16", device="meta", eager=False, delta_rule="eager"):
        self.seq_len = seq_len
        self.dtype = dtype
        self.device = device
        self.eager = eager
        self.delta_rule = delta_rule

    def build(self, recompute=frozenset()):
        """The Build of a layer under these options."""
        return Build(self.device, DTYPES[self.dtype], self.eager, recompute, self.delta_rule)


def number(x):
    """A byte count as JSON wants it: an int when whole."""
    return int(x) if float(x).is_integer() else float(x)


def _run(opts, spec, make, recompute=frozenset(), vocab=None):
    """Measures the module `make(build)` once, forward and backward (under selective
    recompute the backward runs the recompute regions: a region that cannot rerun fails
    here rather than in training)."""
    build = opts.build(recompute)
    torch.manual_seed(0)
    module = make(build)
    consts = constants(build, spec, opts.seq_len, vocab)
    return measure(module, layer_input(build, spec, opts.seq_len), consts)


def _split(whole, half, seq_len, notes, what, ratio=0.5):
    """(non-TP, TP) bytes per token of a measure, noting a clamp."""
    a, b = split_tp(whole, half, ratio)
    tp = (whole - half) / (1.0 - ratio)
    if a != whole - tp or b != tp:
        notes.append(f"{what}: the TP split clamps at 0 (whole {whole}, halved {half} bytes)")
    return a / seq_len, b / seq_len


def record_from(full, half, sel_full, sel_half, seq_len, notes, where, ratio=0.5):
    """A record from the four measurements (ratio: the halved layer's TP share)."""
    ops, ops_tp = {}, {}
    for op in OPS:
        ops[op], ops_tp[op] = _split(full.ops[op], half.ops[op], seq_len, notes,
                                     f"{where} op {op}", ratio)
    working, working_tp = _split(full.working, half.working, seq_len, notes,
                                 f"{where} working", ratio)
    selective, selective_tp = _split(sel_full.saved, sel_half.saved, seq_len, notes,
                                     f"{where} selective", ratio)
    return {
        "saved": number(sum(ops.values())), "saved_tp": number(sum(ops_tp.values())),
        "working": number(working), "working_tp": number(working_tp),
        "selective": number(selective), "selective_tp": number(selective_tp),
        "ops": {k: number(v) for k, v in ops.items()},
        "ops_tp": {k: number(v) for k, v in ops_tp.items()},
        "seq_length": seq_len,
    }


def census_kind(spec, kind, flavour, opts, notes):
    """The record of one layer of `kind`."""
    half, kept = halved(spec)
    if kept:
        notes.append(f"kind {kind}: {', '.join(kept)} odd, measured as replicated across TP ranks")
    measures = []
    for recompute in (frozenset(), SELECTIVE_RECOMPUTE):
        for s in (spec, half):
            measures.append(_run(opts, s, lambda b, s=s: build_layer(b, s, kind, flavour),
                                 recompute))
    return record_from(*measures, opts.seq_len, notes, f"activations.{kind}")


def census_output(spec, opts, notes):
    """The record of the output layer; the TP part is over half the vocabulary."""
    vocab = spec["vocab_size"]
    half_vocab = vocab // 2
    measures = []
    for recompute in (frozenset(), SELECTIVE_RECOMPUTE):
        for v in (vocab, half_vocab):
            measures.append(_run(opts, spec, lambda b, v=v: build_output(b, spec, v), recompute,
                                 vocab=v))
    return record_from(*measures, opts.seq_len, notes, "output_activations",
                       ratio=half_vocab / vocab)


def census_model(spec, opts, notes, model_name=None, source=None):
    """The census document of a model: activations by kind, the output layer, provenance
    (`source`: where the spec came from, when known)."""
    family = family_of(spec)
    kinds = kinds_to_measure(spec)
    activations = {kind: census_kind(spec, kind, flavour, opts, notes) for kind, flavour in kinds}
    doc = {
        "activations": activations,
        "output_activations": census_output(spec, opts, notes),
        "provenance": {
            "torch": torch.__version__,
            "path": "reference-layers",
            "model": model_name or spec.get("name") or "custom",
            "family": family,
            "dims": dims_of(spec),
            "dtype": opts.dtype,
            "attention": "eager" if (opts.eager or family == "gpt") else "flash",
            "seq_length": opts.seq_len,
            "device": str(opts.device),
        },
    }
    if any(f.get("attention") == "linear" for _, f in kinds):
        doc["provenance"]["delta_rule"] = opts.delta_rule
    if source:
        doc["provenance"]["source"] = source
    return doc
