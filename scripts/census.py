#!/usr/bin/python3
"""census.py: measures the activation bytes per token of a model's layers with PyTorch.

    scripts/census.py CONFIG_OR_HUB_ID --seq-len N [--dtype bf16|fp16|fp32] [--out FILE]
                      [--eager] [--spec SPEC.json] [--device meta|cpu]
                      [--delta-rule eager|kernel] [--layers auto|reference|transformers]

For each layer kind of the model (one layer: the first of that kind, MTP skipped) and
for the output layer it records, at micro-batch 1 and N tokens, the bytes per token
autograd saves for backward, the live bytes at the backward peak, what selective
recompute keeps, and bytes per op, each split into the part tensor parallelism does not
divide and the part it does. The JSON it writes is what ndlua reads as census records
(`activations`, `output_activations`; they can be pasted under model.config_overrides)
plus a `provenance` block.

The model spec comes from ndlua, the one source of truth for config resolution:
`ndlua verify.lua --json CONFIG_OR_HUB_ID` ($NDLUA, else ndlua on PATH, else ./ndlua
of this repository), or from --spec SPEC.json (the settled spec, or an object holding it
under "model"). Layers are built on the meta device by default, so a 671B model's layer
costs no memory; --device cpu builds them with real tensors (same numbers).

Exit status: 0 done, 2 bad input (message on stderr), 1 internal failure.
Run with Debian's python3-torch (/usr/bin/python3); needs no other package.
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ in the tree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from census_layers import hf  # noqa: E402
from census_layers.record import DTYPES, Options, census_model  # noqa: E402
from census_layers.spec import (CensusError, find_ndlua, load_spec_file,  # noqa: E402
                                spec_from_ndlua)


class Parser(argparse.ArgumentParser):
    """argparse that exits 2 with a census-style message."""

    def error(self, message):
        raise CensusError(message)


def parse_args(argv):
    """The command line."""
    p = Parser(prog="census.py", description=__doc__.split("\n\n")[0])
    p.add_argument("model", metavar="CONFIG_OR_HUB_ID",
                   help="a config.json, checkpoint directory or hub id, as ndlua resolves it")
    p.add_argument("--seq-len", type=int, required=True, help="tokens per sequence")
    p.add_argument("--dtype", choices=sorted(DTYPES), default="bf16")
    p.add_argument("--out", help="write the JSON here (default: stdout)")
    p.add_argument("--eager", action="store_true",
                   help="eager attention (softmax(QK^T)V) instead of the flash kernel")
    p.add_argument("--spec", help="the settled model spec (JSON) instead of asking ndlua")
    p.add_argument("--delta-rule", choices=("eager", "kernel"), default="eager",
                   help="linear attention's delta rule: Transformers' eager chunked rule, or "
                        "what a fused kernel keeps")
    p.add_argument("--device", choices=("meta", "cpu"), default="meta")
    p.add_argument("--layers", choices=("auto", "reference", "transformers"), default="auto",
                   help="Transformers' own layers where importable (auto), or the reference "
                        "layers")
    args = p.parse_args(argv)
    if args.seq_len <= 0:
        raise CensusError(f"--seq-len must be a positive number of tokens, got {args.seq_len}")
    return args


def model_spec(args):
    """(settled spec, source) from --spec or ndlua."""
    if args.spec:
        return load_spec_file(args.spec), args.spec
    script_dir = os.path.dirname(os.path.abspath(__file__))
    return spec_from_ndlua(args.model, find_ndlua(script_dir))


def run(args):
    """The census document for the command line."""
    spec, source = model_spec(args)
    opts = Options(args.seq_len, args.dtype, args.device, args.eager, args.delta_rule)
    notes = []
    use_hf = args.layers == "transformers" or (args.layers == "auto" and hf.available())
    try:
        if use_hf:
            doc = hf.census_model(spec, source, opts, notes)
        else:
            doc = census_model(spec, opts, notes, spec.get("name"), source)
    except RuntimeError as e:
        if "not implemented for" not in str(e):
            raise
        first = str(e).splitlines()[0]
        raise CensusError(f"this torch cannot run the layers on {args.device} in {args.dtype} "
                          f"({first}); use --device meta") from e
    for note in notes:
        print(f"census: note: {note}", file=sys.stderr)
    return doc


def main(argv=None):
    """Entry point: 0 done, 2 bad input, 1 internal failure."""
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        doc = run(args)
    except CensusError as e:
        print(f"census: error: {e}", file=sys.stderr)
        return 2
    text = json.dumps(doc, indent=2) + "\n"
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            print(f"census: error: cannot write {args.out}: {e.strerror}", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
