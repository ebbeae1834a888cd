-- The ZeRO rule (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward
-- Training Trillion Parameter Models", §3.1 and Figure 1): mixed-precision
-- Adam keeps 2 + 2 + K bytes a parameter, fp16 weights, fp16 gradients and
-- K = 12 bytes of fp32 master weights, momentum and variance. Over N data-
-- parallel ranks: ZeRO-1 shards the optimizer states (4 + 12/N), ZeRO-2 also
-- the gradients (2 + 14/N), ZeRO-3 also the weights (16/N).
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local tiny = dofile("spec/support/tiny.lua")

-- The tiny model's parameters by hand: h = 64, 2 layers, 4 heads of 16, gated
-- MLP of width 256, vocabulary 1000, untied, no biases.
--   a layer: q, k, v, o 4·64·64 = 16384; MLP 3·64·256 = 49152; 2 norms 128 -> 65664
--   embedding 64·1000 = 64000; head 64·1000 + final norm 64 = 64064
local P = 2 * 65664 + 64000 + 64064 -- 259392

local ADAM_MIXED = { param_bytes = 2, grad_bytes = 2, grad_accumulation = true, optimizer_state_bytes = 4,
                     optimizer_states = 2, main_param_bytes = 4, reserve_bytes = 0 }

local function static_bytes(fields)
  local spec = {}
  for k, v in pairs(ADAM_MIXED) do spec[k] = v end
  for k, v in pairs(fields) do spec[k] = v end
  local e = nd.estimate(tiny.dense(), nd.run(spec))
  return tiny.static(e.stages[1])
end

describe("ZeRO rule for mixed-precision Adam", function()
  it("counts the tiny model by hand", function()
    assert.are.equal(P, tiny.dense():params().total)
  end)
  it("keeps 16 bytes a parameter unsharded (2 + 2 + 12)", function()
    assert.are.equal(16 * P, static_bytes { dp = 1 })
    assert.are.equal(16 * P, static_bytes { dp = 4 })
  end)
  for _, n in ipairs { 2, 4 } do
    it("ZeRO-1 over " .. n .. " ranks: 4 + 12/N", function()
      assert.are.equal(4 * P + 12 * P / n, static_bytes { dp = n, zero = 1 })
    end)
    it("ZeRO-2 over " .. n .. " ranks: 2 + 14/N", function()
      assert.are.equal(2 * P + 14 * P / n, static_bytes { dp = n, zero = 2 })
    end)
    it("ZeRO-3 over " .. n .. " ranks: 16/N", function()
      assert.are.equal(16 * P / n, static_bytes { dp = n, zero = 3 })
    end)
  end
  it("splits the 16 bytes into weights, gradients, optimizer states and main copies", function()
    local e = nd.estimate(tiny.dense(), nd.run(ADAM_MIXED))
    local st = e.stages[1]
    assert.are.equal(2 * P, st.params)
    assert.are.equal(2 * P, st.grads)
    assert.are.equal(8 * P, st.optimizer)
    assert.are.equal(4 * P, st.main_params)
  end)
end)
