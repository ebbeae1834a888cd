-- Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on
-- GPU Clusters Using Megatron-LM" (SC'21), Table 1: weak scaling of GPT
-- models from 1.7B to 1T parameters on A100 80GB (Selene), sequence 2048,
-- vocabulary 51200, achieved TFLOP/s per GPU. The paper counts a step's
-- FLOPs as 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)): forward, backward and
-- the forward recomputed by full activation recomputation (4 passes of
-- the weights' matmuls), plus attention and the output layer. ndlua's
-- comparable figure is that count over ndlua's step time and the GPUs.
-- Calibration: these rates set and check the A100 profile's sustained rate.
local SOURCE = "Narayanan et al. 2021, \"Efficient Large-Scale Language Model Training on GPU Clusters Using "
  .. "Megatron-LM\", Table 1 (achieved TFLOP/s per GPU), A100 80GB, Megatron-LM"

local NOTE = "Table 1 states no micro-batch size: taken 1 (as the paper's GPT-3 runs). Section 5.1 runs "
  .. "them with the interleaved schedule (and the scatter/gather optimization, which ndlua does not price); "
  .. "the chunk count is not given: taken the smallest above 1 that divides the layers a stage holds, as "
  .. "Megatron requires (vpp 2, or 3 at 15 and 3 layers a stage). Full activation recomputation, as the "
  .. "FLOP count assumes. Mixed precision: 2-byte params and compute, fp32 gradients. GPUs = TP x PP x DP. "
  .. "Eager attention (flash_attention = false): the runs (2021) predate FlashAttention (Dao et al., 2022); "
  .. "Megatron-LM's fused softmax computes every score of the causal square and masks it. "
  .. "The head shares the word embeddings (tie_word_embeddings), Megatron-LM's default then."

-- The paper's FLOP count of a step, over ndlua's step time and the GPUs,
-- in TFLOP/s a GPU (in floats: the product passes 2^63 for the larger models).
local function paper_tflops(time, _, _, case)
  local m, r = case.model, case.run
  local B, s, l, h, V = r.global_batch_size, r.seq_length, m.num_hidden_layers, m.hidden_size, m.vocab_size
  local flops = 96.0 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
  return flops / (time.step_time_s * r.dp * r.tp * r.pp) / 1e12
end

return {
  {
    id = "narayanan-1.7b", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 1.7B (24 heads, h 2304, 24 layers), TP 1 PP 1 DP 32, 32 GPUs, batch 512 x 2048, full recompute",
    model = { name = "gpt-1.7b", arch = "gpt", hidden_size = 2304, num_attention_heads = 24, num_hidden_layers = 24,
              intermediate_size = 9216, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true },
    run = { runtime = "megatron", tp = 1, pp = 1, dp = 32, micro_batch_size = 1, global_batch_size = 512,
            seq_length = 2048, recompute = "full", flash_attention = false, param_bytes = 2, compute_bytes = 2,
            grad_bytes = 4, grad_accumulation = true },
    hardware = "A100-80GB", metric = "tflops_per_gpu", measured = 137, unit = "TFLOP/s", tolerance = 0.15,
    note = NOTE, ndlua = paper_tflops,
  },
  {
    id = "narayanan-3.6b", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 3.6B (32 heads, h 3072, 30 layers), TP 2 PP 1 DP 32, 64 GPUs, batch 512 x 2048, full recompute",
    model = { name = "gpt-3.6b", arch = "gpt", hidden_size = 3072, num_attention_heads = 32, num_hidden_layers = 30,
              intermediate_size = 12288, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true },
    run = { runtime = "megatron", tp = 2, pp = 1, dp = 32, micro_batch_size = 1, global_batch_size = 512,
            seq_length = 2048, recompute = "full", flash_attention = false, param_bytes = 2, compute_bytes = 2,
            grad_bytes = 4, grad_accumulation = true },
    hardware = "A100-80GB", metric = "tflops_per_gpu", measured = 138, unit = "TFLOP/s", tolerance = 0.15,
    note = NOTE, ndlua = paper_tflops,
  },
  {
    id = "narayanan-7.5b", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 7.5B (32 heads, h 4096, 36 layers), TP 4 PP 1 DP 32, 128 GPUs, batch 512 x 2048, full recompute",
    model = { name = "gpt-7.5b", arch = "gpt", hidden_size = 4096, num_attention_heads = 32, num_hidden_layers = 36,
              intermediate_size = 16384, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true },
    run = { runtime = "megatron", tp = 4, pp = 1, dp = 32, micro_batch_size = 1, global_batch_size = 512,
            seq_length = 2048, recompute = "full", flash_attention = false, param_bytes = 2, compute_bytes = 2,
            grad_bytes = 4, grad_accumulation = true },
    hardware = "A100-80GB", metric = "tflops_per_gpu", measured = 142, unit = "TFLOP/s", tolerance = 0.15,
    note = NOTE, ndlua = paper_tflops,
  },
  {
    id = "narayanan-18.4b", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 18.4B (48 heads, h 6144, 40 layers), TP 8 PP 1 DP 32, 256 GPUs, batch 1024 x 2048, full recompute",
    model = { name = "gpt-18.4b", arch = "gpt", hidden_size = 6144, num_attention_heads = 48, num_hidden_layers = 40,
              intermediate_size = 24576, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true },
    run = { runtime = "megatron", tp = 8, pp = 1, dp = 32, micro_batch_size = 1, global_batch_size = 1024,
            seq_length = 2048, recompute = "full", flash_attention = false, param_bytes = 2, compute_bytes = 2,
            grad_bytes = 4, grad_accumulation = true },
    hardware = "A100-80GB", metric = "tflops_per_gpu", measured = 135, unit = "TFLOP/s", tolerance = 0.15,
    note = NOTE, ndlua = paper_tflops,
  },
  {
    id = "narayanan-39.1b", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 39.1B (64 heads, h 8192, 48 layers), TP 8 PP 2 (interleaved, 2 chunks) DP 32, 512 GPUs, "
      .. "batch 1536 x 2048, full recompute",
    model = { name = "gpt-39.1b", arch = "gpt", hidden_size = 8192, num_attention_heads = 64, num_hidden_layers = 48,
              intermediate_size = 32768, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true },
    run = { runtime = "megatron", tp = 8, pp = 2, vpp = 2, dp = 32, micro_batch_size = 1, global_batch_size = 1536,
            seq_length = 2048, recompute = "full", flash_attention = false, param_bytes = 2, compute_bytes = 2,
            grad_bytes = 4, grad_accumulation = true },
    hardware = "A100-80GB", metric = "tflops_per_gpu", measured = 138, unit = "TFLOP/s", tolerance = 0.15,
    note = NOTE, ndlua = paper_tflops,
  },
  {
    id = "narayanan-76.1b", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 76.1B (80 heads, h 10240, 60 layers), TP 8 PP 4 (interleaved, 3 chunks) DP 32, 1024 GPUs, "
      .. "batch 1792 x 2048, full recompute",
    model = { name = "gpt-76.1b", arch = "gpt", hidden_size = 10240, num_attention_heads = 80, num_hidden_layers = 60,
              intermediate_size = 40960, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true },
    run = { runtime = "megatron", tp = 8, pp = 4, vpp = 3, dp = 32, micro_batch_size = 1, global_batch_size = 1792,
            seq_length = 2048, recompute = "full", flash_attention = false, param_bytes = 2, compute_bytes = 2,
            grad_bytes = 4, grad_accumulation = true },
    hardware = "A100-80GB", metric = "tflops_per_gpu", measured = 140, unit = "TFLOP/s", tolerance = 0.15,
    note = NOTE, ndlua = paper_tflops,
  },
  {
    id = "narayanan-145.6b", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 145.6B (96 heads, h 12288, 80 layers), TP 8 PP 8 (interleaved, 2 chunks) DP 24, 1536 GPUs, "
      .. "batch 2304 x 2048, full recompute",
    model = { name = "gpt-145.6b", arch = "gpt", hidden_size = 12288, num_attention_heads = 96, num_hidden_layers = 80,
              intermediate_size = 49152, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true },
    run = { runtime = "megatron", tp = 8, pp = 8, vpp = 2, dp = 24, micro_batch_size = 1, global_batch_size = 2304,
            seq_length = 2048, recompute = "full", flash_attention = false, param_bytes = 2, compute_bytes = 2,
            grad_bytes = 4, grad_accumulation = true },
    hardware = "A100-80GB", metric = "tflops_per_gpu", measured = 148, unit = "TFLOP/s", tolerance = 0.15,
    note = NOTE, ndlua = paper_tflops,
  },
  {
    id = "narayanan-310.1b", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 310.1B (128 heads, h 16384, 96 layers), TP 8 PP 16 (interleaved, 2 chunks) DP 15, 1920 GPUs, "
      .. "batch 2160 x 2048, full recompute",
    model = { name = "gpt-310.1b", arch = "gpt", hidden_size = 16384, num_attention_heads = 128, num_hidden_layers = 96,
              intermediate_size = 65536, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true },
    run = { runtime = "megatron", tp = 8, pp = 16, vpp = 2, dp = 15, micro_batch_size = 1, global_batch_size = 2160,
            seq_length = 2048, recompute = "full", flash_attention = false, param_bytes = 2, compute_bytes = 2,
            grad_bytes = 4, grad_accumulation = true },
    hardware = "A100-80GB", metric = "tflops_per_gpu", measured = 155, unit = "TFLOP/s", tolerance = 0.15,
    note = NOTE, ndlua = paper_tflops,
  },
  {
    id = "narayanan-529.6b", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 529.6B (128 heads, h 20480, 105 layers), TP 8 PP 35 (interleaved, 3 chunks) DP 9, 2520 GPUs, "
      .. "batch 2520 x 2048, full recompute",
    model = { name = "gpt-529.6b", arch = "gpt", hidden_size = 20480, num_attention_heads = 128,
              num_hidden_layers = 105, intermediate_size = 81920, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true },
    run = { runtime = "megatron", tp = 8, pp = 35, vpp = 3, dp = 9, micro_batch_size = 1, global_batch_size = 2520,
            seq_length = 2048, recompute = "full", flash_attention = false, param_bytes = 2, compute_bytes = 2,
            grad_bytes = 4, grad_accumulation = true },
    hardware = "A100-80GB", metric = "tflops_per_gpu", measured = 163, unit = "TFLOP/s", tolerance = 0.15,
    note = NOTE, ndlua = paper_tflops,
  },
  {
    id = "narayanan-1008b", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 1008B (160 heads, h 25600, 128 layers), TP 8 PP 64 (interleaved, 2 chunks) DP 6, 3072 GPUs, "
      .. "batch 3072 x 2048, full recompute",
    model = { name = "gpt-1008b", arch = "gpt", hidden_size = 25600, num_attention_heads = 160, num_hidden_layers = 128,
              intermediate_size = 102400, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true },
    run = { runtime = "megatron", tp = 8, pp = 64, vpp = 2, dp = 6, micro_batch_size = 1, global_batch_size = 3072,
            seq_length = 2048, recompute = "full", flash_attention = false, param_bytes = 2, compute_bytes = 2,
            grad_bytes = 4, grad_accumulation = true },
    hardware = "A100-80GB", metric = "tflops_per_gpu", measured = 163, unit = "TFLOP/s", tolerance = 0.15,
    note = NOTE, ndlua = paper_tflops,
  },
}
