-- MindSpeed-LLM on MindSpore (MindSpeed-Core-MS r0.4.0, MindSpore 2.7.1,
-- CANN 8.2RC1): the DryRun experiment note (repository
-- Charles2530/MindSpeed-LLM, its DryRun-versus-real-pretraining README,
-- stored text id 53145232361) trains Qwen2.5-7B-Instruct on 4 Ascend 910
-- (64 GB HBM, Atlas 800) and prints MindSpore's own memory statistics of the
-- real runs: "Used peak memory usage (without fragments)" (the allocator's
-- peak of what tensors hold, MiB: MindSpore prints sizes >> 20 with 'M').
-- The run is the repository's examples/mindspore/qwen25/pretrain_qwen25_7b_32k_ms.sh
-- with TP=2, PP=2, SEQ_LEN=10240, MBS=1, GBS=64 as the note states.
-- Validation: an Ascend/MindSpore run, never looked at while designing a
-- mechanism or a constant.
local SOURCE = "Charles2530/MindSpeed-LLM: DryRun vs real pretraining note (Qwen2.5-7B, 4 x Ascend 910, MindSpore "
  .. "2.7.1), real runs' 'Used peak memory usage (without fragments)'; script "
  .. "examples/mindspore/qwen25/pretrain_qwen25_7b_32k_ms.sh (commit ee3c1a47)"

local NOTE = "Stated: Qwen2.5-7B (28 layers, hidden 3584, FFN 18944, 28 heads, 4 KV groups, QKV bias, untied "
  .. "embeddings, padded vocabulary 152064), TP 2, PP 2, 4 devices (DP 1), sequence 10240, micro-batch 1, "
  .. "global batch 64 (64 micro-batches), --sequence-parallel, --use-flash-attn, fused SwiGLU/RMSNorm/RoPE, "
  .. "bf16, attention and hidden dropout 0, no distributed optimizer (DP 1: nothing to shard), Adam. "
  .. "Runtime: MindSpeed-LLM runs Megatron-Core's model code (on MindSpore through MSAdapter), so the megatron "
  .. "profile prices it. Assumed: the printed peak is the busiest pipeline stage's (the note names no rank); "
  .. "1F1B. MindSpore's 'M' taken as MiB."

local function run(extra)
  local r = { runtime = "megatron", dp = 1, tp = 2, pp = 2, micro_batch_size = 1, global_batch_size = 64,
              seq_length = 10240, optimizer_parallel = false, flash_attention = true, sequence_parallel = true,
              param_bytes = 2, compute_bytes = 2 }
  for k, v in pairs(extra) do r[k] = v end
  return r
end

return {
  {
    id = "mindspeed-qwen25-7b-tp2pp2-norecompute", set = "validation", group = "mindspore memory", kind = "memory",
    source = SOURCE, config = "Qwen2.5-7B, TP 2 (SP) x PP 2, DP 1, seq 10240, micro-batch 1, 64 micro-batches, "
      .. "no recomputation",
    model = "Qwen/Qwen2.5-7B", run = run { recompute = "off" },
    metric = "allocated", measured = 55405 / 1024, unit = "GiB", tolerance = 0.10,
    note = NOTE .. " The real run without recomputation: 55405M (57400M with fragments).",
  },
  {
    id = "mindspeed-qwen25-7b-tp2pp2-full", set = "validation", group = "mindspore memory", kind = "memory",
    source = SOURCE, config = "Qwen2.5-7B, TP 2 (SP) x PP 2, DP 1, seq 10240, micro-batch 1, 64 micro-batches, "
      .. "full recomputation of every layer (uniform, 1 layer a group)",
    model = "Qwen/Qwen2.5-7B", run = run { recompute = "full" },
    metric = "allocated", measured = 35073 / 1024, unit = "GiB", tolerance = 0.10,
    note = NOTE .. " Without Megatron-Core's in-place loss softmax (loss_inplace_softmax = false): +16.2 %. The real run with --recompute-granularity full --recompute-method uniform "
      .. "--recompute-num-layers 1: 35073M (36174M with fragments).",
  },
}
