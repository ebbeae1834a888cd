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
end)
