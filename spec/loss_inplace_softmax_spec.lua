-- The loss forward of Megatron-Core (issue 31; the memory breakdowns of
-- spec/validation/megatron_moe_seo.lua show it): since core_r0.9.0,
-- megatron/core/tensor_parallel/cross_entropy.py makes the fp32 copy of the
-- logits inside the loss (calculate_logits_max: .float()) and turns that
-- copy into the softmax it keeps in place ("In-place subtraction reduces
-- memory pressure": -=, exp(out=), div_). Beside what the loss keeps, its
-- forward holds only the head's bf16 logits (2 bytes x V a token), where
-- the older out-of-place code held a second fp32 tensor (4 bytes x V more).
local nd = require "nd"
local tiny = dofile("spec/support/tiny.lua")

-- The SEO dense model (24 x 512, vocabulary 128256), DP 8, one micro-batch
-- of 8 x 2048 = 16384 tokens, TP 1: the logits are 128256 a token.
local function dense() return tiny.wide_vocab_llama(24) end

local function overhead(fields)
  local r = { runtime = "megatron", dp = 8, seq_length = 2048, micro_batch_size = 8, global_batch_size = 64,
              optimizer_parallel = true }
  for k, v in pairs(fields or {}) do r[k] = v end
  return nd.estimate(dense(), nd.run(r)).stages[1].backward_overhead
end

describe("loss_inplace_softmax", function()
  it("the megatron profile states it: the loss forward adds the bf16 logits alone", function()
    assert.is_true(nd.run({ runtime = "megatron" }):spec().loss_inplace_softmax)
    -- by hand: 2 bytes x 128256 x 16384 tokens (equal to the backward's bf16 gradient cast)
    assert.are.equal(2 * 128256 * 16384, overhead())
  end)

  it("without it the forward holds the out-of-place fp32 tensor too", function()
    -- by hand: (2 + 4) bytes x 128256 x 16384 tokens
    assert.are.equal(6 * 128256 * 16384, overhead { loss_inplace_softmax = false })
  end)

  it("changes nothing where the loss keeps the compute width (no upcast)", function()
    assert.are.equal(overhead { loss_upcast = false, loss_inplace_softmax = false },
                     overhead { loss_upcast = false, loss_inplace_softmax = true })
  end)
end)
