-- HyperParallel (torch-based, on Ascend or GPU) running Transformers models,
-- as a train.yaml states them. Its facts come from the train.yaml itself
-- and the model family's profile (lua/nd/profiles/), so `run` states
-- nothing more: eager Transformers kernels unless the yaml's replacements
-- name fused ones.
--
-- `defaults` are what a run that names no runtime (nd.run{dp = 8}) leaves
-- unstated and a train.yaml stating only the model and the degrees implies
-- (nd.model_yaml.build read by nd.train_yaml: what `estimate.lua MODEL -d N`
-- prices), so that the API and the command line price the same: FSDP
-- (ZeRO-3) over every data-parallel rank, gathers freed after each layer
-- and gradients reduce-scattered as the parameters are sharded; full
-- recompute; AdamW with its two states in the stored bf16 width, no fp32
-- copy; bf16 parameters, gradients and compute, fp32 softmax; flash
-- attention; no gradient clipping (the yaml states no max_grad_norm). What
-- the model decides (tied embeddings, grouped GEMM of a MoE model, the
-- layers' split over the stages) is left to the model, as the yaml's reader
-- leaves it.
return {
  name = "hyperparallel",
  about = "HyperParallel train.yaml runs (the default, and nd.run's naming none): facts from the yaml and the family",
  peak = "allocated",
  run = {},
  defaults = {
    sharding = {
      optimizer_parallel = true, grad_shard = false, grad_shard_as_params = true, reshard_params = true,
      shard_spans_cp = true, deferred_grad_accumulation = true, overlapped_grad_reduce = true,
      vocab_emb_dp = true, emb_dp_sharded = true, shard_mtp_param = true, expert_shard_group = false,
      -- the yaml states no fsdp_config.edp_shard_size: the experts' states are not sharded over their
      -- data-parallel group
      expert_shard = 1,
    },
    recompute = { selective_rule = "hyperparallel", recompute_slice_activation = false },
    recompute = "full",
    optimizer = "adamw",
    precision = {
      param_bytes = 2, grad_bytes = 2, compute_bytes = 2, softmax_bytes = 4, optimizer_state_bytes = 2,
      main_param_bytes = 0, grad_accumulation = true, param_casts = false,
    },
    kernels = { flash_attention = true, capacity_factor = 1 },
    loss = { loss_parallel = false },
    pipeline = { pp_schedule = "1f1b", seq_split = 1 },
    training = { frozen = false, grad_clip = false },
    cp_algo = "colossalai_cp",
  },
}
