-- Megatron-LM PR #482, "Analysis Tool" (tools/get_training_info): its
-- author measured the peak of torch.cuda.max_memory_allocated on one
-- 8-GPU H800 node for four Llama-2-7B layouts (B1-B4 in the PR) and
-- reported them beside the tool's formula (0.4-0.7 % apart). The runs:
-- Megatron-LM, sequence 2048, bf16, flash attention, the distributed
-- optimizer, SwiGLU; no sequence parallelism, no interleaving, no
-- recomputation.
-- Calibration: these four peaks designed the Megatron profile's
-- hidden_dropout_masks and inplace_tp_reduce.
local SOURCE = "Megatron-LM PR #482 \"Analysis Tool\" (tools/get_training_info): measured "
  .. "torch.cuda.max_memory_allocated, Llama-2-7B on one 8-GPU H800 node, layouts B1-B4"

-- What every case assumes, beyond its own layout.
local NOTE = "The PR prints GB; taken as 1e9 bytes (if it meant GiB the measured values are 7.4 % higher). "
  .. "global_batch_size = dp x mbs x 8 micro-batches: the PR states no batch, and 1F1B memory does not "
  .. "depend on it (pp 1: one micro-batch in flight; pp 2: the first stage holds 2 for any count >= 2). "
  .. "The peak is the busiest rank's (the first pipeline stage at pp 2). The PR states no dropout: at "
  .. "Megatron's default hidden_dropout (0.1) each bias-dropout-add keeps a 1-byte mask, and at 0 it keeps "
  .. "it too under TorchScript, Megatron's jit_fuser before PyTorch 2.2 (the PR is from 2023; "
  .. "scripts/measure/torchscript_dropout.py): hidden_dropout_masks, 2 bytes a token a layer, over TP "
  .. "unsplit, as the megatron runtime profile states for every Megatron run. Without them the four are +0.1, -4.2, -3.3 and -4.6 %. The PR's Megatron "
  .. "(2023) subtracted the logits' maximum out of place in its cross-entropy (megatron/core/tensor_parallel/"
  .. "cross_entropy.py before core_r0.9.0, as the copy in microsoft/Megatron-DeepSpeed): loss_inplace_softmax = "
  .. "false, the version's code, where the profile states Megatron-Core's in-place form."

return {
  {
    id = "megatron-pr482-dp8", set = "calibration", group = "megatron memory", kind = "memory", source = SOURCE,
    config = "Llama-2-7B, DP 8 (distributed optimizer), micro-batch 2, seq 2048, bf16, flash attention",
    model = "meta-llama/Llama-2-7b-hf",
    run = { runtime = "megatron", dp = 8, tp = 1, pp = 1, micro_batch_size = 2, global_batch_size = 128,
            seq_length = 2048, optimizer_parallel = true, flash_attention = true, sequence_parallel = false,
            recompute = "off", param_bytes = 2, compute_bytes = 2, loss_inplace_softmax = false },
    metric = "allocated", measured = 69.1, unit = "GB", tolerance = 0.03, note = NOTE,
  },
  {
    id = "megatron-pr482-tp2", set = "calibration", group = "megatron memory", kind = "memory", source = SOURCE,
    config = "Llama-2-7B, TP 2 x DP 4 (distributed optimizer), micro-batch 4, seq 2048, bf16, flash attention",
    model = "meta-llama/Llama-2-7b-hf",
    run = { runtime = "megatron", dp = 4, tp = 2, pp = 1, micro_batch_size = 4, global_batch_size = 128,
            seq_length = 2048, optimizer_parallel = true, flash_attention = true, sequence_parallel = false,
            recompute = "off", param_bytes = 2, compute_bytes = 2, loss_inplace_softmax = false },
    metric = "allocated", measured = 55.7, unit = "GB", tolerance = 0.03, note = NOTE,
  },
  {
    id = "megatron-pr482-pp2", set = "calibration", group = "megatron memory", kind = "memory", source = SOURCE,
    config = "Llama-2-7B, PP 2 x DP 4 (distributed optimizer, 1F1B), micro-batch 2, seq 2048, bf16, flash attention",
    model = "meta-llama/Llama-2-7b-hf",
    run = { runtime = "megatron", dp = 4, tp = 1, pp = 2, micro_batch_size = 2, global_batch_size = 64,
            seq_length = 2048, optimizer_parallel = true, flash_attention = true, sequence_parallel = false,
            recompute = "off", param_bytes = 2, compute_bytes = 2, loss_inplace_softmax = false },
    metric = "allocated", measured = 49.8, unit = "GB", tolerance = 0.03, note = NOTE,
  },
  {
    id = "megatron-pr482-tp8", set = "calibration", group = "megatron memory", kind = "memory", source = SOURCE,
    config = "Llama-2-7B, TP 8 x DP 1, micro-batch 4, seq 2048, bf16, flash attention",
    model = "meta-llama/Llama-2-7b-hf",
    run = { runtime = "megatron", dp = 1, tp = 8, pp = 1, micro_batch_size = 4, global_batch_size = 32,
            seq_length = 2048, optimizer_parallel = true, flash_attention = true, sequence_parallel = false,
            recompute = "off", param_bytes = 2, compute_bytes = 2, loss_inplace_softmax = false },
    metric = "allocated", measured = 28.8, unit = "GB", tolerance = 0.03, note = NOTE,
  },
}
