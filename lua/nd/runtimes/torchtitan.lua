-- torchtitan: FSDP2 (fully_shard) with bf16 mixed precision and torch.compile,
-- as its Llama 3 recipes and benchmark tables run.
return {
  name = "torchtitan",
  about = "torchtitan: FSDP2 fp32 sharded params and grads, bf16 gathers, torch.compile",
  -- Its metrics log torch.cuda.max_memory_reserved ("memory: X GiB"): the
  -- caching allocator's segments, not only live tensors.
  peak = "reserved",
  run = {
    -- fully_shard with MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32):
    -- fp32 sharded parameters (no separate main copy), bf16 all-gathers
    -- freed after each layer's forward (reshard_after_forward) and gathered
    -- again for its backward, fp32 reduce-scattered gradients, sharded.
    zero = 3, grad_shard_as_params = true, reshard_params = true,
    param_bytes = 4, compute_bytes = 2, grad_bytes = 4, main_param_bytes = 0,
    optimizer_state_bytes = 4, optimizer_states = 2, grad_accumulation = true,
    param_casts = false,
    -- torch.compile fuses each RMSNorm and the SwiGLU product into Triton
    -- kernels that save the inputs and fp32 statistics.
    fused_norm = true, fused_swiglu = true,
    -- cross_entropy_loss: F.cross_entropy(pred.float(), labels); PyTorch's
    -- log-softmax and NLL backward allocate their gradients.
    loss_upcast = true, loss_inplace_grad = false,
    flash_attention = true,
    -- activation_checkpoint.mode = "selective" with selective_ac_option =
    -- "op": the per-op policy of torchtitan's activation checkpointing
    -- (save the matmuls' outputs but every second one, and the attention
    -- kernel's; recompute the rest)
    selective_rule = "torchtitan",
    -- Assumption: the caching allocator holds 5 % above the allocated peak
    -- in partly used segments (FSDP2's per-layer all-gather and
    -- reduce-scatter buffers come and go every layer); no reserve beyond it,
    -- as max_memory_reserved counts neither the CUDA context nor NCCL.
    fragmentation = 0.05, reserve_bytes = 0,
  },
}
