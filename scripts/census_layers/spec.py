"""The settled model spec the census builds from (lua/nd/README.md, "The settled model
spec"): where it comes from (a --spec file, or `ndlua verify.lua --json`), which kinds
it has, which reference family builds it, the dims of one layer, and the same spec with
its tensor-parallel widths halved."""

import json
import os
import shutil
import subprocess

# Families of reference layers by op-profile name (the spec's `arch`).
FAMILIES = {
    "default": "llama", "llama2": "llama", "qwen": "llama", "mixtral": "llama",
    "deepseek": "deepseek", "qwen3_5": "qwen3_5", "gpt": "gpt",
}

# Fields that tensor parallelism divides; the TP-halved layer has them halved (model-spec-census-train-yaml.md §c.2).
TP_FIELDS = ("num_attention_heads", "num_key_value_heads", "intermediate_size",
             "moe_intermediate_size", "shared_expert_intermediate_size",
             "linear_num_key_heads", "linear_num_value_heads")

# Integer fields recorded in the provenance when the spec has them.
DIM_FIELDS = ("hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
              "intermediate_size", "vocab_size", "num_experts", "num_experts_per_tok",
              "num_shared_experts", "moe_intermediate_size", "shared_expert_intermediate_size",
              "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim",
              "v_head_dim", "linear_num_key_heads", "linear_key_head_dim",
              "linear_num_value_heads", "linear_value_head_dim", "linear_conv_kernel_dim")


class CensusError(Exception):
    """Bad input: the message says what is wrong and what would be accepted (exit 2)."""


def load_spec_file(path):
    """The model spec in a JSON file: the settled spec itself, or a document holding it
    under "model" (as `ndlua verify.lua --json` prints)."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise CensusError(f"cannot read the spec file {path}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise CensusError(f"{path}: not JSON ({e.msg} at line {e.lineno}, column {e.colno})") from e
    if isinstance(doc, dict) and isinstance(doc.get("model"), dict):
        doc = doc["model"]
    if not isinstance(doc, dict):
        raise CensusError(f"{path}: expected a settled model spec (a JSON object), or an object "
                          "with one under \"model\"")
    return doc


def find_ndlua(script_dir):
    """$NDLUA, else `ndlua` on PATH, else the repository's ./ndlua next to scripts/."""
    env = os.environ.get("NDLUA")
    if env:
        return env
    found = shutil.which("ndlua")
    if found:
        return found
    return os.path.join(os.path.dirname(os.path.abspath(script_dir)), "ndlua")


def spec_from_ndlua(arg, ndlua):
    """(model, source) from `ndlua verify.lua --json ARG`."""
    if not os.path.exists(ndlua):
        raise CensusError(f"ndlua not found at {ndlua} (set $NDLUA, put ndlua on PATH, or build it "
                          "with make); or give the settled spec with --spec SPEC.json")
    try:
        run = subprocess.run([ndlua, "verify.lua", "--json", arg], capture_output=True,
                             text=True, check=False)
    except OSError as e:
        raise CensusError(f"cannot run {ndlua}: {e.strerror}") from e
    if run.returncode != 0:
        detail = run.stderr.strip() or run.stdout.strip() or "no message"
        raise CensusError(f"`{ndlua} verify.lua --json {arg}` failed (status {run.returncode}): "
                          f"{detail}")
    try:
        doc = json.loads(run.stdout)
    except json.JSONDecodeError as e:
        raise CensusError(f"`ndlua verify.lua --json {arg}` printed no JSON document "
                          f"({e.msg})") from e
    if not isinstance(doc, dict) or not isinstance(doc.get("model"), dict):
        raise CensusError(f"`ndlua verify.lua --json {arg}` printed no \"model\" object")
    return doc["model"], source_path(doc.get("source"))


def source_path(source):
    """The config path of ndlua's `source` ({kind, id, path, description}, or a string)."""
    if isinstance(source, dict):
        return source.get("path") or source.get("description")
    return source


def family_of(spec):
    """The reference family that builds this spec, from its `arch`."""
    arch = spec.get("arch")
    if arch not in FAMILIES:
        known = ", ".join(sorted(FAMILIES))
        raise CensusError(f"no reference layers for arch {arch!r} (model {spec.get('name')!r}); "
                          f"the census builds the archs {known}")
    return FAMILIES[arch]


def _positive_int(spec, name, what):
    """spec[name] as a positive whole number, or a CensusError naming it."""
    v = spec.get(name)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != int(v) or v <= 0:
        raise CensusError(f"{what}: {name} must be a positive whole number, got {v!r}")
    return int(v)


def need(spec, names, what):
    """The named fields as positive ints; a CensusError listing every one missing."""
    missing = [n for n in names if spec.get(n) is None]
    if missing:
        raise CensusError(f"{what} needs {', '.join(missing)}, which the model spec "
                          f"({spec.get('name')!r}) does not state")
    return {n: _positive_int(spec, n, what) for n in names}


def kinds_to_measure(spec):
    """[(kind, flavour)] for each kind of the stack's body, in order of first use (the
    first layer of that kind; MTP groups skipped). flavour = {attention, ffn}."""
    layers, kinds = spec.get("layers"), spec.get("kinds")
    if not isinstance(layers, list) or not layers:
        raise CensusError("the model spec has no layer stack (`layers`: [{kind, count, mtp}])")
    if not isinstance(kinds, dict):
        raise CensusError("the model spec has no `kinds` table ({kind: {attention, ffn}})")
    out, seen = [], set()
    for i, group in enumerate(layers):
        if not isinstance(group, dict) or not isinstance(group.get("kind"), str):
            raise CensusError(f"layers[{i}] must be an object with a kind name")
        kind = group["kind"]
        if group.get("mtp") or kind in seen:
            continue
        if not isinstance(kinds.get(kind), dict):
            raise CensusError(f"layers[{i}] names kind {kind!r}, which `kinds` does not describe "
                              f"(it has {sorted(kinds)})")
        seen.add(kind)
        out.append((kind, kinds[kind]))
    if not out:
        raise CensusError("the model spec's layer stack has no body layers")
    return out


def halved(spec):
    """(spec with TP_FIELDS halved, fields left whole). head_dim stays fixed (settled
    from the whole spec). An odd count cannot be split in two: it stays whole, which
    measures it as replicated on every TP rank (an MQA model's single KV head)."""
    out = dict(spec)
    if out.get("head_dim") is None and out.get("num_attention_heads"):
        out["head_dim"] = spec["hidden_size"] // spec["num_attention_heads"]
    kept = []
    for name in TP_FIELDS:
        v = spec.get(name)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            if v % 2 == 0:
                out[name] = v // 2
            else:
                kept.append(name)
    return out, kept


def dims_of(spec):
    """The integer dims of a spec that the provenance records."""
    return {n: spec[n] for n in DIM_FIELDS if isinstance(spec.get(n), int)}
