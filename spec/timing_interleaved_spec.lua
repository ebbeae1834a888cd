-- timing_interleaved_spec.lua: an interleaved step (vpp > 1 under 1F1B) is
-- priced as the larger of the closed form sum X/v + (m v - 1) max X/v and
-- the span of Megatron-LM's interleaved order over each chunk's seconds
-- (src/core/timing.c interleaved_step, src/core/pipeline_sim.c).
--
-- Where the expected numbers come from:
-- * the hand case below, derived operation by operation in its comment;
-- * for the Llama example, the span of lua/nd/pipeline_timeline.lua (the
--   Lua module, an implementation apart from the C one) over the time
--   model's per-chunk seconds, plus the step's DP and optimizer seconds,
--   read off the even split (step - closed form; the same on both layouts:
--   every stage holds 20 layers in both, so the same weights);
-- * the periodic shortcut's span against the full timeline's (no shortcut
--   when start times are asked for) on random long pipelines.
package.path = "spec/?.lua;" .. package.path
local nd = require "nd"
local core = require "nd.core"
local tl = require "nd.pipeline_timeline"
local balance_run = require "nd.balance_run"

local LLAMA = "examples/llama-3.1-70b-tp-pp-sp/train.yaml"

describe("the interleaved step priced in the order's own timeline", function()
  -- S = 2, v = 2, m = 2; stage 0's chunk 0 takes 3 s forward and 3 s
  -- backward, its chunk 1 1 s and 1 s (X0 = 8); stage 1's chunks 2 s and 2 s
  -- each (X1 = 8). Closed form: 16/2 + (2 x 2 - 1) x 8/2 = 8 + 12 = 20 s.
  -- Megatron's order (one group of S = 2: c0 mb0, c0 mb1, c1 mb0, c1 mb1;
  -- backwards with the chunks swapped); warm-up 2(S - s - 1) + (v - 1)S:
  -- stage 0 4 (every forward first), stage 1 2. Places c0s0, c0s1, c1s0, c1s1.
  --   s0 F c0 0: 0-3, F c0 1: 3-6         s1 F c0 0: 3-5, F c0 1: 6-8
  --   s0 F c1 0: max(5, 6) 6-7, F c1 1: 8-9
  --   s1 F c1 0: 8-10, B c1 0: 10-12, F c1 1: 12-14, B c1 1: 14-16
  --   s0 B c1 0: 12-13, B c1 1: 16-17
  --   s1 B c0 0: max(13, 16) 16-18, B c0 1: 18-20
  --   s0 B c0 0: 18-21, B c0 1: max(20, 21) 21-24
  -- span 24 s: 4 s past the closed form (stage 0's heavy first chunk feeds
  -- stage 1 late and drains last).
  it("spans 24 s where the closed form says 20 s on a lopsided S = 2, v = 2, m = 2", function()
    local d = { { { f = 3, r = 0, b = 3 }, { f = 1, r = 0, b = 1 } }, { { f = 2, r = 0, b = 2 }, { f = 2, r = 0, b = 2 } } }
    assert.are.equal(24, (core.pipeline_timeline("interleaved", 2, 2, 2, d)))
    assert.are.equal(24, select(2, tl.timeline("interleaved", 2, 2, 2, d)))
    local run = nd.run { pp = 2, vpp = 2, micro_batch_num = 2 }
    assert.are.equal(20, (core.pipeline_step(run, { 8, 8 })))
  end)

  describe("on the Llama-3.1-70B example (4 stages x 2 chunks, 32 micro-batches)", function()
    local model, run = nd.load(LLAMA, { quiet = true })
    local function priced(offset)
      local r = run:with { vpp = 2, offset = offset, recompute = "full" }
      local hw = balance_run.hardware("A2", r)
      local x, _, step, cells, stall = core.stage_seconds(model, r, hw)
      return { x = x, step = step, cells = cells, stall = stall, closed = core.pipeline_step(r, x),
               time = core.step_time(model, r, hw) }
    end
    local even = priced(nd.null)
    -- chunk 0 of every stage 1 layer, chunk 1 19 (the balancer's kind of plan)
    local lopsided = priced { { -9, -9, -9, -9 }, { 9, 9, 9, 9 } }
    local extra = even.step - even.closed

    it("splits each stage's seconds over its chunks", function()
      for _, p in ipairs { even, lopsided } do
        for s = 1, 4 do
          local sum = 0
          for v = 1, 2 do sum = sum + p.cells[s][v].f + p.cells[s][v].r + p.cells[s][v].b end
          assert.is_true(math.abs(sum - p.x[s]) <= 1e-12 * p.x[s])
        end
      end
    end)

    it("keeps the closed form where the order does not stall (the even split)", function()
      local _, span = tl.timeline("interleaved", 4, 2, 32, even.cells)
      assert.is_true(span <= even.closed * (1 + 1e-12))
      assert.are.equal(0, even.stall)
      assert.are.equal(even.step, even.time.step_time_s)
    end)

    it("prices the lopsided chunks at the order's span, past the closed form", function()
      local _, span = tl.timeline("interleaved", 4, 2, 32, lopsided.cells)
      -- the same stage seconds, so the same closed form as the even split
      assert.is_true(math.abs(lopsided.closed - even.closed) <= 1e-12 * even.closed)
      assert.is_true(span > 1.4 * lopsided.closed)
      assert.is_true(math.abs(lopsided.step - (span + extra)) <= 1e-9 * lopsided.step)
      assert.is_true(math.abs(lopsided.stall - (span - lopsided.closed)) <= 1e-9 * span)
      assert.are.equal(lopsided.step, lopsided.time.step_time_s)
    end)
  end)

  it("takes the span by its periodic shortcut within 1e-12 of the full timeline on long pipelines", function()
    math.randomseed(31)
    local jumps = 0
    for case = 1, 60 do
      local S, I = math.random(2, 8), math.random(2, 4)
      local m = S * math.random(8, 60) + (case % 2) * math.random(0, S - 1)
      local d = {}
      for s = 1, S do
        d[s] = {}
        for v = 1, I do
          local f = math.random() * 3
          d[s][v] = { f = f, r = math.random(0, 2) == 0 and math.random() or 0, b = f * (1 + 2 * math.random()) }
        end
      end
      local full = core.pipeline_timeline("interleaved", S, I, m, d)
      local fast = core.pipeline_timeline("interleaved", S, I, m, d, true)
      assert.is_true(math.abs(full - fast) <= 1e-12 * full, ("S=%d I=%d m=%d"):format(S, I, m))
      if full ~= fast then jumps = jumps + 1 end
    end
    -- the shortcut ran (its rounding shows) on some of them
    assert.is_true(jumps > 0)
  end)
end)
