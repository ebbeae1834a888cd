-- Megatron-LM / Megatron-Core, BF16 mixed precision with Transformer Engine.
-- Each field below is a behaviour of its code, named where it lives:
return {
  name = "megatron",
  about = "Megatron-LM / Megatron-Core: bf16 weights, fp32 main grads and main params, fused TE kernels",
  -- What its memory report and max_memory_allocated show: the allocated peak.
  peak = "allocated",
  -- Its TP all-reduces (and SP's all-gathers and reduce-scatters) run on the
  -- compute stream between the layer's GEMMs: nothing hides them unless
  -- Transformer Engine's userbuffer overlap (tp_comm_overlap) is on. Its DP
  -- gradient all-reduce (or reduce-scatter) runs once the backward is done
  -- unless --overlap-grad-reduce, off by default, is given (a run states it
  -- as overlapped_grad_reduce = true): then each gradient bucket of
  -- max(4e7, 1e6 x dp) parameters is reduced as soon as its gradients are
  -- ready in the last micro-batch's backward (sharding.reduce_bucket = -1;
  -- src/core/timing.c ddp_bucket_seconds).
  overlap = { tp = 0, dp = 0 },
  run = {
    precision = {
      -- The model's weights are the bf16 parameters; Float16OptimizerWithFloat16Params
      -- (or the distributed optimizer) keeps fp32 main params and two fp32 Adam moments.
      param_bytes = 2, compute_bytes = 2, main_param_bytes = 4, optimizer_state_bytes = 4, optimizer_states = 2,
      -- DistributedDataParallel's contiguous grad buffer (main_grad) exists from
      -- the start, in fp32 (arguments.py sets accumulate_allreduce_grads_in_fp32
      -- for bf16), full size even under the distributed optimizer, which
      -- reduce-scatters in it and all-gathers the params in the param buffer:
      -- 6 + 12/DP bytes a parameter with --use-distributed-optimizer, 18 without.
      grad_bytes = 4, grad_accumulation = true,
      -- No bf16 copies of wider weights: the weights already are bf16.
      param_casts = false,
      -- Without flash attention, FusedScaleMaskSoftmax computes in fp32 but
      -- writes its output in the scores' 16-bit width (no
      -- --attention-softmax-in-fp32): what it keeps and what the product with
      -- V reads, with no cast between them.
      softmax_bytes = 2,
    },
    sharding = {
      -- The grad buffer above is the DP collectives' own (no bucket beside it).
      inplace_dp_buffers = true,
      -- reduce_from_tensor_model_parallel_region all-reduces the row-parallel
      -- matmul's output in place (and the column-parallel input gradient, in
      -- the backward): no TP buffer beside the activations. Sequence
      -- parallelism's all-gathers write into its global memory buffer, which
      -- stays ([s, b, h], as ndlua prices it then).
      inplace_tp_reduce = true,
      -- The distributed optimizer shards main params and moments (ZeRO-1), not
      -- the bf16 params nor the grad buffer, which hold the embedding and the
      -- output layer too; both are split over TP (VocabParallelEmbedding).
      param_shard = false, grad_shard = false, vocab_emb_dp = false,
      -- DistributedDataParallel's buckets: bucket_size = max(40000000,
      -- 1000000 x dp) when overlap_grad_reduce (distributed_data_parallel.py).
      reduce_bucket = -1,
    },
    kernels = {
      -- TE's fused RMSNorm/LayerNorm keep the input and fp32 statistics;
      -- bias_swiglu_impl keeps the fc1 output and its own output.
      fused_norm = true, fused_swiglu = true,
      -- apply_rope_fusion (on unless --no-rope-fusion): Transformer Engine's
      -- fused RoPE kernel rotates the queries and keys in one pass.
      rope = "fused",
      flash_attention = true,
      -- TransformerLayer adds each sublayer's output through a bias-dropout-add
      -- (transformer_layer.py, bias_dropout_add_fusion.py): at its default
      -- hidden_dropout 0.1 the dropout keeps a 1-byte bool mask of the hidden
      -- state for the backward, and at 0 too under its TorchScript jit_fuser
      -- (PyTorch before 2.2). Every Megatron run keeps them, not one case.
      hidden_dropout_masks = true,
    },
    -- post_language_model_processing: logits.float() unless
    -- fp16_lm_cross_entropy; _VocabParallelCrossEntropy saves the fp32
    -- softmax and writes the gradient over it; split over TP (vocab-parallel).
    -- Since Megatron-Core core_r0.9.0 (megatron/core/tensor_parallel/
    -- cross_entropy.py, VocabParallelCrossEntropy) the .float() copy is made
    -- inside the loss and turned into the softmax in place ("In-place
    -- subtraction reduces memory pressure", exp(out=), div_): beside the bf16
    -- logits its forward holds nothing more than what it keeps.
    loss = { loss_upcast = true, loss_inplace_grad = true, loss_parallel = true, loss_inplace_softmax = true },
    recompute = { selective_rule = "megatron" },
    -- max_memory_allocated counts tensors alone: no reserve, no fragmentation.
    allocator = { reserve_bytes = 0, fragmentation = 0 },
    -- --sequence-parallel composes with --context-parallel-size: Megatron-Core's
    -- context-parallel guide (docs/source/api-guide/context_parallel.rst, its
    -- Figure 1, "a transformer layer running with TP2CP2") draws the layer with
    -- sequence parallelism's all-gathers and reduce-scatters around the TP
    -- blocks and CP's K/V exchange beside attention. The reference planner
    -- refuses the pair ("CP+SP incompatible"); under this runtime the search
    -- keeps it.
    -- expert_folding: a stated --expert-tensor-parallel-size, 1 included, is the
    -- expert layers' own TP degree, over ranks folded from the stage's tp x cp x
    -- dp (megatron/core/parallel_state.py initialize_model_parallel: a second
    -- RankGenerator(tp=expert_tensor_parallel_size, ep, dp=expert data
    -- parallel, cp=1); unset, it is tensor_model_parallel_size there: a run's
    -- etp 0). At 1 the experts are whole and each rank dispatches its own
    -- sequence shard over an EP group of consecutive ranks (src/core/derive.c
    -- ep_rank_stride, ep_token_share).
    parallelism = { sp_with_cp = true, expert_folding = true },
  },
}
