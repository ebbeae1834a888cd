-- The miscounts issue 12 names, each priced as the runtime does it. Each
-- expected value is worked out by hand in its comment.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local tiny = dofile("spec/support/tiny.lua")
local quiet = require("nd.warnings").quiet()

-- tiny.dense: h 64, 4 heads of 16, FFN 256, vocabulary 1000, 2 layers
local H, V = 64, 1000

-- search.t's model: h 1024, 4 layers, 8 heads (and key heads) of 128, FFN
-- 4096, vocabulary 32000; fields change it
local function tiny_llama(fields)
  local spec = { name = "tiny-llama", arch = "default", hidden_size = 1024, num_hidden_layers = 4,
                 num_attention_heads = 8, num_key_value_heads = 8, intermediate_size = 4096,
                 vocab_size = 32000, max_position_embeddings = 2048 }
  for k, v in pairs(fields or {}) do spec[k] = v end
  return nd.model(spec, { warnings = quiet })
end

describe("the output layer (item 1)", function()
  local tokens = 1024
  local function stage(fields)
    local spec = { seq_length = tokens, reserve_bytes = 0 }
    for k, v in pairs(fields) do spec[k] = v end
    return nd.estimate(tiny.dense(), nd.run(spec)).stages[1]
  end
  it("keeps the fp32 probabilities once: the backward adds PyTorch's two gradients, 2·4·V a token", function()
    -- eager Transformers: log-softmax and NLL backward allocate fp32 [tokens, V] each
    assert.are.equal(2 * 4 * V * tokens, stage({}).backward_overhead)
  end)
  it("Megatron: its in-place loss gradient adds 2·V, as its forward's logits beside the kept fp32 copy", function()
    -- runtime megatron, TP 2, vocabulary-parallel. Backward: the bf16 cast of
    -- the gradient written over the saved softmax, 2·V/2. Forward: the bf16
    -- logits (2·V/2) live while Megatron-Core's cross-entropy turns its
    -- fp32 copy into the softmax it keeps in place (loss_inplace_softmax,
    -- core_r0.9.0 on): 2·V/2 = 1000 B a token either way
    assert.are.equal(2 * V / 2 * tokens, stage({ runtime = "megatron", tp = 2 }).backward_overhead)
  end)
  it("the older out-of-place Megatron cross-entropy: its forward's logits and fp32 copy, 6·V", function()
    -- the bf16 logits (2·V/2) and logits.float() (4·V/2) live while it writes
    -- logits − max into a new tensor it keeps: 6·V/2 = 3000 B a token
    assert.are.equal(6 * V / 2 * tokens,
                     stage({ runtime = "megatron", tp = 2, loss_inplace_softmax = false }).backward_overhead)
  end)
  it("Megatron's output term is theoretical_memory_usage's 4·s·b·h·(1 + V/h)/t plus rstd and labels", function()
    -- with SP: fused final norm keeps its bf16 input 2h and fp32 rstd 4, the
    -- head its bf16 input 2h and the fp32 softmax 4V (vocabulary-parallel):
    -- (4h + 4V + 4)/t a token; the loss's int64 labels 8 whole on every TP
    -- rank (vocab_parallel_cross_entropy takes the unsplit [s, b] labels; issue 31 item 6)
    local e = nd.estimate(tiny.dense(), nd.run { runtime = "megatron", tp = 2, sequence_parallel = true,
                                                 seq_length = tokens })
    assert.are.equal(((4 * H + 4 * V + 4) / 2 + 8) * tokens, tiny.row(e, 0, "output").activation_bytes_per_layer)
  end)
  it("logits in the compute width when the loss does not upcast: 2·V", function()
    local e = nd.estimate(tiny.dense(), nd.run { loss_upcast = false, seq_length = tokens })
    -- eager RMSNorm 4h + 2h + 4, head input 2h, labels 8, bf16 log-probabilities 2V
    assert.are.equal((8 * H + 4 + 8 + 2 * V) * tokens, tiny.row(e, 0, "output").activation_bytes_per_layer)
  end)
end)

describe("the output stage's backward overhead", function()
  -- tiny.gpt(64, 4), fp16 softmax (Korthikanti's layer): a layer keeps
  -- s·h·(34 + 5as/h) = 34h + 5as bytes a token, 2176 + 20480 = 22656 at
  -- s = 1024; the output keeps the final norm's and the head's inputs 2h
  -- each, the int64 labels 8 and the fp32 log-probabilities 4V: 4264; the
  -- loss's backward allocates PyTorch's two fp32 gradients, 2·4·V = 8000.
  local function overhead(seq, recompute)
    local e = nd.estimate(tiny.gpt(64, 4, 2), nd.run { seq_length = seq, recompute = recompute, softmax_bytes = 2,
                                                       reserve_bytes = 0 })
    return e.stages[1].backward_overhead
  end
  it("is the last layer's working set, once the loss's backward has freed the output's tensors", function()
    -- (22656 − 4264) x 1024 = 18,833,408 B against the loss's 8000 x 1024 = 8,192,000
    assert.are.equal((22656 - 4264) * 1024, overhead(1024, "full"))
    assert.are.equal((22656 - 4264) * 1024, overhead(1024, "off")) -- a plain layer works with what it keeps
  end)
  it("is the loss's where that is the larger", function()
    -- s = 64: the layer 34·64 + 5·4·64 = 3456 a token, the output 4264: the loss's 8000 x 64
    assert.are.equal(8000 * 64, overhead(64, "full"))
  end)
end)

describe("interleaved 1F1B (item 2)", function()
  -- Megatron's interleaved schedule: stage r runs 2(p − r − 1) + (v − 1)p
  -- warm-up forwards and one more: p·v + p − 2r − 1 chunk micro-batches;
  -- 175B at p = 8, v = 3: 31 on stage 0, Korthikanti's factor
  -- 1 + (p − 1)/(p·v) = 31/24 of p micro-batches of the stage's layers
  local r = nd.run { pp = 8, vpp = 3, micro_batch_num = 64 }
  for s = 0, 7 do
    it("stage " .. s .. " holds " .. (31 - 2 * s), function()
      local held = 0
      for c = 0, 2 do held = held + r:micro_factor(s, c) end
      assert.are.equal(31 - 2 * s, held)
    end)
  end
end)

describe("tied embeddings (item 3)", function()
  -- Qwen3-0.6B ties its head to its embedding (config.json); one stage holds both
  local m = nd.model("Qwen/Qwen3-0.6B", { warnings = quiet })
  local function embedding_static(fields)
    return tiny.row(nd.estimate(m, nd.run(fields)), 0, "embedding").static_bytes_per_layer
  end
  it("nd.run takes the model's tie when unstated", function()
    assert.are.equal(0, embedding_static { seq_length = 1024 })
  end)
  it("a stated tie_embeddings = false keeps a second table: 151936 x 1024 x (2 + 8) B", function()
    -- bf16 weights 2 and the family's two fp32 moments 8, no gradient at pp 1 without accumulation
    assert.are.equal(151936 * 1024 * 10, embedding_static { seq_length = 1024, tie_embeddings = false })
  end)
end)

describe("ZeRO-3 step time (item 4)", function()
  -- search.t's model: h 1024, 4 layers, FFN 4096, vocabulary 32000: W = 132,653,056 weights a rank
  local m = tiny_llama()
  local flat = { peak_tflops = 100, sustained_tflops = 100, levels = { { gbps = 100 } },
                 overlap = { dp = 0, tp = 0, cp = 0, ep = 0, pp = 0 } }
  it("gathers the weights for forward and backward and reduce-scatters the gradients every micro-batch", function()
    -- 8 ranks, 2 micro-batches: 2 · 7/8 · W · (2 gathers · 2 B + 4 B fp32 gradients) at 100 GB/s
    local r = nd.run { dp = 8, zero = 3, micro_batch_num = 2, seq_length = 2048, grad_bytes = 4,
                       grad_accumulation = true }
    local t = nd.step_time(m, r, flat)
    assert.is_true(math.abs(2 * 7 / 8 * 132653056 * 8 / 100e9 - t.parts.dp_s) < 1e-15)
  end)
  it("ZeRO-1 reduces the gradients once a step: 2 · 7/8 · W · 4 B", function()
    local r = nd.run { dp = 8, zero = 1, micro_batch_num = 2, seq_length = 2048, grad_bytes = 4,
                       grad_accumulation = true }
    local t = nd.step_time(m, r, flat)
    assert.is_true(math.abs(2 * 7 / 8 * 132653056 * 4 / 100e9 - t.parts.dp_s) < 1e-15)
  end)
end)

describe("MindSpore's parallel optimizer (item 6)", function()
  -- the gathered bf16 weights of the stage's 2 layers stay from forward to
  -- backward: 2 · (4h² + 3·h·256 + 2h) · 2 B = 2 · 65,664 · 2 = 262,656 B
  -- (each layer's DP bucket is then gone: the comm part holds these); the
  -- head's (and final norm's) too, which its backward needs: (1000·h + h) · 2 B
  -- = 64,064 · 2 = 128,128 B (issue 31 item 3: one all-gather a parameter,
  -- the tables' as the layers'). PP 1: the embedding's is not held (its
  -- backward needs no weight, no later forward uses it).
  it("keeps each layer's and the head's gathered weights through the backward", function()
    local r = nd.run { runtime = "mindspore", dp = 4, optimizer_parallel = true, seq_length = 256 }
    local plain = nd.run { runtime = "mindspore", dp = 4, optimizer_parallel = true, seq_length = 256,
                           keep_gathered_params = false }
    local held = nd.estimate(tiny.dense(), r).stages[1].comm - nd.estimate(tiny.dense(), plain).stages[1].comm
    assert.are.equal(2 * (4 * H * H + 3 * H * 256 + 2 * H) * 2 + (1000 * H + H) * 2, held)
  end)
end)

describe("the gpt profile means LayerNorm with a bias (item 7)", function()
  -- Korthikanti et al. 2022 Table 2: s·b·h·(34 + 5·a·s/h) with no norm_bias stated
  it("prices a GPT layer as the paper without norm_bias = true", function()
    local m = nd.model({ name = "gpt-test", arch = "gpt", hidden_size = 1024, num_hidden_layers = 2,
                         num_attention_heads = 16, intermediate_size = 4096, vocab_size = 51200 },
                       { warnings = quiet })
    local e = nd.estimate(m, nd.run { seq_length = 2048, param_bytes = 2, compute_bytes = 2, softmax_bytes = 2 })
    local s, h, a = 2048, 1024, 16
    assert.are.equal(s * h * (34 + 5 * a * s / h), tiny.row(e, 0, "decoder").activation_bytes_per_layer)
  end)
end)

describe("element-wise ops priced by HBM bandwidth", function()
  -- search.t's model (h 1024, FFN 4096, 8 heads of 128, 4 layers, flash
  -- attention), eager (nd.run's defaults): a token of a layer moves 2
  -- Transformers RMSNorms of h elements at 36 B each (the fp32 upcast 2 + 4,
  -- the square 4 + 4, the mean 4, the product by the root 4 + 4, the cast
  -- back 4 + 2, the weight's product 2 + 2) = 73728, 2 residual adds x
  -- 3h·2 B = 12288, SiLU and the product apart 5f·2 B = 40960 (SiLU reads
  -- and writes f, the product reads two f and writes one): 126976 B; x 4
  -- layers x 2048 tokens = 1,040,187,392 B a micro-batch. Transformers' rotary embedding of the 8 query and 8 key
  -- heads (2048 elements a token): the negated half 0.5 + 0.5, the
  -- concatenation 1 + 1, the products by cos and sin 2 x (1 + 1), the sum
  -- 2 + 1 = 10 element passes of 2 B forward, as many backward: 40 B an
  -- element, x 2048 x 4 x 2048 = 671,088,640 B forward and backward,
  -- priced a third in the forward (223,696,213.3 B). The loss's passes over
  -- the logits (fp32 upcast): casts 2·(2 + 4), log-softmax 4·4 each way,
  -- the NLL gradient's zero-fill 4 = 48 B an entry, x 32000 x 2048 =
  -- 3,145,728,000 B forward and backward, a third, 1,048,576,000 B, in the
  -- forward. At 100 GB/s the forward takes their sum over 100 GB/s more,
  -- the backward twice that
  -- (10 TFLOP/s over 100 GB/s: 100 FLOPs a byte, below every GEMM's of this
  -- model, the least 2048 rows through the 1024 x 1024 output projection,
  -- 2·2048·1024² / (2·(2048·1024 + 1024² + 2048·1024)) = 410, so no GEMM is
  -- memory bound and the difference is the element-wise bytes alone)
  local m = tiny_llama()
  local function hw(memory_gbps)
    return { peak_tflops = 100, sustained_tflops = 10, memory_gbps = memory_gbps, levels = { { gbps = 100 } },
             overlap = { dp = 0, tp = 0, cp = 0, ep = 0, pp = 0 } }
  end
  local function extra(run, model)
    local r = nd.run(run)
    local with, without = nd.step_time(model or m, r, hw(100)).parts, nd.step_time(model or m, r, hw(nil)).parts
    return with.forward_s - without.forward_s, with.backward_s - without.backward_s
  end
  local forward_bytes = 1040187392 + 671088640 / 3 + 1048576000
  it("adds the bytes they move over the bandwidth to the forward", function()
    local forward = extra { seq_length = 2048 }
    assert.is_true(math.abs(forward - forward_bytes / 100e9) < 1e-12)
  end)
  it("and twice that to the backward", function()
    local _, backward = extra { seq_length = 2048 }
    assert.is_true(math.abs(backward - 2 * forward_bytes / 100e9) < 1e-12)
  end)
  it("prices a fused SwiGLU at 3f·bc and a fused rotary kernel at one read and one write each way", function()
    -- the product reads two f and writes one: 2f·2 B less than apart, 16384 B a
    -- token-layer; one rotary kernel reads and writes 2 B each way, 8 B an
    -- element for 40: 32 B x 2048 elements, a third in the forward
    local forward = extra { seq_length = 2048, fused_swiglu = true, rope = "fused" }
    local less = (16384 + 32 * 2048 / 3) * 4 * 2048
    assert.is_true(math.abs(forward - (forward_bytes - less) / 100e9) < 1e-12)
  end)
  it("prices a fused norm at one read and one write of 2 B an element", function()
    -- 2 norms x (36 − 4) B x 1024 = 65536 B a token-layer less
    local forward = extra { seq_length = 2048, fused_norm = true }
    assert.is_true(math.abs(forward - (forward_bytes - 65536 * 4 * 2048) / 100e9) < 1e-12)
  end)
  it("prices the zero-centred norm's fp32 product by 1 + weight, and q/k norms over the heads", function()
    -- zero-centred (Qwen3.5): upcast 2 + 4, square 4 + 4, mean 4, root 4 + 4,
    -- (1 + w) product in fp32 4 + 4, cast back 4 + 2 = 40 B: 2 x 4 x 1024 = 8192 B a token-layer more
    local zc = tiny_llama { arch = "qwen3_5", layer_types = { "full_attention", "full_attention", "full_attention",
                                                               "full_attention" } }
    local r = { seq_length = 2048, rope = "fused" }
    assert.is_true(math.abs(extra(r, zc) - extra(r, m) - 8192 * 4 * 2048 / 100e9) < 1e-12)
    -- q/k norms (Qwen3): 8 + 8 heads of 128 at 36 B: 73728 B a token-layer more
    local qk = tiny_llama { qk_norm = true }
    assert.is_true(math.abs(extra(r, qk) - extra(r, m) - 73728 * 4 * 2048 / 100e9) < 1e-12)
  end)
  it("prices torchtitan's complex product as the casts to and from fp32 and the fp32 product", function()
    -- x.float() 2 + 4, the complex product 4 + 4, type_as 4 + 2: 20 B each way,
    -- as much as rotate_half's in bf16; in fp32 the casts vanish: 8 B each way,
    -- what the fused kernel moves in fp32 too (4 + 4)
    assert.is_true(math.abs(extra { seq_length = 2048, rope = "complex" } - forward_bytes / 100e9) < 1e-12)
    local complex32 = extra { seq_length = 2048, rope = "complex", compute_bytes = 4 }
    local fused32 = extra { seq_length = 2048, rope = "fused", compute_bytes = 4 }
    local rotate32 = extra { seq_length = 2048, compute_bytes = 4 }
    assert.is_true(math.abs(complex32 - fused32) < 1e-12)
    -- rotate_half in fp32: 10 passes of 4 B each way, 80 B an element against 16
    assert.is_true(math.abs(rotate32 - complex32 - (80 - 16) * 2048 / 3 * 4 * 2048 / 100e9) < 1e-12)
  end)
  it("prices the K/V repeat where the runtime repeats them: kv heads read, query heads written, and back", function()
    -- 8 query heads, 2 key heads of 128: K and V each read 2·128 and write
    -- 8·128 elements of 2 B forward, the backward's sum as much the other
    -- way: 2 x 2 x (8 + 2)·128·2 B = 10240 B a token-layer, a third in the forward
    local gqa = tiny_llama { num_key_value_heads = 2 }
    local with = extra({ seq_length = 2048, repeat_kv = true }, gqa)
    local without = extra({ seq_length = 2048 }, gqa)
    assert.is_true(math.abs(with - without - 10240 / 3 * 4 * 2048 / 100e9) < 1e-12)
    -- as many key heads as query heads: nothing to repeat
    assert.is_true(math.abs(extra { seq_length = 2048, repeat_kv = true } - forward_bytes / 100e9) < 1e-12)
  end)
  it("prices eager scores: the softmax's read and write, and its fp32 output cast back for the product with V", function()
    -- 8 heads x 2048 scores a token: the softmax reads bf16 (2) and writes fp32 (4),
    -- the cast reads 4 and writes 2: 12 B a score, 196,608 B a token-layer; a
    -- softmax written in the compute width (Megatron's fused kernel) needs no
    -- cast: 2 + 2 = 4 B, 65,536 B
    local eager = extra { seq_length = 2048, flash_attention = false }
    assert.is_true(math.abs(eager - (forward_bytes + 196608 * 4 * 2048) / 100e9) < 1e-12)
    local narrow = extra { seq_length = 2048, flash_attention = false, softmax_bytes = 2 }
    assert.is_true(math.abs(narrow - (forward_bytes + 65536 * 4 * 2048) / 100e9) < 1e-12)
    -- Megatron's runtime states that width: FusedScaleMaskSoftmax writes the scores' 16 bits
    assert.are.equal(2, nd.run({ runtime = "megatron" }):spec().softmax_bytes)
  end)
  it("rotates the share of each head partial_rotary_factor states", function()
    -- a quarter of the 2048 elements: 512 x 40 B / 3 a token-layer, 1536 x 40 B / 3 less than the whole
    local quarter = tiny_llama { partial_rotary_factor = 0.25 }
    local forward = extra({ seq_length = 2048 }, quarter)
    assert.is_true(math.abs(forward - (forward_bytes - 1536 * 40 / 3 * 4 * 2048) / 100e9) < 1e-12)
    local ok, err = pcall(nd.model, { name = "x", arch = "llama", hidden_size = 64, num_hidden_layers = 1,
                                      num_attention_heads = 4, vocab_size = 10, intermediate_size = 128,
                                      partial_rotary_factor = 1.5 }, { warnings = quiet })
    assert.is_false(ok)
    assert.are.equal("partial_rotary_factor: partial_rotary_factor must be from 0.0 to 1.0, got 1.5", err.message)
  end)
  it("prices no rotary embedding for a family of learned positions (GPT)", function()
    local gpt = tiny.gpt(1024, 8)
    local fused, complex = extra({ seq_length = 2048, rope = "fused" }, gpt), extra({ seq_length = 2048 }, gpt)
    assert.are.equal(fused, complex)
    assert.is_true(nd.run({ runtime = "megatron" }):spec().rope == "fused")
  end)
end)

describe("torchtitan's per-op selective checkpointing (selective_rule torchtitan)", function()
  -- torchtitan's policy saves every matmul's output but every second one
  -- (counted from the layer's first) and the attention kernel's, and
  -- recomputes the rest. tiny.dense (h 64, 4 heads of 16, kv 4, FFN 256):
  -- the layer's input and w2's output 2·64·2 B = 256; q, v and the kernel's
  -- output 3·64·2 B = 384; w1's output 256·2 B = 512; flash statistics
  -- 4 heads x 8 B = 32: 1184 B a token
  it("keeps the input, q, v, the attention output, w1's and w2's outputs", function()
    local e = nd.estimate(tiny.dense(), nd.run { seq_length = 1024, recompute = "selective",
                                                 selective_rule = "torchtitan", flash_attention = true })
    assert.are.equal(1184 * 1024, tiny.row(e, 0, "decoder").activation_bytes_per_layer)
  end)
  it("is what recompute = selective means under the torchtitan runtime", function()
    local spec = nd.run({ runtime = "torchtitan" }):spec()
    assert.are.equal("torchtitan", spec.selective_rule)
  end)
end)

describe("nothing silent: torchtitan's rule on layers it does not price", function()
  it("notes that MoE layers fall back to HyperParallel's switches", function()
    local m = nd.model("Qwen/Qwen3-30B-A3B", { warnings = quiet })
    local e = nd.estimate(m, nd.run { runtime = "torchtitan", recompute = "selective", seq_length = 1024 })
    assert.truthy(e.notes[1]:find("priced by HyperParallel's selective switches", 1, true))
  end)
  it("says nothing on a dense model", function()
    local e = nd.estimate(tiny.dense(), nd.run { runtime = "torchtitan", recompute = "selective" })
    assert.is_nil(e.notes)
  end)
end)
