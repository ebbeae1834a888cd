-- PyTorch pipelining's receive buffers (issue 31): a PipelineStage allocates
-- them once, at its first step(), one per micro-batch of the schedule, and
-- keeps them all run (torch/distributed/pipelining/stage.py:
-- PipelineStage._prepare_forward_infra, `for chunk_id in range(num_microbatches)`,
-- one _make_tensor_from_meta of the stage's input meta on a stage that is
-- not the first; _prepare_backward_infra -> _create_grad_recv_info, one of
-- its output meta a micro-batch on a stage that is not the last;
-- clear_runtime_states, each step(), sets only the input buffers' .grad to
-- None). Each chunk of an interleaved schedule is a stage of its own.
-- Every expected number is worked out by hand below; each test fails
-- before the change (no stage had a recv_buffers part).
local nd = require "nd"
local tiny = dofile("spec/support/tiny.lua")

-- The tiny model (spec/support/tiny.lua): hidden 64. torchtitan computes in
-- bf16 (2 bytes); micro-batch 1 of 128 tokens: a buffer holds the hidden
-- states of one micro-batch, 128 x 64 x 2 = 16384 bytes.
local BUFFER = 128 * 64 * 2

local function stages(model, t)
  local r = { runtime = "torchtitan", dp = 2, pp = 2, micro_batch_size = 1, global_batch_size = 8,
              seq_length = 128 }
  for k, v in pairs(t or {}) do r[k] = v end
  return nd.estimate(model, nd.run(r)).stages
end

describe("PyTorch pipelining's receive buffers (torchtitan profile)", function()
  it("keeps m output-gradient buffers on a stage not the last and m input buffers on one not the first", function()
    -- PP 2, DP 2, global 8: m = 4 micro-batches, one schedule. Stage 0 (the
    -- first, not the last): 4 gradient buffers = 65536 bytes. Stage 1 (the
    -- last): 4 input buffers, of which the one micro-batch 1F1B holds in
    -- flight there (min(p, m) - stage = 1) is its first layer's input, which
    -- the activations already count: 3 beside them = 49152 bytes.
    local model = tiny.dense()
    local on = stages(model)
    assert.are.equal(4 * BUFFER, on[1].recv_buffers)
    assert.are.equal(3 * BUFFER, on[2].recv_buffers)
    -- what each stage allocates grows by them alone
    local off = stages(model, { recv_buffers_per_micro_batch = false })
    assert.is_nil(off[1].recv_buffers)
    assert.are.equal(65536, on[1].allocated - off[1].allocated)
    assert.are.equal(49152, on[2].allocated - off[2].allocated)
    assert.are.equal(on[1].activations, off[1].activations)
  end)

  it("counts one schedule's micro-batches, not the step's", function()
    -- local batch 2: two schedules of m = 2. Stage 0: 2 gradient buffers;
    -- stage 1: 2 input buffers, 1 in flight: 1 beside.
    local two = stages(tiny.dense(), { local_batch_size = 2 })
    assert.are.equal(2 * BUFFER, two[1].recv_buffers)
    assert.are.equal(1 * BUFFER, two[2].recv_buffers)
  end)

  it("keeps them for each chunk of an interleaved schedule", function()
    -- 4 layers, PP 2, v 2, m 4: virtual stages 0..3, chunk c of stage s is
    -- c x 2 + s. In flight (schedule.c interleaved, base min(p, m) = 2):
    -- stage 0 chunk 0 holds 3, chunk 1 holds 2; stage 1 chunk 0 holds 2,
    -- chunk 1 holds 1.
    -- stage 0: chunk 0 (virtual 0) 4 gradient buffers; chunk 1 (virtual 2)
    --   4 - 2 input buffers beside the activations and 4 gradient ones: 10.
    -- stage 1: chunk 0 (virtual 1) 4 - 2 input and 4 gradient buffers;
    --   chunk 1 (virtual 3, the last) 4 - 1 input buffers: 9.
    local st = stages(tiny.dense { num_hidden_layers = 4 }, { vpp = 2 })
    assert.are.equal(10 * BUFFER, st[1].recv_buffers)
    assert.are.equal(9 * BUFFER, st[2].recv_buffers)
  end)

  it("holds the sequence-parallel share of the hidden states under TP", function()
    -- TP 2 with sequence parallelism (as the run states it; torchtitan's TP
    -- plan shards the block inputs over the sequence, Shard(1)): the residual stream between blocks is
    -- sharded over the sequence, 64 of the 128 tokens a buffer: stage 0's 4
    -- gradient buffers are 4 x 8192 bytes.
    local st = stages(tiny.dense(), { tp = 2, sequence_parallel = true, dp = 1, global_batch_size = 4 })
    assert.are.equal(4 * BUFFER / 2, st[1].recv_buffers)
  end)

  it("is a fact of the torchtitan profile alone, and needs a pipeline", function()
    local model = tiny.dense()
    assert.is_nil(stages(model, { runtime = "megatron" })[1].recv_buffers)
    assert.is_nil(stages(model, { pp = 1, dp = 4 })[1].recv_buffers)
  end)
end)
