--- nd.balance_run: the pipeline balancer's problem from a priced run. For a
-- settled model and run (one body layer kind), what nd.core.balance needs:
-- per recompute mode the body layer's static bytes, the activations it keeps
-- a micro-batch and its seconds a micro-batch; the embedding's and the
-- head's stages pinned; the micro-batches each stage and chunk keeps; the
-- device memory the estimate checks against, less its reserve, over its
-- fragmentation. Every number is read off the C core's own estimate and
-- time model (nd.estimate, nd.core.stage_seconds) by pricing the even split
-- and the even split with one layer moved, so the balancer's memory and
-- step are the estimate's: `evaluate` of the even split gives back the
-- estimate's per-stage totals and step time (spec/balance_run_spec.lua).
--
-- Two body kinds in model order (DeepSeek-V3's dense layers before its MoE
-- ones): a first kind held in the first stage's first chunk is pinned there;
-- one spanning more cells (pp 16 vpp 2) is balanced with nd.core.balance's
-- kinds and sequence, each kind priced by a probe of its own, and its plan
-- written as each cell's first layers (M.written_plan).
--
-- A plan is written as the per-stage forms the run and the train.yaml read:
-- `offset` (vpp lists of one entry per stage) and either `full_recompute`
-- or `selective_recompute` (per stage and chunk: the first layers of each
-- chunk). The layout reads one of the two lists per run, so the balancer is
-- solved twice, with {off, selective} and with {off, full}, and the faster
-- plan is kept.
--
-- With a host link (opts.link, nd.host_link.of: balance.lua --offload, the
-- reference's -ao), each family is solved again with its plain layers
-- free to offload their activations at nd.host_link's price, and that plan
-- kept only where its step is less by more than 1e-9 of the plain one's;
-- one chunk a stage only. The estimate has no per-layer offload, so the
-- plan's peaks and step are the layout's, priced, with the offloaded
-- layers' bytes and copy seconds taken off and added by the count model's
-- rule (with_offload); the plan's offsets and recompute lists are written
-- as before, its offloaded layers in out.offload (nd.host_link.summary).
-- @module nd.balance_run

local core = require "nd.core"
local api = require "nd.api"
local host_link = require "nd.host_link"
local layers_in = require("nd.balance").layers_in

local M = {}

M.MODES = { "off", "selective", "full" }

-- The balancer's schedule names (nd.core.balance_coeffs) of the run's.
local SCHEDULE = {
  ["1f1b"] = "1f1b", interleaved = "1f1b", gpipe = "gpipe", seqpipe = "seqpipe", seqsmartvpp = "seqpipe",
  zero_bubble_v = "dualpipev", zbv = "dualpipev", dualpipev = "dualpipev",
}

-- Rows that are no body layer of the text model.
local TABLES = { embedding = true, output = true, mtp_module = true }

local function refuse(fmt, ...)
  error({ balance_refused = string.format(fmt, ...) }, 0)
end

-- The cells in model order as {stage, chunk}: chunk by chunk, each over the
-- stages upward; under DualPipeV (`vee`) the second chunk over the stages
-- downward, as its V lays it (the balancer's order "v", balance_kinds.c).
local function cell_order(S, I, vee)
  local order = {}
  for v = 1, I do
    for i = 1, S do order[#order + 1] = { (vee and v == 2) and S + 1 - i or i, v } end
  end
  return order
end

-- The body of an estimate whose first kind spans more than one cell
-- (DeepSeek-V3's 3 dense layers over stage 0's and stage 1's first chunks
-- at pp 16 vpp 2): every body layer of either kind, in model order (chunk by
-- chunk, each over the stages upward; inside a cell the estimate's rows in
-- their order), for nd.core.balance's kinds and sequence. counts[s][v] is a
-- cell's layers of every kind; cell_kinds[s][v] the kind of each, in order.
local function kinds_of(e, S, I, kinds, inflight, where, vee)
  local index, counts, cell_kinds, sequence = {}, {}, {}, {}
  for k, kind in ipairs(kinds) do index[kind.name] = k end
  for s = 1, S do
    counts[s], cell_kinds[s] = {}, {}
    for v = 1, I do counts[s][v], cell_kinds[s][v] = 0, {} end
    for _, row in ipairs(e.stages[s].rows) do
      local k = index[row.kind]
      if k then
        local list = cell_kinds[s][row.chunk + 1]
        for _ = 1, row.count do list[#list + 1] = k end
        counts[s][row.chunk + 1] = counts[s][row.chunk + 1] + row.count
      end
    end
  end
  local order = cell_order(S, I, vee)
  for _, c in ipairs(order) do
    for _, k in ipairs(cell_kinds[c[1]][c[2]]) do sequence[#sequence + 1] = k end
  end
  return { counts = counts, inflight = inflight, where = where, prefix = 0, kinds = kinds,
           cell_kinds = cell_kinds, sequence = sequence, kind = kinds[#kinds].name, order = order,
           vee = vee or nil }
end

-- The body layers of an estimate: per stage and chunk (1-based) the count,
-- the micro-batches in flight, and the stages holding the tables. The body
-- is one layer kind; a first kind before it (DeepSeek-V3's dense layers
-- before its MoE ones) is taken as pinned to the first stage's first chunk
-- where the even split holds it all there (`prefix` layers of it), and both
-- kinds go to the balancer in model order where it does not (kinds_of).
local function body_of(e, S, I, vee)
  local inflight, where, kinds, by_kind = {}, {}, {}, {}
  for s = 1, S do
    inflight[s] = {}
    for _, row in ipairs(e.stages[s].rows) do
      local v = row.chunk + 1
      if row.vision then refuse("the model has a vision tower") end
      if row.mtp or row.kind == "mtp_module" then refuse("the model has MTP layers") end
      if TABLES[row.kind] then
        where[row.kind] = { s, v }
      else
        local k = by_kind[row.kind]
        if not k then
          k = { counts = {}, row = row, name = row.kind }
          for t = 1, S do
            k.counts[t] = {}
            for c = 1, I do k.counts[t][c] = 0 end
          end
          by_kind[row.kind], kinds[#kinds + 1] = k, k
        end
        k.counts[s][v] = k.counts[s][v] + row.count
      end
      inflight[s][v] = row.in_flight
    end
    for v = 1, I do
      if not inflight[s][v] then refuse("stage %d chunk %d holds no layer", s, v) end
    end
  end
  if #kinds == 0 then refuse("the model has no body layer") end
  local body, prefix = kinds[#kinds], 0
  if #kinds > 2 then
    refuse("the model has more than two body layer kinds (%s, %s, %s)", kinds[1].name, kinds[2].name, kinds[3].name)
  elseif #kinds == 2 then
    local first = kinds[1]
    local total = 0
    for s = 1, S do
      for v = 1, I do total = total + first.counts[s][v] end
    end
    if first.counts[1][1] ~= total then return kinds_of(e, S, I, kinds, inflight, where, vee) end
    prefix = total
  end
  return { counts = body.counts, inflight = inflight, row = body.row, kind = body.name, where = where,
           prefix = prefix, prefix_kind = prefix > 0 and kinds[1].name or nil }
end

-- An offset of the even split as vpp lists of one entry per stage (the
-- layout's form: per + o layers a chunk, the tables' slots counted).
local function even_offset(b, S, I, in_offset)
  local n, total = {}, 0
  for s = 1, S do
    n[s] = {}
    for v = 1, I do
      local slot = 0
      if in_offset then
        for _, at in pairs(b.where) do
          if at[1] == s and at[2] == v then slot = slot + 1 end
        end
      end
      n[s][v] = b.counts[s][v] + slot + (s == 1 and v == 1 and b.prefix or 0)
      total = total + n[s][v]
    end
  end
  local per = total // S // I
  local o = {}
  for v = 1, I do
    o[v] = {}
    for s = 1, S do o[v][s] = n[s][v] - per end
  end
  return o
end

-- A priced layout's stages' seconds, their forward parts and the step, worked
-- out when first read (a layout the memory-aware bound rules out reads none).
local TIMED = { x = 1, fwd = 2, step = 3 }
local PRICED = {
  __index = function(t, k)
    if not TIMED[k] then return nil end
    t.x, t.fwd, t.step = core.stage_seconds(t.model, t.run, t.hw)
    return rawget(t, k)
  end,
}

-- One priced layout: the estimate, and (when read) the stages' seconds a
-- micro-batch, their forward parts, the step.
local function price(model, run, hw)
  return setmetatable({ e = api.estimate(model, run), model = model, run = run, hw = hw }, PRICED)
end

-- A split with one layer moved: the even split's run `even` (offset none,
-- at the probe's mode) with offset `o`, priced without building its run:
-- its stages' allocated bytes at once (nd.core.allocated_with_offset: the
-- estimate's stages[s].allocated, no estimate table), its stages' seconds
-- and their forward parts when first read (nd.core.stage_seconds_with_offset,
-- stage_seconds's first two).
local MOVED = {
  __index = function(t, k)
    if k ~= "x" and k ~= "fwd" then return nil end
    t.x, t.fwd = core.stage_seconds_with_offset(t.model, t.even_run, t.flat, t.hw)
    return rawget(t, k)
  end,
}

local function price_moved(model, hw, even, o)
  local flat = {}
  for v = 1, #o do
    for s = 1, #o[v] do flat[#flat + 1] = o[v][s] end
  end
  return setmetatable({ allocated = core.allocated_with_offset(model, even.run, flat), offset = o, flat = flat,
                        even_run = even.run, model = model, hw = hw }, MOVED)
end

local function stage_sum(t, S, f)
  local sum = 0
  for s = 1, S do
    for v = 1, #t[s] do sum = sum + f(s, v, t[s][v]) end
  end
  return sum
end

-- The core hardware table of a profile name (or table) for the run's runtime.
function M.hardware(name, run)
  local profile, core_hw = api.profile_of("nd.balance_run", "hardware", name, 1)
  local spec = run:spec()
  if spec.runtime and profile.levels and profile.peak_tflops then
    core_hw = require("nd.hardware").core(profile, spec.runtime, spec.overlapped_grad_reduce == true)
  end
  return core_hw, profile
end

-- With kinds: for kind k, the even split with one layer of that kind moved
-- into a cell from the next cell in model order (the earlier cell takes the
-- later one's first layer) or from the previous one (the later cell takes
-- the earlier one's last), priced, and the cell that took it. Where the
-- giving cell holds one layer, the boundaries after it (before it) move too,
-- up to the first cell holding two or more, which gives one layer; each cell
-- between gives one and takes one (as the one-kind probe moves a layer from
-- the last stage to the first). A cell between on the taking cell's own
-- stage is passed only where the layer it gives and the one it takes are of
-- one kind, so that stage grows by exactly the one layer of kind k.
local function kind_probe(model, hw, even, b, S, I, in_offset, k)
  local order = b.order
  local function held(c) return b.cell_kinds[c[1]][c[2]] end
  -- the first cell from i on (step +1 or -1) on another stage than `stage`
  -- holding two or more layers, cells of `stage` on the way only where they
  -- give and take layers of one kind; or nil
  local function giver(i, step, stage)
    while i >= 1 and i <= #order do
      local x = held(order[i])
      if order[i][1] ~= stage then
        if #x >= 2 then return order[i] end
      else
        -- a cell on the taking stage passes on its first layer (step +1; its
        -- last, step -1) and takes the next cell's first (the previous one's
        -- last): its stage keeps its kinds only where those two are alike
        local y = order[i + step] and held(order[i + step])
        local gives, takes = step > 0 and x[1] or x[#x], y and (step > 0 and y[1] or y[#y])
        if gives ~= takes then return nil end
      end
      i = i + step
    end
  end
  for i = 1, #order - 1 do
    local a, c = order[i], order[i + 1]
    local gain, give
    if a[1] == c[1] then -- DualPipeV's turn: both cells on the last stage
    elseif held(c)[1] == k then
      gain, give = a, giver(i + 1, 1, a[1])
    end
    if not give and held(a)[#held(a)] == k then
      gain, give = c, giver(i, -1, c[1])
    end
    if give then
      local o = even_offset(b, S, I, in_offset)
      o[gain[2]][gain[1]], o[give[2]][give[1]] = o[gain[2]][gain[1]] + 1, o[give[2]][give[1]] - 1
      return { moved = price_moved(model, hw, even, o), cell = gain }
    end
  end
  refuse("no cell boundary moves a %s layer with a layer left on each side", b.kinds[k].name)
end

-- Per mode: the even split and the split with one layer moved from the last
-- stage's last chunk to the first stage's, priced (with kinds: one such
-- split a kind, kind_probe).
local function probes(model, run, hw, S, I, modes, in_offset)
  local out = {}
  local vee = SCHEDULE[run:spec().pp_schedule or "1f1b"] == "dualpipev" and I == 2
  for _, mode in ipairs(modes) do
    local even = price(model, core.run_at_mode(run, mode), hw)
    local b = body_of(even.e, S, I, vee)
    if b.kinds then
      local by_kind = {}
      for k = 1, #b.kinds do by_kind[k] = kind_probe(model, hw, even, b, S, I, in_offset, k) end
      out[mode] = { even = even, kinds = by_kind, body = b, offset = even_offset(b, S, I, in_offset) }
    else
      local o = even_offset(b, S, I, in_offset)
      if b.counts[S][I] < 2 or b.counts[1][I] < 1 then refuse("too few layers a stage to probe") end
      o[I][1], o[I][S] = o[I][1] + 1, o[I][S] - 1
      local moved = price_moved(model, hw, even, o)
      out[mode] = { even = even, moved = moved, body = b, offset = even_offset(b, S, I, in_offset) }
    end
  end
  return out
end

-- The problem offered `modes`, from the probes of every mode it offers.
-- One body kind: the layer's prices per mode, and per stage what it holds
-- beside its body layers (per mode: its buffers and its last layer's
-- backward overhead) and its seconds beside theirs (not `timed`: no
-- seconds, the bytes alone).
local function layer_prices(pr, modes, b, S, I, timed)
  local layer = { act = {}, time = {} }
  local stat, fwd = -math.huge, {}
  for _, mode in ipairs(modes) do
    local p = pr[mode]
    local act = p.body.row.activation_bytes_per_layer
    -- stage 1 took one more layer into its last chunk: its bytes grew by the
    -- layer's static bytes and its activations times that chunk's micro-batches
    local slope = p.moved.allocated[1] - p.even.e.stages[1].allocated
    stat = math.max(stat, slope - act * b.inflight[1][I])
    layer.act[mode] = act
    if timed then
      layer.time[mode] = p.moved.x[1] - p.even.x[1]
      fwd[mode] = p.moved.fwd[1] - p.even.fwd[1]
    end
  end
  layer.stat, layer.fwd = stat, fwd[modes[1]]
  local const, pinned = {}, {}
  for s = 1, S do
    const[s] = {}
    local n = 0
    for v = 1, I do n = n + b.counts[s][v] end
    for _, mode in ipairs(modes) do
      local p = pr[mode]
      local body = 0
      for v = 1, I do body = body + b.counts[s][v] * (stat + layer.act[mode] * b.inflight[s][v]) end
      const[s][mode] = p.even.e.stages[s].allocated - body
      local t = timed and p.even.x[s] - n * layer.time[mode] or 0
      if s == 1 and b.prefix > 0 then -- the first kind's layers at the family's mode
        if mode == modes[#modes] then pinned[s] = t end
      else
        pinned[s] = math.max(pinned[s] or -math.huge, t)
      end
    end
  end
  return layer, const, pinned
end

-- Several kinds in model order: each kind's prices per mode, read off its
-- own probe (the stage that took one layer of it: its bytes grew by the
-- layer's static bytes and its activations times that cell's micro-batches,
-- its seconds by the layer's), and per stage what it holds and takes beside
-- its layers of every kind (not `timed`: the bytes alone).
local function kinds_prices(pr, modes, b, S, I, timed)
  local kinds = {}
  for k in ipairs(b.kinds) do
    local q, stat = { act = {}, time = {} }, -math.huge
    for _, mode in ipairs(modes) do
      local p = pr[mode]
      local probe = p.kinds[k]
      local s, v = probe.cell[1], probe.cell[2]
      local act = p.body.kinds[k].row.activation_bytes_per_layer
      stat = math.max(stat, probe.moved.allocated[s] - p.even.e.stages[s].allocated - act * b.inflight[s][v])
      q.act[mode] = act
      if timed then
        q.time[mode] = probe.moved.x[s] - p.even.x[s]
        q.fwd = q.fwd or probe.moved.fwd[s] - p.even.fwd[s]
      end
    end
    q.stat, kinds[k] = stat, q
  end
  local const, pinned = {}, {}
  for s = 1, S do
    const[s] = {}
    for _, mode in ipairs(modes) do
      local p = pr[mode]
      local bytes, secs = 0, 0
      for k, q in ipairs(kinds) do
        for v = 1, I do
          local n = b.kinds[k].counts[s][v]
          bytes, secs = bytes + n * (q.stat + q.act[mode] * b.inflight[s][v]), secs + n * (q.time[mode] or 0)
        end
      end
      const[s][mode] = p.even.e.stages[s].allocated - bytes
      pinned[s] = math.max(pinned[s] or -math.huge, timed and p.even.x[s] - secs or 0)
    end
  end
  return kinds, const, pinned
end

-- The problem of one family of modes; `untimed`: its bytes alone (what
-- M.least_recompute and M.cannot_fit read), no probe's seconds read;
-- `link` (nd.host_link.of): its plain layers may offload their activations
-- to the host at the link's price (timed only).
local function assemble(run, pr, modes, untimed, link)
  local spec = run:spec()
  local first = pr[modes[1]]
  local b = first.body
  local S, I = #b.counts, #b.counts[1]
  local layer, kinds, const, pinned
  if b.kinds then
    kinds, const, pinned = kinds_prices(pr, modes, b, S, I, not untimed)
  else
    layer, const, pinned = layer_prices(pr, modes, b, S, I, not untimed)
  end
  if link and not untimed then
    for _, l in ipairs(kinds or { layer }) do l.offload = host_link.offload_of(l, link) end
  end
  local function most(s)
    -- the first kind's layers (on stage 1) recompute with the family's mode
    if s == 1 and b.prefix > 0 then return const[s][modes[#modes]] end
    local x = -math.huge
    for _, mode in ipairs(modes) do x = math.max(x, const[s][mode]) end
    return x
  end
  local head_stage, tail_stage = 1, (b.where.output or { S, I })[1]
  -- the stages without the tables hold alike: their bytes come off the
  -- limit, their seconds off every stage; the tables' stages keep the rest
  local mid_const, mid_time = 0, 0
  for s = 1, S do
    if s ~= head_stage and s ~= tail_stage then
      mid_const, mid_time = math.max(mid_const, most(s)), math.max(mid_time, pinned[s])
    end
  end
  local reserve, frag = first.even.e.stages[1].reserve or 0, spec.fragmentation or 0
  -- one pipeline schedule's micro-batches, and the step's k schedules
  -- alike (src/core/timing.c pipeline_step: k times one schedule's step)
  local m, k = run:schedules()
  local coef_sum, coef_max = core.balance_coeffs { pp = S, vpp = I, micro = m,
    schedule = SCHEDULE[spec.pp_schedule or "1f1b"], seq_split = spec.seq_split }
  coef_sum, coef_max = k * coef_sum, k * coef_max
  local function pin(s)
    return { stat = math.max(0, most(s) - mid_const), act = 0, time = math.max(0, pinned[s] - mid_time), fwd = 0 }
  end
  local problem = {
    stages = S, chunks = I, micro = m, body = stage_sum(b.counts, S, function(_, _, n) return n end),
    limit = (spec.device_memory - reserve) / (1 + frag) - mid_const, layer = layer,
    -- DualPipeV's V ends on the first stage: one stage holds both tables, and
    -- its constant is the head's alone
    head = pin(head_stage),
    tail = tail_stage == head_stage and { stat = 0, act = 0, time = 0, fwd = 0 } or pin(tail_stage),
    tail_stage = tail_stage, inflight = b.inflight,
    coef_sum = coef_sum, coef_max = coef_max, objective = "step",
    kinds = kinds, sequence = kinds and b.sequence, order = kinds and b.vee and "v" or nil,
  }
  problem.run = {
    modes = modes, const = const, mid_time = mid_time, mid_const = mid_const, reserve = reserve, frag = frag,
    counts = b.counts, offset = first.offset, head_stage = head_stage, kind = b.kind,
    prefix = b.prefix, prefix_kind = b.prefix_kind, kind_counts = kinds and {},
    -- the step beyond the pipeline's: DP's exposed seconds and the optimizer's
    extra = not untimed and first.even.step - core.pipeline_step(run, first.even.x) or nil,
  }
  if kinds then
    for k, kind in ipairs(b.kinds) do problem.run.kind_counts[k] = kind.counts end
  end
  return problem
end

-- Why a run is not balanced, or nil.
local function refused(spec)
  local S = spec.pp or 1
  if S < 2 then return ("no pipeline (pp = %d)"):format(S) end
  if not SCHEDULE[spec.pp_schedule or "1f1b"] then
    return ("the schedule %s is not priced by the balancer"):format(tostring(spec.pp_schedule))
  end
  if spec.offload_params or spec.offload_optimizer or spec.swap_attention or spec.swap_optimizer
    or (spec.offload_activations or 0) > 0 then
    return "the run offloads to the host"
  end
end

--- The balance problem of a run. hw: nd.core's hardware table (M.hardware).
-- opts.modes: the modes offered (default all three). Returns the problem
-- table nd.core.balance reads, with `run`, the fields M.evaluate and
-- M.changes read, and the probes (the even split priced per mode); raises
-- {balance_refused = why} where the run is not one the balancer's count
-- model reproduces.
function M.problem(model, run, hw, opts)
  opts = opts or {}
  local spec = run:spec()
  local why = refused(spec)
  if why then refuse("%s", why) end
  local modes = opts.modes or M.MODES
  local pr = opts.probes or probes(model, run, hw, spec.pp, spec.vpp or 1, modes, spec.emb_out_in_offset == true)
  return assemble(run, pr, modes, false, opts.link), pr
end

--- A plan's per-stage memory (device bytes, as the estimate's totals) and
-- step seconds by the problem's rule, the stages' constants at `mode` (the
-- last layer's option and the buffers of a stage recomputing one mode).
function M.evaluate(problem, cells, mode)
  local ok, obj, stage_time, stage_mem = core.balance_evaluate(problem, cells)
  local r = problem.run
  local totals = {}
  if not obj then return nil end
  for s = 1, problem.stages do
    local pinned = 0
    if s == r.head_stage then pinned = pinned + problem.head.stat end
    if s == problem.tail_stage then pinned = pinned + problem.tail.stat end
    local alloc = stage_mem[s] - pinned + r.const[s][mode]
    totals[s] = alloc * (1 + r.frag) + r.reserve
  end
  local S = problem.stages
  local step = obj + (problem.coef_sum * S + problem.coef_max) * r.mid_time + r.extra
  return { fits = ok, totals = totals, step = step, objective = obj, stage_time = stage_time }
end

--- The even split with every layer at `mode`, as cells.
function M.even_cells(problem, mode)
  local cells = {}
  for s = 1, problem.stages do
    cells[s] = {}
    for v = 1, problem.chunks do
      if problem.kinds then -- per kind, as balance_evaluate reads a kinds problem's cells
        cells[s][v] = {}
        for k, counts in ipairs(problem.run.kind_counts) do cells[s][v][k] = { [mode] = counts[s][v] } end
      else
        cells[s][v] = { [mode] = problem.run.counts[s][v] }
      end
    end
  end
  return cells
end

-- The families of options a plan may mix, as the layout reads them: the
-- off layers beside one recompute mode (the run's selective_recompute or
-- full_recompute list: the first layers of each chunk).
M.FAMILIES = { { "off", "selective" }, { "off", "full" } }
local LIST_KEY = { selective = "selective_recompute", full = "full_recompute" }

-- A problem's numbers as one string: the memo's key.
local function key_of(p)
  local parts = { p.stages, p.chunks, p.micro, p.body, p.limit, p.coef_sum, p.coef_max, p.tail_stage }
  for _, layer in ipairs(p.kinds or { p.layer }) do
    parts[#parts + 1], parts[#parts + 2] = layer.stat, layer.fwd
    for _, mode in ipairs(M.MODES) do
      parts[#parts + 1] = ("%s=%s/%s"):format(mode, tostring(layer.act[mode]), tostring(layer.time[mode]))
    end
    if layer.offload then parts[#parts + 1] = ("offload=%.17g"):format(layer.offload.time.off) end
  end
  if p.sequence then parts[#parts + 1] = table.concat(p.sequence, ",") end
  for _, t in ipairs { p.head, p.tail } do
    parts[#parts + 1] = ("%.17g/%.17g"):format(t.stat, t.time)
  end
  for s = 1, p.stages do parts[#parts + 1] = table.concat(p.inflight[s], ",") end
  for i, x in ipairs(parts) do parts[i] = type(x) == "number" and ("%.17g"):format(x) or tostring(x) end
  return table.concat(parts, ";")
end

--- A memo of solved problems (by their numbers): pass the same table to
-- every M.solve of a search so that alike candidates are solved once.
function M.memo() return { plans = {}, hits = 0, solved = 0 } end

local function solve_memo(p, memo)
  if not memo then return core.balance(p) end
  local key = key_of(p)
  local plan = memo.plans[key]
  if plan then
    memo.hits = memo.hits + 1
  else
    plan = core.balance(p)
    memo.plans[key], memo.solved = plan, memo.solved + 1
  end
  return plan
end

--- The layers a plan recomputes at its family's `mode`, per chunk and
-- stage (list[v][s]), as the run's recompute list writes them: each cell's
-- count at the mode, and on stage 0's first chunk the first kind's layers
-- too (the dense prefix the problem leaves out of its cells, first there,
-- recomputed at the plan's mode: DeepSeek-V3's 3 dense layers).
function M.recompute_lists(problem, plan, mode)
  local list = {}
  for v = 1, problem.chunks do
    list[v] = {}
    for s = 1, problem.stages do list[v][s] = plan.cells[s][v][mode] or 0 end
  end
  list[1][1] = list[1][1] + (problem.run.prefix or 0)
  return list
end

--- The run's fields that lay a plan out: `offset` (vpp lists of one entry a
-- stage) and the recompute list of the plan's family (per stage, or per
-- chunk and stage: M.recompute_lists), the other forms of recompute removed.
function M.changes(problem, plan, family)
  local r, S, I = problem.run, problem.stages, problem.chunks
  local offset = {}
  local mode = family[2]
  for v = 1, I do
    offset[v] = {}
    for s = 1, S do offset[v][s] = r.offset[v][s] + layers_in(plan, s, v, v) - r.counts[s][v] end
  end
  local list = M.recompute_lists(problem, plan, mode)
  local any = false
  for v = 1, I do
    for s = 1, S do any = any or list[v][s] > 0 end
  end
  local out = { offset = offset, recompute = core.null, full_recompute = core.null, selective_recompute = core.null }
  if any then out[LIST_KEY[mode]] = I == 1 and list[1] or list end
  if not any then out.recompute = "off" end
  return out
end

-- A kinds plan as the layout writes it. The layout's recompute lists
-- (full_recompute / selective_recompute: per stage and chunk, the number of
-- the chunk's FIRST layers that recompute; nd.layout reads them as
-- HyperParallel's per-stage lists) say how many of a cell's layers recompute,
-- not which kind: a plan recomputing k of a cell's layers is written as the
-- cell's first k in model order. Where the solver recomputes a later kind's
-- layers but not all of an earlier kind's in the same cell (a per-kind mix:
-- say 1 of the cell's 2 dense layers and 2 of its MoE layers), the written
-- prefix is the shortest one holding as many of each kind as the plan
-- recomputes, so it recomputes more layers than the plan (less memory, more
-- seconds): that plan is priced by the count model again, and marked not
-- proved optimal (`widened`). Returns the plan, or the written one.
function M.written_plan(p, plan, mode)
  if not p.kinds or not plan.feasible then return plan end
  local cells, kind_cells, widened = {}, {}, false
  local kind_offload, offload = plan.kind_offload and {}, plan.kind_offload and {}
  for s = 1, p.stages do
    cells[s], kind_cells[s] = {}, {}
    if kind_offload then kind_offload[s], offload[s] = {}, {} end
    for v = 1, p.chunks do
      if kind_offload then kind_offload[s][v] = {} end
      local run, want, have, n, left = plan.runs[s][v], {}, {}, {}, 0
      for k = 1, #p.kinds do
        want[k], have[k], n[k] = plan.kind_cells[s][v][k][mode] or 0, 0, 0
        if want[k] > 0 then left = left + 1 end
      end
      for i = run.first, run.first + run.count - 1 do
        local k = p.sequence[i]
        n[k] = n[k] + 1
        if left > 0 then
          have[k] = have[k] + 1
          if have[k] == want[k] then left = left - 1 end
        end
      end
      local total = { off = 0, [mode] = 0 }
      kind_cells[s][v] = {}
      for k = 1, #p.kinds do
        widened = widened or have[k] ~= want[k]
        kind_cells[s][v][k] = { off = n[k] - have[k], [mode] = have[k] }
        total.off, total[mode] = total.off + n[k] - have[k], total[mode] + have[k]
        if plan.kind_offload then -- offloaded layers are plain ones: at most those left plain
          local y = math.min(plan.kind_offload[s][v][k].off or 0, n[k] - have[k])
          kind_offload[s][v][k], kind_cells[s][v][k].offload = { off = y }, { off = y }
          offload[s][v] = { off = (offload[s][v] and offload[s][v].off or 0) + y }
        end
      end
      cells[s][v] = total
    end
  end
  if not widened then return plan end
  local ok, obj, stage_time, stage_mem = core.balance_evaluate(p, kind_cells)
  return setmetatable({ optimal = false, widened = true, feasible = ok, objective = obj, cells = cells,
                        kind_cells = kind_cells, stage_time = stage_time, stage_mem = stage_mem,
                        kind_offload = kind_offload, offload = offload },
                      { __index = plan })
end

-- The estimate and step of a run, as the search prices a candidate.
-- stall: the seconds Megatron's interleaved order adds to the closed form
-- the count model prices (the plan's chunks unequal; src/core/timing.c).
local function priced(model, run, hw)
  local e = api.estimate(model, run)
  local x, _, step, _, stall = core.stage_seconds(model, run, hw)
  local totals = {}
  for s, st in ipairs(e.stages) do totals[s] = st.total end
  return { peak = e.peak_bytes, peak_stage = e.peak_stage, fits = e.fits, step = step, totals = totals, stall = stall,
           x = x }
end

--- Each stage's bytes with an offloading plan's layers on the host
-- (nd.host_link.summary): the stage's total less the bytes they free, the
-- count model's: the layers' kept bytes at the stage's in-flight
-- micro-batches (`held`) over the allocator's fragmentation `frag`, as the
-- problem's limit reads them. The estimate has no per-layer offload, so this
-- is the count model's rule on the estimate's numbers. Returns the totals,
-- the peak and its stage (from 0), and per stage the bytes on the host.
function M.offloaded_totals(totals, summary, frag)
  local out, host, peak, at = {}, {}, -math.huge, 0
  for s, t in ipairs(totals) do
    host[s] = summary.stages[s].held * (1 + frag)
    out[s] = t - host[s]
    if out[s] > peak then peak, at = out[s], s - 1 end
  end
  return out, peak, at, host
end

-- A priced layout with the plan's offloaded layers: each stage's total as
-- M.offloaded_totals says, its seconds a micro-batch plus what their copies
-- add, the step the pipeline's of those (nd.core.pipeline_step) with the
-- rest of the layout's (DP, optimizer) as priced.
local function with_offload(run, pr, summary, frag)
  local totals, peak, at = M.offloaded_totals(pr.totals, summary, frag)
  local x = {}
  for s in ipairs(pr.totals) do x[s] = pr.x[s] + summary.stages[s].seconds end
  local step = pr.step - core.pipeline_step(run, pr.x) + core.pipeline_step(run, x)
  return { peak = peak, peak_stage = at, fits = peak <= run:spec().device_memory, step = step, totals = totals,
           stall = pr.stall, x = x, kept = pr }
end

-- Whether a plan leaves a table's cell (the head's, the tail's) without a
-- body layer, which the layout does not keep: it puts a table on the first
-- (last) chunk that holds layers.
local function empty_table_cell(p, plan)
  return layers_in(plan, 1, 1, 1) == 0 or layers_in(plan, p.tail_stage, p.chunks, p.chunks) == 0
end

-- The problem with the tables' bytes charged to every stage (off the limit)
-- and no pinned layer, so that every cell holds a body layer: a plan of it
-- fits wherever the first does, but is not proved the fastest.
local function spread_tables(p)
  local q = {}
  for k, v in pairs(p) do q[k] = v end
  q.limit = p.limit - math.max(p.head.stat, p.tail.stat)
  q.head, q.tail = nil, nil
  return q
end

--- Whether no plan of a problem fits, by counting: stage s holds its pinned
-- tables' static bytes (their activations are at least 0) and each body
-- layer there takes at least the least of stat + act[mode] x in-flight over
-- the layer kinds, the offered modes and the stage's chunks (the memory rule
-- of nd.core.balance: a cell's layers each add stat + act x its in-flight
-- micro-batches, balance_kinds_check.c add_layers, balance.c alike), so a
-- stage holds at most floor(room / that) layers; when those counts sum
-- below the body's layers, no split fits, and nd.core.balance would say the
-- problem has no feasible plan. Saves the solve (the kinds solver takes up
-- to 10 ms to prove it).
function M.cannot_fit(p)
  local layers, room_of = p.kinds or { p.layer }, {}
  for s = 1, p.stages do room_of[s] = p.limit end
  if p.head then room_of[1] = room_of[1] - p.head.stat end
  if p.tail then room_of[p.tail_stage] = room_of[p.tail_stage] - p.tail.stat end
  local held = 0
  for s = 1, p.stages do
    local least_inflight = math.huge
    for v = 1, p.chunks do least_inflight = math.min(least_inflight, p.inflight[s][v]) end
    local size = math.huge
    for _, l in ipairs(layers) do
      for _, mode in ipairs(p.run.modes) do size = math.min(size, l.stat + l.act[mode] * least_inflight) end
      if l.offload then size = math.min(size, l.stat + (1 - l.offload.share) * l.act.off * least_inflight) end
    end
    if room_of[s] >= 0 and size > 0 then
      -- the solver's own slack (balance_kinds_check.c fits: 1e-12 of the limit)
      held = held + math.floor((room_of[s] + math.abs(p.limit) * 1e-12) / size)
    elseif room_of[s] >= 0 then
      return false
    end
  end
  return held < p.body
end

-- The least layers recomputed (real) of `body` layers of the kinds
-- `layers` on the problem's stages, or nil where they cannot fit
-- (M.least_recompute).
local function least_of(p, layers, body)
  local mode = p.run.modes[2]
  local free, extra = 0, {}
  for s = 1, p.stages do
    local room = p.limit
    if s == 1 and p.head then room = room - p.head.stat end
    if s == p.tail_stage and p.tail then room = room - p.tail.stat end
    local f = math.huge
    for v = 1, p.chunks do f = math.min(f, p.inflight[s][v]) end
    local plain, low = math.huge, math.huge
    for _, l in ipairs(layers) do
      plain = math.min(plain, l.stat + l.act.off * f)
      low = math.min(low, l.stat + (mode and l.act[mode] or l.act.off) * f)
    end
    if room > 0 and plain > 0 and low > 0 then
      local n0 = room / plain
      free = free + n0
      if low < plain then extra[#extra + 1] = { slope = plain / (plain - low), room = room / low - n0 } end
    end
  end
  local need = body - free
  if need <= 0 then return 0 end
  table.sort(extra, function(a, b) return a.slope < b.slope end)
  local y = 0
  for _, e in ipairs(extra) do
    local n = math.min(need, e.room)
    y, need = y + n * e.slope, need - n
    if need <= 0 then return y end
  end
  return nil
end

--- The least layers any plan of a problem that fits recomputes (at its
-- family's mode, p.run.modes[2]), as a real number; or nil where none fits.
-- Stage s holds its pinned tables' static bytes, and each of its layers at
-- least `plain` bytes (the least stat + act.off x in-flight over the kinds
-- and the stage's chunks) or, recomputed, at least `low` (the same at the
-- mode): n layers of which y recompute need pinned + (n - y) plain + y low
-- <= limit, so past free = (limit - pinned) / plain layers each one more
-- needs plain / (plain - low) more recomputed, up to cap = (limit - pinned)
-- / low layers. Relaxed to real counts, the least total is the body's
-- layers past the stages' free room placed where that slope is least
-- (each plan of the problem is such a point, so it recomputes at least it).
-- With kinds, also each kind alone: a plan's layers of one kind fit where
-- the others are taken away (their bytes are at least 0), and the kinds'
-- recomputed layers are apart, so their least counts add up; the larger of
-- that sum and the count over every kind at the least bytes is kept.
function M.least_recompute(p)
  local y = least_of(p, p.kinds or { p.layer }, p.body)
  if not y or not p.kinds then return y end
  local count, sum = {}, 0
  for _, k in ipairs(p.sequence) do count[k] = (count[k] or 0) + 1 end
  for k, l in ipairs(p.kinds) do
    local yk = least_of(p, { l }, count[k] or 0)
    if not yk then return nil end
    sum = sum + yk
  end
  return math.max(y, sum)
end

-- Whether the layout's balanced step is provably above `bound.above`
-- (seconds): for each family's problem, any plan that fits recomputes at
-- least M.least_recompute layers, each adding at least bound.rerun[mode]
-- seconds to its stage's micro-batch (nd.core.rerun_seconds), on top of
-- the stage times' floor; pipeline_step of pp stages at the mean grows by
-- `per_second` for each second their sum grows (nd.core.pipeline_step is
-- a sum + b max: a + b / pp), and the pipeline's step is at least that
-- (timing.c pipeline_floor_seconds); the step is at least the larger of it
-- (bound.floor, DP's part added) and bound.held, what no recompute raises
-- (the largest stage's floor, DP's gathers: timing.c floor_held).
-- Only both families past it prune the layout: the balancer keeps the
-- family of least objective, which may be either. Reads the problems'
-- bytes alone (their seconds are read for a layout solved).
local function above_bound(pr, run, bound)
  local per_second = bound.per_second
  for _, family in ipairs(M.FAMILIES) do
    local y = M.least_recompute(assemble(run, pr, family, true))
    local least = y and math.max(bound.floor + per_second * y * bound.rerun[family[2]], bound.held or -math.huge)
    if least and least <= bound.above * (1 + 1e-12) then return false end
  end
  return true
end

-- A memo's plan of a problem, or (opts.count_first) none where counting
-- proves that none fits (M.cannot_fit).
local function plan_of(p, opts)
  if opts.count_first and M.cannot_fit(p) then
    if opts.memo then opts.memo.unfit = (opts.memo.unfit or 0) + 1 end
    return { feasible = false, counted_unfit = true, solve_s = 0 }
  end
  return M.written_plan(p, solve_memo(p, opts.memo), p.run.modes[2])
end

-- A plan's offloaded layers cut to the fewest that keep it: offloading
-- lowers a stage's bytes and adds to its seconds, so where a layer's copies
-- cost nothing (hidden, no copy cost) the solver may offload more layers
-- than the stage needs at no loss; each cell (and kind) gives back its
-- offloaded layers one at a time while the plan still fits and its
-- objective does not grow (nd.core.balance_evaluate, the solver's rule).
local function fewest_offloaded(p, plan)
  if not plan.feasible or not plan.offload then return plan end
  local cells, at = {}, {}
  for s = 1, p.stages do
    cells[s] = {}
    for v = 1, p.chunks do
      if p.kinds then
        cells[s][v] = {}
        for k = 1, #p.kinds do
          local c = {}
          for name, x in pairs(plan.kind_cells[s][v][k]) do c[name] = x end
          c.offload = { off = plan.kind_offload[s][v][k].off or 0 }
          cells[s][v][k] = c
          at[#at + 1] = c
        end
      else
        local c = {}
        for name, x in pairs(plan.cells[s][v]) do c[name] = x end
        c.offload = { off = plan.offload[s][v].off or 0 }
        cells[s][v] = c
        at[#at + 1] = c
      end
    end
  end
  local objective, stage_time, stage_mem = plan.objective, plan.stage_time, plan.stage_mem
  local cut = false
  for _, c in ipairs(at) do
    while c.offload.off > 0 do
      c.offload.off = c.offload.off - 1
      local ok, obj, st, sm = core.balance_evaluate(p, cells)
      if not ok or obj > objective then
        c.offload.off = c.offload.off + 1
        break
      end
      objective, stage_time, stage_mem, cut = obj, st, sm, true
    end
  end
  if not cut then return plan end
  local offload, kind_offload = {}, p.kinds and {}
  for s = 1, p.stages do
    offload[s] = {}
    if kind_offload then kind_offload[s] = {} end
    for v = 1, p.chunks do
      if kind_offload then
        local y = 0
        kind_offload[s][v] = {}
        for k = 1, #p.kinds do
          kind_offload[s][v][k] = { off = cells[s][v][k].offload.off }
          y = y + cells[s][v][k].offload.off
        end
        offload[s][v] = { off = y }
      else
        offload[s][v] = { off = cells[s][v].offload.off }
      end
    end
  end
  return setmetatable({ objective = objective, stage_time = stage_time, stage_mem = stage_mem, offload = offload,
                        kind_offload = kind_offload }, { __index = plan })
end

-- A family's problem (its plain layers offloading over `link` where given)
-- and its plan; where the plan leaves a table's cell empty, the layout
-- would move the table to the next chunk holding layers: solved again with
-- the tables' bytes on every stage, no cell empty.
local function family_plan(run, pr, family, opts, link)
  local p = assemble(run, pr, family, false, link)
  local plan = plan_of(p, opts)
  if link then plan = fewest_offloaded(p, plan) end
  if plan.feasible and empty_table_cell(p, plan) then
    p = spread_tables(p)
    plan = plan_of(p, opts)
    if link then plan = fewest_offloaded(p, plan) end
    if plan.feasible then plan = setmetatable({ optimal = false }, { __index = plan }) end
  end
  return p, plan
end

--- Balances a run: the plan of least step over both families, laid out on
-- the run and priced by the estimate. opts: modes (the even split's modes
-- to compare with, default all), memo (M.memo()), count_first (skip the
-- solve of a problem M.cannot_fit proves has no plan; the memo counts them
-- in `unfit`; out.bad then names no stage), bound ({floor, held, above,
-- rerun, per_second}: where no plan of either family can step at or below
-- `above` seconds, nothing is solved and out.above is true). Returns {feasible, plan,
-- family, problem, changes, run (the balanced run), priced = {peak, fits,
-- step, totals}, even = {mode, step, peak} (the fastest fitting uniform
-- even split, or nil), solve_s}; or nil and why the run is not balanced.
function M.solve(model, run, hw, opts)
  opts = opts or {}
  local spec = run:spec()
  local why = refused(spec)
  if why then return nil, why end
  local ok, pr = pcall(probes, model, run, hw, spec.pp, spec.vpp or 1, M.MODES, spec.emb_out_in_offset == true)
  if not ok then
    if type(pr) == "table" and pr.balance_refused then return nil, pr.balance_refused end
    error(pr, 0)
  end
  -- (the bound counts recompute alone: none with offloading offered)
  if opts.bound and not opts.link and above_bound(pr, run, opts.bound) then
    return { feasible = false, solve_s = 0, above = true }
  end
  local out = { feasible = false, solve_s = 0 }
  -- offloading: one chunk a stage (the reference's -ao, vp = 1)
  local link = (spec.vpp or 1) == 1 and opts.link or nil
  for _, family in ipairs(M.FAMILIES) do
    local p, plan = family_plan(run, pr, family, opts)
    out.solve_s = out.solve_s + plan.solve_s
    if link then
      -- offloading is kept only where its step is less by more than 1e-9 of
      -- the plain plan's (the reference's -ao rule)
      local q, with = family_plan(run, pr, family, opts, link)
      out.solve_s = out.solve_s + with.solve_s
      if with.feasible and (not plan.feasible or with.objective < plan.objective * (1 - 1e-9)) then
        p, plan = q, with
      elseif not plan.feasible then
        p, plan = q, with -- neither fits: the stage that cannot fit even offloading
      end
    end
    if plan.feasible and (not out.plan or plan.objective < out.plan.objective) then
      out.feasible, out.plan, out.family, out.problem = true, plan, family, p
    end
    if not plan.feasible and family[2] == "full" then -- the least memory: its stage is the one that cannot fit
      out.bad, out.bad_problem = plan, p
      if plan.bad_stage then
        plan.bad_need_bytes = (plan.bad_need + p.run.mid_const) * (1 + p.run.frag) + p.run.reserve
      end
    end
  end
  for _, mode in ipairs(opts.modes or M.MODES) do
    local even = pr[mode].even
    if even.e.fits and (not out.even or even.step < out.even.step) then
      out.even = { mode = mode, step = even.step, peak = even.e.peak_bytes }
    end
  end
  if out.feasible then
    out.changes = M.changes(out.problem, out.plan, out.family)
    out.run = run:with(out.changes)
    out.priced = priced(model, out.run, hw)
    -- where the order stalls: the same stages' layers dealt evenly over the
    -- chunks (nd.balance_resplit), kept where the estimate fits it and its
    -- step is less
    for _, q in ipairs(out.priced.stall > 0 and require("nd.balance_resplit").plans(out.problem, out.plan,
      out.family[2]) or {}) do
      local changes = M.changes(out.problem, q, out.family)
      local r = run:with(changes)
      local pq = priced(model, r, hw)
      if pq.fits and pq.step < out.priced.step then
        q.stalled_plan = { step = out.priced.step, stall = out.priced.stall }
        out.plan, out.changes, out.run, out.priced = q, changes, r, pq
      end
    end
    if out.priced.stall > 0 and out.plan.optimal then
      -- the count model prices each stage's chunks as equal shares of its
      -- seconds; the interleaved order on the plan's unequal chunks stalls
      -- past that, so its optimum is not the step's
      out.plan = setmetatable({ optimal = false, stalled = out.priced.stall }, { __index = out.plan })
    end
    if out.problem.layer and out.problem.layer.offload or out.problem.kinds and out.problem.kinds[1].offload then
      out.offload = host_link.summary(out.problem, out.plan)
      if out.offload.offloaded_layers > 0 then
        out.priced = with_offload(out.run, out.priced, out.offload, out.problem.run.frag)
      end
    end
    if not out.priced.fits then -- the count model's limit is the estimate's; a plan past it is refused
      out.feasible, out.unfit = false, out.plan
    end
  end
  return out
end

return M
