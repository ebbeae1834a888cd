-- MindSpore's pipeline gradient accumulation (issue 31 item 3).
--
-- Under PP the pipeline wrapper clones the optimizer's parameters into
-- accu_grads (fp32 with fp32 parameters). The pipeline pass adds each
-- micro-batch's gradient into them where the backward produces it
-- (InsertVirtualAssignAdd in MindSpore's pipeline_split_utils.cc), so the stage
-- holds one parameter-sized fp32 gradient buffer, not two. It is whole over DP
-- unless gradient_accumulation_shard (grad_shard) is on; then it is sliced as
-- the parameters are, over the optimizer shard group (optimizer_weight_shard_size),
-- not over the whole DP degree (the mindspore profile's grad_shard_opt_group).
--
-- The tiny dense model (spec/support/tiny.lua) with 4 layers: h = 64, 4 heads
-- of 16, MLP 256 gated, vocabulary 1000, untied. A layer holds q, k, v, o
-- (4 x 64 x 64 = 16384), gate, up, down (3 x 64 x 256 = 49152) and two norms
-- (128): 65664 parameters. PP 2 puts two layers on each stage; the last holds
-- the head (1000 x 64 = 64000) and the final norm (64): 64064.
-- DP 4, TP 1, optimizer shard 2.
local nd = require "nd"
local tiny = dofile("spec/support/tiny.lua")

local m = tiny.dense { num_hidden_layers = 4 }
local LAST = 2 * 65664 + 64064 -- 195392 parameters on the last stage
local FIRST = 2 * 65664 + 64000 -- 195328: two layers and the embedding

local function stages(fields)
  local spec = { runtime = "mindspore", dp = 4, pp = 2, optimizer_parallel = true, optimizer_shard = 2,
                 seq_length = 128, micro_batch_size = 1, global_batch_size = 8 }
  for k, v in pairs(fields) do spec[k] = v end
  return nd.estimate(m, nd.run(spec)).stages
end
local function last_stage(fields) local s = stages(fields) return s[#s] end

describe("MindSpore accu_grads under PP", function()
  it("one fp32 buffer, whole over DP by default (gradient_accumulation_shard off)", function()
    assert.are.equal(LAST * 4, last_stage {}.grads)
  end)

  it("the embedding's accu_grads whole over DP too, though the parallel optimizer shards its weights", function()
    assert.are.equal(FIRST * 4, stages {}[1].grads)
  end)

  it("gradient_accumulation_shard: sliced over the optimizer shard group (2), not DP (4)", function()
    assert.are.equal(LAST * 4 / 2, last_stage { grad_shard = true }.grads)
  end)

  it("with the optimizer shard spanning DP the two rules agree (4)", function()
    assert.are.equal(LAST * 4 / 4, last_stage { grad_shard = true, optimizer_shard = 4 }.grads)
  end)

  it("grad_shard without grad_shard_opt_group keeps ZeRO-2's whole-DP slicing", function()
    assert.are.equal(LAST * 4 / 4, last_stage { grad_shard = true, grad_shard_opt_group = false }.grads)
  end)
end)
