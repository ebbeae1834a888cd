"""The Transformers path: the census of the model's own `*DecoderLayer`.

Used where `transformers` is importable (and torch >= 2.1, which current Transformers
needs, with `torch.device` as a context manager for building on meta). It builds one
decoder layer per kind from the checkpoint's config.json on the census device, replaces
the attention implementation by the census flash kernel (attention.FlashAttention: q, k,
v, output, two fp32 statistics per head and token) unless --eager, asks for grouped-mm
experts where the Transformers version offers them (the looped experts index by data and
cannot run on meta), and measures it exactly as the reference layers are measured
(record.py). The output layer is the reference output layer of the family.

NOT EXERCISED IN THIS REPOSITORY'S TESTS: the test machine has torch 1.13 and no
transformers; the reference-layer path is what runs there.
"""

import copy
import importlib
import json
import os

import torch
from torch import nn

from .attention import FlashAttention
from .blocks import SELECTIVE_RECOMPUTE, Recompute
from .measure import measure
from .record import DTYPES, census_output, record_from
from .spec import TP_FIELDS, CensusError, dims_of, family_of, kinds_to_measure

ATTENTION_NAME = "census_flash"


def available():
    """True where transformers imports and torch is new enough for it."""
    major = int(torch.__version__.split(".")[0])
    if major < 2:
        return False
    try:
        importlib.import_module("transformers")
    except ImportError:
        return False
    return True


def load_config(source):
    """The Transformers config of a config.json file or a directory holding one."""
    import transformers  # pylint: disable=import-outside-toplevel
    path = source
    if path and os.path.isdir(path):
        path = os.path.join(path, "config.json")
    if not path or not os.path.isfile(path):
        raise CensusError(f"the Transformers path needs the checkpoint's config.json; ndlua "
                          f"reported the source {source!r}")
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    config = transformers.AutoConfig.for_model(**raw)
    return config.get_text_config() if hasattr(config, "get_text_config") else config


def _classes(config):
    """(DecoderLayer class, RotaryEmbedding class or None) of the config's model type."""
    model_type = config.model_type.removesuffix("_text")
    module = importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")
    layer = rotary = None
    for name in dir(module):
        if name.endswith("DecoderLayer") and layer is None:
            layer = getattr(module, name)
        if name.endswith("RotaryEmbedding") and rotary is None:
            rotary = getattr(module, name)
    if layer is None:
        raise CensusError(f"transformers.models.{model_type} has no *DecoderLayer class")
    return layer, rotary


def _census_attention(module, query, key, value, attention_mask, scaling=None, **_):
    """Transformers attention interface: the census flash kernel on (b, heads, s, d)."""
    rep = query.shape[1] // key.shape[1]
    if rep > 1:
        key = key.repeat_interleave(rep, dim=1)
        value = value.repeat_interleave(rep, dim=1)
    scale = scaling if scaling is not None else query.shape[-1] ** -0.5
    out = FlashAttention.apply(query.transpose(1, 2), key.transpose(1, 2),
                               value.transpose(1, 2), scale)
    return out, None


def _register_attention():
    """Registers the census kernel with Transformers' attention interface."""
    from transformers import AttentionInterface  # pylint: disable=import-outside-toplevel
    AttentionInterface.register(ATTENTION_NAME, _census_attention)


def _tag(layer):
    """Marks the layer's submodules with ops (measure.OpScope): norms normOp, attention
    modules attBMM (their linears attMM), gated-delta-rule modules linrec, other linears
    ffMM, activations ffAct."""
    for name, m in layer.named_modules():
        cls = type(m).__name__
        if "Norm" in cls:
            m.census_op = "normOp"
        elif "GatedDeltaNet" in cls:
            m.census_op = "linrec"
        elif name.endswith(("self_attn", "attention")):
            m.census_op = "attBMM"
        elif isinstance(m, nn.Linear):
            m.census_op = "attMM" if ("attn" in name) else "ffMM"
        elif name.endswith("act_fn") or "Activation" in cls:
            m.census_op = "ffAct"


def _recompute_regions(layer):
    """Wraps the norms and activations (HyperParallel's selective rule) in checkpoints."""
    for name, m in list(layer.named_modules()):
        if getattr(m, "census_op", None) in SELECTIVE_RECOMPUTE and name:
            parent_name, _, child = name.rpartition(".")
            parent = layer.get_submodule(parent_name) if parent_name else layer
            setattr(parent, child, Recompute(m))


def _halved_config(config):
    """The config with its TP widths halved (even ones), head_dim fixed."""
    out = copy.deepcopy(config)
    heads = config.num_attention_heads
    out.head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
    for name in TP_FIELDS:
        v = getattr(config, name, None)
        if isinstance(v, int) and v > 0 and v % 2 == 0:
            setattr(out, name, v // 2)
    return out


class _Wrapped(nn.Module):
    """A Transformers decoder layer as `module(x, consts)`."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x, consts):
        out = self.layer(x, attention_mask=None, position_ids=consts["position_ids"],
                         position_embeddings=consts.get("rope"))
        return out[0] if isinstance(out, tuple) else out


def _measure_layer(config, layer_idx, opts, recompute):
    """Measures one layer of `config` at index `layer_idx`."""
    layer_cls, rotary_cls = _classes(config)
    config = copy.deepcopy(config)
    config._attn_implementation = "eager" if opts.eager else ATTENTION_NAME
    if hasattr(config, "_experts_implementation"):
        config._experts_implementation = "grouped_mm"
    dtype = DTYPES[opts.dtype]
    with torch.device(opts.device):
        layer = layer_cls(config, layer_idx).to(dtype)
        rotary = rotary_cls(config=config) if rotary_cls else None
        x = torch.randn(1, opts.seq_len, config.hidden_size, dtype=dtype).requires_grad_(True)
        position_ids = torch.arange(opts.seq_len)[None]
        consts = {"position_ids": position_ids}
        if rotary is not None:
            consts["rope"] = tuple(t.to(dtype) for t in rotary(x, position_ids))
    _tag(layer)
    if recompute:
        _recompute_regions(layer)
    flat = {"position_ids": position_ids}
    if "rope" in consts:
        flat["cos"], flat["sin"] = consts["rope"]
    return measure(_Wrapped(layer), x, dict(consts, **flat))


def _first_index(spec, kind):
    """Index of the first body layer of `kind`."""
    i = 0
    for group in spec["layers"]:
        if group.get("mtp"):
            continue
        if group["kind"] == kind:
            return i
        i += group["count"]
    raise CensusError(f"kind {kind!r} has no body layer")


def census_model(spec, source, opts, notes):
    """The census document through Transformers' own layers."""
    if not available():
        raise CensusError("the Transformers path needs transformers and torch >= 2; use "
                          "--layers reference")
    _register_attention()
    config = load_config(source)
    half = _halved_config(config)
    activations = {}
    for kind, _flavour in kinds_to_measure(spec):
        idx = _first_index(spec, kind)
        m = [_measure_layer(c, idx, opts, r) for r in (frozenset(), SELECTIVE_RECOMPUTE)
             for c in (config, half)]
        activations[kind] = record_from(m[0], m[1], m[2], m[3], opts.seq_len, notes,
                                    f"activations.{kind}")
    return {
        "activations": activations,
        "output_activations": census_output(spec, opts, notes),
        "provenance": {
            "torch": torch.__version__, "path": "transformers",
            "model": spec.get("name") or config.model_type, "family": family_of(spec),
            "dims": dims_of(spec), "dtype": opts.dtype,
            "attention": "eager" if opts.eager else "flash", "seq_length": opts.seq_len,
            "device": str(opts.device),
        },
    }
