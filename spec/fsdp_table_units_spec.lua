-- FSDP2 with the embedding and the head as units of their own (issue 31
-- item 2): FSDPParamGroup.post_backward (PyTorch's torch/distributed/fsdp/
-- _fully_shard/_fsdp_param_group.py) runs per unit as that unit's backward
-- ends: it takes the unit's unsharded gradients, reshards (frees the
-- gathered weights), then foreach_reduce copies the gradients into a
-- reduce-dtype reduce-scatter input and frees them ("Only after the copy-in
-- finishes can we free the gradients"). torchtitan leaves the embedding, the
-- final norm and the head to the root group, reduced once after the whole
-- backward: the backward's end holds both tables' unsharded gradients (bf16)
-- and their fp32 input. MindSpeed-LLM's FSDP2 (fsdp_modules listing
-- embed_tokens and lm_head) wraps each table alone: the head's unit is
-- reduced as the backward starts, so the end holds the embedding's alone
-- (fsdp_table_units).
local nd = require "nd"
local tiny = dofile("spec/support/tiny.lua")

-- 24 layers, hidden 512, vocabulary 128256, untied: each table holds
-- 128256 x 512 = 65667072 parameters. FSDP over one rank (as the H200
-- calibration runs measure torchtitan): no gather buffers at the backward's
-- start, so its end is the peak.
local function model() return tiny.wide_vocab_llama(24) end

local function stage(fields)
  local r = { runtime = "torchtitan", dp = 1, seq_length = 128, micro_batch_size = 1, global_batch_size = 1,
              recompute = "full" }
  for k, v in pairs(fields or {}) do r[k] = v end
  return nd.estimate(model(), nd.run(r)).stages[1]
end

describe("fsdp_table_units", function()
  it("the backward's end holds the head's fp32 reduce-scatter input under the root group only", function()
    local root, units = stage(), stage { fsdp_table_units = true }
    -- the end is the peak of both (no activation left there)
    assert.are.equal(0, root.activations)
    assert.are.equal(0, units.activations)
    -- by hand: (65667072 + 512) x 4 bytes less: the head with the final norm's 512
    -- weights, which ndlua's output row holds (on one rank the head's copied bf16
    -- gradients weigh less than its fp32 shard, which the end counts once)
    assert.are.equal((65667072 + 512) * 4, root.allocated - units.allocated)
  end)

  it("the backward's start holds the head's own unit's buffers once: the stage's FSDP buffers", function()
    -- FSDP over 8 ranks: the head (with the final norm, 65667072 + 512 weights) gathered again
    -- for its backward in bf16 (2 bytes a weight), its bf16 gradient (2) and the fp32
    -- reduce-scatter input (4): 8 bytes a weight, the largest unit's buffers, which the stage's
    -- comm holds. Under the root group the start also holds the tables' kept buffers (priced as
    -- the head's again); as a unit of its own nothing more (by hand).
    local root, units = stage { dp = 8, global_batch_size = 8 }, stage { dp = 8, global_batch_size = 8,
                                                                        fsdp_table_units = true }
    -- the start is the peak of both: no gradient lives there yet
    assert.are.equal(0, root.grads)
    assert.are.equal(0, units.grads)
    assert.are.equal((65667072 + 512) * 8, root.comm)
    assert.are.equal((65667072 + 512) * 8, units.comm)
    assert.are.equal((65667072 + 512) * 8, root.backward_overhead - units.backward_overhead)
    assert.are.equal((65667072 + 512) * 8, root.allocated - units.allocated)
  end)

  it("stated by no runtime profile (torchtitan's root group is its default)", function()
    assert.is_not_true(nd.run({ runtime = "torchtitan" }):spec().fsdp_table_units)
  end)
end)
