--- nd.balance_train: `ndlua balance.lua train.yaml`: the pipeline balancer
-- over a run ndlua prices itself (nd.balance_run), its plan printed, as JSON,
-- or written into the train.yaml (model.config_overrides.offset and
-- full_rec / sel_rec, which estimate.lua reads back to the same stages).

local core = require "nd.core"
local api = require "nd.api"
local errors = require "nd.errors"
local units = require "nd.units"
local hardware = require "nd.hardware"
local balance = require "nd.balance"
local balance_run = require "nd.balance_run"
local resolved_yaml = require "nd.resolved_yaml"
local host_link = require "nd.host_link"

local M = {}

-- The reference's names of the recompute lists (nd.balance.YAML_KEYS).
local REFERENCE_KEY = { selective = "select_recompute", full = "recompute" }

-- The run a train.yaml states, with the command line's changes.
local function load_run(opts)
  local model, run, extras = api.load(opts.path)
  local changes = {}
  if opts.stages then changes.pp = opts.stages end
  if opts.micro_batches then changes.micro_batch_num = opts.micro_batches end
  if opts.interleave_given then changes.vpp = opts.interleave end
  if opts.memory then changes.device_memory = opts.memory_bytes end
  if opts.schedule_given then
    changes.pp_schedule = opts.schedule == "dualpipev" and "zero_bubble_v" or "1f1b"
  end
  if next(changes) then run = run:with(changes) end
  return model, run, extras
end

-- Per chunk a list of one entry a stage (one list when there is one chunk).
local function shaped(t, I)
  if I == 1 then return t[1] end
  return t
end

-- The plan's lists in the reference's form: offset and the recompute list,
-- as --yaml writes them (the dense prefix on stage 0 included).
local function reference_lists(result)
  local p, I = result.problem, result.problem.chunks
  local mode = result.family[2]
  local list = balance_run.recompute_lists(p, result.plan, mode)
  return shaped(result.changes.offset, I), { [REFERENCE_KEY[mode]] = shaped(list, I) }
end

local function print_plan(result, run, model, hw, opts)
  local p, plan = result.problem, result.plan
  local x = result.priced.x or core.stage_seconds(model, result.run, hw)
  local limit = run:spec().device_memory
  local off = result.offload
  io.write(("%-6s %-6s %7s %9s %10s %9s %12s %12s %10s"):format("stage", "chunk", "layers", "off", "selective",
    "full", "peak GiB", "limit GiB", "time s"))
  io.write(off and ("%9s %10s %10s\n"):format("offload", "host GiB", "copy s") or "\n")
  for s = 1, p.stages do
    for v = 1, p.chunks do
      local c = plan.cells[s][v]
      local n = (c.off or 0) + (c.selective or 0) + (c.full or 0)
      io.write(("%-6d %-6d %7d %9d %10d %9d"):format(s - 1, v - 1, n, c.off or 0, c.selective or 0, c.full or 0))
      if v == 1 then
        io.write(("%12.2f %12.2f %10.4f"):format(result.priced.totals[s] / 2 ^ 30, limit / 2 ^ 30, x[s]))
        local t = off and off.stages[s]
        if t then io.write(("%9d %10.3f %10.4f"):format(t.layers, t.bytes / 2 ^ 30, t.seconds)) end
      end
      io.write("\n")
    end
  end
  local prefix = p.run.prefix or 0
  if prefix > 0 then
    -- the first kind's layers the table's cells leave out (balance_run.recompute_lists)
    print(("stage 0 also holds the first %d layers (%s), before its chunk 0's, all at %s: the recompute lists "
      .. "(--json, --yaml) count them there"):format(prefix, p.run.prefix_kind or "the first kind", result.family[2]))
  end
  print(("step %s (the balanced layout priced by the estimate; peak %s on stage %d); the count model's plan is %s")
    :format(units.seconds(result.priced.step), units.gib(result.priced.peak), result.priced.peak_stage,
            plan.optimal and "proved optimal" or "not proved optimal"))
  if plan.stalled_plan then
    print(("the count model's plan stalled the interleaved order on its unequal chunks (step %s, %s past its closed "
      .. "form): each stage's layers dealt evenly over its chunks instead, the fewest recomputed that fit"):format(
      units.seconds(plan.stalled_plan.step), units.seconds(plan.stalled_plan.stall)))
  end
  if result.priced.stall > 0 then
    print(("the interleaved order stalls on the plan's unequal chunks: %s past the count model's closed form, "
      .. "which prices a stage's chunks as equal shares"):format(units.seconds(result.priced.stall)))
  end
  if result.even and result.even.step < result.priced.step then
    -- the count model is the estimate's but for what depends on the layout
    -- (DP and optimizer seconds, buffers); priced, the plan lost
    print(("even split, one mode (%s): %s, faster than the plan (%.3fx): keep the even split"):format(
      result.even.mode, units.seconds(result.even.step), result.even.step / result.priced.step))
  elseif result.even then
    print(("even split, one mode (%s): %s; balanced is %.3fx faster"):format(result.even.mode,
      units.seconds(result.even.step), result.even.step / result.priced.step))
  else
    print("even split, one mode: no single recompute mode fits every stage")
  end
  if result.link then print(M.offload_line(result)) end
  print(("solved in %.3f s"):format(result.solve_s))
end

--- The offload's line: what the plan's offloaded layers move and what
-- their copies cost (nd.host_link), or that none is faster.
function M.offload_line(result)
  local link, off = result.link, result.offload
  local where = ("the host link: %g GiB/s each way (%s), overlap %g of a layer's forward, %g ms a GiB copied")
    :format(link.gibps, link.from, link.overlap, link.cost)
  if not off or off.offloaded_layers == 0 then
    return "offload: no layer (no plan offloading is faster by more than 1e-9 of its step; " .. where .. ")"
  end
  local p = result.problem
  local l = p.layer or p.kinds[#p.kinds]
  local one = host_link.layer(l.act.off, l.fwd, link)
  return ("offload: %d layers (%.1f %% of the body) move %s a micro-batch to the host over %s; a layer copies "
    .. "%s out and back in %s, %s of it behind its forward, %s exposed, %s copy cost (a micro-batch; the host GiB "
    .. "and copy s columns: each stage's)"):format(off.offloaded_layers, 100 * off.offloaded_share,
    units.gib(off.offloaded_gib * 2 ^ 30, 3), where, units.gib(one.bytes, 3), units.seconds(one.copy_s),
    units.seconds(one.hidden_s), units.seconds(one.exposed_s), units.seconds(one.cost_s))
end

-- The order a run's schedule draws in (nd.pipeline_timeline), or nil for a
-- schedule the drawing has no order for (GPipe, seq-pipe: 1F1B's order, the
-- chunks of a stage together).
local ORDER = { ["1f1b"] = "1f1b", interleaved = "1f1b", zero_bubble_v = "dualpipev", zbv = "dualpipev",
                dualpipev = "dualpipev" }

-- Per stage and chunk {f, r, b}: the stage's seconds (times[s]) split over
-- its chunks in proportion to the balancer's seconds of what each holds.
local function split_over_chunks(times, p, plan)
  local priced = require("nd.balance_svg").cell_times(p, plan)
  local cells = {}
  for s, t in ipairs(times) do
    local total, w = 0, {}
    for v = 1, p.chunks do
      local c = priced[s][v]
      w[v] = math.max(0, c.f + c.r + c.b)
      total = total + w[v]
    end
    cells[s] = {}
    for v = 1, p.chunks do
      local share = total > 0 and w[v] / total or 1 / p.chunks
      cells[s][v] = { f = t.f * share, r = t.r * share, b = t.b * share, c = t.c and t.c * share }
    end
  end
  return cells
end

-- The balanced run's picture: its timeline in its schedule's order from the
-- time model's seconds a micro-batch of each stage (forward; recompute, the
-- difference from the same layout with recompute off; the rest is backward
-- and the communication compute does not hide: timing.c's
-- stage_micro_batch_time parts; over several chunks split as
-- split_over_chunks says), and the estimate's memory components of each
-- stage against the device's capacity (the chart estimate.lua --svg draws).
-- The estimate's stages with an offloading plan's bytes taken off
-- (nd.balance_run.offloaded_totals: each stage keeps its offloaded layers'
-- activations at its in-flight micro-batches, over the allocator's
-- fragmentation `frag`, on the host instead; here split into the chart's
-- activations and fragmentation parts), and per stage those bytes, for the
-- chart's outlined part over each bar.
local function offloaded_estimate(est, off, frag)
  local totals, stages = {}, {}
  for s, st in ipairs(est.stages) do totals[s] = st.total end
  local after, peak, at, host = balance_run.offloaded_totals(totals, off, frag)
  for s, st in ipairs(est.stages) do
    local t = setmetatable({}, { __index = st })
    local held = off.stages[s].held
    t.activations = (st.activations or 0) - held
    if frag > 0 then t.fragmentation = (st.fragmentation or 0) - held * frag end
    t.total = after[s]
    stages[s] = t
  end
  return setmetatable({ stages = stages, peak_bytes = peak, peak_stage = at }, { __index = est }),
    { name = "on the host (offloaded activations)", values = host }
end

-- The caption's words on an offloading plan's copy blocks. save_on_cpu's
-- hooks copy on the compute stream (pytorch
-- torch/autograd/saved_variable_default_hooks.py: the pack hook's
-- storage.copy_(tensor) as each saved tensor is made in the forward, the
-- unpack hook's tensor.to(device, non_blocking=True) before the backward
-- uses it); nd.host_link prices what of both the forward does not hide as
-- one lump on the stage's seconds a micro-batch, which the step's pipeline
-- sum carries into the next stage's start: drawn so, after the forward.
local COPY_NOTE = "; after an offloading stage's forward, its layers' host copies past the forward's overlap window "
  .. "and their copy cost (the count model's seconds, as the step prices them)"

local function write_svg(path, opts, result, model, hw, profile)
  local run, p, plan = result.run, result.problem, result.plan
  local x, fwd, step = core.stage_seconds(model, run, hw)
  local plain = core.stage_seconds(model, run:with { recompute = "off", full_recompute = core.null,
                                                     selective_recompute = core.null }, hw)
  local times, layers = {}, {}
  for s = 1, p.stages do
    local r = math.max(0, x[s] - plain[s])
    times[s] = { f = fwd[s], r = r, b = x[s] - fwd[s] - r }
    layers[s] = (s == 1 and (p.run.prefix or 0) or 0) + balance.layers_in(plan, s, 1, p.chunks)
  end
  local est = api.estimate(model, run)
  local spec = run:spec()
  local off = result.offload and result.offload.offloaded_layers > 0 and result.offload
  local host
  if off then
    est, host = offloaded_estimate(est, off, p.run.frag)
    for s = 1, p.stages do times[s].c = off.stages[s].seconds end
    step = result.priced.step
  end
  local memory = require("nd.study.charts").stages(est, {
    title = "Memory per device by stage, the balanced layout",
    subtitle = ("peak %s on stage %d"):format(units.gib(est.peak_bytes), est.peak_stage), layers = layers,
    host = host,
  })
  local title = ("%s: %s, %d stages x %d chunks, %d micro-batches, %s a device, %s"):format(
    opts.path:match("[^/]*$"), model:spec().name or "model", p.stages, p.chunks, p.micro, units.gib(spec.device_memory),
    profile.name)
  local balance_svg = require("nd.balance_svg")
  local order = ORDER[spec.pp_schedule or "1f1b"]
  local sched = order and balance_svg.drawn_schedule(order, p.chunks)
  if sched and not require("nd.pipeline_timeline").orders(sched, p.stages, p.chunks, p.micro) then sched = nil end
  local text, why = balance_svg.draw {
    title = title, stages = p.stages, micro = p.micro, times = times, memory = memory,
    schedule = sched, chunks = p.chunks, cells = sched and split_over_chunks(times, p, plan),
    caption = function(span)
      if not sched or sched == "1f1b" then
        -- no order for the run's schedule, or 1F1B's: the span is that
        -- order's, the step the time model's of the run's schedule
        return ("in 1F1B order, the chunks of a stage drawn together, it spans %s; the step is %s by the time "
          .. "model (schedule %s, with data-parallel and optimizer seconds); white is the bubble"):format(
          units.seconds(span), units.seconds(step), spec.pp_schedule or "1f1b") .. (off and COPY_NOTE or "")
      end
      return ("in %s, a colour a chunk (a stage's seconds split over its chunks as the balancer prices their "
        .. "layers), it spans %s; the step is %s by the time model (schedule %s, with data-parallel and optimizer "
        .. "seconds); white is the bubble"):format(balance_svg.ORDER_NAMES[sched], units.seconds(span),
        units.seconds(step), spec.pp_schedule or "1f1b")
    end,
    when = function(len, start) return ("%.4f s from %.4f s"):format(len, start) end,
    copy_legend = off and "host copy (exposed + cost)",
  }
  if not text then errors.raise { message = "--svg " .. path .. ": " .. why } end
  require("nd.svg").write(path, text)
end

--- The reference's offload fields (offloaded_layers, offloaded_gib,
-- offloaded_share) and per stage the offloaded layers, the GiB they move
-- out a micro-batch and the seconds their copies add a micro-batch.
function M.offload_json(out, result)
  local off = result.offload or host_link.summary(result.problem, {})
  out.offloaded_layers, out.offloaded_gib, out.offloaded_share = off.offloaded_layers, off.offloaded_gib,
    off.offloaded_share
  out.stage_offloaded, out.stage_offloaded_gib, out.stage_offload_s = {}, {}, {}
  for s, t in ipairs(off.stages) do
    out.stage_offloaded[s], out.stage_offloaded_gib[s], out.stage_offload_s[s] = t.layers, t.bytes / 2 ^ 30, t.seconds
  end
  out.host_link = { gibps = result.link.gibps, overlap = result.link.overlap, cost_ms_per_gib = result.link.cost }
end

-- The train.yaml with the plan written in.
local function write_yaml(path, opts, extras, result)
  local doc = core.yaml.load(opts.path)
  resolved_yaml.apply_plan(doc, extras.schema, result.changes, result.problem.chunks)
  resolved_yaml.write(path, doc)
end

function M.main(opts)
  if opts.objective ~= "step" then
    errors.raise { message = "--objective sapp reads a SAPP-PPB layer file; a train.yaml is balanced by ndlua's step",
                   accepted = "--objective step" }
  end
  local model, run, extras = load_run(opts)
  local profile = hardware.load(opts.hardware or hardware.DEFAULT)
  local hw = balance_run.hardware(profile, run)
  local spec = run:spec()
  local link
  if opts.offload then
    local why
    link, why = host_link.of(profile, opts.link)
    if not link then
      errors.raise { message = "--offload: " .. why, accepted = "--host-link-gibps G, or -A a profile stating one" }
    end
    if (spec.vpp or 1) > 1 then
      errors.raise { message = ("--offload plans one chunk a stage (the reference's -ao, vp = 1); the run has %d")
        :format(spec.vpp), accepted = "a run of one chunk a stage (no pp_interleave_num / vpp), or no --offload" }
    end
  end
  local result, why = balance_run.solve(model, run, hw, { link = link })
  if not result then errors.raise { message = "balance.lua: this run is not balanced: " .. why } end
  result.link = link
  if opts.yaml and result.offload and result.offload.offloaded_layers > 0 then
    errors.raise { message = ("--yaml: the plan offloads %d layers' activations to the host; HyperParallel's "
      .. "train.yaml has no key for a layer's activation offload (only activation_swap), so no train.yaml "
      .. "would hold this plan"):format(result.offload.offloaded_layers), accepted = "no --yaml with --offload" }
  end
  if opts.json then
    local out = { feasible = result.feasible, optimal = result.feasible and result.plan.optimal or false,
                  solve_s = result.solve_s, hardware = profile.name }
    if result.feasible then
      out.objective, out.step_s = result.plan.objective, result.priced.step
      out.offset, out.recompute = reference_lists(result)
      out.peak_bytes, out.stage_bytes = result.priced.peak, result.priced.totals
      if result.even then out.even_step_s, out.even_mode = result.even.step, result.even.mode end
      if link then M.offload_json(out, result) end
    elseif result.bad then
      out.bad_stage = result.bad.bad_stage and result.bad.bad_stage - 1 or nil
      out.bad_need_bytes = result.bad.bad_need_bytes
      out.capacity = result.bad.capacity
    end
    print(core.json.encode(out, { indent = 2 }))
    if not result.feasible then os.exit(1) end
    if opts.svg then write_svg(opts.svg, opts, result, model, hw, profile) end
    if opts.yaml then write_yaml(opts.yaml, opts, extras, result) end
    return
  end
  print(("%s: %s, %d body layers (%s), %d stages x %d chunks, %d micro-batches, %s a device, %s"):format(
    opts.path, model:spec().name or "model", (result.problem or result.bad_problem).body,
    (result.problem or result.bad_problem).run.kind, spec.pp, spec.vpp or 1, spec.micro_batch_num or 1,
    units.gib(spec.device_memory), profile.name))
  if not result.feasible then
    local bad = result.bad or {}
    if result.unfit then
      print("no plan: the balanced layout, priced by the estimate, does not fit (the count model is the estimate's "
        .. "but for buffers that depend on the layout)")
    elseif bad.bad_stage then
      print(("no plan: stage %d needs %s even with its least layers fully recomputed; proved"):format(
        bad.bad_stage - 1, units.gib(bad.bad_need_bytes)))
    else
      print(("no plan: the stages hold at most %d of the body layers; proved"):format(bad.capacity or 0))
    end
    os.exit(1)
  end
  print_plan(result, run, model, hw, opts)
  if opts.svg then
    write_svg(opts.svg, opts, result, model, hw, profile)
    print("chart: " .. opts.svg)
  end
  if opts.yaml then
    write_yaml(opts.yaml, opts, extras, result)
    print("plan: " .. opts.yaml .. " (model.config_overrides.offset and "
      .. (result.family[2] == "full" and "full_rec" or "sel_rec") .. "; estimate.lua reads it back)")
  end
end

return M
