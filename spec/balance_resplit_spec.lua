-- balance_resplit_spec.lua: a balanced plan's stage totals dealt evenly over
-- each stage's chunks, the fewest layers recomputed that fit (lua/nd/balance_resplit.lua),
-- and `ndlua balance.lua` keeping it where the count model's plan stalls the
-- interleaved order.
--
-- Where the expected numbers come from: by hand, from the problems' numbers
-- (the count model's memory rule: a cell's layers each take stat + act x its
-- micro-batches in flight; its step: coef_sum x the stages' sum + coef_max x
-- their most), derived in each case's comment; the Llama example's steps are
-- the estimate's (nd.core.stage_seconds) of the two layouts, compared.
package.path = "spec/?.lua;" .. package.path
local nd = require "nd"
local core = require "nd.core"
local resplit = require "nd.balance_resplit"
local balance_run = require "nd.balance_run"

-- 2 stages x 2 chunks, 8 layers; chunk 0 holds more micro-batches in flight
-- (5 and 4) than chunk 1 (3 and 2). A layer: 10 static bytes, 5 a
-- micro-batch kept plain, 1 recomputed (full); 1 s plain, 1.5 s recomputed.
local function problem(limit)
  return { stages = 2, chunks = 2, micro = 4, body = 8, limit = limit, inflight = { { 5, 3 }, { 4, 2 } },
           coef_sum = 1, coef_max = 3, run = { modes = { "off", "full" } },
           layer = { stat = 10, fwd = 1, act = { off = 5, full = 1 }, time = { off = 1, full = 1.5 } } }
end

-- the count model's kind of plan: chunk 0 of one layer, the rest on chunk 1
local lopsided = { feasible = true, optimal = true, cells = {
  { { off = 1, full = 0 }, { off = 2, full = 1 } }, { { off = 1, full = 0 }, { off = 3, full = 0 } } } }

describe("nd.balance_resplit.plans", function()
  it("deals each stage's layers evenly and recomputes the fewest that fit, on the chunk most in flight", function()
    -- 4 layers a stage, 2 a chunk. None recomputed: stage 0 holds
    -- 4 x 10 + 2 x 5 x 5 + 2 x 5 x 3 = 120 bytes, stage 1 40 + 40 + 20 = 100.
    -- At a limit of 100 stage 0 is 20 over; one layer recomputed on chunk 0
    -- frees (5 - 1) x 5 = 20 (on chunk 1 it would free 12): 100, fits.
    -- Seconds: stage 0 3 x 1 + 1.5 = 4.5, stage 1 4; step 8.5 + 3 x 4.5 = 22
    -- (the lopsided plan's too: the same layers a stage, the same options).
    local plans = resplit.plans(problem(100), lopsided, "full")
    assert.are.equal(1, #plans) -- 4 layers a stage: one way to deal them
    local q = plans[1]
    assert.are.same({ { { off = 1, full = 1 }, { off = 2, full = 0 } }, { { off = 2, full = 0 }, { off = 2, full = 0 } } },
      q.cells)
    assert.are.same({ 100, 100 }, q.stage_mem)
    assert.are.same({ 4.5, 4 }, q.stage_time)
    assert.are.equal(22, q.objective)
    assert.is_false(q.optimal)
    assert.is_true(q.dealt)
  end)

  it("deals an odd count both ways: the left over on the last chunk, then on the first", function()
    -- 5 layers on stage 0 (one more off on chunk 1), 3 on stage 1: 3 + 2 or
    -- 2 + 3, and 2 + 1 or 1 + 2. At a limit of 1000 nothing is recomputed.
    local plan = { feasible = true, cells = { { { off = 1, full = 0 }, { off = 4, full = 0 } },
                                               { { off = 1, full = 0 }, { off = 2, full = 0 } } } }
    local plans = resplit.plans(problem(1000), plan, "full")
    assert.are.equal(2, #plans)
    assert.are.same({ { { off = 2, full = 0 }, { off = 3, full = 0 } }, { { off = 1, full = 0 }, { off = 2, full = 0 } } },
      plans[1].cells)
    assert.are.same({ { { off = 3, full = 0 }, { off = 2, full = 0 } }, { { off = 2, full = 0 }, { off = 1, full = 0 } } },
      plans[2].cells)
  end)

  it("gives none where the plan is already even or a stage cannot fit even recomputed", function()
    local even = { feasible = true, cells = { { { off = 2, full = 0 }, { off = 2, full = 0 } },
                                              { { off = 2, full = 0 }, { off = 2, full = 0 } } } }
    assert.are.same({}, resplit.plans(problem(100), even, "full"))
    -- every layer of stage 0 recomputed: 40 + 2 x 1 x 5 + 2 x 1 x 3 = 56 bytes, past 50
    assert.are.same({}, resplit.plans(problem(50), lopsided, "full"))
  end)

  it("lays a kinds plan's cells out in model order, chunk by chunk over the stages", function()
    -- layers d d m m m m m m (two kinds priced alike, as the layer above);
    -- dealt 2 a cell: chunk 0 of stage 0 holds layers 1-2 (d d), of stage 1
    -- 3-4, chunk 1 of stage 0 5-6, of stage 1 7-8; stage 0 chunk 0 recomputes
    -- its first layer (a dense one), as in the first case
    local p = problem(100)
    p.kinds, p.sequence, p.layer = { p.layer, p.layer }, { 1, 1, 2, 2, 2, 2, 2, 2 }, nil
    local q = resplit.plans(p, lopsided, "full")[1]
    assert.are.same({ first = 1, count = 2 }, q.runs[1][1])
    assert.are.same({ first = 3, count = 2 }, q.runs[2][1])
    assert.are.same({ first = 5, count = 2 }, q.runs[1][2])
    assert.are.same({ first = 7, count = 2 }, q.runs[2][2])
    assert.are.same({ { off = 1, full = 1 }, { off = 0, full = 0 } }, q.kind_cells[1][1])
    assert.are.same({ { off = 0, full = 0 }, { off = 2, full = 0 } }, q.kind_cells[2][2])
    assert.are.same({ 100, 100 }, q.stage_mem)
  end)
end)

describe("nd.balance_run.solve on the Llama example at -i 2, 40 GiB", function()
  it("keeps the dealt plan where the count model's plan stalls, at a lesser step", function()
    local model, run = nd.load("examples/llama-3.1-70b-tp-pp-sp/train.yaml", { quiet = true })
    run = run:with { vpp = 2, device_memory = 40 * 2 ^ 30 }
    local hw = balance_run.hardware("A2", run)
    local r = assert(balance_run.solve(model, run, hw))
    assert.is_true(r.plan.dealt)
    assert.is_false(r.plan.optimal)
    -- the count model's own plan of the problem, laid out and priced by the
    -- estimate: the step and stall the dealt plan replaced
    local own = core.balance(r.problem)
    local _, _, own_step, _, own_stall = core.stage_seconds(model, run:with(balance_run.changes(r.problem, own,
      r.family)), hw)
    assert.are.same({ step = own_step, stall = own_stall }, r.plan.stalled_plan)
    assert.is_true(own_stall > 0)
    -- the dealt plan's layout priced the same way: less
    local _, _, step = core.stage_seconds(model, run:with(balance_run.changes(r.problem, r.plan, r.family)), hw)
    assert.are.equal(step, r.priced.step)
    assert.is_true(step < own_step)
    assert.is_true(nd.estimate(model, r.run).fits)
    for s = 1, 4 do -- each stage's chunks a layer apart at most
      local a, b = 0, 0
      for _, x in pairs(r.plan.cells[s][1]) do a = a + x end
      for _, x in pairs(r.plan.cells[s][2]) do b = b + x end
      assert.is_true(math.abs(a - b) <= 1)
    end
  end)
end)
