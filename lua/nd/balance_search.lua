--- nd.balance_search: search.lua --balance. The C search prices every
-- candidate at the even split with one recompute mode, its memory filter
-- widened (WIDEN) so that a pipelined candidate over the budget there can
-- still fit balanced; then pipelined candidates are balanced (nd.balance_run:
-- the count model's plan, laid out and priced again by the estimate and the
-- time model), each taking its balanced peak and step where the plan fits
-- and ranks before its even split by the policy's order (faster; under a
-- peak-first policy, lighter: balance_one), or where its even split does
-- not fit; every candidate left over the budget is dropped; one row is kept a
-- (layout, plan) (add_row: a balanced row whose plan is its layout's even
-- split with no recompute gives way to that even row); the list is ranked
-- again by the policy's sort keys (its score, then its order keys). Which
-- candidates are balanced depends on the policy:
--  * step first (throughput): in order of a floor on their step, until the
--    floor passes the top k's last step (rank_by_bounds): exact;
--  * peak first (memory): in order of a floor on their peak, until it passes
--    the top k's last peak (rank_by_peaks): exact;
--  * keys balancing does not set (nd: nd_score stays the even split's): in
--    rank order until k are kept (rank_first, fixed): exact;
--  * a score function (it may read any field, so no bound orders the
--    candidates): the first `limit` (DEFAULT_LIMIT) by the even split's
--    rank, and the output says the rest is not checked.
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

-- The bound of balance_run.solve for a run of bounds `b` (result:bound's
-- pipelined and held floors): no plan's step at or below `above` seconds, or
-- the layout is not solved.
local function bound_of(ctx, run, b, above)
  local ones = {}
  for s = 1, run:spec().pp do ones[s] = 1 end
  return { floor = b.pipelined, held = b.held, above = above, rerun = core.rerun_seconds(ctx.model, run, ctx.hw),
           per_second = core.pipeline_step(run, ones) / #ones }
end

-- The balanced plan of a candidate's layout, solved once a layout; with
-- bounds `b` and `above`, not solved where no plan of it steps at or below
-- `above` (balance_run.solve's bound).
local function solved(c, ctx, b, above)
  local key = degrees_key(c)
  local hit = ctx.layouts[key]
  if hit then
    ctx.layout_hits = ctx.layout_hits + 1
    return hit[1], hit[2]
  end
  local run = api.candidate_run(ctx.run, c)
  run = run:with { device_memory = ctx.budget }
  local bound = b and above < math.huge and bound_of(ctx, run, b, above) or nil
  local r, why = balance_run.solve(ctx.model, run, ctx.hw, { memo = ctx.memo, count_first = true, bound = bound,
                                                              link = ctx.link })
  ctx.layouts[key] = { r, why }
  if r and r.above then ctx.above = ctx.above + 1 end
  return r, why
end

-- A candidate's degrees with its FSDP shard (op) and SP, as a string.
local function listed_degrees(c)
  local parts = {}
  for _, k in ipairs { "dp", "tp", "pp", "vpp", "cp", "ep", "op", "mb", "mbs" } do parts[#parts + 1] = tostring(c[k]) end
  parts[#parts + 1] = tostring(c.sp)
  return table.concat(parts, ",")
end

-- Whether a layout's balanced plan r (balance_run.solve's) is its even
-- split with no recompute: every stage and chunk keeps the even split's
-- layers (the plan's offset, nd.balance_run.changes, is the problem's even
-- offset, both vpp lists of one entry a stage), no layer recomputes
-- (changes write recompute = "off" only where no list holds a layer, the
-- first kind's prefix included) and none offloads. That is the candidate
-- of the same degrees at recompute off, evenly split, as the C search
-- prices it. (A plan recomputing every layer is written as per-stage
-- lists, which the layout reads apart from the uniform mode, so it is not
-- taken as the even split at that mode.)
local function plan_is_even_off(r)
  if r.changes.recompute ~= "off" or (r.offload and r.offload.offloaded_layers > 0) then return false end
  return core.json.encode(r.changes.offset) == core.json.encode(r.problem.run.offset)
end

-- Balances one candidate in place; true when it took the balanced layout.
-- b, above: solved's.
local function balance_one(c, ctx, b, above)
  local r, why = solved(c, ctx, b, above)
  if not r then
    ctx.refused[why] = (ctx.refused[why] or 0) + 1
    return false
  end
  if not r.feasible then return false end
  local even_fits = c.peak_bytes <= ctx.budget
  -- the candidate at off whose plan is its own even split keeps it: the
  -- balanced row would add nothing (add_row)
  if even_fits and c.recompute == "off" and plan_is_even_off(r) then return false end
  -- a fitting candidate's row is the better of its even split and the plan
  -- by the policy's order: under a peak-first policy (memory: peak, then
  -- step) the plan where its peak is less, or equal and its step less (the
  -- balancer minimises the step, so its plan may fill the memory past the
  -- even split's peak: it would rank after its own even split); else (the
  -- step first, and every other policy) where its step is less.
  -- (Under the step first that is the policy's order too but at an equal
  -- step, where the even split is kept: the balancer's plan is the count
  -- model's optimum, which the estimate prices again, so the row is no
  -- slower than the even split by this test, not by construction.)
  if even_fits then
    local p = r.priced
    if ctx.by_peak then
      if not (p.peak < c.peak_bytes or p.peak == c.peak_bytes and p.step < c.step_time_s) then return false end
    elseif p.step >= c.step_time_s then
      return false
    end
  end
  local t = core.step_time(ctx.model, r.run, ctx.hw)
  local even_step, even_peak = c.step_time_s, c.peak_bytes
  for _, k in ipairs(STEP_KEYS) do c[k] = t[k] end
  local off = r.offload and r.offload.offloaded_layers > 0 and r.offload
  if off then -- --offload: the step with the copies' seconds (balance_run's), the rates at it; parts the layout's
    local scale = t.step_time_s / r.priced.step
    c.step_time_s, c.mfu, c.tokens_per_s_per_device = r.priced.step, t.mfu * scale, t.tokens_per_s_per_device * scale
    -- and what the copies add to the step, its own part (nd.report.parts.COPY)
    c.parts = { host_copy_s = r.priced.step - t.step_time_s }
    for k, v in pairs(t.parts) do c.parts[k] = v end
  end
  c.peak_bytes, c.peak_stage = r.priced.peak, r.priced.peak_stage
  c.overshoot_bytes = r.priced.peak - ctx.budget
  local S, I = r.problem.stages, r.problem.chunks
  local mode = r.family[2]
  -- the layers each stage recomputes as resolved.yaml's list writes them
  -- (the dense prefix on stage 0 included)
  local rec = balance_run.recompute_lists(r.problem, r.plan, mode)
  c.balance = {
    even_step_s = even_step, even_peak_bytes = even_peak, even_fits = even_fits,
    gain = even_fits and even_step / r.priced.step or nil,
    offset = I == 1 and r.changes.offset[1] or r.changes.offset,
    recompute_mode = mode, recompute = I == 1 and rec[1] or rec,
    stage_bytes = r.priced.totals, optimal = r.plan.optimal,
  }
  if ctx.link then -- the reference's fields (nd.host_link.summary), and per stage the offloaded layers
    local sum = r.offload or require("nd.host_link").summary(r.problem, {})
    c.balance.offloaded_layers, c.balance.offloaded_gib = sum.offloaded_layers, sum.offloaded_gib
    c.balance.offloaded_share, c.balance.stage_offloaded = sum.offloaded_share, {}
    for s = 1, S do c.balance.stage_offloaded[s] = sum.stages[s].layers end
  end
  -- the run's fields (resolved.yaml's lists), kept out of the JSON
  setmetatable(c.balance, { __index = { changes = r.changes } })
  c.balance_result = r -- for -k: the plan's problem (not in the JSON)
  -- the plan chooses each layer's recompute: plain layers beside at most one
  -- mode. Whether any layer recomputes is read from the lists the run is
  -- written with (changes: recompute = "off" where none holds a layer), not
  -- from the cells alone: a first kind pinned to stage 0 (DeepSeek-V3's
  -- dense layers, balance_run's prefix) recomputes at the plan's mode even
  -- where no cell does (balance_run.changes adds it to stage 0's list)
  local any = r.changes.recompute ~= "off"
  c.recompute_priced = c.recompute
  c.recompute = any and (mode == "full" and "off+full" or "off+sel") or "off"
  return true
end

-- The k-th smallest of the steps held (sorted ascending, at most k kept).
local function hold(steps, k, x)
  local i = #steps + 1
  while i > 1 and steps[i - 1] > x do i = i - 1 end
  if i > k then return end
  table.insert(steps, i, x)
  if #steps > k then steps[#steps] = nil end
end

-- The (layout, plan) of a listed row as a string, or nil where no other
-- row can share it (a candidate without a pipeline, or at an even split
-- with recompute): a balanced row's degrees and plan (its offsets and
-- recompute lists), or "even off" where that plan is its layout's even
-- split with no recompute (plan_is_even_off), the same string as the even
-- row of those degrees at recompute off.
local function plan_key(c, took)
  if took then
    local b = c.balance
    return listed_degrees(c) .. "|" .. (plan_is_even_off(c.balance_result) and "even off"
      or core.json.encode { b.offset, b.recompute, b.recompute_mode })
  end
  if c.pp > 1 and c.recompute == "off" then return listed_degrees(c) .. "|even off" end
  return nil
end

-- The rows kept so far, one a (layout, plan) (plan_key), and the k least
-- of their `field` (held: the ranked key the bounds compare with; none
-- without a field). get, size: the search's candidates (add_row's twins).
local function new_rows(top, field, get, size, budget)
  return { kept = {}, at = {}, held = {}, top = top, field = field, get = get, size = size, budget = budget,
           early = {}, pending = 0 }
end

-- The index of the candidate at recompute off, fitting, of c's degrees, or
-- nil; the search's candidates are indexed once, when first asked.
local function off_twin(rows, c)
  if not rows.twins then
    rows.twins = {}
    for i = 1, rows.size do
      local d = rows.get(i)
      if d.pp > 1 and d.recompute == "off" and d.peak_bytes <= rows.budget then rows.twins[listed_degrees(d)] = i end
    end
  end
  return rows.twins[listed_degrees(c)]
end

-- Keeps candidate c (of index i; it fits; took: it took its balanced plan)
-- unless a row of the same (layout, plan) is kept: the modes of one layout
-- balance to one plan, and the first of them to take it is kept (they are
-- taken in rank order). Where that plan is the layout's even split with no
-- recompute (plan_is_even_off), the search's candidate of the same degrees
-- at recompute off is that split as the C search priced it (the same
-- layers and recompute, so the same peak and step up to rounding): the
-- balanced row adds nothing, so that even row is listed in its place, taken
-- now if it was not reached (rows.early, rows.pending: counted by
-- rank_first once reached), and not again when reached. (The off candidate
-- itself never takes that plan: balance_one.) Where the search has no such
-- candidate (--recompute without off), the balanced row is listed.
local function add_row(rows, c, took, i)
  if rows.early[i] then
    rows.early[i], rows.pending = nil, rows.pending - 1
    return
  end
  local key = plan_key(c, took)
  if key and rows.at[key] then return end
  if took and plan_is_even_off(c.balance_result) then
    local j = off_twin(rows, c)
    if j then
      c = rows.get(j)
      c.rank, c.even_rank = j, j
      rows.early[j], rows.pending = true, rows.pending + 1
    end
  end
  rows.kept[#rows.kept + 1] = c
  if key then rows.at[key] = true end
  if rows.field then hold(rows.held, rows.top, c[rows.field]) end
end

-- Candidate c (index i) taken in a ranking: ranked at its even split's
-- place, balanced where it is pipelined and fewer than t.limit were tried
-- (b, above: balance_one's bound), else counted as passed over
-- (pipelined, past the limit: kept at its even split), then kept as a
-- row where it fits (one row a (layout, plan): add_row). t: the ranking's
-- counts {tried, balanced, passed, limit}.
local function take(t, rows, c, i, ctx, b, above)
  c.rank, c.even_rank = i, i
  local took = false
  if c.pp > 1 and t.tried < t.limit then
    t.tried = t.tried + 1
    took = balance_one(c, ctx, b, above)
    if took then t.balanced = t.balanced + 1 end
  elseif c.pp > 1 then
    t.passed = t.passed + 1
  end
  if c.peak_bytes <= rows.budget then add_row(rows, c, took, i) end
end

-- The policy's sort keys as the C sort takes them (nd.policies.apply):
-- "score" first where the policy scores, then its order keys.
local function sort_keys(policy)
  local keys = {}
  if policy.score then keys[1] = "score" end
  for _, k in ipairs(policy.order or {}) do keys[#keys + 1] = k end
  if #keys == 0 then keys = { "step_time_s", "peak_bytes" } end
  return keys
end

-- The comparison of the policy's sort keys (the C sort's), then the rank.
local function comparer(policy)
  local keys = {}
  for _, k in ipairs(sort_keys(policy)) do
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

-- The candidates of rank order 1..n as the balanced ranking reads them.
local function new_ctx(s)
  local ctx = { model = s.base.model, run = s.base.run, budget = s.budget, memo = balance_run.memo(), refused = {},
                layouts = {}, layout_hits = 0, above = 0, link = s.balance and s.balance.link, floors = {},
                floors_n = 0 }
  ctx.hw = balance_run.hardware(s.profile, s.base.run)
  return ctx
end

-- The ranked top of the kept candidates, and the refusals as text.
local function finish(kept, policy, top, ctx)
  table.sort(kept, comparer(policy))
  local list = {}
  for i = 1, math.min(top, #kept) do
    list[i] = kept[i]
    list[i].rank = i
  end
  local refused = {}
  for why, n in pairs(ctx.refused) do refused[#refused + 1] = string.format("%d: %s", n, why) end
  table.sort(refused)
  return list, refused
end

-- Whether the policy ranks by the step first (the bound's key): its first
-- order key is step_time_s and no score function reorders it.
local function step_first(policy)
  return not policy.score and (policy.order or { "step_time_s" })[1] == "step_time_s"
end

-- Whether the policy ranks by the peak first (memory): its first order
-- key is peak_bytes and no score function reorders it.
local function peak_first(policy)
  return not policy.score and (policy.order or {})[1] == "peak_bytes"
end

-- The candidate's keys a balanced plan sets (balance_one): its step's and
-- its peak's.
local CHANGED = { peak_bytes = true, peak_stage = true, overshoot_bytes = true }
for _, k in ipairs(STEP_KEYS) do CHANGED[k] = true end

-- Whether the policy ranks by keys no balanced plan changes (nd: the
-- reference's score, nd_score, stays the even split's): no score function
-- (it may read any field) and none of its order keys set by balance_one.
local function fixed_keys(policy)
  if policy.score or not policy.order then return false end
  for _, k in ipairs(policy.order) do
    if CHANGED[k:sub(1, 1) == "-" and k:sub(2) or k] then return false end
  end
  return true
end

-- Slack for rounding when a bound is compared with a step: a bound equal to
-- a step may round above it by a few units in the last place.
local ROUNDING = 1e-12

-- An upper bound on the top's k-th step: the k-th even step among
-- candidates that fit at their even split, one a layout (the layout's
-- balanced candidates collapse to one row; each kept row is no slower than
-- its even split).
local function first_bound(result, get, bounds, budget, k)
  local steps, layouts = {}, {}
  for i = 1, result:size() do
    local b = bounds[i]
    if b.peak <= budget then
      local key = degrees_key(get(i))
      if not layouts[key] then
        layouts[key] = true
        steps[#steps + 1] = b.step
        if #steps == k then return b.step end
      end
    end
  end
  return math.huge
end

-- Balancing every pipelined candidate, exactly, by bounds (the policy ranks
-- by the step first). Each pipelined candidate's floor (result:bound:
-- timing.c's pipeline_floor_seconds and dp_floor_seconds, no split or
-- recompute of its layout steps faster, so neither its balanced plan nor
-- its even split does) is a lower bound on the step it ranks at; a
-- candidate without a pipeline ranks at its even step. Candidates are taken in order of that bound and
-- balanced; once the next bound is above the k-th step of the rows kept so
-- far, no candidate left can rank among the first k. `limit` caps the
-- pipelined candidates balanced (then the top is not proved).
local function rank_by_bounds(s, result, get, top, limit, ctx)
  local n = result:size()
  local bounds = {}
  for i = 1, n do
    local floor, step, peak, pp, pipelined, held = result:bound(i)
    bounds[i] = { floor = floor, step = step, peak = peak, pp = pp, pipelined = pipelined, held = held }
  end
  local ceiling = first_bound(result, get, bounds, s.budget, top)
  local order, pipelined = {}, 0
  for i = 1, n do
    local b = bounds[i]
    if b.pp > 1 then pipelined = pipelined + 1 end
    b.key = b.pp > 1 and math.min(b.floor, b.step) or (b.peak <= s.budget and b.step or math.huge)
    if b.key <= ceiling * (1 + ROUNDING) then order[#order + 1] = i end
  end
  table.sort(order, function(x, y)
    local a, b = bounds[x].key, bounds[y].key
    if a ~= b then return a < b end
    return x < y
  end)
  local rows = new_rows(top, "step_time_s", get, n, s.budget)
  local t, looked = { tried = 0, balanced = 0, passed = 0, limit = limit }, 0
  for _, i in ipairs(order) do
    local b = bounds[i]
    local steps = rows.held
    if #steps == top and b.key > steps[top] * (1 + ROUNDING) then break end
    looked = looked + 1
    -- the modes of one layout share the bound, so they are taken in rank
    -- order (add_row keeps the first to take the layout's plan)
    take(t, rows, get(i), i, ctx, b, #steps == top and steps[top] or math.huge)
  end
  local list, refused = finish(rows.kept, s.policy, top, ctx)
  return list, { exact = true, balanced = t.balanced, tried = t.tried, kept = #rows.kept, solved = ctx.memo.solved,
                 unfit = ctx.memo.unfit or 0, above = ctx.above,
                 refused = refused, memo_hits = ctx.memo.hits + ctx.layout_hits, pipelined = pipelined,
                 pruned = pipelined - t.tried - t.passed, unbalanced = t.passed, looked = looked, total = n,
                 limit = limit < math.huge and limit or nil }
end

-- A lower bound on the peak (bytes) of any split of candidate i's layout
-- with any recompute lists, as the estimate prices it: the balancer's plan,
-- laid out and priced again by nd.estimate (balance_run.solve's `priced`),
-- is such a split, and so is the even split. From the estimate
-- (src/core/estimate.c price_stage, price_reserved): a stage's total is
-- reserved + reserve; reserved >= allocated x (1 + fragmentation) under
-- every allocator rule; allocated = static + activations + comm + backward
-- overhead, each >= 0, where a layer adds its static bytes and its
-- activation bytes x the micro-batches its chunk keeps (accumulate). No
-- split, chunk or recompute changes a layer's static bytes, and it keeps at
-- least the least of its activation bytes at off, selective and full
-- (result:least_bytes: estimate.c's own prices), over at least the fewest
-- micro-batches any chunk of its stage keeps (schedule.c micro_factor: the
-- schedule's, no split changes it). So stage s, holding n[s][k] layers of
-- kind k, allocates at least B[s] = sum_k n[s][k] x c[s][k], c[s][k] =
-- stat[k] + act[k] x in_flight[s]; the tables, the comm buffers and the
-- backward's overhead are left out (at least 0). For any split:
--  * max_s B[s] >= sum_s y[s] B[s] for weights y >= 0 summing to 1; with
--    y[s] = (1 / c[s][K]) / H, H = sum_s 1 / c[s][K], a kind K's layers add
--    N[K] / H and another kind j's at least N[j] min_s (c[s][j] / c[s][K]) / H
--    (the water level of kind K, the other kinds at their exchange rate);
--  * N[k] layers over S stages put ceil(N[k] / S) on one, at least
--    c[s][k] >= stat[k] + act[k] x the fewest micro-batches any stage keeps.
-- The stage of the largest B[s] then holds a body layer, which keeps its
-- input whatever its recompute (estimate.c compute_activation), so its
-- reserve counts (price_stage: dynamic > 0), and holds its communication
-- buffers, the largest of its layers' (accumulate), at least the least of
-- any kind's at off, selective and full (estimate.c compute_comm). On a
-- 1F1B-like schedule of one chunk its backward's overhead (overhead_1f1b)
-- is its last layer's working set and buffers again, or, on the output
-- stage, at least the head's working set (output_extra): at least the
-- least of those (result:least_bytes's work and head_working).
-- (grads_released takes the gradients out at one end of the backward, but
-- holds at pp 1 alone, derive.c; the runs that offload to the host are
-- refused by the balancer and keep their even split, which the key reads
-- too.) Rounding: the
-- estimate rounds each of a stage's parts to a byte; 16 bytes are taken off.
-- Memoised by the layout (degrees but the recompute).
local function peak_floor(ctx, result, i, c)
  local key = degrees_key(c)
  local hit = ctx.floors[key]
  if hit then return hit end
  ctx.floors_n = ctx.floors_n + 1
  local t = result:least_bytes(i, ctx.model)
  local f, kinds = t.in_flight, t.kinds
  if ctx.link then
    -- --offload: a plan's offloaded layers keep a share of their plain
    -- activations (balance_run's with_offload takes them off the layout's
    -- totals, the reserve left), so only the static bytes are counted
    for _, k in ipairs(kinds) do k.act = 0 end
  end
  local S, fewest = #f, math.huge
  for s = 1, S do fewest = math.min(fewest, f[s]) end
  local most = 0
  for K, k in ipairs(kinds) do
    local h = 0
    for s = 1, S do h = h + 1 / (k.stat + k.act * f[s]) end
    if h < math.huge then
      local layers = k.count
      for j, other in ipairs(kinds) do
        if j ~= K then
          local rate = math.huge
          for s = 1, S do rate = math.min(rate, (other.stat + other.act * f[s]) / (k.stat + k.act * f[s])) end
          layers = layers + other.count * rate
        end
      end
      most = math.max(most, layers / h)
    end
    most = math.max(most, math.ceil(k.count / S) * (k.stat + k.act * fewest))
  end
  local comm, work = math.huge, math.huge
  for _, k in ipairs(kinds) do comm, work = math.min(comm, k.comm), math.min(work, k.work) end
  local over = t.last_layer_overhead and math.min(work, t.head_working) or 0
  local floor = most > 0 and (1 + t.fragmentation) * (most + comm + over) * (1 - 1e-12) + t.reserve - 16 or 0
  ctx.floors[key] = floor
  return floor
end

-- Balancing every pipelined candidate, exactly, by peaks (the policy ranks
-- by the peak first: memory). A candidate's ranked peak is its even
-- split's, or its balanced plan's where it takes one (balance_one: where
-- its even split fits, only if the plan's peak is less, so the row's peak
-- is then min(even peak, plan's peak)), so it is at least key = min(even
-- peak where it fits, peak_floor) (a candidate
-- without a pipeline: its even peak where it fits); the candidates of one
-- layout share the least of their keys, so that they are taken in rank
-- order, as balancing every candidate takes them (the first of a layout's
-- modes to take its plan is kept). Candidates are taken in order of that
-- key and balanced; once the next key is above the k-th peak of the rows
-- kept so far, no candidate left ranks among the first k (a candidate at
-- that peak may rank before by step: its key is not above it). `limit`
-- caps the pipelined candidates balanced (then the top is not proved).
local function rank_by_peaks(s, result, get, top, limit, ctx)
  local n = result:size()
  local keys, group, pipelined = {}, {}, 0
  local layout_of = {}
  for i = 1, n do
    local _, _, peak, pp = result:bound(i)
    local fits = peak <= s.budget
    if pp > 1 then
      pipelined = pipelined + 1
      local c = get(i)
      local layout = degrees_key(c)
      local k = math.min(fits and peak or math.huge, peak_floor(ctx, result, i, c))
      layout_of[i] = layout
      group[layout] = math.min(group[layout] or math.huge, k)
    else
      keys[i] = fits and peak or math.huge
    end
  end
  local order = {}
  for i = 1, n do
    if layout_of[i] then keys[i] = group[layout_of[i]] end
    if keys[i] < math.huge then order[#order + 1] = i end
  end
  table.sort(order, function(x, y)
    if keys[x] ~= keys[y] then return keys[x] < keys[y] end
    return x < y
  end)
  local rows = new_rows(top, "peak_bytes", get, n, s.budget)
  local t, looked = { tried = 0, balanced = 0, passed = 0, limit = limit }, 0
  for _, i in ipairs(order) do
    local peaks = rows.held
    if #peaks == top and keys[i] > peaks[top] then break end
    looked = looked + 1
    take(t, rows, get(i), i, ctx)
  end
  local list, refused = finish(rows.kept, s.policy, top, ctx)
  return list, { exact = true, by = "peak", balanced = t.balanced, tried = t.tried, kept = #rows.kept,
                 solved = ctx.memo.solved, unfit = ctx.memo.unfit or 0, above = 0, floors = ctx.floors_n,
                 refused = refused, memo_hits = ctx.memo.hits + ctx.layout_hits, pipelined = pipelined,
                 pruned = pipelined - t.tried - t.passed, unbalanced = t.passed, looked = looked, total = n,
                 limit = limit < math.huge and limit or nil }
end

-- The pipelined candidates in the even split's rank order balanced: the
-- first `limit` of them (a policy whose keys balancing changes: no bound);
-- or, `fixed` (the policy ranks by keys balancing does not change: nd),
-- each one until the top k are kept, exactly: the ranked keys are the
-- even split's, so balancing changes only which candidates fit (and which
-- of a layout's rows is kept, add_row's), and no candidate after
-- the k-th kept one ranks before it.
local function rank_first(s, result, get, top, limit, ctx, fixed)
  local rows = new_rows(top, nil, get, result:size(), s.budget)
  local t, looked = { tried = 0, balanced = 0, passed = 0, limit = limit }, 0
  for i = 1, result:size() do
    if (t.tried >= limit or fixed) and #rows.kept - rows.pending >= top then break end
    looked = i
    take(t, rows, get(i), i, ctx)
  end
  local tried, balanced, passed = t.tried, t.balanced, t.passed
  local list, refused = finish(rows.kept, s.policy, top, ctx)
  -- what was not balanced: the pipelined candidates looked at past the
  -- limit, and (not fixed) every candidate after the last one looked at
  local after = fixed and 0 or result:size() - looked
  local why = not fixed and (s.policy.score and "the policy's score function may rank a balanced candidate "
    .. "anywhere, so no bound orders them" or "no bound is known for the policy's keys") or nil
  return list, { why = why, exact = (fixed and passed == 0) or nil, by = fixed and "order" or nil, balanced = balanced, tried = tried,
                 kept = #rows.kept, solved = ctx.memo.solved, refused = refused, unfit = ctx.memo.unfit or 0,
                 memo_hits = ctx.memo.hits + ctx.layout_hits, unbalanced = passed + after, looked = looked,
                 total = result:size(), limit = limit < math.huge and limit or nil }
end

--- The ranked candidates of a --balance search. s: search.lua's search
-- state (base.model, base.run, budget, profile, policy); result: the C
-- search's (sorted); get(i): its candidate i; opts.top: how many to
-- return; opts.limit: the most pipelined candidates to balance;
-- opts.every: balance every pipelined candidate, no bound. Under a
-- policy ranking by the step first, by the peak first, or by keys
-- balancing does not set, every pipelined candidate is balanced or passed
-- over by a proof that it cannot rank in the top (exact = true; by =
-- "peak" or "order" for the last two; limit: none unless told); else the
-- first `limit` (DEFAULT_LIMIT) by the even split's rank (why: the reason
-- no bound orders them). Returns the list, and {exact, by, why, balanced,
-- tried, kept, solved, unfit (problems counting proved to have no plan,
-- balance_run.cannot_fit), memo_hits, seconds, refused, unbalanced
-- (pipelined candidates priced at their even split only past the limit;
-- without exact, also every one after the last looked at), pruned (by
-- bounds: pipelined candidates whose bound ranks them below the top),
-- pipelined, looked, total, limit}.
function M.rank(s, result, get, opts)
  local t0 = os.clock()
  local ctx = new_ctx(s)
  ctx.by_peak = peak_first(s.policy) -- balance_one: a fitting candidate's row is the lighter of the two
  local list, info
  if opts.every then -- every pipelined candidate balanced, no bound (the specs' reference)
    list, info = rank_first(s, result, get, opts.top, math.huge, ctx)
  elseif step_first(s.policy) then
    list, info = rank_by_bounds(s, result, get, opts.top, opts.limit or math.huge, ctx)
  elseif peak_first(s.policy) then
    list, info = rank_by_peaks(s, result, get, opts.top, opts.limit or math.huge, ctx)
  elseif fixed_keys(s.policy) then
    list, info = rank_first(s, result, get, opts.top, opts.limit or math.huge, ctx, true)
  else
    list, info = rank_first(s, result, get, opts.top, opts.limit or M.DEFAULT_LIMIT, ctx)
  end
  info.seconds = os.clock() - t0
  return list, info
end

--- A lower bound (bytes) on the peak of any split of fitting candidate i's
-- layout with any recompute lists, as nd.estimate prices it (the proof at
-- peak_floor). model: the search's; c: the candidate's table.
function M.peak_floor(model, result, i, c, link)
  return peak_floor({ model = model, floors = {}, floors_n = 0, link = link }, result, i, c)
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
                coef_sum = p.coef_sum, coef_max = p.coef_max, kind = p.run.kind,
                -- where there are any, the first kind's layers the cells
                -- leave out, on stage 0 (balance.recompute counts them
                -- there: balance_run.recompute_lists)
                prefix = (p.run.prefix or 0) > 0 and p.run.prefix or nil },
  }
  -- the candidate's degrees, each search dimension of the registry (and the run's etp)
  for _, col in ipairs(core.search_columns) do doc[col.key] = c[col.key] end
  return doc
end

return M
