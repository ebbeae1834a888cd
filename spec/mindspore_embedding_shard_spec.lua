-- MindSpore's parallel optimizer shards the embedding over the optimizer
-- shard group, as every other parameter (issue 31 item 3, a candidate of the
-- DeepSeek-V3 static gap). OperatorInfo::CreateGroupForOptShard
-- (mindspore/ccsrc/frontend/parallel/ops_info/operator_info.cc) takes the
-- devices that repeat a parameter and, with optimizer_weight_shard_size set,
-- cuts them into groups of that size ("not fully use opt shard"); the
-- parameter's slice and its optimizer states are over that group. ndlua
-- divides the embedding by the group, as the layers and the head; divided
-- by the whole data-parallel degree (the seed's rule) the first stage
-- would be short.
--
-- The tiny dense model (spec/support/tiny.lua), 4 layers: a layer holds
-- 65664 parameters, the embedding 1000 x 64 = 64000. PP 2: the first stage
-- holds two layers and the embedding, 2 x 65664 + 64000 = 195328. DP 4,
-- optimizer shard 2, fp32 parameters (4 B), two fp32 Adam states (8 B),
-- accu_grads fp32 (4 B) whole over DP unless gradient_accumulation_shard.
local nd = require "nd"
local tiny = dofile("spec/support/tiny.lua")

local m = tiny.dense { num_hidden_layers = 4 }
local FIRST = 2 * 65664 + 64000

local function first_stage(fields)
  local spec = { runtime = "mindspore", dp = 4, pp = 2, optimizer_parallel = true, optimizer_shard = 2,
                 seq_length = 128, micro_batch_size = 1, global_batch_size = 8 }
  for k, v in pairs(fields or {}) do spec[k] = v end
  return nd.estimate(m, nd.run(spec)).stages[1]
end

describe("MindSpore's embedding under the parallel optimizer", function()
  it("its weights and optimizer states divide by the optimizer shard (2), as the layers'", function()
    local s = first_stage()
    assert.are.equal(FIRST * 4 / 2, s.params) -- 390656 B (326656 with the embedding over DP 4)
    assert.are.equal(FIRST * 8 / 2, s.optimizer) -- 781312 B (653312 with it over DP 4)
  end)

  it("its accu_grads stay whole over DP without gradient_accumulation_shard", function()
    assert.are.equal(FIRST * 4, first_stage().grads)
  end)

  it("with gradient_accumulation_shard its accu_grads are sliced over the same group", function()
    assert.are.equal(FIRST * 4 / 2, first_stage { grad_shard = true }.grads) -- 326656 with it over DP 4
  end)

  it("an optimizer shard spanning DP gives the seed's division (4)", function()
    assert.are.equal(FIRST * 4 / 4, first_stage { optimizer_shard = 4 }.params)
  end)

  it("without emb_opt_group the seed's rule: the embedding over the whole DP", function()
    assert.are.equal(2 * 65664 * 4 / 2 + 64000 * 4 / 4, first_stage { emb_opt_group = false }.params)
  end)
end)
