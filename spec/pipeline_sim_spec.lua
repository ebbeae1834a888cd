-- pipeline_sim_spec.lua: src/core/pipeline_sim.c (nd.core.pipeline_timeline),
-- the C twin of lua/nd/pipeline_timeline.lua's interleaved and less-memory
-- orders, which the time model runs to price an interleaved step whose
-- chunks are unequal (src/core/timing.c pipeline_step_of_chunks).
--
-- Where the expected values come from: the Lua module's own timeline (its
-- hand-derived cases are spec/pipeline_timeline_spec.lua's), case by case:
-- the same operations in the same order on every stage, starting at the
-- same seconds, and the same span. Random sizes and durations, a fixed seed;
-- the durations are multiples of 1/4 so that both sums are exact and equal.
package.path = "spec/?.lua;" .. package.path
local core = require "nd.core"
local tl = require "nd.pipeline_timeline"

-- a stage's operations as "F<chunk><mb>@start" (1-based chunk, micro-batch),
-- from the Lua module's per-stage blocks or nd.core's alike
local function ops(stages, s)
  local out = {}
  for _, b in ipairs(stages[s]) do out[#out + 1] = ("%s%d.%d@%.17g"):format(b.kind, b.chunk, b.mb, b.start) end
  return table.concat(out, " ")
end

local function random_dur(rng, S, I)
  local d = {}
  for s = 1, S do
    d[s] = {}
    for v = 1, I do
      d[s][v] = { f = rng(0, 20) / 4, r = rng(0, 2) == 0 and rng(1, 8) / 4 or 0, b = rng(0, 40) / 4 }
    end
  end
  return d
end

describe("the interleaved timeline in C (nd.core.pipeline_timeline)", function()
  it("gives the Lua module's operations, starts and span on 400 random cases", function()
    math.randomseed(32)
    local rng = math.random
    local checked, refused = 0, 0
    for case = 1, 400 do
      local order = case % 3 == 0 and "interleaved-less-memory" or "interleaved"
      local S, I = rng(1, 6), rng(1, 4)
      local m = case % 2 == 0 and S * rng(1, 4) or rng(1, 3 * S)
      local dur = random_dur(rng, S, I)
      local blocks, span, per_stage = tl.timeline(order, S, I, m, dur)
      local c_span, c_stages = core.pipeline_timeline(order, S, I, m, dur)
      local where = ("case %d: %s S=%d I=%d m=%d"):format(case, order, S, I, m)
      if not blocks then
        assert.is_nil(c_span, where)
        assert.is_string(c_stages, where)
        refused = refused + 1
      else
        assert.are.equal(span, c_span, where)
        for s = 1, S do assert.are.equal(ops(per_stage, s), ops(c_stages, s), where .. " stage " .. s) end
        checked = checked + 1
      end
    end
    -- both outcomes were exercised
    assert.is_true(checked > 300)
    assert.is_true(refused > 0)
  end)

  it("refuses what the Lua module refuses, with a reason", function()
    -- m < S under interleaving; less-memory with m not a multiple of S
    local dur = { { { f = 1, r = 0, b = 1 }, { f = 1, r = 0, b = 1 } }, { { f = 1, r = 0, b = 1 }, { f = 1, r = 0, b = 1 } },
                  { { f = 1, r = 0, b = 1 }, { f = 1, r = 0, b = 1 } } }
    local span, why = core.pipeline_timeline("interleaved", 3, 2, 2, dur)
    assert.is_nil(span)
    assert.matches("at least one micro%-batch a stage", why)
    span, why = core.pipeline_timeline("interleaved-less-memory", 3, 2, 4, dur)
    assert.is_nil(span)
    assert.matches("multiple of the stages", why)
    assert.has_error(function() core.pipeline_timeline("gpipe", 3, 2, 3, dur) end)
    assert.has_error(function() core.pipeline_timeline("interleaved", 3, 2, 3, { {} }) end)
  end)

  -- S = 2, I = 2, m = 4, every forward and backward 1 s: the Lua module's
  -- hand-derived case (spec/pipeline_timeline_spec.lua, "interleaved S2 I2
  -- m4"): span 18 s, timing.c's closed form sum X/I + (m I - 1) max X/I =
  -- 8/2 + 7 x 4/2 = 4 + 14 = 18 s.
  it("spans 18 s on the unit S = 2, I = 2, m = 4 case", function()
    local d = {}
    for s = 1, 2 do d[s] = { { f = 1, r = 0, b = 1 }, { f = 1, r = 0, b = 1 } } end
    local span = core.pipeline_timeline("interleaved", 2, 2, 4, d)
    assert.are.equal(18, span)
  end)

  -- Which operation a stage runs next is fixed by counts (how many forwards
  -- and backwards it ran, its warm-up), never by the seconds
  -- (src/core/pipeline_sim.c run_stage; pipeline_trace.c's header): a cell
  -- moved by one ulp leaves every stage's order the same and moves the
  -- starts and the span by rounding alone (max and + only, so by at most a
  -- few ulps of the span). The cells have the shape of the
  -- automodel-deepseek-v3-256gpu row (S 4, v 8, m 8: two lighter dense
  -- chunks first, a one-layer last chunk on three stages, the head on the
  -- last), where a sub-ulp change was once suspected of flipping the bubble
  -- (it does not: that row's step is the closed form, 0.078 s above this
  -- order's span).
  it("runs the same order, within rounding, when a cell moves by one ulp", function()
    local S, I, m = 4, 8, 8
    local function cells(nudge_s, nudge_v)
      local d = {}
      for s = 1, S do
        d[s] = {}
        for v = 1, I do
          local f, b = 0.018048, 0.110110
          if v == 1 and s <= 2 then f, b = 0.017877 + 0.0001 * s, 0.037377 * s end
          if v == I and s >= 2 then f, b = 0.009024, 0.055707 end
          if v == I and s == S then f, b = 0.021231, 0.080400 end
          d[s][v] = { f = f, r = f, b = b }
        end
      end
      if nudge_s then
        local c = d[nudge_s][nudge_v]
        local was = c.b
        -- the next double above: one ulp, 2^(e - 52) for b in [2^e, 2^(e+1))
        -- (b x (1 + 2^-52) would round to 2 ulps above where b >= 1.5 x 2^e:
        -- 0.055707 and 0.110110 here)
        local ulp = 2 ^ (math.floor(math.log(was, 2)) - 52)
        c.b = was + ulp
        -- no double between them: their midpoint rounds to one of the two
        local mid = was + (c.b - was) / 2
        assert.is_true(c.b > was and (mid == was or mid == c.b))
      end
      return d
    end
    local function order(stages)
      local out = {}
      for s = 1, S do
        for _, b in ipairs(stages[s]) do out[#out + 1] = ("%d:%s%d.%d"):format(s, b.kind, b.chunk, b.mb) end
      end
      return table.concat(out, " ")
    end
    local span0, stages0 = core.pipeline_timeline("interleaved", S, I, m, cells())
    local short0 = core.pipeline_timeline("interleaved", S, I, m, cells(), true)
    for _, at in ipairs { { 1, 1 }, { 2, 8 }, { 4, 8 }, { 3, 4 } } do
      local d = cells(at[1], at[2])
      local span, stages = core.pipeline_timeline("interleaved", S, I, m, d)
      assert.are.equal(order(stages0), order(stages))
      assert.is_true(math.abs(span - span0) <= 8 * 2 ^ -52 * span0)
      assert.is_true(math.abs(core.pipeline_timeline("interleaved", S, I, m, d, true) - short0) <= 8 * 2 ^ -52 * span0)
      for s = 1, S do
        for k, b in ipairs(stages[s]) do
          assert.is_true(math.abs(b.start - stages0[s][k].start) <= 8 * 2 ^ -52 * span0)
        end
      end
    end
  end)
end)
