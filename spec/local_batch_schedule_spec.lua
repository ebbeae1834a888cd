-- One pipeline schedule a local batch (issue 31): PyTorch's
-- torch.distributed.pipelining runs a schedule's n_microbatches to the last
-- backward inside one step() call (torch/distributed/pipelining/schedules.py),
-- and torchtitan's train_step calls pp_schedule.step() once for each of its
-- gradient_accumulation_steps = global / (local_batch_size x dp) local
-- batches (torchtitan/train.py), each schedule of local_batch_size //
-- pipeline_parallel_microbatch_size micro-batches
-- (torchtitan/distributed/pipeline_parallel.py build_pipeline_schedule);
-- NeMo AutoModel's benchmark recipe likewise (recipes/llm/benchmark.py
-- run_benchmark: ga_steps schedule steps a global step). So k local batches
-- of m micro-batches pay k pipeline bubbles and hold at most one schedule's
-- micro-batches in flight, where Megatron-LM (and HyperParallel, whose
-- micro_batch_num is the step's) runs all k·m in one schedule.
-- Every expected number below is worked out by hand from the schedule
-- formulas (src/core/timing.c pipeline_step, src/core/schedule.c); each
-- fails before the change (local_batch_size was no run field).
local nd = require "nd"

-- dp 256, micro-batch 1, global 8192: 32 micro-batches a step; local batch 8:
-- 4 schedules of 8.
local function titan(t)
  local r = { runtime = "torchtitan", dp = 256, pp = 4, micro_batch_size = 1, global_batch_size = 8192,
              seq_length = 4096 }
  for k, v in pairs(t or {}) do r[k] = v end
  return nd.run(r)
end

describe("one pipeline schedule a local batch (torchtitan, AutoModel)", function()
  it("counts the schedules and their micro-batches", function()
    local m, k = titan { local_batch_size = 8 }:schedules()
    assert.are.equal(8, m)
    assert.are.equal(4, k)
    -- unstated: the step is one local batch, one schedule of all 32
    m, k = titan():schedules()
    assert.are.equal(32, m)
    assert.are.equal(1, k)
  end)

  it("pays a bubble for each schedule under 1F1B", function()
    -- one schedule of m: Σ X + (m − 1)·max X. Equal stages of 1 s:
    -- 4 x (4 + 7) = 44 s, bubble 44 − 32 = 12 s (4 x 3); one schedule of
    -- 32: 4 + 31 = 35 s, bubble 3 s.
    local step, bubble = nd.pipeline_step(titan { local_batch_size = 8 }, { 1, 1, 1, 1 })
    assert.are.equal(44, step)
    assert.are.equal(12, bubble)
    step, bubble = nd.pipeline_step(titan(), { 1, 1, 1, 1 })
    assert.are.equal(35, step)
    assert.are.equal(3, bubble)
    -- a slow stage (2 s): 4 x (5 + 7 x 2) = 76 s, bubble 76 − 32 x 2 = 12 s;
    -- one schedule: 5 + 31 x 2 = 67 s, bubble 3 s
    step, bubble = nd.pipeline_step(titan { local_batch_size = 8 }, { 1, 2, 1, 1 })
    assert.are.equal(76, step)
    assert.are.equal(12, bubble)
  end)

  it("pays a bubble for each schedule under interleaved 1F1B (closed form)", function()
    -- Σ X/v + p(v − 1)·max/v + (m·v − p(v − 1) − 1)·max/v at p 4, v 2, X 1 s:
    -- m 8: 2 + 2 + 11/2 = 9.5 s, 4 schedules 38 s, bubble 38 − 32 = 6 s;
    -- m 32: 2 + 2 + 59/2 = 33.5 s, bubble 1.5 s.
    local step, bubble = nd.pipeline_step(titan { vpp = 2, local_batch_size = 8 }, { 1, 1, 1, 1 })
    assert.are.equal(38, step)
    assert.are.equal(6, bubble)
    step, bubble = nd.pipeline_step(titan { vpp = 2 }, { 1, 1, 1, 1 })
    assert.are.equal(33.5, step)
    assert.are.equal(1.5, bubble)
  end)

  it("prices the interleaved order's span once for each schedule", function()
    -- the same per-micro-batch stage times (same degrees, micro-batch and
    -- sequence): the step of 4 local batches of 8 has 4 times the bubble of
    -- a step of one local batch of 8 (global 64 over dp 8)
    local model = nd.model("meta-llama/Llama-3.1-8B")
    local base = { runtime = "torchtitan", dp = 8, pp = 4, vpp = 2, micro_batch_size = 1, seq_length = 4096,
                   recompute = "full" }
    local function run(t)
      local r = {}
      for k, v in pairs(base) do r[k] = v end
      for k, v in pairs(t) do r[k] = v end
      return nd.run(r)
    end
    local four = nd.step_time(model, run { global_batch_size = 256, local_batch_size = 8 }, "H100").parts
    local one = nd.step_time(model, run { global_batch_size = 64 }, "H100").parts
    local whole = nd.step_time(model, run { global_batch_size = 256 }, "H100").parts
    assert.is_true(one.bubble_s > 0)
    assert.is_true(math.abs(four.bubble_s - 4 * one.bubble_s) <= 1e-9 * four.bubble_s)
    assert.is_true(four.bubble_s > whole.bubble_s)
    -- the work is the step's 32 micro-batches either way
    assert.are.equal(whole.forward_s, four.forward_s)
  end)

  it("syncs FSDP once a schedule under torchtitan, once a step where the recipe defers it", function()
    -- torchtitan keeps a stage's weights gathered and its gradients whole
    -- under PP (pp_keeps_gathered, pp_unsharded_grads): a schedule gathers
    -- once and reduce-scatters once, at its last backward
    -- (torch/distributed/pipelining/stage.py backward_maybe_with_nosync), and
    -- FSDP2's copies run every micro-batch. So 4 schedules of 8 expose 4
    -- times the DP seconds of one schedule of 8 (same weights, same
    -- micro-batch: the gathers, the reduce-scatter and 8 micro-batches'
    -- copies, each 4 times); synced once a step (AutoModel's fsdp_mixin.py)
    -- they expose less: one gather and one reduce-scatter, 32 copies.
    local model = nd.model("meta-llama/Llama-3.1-8B")
    local base = { runtime = "torchtitan", dp = 8, pp = 4, micro_batch_size = 1, seq_length = 4096,
                   recompute = "full" }
    local function dp_s(t)
      local r = {}
      for k, v in pairs(base) do r[k] = v end
      for k, v in pairs(t) do r[k] = v end
      return nd.step_time(model, nd.run(r), "H100").parts.dp_s
    end
    local one = dp_s { global_batch_size = 64 }
    local four = dp_s { global_batch_size = 256, local_batch_size = 8 }
    local deferred = dp_s { global_batch_size = 256, local_batch_size = 8, dp_sync_per_schedule = false }
    assert.is_true(one > 0)
    assert.is_true(math.abs(four - 4 * one) <= 1e-12 * four)
    assert.is_true(deferred < four)
    -- one schedule a step: the same either way
    assert.are.equal(dp_s { global_batch_size = 256 }, dp_s { global_batch_size = 256, dp_sync_per_schedule = false })
  end)

  it("keeps the sharded gradients of the earlier schedules beside the unsharded ones (torchtitan)", function()
    -- Each schedule's last backward runs FSDP2's post_backward
    -- (torch/distributed/pipelining/stage.py backward_maybe_with_nosync):
    -- the unsharded fp32 gradients go to foreach_reduce and are freed
    -- (_fsdp_param_group.py post_backward), and the reduce-scatter's output is
    -- set or added into sharded_param.grad (_fsdp_collectives.py
    -- foreach_reduce), kept to the optimizer's zero_grad; the next schedule
    -- accumulates unsharded gradients again beside it.
    -- The tiny model (spec/support/tiny.lua: hidden 64, 2 layers, MLP 256,
    -- vocabulary 1000), PP 2, DP 2: a layer holds 4 x 64 x 64 (attention)
    -- + 3 x 64 x 256 (gated MLP) + 2 x 64 (norms) = 65664 weights; stage 0
    -- the layer and the embedding, 1000 x 64: 129664; stage 1 the layer, the
    -- head and the final norm: 65664 + 64000 + 64 = 129728. Gradients fp32
    -- (4 bytes), whole on a stage through a schedule (DP 2 does not divide
    -- them, TP 1): 518656 and 518912 bytes; the kept shards over DP 2 add
    -- half of that: 259328 and 259456 bytes.
    local tiny = dofile("spec/support/tiny.lua")
    local model = tiny.dense()
    local function stages(t)
      local r = { runtime = "torchtitan", dp = 2, pp = 2, micro_batch_size = 1, global_batch_size = 8,
                  seq_length = 128 }
      for k, v in pairs(t) do r[k] = v end
      return nd.estimate(model, nd.run(r)).stages
    end
    -- 4 micro-batches a step: one schedule of 4, or 2 schedules of 2
    local one, two = stages {}, stages { local_batch_size = 2 }
    assert.are.equal(518656, one[1].grads)
    assert.are.equal(518912, one[2].grads)
    assert.are.equal(518656 + 259328, two[1].grads)
    assert.are.equal(518912 + 259456, two[2].grads)
    -- what a device holds grows by them alone (the same in-flight count at m 2 and 4 on PP 2),
    -- the pipeline's receive buffers apart (one a micro-batch of the schedule: fewer at m 2,
    -- spec/pp_recv_buffers_spec.lua)
    local function held(st) return st.allocated - (st.recv_buffers or 0) end
    assert.are.equal(259328, held(two[1]) - held(one[1]))
    assert.are.equal(259456, held(two[2]) - held(one[2]))
    -- synced once a step (AutoModel's MoE recipes): nothing kept between schedules
    local deferred = stages { local_batch_size = 2, dp_sync_per_schedule = false }
    assert.are.equal(518656, deferred[1].grads)
    assert.are.equal(held(one[1]), held(deferred[1]))
  end)

  it("holds one schedule's micro-batches in flight", function()
    -- 1F1B holds min(p, m) − stage: local batch 2 (m 2 a schedule) at p 4:
    -- stage 0 holds 2 (4 with one schedule of 32), stage 1 holds 1
    local r = titan { local_batch_size = 2 }
    assert.are.equal(2, r:micro_factor(0, 0))
    assert.are.equal(1, r:micro_factor(1, 0))
    assert.are.equal(4, titan():micro_factor(0, 0))
    -- GPipe holds all of a schedule's m: 8, not the step's 32
    assert.are.equal(8, titan { local_batch_size = 8, pp_schedule = "gpipe" }:micro_factor(0, 0))
    assert.are.equal(32, titan { pp_schedule = "gpipe" }:micro_factor(0, 0))
    -- interleaved at p 4, v 2: stage 0 runs 2(p − 1) + (v − 1)p + 1 = 11
    -- forwards before its first backward, 7 of the first chunk and 4 of the
    -- second; a schedule of 4 micro-batches has only 4 of each chunk
    -- (torch.distributed.pipelining caps its warm-up at the schedule's
    -- micro-batches): 4 and 4
    r = titan { vpp = 2, local_batch_size = 4 }
    assert.are.equal(4, r:micro_factor(0, 0))
    assert.are.equal(4, r:micro_factor(0, 1))
    assert.are.equal(7, titan { vpp = 2 }:micro_factor(0, 0))
  end)

  it("is a fact of the torchtitan profile, not of Megatron or HyperParallel", function()
    assert.is_true(titan():spec().schedule_per_local_batch)
    assert.is_true(titan():spec().dp_sync_per_schedule)
    for _, rt in ipairs { "megatron", "hyperparallel" } do
      local ok, err = pcall(nd.run, { runtime = rt, dp = 256, pp = 4, micro_batch_size = 1,
                                      global_batch_size = 8192, local_batch_size = 8 })
      assert.is_false(ok)
      assert.truthy(tostring(err.message or err):find("in one pipeline schedule", 1, true))
    end
  end)

  it("refuses a local batch that does not split the step into whole schedules", function()
    local ok, err = pcall(titan, { micro_batch_size = 2, global_batch_size = 8192, local_batch_size = 3 })
    assert.is_false(ok)
    assert.truthy(tostring(err.message or err):find("not a multiple of micro_batch_size", 1, true))
    ok, err = pcall(titan, { local_batch_size = 3 })
    assert.is_false(ok)
    assert.truthy(tostring(err.message or err):find("does not divide", 1, true))
    local r = titan { local_batch_size = 8 }
    assert.is_false((pcall(r.with, r, { micro_batch_size = 16, global_batch_size = 8192 })))
  end)

  it("a search prices each candidate as one schedule a step (its own local batch)", function()
    local model = nd.model("meta-llama/Llama-3.1-8B")
    local base = nd.run { runtime = "torchtitan", dp = 4, pp = 4, micro_batch_size = 1, global_batch_size = 64,
                          local_batch_size = 4, seq_length = 4096, recompute = "full" }
    local rows = nd.search(model, base, { devices = 16, dims = { "DP", "PP" }, top = 100, hardware = "H100" })
    assert.is_true(#rows > 0)
    local core = require "nd.core"
    for _, row in ipairs(rows) do
      local run = core.candidate_run(base, row)
      local m, k = run:schedules()
      assert.are.equal(row.mb, m)
      assert.are.equal(1, k)
      assert.is_nil(run.local_batch_size)
    end
  end)
end)
