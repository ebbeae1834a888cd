-- MindSpeed-LLM's FSDP2 backend on Ascend (PyTorch FSDP2 through torch_npu):
-- its fine-tuning guide (repository Ascend/MindSpeed-LLM, the FSDP2 backend
-- fine-tuning guide, English and Chinese, stored text ids 59936375633 and
-- 55622649028) fine-tunes Qwen3-8B on one Atlas 900 A2 PoD node (8 NPUs) with
-- examples/fsdp2/qwen3/tune_qwen3_8b_4k_fsdp2_A2.yaml and prints the training
-- log's max_memory_allocated(GB): 19.07 in iterations 1-3. The trainer's
-- monitor (mindspeed_llm/fsdp2/utils/train_monitor.py) prints
-- torch max_memory_allocated / 1024^3, the largest over all ranks.
-- Calibration: its breakdown was read to find fsdp_table_units (the yaml's
-- fsdp_modules wrap embed_tokens and lm_head as units of their own, so
-- FSDP2's per-unit post_backward reduces the head as the backward starts), and
-- to find that the head's own unit's buffers are the only FSDP buffers at the
-- backward's start (estimate.c head_own_unit).
local SOURCE = "Ascend/MindSpeed-LLM FSDP2 fine-tuning guide (Qwen3-8B, tune_qwen3_8b_4k_fsdp2_A2.yaml, 8 NPUs), "
  .. "the log's max_memory_allocated(GB) 19.07 (bytes / 1024^3, max over ranks)"

local NOTE = "Stated by the guide's yaml: Qwen3-8B, fsdp_size 8 over 8 NPUs (fsdp_modules: every layer, "
  .. "embed_tokens, lm_head: fsdp_table_units), "
  .. "tp 1, ep 1, recompute true on every layer, per_device_train_batch_size 1, "
  .. "gradient_accumulation_steps 1, AdamW, cutoff_len 4096, alpaca_full (SFT). Defaults (the FSDP2 arguments "
  .. "doc): param_dtype bf16, reduce_dtype fp32, reshard_after_forward true, prefetch 1 module. The model "
  .. "loader (mindspeed_llm/fsdp2/models/model_loader.py) loads the weights in torch.float32 (model.float()): "
  .. "fp32 sharded parameters, bf16 gathers, fp32 reduction, fp32 Adam states: the torchtitan profile's FSDP2. "
  .. "Assumed: the longest sample of the first three iterations at 256 tokens (the log: 564, 793 and 756 "
  .. "tokens for 8 samples an iteration; ndlua moves 0.1 GiB between 128 and 512 tokens), unpadded."

return {
  {
    id = "mindspeed-fsdp2-qwen3-8b-sft", set = "calibration", group = "ascend fsdp memory", kind = "memory",
    source = SOURCE,
    config = "Qwen3-8B, FSDP2 over 8 Ascend NPUs (fp32 sharded params, bf16 gathers, fp32 reduce), full "
      .. "recomputation, micro-batch 1 of <= 256 tokens, one micro-batch a step",
    model = "Qwen/Qwen3-8B",
    run = { runtime = "torchtitan", dp = 8, tp = 1, pp = 1, micro_batch_size = 1, global_batch_size = 8,
            seq_length = 256, recompute = "full", fsdp_table_units = true },
    metric = "allocated", measured = 19.07, unit = "GiB", tolerance = 0.10,
    -- +4.3 %, the peak at the backward's end (at its start the head's own unit's buffers are the
    -- stage's FSDP buffers, counted once: src/core/estimate.c head_own_unit). Without
    -- fsdp_table_units (= false: the head reduced with the root group at the end): +13.4 %.
    note = NOTE,
  },
}
