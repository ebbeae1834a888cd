-- MindSpore MindFormers' model library (repository mindspore-ai/docs,
-- docs/mindformers/docs/source_zh_cn/start/models.md): the training
-- throughput each model card states, tokens a second a device ("tokens/s/p"),
-- with the config it names, on Atlas 800T A2 (8 Ascend 910B NPUs a node,
-- HCCS inside it, RoCE between nodes: the 910B profile). The two Llama 2 rows
-- whose config is a pretrain or finetune run of the whole model; the configs
-- as stored in mindspore-lab/mindformers (configs/llama2/), the page's links
-- pointing at its dev branch.
-- Validation: never looked at while designing a mechanism or a constant.
local SOURCE = "MindSpore docs, docs/mindformers/docs/source_zh_cn/start/models.md (training throughput, "
  .. "tokens/s/p on Atlas 800T A2), with the configs it names in mindspore-lab/mindformers configs/llama2/"

local NOTE = "Stated by the config: parallel_config (data_parallel, model_parallel, pipeline_stage, "
  .. "use_seq_parallel, micro_batch_num), the dataset's batch_size, runner_config's "
  .. "gradient_accumulation_steps, seq_length 4096, use_flash_attention, enable_parallel_optimizer "
  .. "(gradient_accumulation_shard false), compute_dtype bfloat16, param_init_type, recompute_config, graph "
  .. "mode (jit_level O1), FP32StateAdamWeightDecay, the Llama 2 shapes. Assumed: the stored config is the one "
  .. "the page's figure was measured with (the page links its dev branch); the mindspore runtime profile."

local function tokens_per_step(run)
  return run.global_batch_size * run.seq_length
end

return {
  {
    id = "mindformers-llama2-7b-8p", set = "validation", group = "mindformers time", kind = "time", source = SOURCE,
    config = "Llama 2 7B, 8 Atlas 800T A2 NPUs, DP 8 with the parallel optimizer, batch 6 a rank, 8 "
      .. "micro-batches a step (gradient accumulation), sequence 4096, no recompute, flash attention",
    model = "meta-llama/Llama-2-7b-hf",
    run = { runtime = "mindspore", dp = 8, optimizer_parallel = true, micro_batch_size = 6,
            global_batch_size = 8 * 6 * 8, seq_length = 4096, recompute = "off", flash_attention = true,
            param_bytes = 2, compute_bytes = 2 },
    hardware = "910B", metric = "tokens_per_s_per_device", measured = 4160, unit = "tokens/s", tolerance = 0.15,
    note = NOTE .. " param_init_type float16 (2-byte parameters). " .. string.format("%d tokens a step.",
      tokens_per_step { global_batch_size = 8 * 6 * 8, seq_length = 4096 }),
    known_gap = "the 910B profile's sustained 140 TFLOP/s (the reference planner's A2 rate): the run reaches "
      .. "about 57 % MFU of 313", reached = 0.22,
  },
  {
    id = "mindformers-llama2-70b-32p", set = "validation", group = "mindformers time", kind = "time", source = SOURCE,
    config = "Llama 2 70B, 32 Atlas 800T A2 NPUs, TP 4 with sequence parallelism, PP 8, DP 1, 256 "
      .. "micro-batches of 1, sequence 4096, selective recompute of 8, 4, 4, 1, 1, 1, 1, 1 layers a stage",
    model = "meta-llama/Llama-2-70b-hf",
    run = { runtime = "mindspore", dp = 1, tp = 4, pp = 8, sequence_parallel = true, micro_batch_size = 1,
            global_batch_size = 256, seq_length = 4096, selective_recompute = { 8, 4, 4, 1, 1, 1, 1, 1 },
            flash_attention = true, param_bytes = 2, compute_bytes = 2 },
    hardware = "910B", metric = "tokens_per_s_per_device", measured = 337, unit = "tokens/s", tolerance = 0.15,
    note = NOTE .. " finetune_llama2_70b_bf16_32p.yaml: param_init_type bfloat16, select_recompute and "
      .. "select_comm_recompute [8,4,4,1,1,1,1,1], mp_comm_recompute, fine_grain_interleave 2 (not priced). "
      .. "The page states 337 tokens/s/p for Llama 3 70B and Llama 3.1 70B too, on other configs.",
  },
}
