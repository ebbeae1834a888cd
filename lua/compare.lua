-- compare.lua: ndlua's estimate of a run against what the run measured,
-- stage by stage of the pipeline, and a calibration fitted on it (-c).
--
-- Beside each stage's difference it names the parts of the estimate that
-- would explain it alone; the calibration (--write-calibration) is laid on
-- later estimates and searches with -c.
--
--   ndlua compare.lua train.yaml rank0.json rank1.json
--   ndlua compare.lua train.yaml megatron.log --write-calibration cal.json
--   ndlua compare.lua --case megatron-pr482-dp8 megatron.log
--
-- The run is read as estimate.lua reads it (nd.train_yaml, or a validation
-- case of spec/validation); the measured files by nd.compare.measured;
-- the ratios by nd.compare.calibration.

local nd = require "nd"
local cli = require "nd.cli"
local errors = require "nd.errors"
local overrides = require "nd.overrides"
local train_yaml = require "nd.train_yaml"
local model_yaml = require "nd.model_yaml"
local units = require "nd.units"
local svg = require "nd.svg"
local warnings = require "nd.warnings"
local runtimes = require "nd.runtimes"
local hardware = require "nd.hardware"
local files = require "nd.files"
local validation = require "nd.validation"
local measured = require "nd.compare.measured"
local calibration = require "nd.compare.calibration"

local COMMAND = {
  usage = "ndlua compare.lua TRAIN_YAML|MODEL MEASURED... [-d N] [-A NAME] [--runtime NAME] [--metric M] "
    .. "[--json] [--svg FILE]\n"
    .. "                          [--write-calibration FILE] [-c FILE] [--case ID [--cases DIR]] "
    .. "[--section.key=value ...]",
  about = "Holds ndlua's estimate of a run against what the run measured: per pipeline stage the estimated and\n"
    .. "the measured peak, the difference in GiB and %, and which parts of the estimate would explain it\n"
    .. "alone (the ratio each would need); the step time beside the measured one. MEASURED files, in any of\n"
    .. "these forms (found from the text):\n"
    .. "  pytorch     JSON of torch.cuda.memory_stats() (allocated_bytes.all.peak, reserved_bytes.all.peak), or\n"
    .. "              {max_memory_allocated, max_memory_reserved[, rank][, step_time_s]}; a list of them, one a rank\n"
    .. "  megatron    Megatron-LM logs: '[Rank R] (after N iterations) memory (MB) | allocated: .. | max allocated:\n"
    .. "              .. | reserved: .. | max reserved: ..' and 'elapsed time per iteration (ms): T'\n"
    .. "  mindspore   MindSpore/HyperParallel device logs: 'Used peak memory usage (without fragments): NM',\n"
    .. "              'Actual peak memory usage (with fragments): NM', 'per_step_time: Tms' (rank from the file\n"
    .. "              name: rank_3, worker_3, device_3)\n"
    .. "  torchtitan  torchtitan's metrics lines '[rank3]:... step: N ... memory: XGiB(Y%) tps: T ...'\n"
    .. "  csv         the reference planner's classified CSV (its --real_csv): dimensions, time, comp and the\n"
    .. "              waits in ms; the row whose degrees are the run's\n"
    .. "A rank's stage: rank // (devices / pp) (the pipeline outermost, as Megatron-LM, torchtitan and\n"
    .. "HyperParallel order their ranks); a stage's peak is its busiest rank's. A file without ranks is\n"
    .. "stage 0 of a run without a pipeline. --write-calibration fits the ratios of measured over estimated\n"
    .. "per part (parameters, gradients, optimizer, activations, communication, overhead; and each time\n"
    .. "part) that make the estimate the measurement; -c FILE here, on estimate.lua and on search.lua lays\n"
    .. "them on, and the header says so.",
  options = {
    { name = "devices", short = "d", arg = "N", help = "devices in the run, when the yaml states no context.device_num" },
    { name = "device-memory", short = "M", arg = "SIZE", help = "device memory (the capacity shown), as estimate.lua" },
    { name = "device-type", short = "A", arg = "NAME", help = "hardware profile the step time is priced on "
      .. "(default the case's, else A2 as search.lua's)" },
    { name = "global-batch", short = "b", arg = "B", help = "global batch in sequences (training.global_batch_size)" },
  },
}
for _, o in ipairs(model_yaml.DEGREE_OPTIONS) do COMMAND.options[#COMMAND.options + 1] = o end
for _, o in ipairs(model_yaml.RUN_OPTIONS) do COMMAND.options[#COMMAND.options + 1] = o end
for _, o in ipairs({
  { name = "runtime", arg = "NAME", help = "the training runtime priced (default hyperparallel)" },
  { name = "metric", arg = "M", help = "allocated or reserved: which peak is compared (default: the one the "
    .. "runtime's logs call the peak, if the files state it)" },
  { name = "run", arg = "N", help = "which run of a file holding several (the H200 traces' runs) is compared" },
  { name = "case", arg = "ID", help = "compare a validation case's run (spec/validation) instead of a TRAIN_YAML; "
    .. "without MEASURED files, against the case's own figure" },
  { name = "cases", arg = "DIR", help = "where --case looks (default spec/validation)" },
  { name = "calibration", short = "c", arg = "FILE", help = "lay a calibration file's ratios on the estimate" },
  { name = "write-calibration", arg = "FILE", help = "fit the ratios that make the estimate the measurement and "
    .. "write them to FILE (JSON)" },
  { name = "json", help = "print one JSON document (bytes and seconds) instead of the tables" },
  { name = "svg", arg = "FILE", help = "also write a chart of the estimated and measured peak per stage to FILE" },
}) do COMMAND.options[#COMMAND.options + 1] = o end

local function read_options(argv)
  local list, rest = overrides.split(argv)
  local opts, args = cli.parse(COMMAND, rest)
  if opts.help then return opts end
  opts.overrides = list
  if opts.case then
    opts.files = args
  else
    if #args < 2 then
      errors.raise { message = "compare.lua takes a TRAIN_YAML (or MODEL) and at least one MEASURED file, got "
        .. #args .. " arguments", accepted = "ndlua compare.lua --help" }
    end
    opts.path = table.remove(args, 1)
    opts.files = args
  end
  if opts.devices then opts.devices = cli.positive_integer(opts.devices, "-d", cli.MAX_DEVICES, "devices") end
  if opts.device_memory then
    opts.device_memory_text = opts.device_memory
    opts.device_memory = cli.size(opts.device_memory, "-M")
  end
  if opts.global_batch then opts.global_batch = cli.positive_integer(opts.global_batch, "-b") end
  if opts.run then opts.run = cli.positive_integer(opts.run, "--run") end
  if opts.metric and opts.metric ~= "allocated" and opts.metric ~= "reserved" then
    errors.raise { path = "--metric", message = "'" .. opts.metric .. "' is no peak ndlua compares",
                   accepted = "allocated or reserved" }
  end
  opts.run_opts = model_yaml.read_options(opts)
  opts.run_opts.devices, opts.run_opts.global_batch = opts.devices, opts.global_batch
  return opts
end

-- The run to compare: {model, run, r (its fields, defaults filled), name,
-- devices, runtime, hardware, case}.
local function from_yaml(opts)
  local doc, file
  if model_yaml.is_model_ref(opts.path) then
    doc, file = model_yaml.build(opts.path, opts.run_opts), "(the train.yaml of " .. opts.path .. ")"
  else
    doc, file = nd.yaml.load(opts.path), opts.path
    if type(doc) == "table" then model_yaml.apply(doc, opts.run_opts, true) end
  end
  local collector = warnings.quiet()
  local parsed = train_yaml.parse(doc, { file = file, devices = opts.devices, device_memory = opts.device_memory,
                                         device_memory_text = opts.device_memory_text, warnings = collector,
                                         overrides = opts.overrides, runtime = opts.runtime })
  local model, run = train_yaml.build(parsed)
  collector:flush()
  return { model = model, run = run, r = parsed.run, name = parsed.model.name, config = file }
end

local function from_case(opts)
  local dir = opts.cases or "spec/validation"
  for _, c in ipairs(validation.load(dir)) do
    if c.id == opts.case then
      local problem = validation.check_case(c)
      if problem then errors.raise { path = "--case", message = problem } end
      local model = nd.model(c.model, { warnings = warnings.quiet() })
      local run = nd.run(validation.run_fields(c))
      local r = {}
      for k, v in pairs(run:spec()) do r[k] = v end
      return { model = model, run = run, r = r, name = model:spec().name, config = c.config, case = c }
    end
  end
  errors.raise { path = "--case", message = "'" .. opts.case .. "' is no case in " .. dir,
                 accepted = "an id of ndlua's validation cases (make validate lists them)" }
end

-- The run's degrees and batch with defaults filled.
local function degrees(r)
  local d = { dp = r.dp or 1, tp = r.tp or 1, pp = r.pp or 1, cp = r.cp or 1, ep = r.ep or 1, vpp = r.vpp or 1,
              mbs = r.micro_batch_size or 1, seq = r.seq_length or 4096 }
  d.devices = d.dp * d.tp * d.pp * d.cp
  d.mb = r.micro_batch_num or ((r.global_batch_size or d.mbs * d.dp) // (d.mbs * d.dp))
  d.gbs = r.global_batch_size or d.mbs * d.dp * d.mb
  d.op = r.optimizer_shard
  return d
end

-- The measured peaks by stage and the measured step, from the files.
local function read_measured(opts, job, d)
  local ctx = { run = d, run_index = opts.run, tokens_per_step = d.gbs * d.seq, devices = d.devices }
  local recs, formats, sources = {}, {}, {}
  for _, path in ipairs(opts.files) do
    local list, format = measured.read(path, ctx)
    for _, rec in ipairs(list) do recs[#recs + 1] = rec end
    formats[#formats + 1] = format
    sources[#sources + 1] = { file = path, format = format }
  end
  if #opts.files == 0 then -- a case's own figure
    local c = job.case
    local v = c.measured * validation.UNITS[c.unit]
    local rec = { where = c.id .. " (" .. c.source .. ")" }
    if c.kind == "memory" then rec[c.metric] = v elseif c.metric == "step_time_s" then rec.step_s = v end
    recs[1] = rec
    sources[1] = { file = c.file, format = "validation case", case = c.id }
    ctx.case_stage = true
  end
  return recs, sources, ctx.case_stage
end

local function stage_of(rank, d)
  return rank // (d.devices // d.pp)
end

local function pct(est, meas) return 100 * (est - meas) / meas end

-- The parts that would explain a difference alone, with the ratio each
-- would need, smallest change first (at most three).
local function explain(parts, est, meas)
  local list = {}
  for _, p in ipairs(calibration.MEMORY_PARTS) do
    local v = parts[p]
    if v > 0 then
      local ratio = 1 + (meas - est) / v
      if ratio > 0 and ratio <= 4 then list[#list + 1] = { part = p, ratio = ratio } end
    end
  end
  table.sort(list, function(a, b) return math.abs(a.ratio - 1) < math.abs(b.ratio - 1) end)
  while #list > 3 do table.remove(list) end
  return list
end

local function explain_text(list, est, meas)
  if math.abs(est - meas) <= 0.01 * meas then return "within 1 %" end
  if #list == 0 then return "no one part" end
  local t = {}
  for i, e in ipairs(list) do t[i] = string.format("%s x%.2f", e.part, e.ratio) end
  return table.concat(t, ", ")
end

local function ranks_text(ranks)
  if #ranks == 0 then return "-" end
  table.sort(ranks)
  local out, i = {}, 1
  while i <= #ranks do
    local j = i
    while j < #ranks and ranks[j + 1] == ranks[j] + 1 do j = j + 1 end
    out[#out + 1] = j > i and (ranks[i] .. "-" .. ranks[j]) or tostring(ranks[i])
    i = j + 1
  end
  return table.concat(out, ",")
end

local function main(...)
  local opts = read_options({ ... })
  if opts.help then
    io.write(cli.help(COMMAND))
    return
  end
  if opts.write_calibration or opts.svg then
    local outs = {}
    if opts.write_calibration then outs[#outs + 1] = { "--write-calibration", opts.write_calibration } end
    if opts.svg then outs[#outs + 1] = { "--svg", opts.svg } end
    local ins = { { "the TRAIN_YAML", opts.path } }
    for _, f in ipairs(opts.files) do ins[#ins + 1] = { "a MEASURED file", f } end
    files.check_outputs(outs, ins)
  end
  local cal = opts.calibration and calibration.load(opts.calibration) or nil
  local job = opts.case and from_case(opts) or from_yaml(opts)
  local d = degrees(job.r)
  local runtime = runtimes.load(job.r.runtime or runtimes.TRAIN_YAML)
  local raw = nd.estimate(job.model, job.run)
  local est = (cal and cal.memory) and calibration.estimate(raw, cal.memory) or raw
  local recs, sources, case_stage = read_measured(opts, job, d)

  -- the metric: stated, else the runtime's peak if the files state it, else what they state
  local has = { allocated = false, reserved = false }
  local step_list, parts_measured = {}, nil
  for _, rec in ipairs(recs) do
    has.allocated = has.allocated or rec.allocated ~= nil
    has.reserved = has.reserved or rec.reserved ~= nil
    if rec.step_s then step_list[#step_list + 1] = rec.step_s end
    parts_measured = parts_measured or rec.parts
  end
  local metric = opts.metric or (job.case and job.case.kind == "memory" and job.case.metric) or nil
  if not metric then
    if has[runtime.peak] then metric = runtime.peak
    elseif has.allocated then metric = "allocated"
    else metric = "reserved" end
  end
  local any_peak = has.allocated or has.reserved
  if not has[metric] and any_peak then
    errors.raise { path = "--metric", message = "the measured files state no " .. metric .. " peak",
                   accepted = has.allocated and "allocated" or "reserved" }
  end

  -- measured peak per stage: the busiest rank's
  local per_stage = {}
  for _, rec in ipairs(recs) do
    local v = rec[metric] and math.floor(rec[metric] + 0.5)
    if v then
      local stage
      if case_stage then
        stage = est.peak_stage
      elseif rec.rank then
        stage = stage_of(rec.rank, d)
        if stage >= d.pp then
          errors.raise { message = string.format("%s: rank %d is outside the run's %d devices", rec.where, rec.rank,
                                                 d.devices) }
        end
      elseif d.pp == 1 then
        stage = 0
      else
        errors.raise { message = rec.where .. ": names no rank, and the run has " .. d.pp .. " pipeline stages",
                       accepted = "one file a rank named rank_N (or with its rank inside)" }
      end
      local s = per_stage[stage] or { ranks = {}, value = 0 }
      per_stage[stage] = s
      if rec.rank then s.ranks[#s.ranks + 1] = rec.rank end
      if v > s.value then s.value, s.where = v, rec.where end
    end
  end

  local rows = {}
  for i, s in ipairs(any_peak and est.stages or {}) do
    local m = per_stage[s.stage]
    local parts, whole = calibration.memory_parts(s, metric)
    local row = { stage = s.stage, estimate = whole, parts = parts }
    if m then
      row.measured, row.ranks, row.where = m.value, m.ranks, m.where
      row.diff, row.pct = whole - m.value, pct(whole, m.value)
      row.explain = explain(parts, whole, m.value)
      local rp, rw = calibration.memory_parts(raw.stages[i], metric)
      row.raw_parts, row.raw_estimate = rp, rw
    end
    rows[#rows + 1] = row
  end

  local step
  if #step_list > 0 then
    table.sort(step_list)
    local meas = step_list[(#step_list + 1) // 2]
    local hw = opts.device_type or (job.case and job.case.hardware) or hardware.DEFAULT
    local raw_t = nd.step_time(job.model, job.run, hw)
    local t = (cal and cal.time) and calibration.step_time(raw_t, cal.time) or raw_t
    step = { measured = meas, estimate = t.step_time_s, parts = t.parts, raw = raw_t, hardware = hw,
             diff = t.step_time_s - meas, pct = pct(t.step_time_s, meas), measured_parts = parts_measured }
    -- the time parts (the calibration's keys) that would explain the difference alone
    local by = {}
    for k, v in pairs(t.parts) do
      local key = calibration.TIME_PARTS[k]
      if key then by[key] = (by[key] or 0) + v end
    end
    local list = {}
    for _, key in ipairs(calibration.TIME_KEYS) do
      local v = by[key]
      if v and v > 0 then
        local ratio = 1 + (meas - t.step_time_s) / v
        if ratio > 0 and ratio <= 4 then list[#list + 1] = { part = key, ratio = ratio } end
      end
    end
    table.sort(list, function(a, b) return math.abs(a.ratio - 1) < math.abs(b.ratio - 1) end)
    while #list > 3 do table.remove(list) end
    step.explained_by = list
  end

  local fitted
  if opts.write_calibration then
    fitted = { fitted_on = { config = job.config, case = opts.case, measured = nd.json.array({}) } }
    for _, src in ipairs(sources) do fitted.fitted_on.measured[#fitted.fitted_on.measured + 1] = src.file end
    local fit_rows = {}
    for _, row in ipairs(rows) do
      if row.measured then
        fit_rows[#fit_rows + 1] = { parts = row.raw_parts, estimate = row.raw_estimate, measured = row.measured }
      end
    end
    if #fit_rows > 0 then
      local ratios, how = calibration.fit_memory(fit_rows)
      fitted.memory = { metric = metric }
      for k, v in pairs(ratios) do fitted.memory[k] = v end
      fitted.how = how
      fitted.fitted_on.stages = #fit_rows
    end
    if step then
      local mp
      if step.measured_parts then
        mp = {}
        for k, v in pairs(step.measured_parts) do mp[k] = v end
      end
      fitted.time = calibration.fit_time(step.raw.parts, step.measured, mp)
    end
    if not fitted.memory and not fitted.time then
      errors.raise { message = "the measured files state no peak of a stage and no step time: nothing to fit" }
    end
    calibration.write(opts.write_calibration, fitted)
  end

  if opts.svg then
    local cats, e, m = {}, {}, {}
    for i, row in ipairs(rows) do
      cats[i], e[i], m[i] = "stage " .. row.stage, row.estimate, row.measured
    end
    svg.write(opts.svg, svg.grouped_bars {
      categories = cats, unit = 2 ^ 30, unit_name = "GiB", ylabel = "peak " .. metric .. " (GiB)",
      title = string.format("Estimated and measured peak per stage: %s", job.name),
      subtitle = string.format("dp %d, tp %d, pp %d, cp %d; %s%s", d.dp, d.tp, d.pp, d.cp, metric,
                               cal and " (calibrated estimate)" or ""),
      legend_title = "peak",
      series = { { name = cal and "estimated (calibrated)" or "estimated", values = e },
                 { name = "measured", values = m } },
    })
  end

  if opts.json then
    local stages = {}
    for i, row in ipairs(rows) do
      local ex = {}
      for j, x in ipairs(row.explain or {}) do ex[j] = { part = x.part, ratio = x.ratio } end
      stages[i] = { stage = row.stage, estimated_bytes = row.estimate, measured_bytes = row.measured,
                    diff_bytes = row.diff, diff_pct = row.pct, parts = row.parts,
                    ranks = row.ranks and nd.json.array(row.ranks) or nil, measured_at = row.where,
                    explained_by = row.measured and nd.json.array(ex) or nil }
    end
    local doc = {
      model = job.name, config = job.config, case = opts.case, runtime = runtime.name,
      metric = any_peak and metric or nil,
      run = { dp = d.dp, tp = d.tp, pp = d.pp, cp = d.cp, ep = d.ep, vpp = d.vpp, devices = d.devices,
              micro_batch_size = d.mbs, micro_batch_num = d.mb, global_batch_size = d.gbs, seq_length = d.seq },
      measured = nd.json.array(sources), stages = nd.json.array(stages),
      calibration = cal and { file = cal.path, memory = cal.memory, time = cal.time } or nil,
      step = step and { estimated_s = step.estimate, measured_s = step.measured, diff_s = step.diff,
                        diff_pct = step.pct, hardware = step.hardware, parts = step.parts,
                        measured_parts = step.measured_parts, explained_by = nd.json.array(step.explained_by) } or nil,
      calibration_written = opts.write_calibration,
    }
    print(nd.json.encode(doc, { indent = 2 }))
    return
  end

  print(string.format("compare   %s, %s", job.name, job.config or ""))
  print(string.format("run       %d device%s = dp %d x tp %d x pp %d x cp %d; ep %d, vpp %d; batch %d = %d x dp %d "
    .. "x %d micro-batches; sequence %d; runtime %s", d.devices, d.devices == 1 and "" or "s", d.dp, d.tp, d.pp,
    d.cp, d.ep, d.vpp, d.gbs, d.mbs, d.dp, d.mb, d.seq, runtime.name))
  for _, src in ipairs(sources) do
    print(string.format("measured  %s (%s)", src.file, src.format))
  end
  if cal then print(calibration.header(cal)) end
  if #rows > 0 then
  print("")
  print(string.format("peak %s per device by pipeline stage (GiB; estimate - measured; %% of measured)", metric))
  print(string.format("%6s %10s %11s %10s %10s %8s  %s", "stage", "ranks", "estimated", "measured", "diff", "diff %",
                      "would explain it alone"))
  for _, row in ipairs(rows) do
    if row.measured then
      print(string.format("%6d %10s %11.2f %10.2f %+10.2f %+7.1f%%  %s", row.stage, ranks_text(row.ranks),
                          row.estimate / 2 ^ 30, row.measured / 2 ^ 30, row.diff / 2 ^ 30, row.pct,
                          explain_text(row.explain, row.estimate, row.measured)))
    else
      print(string.format("%6d %10s %11.2f %10s %10s %8s", row.stage, "-", row.estimate / 2 ^ 30, "-", "-", "-"))
    end
  end
  end
  if step then
    print("")
    print(string.format("step time on %s: estimated %s, measured %s, %+.3f s (%+.1f %%)", step.hardware,
                        units.seconds(step.estimate), units.seconds(step.measured), step.diff, step.pct))
    if not step.measured_parts and #step.explained_by > 0 and math.abs(step.diff) > 0.01 * step.measured then
      local t = {}
      for i, e in ipairs(step.explained_by) do t[i] = string.format("%s x%.2f", e.part, e.ratio) end
      print("  would explain it alone: " .. table.concat(t, ", "))
    end
    if step.measured_parts then
      local est_by, meas_by = {}, {}
      for k, v in pairs(step.parts) do
        local key = calibration.TIME_PARTS[k]
        if key then
          if key == "BUBBLE" then key = "PP_COMM" end
          est_by[key] = (est_by[key] or 0) + v
        end
      end
      local m = step.measured_parts
      meas_by.COMPUTE = m.comp
      meas_by.DP_COMM = m.dp_wait + m.op_wait
      meas_by.MP_COMM = m.mp_wait + m.sp_wait
      meas_by.EP_COMM, meas_by.CP_COMM, meas_by.PP_COMM = m.ep_wait, m.cp_wait, m.pp_wait
      print(string.format("  %-8s %10s %10s", "part", "estimated", "measured"))
      for _, key in ipairs({ "COMPUTE", "DP_COMM", "MP_COMM", "EP_COMM", "CP_COMM", "PP_COMM" }) do
        print(string.format("  %-8s %9.3fs %9.3fs", key, est_by[key] or 0, meas_by[key] or 0))
      end
      local busy = 0
      for _, v in pairs(meas_by) do busy = busy + v end
      print(string.format("  (PP_COMM holds the bubble; idle, %.3f s of the measured step, is priced by no part)",
                          step.measured - busy))
    end
  end
  if fitted then
    print("")
    local how = ({ exact = "", closest = " (the closest fit with every ratio positive: the parts cannot make "
      .. "every stage its measurement)", ["one ratio"] = " (one ratio for every memory part: no fit by parts "
      .. "kept every ratio positive)" })[fitted.how or "exact"]
    print("calibration written to " .. opts.write_calibration .. how)
    if fitted.memory then
      local t = {}
      for _, p in ipairs(calibration.MEMORY_PARTS) do t[#t + 1] = string.format("%s x%.3f", p, fitted.memory[p]) end
      print("  memory (" .. metric .. "): " .. table.concat(t, ", "))
    end
    if fitted.time then
      local t = {}
      for _, k in ipairs(calibration.TIME_KEYS) do t[#t + 1] = string.format("%s x%.3f", k, fitted.time[k]) end
      print("  time: " .. table.concat(t, ", "))
    end
  end
  if opts.svg then print("chart: " .. opts.svg) end
end

main(...)
