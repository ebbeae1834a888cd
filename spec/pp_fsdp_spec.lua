-- Pipeline parallelism with FSDP (issue 31 item 2).
--
-- PyTorch's pipelining schedules run each micro-batch's backward through
-- PipelineStage.backward_maybe_with_nosync, which for an FSDP2 module calls
-- set_requires_gradient_sync(last_backward): until the step's last
-- micro-batch the gradients accumulate unsharded (FSDPParam's
-- unsharded_accumulated_grad, in the reduce dtype) and are reduce-scattered
-- once after it (pp_unsharded_grads). torchtitan's apply_fsdp also turns
-- reshard_after_forward off when PP is on, so a stage keeps its gathered
-- weights between micro-batches (pp_keeps_gathered). The torchtitan profile
-- states both.
--
-- The tiny dense model (spec/support/tiny.lua) with 4 layers: h = 64,
-- 4 heads of 16, MLP 256 gated, vocabulary 1000, untied. A layer holds
-- q, k, v, o (4 x 64 x 64 = 16384), gate, up, down (3 x 64 x 256 = 49152)
-- and two norms (128): 65664 parameters. PP 2 puts two layers on each
-- stage, the embedding (64000) on the first.
local nd = require "nd"
local tiny = dofile("spec/support/tiny.lua")

local m = tiny.dense { num_hidden_layers = 4 }
local LAYER, EMBEDDING = 65664, 64000

local function first_stage(fields)
  local spec = { zero = 3, dp = 4, pp = 2, param_bytes = 4, compute_bytes = 2, grad_bytes = 4, seq_length = 128,
                 micro_batch_size = 1, global_batch_size = 8 }
  for k, v in pairs(fields) do spec[k] = v end
  return nd.estimate(m, nd.run(spec)).stages[1]
end

describe("PP with FSDP", function()
  it("gradients sharded over DP unless stated otherwise (ZeRO-3 reduce-scatters every micro-batch)", function()
    assert.are.equal((2 * LAYER + EMBEDDING) * 4 / 4, first_stage {}.grads)
  end)

  it("pp_unsharded_grads: the stage's fp32 gradients held whole over DP through the micro-batches", function()
    assert.are.equal((2 * LAYER + EMBEDDING) * 4, first_stage { pp_unsharded_grads = true }.grads)
  end)

  it("pp_unsharded_grads changes nothing without PP (one stage reduce-scatters as it goes)", function()
    assert.are.equal(first_stage { pp = 1 }.grads, first_stage { pp = 1, pp_unsharded_grads = true }.grads)
  end)

  it("pp_keeps_gathered: the stage's two layers' bf16 weights stay gathered", function()
    assert.are.equal(2 * LAYER * 2, first_stage { pp_keeps_gathered = true }.comm - first_stage {}.comm)
  end)

  it("the torchtitan profile states both", function()
    local r = nd.run { runtime = "torchtitan", dp = 4, pp = 2 }
    assert.is_true(r.pp_unsharded_grads)
    assert.is_true(r.pp_keeps_gathered)
  end)
end)
