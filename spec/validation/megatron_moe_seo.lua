-- Megatron-LM (Megatron-Core, October 2024) MoE experiments published in
-- the repository SeunghyunSEO/Megatron-LM, moe_exp/README.md (commit
-- 026f2da93c96d0489d627aa26ebc2013de8ad580): one node of 8 A100-SXM4-80GB,
-- a 24-layer model of width 512 (GQA 4 heads, 1 KV group, SwiGLU FFN 1792,
-- RoPE, RMSNorm, untied embeddings, Llama 3.1's 128,256-token vocabulary),
-- dense and as a 64-expert top-1 MoE with expert parallelism 4 and 8. The
-- README prints each run's arguments (the dropless runs' in full) and
-- Megatron's report_memory line "[Rank 0] (after 20 iterations) memory (MB)
-- | ... | max allocated: X" (torch.cuda.max_memory_allocated / 2^20).
-- Calibration: their memory breakdowns were read to find
-- loss_inplace_softmax (Megatron-Core's cross-entropy keeping its fp32
-- logits as the softmax, in place), so by the suite's rule they informed a
-- mechanism and are not evidence of accuracy; each note gives the error
-- without it.
local SOURCE = "SeunghyunSEO/Megatron-LM, moe_exp/README.md (commit 026f2da9), Megatron report_memory "
  .. "'max allocated' of rank 0 after 20 iterations, 8 x A100-SXM4-80GB"

local NOTE = "Stated by the README (the dropless runs print every argument; the dense run the same script's "
  .. "MODEL_ARGS and its own MBS/GBS): --seq-length 2048, --num-layers 24, --hidden-size 512, "
  .. "--num-attention-heads 4, --group-query-attention --num-query-groups 1, --ffn-hidden-size 1792, --swiglu, "
  .. "RMSNorm, rope, --untie-embeddings-and-output-weights, --disable-bias-linear, attention and hidden dropout "
  .. "0, --bf16, --use-flash-attn, --use-distributed-optimizer, --accumulate-allreduce-grads-in-fp32, "
  .. "--overlap-grad-reduce, --overlap-param-gather, TP 1, PP 1, world 8 (data-parallel 8), no recomputation; "
  .. "MoE: --num-experts 64 --moe-router-topk 1, --moe-token-dispatcher-type alltoall, --moe-grouped-gemm, "
  .. "dropless (moe_expert_capacity_factor None). The log's parameter counts: 0.2132 B dense, 4.3750 B MoE "
  .. "(ndlua: 0.21 B and 4.38 B). Megatron prints MB as 2^20 bytes; stated here in GiB (/1024). Assumed: "
  .. "balanced routing (the aux loss 1e-2 is on; the first 20 iterations are early in training)."

local BASE = { hidden_size = 512, num_hidden_layers = 24, num_attention_heads = 4, num_key_value_heads = 1,
               head_dim = 128, intermediate_size = 1792, vocab_size = 128256, tie_word_embeddings = false,
               max_position_embeddings = 2048 }

local function model(moe)
  local o = {}
  for k, v in pairs(BASE) do o[k] = v end
  if moe then
    o.num_experts, o.num_experts_per_tok, o.moe_intermediate_size, o.num_shared_experts = 64, 1, 1792, 0
    return { pretrained_model_name_or_path = "mistralai/Mixtral-8x7B-v0.1", config_overrides = o }
  end
  return { pretrained_model_name_or_path = "meta-llama/Llama-3.1-8B", config_overrides = o }
end

local function run(extra)
  local r = { runtime = "megatron", dp = 8, tp = 1, pp = 1, seq_length = 2048, global_batch_size = 64,
              optimizer_parallel = true, flash_attention = true, sequence_parallel = false, recompute = "off",
              param_bytes = 2, compute_bytes = 2 }
  for k, v in pairs(extra) do r[k] = v end
  return r
end

return {
  {
    id = "megatron-seo-dense-dp8", set = "calibration", group = "megatron moe memory", kind = "memory",
    source = SOURCE, config = "24 x 512 dense (0.21 B), DP 8 (distributed optimizer), micro-batch 8, seq 2048, "
      .. "one micro-batch a step (GBS 64)",
    model = model(false), run = run { micro_batch_size = 8 },
    metric = "allocated", measured = 20561.49 / 1024, unit = "GiB", tolerance = 0.10,
    note = NOTE .. " Without Megatron-Core's in-place loss softmax (loss_inplace_softmax = false): +38.7 %. The 'dense baseline' run (20561.49 MB).",
  },
  {
    id = "megatron-seo-dmoe-ep4", set = "calibration", group = "megatron moe memory", kind = "memory",
    source = SOURCE, config = "24 x 512, 64 experts top-1 (4.38 B), EP 4 within DP 8 (distributed optimizer), "
      .. "micro-batch 8, seq 2048, one micro-batch a step (GBS 64)",
    model = model(true), run = run { ep = 4, micro_batch_size = 8 },
    metric = "allocated", measured = 33742.08 / 1024, unit = "GiB", tolerance = 0.10,
    note = NOTE .. " Without Megatron-Core's in-place loss softmax (loss_inplace_softmax = false): +25.1 %. The 'dropless moe, EP 4 / accum 1' run (33742.08 MB).",
  },
  {
    id = "megatron-seo-dmoe-ep8", set = "calibration", group = "megatron moe memory", kind = "memory",
    source = SOURCE, config = "24 x 512, 64 experts top-1 (4.38 B), EP 8 within DP 8 (distributed optimizer), "
      .. "micro-batch 4, seq 2048, two micro-batches a step (GBS 64)",
    model = model(true), run = run { ep = 8, micro_batch_size = 4 },
    metric = "allocated", measured = 20612.24 / 1024, unit = "GiB", tolerance = 0.10,
    note = NOTE .. " Without Megatron-Core's in-place loss softmax (loss_inplace_softmax = false): +19.7 %. The 'dropless moe, EP 8 / accum 2' run (20612.24 MB).",
  },
  {
    id = "megatron-seo-moe-cap1-ep4", set = "calibration", group = "megatron moe memory", kind = "memory",
    source = SOURCE, config = "24 x 512, 64 experts top-1 (4.38 B), EP 4 within DP 8 (distributed optimizer), "
      .. "capacity factor 1.0 padded to capacity, no grouped GEMM, micro-batch 8, seq 2048, GBS 64",
    model = model(true),
    run = run { ep = 4, micro_batch_size = 8, grouped_gemm = false, capacity_factor = 1.0 },
    metric = "allocated", measured = 33279.59 / 1024, unit = "GiB", tolerance = 0.10,
    note = NOTE .. " Without Megatron-Core's in-place loss softmax (loss_inplace_softmax = false): +26.9 %. The 'moe, top-1, 64-experts' run (33279.59 MB): its printed arguments state "
      .. "moe_expert_capacity_factor 1.0, moe_pad_expert_input_to_capacity True, moe_grouped_gemm False, "
      .. "expert_model_parallel_size 4; the rest as the dropless runs (the same script).",
  },
}
