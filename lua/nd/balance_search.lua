--- nd.balance_search: search.lua --balance. The C search prices every
-- candidate at the even split with one recompute mode, its memory filter
-- widened (WIDEN) so that a pipelined candidate over the budget there can
-- still fit balanced; then, in rank order, each pipelined candidate of the
-- first `limit` is balanced (nd.balance_run: the count model's plan, laid
-- out and priced again by the estimate and the time model) and takes its
-- balanced peak and step where the plan fits and is no slower than its
-- even split (or where its even split does not fit); every candidate left
-- over the budget is dropped; the list is ranked again by the policy's
-- order keys (step_time_s, peak_bytes, mfu, tokens_per_s_per_device).
-- Solves are memoised by the problem's numbers.

local core = require "nd.core"
local api = require "nd.api"
local balance_run = require "nd.balance_run"

local M = {}

--- The memory filter of a --balance search: the budget times this.
M.WIDEN = 1.25
--- Pipelined candidates balanced, in rank order, unless told otherwise.
M.DEFAULT_LIMIT = 64

-- A candidate's step fields from a step time table (nd.core.step_time's).
local STEP_KEYS = { "step_time_s", "mfu", "tokens_per_s_per_device", "model_flops", "straggler_stage", "parts" }

-- A candidate's degrees but its recompute mode: the candidates of one
-- layout under each mode balance to one plan (the plan chooses recompute).
local function degrees_key(c)
  local parts = {}
  for _, k in ipairs { "dp", "tp", "pp", "vpp", "cp", "ep", "op_priced", "mb", "mbs" } do
    parts[#parts + 1] = tostring(c[k])
  end
  parts[#parts + 1] = tostring(c.sp)
  return table.concat(parts, ",")
end

-- The balanced plan of a candidate's layout, solved once a layout.
local function solved(c, ctx)
  local key = degrees_key(c)
  local hit = ctx.layouts[key]
  if hit then
    ctx.layout_hits = ctx.layout_hits + 1
    return hit[1], hit[2]
  end
  local run = api.candidate_run(ctx.run, c)
  run = run:with { device_memory = ctx.budget }
  local r, why = balance_run.solve(ctx.model, run, ctx.hw, { memo = ctx.memo })
  ctx.layouts[key] = { r, why }
  return r, why
end

-- Balances one candidate in place; true when it took the balanced layout.
local function balance_one(c, ctx)
  local r, why = solved(c, ctx)
  if not r then
    ctx.refused[why] = (ctx.refused[why] or 0) + 1
    return false
  end
  if not r.feasible then return false end
  local even_fits = c.peak_bytes <= ctx.budget
  if even_fits and r.priced.step >= c.step_time_s then return false end
  local t = core.step_time(ctx.model, r.run, ctx.hw)
  local even_step, even_peak = c.step_time_s, c.peak_bytes
  for _, k in ipairs(STEP_KEYS) do c[k] = t[k] end
  c.peak_bytes, c.peak_stage = r.priced.peak, r.priced.peak_stage
  c.overshoot_bytes = r.priced.peak - ctx.budget
  local S, I = r.problem.stages, r.problem.chunks
  local mode = r.family[2]
  local rec = {}
  for v = 1, I do
    rec[v] = {}
    for s = 1, S do rec[v][s] = r.plan.cells[s][v][mode] or 0 end
  end
  c.balance = {
    even_step_s = even_step, even_peak_bytes = even_peak, even_fits = even_fits,
    gain = even_fits and even_step / r.priced.step or nil,
    offset = I == 1 and r.changes.offset[1] or r.changes.offset,
    recompute_mode = mode, recompute = I == 1 and rec[1] or rec,
    stage_bytes = r.priced.totals, optimal = r.plan.optimal,
  }
  -- the run's fields (resolved.yaml's lists), kept out of the JSON
  setmetatable(c.balance, { __index = { changes = r.changes } })
  c.balance_result = r -- for -k: the plan's problem (not in the JSON)
  -- the plan chooses each layer's recompute: plain layers beside at most one mode
  local any = false
  for v = 1, I do
    for s = 1, S do any = any or rec[v][s] > 0 end
  end
  c.recompute_priced = c.recompute
  c.recompute = any and (mode == "full" and "off+full" or "off+sel") or "off"
  return true
end

-- A balanced candidate's layout and plan as a string.
local function layout_key(c, b)
  local parts = {}
  for _, k in ipairs { "dp", "tp", "pp", "vpp", "cp", "ep", "op", "mb", "mbs" } do parts[#parts + 1] = tostring(c[k]) end
  parts[#parts + 1] = tostring(c.sp)
  parts[#parts + 1] = core.json.encode { b.offset, b.recompute, b.recompute_mode }
  return table.concat(parts, ",")
end

-- The comparison of the policy's order keys (the C sort's), else step then peak.
local function comparer(policy)
  local keys = {}
  for _, k in ipairs(policy.order or { "step_time_s", "peak_bytes" }) do
    local desc = k:sub(1, 1) == "-"
    keys[#keys + 1] = { key = desc and k:sub(2) or k, desc = desc or k == "mfu" or k == "tokens_per_s_per_device" }
  end
  return function(a, b)
    for _, k in ipairs(keys) do
      local x, y = a[k.key], b[k.key]
      if type(x) == "number" and type(y) == "number" and x ~= y then
        if k.desc then return x > y end
        return x < y
      end
    end
    return a.rank < b.rank
  end
end

--- The ranked candidates of a --balance search. s: search.lua's search
-- state (base.model, base.run, budget, profile, policy); result: the C
-- search's (sorted); get(i): its candidate i; opts.top: how many to
-- return; opts.limit: pipelined candidates to balance. Returns the list,
-- and {balanced, tried, kept, solved, memo_hits, seconds, unbalanced (the
-- candidates priced at their even split only: pipelined ones past the
-- limit, and every one after the last looked at), looked, total}.
function M.rank(s, result, get, opts)
  local t0 = os.clock()
  local ctx = { model = s.base.model, run = s.base.run, budget = s.budget, memo = balance_run.memo(), refused = {},
                layouts = {}, layout_hits = 0 }
  ctx.hw = balance_run.hardware(s.profile, s.base.run)
  local limit, top = opts.limit or M.DEFAULT_LIMIT, opts.top
  local kept, tried, balanced, seen = {}, 0, 0, {}
  local looked, passed = 0, 0
  for i = 1, result:size() do
    if tried >= limit and #kept >= top then break end
    local c = get(i)
    looked = i
    c.rank, c.even_rank = i, i
    local took = false
    if c.pp > 1 and tried < limit then
      tried = tried + 1
      took = balance_one(c, ctx)
      if took then balanced = balanced + 1 end
    elseif c.pp > 1 then
      passed = passed + 1 -- pipelined, past the limit: kept at its even split
    end
    -- the modes of one layout balance to one plan: the first (fastest) is kept
    local key = took and layout_key(c, c.balance) or nil
    if c.peak_bytes <= s.budget and not (key and seen[key]) then
      kept[#kept + 1] = c
      if key then seen[key] = true end
    end
  end
  table.sort(kept, comparer(s.policy))
  local list = {}
  for i = 1, math.min(top, #kept) do
    list[i] = kept[i]
    list[i].rank = i
  end
  local refused = {}
  for why, n in pairs(ctx.refused) do refused[#refused + 1] = string.format("%d: %s", n, why) end
  table.sort(refused)
  -- what was not balanced: the pipelined candidates looked at past the
  -- limit, and every candidate after the last one looked at
  return list, { balanced = balanced, tried = tried, kept = #kept, solved = ctx.memo.solved, refused = refused,
                 memo_hits = ctx.memo.hits + ctx.layout_hits, seconds = os.clock() - t0,
                 unbalanced = passed + (result:size() - looked), looked = looked, total = result:size(), limit = limit }
end

--- The plan of a listed candidate as JSON (-k): its degrees, the plan and
-- the problem the balancer solved (per mode a layer's bytes and seconds).
function M.plan_document(c, rank)
  local r = c.balance_result
  local p = r.problem
  local doc = {
    rank = rank, step_s = c.step_time_s, peak_bytes = c.peak_bytes, balance = c.balance,
    problem = { stages = p.stages, chunks = p.chunks, micro = p.micro, body = p.body, limit_bytes = p.limit,
                layer = p.layer, head = p.head, tail = p.tail, tail_stage = p.tail_stage, inflight = p.inflight,
                coef_sum = p.coef_sum, coef_max = p.coef_max, kind = p.run.kind },
  }
  -- the candidate's degrees, each search dimension of the registry (and the run's etp)
  for _, col in ipairs(core.search_columns) do doc[col.key] = c[col.key] end
  return doc
end

return M
