-- verify.lua: prints the model a train.yaml, a hub id or a checkpoint
-- directory resolves to: where its config came from, the settled spec (every
-- field, the layer stack), parameter counts by part and forward FLOPs per
-- token, and the warnings raised on the way. A train.yaml is read whole
-- (nd.train_yaml): the model is the one its trainer builds, and the run it
-- states is printed too, as the run table nd.run takes and the values the
-- C core derives from it (run:derived), so every parsing rule can be seen.
--
--   ndlua verify.lua Qwen/Qwen3-30B-A3B
--   ndlua verify.lua --json examples/qwen3-30b-a3b-fsdp8/train.yaml
--   ndlua verify.lua train.yaml -d 64 --accelerator.tp_size=2
--   ndlua verify.lua --list-models

local nd = require "nd"
local core = require "nd.core"
local cli = require "nd.cli"
local catalog = require "nd.catalog"
local errors = require "nd.errors"
local overrides = require "nd.overrides"
local train_yaml = require "nd.train_yaml"
local layer_stack = require "nd.layer_stack"
local census = require "nd.census"
local model_spec = require "nd.model.spec"
local profiles = require "nd.profiles"
local warnings = require "nd.warnings"
local strict = require "nd.strict"

local COMMAND = {
  usage = "ndlua verify.lua [options] TRAIN_YAML | HUB_ID | DIR [--section.key=value ...]",
  about = "Resolves a model (the model a train.yaml trains, a Hugging Face hub id, or a\n"
    .. "checkpoint directory holding config.json) and prints its settled spec, where the\n"
    .. "config came from, its parameters by part and its forward FLOPs per token. For a\n"
    .. "train.yaml it also prints the run it states and the values derived from it;\n"
    .. "--section.key=value sets a key of the yaml before it is read.",
  options = {
    { name = "json", help = "print one JSON document: source, model, params, flops_per_token, warnings "
      .. "(and for a train.yaml: run, derived, config)" },
    { name = "devices", short = "d", arg = "N", help = "devices, for a train.yaml without context.device_num" },
    { name = "device-memory", short = "M", arg = "SIZE", help = "device memory, for a train.yaml (e.g. 58GB)" },
    { name = "list-models", help = "list the built-in model catalog and exit" },
    { name = "seq-len", short = "s", arg = "N", default = 4096, help = "tokens per sequence for the FLOP count" },
    { name = "visual-seq-len", arg = "N", default = 0,
      help = "visual tokens an image gives the tower, as context.visual_seq_len; 0 derives them" },
    require("nd.strict").OPTION,
  },
}

local PARAM_PARTS = { "embedding", "attention", "norms", "dense_mlp", "routed_experts", "shared_experts",
                      "router", "output", "mtp", "vision" }
local FLOP_PARTS = { "attention_proj", "attention_scores", "linear_recurrence", "mlp", "routed_experts",
                     "shared_experts", "router", "output", "mtp", "vision" }

-- 1234567 -> "1,234,567" (whole numbers), else "%.4g".
local function grouped(n)
  local i = math.tointeger(n) or (n == math.floor(n) and n < 2^63 and math.tointeger(math.floor(n)))
  if not i then return string.format("%.4g", n) end
  local s = tostring(i)
  local sign, digits = s:match("^(-?)(%d+)$")
  return sign .. digits:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
end

local short_count = require("nd.units").count

local function list_models(as_json)
  local ids = catalog.ids()
  if as_json then
    print(core.json.encode(ids, { indent = 2 }))
    return
  end
  for _, id in ipairs(ids) do
    local config = core.json.load(catalog.path(id))
    print(string.format("%-36s %s", id, type(config.model_type) == "string" and config.model_type or ""))
  end
end

local function is_yaml(path)
  return path:match("%.ya?ml$") ~= nil
end

local function format_value(v)
  if v == nil then return "-" end
  return tostring(v)
end

local function format_ops(ops)
  local parts = {}
  for _, op in ipairs(profiles.OP_NAMES) do parts[#parts + 1] = op .. " " .. ops[op] end
  return table.concat(parts, ", ")
end

local function format_family(family)
  local parts = {}
  for _, key in ipairs(profiles.run_names()) do parts[#parts + 1] = key .. " " .. tostring(family[key]) end
  if family.v_head_dim then parts[#parts + 1] = "v_head_dim " .. family.v_head_dim end
  return table.concat(parts, ", ")
end

-- Prints a settled spec (the text model or its tower), every field.
local function print_spec(spec, fields, indent)
  local row = indent .. "%-34s %s"
  for _, f in ipairs(fields) do
    print(string.format(row, f, format_value(spec[f])))
  end
  print(string.format(row, "layers", layer_stack.format(spec.layers)))
  for _, kind in ipairs(layer_stack.distinct_kinds(spec.layers)) do
    local k = spec.kinds[kind]
    print(string.format(row, "kind " .. kind, string.format("attention %s, ffn %s; %s", k.attention,
                                                            k.ffn or "(the model's)", format_ops(k.ops))))
  end
  print(string.format(row, "family", format_family(spec.family)))
  if spec.activations then
    local kinds = {}
    for kind in pairs(spec.activations) do kinds[#kinds + 1] = kind end
    table.sort(kinds)
    print(string.format(row, "activations", "census records of " .. table.concat(kinds, ", ")))
  end
end

local VISION_ORDER = { "name", "arch", "hidden_size", "num_hidden_layers", "num_attention_heads",
                       "num_key_value_heads", "head_dim", "intermediate_size", "out_hidden_size", "patch_size",
                       "temporal_patch_size", "in_channels", "spatial_merge_size", "num_position_embeddings",
                       "max_position_embeddings", "deepstack_mergers", "qkv_bias", "o_bias", "mlp_bias",
                       "norm_bias", "patch_bias", "layer_norms" }

local function print_report(spec, source, params, flops)
  print("source: " .. source.description)
  if source.path then print("config: " .. source.path) end
  print("")
  print("model " .. spec.name .. " (arch " .. spec.arch .. ")")
  local fields = {}
  for _, f in ipairs(model_spec.FIELDS) do
    if f[1] ~= "name" and f[1] ~= "arch" and model_spec.is_scalar_field(f[1]) then fields[#fields + 1] = f[1] end
  end
  print_spec(spec, fields, "  ")
  if spec.vision then
    print("")
    print("vision tower " .. spec.vision.name)
    print_spec(spec.vision, VISION_ORDER, "  ")
  end
  if not params then
    print("")
    print("(parameters and FLOPs need nd.core.model, which this ndlua lacks)")
    return
  end
  print("")
  print("parameters")
  for _, part in ipairs(PARAM_PARTS) do
    local n = params.by_part[part] or 0
    print(string.format("  %-16s %22s  %5.1f %%", part, grouped(n), params.total > 0 and 100 * n / params.total or 0))
  end
  print(string.format("  %-16s %22s  (%s)", "total", grouped(params.total), short_count(params.total)))
  print(string.format("  %-16s %22s  (%s; routed experts at top-k, embeddings and head included)", "active",
                      grouped(params.active), short_count(params.active)))
  print("")
  print(string.format("forward FLOPs per token at %d tokens (causal factor %s)", flops.seq_len,
                      tostring(flops.causal_factor)))
  for _, part in ipairs(FLOP_PARTS) do
    if flops.by_part[part] then print(string.format("  %-18s %22s", part, grouped(flops.by_part[part]))) end
  end
  print(string.format("  %-18s %22s  (%s)", "total", grouped(flops.total), short_count(flops.total)))
end

-- Prints a table's fields, one a line, by name.
local function print_sorted(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local v = t[k]
    print(string.format("  %-34s %s", k, type(v) == "table" and core.json.encode(v) or tostring(v)))
  end
end

-- Prints the run a train.yaml states and what the C core derives from it.
local function print_run(parsed, derived)
  print("")
  print("run (" .. parsed.schema .. " schema; the table nd.run takes)")
  print_sorted(parsed.run)
  print("")
  print("derived (run:derived)")
  print_sorted(derived)
end

-- The formula's bytes per token of each layer kind and of the output, as a
-- census record would state them at TP 1 (saved: what TP does not split;
-- saved_tp: what it does; once-a-layer bytes spread over the run's tokens),
-- beside the census record the model carries, if any, and their ratio.
local function formula_activations(model, spec, run)
  local out = { seq_length = run.seq_length, kinds = {} }
  local kinds = layer_stack.distinct_kinds(spec.layers)
  for _, kind in ipairs(kinds) do
    local f = census.formula(model, run, kind)
    local entry = { formula = f.saved, selective = f.selective }
    local c = spec.activations and spec.activations[kind]
    if c then
      entry.census = { saved = c.saved, saved_tp = c.saved_tp, seq_length = c.seq_length }
      local f = entry.formula.saved + entry.formula.saved_tp
      entry.ratio = f > 0 and (c.saved + c.saved_tp) / f or nil
    end
    out.kinds[kind] = entry
  end
  out.output = { formula = census.formula(model, run, kinds[1]).output }
  if spec.output_activations then
    local c = spec.output_activations
    out.output.census = { saved = c.saved, saved_tp = c.saved_tp, seq_length = c.seq_length }
    out.output.ratio = (c.saved + c.saved_tp) / (out.output.formula.saved + out.output.formula.saved_tp)
  end
  return out
end

local function print_activations(fa)
  print("")
  print(string.format("activations per token at %d tokens, one layer, TP 1 (formula; census where the model has one)",
                      fa.seq_length))
  print(string.format("  %-18s %12s %12s %12s %12s %8s", "kind", "formula", "formula TP", "census", "census TP",
                      "ratio"))
  local names = {}
  for kind in pairs(fa.kinds) do names[#names + 1] = kind end
  table.sort(names)
  names[#names + 1] = "output"
  for _, kind in ipairs(names) do
    local e = kind == "output" and fa.output or fa.kinds[kind]
    local c = e.census
    print(string.format("  %-18s %10.1f B %10.1f B %12s %12s %8s", kind, e.formula.saved, e.formula.saved_tp,
      c and string.format("%.1f B", c.saved) or "-", c and string.format("%.1f B", c.saved_tp) or "-",
      e.ratio and string.format("%.3f", e.ratio) or "-"))
  end
end

-- Reads a train.yaml whole: the settled spec, its source, the parse.
local function read_yaml(path, opts, list, collector)
  if opts.visual_seq_len > 0 then
    list[#list + 1] = { path = "context.visual_seq_len", text = tostring(opts.visual_seq_len),
                        shown = "--visual-seq-len" }
  end
  local memory = opts.device_memory and cli.size(opts.device_memory, "-M")
  return train_yaml.load(path, { devices = opts.devices and cli.positive_integer(opts.devices, "-d", cli.MAX_DEVICES, "devices"), device_memory = memory,
                                 warnings = collector, overrides = list })
end

local function main(...)
  local list, rest = overrides.split({ ... })
  local opts, args = cli.parse(COMMAND, rest)
  if opts.help then
    io.write(cli.help(COMMAND))
    return
  end
  if opts.list_models then return list_models(opts.json) end
  if #args ~= 1 then
    errors.raise { message = "verify.lua takes one TRAIN_YAML, HUB_ID or DIR, got " .. #args .. " arguments",
                   accepted = "ndlua verify.lua --help" }
  end
  if opts.seq_len < 1 then errors.raise { path = "--seq-len", message = "must be a positive number of tokens" } end
  -- Warnings are kept while the input is read and printed once it has been:
  -- a refusal prints alone.
  local collector = warnings.quiet()
  local target = args[1]
  local spec, source, parsed, derived
  if is_yaml(target) then
    parsed = read_yaml(target, opts, list, collector)
    spec, source = parsed.model, parsed.source
  else
    if #list > 0 then
      errors.raise { path = list[1].shown, message = "sets a key of a train.yaml, and " .. target .. " is none",
                     accepted = "a TRAIN_YAML (*.yaml, *.yml) to override keys of" }
    end
    spec, source = nd.resolve_model(target, { warnings = collector, visual_seq_len = opts.visual_seq_len })
  end
  local model, run
  if parsed then
    model, run = train_yaml.build(parsed)
    derived = run:derived(model)
  else
    -- the layers' own bytes, no recompute or runtime's choice in them: the core's defaults (runtime "none")
    model, run = core.model(spec), nd.run { seq_length = opts.seq_len, runtime = "none" }
  end
  local params, flops = model:params(), model:flops(opts.seq_len)
  local activations = formula_activations(model, spec, run)
  collector:flush()
  if opts.json then
    local doc = { source = source, model = spec, params = params, flops_per_token = flops,
                  activations_per_token = activations, warnings = core.json.array(collector:all()) }
    if parsed then
      doc.run, doc.derived = parsed.run, derived
      doc.config = { schema = parsed.schema, seq_len_stated = parsed.seq_len_stated,
                     stated_ac_mode = parsed.stated_ac_mode, dp_source = parsed.dp_source,
                     mtp_unpriced = parsed.mtp_unpriced, vision = parsed.vision,
                     replacements = core.json.array(parsed.replacements), census = parsed.census,
                     moe_dispatch = parsed.moe_dispatch, device_memory_source = parsed.device_memory_source }
    end
    print(core.json.encode(doc, { indent = 2 }))
  else
    print_report(spec, source, params, flops)
    print_activations(activations)
    if parsed then print_run(parsed, derived) end
  end
  strict.finish(opts, collector)
end

main(...)
