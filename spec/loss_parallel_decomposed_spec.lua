-- torchtitan's loss under TP (issue 31, the 70B FSDP 32 x TP 8 row of
-- spec/validation/torchtitan_performance.lua): inside its loss_parallel
-- context PyTorch routes the cross-entropy to DTensor's handlers
-- (torch/distributed/tensor/parallel/loss.py). _log_softmax is decomposed:
-- shifted = x - max (a new fp32 tensor beside the upcast logits x), then
-- exp(shifted) is summed and the result is shifted - logsumexp, so the
-- forward holds shifted beside exp(shifted) or the result. The backward
-- fuses NLL and log-softmax, (grad_input + exp(x)) * grad_output with
-- grad_input = zeros_like(x): beside the kept x it holds grad_input, exp(x)
-- and their sum (then the product). ATen's fused kernels hold one fp32
-- tensor fewer at each peak: loss_parallel_decomposed adds 4 bytes a local
-- vocabulary entry, where the logits are split over TP.
local nd = require "nd"
local tiny = dofile("spec/support/tiny.lua")

-- A 2-layer model with a large vocabulary (128256) so that the loss is the
-- peak: hidden 512, 4 heads of 128, 1 KV head, MLP 1792, untied.
local function model() return tiny.wide_vocab_llama(2) end

local function overhead(fields)
  local r = { runtime = "torchtitan", dp = 1, tp = 2, sequence_parallel = true, loss_parallel = true,
              seq_length = 2048, micro_batch_size = 1, global_batch_size = 1, recompute = "full" }
  for k, v in pairs(fields or {}) do r[k] = v end
  return nd.estimate(model(), nd.run(r)).stages[1].backward_overhead
end

describe("loss_parallel_decomposed", function()
  it("the torchtitan profile states it", function()
    assert.is_true(nd.run({ runtime = "torchtitan" }):spec().loss_parallel_decomposed)
  end)

  it("one more fp32 tensor of the rank's logits at the loss's backward peak", function()
    -- by hand: 4 bytes x (128256 / 2) local vocabulary x 2048 tokens
    assert.are.equal(4 * 64128 * 2048, overhead() - overhead { loss_parallel_decomposed = false })
  end)

  it("nothing without TP (torchtitan's loss_parallel needs tp > 1)", function()
    assert.are.equal(overhead { tp = 1, sequence_parallel = false },
                     overhead { tp = 1, sequence_parallel = false, loss_parallel_decomposed = false })
  end)
end)
