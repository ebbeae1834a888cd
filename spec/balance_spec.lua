-- balance_spec.lua: the pipeline balancer (nd.core.balance, src/search/balance.c)
-- against an exhaustive enumeration written here, independently of the C
-- program: every way of placing the body layers in the (chunk, stage) cells
-- and of choosing each layer's recompute option is tried, each stage's memory
-- and time summed from the layer costs, and the least step kept. The C solver
-- never enumerates plans (it bounds the slowest stage and runs a dynamic
-- program), so agreement on 200+ random problems is a real check.

local core = require("nd.core")
local agree = dofile("spec/support/balance_agree.lua")

local OPTIONS = agree.OPTIONS

-- The exhaustive answer: least step, or nil when no plan fits.
local function enumerate(p)
  local S, I, N = p.stages, p.chunks, p.body
  local offered = {}
  for _, name in ipairs(OPTIONS) do
    if p.layer.act[name] then offered[#offered + 1] = name end
  end
  local cells = {} -- in order: chunk-major, as the pipeline runs them
  for v = 1, I do
    for s = 1, S do
      local pinned = {}
      if p.head and v == 1 and s == 1 then pinned[#pinned + 1] = p.head end
      if p.tail and v == I and s == (p.tail_stage or S) then pinned[#pinned + 1] = p.tail end
      cells[#cells + 1] = { v = v, s = s, pinned = pinned, n = p.inflight[s][v] }
    end
  end
  local mem, time = {}, {}
  for s = 1, S do mem[s], time[s] = 0, 0 end
  for _, c in ipairs(cells) do
    for _, pin in ipairs(c.pinned) do
      mem[c.s] = mem[c.s] + pin.stat + pin.act * c.n
      time[c.s] = time[c.s] + pin.time
    end
  end
  local best
  -- Places the layers of cell ci onward; left layers remain.
  local function place(ci, left)
    if ci > #cells then
      if left ~= 0 then return end
      local sum, most = 0, 0
      for s = 1, S do
        if mem[s] > p.limit then return end
        sum = sum + time[s]
        if time[s] > most then most = time[s] end
      end
      local step = p.coef_sum * sum + p.coef_max * most
      if best == nil or step < best then best = step end
      return
    end
    local c = cells[ci]
    local least = #c.pinned > 0 and 0 or 1
    for k = least, left do
      -- every multiset of k options: counts x[1..#offered] summing to k
      local function opts(j, rest, m, t)
        if j == #offered then
          local name = offered[j]
          local dm = m + rest * (p.layer.stat + p.layer.act[name] * c.n)
          local dt = t + rest * p.layer.time[name]
          mem[c.s], time[c.s] = mem[c.s] + dm, time[c.s] + dt
          place(ci + 1, left - k)
          mem[c.s], time[c.s] = mem[c.s] - dm, time[c.s] - dt
          return
        end
        local name = offered[j]
        for x = 0, rest do
          opts(j + 1, rest - x, m + x * (p.layer.stat + p.layer.act[name] * c.n), t + x * p.layer.time[name])
        end
      end
      opts(1, k, 0, 0)
    end
  end
  place(1, N)
  return best
end

-- The memory and time of the solver's plan, summed here from its cells.
local function evaluate(p, plan)
  local ok, sum, most, total = true, 0, 0, 0
  for s = 1, p.stages do
    local m, t = 0, 0
    for v = 1, p.chunks do
      local n, held = p.inflight[s][v], 0
      if p.head and v == 1 and s == 1 then
        m, t, held = m + p.head.stat + p.head.act * n, t + p.head.time, held + 1
      end
      if p.tail and v == p.chunks and s == (p.tail_stage or p.stages) then
        m, t, held = m + p.tail.stat + p.tail.act * n, t + p.tail.time, held + 1
      end
      for name, x in pairs(plan.cells[s][v]) do
        m = m + x * (p.layer.stat + p.layer.act[name] * n)
        t = t + x * p.layer.time[name]
        held, total = held + x, total + x
      end
      if held < 1 then ok = false end
    end
    if m > p.limit then ok = false end
    sum = sum + t
    if t > most then most = t end
  end
  if total ~= p.body then ok = false end
  return ok, p.coef_sum * sum + p.coef_max * most
end

-- A random problem: 1-4 stages, 1-2 chunks (3 with one or two stages), up to
-- 12 body layers, a random non-empty set of options with integer costs (so
-- every sum is exact), in-flight counts of 1F1B or random ones, and a limit
-- drawn between tight and loose, so some problems have no plan.
local function problem(r)
  local S = r(1, 4)
  local I = S <= 2 and r(1, 3) or r(1, 2)
  local layer = { stat = r(0, 6), act = {}, time = {} }
  local base = r(2, 9)
  for i, name in ipairs(OPTIONS) do
    if r(0, 2) > 0 or (i == 5 and next(layer.act) == nil) then
      layer.act[name] = r(0, 12)
      layer.time[name] = base + r(0, 6)
    end
  end
  local inflight = {}
  for s = 1, S do
    inflight[s] = {}
    for v = 1, I do
      inflight[s][v] = r(0, 1) == 0 and (S - s + 1) or r(0, 5)
    end
  end
  local p = {
    stages = S, chunks = I, micro = r(1, 8), inflight = inflight, layer = layer,
    coef_sum = r(0, 3), coef_max = r(0, 7),
  }
  if r(0, 1) == 1 then p.head = { stat = r(0, 9), act = r(0, 4), time = r(0, 8), fwd = 0 } end
  if r(0, 1) == 1 then p.tail = { stat = r(0, 9), act = r(0, 4), time = r(0, 8), fwd = 0 } end
  if p.tail and r(0, 3) == 0 then p.tail_stage = 1 end -- DualPipeV's tail sits on stage 1
  local least_cells = S * I - (p.head and 1 or 0) - (p.tail and 1 or 0)
  p.body = r(math.max(0, least_cells - 1), 12)
  p.limit = r(5, 40 + 12 * p.body)
  return p
end

describe("balance: the exact balancer against exhaustive enumeration", function()
  it("agrees on 240 random problems (S <= 4, <= 12 body layers, every option)", function()
    local r = agree.rng(20261207)
    local done, feasible, infeasible, seen = 0, 0, 0, {}
    while done < 240 do
      local p = problem(r)
      if agree.space(p) <= 40000 then
        done = done + 1
        local want = enumerate(p)
        local got = core.balance(p)
        local where = ("problem %d: S=%d I=%d N=%d limit=%s"):format(done, p.stages, p.chunks, p.body, p.limit)
        if agree.agrees(want, got, where, { names_why = true, evaluate = function(plan) return evaluate(p, plan) end }) then
          feasible = feasible + 1
          agree.mark_chosen(seen, got.cells, p.stages, p.chunks)
        else
          infeasible = infeasible + 1
        end
      end
    end
    -- both answers occur, and every option is chosen somewhere
    assert.is_true(feasible >= 100, "feasible " .. feasible)
    assert.is_true(infeasible >= 20, "infeasible " .. infeasible)
    for _, name in ipairs(OPTIONS) do assert.is_true(seen[name], name .. " never chosen") end
  end)

  it("names the stage that cannot fit, with its least memory", function()
    -- By hand: stage 1 keeps 4 micro-batches and holds the head (stat 70, act
    -- 1), which alone needs 70 + 1*4 = 74 > 70 (the head's cell needs no body
    -- layer, so that is the least stage 1 can need).
    local p = {
      stages = 2, micro = 4, body = 4, limit = 70, coef_sum = 1, coef_max = 3,
      inflight = { { 4 }, { 3 } },
      head = { stat = 70, act = 1, time = 1, fwd = 0 },
      layer = { stat = 10, act = { off = 9, full = 2 }, time = { off = 3, full = 4 } },
    }
    local got = core.balance(p)
    assert.is_false(got.feasible)
    assert.is_true(got.optimal)
    assert.equal(1, got.bad_stage)
    assert.equal(74, got.bad_need)
    -- At 74 stage 1 holds the head alone (one more layer needs 74 + 10 + 2*4);
    -- stage 2 (3 kept) the four layers: all full 40 + 2*4*3 = 64 fits, one off
    -- 40 + (9 + 2*3)*3 = 85 does not; times 1 and 16: step 1*(1+16) + 3*16 = 65.
    p.limit = 74
    got = core.balance(p)
    assert.is_true(got.feasible and got.optimal)
    assert.equal(65, got.objective)
    assert.same({ off = 0, full = 0 }, got.cells[1][1])
    assert.same({ off = 0, full = 4 }, got.cells[2][1])
    assert.same({ 74, 64 }, got.stage_mem)
  end)

  it("says so when the stages together cannot hold the body", function()
    -- By hand: each stage (1 micro-batch kept) holds at most 3 layers of
    -- stat 10 + act 1 under 35 MB: 2 stages hold 6 < 7.
    local got = core.balance {
      stages = 2, micro = 2, body = 7, limit = 35, inflight = { { 1 }, { 1 } },
      layer = { stat = 10, act = { full = 1 }, time = { full = 1 } },
    }
    assert.is_false(got.feasible)
    assert.equal(6, got.capacity)
  end)

  it("counts both pinned layers where one cell holds the head and the tail", function()
    -- By hand: one stage, one chunk: head (stat 10, 5 s) and tail (stat 20,
    -- 7 s) both sit in the only cell with 2 body layers (stat 1 + act 1 x 1
    -- kept, 1 s each): memory 10 + 20 + 2 x 2 = 34, step 1 x (5 + 7 + 2) = 14.
    -- (Leaving the tail out there would give 14 MB and 7.)
    local got = core.balance {
      stages = 1, micro = 1, body = 2, limit = 100, inflight = { { 1 } }, coef_sum = 1, coef_max = 0,
      layer = { stat = 1, act = { off = 1 }, time = { off = 1 } },
      head = { stat = 10, act = 0, time = 5, fwd = 0 }, tail = { stat = 20, act = 0, time = 7, fwd = 0 },
    }
    assert.equal(14, got.objective)
    assert.same({ 34 }, got.stage_mem)
  end)

  it("prices the step as timing.c does (balance_coeffs)", function()
    -- The formulas of src/core/timing.c pipeline_step, by hand at p = 4, m = 8:
    -- 1F1B sum + 7 max; interleaved v = 2: sum/2 + (4*1/2 + (16-4-1)/2) max;
    -- DualPipeV 8 max + 3/2 max; one stage m * sum.
    local a, b = core.balance_coeffs { pp = 4, micro = 8 }
    assert.same({ 1, 7 }, { a, b })
    a, b = core.balance_coeffs { pp = 4, vpp = 2, micro = 8 }
    assert.same({ 0.5, 7.5 }, { a, b })
    a, b = core.balance_coeffs { pp = 4, micro = 8, schedule = "dualpipev" }
    assert.same({ 0, 9.5 }, { a, b })
    a, b = core.balance_coeffs { pp = 1, micro = 8 }
    assert.same({ 8, 0 }, { a, b })
  end)
end)
