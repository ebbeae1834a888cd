-- DeepSpeed ZeRO (stages 1-3) running a Transformers model in bf16.
return {
  name = "deepspeed",
  about = "DeepSpeed ZeRO 1-3: 16-bit params and grads, fp32 master params and Adam states",
  peak = "allocated",
  run = {
    -- 2 bytes of weights, 2 of gradients, 12 of optimizer (fp32 master
    -- params and two moments): the 16 bytes a parameter of the ZeRO paper
    -- (18 with fp32 gradient accumulation, grad_bytes = 4).
    precision = {
      param_bytes = 2, compute_bytes = 2, grad_bytes = 2, main_param_bytes = 4,
      optimizer_state_bytes = 4, optimizer_states = 2, grad_accumulation = true,
      param_casts = false,
    },
    -- The model runs eager Transformers code: eager norms and MLP, the
    -- loss upcast to fp32 with PyTorch's backward.
    kernels = {
      fused_norm = false, fused_swiglu = false,
      -- Transformers' apply_rotary_pos_emb: q * cos + rotate_half(q) * sin, op by op
      rope = "rotate_half",
      flash_attention = true,
    },
    loss = { loss_upcast = true, loss_inplace_grad = false },
    -- ZeRO-3 (zero = 3) prefetches the coming submodules' parameters
    -- (PartitionedParameterCoordinator, stage3_prefetch_bucket_size) and,
    -- overlap_comm being on by default at stage 3 (zero/config.py
    -- overlap_comm_valid), reduce-scatters its gradients in buckets of
    -- reduce_bucket_size = 5e8 elements (zero/config.py) on their own stream
    -- during the backward, the last bucket after it (stage3.py
    -- independent_gradient_partition_epilogue): its collectives are priced by
    -- the compute that hides them (src/core/timing.c dp_exposed_seconds).
    -- ZeRO-1/2 keep the fixed overlap share.
    sharding = { fsdp_prefetch = true, reduce_bucket = 500000000 },
    allocator = { fragmentation = 0 },
  },
  -- DeepSpeed's PipelineEngine runs ZeRO stage 0 or 1 only: its __init__
  -- (deepspeed/runtime/pipe/engine.py) asserts
  -- self.zero_optimization_stage() < 2, "ZeRO-2 and ZeRO-3 are incompatible
  -- with pipeline parallelism" (it schedules the gradient all-reduces itself
  -- after the last micro-batch). Such a run fails at start; ndlua refuses it.
  pipeline_refuses = {
    sharding = { param_shard = "ZeRO-3 (param_shard)", grad_shard = "ZeRO-2 (grad_shard)" },
    why = "DeepSpeed's PipelineEngine asserts zero_optimization_stage() < 2, \"ZeRO-2 and ZeRO-3 are "
      .. "incompatible with pipeline parallelism\" (deepspeed/runtime/pipe/engine.py)",
    accepted = "ZeRO stage 0 or 1 (zero = 1) with pp > 1, or pp = 1 with ZeRO-2/3",
  },
}
