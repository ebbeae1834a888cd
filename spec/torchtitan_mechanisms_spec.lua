-- The mechanisms of torchtitan's runtime that a measured run on one H200
-- showed (scripts/measure/torchtitan_llama.py, spec/validation/h200_torchtitan.lua),
-- each priced by hand on the tiny model and each switched by its own run
-- field, so the numbers here do not depend on the profile's other choices.
--
-- The tiny dense model (spec/support/tiny.lua): h = 64, 4 heads of 16, FFN
-- 256 (gated), vocabulary 1000, 2 layers; its parameters 2·65664 (layers) +
-- 64000 (embedding) + 64000 (head) + 64 (final norm) = 259392. An nd.run's
-- default widths: weights 2 B, compute 2 B.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local core = require "nd.core"
local tiny = dofile("spec/support/tiny.lua")

local dense = tiny.dense()
local gqa = tiny.dense { num_key_value_heads = 2 }

local function estimate(model, fields)
  return nd.estimate(model, nd.run(fields)).stages[1]
end

describe("torchtitan's memory mechanisms (nd.estimate)", function()
  it("repeat_kv: a flash kernel keeps K and V repeated to the query heads", function()
    -- 2 KV heads repeated to 4: (4 − 2) heads · (16 + 16) · 2 B = 128 B a token a layer,
    -- x 128 tokens x 2 layers = 32768 B
    local plain = estimate(gqa, { seq_length = 128 })
    local repeated = estimate(gqa, { seq_length = 128, repeat_kv = true })
    assert.are.equal(32768, repeated.activations - plain.activations)
    -- without GQA there is nothing to repeat
    assert.are.equal(estimate(dense, { seq_length = 128 }).activations,
                     estimate(dense, { seq_length = 128, repeat_kv = true }).activations)
  end)

  -- fp32 gradients kept across micro-batches: 4 B x 259392 = 1037568 B
  local GRADS = 1037568
  local kept = { seq_length = 128, grad_accumulation = true, grad_bytes = 4 }
  local function with(fields, extra)
    local t = {}
    for k, v in pairs(fields) do t[k] = v end
    for k, v in pairs(extra) do t[k] = v end
    return t
  end

  it("grads_set_to_none: at the backward's start no gradient lives yet", function()
    local before = estimate(dense, kept)
    assert.are.equal(GRADS, before.grads)
    local after = estimate(dense, with(kept, { grads_set_to_none = true }))
    -- the activations and the loss's gradient outweigh the gradients here: the peak is at the start
    assert.is_true(before.activations + before.backward_overhead > GRADS)
    assert.are.equal(0, after.grads)
    assert.are.equal(before.allocated - GRADS, after.allocated)
    assert.are.equal(before.activations, after.activations)
  end)

  it("grads_set_to_none: when the gradients outweigh the activations, the end of the backward is the peak", function()
    -- 8 tokens, every layer recomputed: little is kept, every gradient lives at the end
    local short = with(kept, { seq_length = 8, recompute = "full" })
    local before = estimate(dense, short)
    assert.is_true(before.activations + before.backward_overhead < GRADS)
    local after = estimate(dense, with(short, { grads_set_to_none = true }))
    assert.are.equal(GRADS, after.grads)
    assert.are.equal(0, after.activations)
    assert.are.equal(0, after.backward_overhead)
    assert.are.equal(tiny.static(before) + before.comm, after.allocated)
  end)

  it("grads_set_to_none: more micro-batches keep the earlier ones' gradients through the later forwards", function()
    local before = estimate(dense, with(kept, { micro_batch_num = 2 }))
    local after = estimate(dense, with(kept, { micro_batch_num = 2, grads_set_to_none = true }))
    assert.are.equal(before.allocated, after.allocated)
    assert.are.equal(GRADS, after.grads)
  end)

  -- FSDP over one rank: its embedding (64000) and head (64000 + the final norm 64) reduced last, as
  -- one group, in the 4-byte reduce width: 128064 x 4 = 512256 B of reduce-scatter input
  local TABLES = 512256
  local fsdp = with(kept, { optimizer_parallel = true, grad_shard_as_params = true, param_shard = true })

  it("grads_set_to_none under FSDP: the backward's end holds the tables' reduce-scatter input", function()
    local short = with(fsdp, { seq_length = 8, recompute = "full", grads_set_to_none = true })
    local s = estimate(dense, short)
    assert.are.equal(GRADS, s.grads)
    assert.are.equal(TABLES, s.comm)
    assert.are.equal(tiny.static(s) + TABLES, s.allocated)
  end)

  it("grad_stream_pool with two micro-batches: the kept gradients and the tables' reduce output beside them", function()
    -- the gradients live at the peak (allocated counts them); their pool adds the tables' reduce output
    -- (over 1 rank, all of it), the default stream's pool peaking at the backward's start
    local s = estimate(dense, with(fsdp, { micro_batch_num = 2, grad_stream_pool = true }))
    assert.are.equal(GRADS, s.grads)
    assert.are.equal(TABLES, s.grad_pool)
    assert.are.equal(s.allocated + TABLES, s.reserved)
  end)

  -- The tables' reduce-scatter input (TABLES) allocated after the whole backward in new segment space
  -- above the default stream's backward-start peak (tables_reduce_above_peak)
  local released = with(fsdp, { grads_set_to_none = true, grad_stream_pool = true })

  it("tables_reduce_above_peak: the tables' reduce-scatter input reserved above the backward's start", function()
    local plain = estimate(dense, released)
    local above = estimate(dense, with(released, { tables_reduce_above_peak = true }))
    -- 128 tokens: the start is the peak (no gradient live), allocated unchanged
    assert.are.equal(0, plain.grads)
    assert.are.equal(plain.allocated, above.allocated)
    -- the default stream reserves start + TABLES, the gradients' pool GRADS beside it
    assert.are.equal(plain.reserved + TABLES, above.reserved)
    assert.are.equal(GRADS, above.grad_pool)
    assert.are.equal(TABLES, above.fragmentation)
  end)

  it("tables_reduce_above_peak when the end is the allocated peak: the start's segments stay reserved", function()
    -- 8 tokens, full recompute: allocated is the end (every gradient + TABLES); the default stream
    -- reserves its start (what the same step keeps without grads_set_to_none) + TABLES, the pool GRADS
    local short = with(released, { seq_length = 8, recompute = "full" })
    local before = estimate(dense, with(short, { grads_set_to_none = false, grad_stream_pool = false }))
    local s = estimate(dense, with(short, { tables_reduce_above_peak = true }))
    assert.are.equal(tiny.static(s) + TABLES, s.allocated)
    local start = before.activations + before.comm + before.backward_overhead
    assert.are.equal(s.allocated + start, s.reserved)
  end)

  it("tables_reduce_above_peak in one pool: the input above the start, gradients kept or not", function()
    for _, fields in ipairs { with(fsdp, { grads_set_to_none = true }), fsdp } do
      local plain = estimate(dense, fields)
      local above = estimate(dense, with(fields, { tables_reduce_above_peak = true }))
      assert.are.equal(plain.allocated + TABLES, above.reserved)
    end
  end)

  -- FSDP2's foreach_reduce copies the tables' unsharded gradients (128064 weights in the 2-byte compute
  -- width: 256128 B) into their reduce-scatter input and frees them only after the copy (gather_copies)
  local COPIED = 256128

  it("gather_copies: the tables' unsharded gradients beside their input at the end, in the default stream", function()
    -- 8 tokens, full recompute, one rank: the end is the allocated peak, every gradient and TABLES.
    -- During the copy the tables' fp32 shards (512256 B over one rank) do not exist yet and they
    -- outweigh the copy, so allocated stays; the default stream's end, TABLES + COPIED, outgrows its
    -- start (102304 B: the kept layer inputs and the loss's gradient, below), reserved beside the pool
    local short = with(released, { seq_length = 8, recompute = "full" })
    local plain = estimate(dense, short)
    local s = estimate(dense, with(short, { gather_copies = true }))
    assert.are.equal(tiny.static(plain) + TABLES, plain.allocated)
    assert.are.equal(plain.allocated, s.allocated)
    assert.are.equal(plain.allocated, plain.reserved)
    assert.are.equal(s.allocated + COPIED, s.reserved)
    assert.are.equal(COPIED, s.fragmentation)
    local kept = estimate(dense, with(short, { grads_set_to_none = false, grad_stream_pool = false }))
    assert.are.equal(102304, kept.activations + kept.comm + kept.backward_overhead)
  end)

  it("gather_copies over 4 ranks: the copy outweighs the tables' shards, the allocated end grows by the rest",
     function()
    -- over 4 ranks the shards are 512256 / 4 = 128064 B and the copy 256128 B: the end holds TABLES +
    -- 128064 beside the (sharded) gradients. No DP bucket here (inplace_dp_buffers), which would
    -- otherwise hold more than both: FSDP's gathered tables and their input, 2 x 2 + 4 B a weight
    local four = with(released, { seq_length = 8, recompute = "full", dp = 4, global_batch_size = 4,
                                  inplace_dp_buffers = true })
    local plain = estimate(dense, four)
    local s = estimate(dense, with(four, { gather_copies = true }))
    assert.are.equal(GRADS / 4, s.grads)
    assert.are.equal(tiny.static(plain) + TABLES, plain.allocated)
    assert.are.equal(TABLES + COPIED - TABLES / 4, s.comm)
    assert.are.equal(plain.allocated + COPIED - TABLES / 4, s.allocated)
  end)

  it("gather_copies: the default stream's end is the peak the H200 trace shows at 2048 tokens", function()
    -- Llama 3.1 8B's tables: 2 x 128256 x 4096 + 4096 (final norm) = 1050677248 weights, the fp32 input
    -- and the bf16 copy 6 B each: 6304063488 B. The allocator's history of the measured runs
    -- (h200-torchtitan-backward-end.json) puts the default stream's allocated peak, at the backward's
    -- end, 6320480488 B over its start (the parameters and Adam states): within 0.3 %.
    local data = nd.json.decode(assert(io.open("spec/validation/data/h200-torchtitan-backward-end.json")):read("a"))
    local model = nd.model { pretrained_model_name_or_path = "meta-llama/Llama-3.1-8B",
                             config_overrides = { num_hidden_layers = 4 } }
    for i, recompute in ipairs { "full", "none" } do
      local trace = data.runs[i].trace
      assert.are.equal(2048, data.runs[i].seq)
      assert.are.equal(recompute, data.runs[i].ac)
      -- the stream's own reserved rule off: reserved is its allocated end beside the gradients' pool,
      -- which holds every gradient (the end is the allocated peak, so they are in the stage's grads)
      local s = nd.estimate(model, nd.run { runtime = "torchtitan", dp = 1, zero = 3, micro_batch_size = 1,
                                             global_batch_size = 1, seq_length = 2048, recompute = recompute,
                                             fused_swiglu = false, tables_reduce_above_peak = false }).stages[1]
      local stream_end = s.reserved - tiny.static(s)
      assert.are.equal(7692500992, s.grads) -- 1923125248 weights x 4 B, the side stream's segments (trace)
      assert.are.equal(6304063488, stream_end)
      local measured = trace.stream_peak_above_start["0"]
      assert.is_true(math.abs(stream_end / measured - 1) < 0.003, tostring(measured))
    end
  end)

  it("grad_stream_pool: the freed gradients stay reserved in their stream's pool", function()
    local s = estimate(dense, with(kept, { grads_set_to_none = true, grad_stream_pool = true,
                                           fragmentation = 0.05 }))
    assert.are.equal(GRADS, s.grad_pool)
    -- reserved = allocated x 1.05 + the pool (each part rounded to a byte)
    assert.is_true(math.abs(s.reserved - (s.allocated * 1.05 + GRADS)) <= 1)
    assert.are.equal(s.allocated + s.fragmentation + s.grad_pool, s.reserved)
    -- with the gradients live at the peak nothing is apart
    assert.is_nil(estimate(dense, with(kept, { grad_stream_pool = true })).grad_pool)
  end)
end)

describe("torchtitan's step-time mechanisms (nd.core.step_time, memory_gbps)", function()
  -- 1 TFLOP/s sustained and 1 GB/s of HBM: seconds are FLOPs / 1e12 and bytes / 1e9.
  local hw = { peak_tflops = 2, sustained_tflops = 1, memory_gbps = 1, levels = { { gbps = 1 } },
               overlap = { dp = 0, tp = 0, cp = 0, ep = 0, pp = 0 } }
  local function parts(fields)
    return core.step_time(dense, nd.run(fields), hw).parts
  end
  local function near(a, b) return math.abs(a - b) < 1e-15 end

  it("the loss's passes over the logits: 48 B an entry upcast, 18 B in the compute width", function()
    -- upcast (lw 4): casts 2·(2 + 4), log-softmax 4·4 forward and 4·4 backward, NLL's zero-fill 4 = 48;
    -- in bf16 (lw 2): 8·2 + 2 = 18. 128 tokens x 1000 entries x 30 B = 3840000 B
    local up, down = parts { seq_length = 128 }, parts { seq_length = 128, loss_upcast = false }
    assert.is_true(near((up.forward_s + up.backward_s) - (down.forward_s + down.backward_s), 3840000 / 1e9))
    -- a loss that writes its gradient in place skips the zero-fill: 128 x 1000 x 4 B
    local inplace = parts { seq_length = 128, loss_inplace_grad = true }
    assert.is_true(near((up.forward_s + up.backward_s) - (inplace.forward_s + inplace.backward_s), 512000 / 1e9))
  end)

  it("gather_copies: FSDP's copies through its buffers, each micro-batch", function()
    -- S = 4, m = 2, W = 2·65664 + 64000 + 64000 = 259328 on the rank; a micro-batch: two gathers of
    -- (2 + 2)/4 + 2·2 = 5 B, the reduce 2 + 4 + 4/4 = 7 B: 17 B a weight. 2 x 259328 x 17 = 8817152 B
    local fsdp = { dp = 4, optimizer_parallel = true, optimizer_shard = 4, grad_shard_as_params = true,
                   reshard_params = true, grad_accumulation = true, grad_bytes = 4, micro_batch_num = 2,
                   seq_length = 128 }
    local plain = parts(fsdp)
    fsdp.gather_copies = true
    assert.is_true(near(parts(fsdp).dp_s - plain.dp_s, 8817152 / 1e9))
  end)

  it("clip_scales_always: the clipping reads and writes every gradient once more", function()
    -- 259392 parameters x (read + write) x 2 B (the gradient at the weights' width) = 1037568 B
    local plain, always = parts { seq_length = 128 }, parts { seq_length = 128, clip_scales_always = true }
    assert.is_true(near(always.optimizer_s - plain.optimizer_s, 1037568 / 1e9))
  end)

  it("grads_set_to_none: a freed gradient is not zeroed for the next step", function()
    -- 4-byte gradients kept: 2·8 + 2·4 + 2·2 + 4 = 32 B a parameter; freed: 28 B
    local fields = { seq_length = 128, grad_accumulation = true, grad_bytes = 4 }
    local kept = parts(fields)
    fields.grads_set_to_none = true
    assert.is_true(near(kept.optimizer_s - parts(fields).optimizer_s, 4 * 259392 / 1e9))
  end)

  it("the per-op policy reruns k, o and up, and every element-wise op", function()
    -- FLOPs a token a layer: k 2·64·4·16 = 8192, o 2·4·16·64 = 8192, up 2·64·256 = 32768: 49152,
    -- x 128 tokens x 2 layers = 12582912. Element-wise bytes a token a layer (nd.run's eager
    -- kernels): two Transformers RMSNorms 2·64·36 = 4608 (36 B an element: the fp32 upcast, square,
    -- mean, root product, cast back and weight product), two residual adds 2·3·64·2 = 768, SiLU and
    -- the product apart 5·256·2 = 2560: 7936, x 128 x 2 = 2031616; and the rotary embedding's third in the
    -- forward, (4 + 4)·16 elements x 40 B (rotate_half, 20 B each way) / 3, x 128 x 2
    local p = parts { seq_length = 128, recompute = "selective", selective_rule = "torchtitan" }
    assert.is_true(near(p.recompute_s, 12582912 / 1e12 + (2031616 + 128 * 40 / 3 * 256) / 1e9))
  end)
end)

describe("the torchtitan runtime states them", function()
  it("repeat_kv, grads_set_to_none, grad_stream_pool, tables_reduce_above_peak, gather_copies, clip_scales_always",
     function()
    local spec = nd.run({ runtime = "torchtitan", dp = 8, zero = 3 }, dense):spec()
    for _, k in ipairs { "repeat_kv", "grads_set_to_none", "grad_stream_pool", "tables_reduce_above_peak",
                         "gather_copies", "clip_scales_always" } do
      assert.is_true(spec[k], k)
    end
    assert.is_falsy(nd.run({ runtime = "megatron" }, dense):spec().grads_set_to_none)
    -- apply_rotary_emb's fp32 complex product; Megatron's TE fused RoPE; Transformers' rotate_half
    assert.are.equal("complex", spec.rope)
    assert.are.equal("fused", nd.run({ runtime = "megatron" }, dense):spec().rope)
    assert.are.equal("rotate_half", nd.run({ runtime = "deepspeed" }, dense):spec().rope)
    assert.is_nil(nd.run({}, dense):spec().rope) -- unstated: the first form, rotate_half
  end)
end)
