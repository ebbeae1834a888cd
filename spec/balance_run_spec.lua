-- balance_run_spec.lua: the pipeline balancer's problem from a priced run
-- (lua/nd/balance_run.lua) and `ndlua balance.lua train.yaml`.
--
-- Where the expected numbers come from:
-- * By hand, from Llama-3.1-70B's config (hidden 8192, FFN 28672, 64 heads of
--   128, 8 KV heads) and the example's run (tp 8 with sequence parallelism,
--   FSDP over 2, AdamW with fp32 main params, bf16, 8192 tokens, pp 4, 32
--   micro-batches, 1F1B):
--   - a layer's parameters: q and o 2 x 8192^2 = 134 217 728, k and v
--     2 x 8192 x 1024 = 16 777 216, the MLP 3 x 8192 x 28672 = 704 643 072,
--     two norms 16 384: P = 855 654 400. A rank holds P/8 of them; params and
--     grads 2 B each sharded over 2 (P/8 B each), Adam's two fp32 states and
--     the fp32 main copy 12 B over 2 x 8 (3P/4 B): static P bytes a layer,
--     855 654 400 B.
--   - under full recompute a layer keeps its input, s x h x 2 B split by SP
--     over 8: 8192 x 8192 x 2 / 8 = 16 777 216 B a micro-batch.
--   - 1F1B: stage s (from 0) holds S - s = 4, 3, 2, 1 micro-batches; the step
--     is sum X + (m - 1) max X: coefficients 1 and 31.
--   - the even split of 80 layers over 4 stages: 20 a stage.
-- * The per-stage totals and the step of the even split at each uniform mode
--   are the estimate's (nd.estimate, nd.step_time): the check is that the
--   balancer's problem, evaluated at the even split, gives them back.
package.path = "spec/?.lua;" .. package.path
local nd = require "nd"
local core = require "nd.core"
local balance_run = require "nd.balance_run"

local LLAMA = "examples/llama-3.1-70b-tp-pp-sp/train.yaml"
local NDLUA = os.getenv("NDLUA") or "./ndlua"
local GIB = 2 ^ 30

local function load(memory_gib)
  local model, run = nd.load(LLAMA, { quiet = true })
  if memory_gib then run = run:with { device_memory = memory_gib * GIB } end
  return model, run, balance_run.hardware("A2", run)
end

-- The problem q, evaluated at the even split with every layer `mode`, gives
-- back the estimate's per-stage totals (within 64 B of rounding) and the time
-- model's step (within 1e-9 relative) of `run` at that mode on `hardware`.
local function gives_back(model, run, hardware, q, mode)
  local r = run:with { offset = nd.null, recompute = mode }
  local e = nd.estimate(model, r)
  local t = nd.step_time(model, r, hardware)
  local ev = balance_run.evaluate(q, balance_run.even_cells(q, mode), mode)
  assert.are.equal(#e.stages, #ev.totals)
  for s = 1, #e.stages do
    assert.is_true(math.abs(ev.totals[s] - e.stages[s].total) <= 64,
      ("stage %d: %.0f vs the estimate's %d"):format(s - 1, ev.totals[s], e.stages[s].total))
  end
  assert.is_true(math.abs(ev.step - t.step_time_s) <= 1e-9 * t.step_time_s,
    ("step %.12g vs %.12g"):format(ev.step, t.step_time_s))
end

describe("nd.balance_run.problem of the Llama-3.1-70B example", function()
  local model, run, hw = load()
  local p = balance_run.problem(model, run, hw)

  it("prices a layer as the memory formulas give it by hand", function()
    assert.are.equal(855654400, p.layer.stat)
    assert.are.equal(16777216, p.layer.act.full)
    -- selective keeps less than off and more than full
    assert.is_true(p.layer.act.off > p.layer.act.selective and p.layer.act.selective > p.layer.act.full)
    -- recomputing costs time: full > selective > off
    assert.is_true(p.layer.time.full > p.layer.time.selective and p.layer.time.selective > p.layer.time.off)
  end)

  it("takes the schedule's in-flight micro-batches and step coefficients", function()
    assert.are.same({ { 4 }, { 3 }, { 2 }, { 1 } }, p.inflight)
    assert.are.equal(1, p.coef_sum)
    assert.are.equal(31, p.coef_max)
    assert.are.equal(80, p.body)
    assert.are.same({ { 20 }, { 20 }, { 20 }, { 20 } }, p.run.counts)
    assert.are.equal(4, p.tail_stage)
  end)

  for _, mode in ipairs(balance_run.MODES) do
    it("evaluated at the even split with every layer " .. mode .. ", gives the estimate's stages and step", function()
      gives_back(model, run, "A2", balance_run.problem(model, run, hw, { modes = { mode } }), mode)
    end)
  end

  it("cross-checks a middle stage under full recompute by hand", function()
    -- stage 1: 20 layers of P static bytes and 20 x 16 777 216 B kept for 3
    -- micro-batches; the rest (buffers, backward overhead, reserve) is what
    -- the estimate states beside them
    local e = nd.estimate(model, run:with { offset = nd.null, recompute = "full" })
    local st = e.stages[2]
    assert.are.equal(20 * 855654400, st.params + st.grads + st.optimizer + st.main_params)
    assert.are.equal(20 * 16777216 * 3, st.activations)
    local q = balance_run.problem(model, run, hw, { modes = { "full" } })
    local ev = balance_run.evaluate(q, balance_run.even_cells(q, "full"), "full")
    assert.is_true(math.abs(ev.totals[2] - (20 * 855654400 + 20 * 16777216 * 3 + st.comm + st.backward_overhead
      + st.reserve)) <= 64)
  end)
end)

describe("nd.balance_run.problem of the Llama example's other pipelines", function()
  -- interleaved (vpp 2: each stage's two chunks keep their own in-flight
  -- counts) and DualPipeV with two chunks, whose V ends on stage 0: the
  -- embedding and the head on one stage, its constant counted once
  local model, run = nd.load(LLAMA, { quiet = true })
  for _, change in ipairs { { vpp = 2 }, { vpp = 2, pp_schedule = "zero_bubble_v" } } do
    local r0 = run:with(change)
    local hw = balance_run.hardware("A2", r0)
    for _, mode in ipairs(balance_run.MODES) do
      it(("%s, vpp 2, every layer %s: the estimate's stages and step"):format(change.pp_schedule or "1f1b", mode),
        function()
          gives_back(model, r0, "A2", balance_run.problem(model, r0, hw, { modes = { mode } }), mode)
        end)
    end
  end
end)

describe("nd.balance_run.problem of DeepSeek-V3's example at vpp 1", function()
  -- DeepSeek-V3's config: 61 layers, the first 3 dense (first_k_dense_replace),
  -- the rest MoE; the example's pp 8 puts 61 // 8 + 1 = 8 layers on stage 0,
  -- the 3 dense among them: they are pinned there, the 58 MoE layers the body
  local model, run = nd.load("examples/deepseek-v3-256/train.yaml", { quiet = true })
  run = run:with { vpp = 1, offset = nd.null }
  local hw = balance_run.hardware("A3", run)
  for _, mode in ipairs(balance_run.MODES) do
    it("gives back the estimate's stages and step with every layer " .. mode, function()
      local q = balance_run.problem(model, run, hw, { modes = { mode } })
      assert.are.equal(3, q.run.prefix)
      assert.are.equal("dense", q.run.prefix_kind)
      assert.are.equal(58, q.body)
      gives_back(model, run, "A3", q, mode)
    end)
  end
end)

describe("nd.balance_run.problem of DeepSeek-V3's example at pp 16 vpp 2", function()
  -- 61 layers (3 dense, then 58 MoE) and the two tables' slots over 32 cells:
  -- the layout puts the embedding and 2 dense layers in stage 0's first
  -- chunk, the third dense layer before an MoE one in stage 1's (the
  -- estimate's rows): the dense layers span two cells, so the problem takes
  -- both kinds in model order (nd.core.balance kinds and sequence)
  local model, run = nd.load("examples/deepseek-v3-256/train.yaml", { quiet = true })
  run = run:with { pp = 16, vpp = 2, offset = nd.null }
  local hw = balance_run.hardware("A3", run)
  for _, case in ipairs { { "1f1b", "off" }, { "1f1b", "selective" }, { "1f1b", "full" },
                          { "zero_bubble_v", "off" }, { "zero_bubble_v", "full" } } do
    local schedule, mode = case[1], case[2]
    it(("gives back the estimate's stages and step under %s with every layer %s"):format(schedule, mode), function()
      local run = run:with { pp_schedule = schedule }
      local q = balance_run.problem(model, run, hw, { modes = { mode } })
      assert.are.equal(2, #q.kinds)
      assert.is_nil(q.layer)
      assert.are.equal(61, #q.sequence)
      for i = 1, 61 do assert.are.equal(i <= 3 and 1 or 2, q.sequence[i]) end
      assert.are.equal(2, q.run.kind_counts[1][1][1])
      assert.are.equal(1, q.run.kind_counts[1][2][1])
      assert.are.equal(1, q.run.kind_counts[2][2][1])
      -- a dense layer holds no experts: fewer static bytes than an MoE one
      assert.is_true(q.kinds[1].stat < q.kinds[2].stat)
      gives_back(model, run, "A3", q, mode)
    end)
  end

  -- DualPipeV lays the second chunk over the stages downward (its V): the
  -- problem takes the balancer's order "v", and the layout's cells hold
  -- the kinds the plan gave them
  for _, schedule in ipairs { "1f1b", "zero_bubble_v" } do
    it("solves it under " .. schedule .. " and lays the plan out cell by cell, the recomputed layers first", function()
      local r = assert(balance_run.solve(model, run:with { pp_schedule = schedule }, hw))
      assert.is_true(r.feasible)
      assert.are.equal(schedule == "zero_bubble_v" and "v" or nil, r.problem.order)
      local names = { "dense", "moe" }
      local layout = nd.layout(model, r.run)
      for s = 1, 16 do
        for v = 1, 2 do
          local n, rec, plain_seen, prefix, of_kind = 0, 0, false, true, { dense = 0, moe = 0 }
          for _, run_ in ipairs(layout[s].chunks[v].runs) do
            n = n + run_.count
            of_kind[run_.kind] = of_kind[run_.kind] + run_.count
            if run_.recompute ~= "off" then
              rec = rec + run_.count
              prefix = prefix and not plain_seen
            else
              plain_seen = true
            end
          end
          local c = r.plan.cells[s][v]
          assert.are.equal((c.off or 0) + (c.selective or 0) + (c.full or 0), n)
          assert.are.equal(c[r.family[2]] or 0, rec)
          assert.is_true(prefix)
          for k, name in ipairs(names) do
            local kc = r.plan.kind_cells[s][v][k]
            assert.are.equal((kc.off or 0) + (kc[r.family[2]] or 0), of_kind[name],
              ("stage %d chunk %d: %s layers"):format(s - 1, v - 1, name))
          end
        end
      end
    end)
  end
end)

describe("nd.balance_run.problem of DeepSeek-V3's example at pp 16 vpp 3", function()
  -- 61 layers over 48 cells: most cells hold one layer, so the probe that
  -- moves a dense layer walks past cells of the taking stage itself; each
  -- such cell gives one MoE layer and takes the next MoE layer, so the
  -- taking stage still grows by exactly the one dense layer. The expected
  -- values: the estimate's per-stage totals and step at the even split (as
  -- the vpp 2 cases above), and a layer's static bytes, which hold its
  -- parameters, gradients and optimizer states and so do not depend on how
  -- many chunks a stage runs: the same as the vpp 2 problem's
  local model, run = nd.load("examples/deepseek-v3-256/train.yaml", { quiet = true })
  run = run:with { pp = 16, vpp = 3, offset = nd.null }
  local hw = balance_run.hardware("A3", run)
  for _, mode in ipairs { "off", "full" } do
    it("gives back the estimate's stages and step with every layer " .. mode, function()
      local q = balance_run.problem(model, run, hw, { modes = { mode } })
      assert.are.equal(2, #q.kinds)
      gives_back(model, run, "A3", q, mode)
      local q2 = balance_run.problem(model, run:with { vpp = 2 }, hw, { modes = { mode } })
      for k = 1, 2 do
        assert.is_true(math.abs(q.kinds[k].stat - q2.kinds[k].stat) <= 64,
          ("kind %d: %.0f vs %.0f at vpp 2"):format(k, q.kinds[k].stat, q2.kinds[k].stat))
      end
    end)
  end
end)

describe("nd.core's probe prices: allocated_with_offset, stage_seconds_with_offset, run_at_mode", function()
  -- the probes' moved splits read their bytes and seconds off them: each
  -- stage's allocated bytes must be the estimate's own (nd.estimate of the
  -- run laid out with the same offset by run:with), to the byte, and its
  -- seconds and forward parts nd.core.stage_seconds's of that run, exactly
  local cases = {
    { LLAMA, "A2", {} },
    { "examples/deepseek-v3-256/train.yaml", "A3", { pp = 16, vpp = 2, offset = nd.null } },
    { "examples/deepseek-v3-256/train.yaml", "A3", { pp = 16, vpp = 2, offset = nd.null, pp_schedule = "zero_bubble_v" } },
  }
  for _, case in ipairs(cases) do
    local name = case[1] .. (case[3].pp and (" pp 16 vpp 2 " .. (case[3].pp_schedule or "1f1b")) or "")
    it("give the estimate's bytes and the time model's seconds of each moved split (" .. name .. ")", function()
      local model, run = nd.load(case[1], { quiet = true })
      run = run:with(case[3])
      local hw = balance_run.hardware(case[2], run)
      local _, probes = balance_run.problem(model, run, hw)
      local checked = 0
      for _, mode in ipairs(balance_run.MODES) do
        local moved = { probes[mode].moved }
        for _, k in ipairs(probes[mode].kinds or {}) do moved[#moved + 1] = k.moved end
        for _, m in ipairs(moved) do
          local laid = run:with { offset = m.offset, recompute = mode }
          local e = nd.estimate(model, laid)
          local x, fwd = core.stage_seconds(model, laid, hw)
          assert.are.equal(#e.stages, #m.allocated)
          for s, st in ipairs(e.stages) do
            assert.are.equal(st.allocated, m.allocated[s])
            assert.is_true(math.type(m.allocated[s]) == "integer")
            assert.are.equal(x[s], m.x[s])
            assert.are.equal(fwd[s], m.fwd[s])
          end
          checked = checked + 1
        end
      end
      assert.are.equal(case[1] == LLAMA and 3 or 6, checked)
    end)
  end

  it("run_at_mode prices as run:with{offset = nd.null, recompute = mode} does (the even splits' runs)", function()
    -- also from a run stating an offset and recompute per stage (both dropped)
    local all = { { LLAMA, "A2", { offset = { 1, 0, 0, -1 }, full_recompute = { 2, 1, 0, 0 } } } }
    for _, case in ipairs(cases) do all[#all + 1] = case end
    for _, case in ipairs(all) do
      local model, run = nd.load(case[1], { quiet = true })
      run = run:with(case[3])
      local hw = balance_run.hardware(case[2], run)
      for _, mode in ipairs(balance_run.MODES) do
        local a, b = core.run_at_mode(run, mode), run:with { offset = nd.null, recompute = mode }
        assert.are.same(nd.estimate(model, b), nd.estimate(model, a))
        assert.are.same({ core.stage_seconds(model, b, hw) }, { core.stage_seconds(model, a, hw) })
      end
    end
  end)

  it("refuses a run stating an offset, and an offset of the wrong length", function()
    local model, run = nd.load(LLAMA, { quiet = true })
    local even = run:with { offset = nd.null }
    local ok, err = pcall(core.allocated_with_offset, model, even, { 1, 0, -1 })
    assert.is_false(ok)
    assert.are.equal("nd.core.allocated_with_offset: offset (argument 3) must hold pp x vpp = 4 counts", err.message)
    ok, err = pcall(core.allocated_with_offset, model, even:with { offset = { 1, 0, 0, -1 } }, { 1, 0, 0, -1 })
    assert.is_false(ok)
    assert.are.equal("nd.core.allocated_with_offset: the run (argument 2) states an offset already", err.message)
  end)
end)

describe("nd.balance_run.written_plan", function()
  -- two stages, one chunk; layers d d m | m m m (d: dense kind 1, m: MoE kind 2)
  local dense = { stat = 1, fwd = 1, act = { off = 4, full = 1 }, time = { off = 3, full = 4 } }
  local moe = { stat = 3, fwd = 2, act = { off = 2, full = 1 }, time = { off = 5, full = 6 } }
  local p = { stages = 2, chunks = 1, micro = 2, limit = 1000, kinds = { dense, moe },
              sequence = { 1, 1, 2, 2, 2, 2 }, inflight = { { 2 }, { 1 } }, coef_sum = 1, coef_max = 0 }
  local runs = { { { first = 1, count = 3 } }, { { first = 4, count = 3 } } }

  it("keeps a plan whose recompute is each cell's first layers", function()
    local plan = { feasible = true, optimal = true, runs = runs, kind_cells = {
      { { { off = 0, full = 2 }, { off = 0, full = 1 } } }, { { { off = 0, full = 0 }, { off = 2, full = 1 } } } } }
    assert.are.equal(plan, balance_run.written_plan(p, plan, "full"))
  end)

  it("writes a per-kind mix as the shortest first-k holding it, priced again", function()
    -- stage 0 recomputes 1 of its 2 dense layers and its MoE one: the layout's
    -- list recomputes a chunk's first k layers, so k = 3 (d d m, both dense)
    local plan = { feasible = true, optimal = true, objective = 1, runs = runs, kind_cells = {
      { { { off = 1, full = 1 }, { off = 0, full = 1 } } }, { { { off = 0, full = 0 }, { off = 2, full = 1 } } } } }
    local w = balance_run.written_plan(p, plan, "full")
    assert.is_true(w.widened)
    assert.is_false(w.optimal)
    assert.are.same({ off = 0, full = 3 }, w.cells[1][1])
    assert.are.same({ off = 2, full = 1 }, w.cells[2][1])
    assert.are.same({ off = 0, full = 2 }, w.kind_cells[1][1][1])
    -- by hand (coef_sum 1, coef_max 0: the sum of the stages' seconds):
    -- stage 0: 2 dense full 2 x 4 + 1 MoE full 6 = 14; stage 1: 6 + 2 x 5 = 16
    assert.are.equal(30, w.objective)
    assert.are.same({ 14, 16 }, w.stage_time)
    -- bytes: stage 0 (2 in flight) 2 x (1 + 1 x 2) + (3 + 1 x 2) = 11;
    -- stage 1 (1 in flight) 3 x 3 + 1 x 1 + 2 x 2 = 14
    assert.are.same({ 11, 14 }, w.stage_mem)
    assert.is_true(w.feasible)
  end)
end)

describe("nd.balance_run.solve", function()
  it("balances the example at 40 GiB, faster than any uniform even split, and lays it out exactly", function()
    local model, run, hw = load(40)
    local r = assert(balance_run.solve(model, run, hw))
    assert.is_true(r.feasible)
    assert.is_true(r.plan.optimal)
    -- by the estimate: off and selective do not fit evenly at 40 GiB
    -- (stage 0 holds 4 micro-batches), full does
    for _, mode in ipairs { "off", "selective" } do
      assert.is_false(nd.estimate(model, run:with { offset = nd.null, recompute = mode }).fits)
    end
    assert.are.equal("full", r.even.mode)
    assert.is_true(r.priced.fits)
    assert.is_true(r.priced.peak <= 40 * GIB)
    assert.is_true(r.priced.step < r.even.step)
    -- the layout of the changes places every layer and the plan's counts
    local layout = nd.layout(model, r.run)
    for s = 1, 4 do
      local n, rec = 0, 0
      for _, run_ in ipairs(layout[s].chunks[1].runs) do
        n = n + run_.count
        if run_.recompute ~= "off" then rec = rec + run_.count end
      end
      local c = r.plan.cells[s][1]
      assert.are.equal((c.off or 0) + (c.selective or 0) + (c.full or 0), n)
      assert.are.equal(c[r.family[2]] or 0, rec)
    end
  end)

  it("reports the stage that cannot fit with its bytes", function()
    local model, run, hw = load(20)
    local r = assert(balance_run.solve(model, run, hw))
    assert.is_false(r.feasible)
    assert.is_truthy(r.bad)
    -- 20 layers of full recompute need more than 20 GiB on some stage: the
    -- even split of full recompute needs 20.9 GiB on stage 0 by the estimate
    if r.bad.bad_stage then assert.is_true(r.bad.bad_need_bytes > 20 * GIB) end
  end)

  it("refuses a run without a pipeline", function()
    local model, run, hw = load()
    local r, why = balance_run.solve(model, run:with { pp = 1, offset = nd.null }, hw)
    assert.is_nil(r)
    assert.matches("no pipeline", why)
  end)

  it("memoises alike problems", function()
    local model, run, hw = load(40)
    local memo = balance_run.memo()
    balance_run.solve(model, run, hw, { memo = memo })
    balance_run.solve(model, run, hw, { memo = memo })
    assert.are.equal(2, memo.solved)
    assert.are.equal(2, memo.hits)
  end)
end)

describe("ndlua balance.lua train.yaml --yaml", function()
  it("writes a plan that estimate.lua reads back to the same per-stage peaks", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(core.mkdir_p(dir))
    local plan = dir .. "/balanced.yaml"
    local h = io.popen(NDLUA .. " lua/balance.lua " .. LLAMA .. " --memory 40GiB --json --yaml " .. plan)
    local out = nd.json.decode(h:read("a"))
    h:close()
    assert.is_true(out.feasible)
    local e = io.popen(NDLUA .. " lua/estimate.lua " .. plan .. " --json")
    local est = nd.json.decode(e:read("a"))
    e:close()
    os.remove(plan)
    os.remove(dir)
    for s = 1, 4 do
      assert.are.equal(out.stage_bytes[s], est.stages[s].bytes.total)
    end
    assert.are.equal(out.peak_bytes, est.peak_bytes)
  end)
end)

describe("nd.balance_run.cannot_fit", function()
  it("counts the layers each stage can hold at least", function()
    -- By hand (balance_spec's case): each stage keeps 1 micro-batch and holds at
    -- most floor(35 / (10 + 1 x 1)) = 3 layers under 35 bytes: 2 stages hold 6,
    -- so 7 layers cannot fit and 6 may (the solver fits them)
    local p = { stages = 2, chunks = 1, micro = 2, body = 7, limit = 35, inflight = { { 1 }, { 1 } },
                layer = { stat = 10, act = { full = 1 }, time = { full = 1 } }, run = { modes = { "full" } } }
    assert.is_true(balance_run.cannot_fit(p))
    assert.is_false(core.balance(p).feasible)
    p.body = 6
    assert.is_false(balance_run.cannot_fit(p))
    assert.is_true(core.balance(p).feasible)
    -- the head's 12 static bytes on stage 1 leave it 23: 2 layers, 5 in all
    p.head = { stat = 12, act = 0, time = 0, fwd = 0 }
    assert.is_true(balance_run.cannot_fit(p))
    assert.is_false(core.balance(p).feasible)
    p.body = 5
    assert.is_false(balance_run.cannot_fit(p))
    assert.is_true(core.balance(p).feasible)
  end)

  it("bounds the layers a plan recomputes", function()
    -- By hand: stage 1 keeps 2 micro-batches, stage 2 one; a layer is 10 static
    -- bytes + 5 a micro-batch plain, 1 recomputed. Under 60 bytes stage 1 holds
    -- 3 plain layers (20 each), stage 2 four (15 each): 7 of 9, two past them.
    -- A recomputed layer frees 8 bytes on stage 1 (2.5 per added layer, 20 / 8)
    -- and 4 on stage 2 (3.75): both extra layers on stage 1, 5 recomputed
    -- (5 layers there: 100 - 60 = 40 bytes over, 40 / 8 = 5). The solver's plan,
    -- the least step (1 s a plain layer, 1.5 recomputed, step sum + 3 max),
    -- takes 4 + 5 layers with 3 + 4 recomputed (5.5 s and 7 s: 33.5 against
    -- 7.5 s and 4 s, 34, for 5 + 4): 7, at least the bound.
    local p = { stages = 2, chunks = 1, micro = 4, body = 9, limit = 60, inflight = { { 2 }, { 1 } },
                coef_sum = 1, coef_max = 3, run = { modes = { "off", "full" } },
                layer = { stat = 10, act = { off = 5, full = 1 }, time = { off = 1, full = 1.5 } } }
    assert.are.equal(5, balance_run.least_recompute(p))
    local plan = core.balance(p)
    assert.is_true(plan.feasible)
    assert.are.same({ 3, 4 }, { plan.cells[1][1].full, plan.cells[2][1].full })
    assert.are.equal(33.5, plan.objective)
    -- room for all nine plain: none; room for fewer than nine recomputed: nil
    p.limit = 200
    assert.are.equal(0, balance_run.least_recompute(p))
    p.limit = 40
    assert.is_nil(balance_run.least_recompute(p))
  end)

  it("bounds the recompute of two kinds by each kind alone", function()
    -- By hand: the case above's 9 layers as kind 2, beside one small layer of
    -- kind 1 (1 static byte + 1 a micro-batch, 0.5 recomputed). At the least
    -- bytes over both kinds (kind 1's: 3 and 2 on stage 1, 2 and 1.5 on
    -- stage 2) 20 + 30 plain layers fit: 0. Kind 2 alone needs 5 (the case
    -- above), kind 1 alone 0: at least 5 recomputed.
    local p = { stages = 2, chunks = 1, micro = 4, body = 10, limit = 60, inflight = { { 2 }, { 1 } },
                coef_sum = 1, coef_max = 3, run = { modes = { "off", "full" } }, sequence = { 1, 2, 2, 2, 2, 2, 2, 2, 2, 2 },
                kinds = { { stat = 1, act = { off = 1, full = 0.5 }, time = { off = 0.1, full = 0.2 } },
                          { stat = 10, act = { off = 5, full = 1 }, time = { off = 1, full = 1.5 } } } }
    assert.are.equal(5, balance_run.least_recompute(p))
  end)

  it("prices no stage seconds for a layout its bound rules out", function()
    -- a bound no step can meet (every plan steps over 0 s): the layout is not
    -- solved, and the probes' estimates alone (the bytes) give the bound;
    -- with no bound the same layout is solved and its probes priced in time
    local model, run, hw = load(40)
    local timed, stage_seconds = 0, core.stage_seconds
    core.stage_seconds = function(...)
      timed = timed + 1
      return stage_seconds(...)
    end
    local ok, out = pcall(balance_run.solve, model, run, hw, { bound = { floor = 1, held = 1, above = 0,
      rerun = core.rerun_seconds(model, run, hw), per_second = 1 } })
    local after_bound = timed
    local ok2, solved = pcall(balance_run.solve, model, run, hw)
    core.stage_seconds = stage_seconds
    assert.is_true(ok, out)
    assert.is_true(ok2, solved)
    assert.is_true(out.above)
    assert.are.equal(0, after_bound)
    assert.is_true(solved.feasible)
    assert.is_true(timed > 0)
  end)

  it("never refuses a problem the solver fits (DeepSeek-V3 pp 16 vpp 2, both kinds, 40 to 64 GiB)", function()
    local model, run = nd.load("examples/deepseek-v3-256/train.yaml", { quiet = true })
    run = run:with { pp = 16, vpp = 2, offset = nd.null }
    local hw = balance_run.hardware("A3", run)
    local _, probes = balance_run.problem(model, run, hw)
    local caught = 0
    for gib = 40, 64, 4 do
      for _, family in ipairs(balance_run.FAMILIES) do
        local p = balance_run.problem(model, run:with { device_memory = gib * GIB }, hw,
                                      { modes = family, probes = probes })
        if balance_run.cannot_fit(p) then
          caught = caught + 1
          assert.is_false(core.balance(p).feasible, gib .. " GiB")
        end
      end
    end
    assert.is_true(caught > 0)
  end)
end)
