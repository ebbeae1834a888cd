-- The time model (src/core/timing.c) seen through nd.core.layer_traffic,
-- nd.core.pipeline_step and nd.core.step_time: the bytes each collective
-- moves for a hand-computed case, each schedule's step and bubble, and a
-- whole step of a tiny model priced by hand.
--
-- The tiny dense model (spec/support/tiny.lua): h = 64, 4 heads of 16
-- (= h / a), 4 KV heads, FFN 256 (gated: 3 matrices), vocabulary 1000, 2
-- layers, the default op profile (4 gathers). Its layer's weights:
-- attention h·a·d + 2·h·kv·d + a·d·h = 4·64·64 = 16384, norms 2·64 = 128,
-- MLP 3·64·256 = 49152. Byte widths of an nd.run: params 2, compute 2,
-- gradients 0 without accumulation and with one stage (reductions then
-- move the parameter width, 2).
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local core = require "nd.core"
local tiny = dofile("spec/support/tiny.lua")

local dense = tiny.dense()
local moe = tiny.dense { num_experts = 8, num_experts_per_tok = 2, moe_intermediate_size = 128 }

local function traffic(model, fields)
  return core.layer_traffic(model, nd.run(fields), "decoder")
end

describe("bytes a rank moves for one layer and micro-batch (nd.core.layer_traffic)", function()
  it("TP: gathers/4 · 8·(t − 1)/t · tokens·h·bc", function()
    -- 4/4 · 8 · (2 − 1)/2 · 128 tokens · 64 · 2 B = 65536
    assert.are.equal(65536, traffic(dense, { tp = 2, seq_length = 128 }).tp)
    -- t = 4: 8 · 3/4 · 128 · 64 · 2 = 98304
    assert.are.equal(98304, traffic(dense, { tp = 4, seq_length = 128 }).tp)
    assert.are.equal(0, traffic(dense, { tp = 1, seq_length = 128 }).tp)
  end)

  it("CP ring: 3·(cp − 1) · tokens·kv·(d_qk + d_v)·bc / t, tokens = s·b/cp", function()
    -- cp 2: 64 tokens a rank; 3 · 1 · 64 · 4 · 32 · 2 = 49152
    assert.are.equal(49152, traffic(dense, { cp = 2, seq_length = 128 }).cp)
    -- cp 4, tp 2: 32 tokens; 3 · 3 · 32 · 4 · 32 · 2 / 2 = 36864
    assert.are.equal(36864, traffic(dense, { cp = 4, tp = 2, seq_length = 128 }).cp)
  end)

  it("CP Ulysses: 8·(cp − 1)/cp · tokens·(a + kv)·(d_qk + d_v)·bc / t", function()
    -- 8 · 1/2 · 64 · (4 + 4) · 32 · 2 = 131072
    assert.are.equal(131072, traffic(dense, { cp = 2, seq_length = 128, cp_algo = "ulysses_cp" }).cp)
  end)

  it("EP: 4·(ep − 1)/ep · top-k·tokens·h·bc (dispatch and combine, each way)", function()
    -- 4 · 3/4 · 2 · 128 · 64 · 2 = 98304 (grouped GEMM: no capacity factor)
    assert.are.equal(98304, traffic(moe, { dp = 4, ep = 4, seq_length = 128 }).ep)
    -- without grouped GEMM the capacity factor multiplies the copies: x 1.5
    assert.are.equal(147456, traffic(moe, { dp = 4, ep = 4, seq_length = 128, grouped_gemm = false,
                                            capacity_factor = 1.5 }).ep)
    assert.are.equal(0, traffic(dense, { dp = 4, seq_length = 128 }).ep)
  end)

  it("EP under Megatron-Core's folding with ETP = TP and SP: the rank's shard, then the expert-TP gather", function()
    -- TP 2 with SP, experts split over TP 2 (etp unstated), EP 4 from DP 4. Not folding: every rank
    -- dispatches the whole micro-batch, 98304 as above, and nothing gathers after
    local plain = traffic(moe, { dp = 4, tp = 2, ep = 4, seq_length = 128, sequence_parallel = true })
    assert.are.equal(98304, plain.ep)
    assert.are.equal(0, plain.etp)
    -- folding (MoEAlltoAllTokenDispatcher, token_dispatcher.py): the all-to-all carries the rank's
    -- S/TP tokens, 98304 / 2 = 49152, then the expert-TP group of 2 all-gathers what each received
    -- (2 · 128 / 2 routed tokens) and the combine reduce-scatters it, forward and backward:
    -- 4 · (2 − 1)/2 · 2 · 128 · 64 · 2 = 65536
    local folded = traffic(moe, { dp = 4, tp = 2, ep = 4, seq_length = 128, sequence_parallel = true,
                                  expert_folding = true })
    assert.are.equal(49152, folded.ep)
    assert.are.equal(65536, folded.etp)
    -- DeepEP's flex dispatcher sends the rank's shard to each TP rank of an expert: the whole bytes
    local deepep = traffic(moe, { dp = 4, tp = 2, ep = 4, seq_length = 128, sequence_parallel = true,
                                  expert_folding = true, deepep = true })
    assert.are.equal(98304, deepep.ep)
    assert.are.equal(0, deepep.etp)
  end)

  it("DP all-reduce: 2·(d − 1)/d · W · reduce width, once a step", function()
    -- the dense layer's W = 16384 + 128 + 49152 = 65664; d = 4: 2 · 3/4 · 65664 · 2 = 196992
    assert.are.equal(196992, traffic(dense, { dp = 4, seq_length = 128 }).dp)
    -- the MoE layer's W = 16384 + 128 + router 64·8 = 512, and its 8 experts of 3·64·128 = 24576
    -- over EP 4: 16384 + 128 + 512 + 8·24576/4 = 66176; 2 · 3/4 · 66176 · 2 = 198528
    assert.are.equal(198528, traffic(moe, { dp = 4, ep = 4, seq_length = 128 }).dp)
  end)

  it("DP under FSDP: each micro-batch gathers (twice when resharding) and reduce-scatters, (S − 1)/S of W", function()
    -- S = 4, m = 2, W = 65664, gradients in 4 B (accumulated): 2 · 3/4 · 65664 · (2·2 + 4) = 787968
    local fsdp = { dp = 4, optimizer_parallel = true, optimizer_shard = 4, grad_shard_as_params = true,
                   reshard_params = true, grad_accumulation = true, grad_bytes = 4, micro_batch_num = 2,
                   seq_length = 128 }
    assert.are.equal(787968, traffic(dense, fsdp).dp)
    -- HSDP: shards of 2, 2 replicas: 2 · 1/2 · 65664 · 8 + 2 · (2 − 1)/2 · 65664/2 · 4 = 525312 + 131328
    fsdp.optimizer_shard = 2
    assert.are.equal(656640, traffic(dense, fsdp).dp)
  end)
end)

describe("the step from the stage times (nd.core.pipeline_step)", function()
  local x = { 1, 2, 3, 4 } -- Σ = 10, max = 4
  local function step(fields)
    local s, bubble = core.pipeline_step(nd.run(fields), x)
    return s, bubble
  end

  it("1F1B: Σ + (m − 1)·max; the bubble is what exceeds m·max", function()
    local s, b = step { pp = 4, micro_batch_num = 8 }
    assert.are.equal(10 + 7 * 4, s)
    assert.are.equal(38 - 32, b)
  end)

  it("GPipe: the same formula as 1F1B", function()
    assert.are.equal(38, (step { pp = 4, micro_batch_num = 8, pp_schedule = "gpipe" }))
  end)

  it("interleaved, v = 2: Σ/v + p(v − 1)·max/v + (m·v − p(v − 1) − 1)·max/v", function()
    -- 10/2 + 4·1·4/2 + (16 − 4 − 1)·4/2 = 5 + 8 + 22 = 35; bubble 35 − 32 = 3
    local s, b = step { pp = 4, vpp = 2, micro_batch_num = 8 }
    assert.are.equal(35, s)
    assert.are.equal(3, b)
  end)

  it("DualPipeV (zero_bubble_v): m·max + (p − 1)·max/2, half of 1F1B's fill", function()
    local s, b = step { pp = 4, vpp = 2, micro_batch_num = 8, pp_schedule = "zero_bubble_v" }
    assert.are.equal(32 + 3 * 4 / 2, s)
    assert.are.equal(6, b)
  end)

  it("seqpipe: m·max + (p − 1)·max/n with n sequence chunks", function()
    local s, b = step { pp = 4, micro_batch_num = 8, pp_schedule = "seqpipe", seq_split = 4 }
    assert.are.equal(32 + 3 * 4 / 4, s)
    assert.are.equal(3, b)
  end)

  it("one stage: m · its time, no bubble", function()
    local s, b = core.pipeline_step(nd.run { micro_batch_num = 8 }, { 2.5 })
    assert.are.equal(20, s)
    assert.are.equal(0, b)
  end)
end)

describe("a whole step priced by hand (nd.core.step_time)", function()
  -- One level of 8 devices at 1 GB/s, no overlap, 1 TFLOP/s sustained, 2 peak.
  local hw = { peak_tflops = 2, sustained_tflops = 1, levels = { { gbps = 1 } },
               overlap = { dp = 0, tp = 0, cp = 0, ep = 0, pp = 0 } }
  -- Forward FLOPs a token of a layer: 2·16384 (projections) + 2·4·128·32·0.5 (causal scores) + 2·49152
  -- (MLP) = 147456; two layers 294912; the head 2·1000·64 = 128000: 422912 a token, 54132736 for 128.
  local F = 422912 * 128

  it("one device, one micro-batch: forward, twice that backward, MFU = sustained/peak", function()
    local t = core.step_time(dense, nd.run { seq_length = 128 }, hw)
    assert.is_true(math.abs(t.parts.forward_s - F / 1e12) < 1e-18)
    assert.is_true(math.abs(t.parts.backward_s - 2 * F / 1e12) < 1e-18)
    assert.is_true(math.abs(t.step_time_s - 3 * F / 1e12) < 1e-18)
    assert.is_true(math.abs(t.mfu - 0.5) < 1e-12)
    -- tokens a second a device: 128 / step
    assert.is_true(math.abs(t.tokens_per_s_per_device - 128 / (3 * F / 1e12)) < 1e-6)
  end)

  it("full recompute reruns the forward; TP divides the compute and adds its gathers", function()
    local t = core.step_time(dense, nd.run { seq_length = 128, recompute = "full" }, hw)
    -- the forward of the two layers again (the head is not recomputed): 294912 · 128
    assert.is_true(math.abs(t.parts.recompute_s - 294912 * 128 / 1e12) < 1e-18)
    t = core.step_time(dense, nd.run { seq_length = 128, tp = 2 }, hw)
    assert.is_true(math.abs(t.parts.forward_s - F / 2 / 1e12) < 1e-18)
    -- two layers of 65536 B at 1 GB/s
    assert.is_true(math.abs(t.parts.tp_s - 2 * 65536 / 1e9) < 1e-15)
  end)

  it("DP: the all-reduce of a rank's weights once a step, behind the pipeline", function()
    -- W = 2 layers · 65664 + embedding 64000 + head 64000 (untied, both on the one stage) = 259328;
    -- 2 · 1/2 · 259328 · 2 B = 518656 B at 1 GB/s
    local t = core.step_time(dense, nd.run { seq_length = 128, dp = 2 }, hw)
    assert.is_true(math.abs(t.parts.dp_s - 518656 / 1e9) < 1e-15)
    assert.is_true(math.abs(t.step_time_s - (3 * F / 1e12 + 518656 / 1e9)) < 1e-15)
  end)

  it("DP: a head tied to the embedding on its stage is one table, reduced once", function()
    -- W = 2 layers · 65664 + the shared table 64000 = 195328; 2 · 1/2 · 195328 · 2 B = 390656 B
    local t = core.step_time(dense, nd.run { seq_length = 128, dp = 2, tie_embeddings = true }, hw)
    assert.is_true(math.abs(t.parts.dp_s - 390656 / 1e9) < 1e-15)
  end)

  it("FSDP2's prefetch: the gathers and reduce-scatters the compute cannot hide, and the edges", function()
    -- FSDP over 2 (W = 259328 as above), the gradients reduced in the parameter width (2 B, not
    -- accumulated), resharded: per micro-batch gather = scatter = regather = 1/2 · 259328 · 2 B at 1 GB/s
    -- = 2.59328e-4 s. The forward hides gathers behind F/1e12 = 5.4132736e-5 s, the backward the
    -- regathers and scatters (5.18656e-4 s) behind 2F/1e12 = 1.08265472e-4 s; u = 2 layers:
    -- exposed (1/2)(2.59328e-4 - 5.4132736e-5) + (1/2)(5.18656e-4 - 1.08265472e-4) = 3.07792896e-4 s,
    -- plus the edges, one layer's gather and scatter, (2.59328e-4 + 2.59328e-4)/2 = 2.59328e-4 s:
    -- 5.67120896e-4 s, where the fixed share (0 here) exposes all 3 · 2.59328e-4 = 7.77984e-4 s.
    local fields = { seq_length = 128, dp = 2, optimizer_parallel = true, optimizer_shard = 2,
                     grad_shard_as_params = true, reshard_params = true }
    local plain = core.step_time(dense, nd.run(fields), hw)
    assert.is_true(math.abs(plain.parts.dp_s - 7.77984e-4) < 1e-15)
    fields.fsdp_prefetch = true
    local t = core.step_time(dense, nd.run(fields), hw)
    assert.is_true(math.abs(t.parts.dp_s - 5.67120896e-4) < 1e-15)
    -- compute 1000 times slower outlasts every collective: only the edges, 2.59328e-4 s
    local slow = { peak_tflops = 2, sustained_tflops = 0.001, levels = { { gbps = 1 } },
                   overlap = { dp = 0, tp = 0, cp = 0, ep = 0, pp = 0 } }
    t = core.step_time(dense, nd.run(fields), slow)
    assert.is_true(math.abs(t.parts.dp_s - 2.59328e-4) < 1e-15)
  end)

  it("FSDP2 under a pipeline: weights gathered once a step, gradients reduce-scattered after the last backward", function()
    -- 4 layers over pp 2: stage 0 holds 2 layers and the embedding, W = 2·65664 + 64000 = 195328
    -- (stage 1's head ties it; the first stage is priced), u = 2; FSDP over 2, gradients accumulated
    -- in 4 B: gather 1/2 · 195328 · 2 B = 1.95328e-4 s, reduce-scatter 1/2 · 195328 · 4 B = 3.90656e-4 s
    -- at 1 GB/s; the stage's forward a micro-batch 2 · 147456 · 128 / 1e12 = 3.7748736e-5 s, its
    -- backward twice that, m = 4.
    local four = tiny.dense { num_hidden_layers = 4 }
    local fields = { seq_length = 128, dp = 2, pp = 2, micro_batch_num = 4, optimizer_parallel = true,
                     optimizer_shard = 2, grad_shard_as_params = true, reshard_params = true,
                     grad_accumulation = true, grad_bytes = 4, fsdp_prefetch = true }
    -- each micro-batch gathers, regathers and reduce-scatters: 4 · (1/2)(1.95328e-4 - 3.7748736e-5)
    -- + 4 · (1/2)(1.95328e-4 + 3.90656e-4 - 7.5497472e-5) + each micro-batch's edges
    -- 4 · (1.95328e-4 + 3.90656e-4)/2 = 3.15158528e-4 + 1.020973056e-3 + 1.171968e-3 = 2.508099584e-3 s
    local t = core.step_time(four, nd.run(fields), hw)
    assert.is_true(math.abs(t.parts.dp_s - 2.508099584e-3) < 1e-15)
    -- torch.distributed.pipelining with torchtitan's flags: gathered once (behind the first
    -- micro-batch's forward), one reduce-scatter after the last backward, all of it exposed:
    -- (1/2)(1.95328e-4 - 3.7748736e-5) + 1.95328e-4/2 + 3.90656e-4 = 5.67109632e-4 s
    fields.pp_keeps_gathered, fields.pp_unsharded_grads = true, true
    t = core.step_time(four, nd.run(fields), hw)
    assert.is_true(math.abs(t.parts.dp_s - 5.67109632e-4) < 1e-15)
  end)

  it("DeepSpeed ZeRO-3's gradient buckets: the last bucket's reduce-scatter is what the backward leaves", function()
    -- 4 layers, FSDP over 2, one stage: W = 4·65664 + 2·64000 = 390656, u = 4; gather = regather =
    -- scatter = 1/2 · 390656 · 2 B at 1 GB/s = 3.90656e-4 s; forward (4·147456 + 128000)·128/1e12 =
    -- 9.1881472e-5 s, backward twice that. Forward (3/4)(3.90656e-4 - 9.1881472e-5) = 2.24080896e-4 s
    -- + its edge 3.90656e-4/4 = 9.7664e-5 s; backward (3/4)(7.81312e-4 - 1.83762944e-4) = 4.48161792e-4 s
    -- + its edge: one layer's 9.7664e-5 s (FSDP2), or a last bucket of 200000 of the 390656 parameters,
    -- 3.90656e-4 · 200000/390656 = 2e-4 s.
    local four = tiny.dense { num_hidden_layers = 4 }
    local fields = { seq_length = 128, dp = 2, optimizer_parallel = true, optimizer_shard = 2,
                     grad_shard_as_params = true, reshard_params = true, fsdp_prefetch = true }
    local t = core.step_time(four, nd.run(fields), hw)
    assert.is_true(math.abs(t.parts.dp_s - 8.67570688e-4) < 1e-15)
    fields.reduce_bucket = 200000
    t = core.step_time(four, nd.run(fields), hw)
    assert.is_true(math.abs(t.parts.dp_s - 9.69906688e-4) < 1e-15)
    -- a bucket smaller than a layer leaves the layer's share (1/4): as without buckets
    fields.reduce_bucket = 50000
    t = core.step_time(four, nd.run(fields), hw)
    assert.is_true(math.abs(t.parts.dp_s - 8.67570688e-4) < 1e-15)
    -- the DeepSpeed profile states 5e8-element buckets (reduce_bucket_size's default) and the prefetch
    local spec = require("nd").run({ runtime = "deepspeed", dp = 2, zero = 3, seq_length = 128 }, four):spec()
    assert.are.equal(500000000, spec.reduce_bucket)
    assert.is_true(spec.fsdp_prefetch)
  end)

  it("Megatron's DDP buckets under --overlap-grad-reduce: all but the last bucket behind the last backward", function()
    -- DP 2 all-reduce of W = 259328 in 2 B: 518656 B at 1 GB/s = 5.18656e-4 s (as above), the backward
    -- H = 2F/1e12 = 1.08265472e-4 s. The profile's share is 0.5 here, so the fixed share leaves 2.59328e-4 s.
    local half = { peak_tflops = 2, sustained_tflops = 1, levels = { { gbps = 1 } },
                   overlap = { dp = 0.5, tp = 0, cp = 0, ep = 0, pp = 0 } }
    local fields = { seq_length = 128, dp = 2, overlapped_grad_reduce = true }
    local t = core.step_time(dense, nd.run(fields), half)
    assert.is_true(math.abs(t.parts.dp_s - 2.59328e-4) < 1e-15)
    -- buckets of 100000 of the 259328 parameters, e = 100000/259328: (1 - e)(5.18656e-4 - 1.08265472e-4)
    -- behind the backward, and the last bucket e · 5.18656e-4 = 2e-4 s after it: 4.521389978914117e-4 s
    fields.reduce_bucket = 100000
    t = core.step_time(dense, nd.run(fields), half)
    local e = 100000 / 259328
    assert.is_true(math.abs(t.parts.dp_s - ((1 - e) * (5.18656e-4 - 1.08265472e-4) + 2e-4)) < 1e-15)
    assert.is_true(math.abs(t.parts.dp_s - 4.521389978914117e-4) < 1e-15)
    -- Megatron's default bucket (-1): max(4e7, 1e6 · 2) = 4e7 parameters hold the whole model: one bucket,
    -- reduced after the backward, all of it exposed
    fields.reduce_bucket = -1
    t = core.step_time(dense, nd.run(fields), half)
    assert.is_true(math.abs(t.parts.dp_s - 5.18656e-4) < 1e-15)
    -- without --overlap-grad-reduce the buckets do not matter: the share
    fields.overlapped_grad_reduce = false
    t = core.step_time(dense, nd.run(fields), half)
    assert.is_true(math.abs(t.parts.dp_s - 2.59328e-4) < 1e-15)
    -- the Megatron profile states Megatron's default buckets
    assert.are.equal(-1, require("nd").run({ runtime = "megatron", dp = 2, seq_length = 128 }, dense):spec().reduce_bucket)
  end)

  it("PP: the slowest stage sets the pace, the first micro-batch fills the pipe", function()
    -- pp 2, m 4: stage 0 holds layer 1 and the embedding, stage 1 layer 2 and the head (the straggler);
    -- each sends 2 · 128 · 64 · 2 B = 32768 B a micro-batch; stage times X0 = 3·147456·128/1e12 + s,
    -- X1 = 3·(147456 + 128000)·128/1e12 + s; step = X0 + X1 + 3·X1
    local send = 32768 / 1e9
    local x0, x1 = 3 * 147456 * 128 / 1e12 + send, 3 * (147456 + 128000) * 128 / 1e12 + send
    local t = core.step_time(dense, nd.run { seq_length = 128, pp = 2, micro_batch_num = 4 }, hw)
    assert.are.equal(1, t.straggler_stage)
    assert.is_true(math.abs(t.step_time_s - (x0 + 4 * x1)) < 1e-15)
    assert.is_true(math.abs(t.parts.bubble_s - x0) < 1e-15)
  end)
end)

describe("GEMM tiles and waves where CP splits the rows (nd.core.step_time, sm_count and gemm_tile)", function()
  -- One SM and tiles of 128 rows by 1 column: each GEMM's efficiency is its rows over the next multiple
  -- of 128 (columns never waste). No memory_gbps: no roofline. The tiny model's GEMMs a layer: q/k/v
  -- 64 x 192, o 64 x 64, gate and up 64 x 512, down 256 x 64 (inner x out); the head 64 x 1000.
  local plain = { peak_tflops = 2, sustained_tflops = 1, levels = { { gbps = 1 } },
                  overlap = { dp = 0, tp = 0, cp = 0, ep = 0, pp = 0 } }
  local waves = { peak_tflops = 2, sustained_tflops = 1, levels = { { gbps = 1 } },
                  overlap = { dp = 0, tp = 0, cp = 0, ep = 0, pp = 0 }, sm_count = 1, gemm_tile = { m = 128, n = 1 } }
  local function parts(fields, profile) return core.step_time(dense, nd.run(fields), profile).parts end

  it("128 tokens fill the forward's tiles; the weight gradients of 64-row inputs fill half", function()
    local a, b = parts({ seq_length = 128 }, plain), parts({ seq_length = 128 }, waves)
    assert.are.equal(a.forward_s, b.forward_s)
    -- the weight gradient (inner x out: 64 rows for q/k/v, o, gate/up and the head) runs at 1/2: its
    -- FLOPs again, 2·64·(192 + 64 + 512) = 98304 a token a layer x 128 x 2 = 25165824, the head's
    -- 2·64·1000 x 128 = 16384000: 41549824 FLOPs more; down's 256 rows fill two tiles
    assert.is_true(math.abs(b.backward_s - a.backward_s - 41549824 / 1e12) < 1e-18)
  end)

  it("CP 2 halves the rows to 64: every forward GEMM at half its rate", function()
    local a, b = parts({ seq_length = 128, cp = 2 }, plain), parts({ seq_length = 128, cp = 2 }, waves)
    -- the forward's GEMM FLOPs again: 2·65536 a token a layer x 64 x 2 = 16777216, the head's 2·64·1000
    -- x 64 = 8192000
    assert.is_true(math.abs(b.forward_s - a.forward_s - 24969216 / 1e12) < 1e-18)
    -- backward: each GEMM's input gradient (64 rows) at 1/2 like the forward; its weight gradient at
    -- 1/2 too but down's (256 rows) at full rate: twice the forward less down's 2·256·64 x 64 x 2
    assert.is_true(math.abs(b.backward_s - (2 * b.forward_s - 4194304 / 1e12)) < 1e-18)
  end)
end)

describe("the optimizer step and the attention a recompute reruns (nd.core.step_time, memory_gbps)", function()
  -- 1 TFLOP/s sustained and 1 GB/s of HBM: seconds are FLOPs / 1e12 and bytes / 1e9.
  local hw = { peak_tflops = 2, sustained_tflops = 1, memory_gbps = 1, levels = { { gbps = 1 } },
               overlap = { dp = 0, tp = 0, cp = 0, ep = 0, pp = 0 } }
  local function parts(model, fields, profile)
    return core.step_time(model, nd.run(fields), profile or hw).parts
  end
  -- The tiny model's parameters, all on the one stage: 2 layers of 65664, the embedding 64000 and the
  -- head 64000 + the final norm 64 (untied) = 259392. The default widths: 2-byte weights, no main copy,
  -- two Adam states of 4 B (8 B a parameter), gradients 0 B without accumulation (read at the weights'
  -- 2 B). A parameter's step: states read and written 2·8, its gradient read twice 2·2, the weight read
  -- and written in place 2·2 = 24 B.
  it("a memory-bound pass over what the rank's optimizer holds", function()
    assert.is_true(math.abs(parts(dense, { seq_length = 128 }).optimizer_s - 24 * 259392 / 1e9) < 1e-15)
  end)

  it("an accumulated 4-byte gradient is read twice and zeroed for the next step", function()
    -- 2·8 + 2·4 + 2·2 + 4 (the buffer zeroed) = 32 B a parameter
    local p = parts(dense, { seq_length = 128, grad_accumulation = true, grad_bytes = 4 })
    assert.is_true(math.abs(p.optimizer_s - 32 * 259392 / 1e9) < 1e-15)
  end)

  it("an optimizer sharded over 2 ranks steps half the parameters", function()
    local p = parts(dense, { seq_length = 128, dp = 2, optimizer_parallel = true, optimizer_shard = 2 })
    assert.is_true(math.abs(p.optimizer_s - 24 * 259392 / 2 / 1e9) < 1e-15)
  end)

  it("is the step's last part, and none when the host steps it or nothing trains", function()
    local t = core.step_time(dense, nd.run { seq_length = 128 }, hw)
    local sum = 0
    for _, v in pairs(t.parts) do sum = sum + v end
    assert.is_true(math.abs(t.step_time_s - sum) < 1e-15)
    assert.are.equal(0, parts(dense, { seq_length = 128, offload_optimizer = true }).optimizer_s)
    assert.are.equal(0, parts(dense, { seq_length = 128, offload_params = true }).optimizer_s)
    assert.are.equal(0, parts(dense, { seq_length = 128, frozen = true }).optimizer_s)
    -- a profile without memory_gbps leaves it unpriced, as the element-wise ops
    local plain = { peak_tflops = 2, sustained_tflops = 1, levels = { { gbps = 1 } } }
    assert.are.equal(0, parts(dense, { seq_length = 128 }, plain).optimizer_s)
  end)

  -- A GPT layer of h 64, 4 heads of 16, eager attention (flash_attention = false), a 1-byte dropout mask.
  local gpt = tiny.gpt(64, 4, 2)

  it("an eager attention computes every score of the causal square", function()
    -- scores: 2 FLOPs · 4 heads · 128 keys · (16 + 16) = 32768 a token; flash attention skips half:
    -- the difference is 16384 · 128 tokens · 2 layers = 4194304 FLOPs
    local plain = { peak_tflops = 2, sustained_tflops = 1, levels = { { gbps = 1 } } }
    local eager = parts(gpt, { seq_length = 128, flash_attention = false }, plain).forward_s
    local flash = parts(gpt, { seq_length = 128, flash_attention = true }, plain).forward_s
    assert.is_true(math.abs(eager - flash - 4194304 / 1e12) < 1e-18)
  end)

  it("a flash kernel's FLOPs run at the profile's attention_tflops", function()
    -- the tiny model's causal scores: 2 FLOPs · 4 heads · 128 keys · (16 + 16) · 0.5 = 16384 a token a
    -- layer, x 128 tokens x 2 layers = 4194304 FLOPs; at 0.5 TFLOP/s instead of 1 they take 4194304 / 1e12
    -- s more in the forward, twice that in the backward, and again in a full recompute
    local plain = { peak_tflops = 2, sustained_tflops = 1, levels = { { gbps = 1 } } }
    local slow = { peak_tflops = 2, sustained_tflops = 1, attention_tflops = 0.5, levels = { { gbps = 1 } } }
    local a, b = parts(dense, { seq_length = 128, recompute = "full" }, plain),
                 parts(dense, { seq_length = 128, recompute = "full" }, slow)
    assert.is_true(math.abs(b.forward_s - a.forward_s - 4194304 / 1e12) < 1e-18)
    assert.is_true(math.abs(b.backward_s - a.backward_s - 2 * 4194304 / 1e12) < 1e-18)
    assert.is_true(math.abs(b.recompute_s - a.recompute_s - 4194304 / 1e12) < 1e-18)
    -- eager attention's score products are batched GEMMs: the sustained rate
    local gpt_plain = parts(gpt, { seq_length = 128, flash_attention = false }, plain)
    local gpt_slow = parts(gpt, { seq_length = 128, flash_attention = false }, slow)
    assert.are.equal(gpt_plain.forward_s, gpt_slow.forward_s)
  end)

  it("Megatron's selective recompute reruns the attention core: its score matmuls and softmax/dropout", function()
    -- FLOPs 32768 · 128 · 2 = 8388608; bytes: 4 heads · 128 scores a token, each read by the softmax
    -- (2) and written (2), read by the dropout (2), written (2) with its mask (1) = 9 B: 4608 a token,
    -- x 128 x 2 = 1179648 B
    local p = parts(gpt, { seq_length = 128, recompute = "selective", selective_rule = "megatron",
                           softmax_bytes = 2 })
    assert.is_true(math.abs(p.recompute_s - (8388608 / 1e12 + 1179648 / 1e9)) < 1e-15)
  end)
end)

describe("the optimizer step against the memory model's static bytes (nd.estimate)", function()
  it("DeepSeek-V3, PP 16 EP 8: the stage with the most to step sets it", function()
    -- Each stage's states (optimizer + main params, 8 B a parameter: two fp32 Adam states, no main
    -- copy) are read and written; its U = states / 8 parameters read a 4-byte gradient twice and have
    -- their 2-byte weight read and written: 2·states + U·(2·4 + 2·2) bytes, at 3350 · 0.8 GB/s (H800).
    local m = nd.model("deepseek-ai/DeepSeek-V3")
    local r = nd.run { dp = 128, pp = 16, ep = 8, micro_batch_size = 1, global_batch_size = 15360,
                       seq_length = 4096, recompute = "full" }
    local most = 0
    for _, st in ipairs(nd.estimate(m, r).stages) do
      local states = st.optimizer + st.main_params
      most = math.max(most, 2 * states + states / 8 * (2 * 4 + 2 * 2))
    end
    local t = nd.step_time(m, r, "H800")
    assert.is_true(math.abs(t.parts.optimizer_s - most / (3350 * 0.8 * 1e9)) < 1e-12)
  end)
end)
