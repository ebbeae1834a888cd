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
    sharding = {
      zero = 3, grad_shard_as_params = true, reshard_params = true,
      -- Its TP plan (parallelize_llama's apply_tp) makes tok_embeddings
      -- RowwiseParallel(input_layouts=Replicate(), output_layouts=Shard(1)):
      -- the table's vocabulary rows are split over TP at any PP degree, not
      -- kept whole on every TP rank (the core's default, MindSpore's).
      vocab_emb_dp = false,
      -- FSDP2's foreach_all_gather casts each shard into the all-gather input
      -- and copies the output out into the parameters; foreach_reduce copies
      -- the gradients into an fp32 reduce-scatter input (chunk_cat) and frees
      -- the unsharded bf16 gradients only after the copy, so at the backward's
      -- end the embedding and head's live beside their input (measured on one
      -- H200 at 2048 tokens: the default stream peaked there 6.32 GB over its
      -- base, the 4.20 GB input and 2.10 GB of those gradients).
      gather_copies = true,
      -- Under PP, torch.distributed.pipelining's stage runs each micro-batch's
      -- backward through backward_maybe_with_nosync, which calls FSDP2's
      -- set_requires_gradient_sync(last_backward): the gradients accumulate
      -- unsharded (FSDPParam keeps unsharded_accumulated_grad in the reduce
      -- dtype, fp32 here) and are reduce-scattered once, after the step's
      -- last micro-batch.
      pp_unsharded_grads = true,
      -- torchtitan's apply_fsdp turns reshard_after_forward off when PP is on
      -- (no all-gather a micro-batch): the stage's gathered bf16 weights stay.
      pp_keeps_gathered = true,
      -- FSDP2 prefetches: each block's all-gather runs on its own stream one
      -- block ahead (forward: implicitly, the CPU issuing the next block's
      -- pre-forward while the GPU computes; backward: FSDPParamGroup's
      -- explicit prefetch of the next block in backward order,
      -- torch/distributed/fsdp/_fully_shard/_fsdp_state.py and
      -- _fsdp_param_group.py), and reduce-scatters on a separate stream
      -- behind the later blocks' backward: the DP collectives are priced by
      -- the compute that hides them (src/core/timing.c dp_exposed_seconds).
      fsdp_prefetch = true,
    },
    precision = {
      param_bytes = 4, compute_bytes = 2, grad_bytes = 4, main_param_bytes = 0,
      optimizer_state_bytes = 4, optimizer_states = 2, grad_accumulation = true,
      param_casts = false,
    },
    kernels = {
      -- Its Llama norms are nn.RMSNorm: PyTorch's fused RMSNorm kernel
      -- (aten._fused_rms_norm, measured eager on PyTorch 2.11, scripts/measure/)
      -- keeps the input and the fp32 rstd, compiled or not; torch.compile
      -- fuses the SwiGLU product too (eager: fused_swiglu = false).
      fused_norm = true, fused_swiglu = true,
      -- llama3 Attention repeats K and V to the query heads (repeat_kv) before
      -- F.scaled_dot_product_attention, which keeps the repeated copies.
      repeat_kv = true,
      -- apply_rotary_emb upcasts the queries and keys to fp32, multiplies them
      -- as complex numbers by freqs_cis and casts back (type_as); torch.compile
      -- leaves the complex product to ATen and fuses only the casts into their
      -- neighbours (measured on one H200, scripts/measure/), so it stays priced so.
      rope = "complex",
      flash_attention = true,
    },
    -- cross_entropy_loss: F.cross_entropy(pred.float(), labels); PyTorch's
    -- log-softmax and NLL backward allocate their gradients.
    -- Under TP its plan for the head is ColwiseParallel(input_layouts=Shard(1)):
    -- the final norm's sequence-sharded output is all-gathered (Replicate)
    -- before the matmul, which saves the gathered input for its backward.
    -- Under TP its loss_parallel context (on by default) routes the loss to
    -- DTensor's handlers (torch/distributed/tensor/parallel/loss.py): the
    -- log-softmax is decomposed (shifted = x - max, exp(shifted) summed,
    -- shifted - logsumexp), and the backward fuses NLL and log-softmax as
    -- (zeros_like(x) with -1 scattered + exp(x)) * grad: each peak holds one
    -- more fp32 vocabulary-sized tensor than ATen's fused kernels.
    loss = { loss_upcast = true, loss_inplace_grad = false, head_input_gathered = true,
             loss_parallel_decomposed = true },
    -- activation_checkpoint.mode = "selective" with selective_ac_option =
    -- "op": the per-op policy of torchtitan's activation checkpointing
    -- (save the matmuls' outputs but every second one, and the attention
    -- kernel's; recompute the rest)
    recompute = { selective_rule = "torchtitan" },
    -- clip_grad_norm_ multiplies every gradient by the clamped coefficient.
    training = { clip_scales_always = true },
    allocator = {
      -- train_step calls optimizers.zero_grad() (set_to_none) before the
      -- forward; FSDP2 allocates each sharded gradient at its reduce-scatter.
      grads_set_to_none = true,
      -- FSDP2's foreach_reduce allocates each reduce-scatter output on its
      -- reduce-scatter stream and the sharded gradients are views of it: the
      -- caching allocator keeps them in that stream's pool, apart from the
      -- default stream's, which peaks at the backward's start without them
      -- (measured on one H200: the side stream's segments hold the gradients'
      -- bytes exactly, scripts/measure/torchtitan_llama.py).
      grad_stream_pool = true,
      -- FSDP2 reduces the root group (the embedding, the final norm and the
      -- head) after the whole backward, in one fp32 reduce-scatter input of
      -- their unsharded size, while the head's unsharded gradient (made at the
      -- backward's start) and the last block's reduce-scatter input (kept
      -- until the next reduce-scatter) still split the blocks the backward
      -- freed: the caching allocator grows the segment for it above the
      -- backward's peak. Measured on one H200 with expandable segments
      -- (torchtitan's launcher setting): the default stream's segments held its
      -- allocated peak plus that input (4.20 GB) to within 0.9 GB in six runs of
      -- seven (+4.34, +4.29, +4.07, +5.12, +4.34, +3.21 GB); in the seventh,
      -- full recompute at 8192 tokens, the loss's freed blocks took it (+0.23
      -- GB): ndlua prices the larger, which that run is 8 % under.
      tables_reduce_above_peak = true,
      -- Nothing else held above the allocated peak (that seventh run: 0.6 %);
      -- no reserve beyond it, as max_memory_reserved counts neither the CUDA
      -- context nor NCCL.
      fragmentation = 0, reserve_bytes = 0,
    },
    -- One pipeline schedule a local batch: train.py's train_step loops
    -- `for microbatch in range(self.gradient_accumulation_steps)` (global
    -- batch / (local_batch_size x dp)) over forward_backward_step, which
    -- calls pp_schedule.step() once, and build_pipeline_schedule
    -- (torchtitan/distributed/pipeline_parallel.py) makes each schedule
    -- n_microbatches = local_batch_size // pipeline_parallel_microbatch_size:
    -- a step of several local batches fills and drains the pipe once for
    -- each (torch.distributed.pipelining schedules.py: step() runs its own
    -- micro-batches to the last backward). NeMo AutoModel's recipes do the
    -- same (recipes/llm/benchmark.py run_benchmark: ga_steps = global /
    -- (local x dp) calls of _forward_backward_step, each one schedule.step()).
    -- A run states its local batch as local_batch_size; unstated, the step is
    -- one local batch (torchtitan's default global batch: local x dp).
    -- Each schedule's last backward runs FSDP's post_backward (reshard and
    -- reduce-scatter): torch/distributed/pipelining/stage.py
    -- backward_maybe_with_nosync calls it whenever last_backward, which a
    -- schedule sets on its own last micro-batch, so a step of k local batches
    -- syncs k times (dp_sync_per_schedule).
    -- Each PipelineStage allocates its receive buffers once, one per
    -- micro-batch of the schedule (stage.py _prepare_forward_infra for the
    -- inputs of a stage not the first, _create_grad_recv_info for the output
    -- gradients of one not the last), and keeps them between steps
    -- (recv_buffers_per_micro_batch; src/core/estimate.c recv_buffers).
    pipeline = { schedule_per_local_batch = true, dp_sync_per_schedule = true, recv_buffers_per_micro_batch = true },
    -- Sequence parallelism with context parallelism: parallelize_llama
    -- (torchtitan/models/llama3/infra/parallelize.py) applies the TP plan,
    -- whose norms are SequenceParallel() and whose block inputs are Shard(1),
    -- and then, when CP is on, apply_cp_to_attention_module to the same
    -- blocks; it asks only that the sequence divide by TP x 2 CP. The
    -- reference planner refuses the pair; under this runtime the search keeps it.
    parallelism = { sp_with_cp = true },
  },
}
