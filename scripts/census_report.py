#!/usr/bin/python3
"""census_report.py: the census bytes per token of each family and kind, and (once ndlua
reports them) ndlua's formula bytes beside them.

    scripts/census_report.py [--seq-len N] [--model HUB_ID ...] [--delta-rule eager|kernel]

Without --model it measures the small fixture models of spec/census/specs (one per
family, seconds of CPU on the meta device); with --model it measures catalog models at
their real dims through `ndlua verify.lua --json` (as scripts/census.py does).

Formula columns: ndlua's `verify.lua --json` does not yet report per-kind formula bytes
per token, so they print as "n/a". `formula_bytes(verify_doc)` is where they are read
once it does; `with_formulas(...)` already puts them beside the census with their ratio.
No number is made up.
"""

import argparse
import glob
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ in the tree

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from census_layers.record import Options, census_model  # noqa: E402
from census_layers.spec import (CensusError, find_ndlua, load_spec_file,  # noqa: E402
                                source_path)

FIXTURES = os.path.join(os.path.dirname(HERE), "spec", "census", "specs")
FIELDS = ("saved", "saved_tp", "working", "working_tp", "selective", "selective_tp")
# Dtype of each fixture family: fp16 for GPT-2 (Korthikanti's setting), else bf16.
FIXTURE_DTYPE = {"gpt": "fp16"}


def formula_bytes(verify_doc):
    """ndlua's formula bytes per token by kind, from `ndlua verify.lua --json`.

    Expected, once verify.lua reports them (the name is a proposal to the ndlua side):
    verify_doc["formula_activations"] = {kind: {saved, saved_tp, working, working_tp,
    selective, selective_tp}, "output": {...}} at the census's sequence length. Returns
    that mapping, or None while verify.lua does not report it.
    """
    if not isinstance(verify_doc, dict):
        return None
    found = verify_doc.get("formula_activations")
    return found if isinstance(found, dict) else None


def with_formulas(census, formula):
    """The three rows of one kind: census bytes, formula bytes, ratio formula / census,
    each a list over FIELDS; "n/a" where the formula is not known."""
    formula = formula or {}
    cens = [census.get(f) for f in FIELDS]
    form = [formula.get(f, "n/a") for f in FIELDS]
    ratio = [f"{f / c:.3f}" if isinstance(f, (int, float)) and c else "n/a"
             for c, f in zip(cens, form)]
    return [("census", cens), ("formula", form), ("ratio", ratio)]


def fmt(x):
    """A number of bytes per token, short."""
    if isinstance(x, str):
        return x
    return f"{x:.2f}" if x != int(x) else str(int(x))


def print_table(title, doc, formulas):
    """One model's rows: each kind, then the output layer."""
    prov = doc["provenance"]
    print(f"\n{title}: {prov['family']} family, {prov['dtype']}, {prov['attention']} attention, "
          f"s = {prov['seq_length']}; bytes per token, micro-batch 1")
    print(f"  {'kind':<17}{'':<8}" + "".join(f"{f:>13}" for f in FIELDS))
    rows = list(doc["activations"].items()) + [("output", doc["output_activations"])]
    for kind, rec in rows:
        for i, (what, values) in enumerate(with_formulas(rec, (formulas or {}).get(kind))):
            label = kind if i == 0 else ""
            print(f"  {label:<17}{what:<8}" + "".join(f"{fmt(v):>13}" for v in values))


def fixture_runs(seq_len, delta_rule):
    """(title, census document, formulas) for every fixture spec."""
    for path in sorted(glob.glob(os.path.join(FIXTURES, "*.json"))):
        spec = load_spec_file(path)
        dtype = FIXTURE_DTYPE.get(spec.get("arch"), "bf16")
        doc = census_model(spec, Options(seq_len, dtype, "meta", False, delta_rule), [])
        yield os.path.basename(path)[:-5], doc, None


def model_runs(models, seq_len, delta_rule):
    """(title, census document, formulas) for catalog models through ndlua."""
    ndlua = find_ndlua(HERE)
    for model in models:
        run = subprocess.run([ndlua, "verify.lua", "--json", model], capture_output=True,
                             text=True, check=False)
        if run.returncode != 0:
            raise CensusError(f"ndlua verify.lua --json {model}: {run.stderr.strip()}")
        verify = json.loads(run.stdout)
        opts = Options(seq_len, "fp16" if verify["model"].get("arch") == "gpt" else "bf16",
                       "meta", False, delta_rule)
        doc = census_model(verify["model"], opts, [], verify["model"].get("name"),
                           source_path(verify.get("source")))
        yield model, doc, formula_bytes(verify)


def main(argv=None):
    """Prints the report; 2 on bad input."""
    p = argparse.ArgumentParser(prog="census_report.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--seq-len", type=int, default=64)
    p.add_argument("--model", action="append", default=[], help="a catalog model (repeatable)")
    p.add_argument("--delta-rule", choices=("eager", "kernel"), default="eager")
    args = p.parse_args(argv)
    try:
        runs = (model_runs(args.model, args.seq_len, args.delta_rule) if args.model
                else fixture_runs(args.seq_len, args.delta_rule))
        for title, doc, formulas in runs:
            print_table(title, doc, formulas)
    except CensusError as e:
        print(f"census_report: error: {e}", file=sys.stderr)
        return 2
    print("\nformula: n/a until `ndlua verify.lua --json` reports per-kind formula bytes "
          "(census_report.formula_bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
