-- balance_kinds_spec.lua: the balancer with body layers of several kinds in
-- model order (nd.core.balance with kinds and sequence; src/search/balance_kinds.c),
-- and with layers that may offload a share of their activations to the host
-- against an exhaustive enumeration written here. The enumeration tries every
-- split of the body, in model order (chunk by chunk, each over the stages
-- upward), into the cells, and for each stage every multiset of options in
-- every (cell, kind) group its runs make; the solver instead builds Pareto
-- frontiers of option mixes and runs a dynamic program over (sum, max) labels,
-- so agreement on 200+ random problems is a real check.
--
-- For one split the stages are independent (each has its own memory limit,
-- and the step a*sum + b*max with a, b >= 0 only grows with each stage's
-- time), so the enumeration takes each stage's least time for that split.

local core = require("nd.core")
local agree = dofile("spec/support/balance_agree.lua")

local OPTIONS = agree.OPTIONS

-- The message of a bad-input error f raises.
local function refusal(f)
  local ok, err = pcall(f)
  assert.is_false(ok)
  assert.is_true(type(err) == "table" and err.bad_input, tostring(err))
  return err.message
end

-- The cells in model order, each with its stage, chunk, pinned layers and in-flight count.
-- Order "v" (DualPipeV's V shape): chunk 2 runs over the stages downward.
local function model_cells(p)
  local S, I, cells = p.stages, p.chunks, {}
  for v = 1, I do
    for j = 1, S do
      local s = (p.order == "v" and v == 2) and S + 1 - j or j
      local pinned = {}
      if p.head and v == 1 and s == 1 then pinned[#pinned + 1] = p.head end
      -- the tail follows the last body layer: the last stage, or the first in the V order
      if p.tail and v == I and s == (p.tail_stage or (p.order == "v" and 1 or S)) then pinned[#pinned + 1] = p.tail end
      cells[#cells + 1] = { v = v, s = s, pinned = pinned, n = p.inflight[s][v] }
    end
  end
  return cells
end

-- The least time of one stage given its cells' runs (lists of kind numbers), or nil.
local function stage_least(p, cells, runs)
  local mem, time, groups = 0, 0, {}
  for i, c in ipairs(cells) do
    for _, pin in ipairs(c.pinned) do
      mem, time = mem + pin.stat + pin.act * c.n, time + pin.time
    end
    local per = {}
    for _, k in ipairs(runs[i]) do per[k] = (per[k] or 0) + 1 end
    for k, count in pairs(per) do groups[#groups + 1] = { kind = p.kinds[k], count = count, n = c.n } end
  end
  local best
  local function walk(gi, m, t)
    if m > p.limit or (best and t >= best) then return end -- every cost is >= 0: more layers only add
    if gi > #groups then
      if best == nil or t < best then best = t end
      return
    end
    local g = groups[gi]
    -- every choice a layer of this kind has: each option plain, and offloaded where it may be
    -- (keeping (1 - share) of its activations, taking its offload time more)
    local offered = {}
    for _, name in ipairs(OPTIONS) do
      if g.kind.act[name] then offered[#offered + 1] = { act = g.kind.act[name], time = g.kind.time[name] } end
      local off = g.kind.offload
      if off and off.time[name] then
        offered[#offered + 1] = { act = (1 - off.share) * g.kind.act[name], time = g.kind.time[name] + off.time[name] }
      end
    end
    local function opts(j, rest, dm, dt)
      -- every cost is >= 0: a partial mix already over the limit, or already no faster
      -- than the best, cannot become a better one
      if m + dm > p.limit or (best and t + dt >= best) then return end
      local c = offered[j]
      if j == #offered then
        walk(gi + 1, dm + rest * (g.kind.stat + c.act * g.n) + m, dt + rest * c.time + t)
        return
      end
      for x = 0, rest do
        opts(j + 1, rest - x, dm + x * (g.kind.stat + c.act * g.n), dt + x * c.time)
      end
    end
    opts(1, g.count, 0, 0)
  end
  walk(1, mem, time)
  return best
end

-- The body layers pinned to the first cell of the model order (kinds with
-- pin = "first", opening the sequence) and to the last (pin = "last", closing it).
local function pinned_ends(p)
  local N, first, last = #p.sequence, 0, 0
  while first < N and p.kinds[p.sequence[first + 1]].pin == "first" do first = first + 1 end
  while last < N - first and p.kinds[p.sequence[N - last]].pin == "last" do last = last + 1 end
  return first, last
end

-- Whether counts (the body layers of each cell in model order) keep the pinned layers at the ends.
local function pins_kept(p, counts)
  local first, last = pinned_ends(p)
  local before_last = #p.sequence - counts[#counts]
  return counts[1] >= first and before_last <= #p.sequence - last
end

-- The exhaustive answer: least step, or nil when no split fits.
local function enumerate(p)
  local S, N = p.stages, #p.sequence
  local cells = model_cells(p)
  local counts, best, memo = {}, nil, {}
  local function finish()
    -- the runs of each cell in model order, then each stage's least time
    local at, runs = 1, {}
    for i = 1, #cells do
      runs[i] = {}
      for _ = 1, counts[i] do
        runs[i][#runs[i] + 1] = p.sequence[at]
        at = at + 1
      end
    end
    local sum, most = 0, 0
    for s = 1, S do
      local mine, my_runs, key = {}, {}, { s }
      for i, c in ipairs(cells) do
        if c.s == s then
          mine[#mine + 1] = c
          my_runs[#my_runs + 1] = runs[i]
          key[#key + 1] = table.concat(runs[i], ",")
        end
      end
      key = table.concat(key, "|")
      if memo[key] == nil then memo[key] = stage_least(p, mine, my_runs) or false end
      local t = memo[key]
      if not t then return end
      sum = sum + t
      if t > most then most = t end
    end
    local step = p.coef_sum * sum + p.coef_max * most
    if best == nil or step < best then best = step end
  end
  local function place(i, left)
    if i > #cells then
      if left == 0 then finish() end
      return
    end
    for k = (#cells[i].pinned > 0 and 0 or 1), left do
      counts[i] = k
      if i < #cells or pins_kept(p, counts) then place(i + 1, left - k) end
    end
  end
  place(1, N)
  return best
end

-- Set by evaluate when a plan offloads a layer.
local seen_offload = false

-- The solver's plan checked here: runs in model order, kinds per cell as the
-- sequence has them, every stage within the limit; its step.
local function evaluate(p, plan)
  local ok, at, sum, most = true, 1, 0, 0
  local mem, time = {}, {}
  for s = 1, p.stages do mem[s], time[s] = 0, 0 end
  for _, c in ipairs(model_cells(p)) do
    for _, pin in ipairs(c.pinned) do
      mem[c.s], time[c.s] = mem[c.s] + pin.stat + pin.act * c.n, time[c.s] + pin.time
    end
    local run = plan.runs[c.s][c.v]
    if run.first ~= at then ok = false end
    for k, kind in ipairs(p.kinds) do
      local of_kind = 0
      local offloaded = plan.kind_offload and plan.kind_offload[c.s][c.v][k] or {}
      for name, x in pairs(plan.kind_cells[c.s][c.v][k]) do
        local y = offloaded[name] or 0
        if y > x or (y > 0 and not kind.offload.time[name]) then ok = false end
        mem[c.s] = mem[c.s] + (x - y) * (kind.stat + kind.act[name] * c.n)
        time[c.s] = time[c.s] + x * kind.time[name]
        if y > 0 then
          mem[c.s] = mem[c.s] + y * (kind.stat + (1 - kind.offload.share) * kind.act[name] * c.n)
          time[c.s] = time[c.s] + y * kind.offload.time[name]
          seen_offload = true
        end
        of_kind = of_kind + x
      end
      for i = at, at + run.count - 1 do
        if p.sequence[i] == k then of_kind = of_kind - 1 end
      end
      if of_kind ~= 0 then ok = false end
    end
    if run.count + #c.pinned < 1 then ok = false end
    at = at + run.count
  end
  if at ~= #p.sequence + 1 then ok = false end
  local counts = {}
  for _, c in ipairs(model_cells(p)) do counts[#counts + 1] = plan.runs[c.s][c.v].count end
  if not pins_kept(p, counts) then ok = false end
  for s = 1, p.stages do
    if mem[s] > p.limit then ok = false end
    sum = sum + time[s]
    if time[s] > most then most = time[s] end
  end
  return ok, p.coef_sum * sum + p.coef_max * most
end

local function random_kind(r, offload)
  local kind = { stat = r(0, 6), fwd = 0, act = {}, time = {} }
  local base = r(1, 9)
  for i, name in ipairs(OPTIONS) do
    if r(0, 2) > 0 or (i == 5 and next(kind.act) == nil) then
      kind.act[name] = r(0, 12)
      kind.time[name] = base + r(0, 6)
    end
  end
  if offload then -- shares that are exact binary fractions, so every sum stays exact
    kind.offload = { share = ({ 0.25, 0.5, 0.75, 1 })[r(1, 4)], time = {} }
    for name in pairs(kind.act) do
      if r(0, 1) == 1 then kind.offload.time[name] = r(0, 4) end
    end
  end
  return kind
end

-- One time in four a third kind closes the sequence (pinned last, an MTP-like
-- layer), one in four it opens it (pinned first), one in four it closes it
-- unpinned; the draws (extra, then the kind's) as the random problems take them.
local function maybe_third_kind(r, p, seq, N)
  local extra = r(0, 3)
  if extra == 0 then return end
  local k = random_kind(r)
  k.pin = extra == 1 and "last" or extra == 2 and "first" or nil
  p.kinds = { p.kinds[1], p.kinds[2], k }
  if extra == 2 then seq[1] = 3 else seq[N] = 3 end
end

-- A random problem: 1-4 stages, 1-3 chunks, 2-3 kinds in runs or mixed, up
-- to 12 body layers, integer costs (every sum exact), a limit from tight to loose.
local function problem(r, offload, max_layers)
  local S = r(1, 4)
  local I = S <= 2 and r(1, 3) or r(1, 2)
  local K = offload and r(1, 2) or r(2, 3)
  local kinds = {}
  for k = 1, K do kinds[k] = random_kind(r, offload) end
  local inflight = {}
  for s = 1, S do
    inflight[s] = {}
    for v = 1, I do inflight[s][v] = r(0, 1) == 0 and (S - s + 1) or r(0, 4) end
  end
  local p = {
    stages = S, chunks = I, micro = r(1, 8), inflight = inflight, kinds = kinds,
    coef_sum = r(0, 3), coef_max = r(0, 7),
  }
  if r(0, 1) == 1 then p.head = { stat = r(0, 9), act = r(0, 4), time = r(0, 8), fwd = 0 } end
  if r(0, 1) == 1 then p.tail = { stat = r(0, 9), act = r(0, 4), time = r(0, 8), fwd = 0 } end
  if p.tail and r(0, 3) == 0 then p.tail_stage = 1 end
  local least_cells = S * I - (p.head and 1 or 0) - (p.tail and 1 or 0)
  local N = r(math.max(1, least_cells - 1), math.min(max_layers or 12, least_cells + 6))
  p.sequence = {}
  if r(0, 1) == 0 then -- runs, as DeepSeek-V3's dense layers before its MoE ones
    local cut = r(1, math.max(1, N - 1))
    for i = 1, N do p.sequence[i] = i <= cut and 1 or 2 end
    if K == 3 then p.sequence[N] = 3 end -- an MTP-like last layer
    if K == 1 then for i = 1, N do p.sequence[i] = 1 end end
  else -- interleaved, as hybrid attention models
    for i = 1, N do p.sequence[i] = r(1, K) end
  end
  p.limit = r(5, 30 + 10 * N)
  return p
end

describe("balance with layer kinds in model order", function()
  it("offloads exactly: 200 random problems with offload shares (S <= 4, I <= 3, <= 10 layers, 1-2 kinds)", function()
    local r = agree.rng(20261208)
    local feasible, infeasible, uniform = 0, 0, 0
    seen_offload = false
    for n = 1, 200 do
      local p = problem(r, true, 10)
      local want = enumerate(p)
      -- a body of one kind goes in as the uniform problem's layer in odd problems
      local given = p
      if #p.kinds == 1 and n % 2 == 1 then
        given = {}
        for k, v in pairs(p) do given[k] = v end
        given.layer, given.kinds, given.sequence, given.body = p.kinds[1], nil, nil, #p.sequence
        uniform = uniform + 1
      end
      local got = core.balance(given)
      local where = ("problem %d: S=%d I=%d N=%d limit=%s"):format(n, p.stages, p.chunks, #p.sequence, p.limit)
      local function as_kinds(plan)
        if given.layer then -- the uniform plan's cells and offload as one kind's
          plan.kind_cells, plan.kind_offload = {}, {}
          for s = 1, p.stages do
            plan.kind_cells[s], plan.kind_offload[s] = {}, {}
            for v = 1, p.chunks do
              plan.kind_cells[s][v], plan.kind_offload[s][v] = { plan.cells[s][v] }, { plan.offload[s][v] }
            end
          end
        end
        return evaluate(p, plan)
      end
      if not agree.agrees(want, got, where, { evaluate = as_kinds }) then
        infeasible = infeasible + 1
      else
        feasible = feasible + 1
        if given.layer then -- the C rules agree on the uniform plan with its offload counts
          local cells = {}
          for s = 1, p.stages do
            cells[s] = {}
            for v = 1, p.chunks do
              cells[s][v] = { offload = got.offload[s][v] }
              for name, x in pairs(got.cells[s][v]) do cells[s][v][name] = x end
            end
          end
          local c_ok, c_step = core.balance_evaluate(given, cells)
          assert.is_true(c_ok, where)
          agree.near(want, c_step, where)
        end
      end
    end
    assert.is_true(feasible >= 80, "feasible " .. feasible)
    assert.is_true(infeasible >= 20, "infeasible " .. infeasible)
    assert.is_true(uniform >= 30, "uniform " .. uniform)
    assert.is_true(seen_offload, "no plan offloads")
  end)

  it("offloads where that is fastest (a case by hand)", function()
    -- One stage, one micro-batch kept, two layers within 15: per layer off
    -- (act 10, 3 s), full (act 1, 5 s), or off offloaded at share 0.5 (act 5,
    -- 3 + 1 = 4 s). off + off needs 20; off + offloaded 15 in 7 s; off + full 11
    -- in 8 s; both offloaded 10 in 8 s: the best is 7, one layer offloaded.
    local p = {
      stages = 1, micro = 1, body = 2, limit = 15, inflight = { { 1 } }, coef_sum = 1, coef_max = 0,
      layer = { stat = 0, act = { off = 10, full = 1 }, time = { off = 3, full = 5 },
                offload = { share = 0.5, time = { off = 1 } } },
    }
    local got = core.balance(p)
    assert.equal(7, got.objective)
    assert.same({ off = 2, full = 0 }, got.cells[1][1])
    assert.same({ off = 1 }, got.offload[1][1])
    assert.same({ 15 }, got.stage_mem)
    -- no fwd given: backward is the plain time 3 a layer, offloading adds 1
    assert.same({ { forward = 0, backward = 6, recompute = 0, offload = 1 } }, require("nd.balance").stage_seconds(p, got))
    -- without the offload the best is off + full, 8
    p.layer.offload = nil
    assert.equal(8, core.balance(p).objective)
    -- refused: an offload of an option not offered, and offload under the sapp objective
    p.layer.offload = { share = 0.5, time = { selective = 1 } }
    assert.equal("balance: layer.offload.time.selective names an option layer does not offer",
      refusal(function() core.balance(p) end))
    p.layer.offload = { share = 0.5, time = { off = 1 } }
    p.objective = "sapp"
    assert.equal("balance: the sapp objective has no offload (SAPP-PPB's rule keeps every activation)",
      refusal(function() core.balance(p) end))
  end)

  it("agrees with exhaustive enumeration on 220 random problems (S <= 4, I <= 3, <= 12 layers, 2-3 kinds)", function()
    local r = agree.rng(7122026)
    local feasible, infeasible, chunks, seen = 0, 0, {}, {}
    for n = 1, 220 do
      local p = problem(r)
      local want = enumerate(p)
      local got = core.balance(p)
      local where = ("problem %d: S=%d I=%d N=%d limit=%s"):format(n, p.stages, p.chunks, #p.sequence, p.limit)
      if agree.agrees(want, got, where, { names_why = true, evaluate = function(plan) return evaluate(p, plan) end }) then
        feasible = feasible + 1
        chunks[p.chunks] = true
        agree.mark_chosen(seen, got.cells, p.stages, p.chunks)
      else
        infeasible = infeasible + 1
      end
    end
    assert.is_true(feasible >= 100, "feasible " .. feasible)
    assert.is_true(infeasible >= 20, "infeasible " .. infeasible)
    assert.is_true(chunks[1] and chunks[2] and chunks[3], "every chunk count has a feasible case")
    for _, name in ipairs(OPTIONS) do assert.is_true(seen[name], name .. " never chosen") end
  end)

  it("agrees with exhaustive enumeration at I = 2 on 60 longer bodies (S 2-3, 13-16 layers), where the bounds prune", function()
    -- The solver tries each start of chunk 2 from the even split outward and
    -- drops a partial plan whose lower bound (the stages so far, plus the rest
    -- at its least seconds under the pooled memory of the stages left) cannot
    -- beat the best plan yet; these bodies are long enough that it does.
    local r = agree.rng(20261207)
    local feasible = 0
    for n = 1, 60 do
      local p = problem(r)
      p.stages, p.chunks = r(2, 3), 2
      local inflight = {}
      for s = 1, p.stages do
        inflight[s] = { p.stages + r(0, 2), r(1, p.stages) } -- the first chunk keeps more, as interleaved 1F1B does
      end
      p.inflight, p.tail_stage = inflight, p.tail_stage and 1 or nil
      local N = r(13, 16)
      p.sequence = {}
      for i = 1, N do p.sequence[i] = i <= r(1, 4) and 1 or (i == N and #p.kinds or r(1, 2) == 1 and 2 or 1) end
      p.limit = r(20, 12 * N)
      local want = enumerate(p)
      local got = core.balance(p)
      local where = ("problem %d: S=%d N=%d limit=%s"):format(n, p.stages, N, p.limit)
      if agree.agrees(want, got, where, { evaluate = function(plan) return evaluate(p, plan) end }) then
        feasible = feasible + 1
      end
    end
    assert.is_true(feasible >= 30, "feasible " .. feasible)
  end)

  it("prices far fewer moves on a DeepSeek-V3-like body at I = 2 (scripts/bench.lua's case)", function()
    -- 3 dense, 57 MoE, 1 MTP-like layer over 16 stages, 2 chunks, 40000 MB:
    -- every chunk start has about 1000 states a stage with tens of moves
    -- each, so the program without its bounds prices millions of moves (and
    -- took 0.6 s); the bounds leave under half a million. A count, not a time.
    local dense = { stat = 800, fwd = 1, act = { off = 900, selective = 500, full = 60 }, time = { off = 3, selective = 3.1, full = 4 } }
    local moe = { stat = 2600, fwd = 2, act = { off = 1200, selective = 700, full = 70 }, time = { off = 5, selective = 5.2, full = 7 } }
    local mtp = { stat = 3000, fwd = 2, act = { off = 1500, full = 90 }, time = { off = 6, full = 8 } }
    local seq, inflight = {}, {}
    for i = 1, 61 do seq[i] = i <= 3 and 1 or i == 61 and 3 or 2 end
    for s = 1, 16 do inflight[s] = { 16, 16 } end
    local a, b = core.balance_coeffs { pp = 16, vpp = 2, micro = 32 }
    local p = { stages = 16, chunks = 2, micro = 32, limit = 40000, kinds = { dense, moe, mtp },
                sequence = seq, inflight = inflight, coef_sum = a, coef_max = b }
    local got = core.balance(p)
    assert.is_true(got.feasible and got.optimal)
    -- Chunk 2 holds MoE layers (and the MTP-like one) only, so one program
    -- over (chunk 1's reach, the layers chunk 2 took) proves the least step
    -- (balance_kinds_alike.c); the chunk starts are then tried from the even
    -- one (chunk 2 from layer 31: 61 // 2 = 30 layers before it) until one
    -- reaches that step: here the even one, so two programs run where
    -- trying every start ran 30 (chunk 2 from layer 17 to 46: 16 cells a
    -- chunk, none pinned, each holds a layer) and priced 421877 moves.
    assert.equal(31, got.runs[1][2].first)
    assert.equal(2, got.explored)
    assert.is_true(got.moves < 50000, "moves priced: " .. tostring(got.moves))
    p.every_start = true
    local every = core.balance(p)
    assert.equal(every.objective, got.objective)
    assert.same(every.runs, got.runs)
    assert.same(every.kind_cells, got.kind_cells)
    assert.equal(30, every.explored)
    assert.is_true(every.moves < 500000, "moves priced: " .. tostring(every.moves))
  end)

  it("at I = 2 with one kind after a first run: the enumeration's step and every start's plan (200 random problems)", function()
    -- Chunk 1's cells must hold the first kind's run (as many layers as
    -- they are, at most), so chunk 2 holds the other kind (and a closing
    -- MTP-like layer, pinned last or not; or a kind pinned first opens the
    -- body): the one program of balance_kinds_alike.c then proves the least
    -- step, and the chunk starts are tried in every-start order only until
    -- one reaches it. Its plan must be the one every_start gives (trying
    -- every start, each proved), layer for layer, and agree with the enumeration.
    local r = agree.rng(20261207)
    local feasible, infeasible, fewer = 0, 0, 0
    for n = 1, 200 do
      local p = problem(r)
      p.stages, p.chunks = r(2, 4), 2
      local S = p.stages
      p.tail_stage = p.tail and r(0, 1) == 1 and r(1, S) or nil
      for s = 1, S do
        p.inflight[s] = { r(0, 1) == 0 and 2 * S - s + 1 or r(0, 4), r(0, 1) == 0 and S - s + 1 or r(0, 4) }
      end
      local least_cells = 2 * S - (p.head and 1 or 0) - (p.tail and 1 or 0)
      local N = r(math.max(1, least_cells - 1), math.max(least_cells, 12))
      local first, seq = r(0, S - 1), {}
      for i = 1, N do seq[i] = i <= first and 1 or 2 end
      maybe_third_kind(r, p, seq, N)
      p.sequence = seq
      p.limit = r(5, 30 + 10 * N)
      local want = enumerate(p)
      local got = core.balance(p)
      local where = ("problem %d: S=%d N=%d limit=%s"):format(n, S, N, p.limit)
      p.every_start = true
      local every = core.balance(p)
      if agree.agrees(want, got, where, { evaluate = function(plan) return evaluate(p, plan) end }) then
        feasible = feasible + 1
        assert.equal(every.objective, got.objective, where)
        assert.same(every.runs, got.runs, where)
        assert.same(every.kind_cells, got.kind_cells, where)
        if got.moves < every.moves then fewer = fewer + 1 end
      else
        infeasible = infeasible + 1
        assert.is_false(every.feasible, where)
        assert.equal(every.bad_stage, got.bad_stage, where)
        assert.equal(every.capacity, got.capacity, where)
      end
    end
    assert.is_true(feasible >= 100, "feasible " .. feasible)
    assert.is_true(infeasible >= 30, "infeasible " .. infeasible)
    assert.is_true(fewer >= 50, "feasible problems with fewer moves than every start's: " .. fewer)
  end)

  it("agrees with exhaustive enumeration at I = 3 and 4 on 200 random problems (S 2-3, <= 12 layers)", function()
    -- Half the bodies open with a run of a first kind (DeepSeek-V3's dense
    -- layers) that chunk 1's cells must hold however the body is split, then
    -- one kind to the end, some closing with an MTP-like kind (pinned last or
    -- not) or opening with a kind pinned first: the solver then runs one
    -- program over (chunk 1's reach, the layers the later chunks took), each
    -- stage's later-chunk layers priced on the cell keeping the fewest
    -- micro-batches (balance_kinds_alike.c), and says so by exploring one
    -- chunk start. The other half mix the kinds: every chunk start is tried.
    local r = agree.rng(20261211)
    local feasible, infeasible, one_program, starts = 0, 0, 0, 0
    for n = 1, 200 do
      local p = problem(r)
      p.stages, p.chunks = r(2, 3), r(3, 4)
      if p.stages == 3 and p.chunks == 4 then p.head, p.tail = p.head or { stat = 1, act = 0, time = 1, fwd = 0 }, nil end
      p.tail_stage = p.tail and r(0, 1) == 1 and r(1, p.stages) or nil
      local S, I = p.stages, p.chunks
      for s = 1, S do
        p.inflight[s] = {}
        for v = 1, I do p.inflight[s][v] = r(0, 1) == 0 and S * (I - v) + (S - s) + 1 or r(0, 4) end
      end
      local least_cells = S * I - (p.head and 1 or 0) - (p.tail and 1 or 0)
      local N = r(math.max(1, least_cells - 1), math.max(least_cells, 12))
      local seq = {}
      if n % 2 == 1 then -- a first kind's run, then one kind; a closing MTP-like layer or a pinned-first one
        local first = r(0, S)
        for i = 1, N do seq[i] = i <= first and 1 or 2 end
        maybe_third_kind(r, p, seq, N)
      else
        for i = 1, N do seq[i] = r(1, #p.kinds) end
      end
      p.sequence = seq
      p.limit = r(5, 30 + 10 * N)
      local want = enumerate(p)
      local got = core.balance(p)
      local where = ("problem %d: S=%d I=%d N=%d limit=%s"):format(n, S, I, N, p.limit)
      if agree.agrees(want, got, where, { evaluate = function(plan) return evaluate(p, plan) end }) then
        feasible = feasible + 1
        if got.explored == 1 and n % 2 == 1 then one_program = one_program + 1 end
        if got.explored > 1 then starts = starts + 1 end
        assert.is_true((core.balance_evaluate(p, got.kind_cells)), where .. ": the C rules refuse the plan")
      else
        infeasible = infeasible + 1
      end
    end
    assert.is_true(feasible >= 120, "feasible " .. feasible)
    assert.is_true(infeasible >= 40, "infeasible " .. infeasible)
    assert.is_true(one_program >= 50, "feasible bodies solved in one program: " .. one_program)
    assert.is_true(starts >= 50, "feasible bodies solved over their chunk starts: " .. starts)
  end)

  it("solves a DeepSeek-V3-like body at I = 3 and 4 in one program (a case by hand)", function()
    -- 3 dense layers D (1 s) then 58 MoE layers M (2 s), 8 stages, each
    -- layer 1 byte, no activations, 9 bytes a device, step = sum + max.
    -- The sum is 3 + 116 = 119 whatever the split. max T >= 16: at 15, as
    -- 8 x 15 = 120 >= 119 only with seven stages at 15, and an odd time
    -- d + 2m needs an odd count d of dense layers on each of those seven,
    -- 7 > 3. And 16 fits: stage 1 holds D D D and 6 M (15 s, 9 bytes),
    -- the other seven 8 M each (16 s; 52 = 8 + 8 + 8 + 7 + 7 + 7 + 7). So 135.
    -- Tried over every chunk start as at I <= 2, the program ran ~1800
    -- (I = 3) and ~37000 (I = 4) times and took seconds to a minute on
    -- the search's DeepSeek-V3 problems; here it runs once.
    local d = { stat = 1, fwd = 0, act = { off = 0 }, time = { off = 1 } }
    local m = { stat = 1, fwd = 0, act = { off = 0 }, time = { off = 2 } }
    for I = 3, 4 do
      local seq, inflight = {}, {}
      for i = 1, 61 do seq[i] = i <= 3 and 1 or 2 end
      for s = 1, 8 do
        inflight[s] = {}
        for v = 1, I do inflight[s][v] = 8 * (I - v) + 9 - s end
      end
      local got = core.balance { stages = 8, chunks = I, micro = 32, limit = 9, kinds = { d, m }, sequence = seq,
                                 inflight = inflight, coef_sum = 1, coef_max = 1 }
      assert.is_true(got.feasible and got.optimal)
      assert.equal(135, got.objective)
      assert.equal(16, math.max(table.unpack(got.stage_time)))
      assert.equal(1, got.explored)
      assert.is_true(got.moves < 100000, "moves priced: " .. tostring(got.moves))
    end
  end)

  it("keeps DualPipeV's V-shaped order: 120 random problems against the enumeration (S <= 4, I = 2, <= 12 layers)", function()
    -- order "v": chunk 1 runs the stages upward, chunk 2 then runs them
    -- downward, so stage 1 holds the body's first run and its last, and the
    -- last stage the two runs that meet in the middle; the enumeration walks
    -- the cells in that order (model_cells), the solver meets in the middle.
    local r = agree.rng(20261209)
    local feasible, infeasible = 0, 0
    for n = 1, 120 do
      local p = problem(r)
      p.chunks, p.order = 2, "v"
      for s = 1, p.stages do
        p.inflight[s] = { r(0, 1) == 0 and 2 * (p.stages - s) + 1 or r(0, 4), r(0, 1) == 0 and 2 * s or r(0, 4) }
      end
      if p.tail then p.tail_stage = ({ nil, 1, p.stages })[r(1, 3)] end -- DualPipeV's tail: stage 1 (the default)
      local least_cells = 2 * p.stages - (p.head and 1 or 0) - (p.tail and 1 or 0)
      local N = r(math.max(1, least_cells - 1), math.min(12, least_cells + 6))
      local seq = {}
      for i = 1, N do seq[i] = p.sequence[(i - 1) % #p.sequence + 1] end
      p.sequence = seq
      local want = enumerate(p)
      local got = core.balance(p)
      local where = ("problem %d: S=%d N=%d limit=%s"):format(n, p.stages, N, p.limit)
      if agree.agrees(want, got, where, { evaluate = function(plan) return evaluate(p, plan) end }) then
        feasible = feasible + 1
        local c_ok, c_step = core.balance_evaluate(p, got.kind_cells)
        assert.is_true(c_ok, where .. ": the C rules refuse the plan")
        agree.near(want, c_step, where)
      else
        infeasible = infeasible + 1
      end
    end
    assert.is_true(feasible >= 50, "feasible " .. feasible)
    assert.is_true(infeasible >= 10, "infeasible " .. infeasible)
  end)

  it("keeps DualPipeV's V-shaped order (a case by hand)", function()
    -- Two stages, two chunks, order "v": the model order of the cells is
    -- (stage 1, chunk 1), (stage 2, chunk 1), (stage 2, chunk 2), (stage 1, chunk 2).
    -- Body D M M D (dense D: stat 1, off act 4 time 3; MoE M: stat 3, off act 2
    -- time 5; off only), one micro-batch kept everywhere, limit 10, step = max T.
    -- Each cell holds one layer, in model order D, M, M, D: stage 1 holds the
    -- first D and the last D (memory 5 + 5 = 10, time 6), stage 2 the two M
    -- (memory 5 + 5 = 10, time 10): step 10. In the up order stage 1 would hold
    -- D and M (cells 1 and 3) and stage 2 M and D: time 8 each, step 8.
    local d = { stat = 1, fwd = 1, act = { off = 4 }, time = { off = 3 } }
    local m = { stat = 3, fwd = 2, act = { off = 2 }, time = { off = 5 } }
    local p = {
      stages = 2, chunks = 2, micro = 2, limit = 10, coef_sum = 0, coef_max = 1, order = "v",
      inflight = { { 1, 1 }, { 1, 1 } }, kinds = { d, m }, sequence = { 1, 2, 2, 1 },
    }
    local got = core.balance(p)
    assert.is_true(got.feasible and got.optimal)
    assert.equal(10, got.objective)
    assert.same({ 6, 10 }, got.stage_time)
    assert.same({ first = 1, count = 1 }, got.runs[1][1])
    assert.same({ first = 2, count = 1 }, got.runs[2][1])
    assert.same({ first = 3, count = 1 }, got.runs[2][2])
    assert.same({ first = 4, count = 1 }, got.runs[1][2])
    p.order = nil
    assert.equal(8, core.balance(p).objective)
    p.order = "w"
    assert.equal('balance: order must be "up" (each chunk over the stages upward) or "v" (DualPipeV: chunk 2 over them downward)',
      refusal(function() core.balance(p) end))
    p.order, p.chunks = "v", 1
    p.inflight = { { 1 }, { 1 } }
    assert.equal('balance: order "v" (DualPipeV) takes two chunks and the step objective',
      refusal(function() core.balance(p) end))
  end)

  it("keeps kinds pinned to the ends (vision first, MTP last): 120 random problems against the enumeration", function()
    -- A kind with pin = "first" (a vision tower before the embedding) keeps
    -- all its layers in the first cell of the model order, one with pin =
    -- "last" (MTP after the last body layer) in the last cell: chunk I's
    -- last stage, or stage 1 in DualPipeV's V order. The enumeration leaves
    -- out every split that breaks that (pins_kept).
    local r = agree.rng(20261210)
    local feasible, infeasible, orders = 0, 0, {}
    for n = 1, 120 do
      local p = problem(r)
      if n % 3 == 0 then -- the V order
        p.chunks, p.order = 2, "v"
        for s = 1, p.stages do p.inflight[s] = { r(0, 4), r(0, 4) } end
      end
      local vision, mtp = random_kind(r), random_kind(r)
      vision.pin, mtp.pin = "first", "last"
      p.kinds[#p.kinds + 1] = vision
      p.kinds[#p.kinds + 1] = mtp
      local before, after, seq = r(0, 3), r(0, 2), {}
      if before + after == 0 then before = 1 end
      for _ = 1, before do seq[#seq + 1] = #p.kinds - 1 end
      for i = 1, r(1, 9 - before - after) do seq[#seq + 1] = p.sequence[(i - 1) % #p.sequence + 1] end
      for _ = 1, after do seq[#seq + 1] = #p.kinds end
      p.sequence = seq
      local want = enumerate(p)
      local got = core.balance(p)
      local where = ("problem %d: S=%d I=%d N=%d %s limit=%s"):format(n, p.stages, p.chunks, #seq, p.order or "up", p.limit)
      if agree.agrees(want, got, where, { evaluate = function(plan) return evaluate(p, plan) end }) then
        feasible = feasible + 1
        orders[p.order or "up"] = true
        assert.is_true((core.balance_evaluate(p, got.kind_cells)), where .. ": the C rules refuse the plan")
      else
        infeasible = infeasible + 1
      end
    end
    assert.is_true(feasible >= 40, "feasible " .. feasible)
    assert.is_true(infeasible >= 10, "infeasible " .. infeasible)
    assert.is_true(orders.up and orders.v, "both orders have a feasible case")
  end)

  it("keeps kinds pinned to the ends (a case by hand)", function()
    -- Vision V (time 1), dense D (time 2), MTP T (time 3), each stat 1 and
    -- off act 1; 3 stages, one chunk, one micro-batch kept, a limit that never
    -- binds, step = max T. Sequence V V D D T with V pinned first and T last:
    -- stage 1 holds both V, stage 3 the T; V V D | D | T (4, 2, 3) and
    -- V V | D D | T (2, 4, 3) both give 4, and nothing less does (9 s of work
    -- over 3 stages with V V together and T alone).
    local v = { stat = 1, act = { off = 1 }, time = { off = 1 }, pin = "first" }
    local d = { stat = 1, act = { off = 1 }, time = { off = 2 } }
    local t = { stat = 1, act = { off = 1 }, time = { off = 3 }, pin = "last" }
    local p = {
      stages = 3, micro = 1, limit = 100, coef_sum = 0, coef_max = 1, inflight = { { 1 }, { 1 }, { 1 } },
      kinds = { v, d, t }, sequence = { 1, 1, 2, 2, 3 },
    }
    local got = core.balance(p)
    assert.equal(4, got.objective)
    assert.is_true(got.runs[1][1].count >= 2)
    assert.same({ first = 5, count = 1 }, got.runs[3][1])
    t.pin = nil
    p.sequence = { 1, 1, 2, 2, 3, 3 } -- two trailing layers, no longer pinned: V V D | D T | T
    assert.equal(5, core.balance(p).objective)
    t.pin = "last" -- pinned, both T in the last cell: V V D | D | T T is 4, 2, 6; V V | D D | T T 2, 4, 6: 6
    assert.equal(6, core.balance(p).objective)
    p.sequence = { 1, 2, 1, 2, 3, 3 } -- a vision layer after a dense one
    assert.equal("balance: the layers of a kind pinned first must open the sequence, and those pinned last close it",
      refusal(function() core.balance(p) end))
    d.pin = "middle"
    assert.equal('balance: kinds[2].pin must be "first" (the first cell: a vision tower) or "last" (the last cell: MTP)',
      refusal(function() core.balance(p) end))
  end)

  -- By hand: dense D (stat 1; off: act 4, time 3; full: act 1, time 4) then
  -- MoE M (stat 3; off: act 2, time 5; full: act 1, time 6); D D M M M M on
  -- 2 stages keeping 2 and 1 micro-batches, limit 20, step = max T.
  -- Memory per layer: stage 1 D 9 / 3, M 7 / 5 (off / full); stage 2 D 5 / 2, M 5 / 4.
  -- Stage 1 holds the first k layers:
  --   k = 1: stage 2 (D M M M M) needs 25 off, must save 5: D full + 2 M full, T2 = 23 + 3 = 26
  --   k = 2: D D off 18, T1 = 6; M M M M off 20, T2 = 20: max 20
  --   k = 3: D D M off 25, one D full 19, T1 = 11 + 1 = 12; M M M 15, T2 = 15: max 15
  --   k = 4: D D M M off 32, both D full 20, T1 = 16 + 2 = 18; T2 = 10: max 18
  --   k = 5: off 39, saving at most 6 + 6 + 2 + 2 + 2 = 18 < 19: no fit.
  -- The best is k = 3, step 15.
  local dense = { stat = 1, fwd = 1, act = { off = 4, full = 1 }, time = { off = 3, full = 4 } }
  local moe = { stat = 3, fwd = 2, act = { off = 2, full = 1 }, time = { off = 5, full = 6 } }
  local hand = {
    stages = 2, micro = 4, limit = 20, coef_sum = 0, coef_max = 1, inflight = { { 2 }, { 1 } },
    kinds = { dense, moe }, sequence = { 1, 1, 2, 2, 2, 2 },
  }

  it("keeps the layers in model order (a case by hand)", function()
    local got = core.balance(hand)
    assert.is_true(got.feasible and got.optimal)
    assert.equal(15, got.objective)
    assert.same({ first = 1, count = 3 }, got.runs[1][1])
    assert.same({ first = 4, count = 3 }, got.runs[2][1])
    assert.same({ off = 1, full = 1 }, got.kind_cells[1][1][1])
    assert.same({ off = 1, full = 0 }, got.kind_cells[1][1][2])
    assert.same({ off = 0, full = 0 }, got.kind_cells[2][1][1])
    assert.same({ off = 3, full = 0 }, got.kind_cells[2][1][2])
    assert.same({ off = 2, full = 1 }, got.cells[1][1])
    assert.same({ 12, 15 }, got.stage_time)
    assert.same({ 19, 15 }, got.stage_mem)
    -- split by hand: D forward 1, backward 3 - 1 = 2, full adds 4 - 3 = 1; M forward 2, backward 3, full adds 1;
    -- stage 1 (D off, D full, M off): 4, 7, 1 (= 12); stage 2 (M M M off): 6, 9, 0 (= 15)
    assert.same({ { forward = 4, backward = 7, recompute = 1, offload = 0 }, { forward = 6, backward = 9, recompute = 0, offload = 0 } },
      require("nd.balance").stage_seconds(hand, got))
    -- the same plan, checked by the C rules: it fits and its step is 15
    local ok, step = core.balance_evaluate(hand, got.kind_cells)
    assert.is_true(ok)
    assert.equal(15, step)
    -- the reference's form: 6 layers over 2 stages is 3 each, so no offset; counts over kinds
    local offset, counts = require("nd.balance").reference_form(hand, got)
    assert.same({ { 0, 0 } }, offset)
    assert.same({ off = { { 2 }, { 3 } }, full = { { 1 }, { 0 } } }, counts)
    -- a plan whose first stage claims a MoE layer where the sequence has a dense one breaks the order
    local wrong = { { { { off = 2 }, { off = 1 } } }, { { {}, { off = 3 } } } }
    wrong[1][1][1] = { off = 1 }
    wrong[1][1][2] = { off = 2 }
    assert.is_false((core.balance_evaluate(hand, wrong)))
  end)

  it("solves a body of one kind as the uniform problem", function()
    -- the uniform solver's hand case (balance_spec: step 65) given as kinds
    local layer = { stat = 10, act = { off = 9, full = 2 }, time = { off = 3, full = 4 } }
    local p = {
      stages = 2, micro = 4, limit = 74, coef_sum = 1, coef_max = 3, inflight = { { 4 }, { 3 } },
      head = { stat = 70, act = 1, time = 1, fwd = 0 }, kinds = { layer }, sequence = { 1, 1, 1, 1 },
    }
    local got = core.balance(p)
    assert.equal(65, got.objective)
    assert.same({ off = 0, full = 4 }, got.kind_cells[2][1][1])
    assert.same({ first = 1, count = 0 }, got.runs[1][1])
    assert.same({ first = 1, count = 4 }, got.runs[2][1])
  end)

  it("names a stage that cannot hold its lightest layer", function()
    -- stage 1 keeps 2 micro-batches; its lightest layer is D full: 1 + 1*2 = 3 > 2
    local p = {}
    for k, v in pairs(hand) do p[k] = v end
    p.limit = 2
    local got = core.balance(p)
    assert.is_false(got.feasible)
    assert.equal(1, got.bad_stage)
    assert.equal(3, got.bad_need)
  end)

  it("refuses kinds with the sapp objective, and a sequence naming no kind", function()
    local p = {}
    for k, v in pairs(hand) do p[k] = v end
    p.objective = "sapp"
    assert.equal("balance: the sapp objective takes one kind of body layer (layer), not kinds",
      refusal(function() core.balance(p) end))
    p.objective = nil
    p.sequence = { 1, 3 }
    assert.equal("balance: sequence[2] must be a kind number from 1 to 2", refusal(function() core.balance(p) end))
    p.sequence = { 1, 2 }
    p.layer = dense
    assert.equal("balance: give layer or kinds, not both", refusal(function() core.balance(p) end))
  end)
end)
