-- Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
-- Transformer Models" (MLSys 2023): end-to-end iteration times of four
-- GPT models on A100 80GB with Megatron-LM, each with full activation
-- recomputation (the baseline) and with sequence parallelism plus
-- selective recomputation (the paper's method). Model configurations
-- from its Table 3, times from its Table 5. GPT architecture: learned
-- positions, GeLU MLP of 4h, vocabulary 51200, sequence 2048,
-- micro-batch 1, TP 8, data parallel 1 (GPUs = TP x PP).
-- Calibration: with Narayanan's Table 1 these times set and check the A100
-- profile's sustained rate (80 % of peak) and Megatron's selective rule.
local SOURCE = "Korthikanti et al. 2022, \"Reducing Activation Recomputation in Large Transformer Models\", "
  .. "Table 5 (end-to-end iteration time; configurations in Table 3), A100 80GB, Megatron-LM"

local NOTE = "Mixed precision (bf16/fp16 params and compute, fp32 gradients, as Megatron-LM keeps them); "
  .. "no interleaving (the paper's configurations state none; ndlua's default 1F1B); "
  .. "selective is Megatron's rule (the attention core recomputed). Eager attention (flash_attention = "
  .. "false): the runs predate FlashAttention in Megatron-LM, and the paper's activation formula counts "
  .. "the softmax and dropout of the a x s x s scores (its 5as/h term) that only an eager attention keeps. "
  .. "The head shares the word embeddings (tie_word_embeddings), Megatron-LM's default then."

local M22B = { name = "gpt-22b", arch = "gpt", hidden_size = 6144, num_attention_heads = 64, num_hidden_layers = 48,
  intermediate_size = 24576, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true }
local M175B = { name = "gpt-175b", arch = "gpt", hidden_size = 12288, num_attention_heads = 96, num_hidden_layers = 96,
  intermediate_size = 49152, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true }
local M530B = { name = "gpt-530b", arch = "gpt", hidden_size = 20480, num_attention_heads = 128,
  num_hidden_layers = 105, intermediate_size = 81920, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true }
local M1T = { name = "gpt-1t", arch = "gpt", hidden_size = 25600, num_attention_heads = 160, num_hidden_layers = 128,
  intermediate_size = 102400, vocab_size = 51200, max_position_embeddings = 2048, tie_word_embeddings = true }

return {
  {
    id = "korthikanti-22b-full", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 22B (h 6144, 64 heads, 48 layers), TP 8 PP 1, 8 GPUs, batch 4 x 2048, full recompute",
    model = M22B,
    run = { runtime = "megatron", tp = 8, pp = 1, dp = 1, micro_batch_size = 1, global_batch_size = 4,
            seq_length = 2048, recompute = "full", sequence_parallel = false,
            param_bytes = 2, compute_bytes = 2, grad_bytes = 4, grad_accumulation = true, flash_attention = false },
    hardware = "A100-80GB", metric = "step_time_s", measured = 1.42, unit = "s", tolerance = 0.15, note = NOTE,
  },
  {
    id = "korthikanti-22b-selective-sp", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 22B (h 6144, 64 heads, 48 layers), TP 8 + SP, PP 1, 8 GPUs, batch 4 x 2048, selective recompute",
    model = M22B,
    run = { runtime = "megatron", tp = 8, pp = 1, dp = 1, micro_batch_size = 1, global_batch_size = 4,
            seq_length = 2048, recompute = "selective", selective_rule = "megatron", sequence_parallel = true,
            param_bytes = 2, compute_bytes = 2, grad_bytes = 4, grad_accumulation = true, flash_attention = false },
    hardware = "A100-80GB", metric = "step_time_s", measured = 1.10, unit = "s", tolerance = 0.15, note = NOTE,
  },
  {
    id = "korthikanti-175b-full", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 175B (h 12288, 96 heads, 96 layers), TP 8 PP 8, 64 GPUs, batch 64 x 2048, full recompute",
    model = M175B,
    run = { runtime = "megatron", tp = 8, pp = 8, dp = 1, micro_batch_size = 1, global_batch_size = 64,
            seq_length = 2048, recompute = "full", sequence_parallel = false,
            param_bytes = 2, compute_bytes = 2, grad_bytes = 4, grad_accumulation = true, flash_attention = false },
    hardware = "A100-80GB", metric = "step_time_s", measured = 18.13, unit = "s", tolerance = 0.15, note = NOTE,
  },
  {
    id = "korthikanti-175b-selective-sp", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 175B (h 12288, 96 heads, 96 layers), TP 8 + SP, PP 8, 64 GPUs, batch 64 x 2048, selective recompute",
    model = M175B,
    run = { runtime = "megatron", tp = 8, pp = 8, dp = 1, micro_batch_size = 1, global_batch_size = 64,
            seq_length = 2048, recompute = "selective", selective_rule = "megatron", sequence_parallel = true,
            param_bytes = 2, compute_bytes = 2, grad_bytes = 4, grad_accumulation = true, flash_attention = false },
    hardware = "A100-80GB", metric = "step_time_s", measured = 13.75, unit = "s", tolerance = 0.15, note = NOTE,
  },
  {
    id = "korthikanti-530b-full", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 530B (h 20480, 128 heads, 105 layers), TP 8 PP 35, 280 GPUs, batch 280 x 2048, full recompute",
    model = M530B,
    run = { runtime = "megatron", tp = 8, pp = 35, dp = 1, micro_batch_size = 1, global_batch_size = 280,
            seq_length = 2048, recompute = "full", sequence_parallel = false,
            param_bytes = 2, compute_bytes = 2, grad_bytes = 4, grad_accumulation = true, flash_attention = false },
    hardware = "A100-80GB", metric = "step_time_s", measured = 49.05, unit = "s", tolerance = 0.15, note = NOTE,
  },
  {
    id = "korthikanti-530b-selective-sp", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 530B (h 20480, 128 heads, 105 layers), TP 8 + SP, PP 35, 280 GPUs, "
      .. "batch 280 x 2048, selective recompute",
    model = M530B,
    run = { runtime = "megatron", tp = 8, pp = 35, dp = 1, micro_batch_size = 1, global_batch_size = 280,
            seq_length = 2048, recompute = "selective", selective_rule = "megatron", sequence_parallel = true,
            param_bytes = 2, compute_bytes = 2, grad_bytes = 4, grad_accumulation = true, flash_attention = false },
    hardware = "A100-80GB", metric = "step_time_s", measured = 37.83, unit = "s", tolerance = 0.15, note = NOTE,
  },
  {
    id = "korthikanti-1t-full", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 1T (h 25600, 160 heads, 128 layers), TP 8 PP 64, 512 GPUs, batch 512 x 2048, full recompute",
    model = M1T,
    run = { runtime = "megatron", tp = 8, pp = 64, dp = 1, micro_batch_size = 1, global_batch_size = 512,
            seq_length = 2048, recompute = "full", sequence_parallel = false,
            param_bytes = 2, compute_bytes = 2, grad_bytes = 4, grad_accumulation = true, flash_attention = false },
    hardware = "A100-80GB", metric = "step_time_s", measured = 94.42, unit = "s", tolerance = 0.15, note = NOTE,
  },
  {
    id = "korthikanti-1t-selective-sp", set = "calibration", group = "megatron time", kind = "time", source = SOURCE,
    config = "GPT 1T (h 25600, 160 heads, 128 layers), TP 8 + SP, PP 64, 512 GPUs, "
      .. "batch 512 x 2048, selective recompute",
    model = M1T,
    run = { runtime = "megatron", tp = 8, pp = 64, dp = 1, micro_batch_size = 1, global_batch_size = 512,
            seq_length = 2048, recompute = "selective", selective_rule = "megatron", sequence_parallel = true,
            param_bytes = 2, compute_bytes = 2, grad_bytes = 4, grad_accumulation = true, flash_attention = false },
    hardware = "A100-80GB", metric = "step_time_s", measured = 71.49, unit = "s", tolerance = 0.15, note = NOTE,
  },
}
