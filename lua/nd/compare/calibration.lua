--- Calibration: per-part ratios of measured over estimated, fitted on a
-- run the user measured (compare.lua --write-calibration) and applied to
-- later estimates and searches (-c FILE on estimate.lua, search.lua and
-- compare.lua), as the reference planner's --write_ratios and -c do.
--
-- The file (JSON):
--
--   { "about": "...",
--     "memory": { "metric": "allocated" | "reserved", "parameters": r, "gradients": r,
--                 "optimizer": r, "activations": r, "communication": r, "overhead": r },
--     "time":   { "COMPUTE": r, "DP_COMM": r, "DP_REDUCE": r, "MP_COMM": r, "EP_COMM": r,
--                 "CP_COMM": r, "PP_COMM": r, "BUBBLE": r },
--     "fitted_on": { "config": ..., "measured": [...], "stages": n } }
--
-- The time keys are the reference's (reference/search-ranking-cli.md §d.4),
-- but ndlua's parts are seconds, so a ratio is measured seconds over
-- ndlua's seconds (near 1), not milliseconds per score unit; either
-- section may be absent.
--
-- Memory parts of a stage, against the metric measured: parameters
-- (params), gradients (grads, and under `reserved` the gradient stream's
-- pool), optimizer (states and fp32 main parameters), activations,
-- communication (comm buffers), and overhead: the rest of the metric
-- (the backward's transient overhead, and under `reserved` the allocator's
-- fragmentation). A fit from one stage's total cannot tell the parts
-- apart; it changes them by the least (the ratios' smallest sum of squared
-- changes from 1 that makes every stage's estimate its measurement), which
-- puts the change on the largest parts.
-- @module nd.compare.calibration

local core = require "nd.core"
local errors = require "nd.errors"

local calibration = {}

calibration.MEMORY_PARTS = { "parameters", "gradients", "optimizer", "activations", "communication", "overhead" }
calibration.TIME_KEYS = { "COMPUTE", "DP_COMM", "DP_REDUCE", "MP_COMM", "EP_COMM", "CP_COMM", "PP_COMM", "BUBBLE" }

-- ndlua's time parts (nd.step_time's parts) under each ratio: BUBBLE takes
-- the bubble, PP_COMM the point-to-point sends; DP_REDUCE has no part of
-- its own in ndlua (the DP part holds gathers and reductions together).
calibration.TIME_PARTS = {
  forward_s = "COMPUTE", backward_s = "COMPUTE", recompute_s = "COMPUTE", optimizer_s = "COMPUTE",
  dp_s = "DP_COMM", tp_s = "MP_COMM", ep_s = "EP_COMM", cp_s = "CP_COMM", pp_s = "PP_COMM", bubble_s = "BUBBLE",
}

-- The classified CSV's columns each ratio is fitted to (the reference's
-- ratios.FITS); op_wait (FSDP gathers) and dp_wait (reductions) both go to
-- DP_COMM here, ndlua's one DP part.
local CSV_FITS = {
  COMPUTE = { "comp" }, DP_COMM = { "dp_wait", "op_wait" }, MP_COMM = { "mp_wait", "sp_wait" },
  EP_COMM = { "ep_wait" }, CP_COMM = { "cp_wait" }, PP_COMM = { "pp_wait" },
}

--- A stage's memory parts against a metric ("allocated" or "reserved"),
-- in bytes; they add up to the stage's value of the metric.
function calibration.memory_parts(s, metric)
  local reserved = metric == "reserved"
  local p = {
    parameters = s.params or 0,
    gradients = (s.grads or 0) + (reserved and (s.grad_pool or 0) or 0),
    optimizer = (s.optimizer or 0) + (s.main_params or 0),
    activations = s.activations or 0,
    communication = s.comm or 0,
  }
  local whole = reserved and s.reserved or s.allocated
  local rest = whole
  for _, k in ipairs({ "parameters", "gradients", "optimizer", "activations", "communication" }) do
    rest = rest - p[k]
  end
  p.overhead = math.max(0, rest)
  return p, whole
end

-- The stage fields each memory part is drawn from (display), by metric.
local FIELDS = {
  allocated = { parameters = { "params" }, gradients = { "grads" }, optimizer = { "optimizer", "main_params" },
                activations = { "activations" }, communication = { "comm" }, overhead = { "backward_overhead" } },
  reserved = { parameters = { "params" }, gradients = { "grads", "grad_pool" },
               optimizer = { "optimizer", "main_params" }, activations = { "activations" },
               communication = { "comm" }, overhead = { "backward_overhead", "fragmentation" } },
}
-- Fields outside the allocated bytes.
local NOT_ALLOCATED = { grad_pool = true, fragmentation = true, reserve = true }

-- Solves the n x n system a x = b (Gaussian elimination, partial pivoting);
-- nil when singular.
local function solve(a, b)
  local n = #b
  local m = {}
  for i = 1, n do
    m[i] = {}
    for j = 1, n do m[i][j] = a[i][j] end
    m[i][n + 1] = b[i]
  end
  for c = 1, n do
    local p = c
    for r = c + 1, n do
      if math.abs(m[r][c]) > math.abs(m[p][c]) then p = r end
    end
    if m[p][c] == 0 then return nil end
    m[c], m[p] = m[p], m[c]
    for r = c + 1, n do
      local f = m[r][c] / m[c][c]
      for j = c, n + 1 do m[r][j] = m[r][j] - f * m[c][j] end
    end
  end
  local x = {}
  for i = n, 1, -1 do
    local s = m[i][n + 1]
    for j = i + 1, n do s = s - m[i][j] * x[j] end
    x[i] = s / m[i][i]
  end
  return x
end

--- The memory ratios that make each stage's estimate its measurement,
-- changed from 1 by the least: delta = A^T (A A^T + mu I)^-1 (m - e), A
-- the stages' parts (rows), e their estimates, m the measurements, mu 0
-- where that has an answer. Where it gives a part no positive ratio (the
-- stages' measurements ask more than the parts can give), mu grows until
-- every ratio is positive: the fit is then the closest the parts allow,
-- not exact. Failing that, one ratio for every part (the sums' ratio).
-- @tparam table rows `{parts = memory_parts(...), estimate = bytes, measured = bytes}`
-- @treturn table ratios by part
-- @treturn string how: "exact", "closest" or "one ratio"
function calibration.fit_memory(rows)
  local parts = calibration.MEMORY_PARTS
  local n = #rows
  -- in GiB, as floats: products of byte counts pass 2^63
  local gib = {}
  for i, r in ipairs(rows) do
    gib[i] = {}
    for _, p in ipairs(parts) do gib[i][p] = r.parts[p] / 2 ^ 30 end
  end
  local gram, b, trace = {}, {}, 0
  for i, r in ipairs(rows) do
    gram[i] = {}
    for j = 1, n do
      local s = 0
      for _, p in ipairs(parts) do s = s + gib[i][p] * gib[j][p] end
      gram[i][j] = s
    end
    trace = trace + gram[i][i]
    b[i] = (r.measured - r.estimate) / 2 ^ 30
  end
  for _, mu in ipairs({ 0, 1e-9, 1e-6, 1e-4, 1e-3, 1e-2, 0.1, 1, 10 }) do
    local a = {}
    for i = 1, n do
      a[i] = {}
      for j = 1, n do a[i][j] = gram[i][j] + (i == j and mu * trace / n or 0) end
    end
    local y = solve(a, b)
    if y then
      local ratios, ok = {}, true
      for _, p in ipairs(parts) do
        local d = 0
        for i = 1, n do d = d + gib[i][p] * y[i] end
        ratios[p] = 1 + d
        if not (ratios[p] > 0) then ok = false end
      end
      if ok then return ratios, mu <= 1e-9 and "exact" or "closest" end
    end
  end
  local ratios, e, m = {}, 0, 0
  for _, r in ipairs(rows) do e, m = e + r.estimate, m + r.measured end
  for _, p in ipairs(parts) do ratios[p] = m / e end
  return ratios, "one ratio"
end

--- Time ratios: per part from a classified CSV's parts (measured seconds
-- over ndlua's, a part ndlua prices at next to nothing taking COMPUTE's,
-- BUBBLE PP_COMM's, DP_REDUCE DP_COMM's, as the reference's fit_ratios), or
-- one ratio for all from the step time alone.
-- @tparam table parts nd.step_time's parts
-- @tparam number step_s the measured step
-- @tparam[opt] table measured_parts the CSV's parts (seconds by column)
-- @treturn table ratios by key
function calibration.fit_time(parts, step_s, measured_parts)
  local est, whole = {}, 0
  for k, v in pairs(parts) do
    local key = calibration.TIME_PARTS[k]
    if key then est[key] = (est[key] or 0) + v; whole = whole + v end
  end
  local out = {}
  if not measured_parts then
    for _, key in ipairs(calibration.TIME_KEYS) do out[key] = step_s / whole end
    return out
  end
  est.PP_COMM = (est.PP_COMM or 0) + (est.BUBBLE or 0)
  for key, columns in pairs(CSV_FITS) do
    local m = 0
    for _, c in ipairs(columns) do m = m + (measured_parts[c] or 0) end
    if (est[key] or 0) > 1e-9 * whole then out[key] = m / est[key] end
  end
  if not out.COMPUTE then errors.raise { message = "ndlua prices no compute for this run: no ratio can be fitted" } end
  for _, key in ipairs(calibration.TIME_KEYS) do out[key] = out[key] or out.COMPUTE end
  out.BUBBLE, out.DP_REDUCE = out.PP_COMM, out.DP_COMM
  return out
end

--- Reads a calibration file, checked.
function calibration.load(path)
  local doc = core.json.load(path)
  local function bad(message) errors.raise { file = path, message = message,
    accepted = "a file compare.lua --write-calibration writes" } end
  if type(doc) ~= "table" or (doc.memory == nil and doc.time == nil) then bad("states no memory or time ratios") end
  local function ratio(t, k, where)
    local v = t[k]
    if type(v) ~= "number" or v <= 0 or v ~= v or v == math.huge then
      bad(where .. "." .. k .. " must be a positive number, got " .. tostring(v))
    end
    return v
  end
  local out = { path = path, fitted_on = doc.fitted_on }
  if doc.memory ~= nil then
    if type(doc.memory) ~= "table" then bad("memory must be an object") end
    local metric = doc.memory.metric or "allocated"
    if metric ~= "allocated" and metric ~= "reserved" then bad("memory.metric must be allocated or reserved") end
    out.memory = { metric = metric }
    for _, p in ipairs(calibration.MEMORY_PARTS) do out.memory[p] = ratio(doc.memory, p, "memory") end
  end
  if doc.time ~= nil then
    if type(doc.time) ~= "table" then bad("time must be an object") end
    out.time = {}
    for _, k in ipairs(calibration.TIME_KEYS) do out.time[k] = ratio(doc.time, k, "time") end
  end
  return out
end

--- Writes a calibration file.
function calibration.write(path, cal)
  local doc = { about = "ndlua calibration (compare.lua --write-calibration): measured over estimated, per part; "
    .. "apply with -c on estimate.lua, search.lua, compare.lua", fitted_on = cal.fitted_on }
  if cal.memory then
    doc.memory = { metric = cal.memory.metric }
    for _, p in ipairs(calibration.MEMORY_PARTS) do doc.memory[p] = cal.memory[p] end
  end
  if cal.time then
    doc.time = {}
    for _, k in ipairs(calibration.TIME_KEYS) do doc.time[k] = cal.time[k] end
  end
  require("nd.files").write(path, core.json.encode(doc, { indent = 2 }) .. "\n", "the calibration")
end

--- The header line that says an estimate is calibrated.
function calibration.header(cal)
  local bits = {}
  if cal.memory then
    local r = {}
    for _, p in ipairs(calibration.MEMORY_PARTS) do r[#r + 1] = string.format("%s x%.3f", p, cal.memory[p]) end
    bits[#bits + 1] = "memory (" .. cal.memory.metric .. ") " .. table.concat(r, ", ")
  end
  if cal.time then
    local r = {}
    for _, k in ipairs(calibration.TIME_KEYS) do r[#r + 1] = string.format("%s x%.3f", k, cal.time[k]) end
    bits[#bits + 1] = "time " .. table.concat(r, ", ")
  end
  return "CALIBRATED by " .. cal.path .. " (measured/estimated per part, not a raw estimate): "
    .. table.concat(bits, "; ")
end

-- A shallow copy of t, to lay ratios on.
local function copy(t)
  local out = {}
  for k, v in pairs(t) do out[k] = v end
  return out
end

--- A stage with the memory ratios laid on: each part's change spread
-- over its fields by their sizes; allocated, reserved and total moved by
-- what changed inside each. Returns a new table.
function calibration.stage(s, mem)
  local out = copy(s)
  local parts = calibration.memory_parts(s, mem.metric)
  local d_all, d_alloc = 0, 0
  for _, p in ipairs(calibration.MEMORY_PARTS) do
    local delta = (mem[p] - 1) * parts[p]
    local fields = FIELDS[mem.metric][p]
    local sum = 0
    for _, f in ipairs(fields) do sum = sum + (s[f] or 0) end
    for i, f in ipairs(fields) do
      local share = sum > 0 and (s[f] or 0) / sum or (i == 1 and 1 or 0)
      local dv = delta * share
      if share > 0 then
        out[f] = math.floor((s[f] or 0) + dv + 0.5)
        d_all = d_all + dv
        if not NOT_ALLOCATED[f] then d_alloc = d_alloc + dv end
      end
    end
  end
  out.allocated = math.floor(s.allocated + d_alloc + 0.5)
  out.reserved = math.floor(s.reserved + d_all + 0.5)
  out.total = math.floor(s.total + d_all + 0.5)
  return out
end

--- An estimate (nd.estimate's table) with the memory ratios laid on each
-- stage, its peak, peak stage and fit found again. Returns a new table.
function calibration.estimate(est, mem)
  local out = copy(est)
  out.stages = {}
  local peak, at = -1, 0
  for i, s in ipairs(est.stages) do
    out.stages[i] = calibration.stage(s, mem)
    if out.stages[i].total > peak then peak, at = out.stages[i].total, i end
  end
  local ps = out.stages[at]
  out.peak_bytes, out.peak_stage = peak, ps.stage
  out.allocated_bytes, out.reserved_bytes = ps.allocated, ps.reserved
  out.fits = peak <= est.capacity_bytes
  return out
end

--- A step time's parts and total with the time ratios laid on (a new table).
function calibration.step_time(t, time)
  local out = copy(t)
  out.parts = {}
  local total = 0
  for k, v in pairs(t.parts) do
    local key = calibration.TIME_PARTS[k]
    out.parts[k] = key and v * time[key] or v
    total = total + out.parts[k]
  end
  out.step_time_s = total
  if t.step_time_s and t.step_time_s > 0 then
    local f = total / t.step_time_s
    if t.mfu then out.mfu = t.mfu / f end
    if t.tokens_per_s_per_device then out.tokens_per_s_per_device = t.tokens_per_s_per_device / f end
  end
  return out
end

-- The calibrated value of a candidate's time key (step_time_s, mfu,
-- tokens_per_s_per_device), from its parts.
local TIME_VALUES = { step_time_s = true, mfu = true, tokens_per_s_per_device = true }

--- A search candidate with the ratios laid on, in place: its parts, step
-- time, MFU and tokens a second (time ratios), and its peak (memory
-- ratios: the candidate's run estimated again, `estimate(c)` giving
-- nd.estimate's table). Marks it `calibrated`; a second call does nothing.
function calibration.candidate(c, cal, estimate)
  if c.calibrated then return c end
  c.calibrated = true
  if cal.time and c.parts then
    local t = calibration.step_time({ parts = c.parts, step_time_s = c.step_time_s, mfu = c.mfu,
                                      tokens_per_s_per_device = c.tokens_per_s_per_device }, cal.time)
    c.parts, c.step_time_s, c.mfu, c.tokens_per_s_per_device = t.parts, t.step_time_s, t.mfu,
      t.tokens_per_s_per_device
  end
  if cal.memory and estimate then
    local e = calibration.estimate(estimate(c), cal.memory)
    c.peak_bytes, c.peak_stage = e.peak_bytes, e.peak_stage
    if c.stage_bytes then
      for i, st in ipairs(e.stages) do c.stage_bytes[i] = st.total end
    end
  end
  return c
end

--- A ranking policy that ranks and keeps the calibrated candidates: its
-- score (or, for a policy of sort keys, its first key when that is a time)
-- reads the candidate calibrated; with memory ratios, a candidate whose
-- calibrated peak passes the budget is set aside. Candidates the search
-- dropped over the raw budget are not priced again.
-- @tparam table p the policy (nd.policies)
-- @tparam table cal the calibration
-- @tparam function estimate(c) the candidate's nd.estimate
function calibration.policy(p, cal, estimate)
  local w = {}
  for k, v in pairs(p) do w[k] = v end
  w.name = p.name .. " (calibrated)"
  local function calibrated(c) return calibration.candidate(c, cal, estimate) end
  if p.score then
    w.score = function(c, ctx) return p.score(calibrated(c), ctx) end
  elseif p.order then
    local first = p.order[1]
    local key, desc = first:gsub("^%-", ""), first:sub(1, 1) == "-"
    if TIME_VALUES[key] and cal.time then
      w.score = function(c)
        local v = calibrated(c)[key]
        return desc and -v or v
      end
    elseif key == "peak_bytes" and cal.memory then
      w.score = function(c) return calibrated(c).peak_bytes end
    end
  end
  if cal.memory then
    w.keep = function(c, ctx)
      calibrated(c)
      if c.peak_bytes > ctx.budget_bytes then return false end
      if p.keep then return p.keep(c, ctx) end
      return true
    end
  elseif p.keep then
    w.keep = function(c, ctx) return p.keep(calibrated(c), ctx) end
  end
  return w
end

return calibration
