-- estimate.lua: the memory every device needs to run the one strategy a
-- train.yaml states, stage by stage of the pipeline.
--
--   ndlua estimate.lua examples/qwen3-30b-a3b-fsdp8/train.yaml
--   ndlua estimate.lua train.yaml -d 64 -M 58GB --json
--   ndlua estimate.lua train.yaml --svg memory.svg --accelerator.tp_size=2
--
-- The train.yaml is read by nd.train_yaml (the seed parser's rules); the
-- memory model is the C core's (nd.estimate). Sizes print in binary units.

local nd = require "nd"
local cli = require "nd.cli"
local errors = require "nd.errors"
local overrides = require "nd.overrides"
local train_yaml = require "nd.train_yaml"
local layer_stack = require "nd.layer_stack"
local units = require "nd.units"
local warnings = require "nd.warnings"
local runtimes = require "nd.runtimes"
local model_yaml = require "nd.model_yaml"
local hardware = require "nd.hardware"
local files = require "nd.files"
local strict = require "nd.strict"
local report_parts = require "nd.report.parts"

local COMMAND = {
  usage = "ndlua estimate.lua TRAIN_YAML|MODEL [-d N] [-M SIZE] [-A NAME] [-b B] [--tp N] [--pp N] [--cp N] [--ep N]\n"
    .. "                          [--seq TOKENS] [--zero STAGE] [--runtime NAME] [--print-yaml] [--json] [--svg FILE] "
    .. "[--section.key=value ...]",
  about = "Estimates the memory per device of the strategy a HyperParallel train.yaml states: parameters,\n"
    .. "gradients, optimizer states, activations, communication buffers, backward overhead and reserve,\n"
    .. "for every pipeline stage, against the device's capacity. MODEL (a hub id such as Qwen/Qwen3-8B, or a\n"
    .. "checkpoint directory) stands for the train.yaml the options imply: FSDP over every data-parallel\n"
    .. "rank, full recompute, AdamW, 4096 tokens (see --print-yaml). --section.key=value sets a key of the\n"
    .. "yaml before it is read, as the trainer's own command line does (e.g.\n"
    .. "--model.pretrained_model_name_or_path=Qwen/Qwen3-8B, --accelerator.tp_size=2).",
  options = {
    { name = "devices", short = "d", arg = "N",
      help = "devices in the run, when the yaml states no context.device_num (AutoModels schema)" },
    { name = "device-memory", short = "M", arg = "SIZE",
      help = "device memory with its unit: 58GB or 64GiB (GB read as GiB); default -A's, else 64GB" },
    { name = "device-type", short = "A", arg = "NAME",
      help = "hardware profile whose memory is the capacity unless -M or the yaml states one" },
    { name = "global-batch", short = "b", arg = "B", help = "global batch in sequences (training.global_batch_size)" },
  },
}
for _, o in ipairs(model_yaml.DEGREE_OPTIONS) do COMMAND.options[#COMMAND.options + 1] = o end
for _, o in ipairs(model_yaml.RUN_OPTIONS) do COMMAND.options[#COMMAND.options + 1] = o end
COMMAND.options[#COMMAND.options + 1] = { name = "runtime", arg = "NAME",
  help = "the training runtime whose kernels and allocator are priced (default hyperparallel; see below)" }
COMMAND.options[#COMMAND.options + 1] = { name = "recompute", arg = "MODE",
  help = "activation checkpointing of every layer: off, selective or full (activation_checkpoint.mode)" }
COMMAND.options[#COMMAND.options + 1] = strict.OPTION
COMMAND.options[#COMMAND.options + 1] =
  { name = "json", help = "print one JSON document (integers in bytes) instead of the tables" }
COMMAND.options[#COMMAND.options + 1] =
  { name = "svg", arg = "FILE", help = "also write a stacked bar chart of memory per stage to FILE" }
COMMAND.options[#COMMAND.options + 1] =
  { name = "calibration", short = "c", arg = "FILE", help = "lay the per-part ratios of a calibration file "
    .. "(compare.lua --write-calibration) on the estimate; the header says so" }

-- The byte components of a stage, in the order of the table, the JSON and
-- the chart: the field, the column (nd.report.table.MEMORY; the chart's
-- colours are nd.study.charts's, so every chart colours a component alike).
local COMPONENTS = report_parts.MEMORY

local function read_options(argv)
  local list, rest = overrides.split(argv)
  local opts, args = cli.parse(COMMAND, rest)
  if opts.help then return opts end
  if #args ~= 1 then
    errors.raise { message = "estimate.lua takes one TRAIN_YAML, got " .. #args .. " arguments",
                   accepted = "ndlua estimate.lua --help" }
  end
  opts.path, opts.overrides = args[1], list
  if opts.devices then opts.devices = cli.positive_integer(opts.devices, "-d", cli.MAX_DEVICES, "devices") end
  if opts.device_memory then
    opts.device_memory_text = opts.device_memory
    opts.device_memory = cli.size(opts.device_memory, "-M")
  end
  if opts.device_type then
    local profile = hardware.load(opts.device_type)
    opts.fallback_memory = { bytes = profile.memory_bytes, label = profile.name .. "'s memory", text = profile.memory }
  end
  -- a run's global batch is at most nd.core.limits.batch (2^24) sequences
  if opts.global_batch then
    opts.global_batch = cli.positive_integer(opts.global_batch, "-b", require("nd.core").limits.batch, "sequences")
  end
  if opts.recompute ~= nil then
    local mode = opts.recompute:lower()
    if mode ~= "off" and mode ~= "selective" and mode ~= "full" then
      errors.raise { path = "--recompute", message = "'" .. opts.recompute .. "' is no activation checkpoint mode",
                     accepted = "off, selective or full (one mode a run trains with; search.lua searches them)" }
    end
    opts.recompute = mode
  end
  opts.run = model_yaml.read_options(opts)
  opts.run.devices, opts.run.global_batch = opts.devices, opts.global_batch
  return opts
end

-- "1, 2, 3" of a list, or the value.
local function show(v)
  if type(v) == "table" then return "[" .. nd.json.encode(v):sub(2, -2):gsub(",", ", ") .. "]" end
  return tostring(v)
end

local count_text = units.count

-- The layers each stage holds, from nd.layout.
local function stage_layers(layout)
  local out = {}
  for i, st in ipairs(layout) do
    local n = 0
    for _, c in ipairs(st.chunks) do n = n + c.count end
    out[i] = n
  end
  return out
end

-- The layer stack, or for a long one (Qwen3.5 interleaves its kinds) the
-- count of each kind.
local function stack_text(layers)
  if #layers <= 4 then return layer_stack.format(layers) end
  local order, counts = {}, {}
  for _, g in ipairs(layers) do
    local name = g.kind .. (g.mtp and "(mtp)" or "")
    if not counts[name] then order[#order + 1] = name end
    counts[name] = (counts[name] or 0) + g.count
  end
  local parts = {}
  for _, name in ipairs(order) do parts[#parts + 1] = counts[name] .. "×" .. name end
  return table.concat(parts, ", ") .. " in " .. #layers .. " runs"
end

local function recompute_text(parsed)
  local run = parsed.run
  if parsed.stated_ac_mode then return parsed.stated_ac_mode .. " (" .. parsed.stated_ac_path .. ")" end
  local parts = {}
  if run.full_recompute ~= false then parts[#parts + 1] = "full " .. show(run.full_recompute) end
  if run.selective_recompute ~= false then parts[#parts + 1] = "selective " .. show(run.selective_recompute) end
  if #parts == 0 then parts[1] = "off" end
  return table.concat(parts, ", ") .. " (model.config_overrides)"
end

local function print_model(parsed, params)
  local spec = parsed.model
  print(string.format("model     %s (arch %s), %s", spec.name, spec.arch, parsed.source.description))
  print(string.format("          %s parameters (%s active); %d layers: %s", count_text(params.total),
                      count_text(params.active), spec.num_hidden_layers + (spec.mtp_depth or 0),
                      stack_text(spec.layers)))
  if parsed.mtp_unpriced > 0 then
    print(string.format("          %d MTP layer(s) of the checkpoint not built by the AutoModels trainer",
                        parsed.mtp_unpriced))
  end
  if parsed.vision.checkpoint then
    if parsed.vision.built then
      print(string.format("          vision tower: %d layers, %d visual tokens%s", spec.vision.num_hidden_layers,
                          parsed.run.visual_seq_length or spec.vision.max_position_embeddings,
                          parsed.run.freeze_vision and ", frozen" or ""))
    else
      print("          vision tower: not built (" .. parsed.vision.why .. ")")
    end
  end
end

local function print_run(parsed)
  local r = parsed.run
  local devices = r.dp * r.tp * r.pp * r.cp
  print(string.format("run       %d device%s = dp %d x tp %d x pp %d x cp %d (dp from %s); ep %d, etp %d, vpp %d",
                      devices, devices == 1 and "" or "s", r.dp, r.tp, r.pp, r.cp, parsed.dp_source, r.ep, r.etp, r.vpp))
  print(string.format("          batch %d = micro-batch %d x dp %d x %d micro-batches; sequence %d tokens%s",
                      r.global_batch_size, r.micro_batch_size, r.dp, r.micro_batch_num, r.seq_length,
                      parsed.seq_len_stated and "" or " (the model's limit)"))
  print(string.format("          recompute %s; schedule %s; sequence parallel %s; %s schema",
                      recompute_text(parsed), r.pp_schedule, r.sequence_parallel and "on" or "off", parsed.schema))
  local runtime = runtimes.load(r.runtime)
  print(string.format("          runtime %s (lua/nd/runtimes/%s.lua; its logs call max_memory_%s the peak)",
                      runtime.name, runtime.name, runtime.peak))
  print(string.format("          optimizer %s (%d state%s of %d B, sharded over %d%s); params %d B, grads %d B, "
                      .. "compute %d B", r.optimizer, r.optimizer_states, r.optimizer_states == 1 and "" or "s",
                      r.optimizer_state_bytes, r.optimizer_parallel and r.optimizer_shard or 1,
                      r.main_param_bytes > 0 and ", fp32 main params" or "", r.param_bytes, r.grad_bytes,
                      r.compute_bytes))
end

local function print_table(est, layers)
  local shown = {}
  for _, c in ipairs(COMPONENTS) do
    local any = c[1] ~= "main_params" and c[1] ~= "fragmentation" and c[1] ~= "grad_pool"
                and c[1] ~= "recv_buffers"
    for _, s in ipairs(est.stages) do any = any or (s[c[1]] or 0) > 0 end
    if any then shown[#shown + 1] = c end
  end
  local gib = est.peak_bytes >= 2 ^ 30
  local unit, name = gib and 2 ^ 30 or 2 ^ 20, gib and "GiB" or "MiB"
  print("")
  print("memory per device by pipeline stage (" .. name .. "; * marks the peak)")
  local head = { string.format("%7s %6s", "stage", "layers") }
  for _, c in ipairs(shown) do head[#head + 1] = string.format("%12s", c[2]) end
  head[#head + 1] = string.format("%12s", "total")
  print(table.concat(head, ""))
  for i, s in ipairs(est.stages) do
    local row = { string.format("%s%6d %6d", s.stage == est.peak_stage and "*" or " ", s.stage, layers[i]) }
    -- a part the core leaves out of a stage (fragmentation, grad_pool where zero) prints 0.00
    for _, c in ipairs(shown) do row[#row + 1] = string.format("%12.2f", (s[c[1]] or 0) / unit) end
    row[#row + 1] = string.format("%12.2f", s.total / unit)
    print(table.concat(row, ""))
  end
end

local function print_verdict(est, memory_source)
  local cap, peak = est.capacity_bytes, est.peak_bytes
  print("")
  local verdict
  if est.fits then
    verdict = string.format("fits: peak %s on stage %d, %s to spare", units.gib(peak), est.peak_stage,
                            units.gib(cap - peak))
  else
    verdict = string.format("does NOT fit: peak %s on stage %d exceeds it by %s", units.gib(peak), est.peak_stage,
                            units.gib(peak - cap))
  end
  local host = 0
  for _, s in ipairs(est.stages) do host = math.max(host, s.host and s.host.total or 0) end
  if host > 0 then
    print(string.format("host memory: %s a device at most (offloaded parameters, optimizer states or activations)",
                        units.gib(host)))
  end
  print(string.format("allocated %s, reserved %s on stage %d (the reserve, %s, is for what no allocator counts)",
                      units.gib(est.allocated_bytes), units.gib(est.reserved_bytes), est.peak_stage,
                      units.gib(est.stages[est.peak_stage + 1].reserve)))
  print(string.format("device capacity %s (%s): %s", units.gib(cap), memory_source, verdict))
end

local function json_document(parsed, params, est, layout, collector, step)
  local stages = {}
  for i, s in ipairs(est.stages) do
    local bytes = { total = s.total }
    for _, c in ipairs(COMPONENTS) do bytes[c[1]] = s[c[1]] end
    stages[i] = { stage = s.stage, layout = nd.json.array(layout[i].chunks), bytes = bytes,
                  rows = nd.json.array(s.rows) }
  end
  local spec = parsed.model
  local census_kinds, seen = {}, {}
  for _, s in ipairs(est.stages) do
    for _, row in ipairs(s.rows) do
      if row.census and not seen[row.kind] then
        seen[row.kind] = true
        census_kinds[#census_kinds + 1] = row.kind
      end
    end
  end
  return {
    model = { name = spec.name, arch = spec.arch, source = parsed.source, params = params.total,
              active_params = params.active, num_hidden_layers = spec.num_hidden_layers,
              mtp_depth = spec.mtp_depth or 0, mtp_unpriced = parsed.mtp_unpriced,
              layers = layer_stack.format(spec.layers), vision = parsed.vision },
    run = parsed.run,
    config = { schema = parsed.schema, seq_len_stated = parsed.seq_len_stated,
               stated_ac_mode = parsed.stated_ac_mode, dp_source = parsed.dp_source,
               replacements = nd.json.array(parsed.replacements), census = parsed.census,
               moe_dispatch = parsed.moe_dispatch },
    capacity_bytes = est.capacity_bytes,
    stages = nd.json.array(stages),
    peak_bytes = est.peak_bytes,
    peak_stage = est.peak_stage,
    fits = est.fits,
    census_used = est.census_used,
    census_kinds = nd.json.array(census_kinds), -- the kinds (and "output") priced from census records
    step = { hardware = step.hardware, step_time_s = step.step_time_s, mfu = step.mfu,
             tokens_per_s_per_device = step.tokens_per_s_per_device, parts = step.parts },
    warnings = nd.json.array(collector:all()),
  }
end

-- (nd.svg and nd.study.charts load here: most runs draw no chart)
local function write_chart(path, parsed, est, layers)
  local r = parsed.run
  require("nd.svg").write(path, require("nd.study.charts").stages(est, {
    title = string.format("Memory per device: %s", parsed.model.name),
    subtitle = string.format("dp %d, tp %d, pp %d, cp %d, ep %d; micro-batch %d x %d, %d tokens; peak %s on "
      .. "stage %d", r.dp, r.tp, r.pp, r.cp, r.ep, r.micro_batch_size, r.micro_batch_num, r.seq_length,
      units.gib(est.peak_bytes), est.peak_stage),
    layers = layers,
  }))
end

-- The runtime profiles --runtime takes, one line each.
local function runtimes_help()
  local lines = { "", "runtimes (--runtime; nd/runtimes/NAME.lua on NDLUA_PATH adds one):" }
  for _, name in ipairs(runtimes.names()) do
    local p = runtimes.load(name)
    lines[#lines + 1] = string.format("  %-14s %s", name, p.about)
  end
  return table.concat(lines, "\n") .. "\n"
end

-- The document to read: the train.yaml with the run options laid over, or
-- the one a model id implies; and the name messages give it.
-- --recompute MODE written into the document where the trainer reads the
-- mode (activation_checkpoint.mode; train.gradient_checkpointing's
-- activation_checkpoint in the legacy schema, off spelled none), with the
-- per-stage counts of model.config_overrides (full_rec, sel_rec), which
-- would win over it, taken out.
local function set_recompute(doc, mode)
  if type(doc) ~= "table" then return end
  local overrides_t = type(doc.model) == "table" and doc.model.config_overrides
  if type(overrides_t) == "table" then overrides_t.full_rec, overrides_t.sel_rec = nil, nil end
  if type(doc.train) == "table" and doc.accelerator == nil and doc.training == nil then
    if type(doc.train.gradient_checkpointing) ~= "table" then doc.train.gradient_checkpointing = {} end
    doc.train.gradient_checkpointing.activation_checkpoint = mode == "off" and "none" or mode
    return
  end
  if type(doc.activation_checkpoint) ~= "table" then doc.activation_checkpoint = {} end
  doc.activation_checkpoint.mode = mode
end

local function read_doc(opts)
  if model_yaml.is_model_ref(opts.path) then
    local doc = model_yaml.build(opts.path, opts.run)
    if opts.recompute then set_recompute(doc, opts.recompute) end
    return doc, "(the train.yaml of " .. opts.path .. ")"
  end
  local doc = nd.yaml.load(opts.path)
  if type(doc) == "table" then model_yaml.apply(doc, opts.run, true) end
  if opts.recompute then set_recompute(doc, opts.recompute) end
  return doc, opts.path
end

-- The step of the run on the hardware -A names (the default profile
-- otherwise): search.lua's time model (nd.step_time), its step, MFU and
-- the share of each part.
local function step_of(model, run, opts)
  local profile = hardware.load(opts.device_type or hardware.DEFAULT)
  local t = nd.step_time(model, run, profile)
  t.source = opts.device_type and "-A" or "the default profile; -A names another"
  return t
end

local function print_step(t)
  print(string.format("step time %s s on %s (%s): MFU %.1f%%, %.1f tokens/s a device", report_parts.seconds(
    t.step_time_s), t.hardware, t.source, 100 * t.mfu, t.tokens_per_s_per_device))
  local parts = {}
  for _, p in ipairs(report_parts.PARTS) do
    local share = t.step_time_s > 0 and 100 * t.parts[p[1]] / t.step_time_s or 0
    parts[#parts + 1] = string.format("%s %.1f%%", p[2], share)
  end
  print("          " .. table.concat(parts, ", "))
end

local function main(...)
  local opts = read_options({ ... })
  if opts.help then
    io.write(cli.help(COMMAND))
    io.write(runtimes_help())
    return
  end
  -- Warnings are kept while the yaml is read and printed once it has been:
  -- a refusal prints alone.
  local collector = warnings.quiet()
  local doc, file = read_doc(opts)
  if opts.print_yaml then
    overrides.apply(doc, opts.overrides)
    io.write(nd.yaml.encode(doc))
    return
  end
  local parsed = train_yaml.parse(doc, { file = file, devices = opts.devices, device_memory = opts.device_memory,
                                         device_memory_text = opts.device_memory_text,
                                         fallback_memory = opts.fallback_memory, warnings = collector,
                                         overrides = opts.overrides, runtime = opts.runtime })
  local model, run = train_yaml.build(parsed)
  if opts.svg then
    local yaml_path = not model_yaml.is_model_ref(opts.path) and opts.path or nil
    files.check_outputs({ { "--svg", opts.svg } }, { { "the TRAIN_YAML", yaml_path },
      { "the model's config.json", (parsed.source or {}).path } })
  end
  local est, layout = nd.estimate(model, run), nd.layout(model, run)
  for i, note in ipairs(est.notes or {}) do collector:warn(est.note_keys[i], note) end
  collector:flush()
  local calibration = opts.calibration and require "nd.compare.calibration"
  local cal = opts.calibration and calibration.load(opts.calibration) or nil
  if cal and cal.memory then est = calibration.estimate(est, cal.memory) end
  local params = model:params()
  local layers = stage_layers(layout)
  if opts.svg then write_chart(opts.svg, parsed, est, layers) end
  local step = step_of(model, run, opts)
  if cal and cal.time then step = calibration.step_time(step, cal.time) end
  local misfit = not est.fits and string.format("does not fit: peak %s on stage %d exceeds the %s a device by %s",
    units.gib(est.peak_bytes), est.peak_stage, units.gib(est.capacity_bytes), units.gib(est.peak_bytes
    - est.capacity_bytes)) or nil
  if opts.json then
    local doc = json_document(parsed, params, est, layout, collector, step)
    if cal then doc.calibration = { file = cal.path, memory = cal.memory, time = cal.time } end
    print(nd.json.encode(doc, { indent = 2 }))
    return strict.finish(opts, collector, { misfit, n = 1 })
  end
  if cal then print(calibration.header(cal)) end
  print_model(parsed, params)
  print_run(parsed)
  print_table(est, layers)
  print("")
  print_step(step)
  print_verdict(est, parsed.device_memory_shown)
  if opts.svg then print("chart: " .. opts.svg) end
  strict.finish(opts, collector, { misfit, n = 1 })
end

main(...)
