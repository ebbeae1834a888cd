"""Shared helpers of the census tests: paths, spec fixtures, running a census."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPTS = os.path.join(ROOT, "scripts")
CENSUS = os.path.join(SCRIPTS, "census.py")
SPECS = os.path.join(HERE, "specs")

if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)

# pylint: disable=wrong-import-position
from census_layers.record import Options, census_kind, census_output  # noqa: E402
from census_layers.spec import load_spec_file  # noqa: E402


def spec(name, **changes):
    """A fixture spec (spec/census/specs/NAME.json), with fields changed (None removes)."""
    out = load_spec_file(os.path.join(SPECS, f"{name}.json"))
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def kind_record(s, kind, seq_len=64, dtype="bf16", device="meta", eager=False,
                delta_rule="eager"):
    """The census record of `kind` of spec `s`."""
    opts = Options(seq_len, dtype, device, eager, delta_rule)
    return census_kind(s, kind, s["kinds"][kind], opts, [])


def output_record(s, seq_len=64, dtype="bf16", device="meta"):
    """The census record of the output layer of spec `s`."""
    return census_output(s, Options(seq_len, dtype, device), [])


def run_cli(*args, env=None):
    """Runs scripts/census.py; returns (status, stdout, stderr)."""
    run = subprocess.run([sys.executable, CENSUS, *args], capture_output=True, text=True,
                         env=env, check=False)
    return run.returncode, run.stdout, run.stderr


def write_json(directory, name, doc):
    """Writes `doc` as JSON in `directory`; returns the path."""
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path
