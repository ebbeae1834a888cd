-- nd.balance: the pipeline balancer's problems and plans. Builds the problem
-- nd.core.balance solves from a SAPP-PPB layer file (the reference's JSON),
-- and turns a plan into the reference's offsets and recompute counts.

local core = require("nd.core")

local M = {}

-- The options in the reference's order, by ndlua's names and the yaml keys
-- MindFormers/HyperParallel read for the per-stage counts.
M.OPTIONS = { "off", "selective", "comm", "both", "full" }
-- A layer under "both" recomputes the selected and the communication parts:
-- it counts in both lists.
M.YAML_KEYS = {
  off = {}, selective = { "select_recompute" }, comm = { "select_comm_recompute" },
  both = { "select_recompute", "select_comm_recompute" }, full = { "recompute" },
}

-- The layer file's activation key of each option, and the reference's
-- default backward coefficients c_r (backward = (1 + c_r) x 2 x time).
local SAPP_ACT = {
  off = "memory_activation", selective = "memory_select_rec", comm = "memory_select_comm",
  both = "memory_both_comm_select", full = "memory_recompute",
}
local SAPP_COEF = { off = 0, selective = 0.04, comm = 0.125, both = 0.165, full = 0.5 }

-- Micro-batches each (stage, chunk) keeps, as the reference's digest states
-- them (stage s from 0): 1F1B min(S - s, m); interleaved every chunk S, the
-- first adding max(0, S - 2s - 1), the last min(0, S - 2s - 1), capped at m;
-- the less-memory variant's last chunk S - s; DualPipeV min(2S - s, m) and
-- min(s + 1, m). Returns inflight[stage][chunk] (1-based).
function M.sapp_inflight(S, I, m, schedule)
  local t = {}
  for s0 = 0, S - 1 do
    local row = {}
    for v = 0, I - 1 do
      local n
      if schedule == "dualpipev" then
        n = v == 0 and 2 * S - s0 or s0 + 1
      elseif I == 1 then
        n = S - s0
      else
        local d = S - 2 * s0 - 1
        n = S
        if v == 0 then n = S + math.max(0, d) end
        if v == I - 1 then
          n = schedule == "interleaved-less-memory" and S - s0 or S + math.min(0, d)
        end
      end
      row[v + 1] = math.min(n, m)
    end
    t[s0 + 1] = row
  end
  return t
end

-- The place of a value of a loaded layer file ("file:line: "), or "".
local function place(t, key)
  local ok, file, line = pcall(core.where, t, key)
  if ok and file and line then return ("%s:%d: "):format(file, line) end
  return ""
end

-- A layer's number at key: absent is nil where optional, else a finite
-- number >= 0 (a count: an integer >= 1), or the file is refused naming it.
local function layer_number(l, i, key, optional, count)
  local v = l[key]
  if v == nil and optional then return nil end
  local ok = math.type(v) ~= nil and v == v and v >= 0 and v < math.huge
  if ok and count then ok = math.type(v) == "integer" or v == math.floor(v) end
  if ok and count then ok = v >= 1 end
  if not ok then
    core.fail(("%sbalance: layers_description[%d].%s must be %s, got %s"):format(place(l, key), i, key,
      count and "a whole number of layers >= 1" or "a number >= 0", v == nil and "nothing" or ("%q"):format(tostring(v))))
  end
  return count and math.tointeger(v) or v
end

-- The HEAD, BODY and TAIL layers of a SAPP-PPB layer file, each checked for
-- the numbers the balancer reads (a file that is not of this shape is
-- refused with the place of what is wrong, never read as zeros).
local function sapp_layers(doc)
  local list = type(doc) == "table" and doc.layers_description
  if type(list) ~= "table" then
    core.fail(place(doc, "layers_description") .. "balance: the layer file needs a layers_description list")
  end
  local found = {}
  for i, l in ipairs(list) do
    if type(l) ~= "table" then
      core.fail(("%sbalance: layers_description[%d] must be a layer (a table), got %s"):format(place(list, i), i, type(l)))
    end
    if l.type == "HEAD" or l.type == "BODY" or l.type == "TAIL" then
      if found[l.type] then
        core.fail(("%sbalance: layers_description[%d] is a second %s layer"):format(place(l, "type"), i, l.type))
      end
      layer_number(l, i, "time")
      layer_number(l, i, "memory_parameter")
      if l.type == "BODY" then
        layer_number(l, i, "nb_layer", false, true)
        for _, key in pairs(SAPP_ACT) do layer_number(l, i, key, true) end
      end
      found[l.type] = l
    end
  end
  return found.HEAD, found.BODY, found.TAIL
end

-- The problem of a SAPP-PPB layer file (decoded JSON) under opts = {stages,
-- micro, chunks, limit (the file's MB), schedule, objective, level}.
function M.from_sapp(doc, opts)
  local head, body, tail = sapp_layers(doc)
  if not body then core.fail("balance: the layer file has no BODY layer") end
  -- bwd: the backward without recompute, 2 x time (the rest of a layer's time is its recompute)
  local layer = { stat = body.memory_parameter, fwd = body.time, bwd = 2 * body.time, act = {}, time = {} }
  for _, name in ipairs(M.OPTIONS) do
    local a = body[SAPP_ACT[name]]
    if a ~= nil then
      layer.act[name] = a
      layer.time[name] = body.time + (1 + SAPP_COEF[name]) * 2 * body.time
    end
  end
  local function pinned(l)
    if not l then return nil end
    return { stat = l.memory_parameter, act = 0, fwd = l.time, time = 3 * l.time }
  end
  local S, I, m = opts.stages, opts.chunks or 1, opts.micro
  local p = {
    stages = S, chunks = I, micro = m, body = body.nb_layer, limit = opts.limit, layer = layer,
    head = pinned(head), tail = pinned(tail), tail_stage = S,
    inflight = M.sapp_inflight(S, I, m, opts.schedule),
    objective = opts.objective or "sapp", sapp_level = opts.level or 2,
    less_memory = opts.schedule == "interleaved-less-memory",
  }
  if p.objective == "step" then
    local sched = opts.schedule == "dualpipev" and "dualpipev" or "1f1b"
    p.coef_sum, p.coef_max = core.balance_coeffs { pp = S, vpp = I, micro = m, schedule = sched }
  end
  return p
end

-- A layer's backward without recompute: its bwd where stated, else its plain
-- (off) time less its forward, else its fastest option's time less its forward.
local function base_backward(l)
  if l.bwd then return l.bwd end
  if l.time.off then return l.time.off - (l.fwd or 0) end
  local least
  for _, t in pairs(l.time) do
    if least == nil or t < least then least = t end
  end
  return least - (l.fwd or 0)
end

-- Per stage the forward, backward and recompute time of a plan (in the
-- problem's time unit): forward the layers' fwd, backward their backward
-- without recompute, recompute what each option adds to that (pinned layers:
-- forward fwd, backward the rest of their time), offload what offloading adds.
-- Returns a list of {forward, backward, recompute, offload} by stage.
function M.stage_seconds(p, plan)
  local S, I = p.stages, p.chunks or 1
  local out = {}
  for s = 1, S do out[s] = { forward = 0, backward = 0, recompute = 0, offload = 0 } end
  local function add(s, l, name, x, y)
    local t = out[s]
    local bwd = base_backward(l)
    t.forward = t.forward + x * (l.fwd or 0)
    t.backward = t.backward + x * bwd
    t.recompute = t.recompute + x * (l.time[name] - (l.fwd or 0) - bwd)
    if y > 0 then t.offload = t.offload + y * l.offload.time[name] end
  end
  for s = 1, S do
    for v = 1, I do
      local pins = {}
      if p.head and v == 1 and s == 1 then pins[#pins + 1] = p.head end
      if p.tail and v == I and s == (p.tail_stage or S) then pins[#pins + 1] = p.tail end
      for _, pin in ipairs(pins) do
        out[s].forward = out[s].forward + (pin.fwd or 0)
        out[s].backward = out[s].backward + pin.time - (pin.fwd or 0)
      end
      if p.kinds then
        for k, l in ipairs(p.kinds) do
          local off = plan.kind_offload and plan.kind_offload[s][v][k] or {}
          for name, x in pairs(plan.kind_cells[s][v][k]) do add(s, l, name, x, off[name] or 0) end
        end
      else
        local off = plan.offload and plan.offload[s][v] or {}
        for name, x in pairs(plan.cells[s][v]) do add(s, p.layer, name, x, off[name] or 0) end
      end
    end
  end
  return out
end

--- The layers a plan puts on stage s's chunks from .. to (every count of
-- each cell: the layers off and those recomputed, under any option).
function M.layers_in(plan, s, from, to)
  local n = 0
  for v = from, to do
    for _, x in pairs(plan.cells[s][v]) do n = n + x end
  end
  return n
end

-- The reference's output of a plan: offset[chunk][stage] = layers held -
-- body / (S x I), and per option the count per stage (its yaml keys).
function M.reference_form(p, plan)
  local S, I = p.stages, p.chunks or 1
  local even = (p.body or #p.sequence) / (S * I)
  local offset, counts = {}, {}
  for v = 1, I do
    offset[v] = {}
    for s = 1, S do
      offset[v][s] = M.layers_in(plan, s, v, v) - even
    end
  end
  local offered = {}
  for _, l in ipairs(p.kinds or { p.layer }) do
    for name in pairs(l.act) do offered[name] = true end
  end
  for _, name in ipairs(M.OPTIONS) do
    if offered[name] then
      local per = {}
      for s = 1, S do
        per[s] = {}
        for v = 1, I do per[s][v] = plan.cells[s][v][name] end
      end
      counts[name] = per
    end
  end
  return offset, counts
end

return M
