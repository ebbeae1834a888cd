-- Measured in this project on one NVIDIA H200 (2026-12-04, PyTorch 2.11,
-- cuDNN attention): torchtitan's Llama 3 training step, its modules and
-- loop re-typed in scripts/measure/torchtitan_llama.py, under FSDP2 on a
-- one-rank mesh (fully_shard, bf16 parameters, fp32 reduce), fused AdamW,
-- clip_grad_norm_(1.0), with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
-- as torchtitan's run_train.sh launches it. Llama 3.1 8B's shapes with 4 or
-- 2 layers (so that unsharded fp32 weights, gradients and Adam states fit
-- one device), seq 8192.
--
-- Each figure is in spec/validation/data/h200-torchtitan-expandable.json:
-- peak_allocated (torch.cuda.max_memory_allocated) and peak_reserved
-- (max_memory_reserved) over steps 2 to 6, step_time_median_s the median of
-- steps 3 to 6. The same runs under the default allocator (the same
-- allocated peaks; reserved 5-19 % higher) are in
-- h200-torchtitan-default-allocator.json, and the per-stream pools in the
-- streams files.
local SOURCE = "measured on one H200 in this project (scripts/measure/torchtitan_llama.py, "
  .. "spec/validation/data/h200-torchtitan-expandable.json)"

local NOTE = "One rank: torchtitan itself applies FSDP only when dp_shard > 1; this is the per-rank "
  .. "memory and time of its FSDP2 setup with the sharding degree 1, as ndlua's dp = 1, zero = 3 prices "
  .. "it. Left unpriced: the last block's bf16 parameters, which FSDP2 keeps gathered into the "
  .. "backward (416 MiB), the 1-rank NCCL collectives' own copies (7 ms a step) and the attention "
  .. "kernel's rate below the GEMMs' (about 530 against 700 TFLOP/s)."

-- layers, micro-batch, recompute, compiled; measured allocated GiB, reserved GiB, step s
local RUNS = {
  { 4, 1, "none", false, 39.3407, 50.5527, 0.1752 },
  { 2, 1, "none", false, 31.7134, 41.2930, 0.1237 },
  { 4, 1, "full", false, 34.0865, 41.4668, 0.2024 },
  { 2, 1, "full", false, 29.0863, 35.1973, 0.1353 },
  { 4, 1, "selective", false, 35.7779, 46.9395, 0.1870 },
  { 2, 1, "selective", false, 29.9321, 39.4570, 0.1299 },
  { 4, 2, "none", false, 56.7122, 70.0801, 0.3165 },
  { 4, 1, "selective", true, 35.5279, 46.8027, 0.1828 },
}

local cases = {}
for _, r in ipairs(RUNS) do
  local layers, batch, recompute, compiled = r[1], r[2], r[3], r[4]
  local name = string.format("h200-torchtitan-%dl-b%d-%s%s", layers, batch, recompute == "selective" and "op"
                             or recompute, compiled and "-compiled" or "")
  local config = string.format("Llama 3.1 8B shapes, %d layers, FSDP2 on 1 rank, micro-batch %d, seq 8192, "
    .. "activation checkpointing %s, %s", layers, batch,
    recompute == "selective" and "selective (op)" or recompute, compiled and "torch.compile" or "eager")
  local run = { runtime = "torchtitan", dp = 1, zero = 3, micro_batch_size = batch, global_batch_size = batch,
                seq_length = 8192, recompute = recompute }
  -- eager PyTorch runs SiLU and the product apart (compiled, the profile's fused SwiGLU)
  if not compiled then run.fused_swiglu = false end
  local model = { pretrained_model_name_or_path = "meta-llama/Llama-3.1-8B",
                  config_overrides = { num_hidden_layers = layers } }
  local function add(suffix, group, kind, metric, measured, unit, tolerance)
    cases[#cases + 1] = { id = name .. suffix, group = group, kind = kind, source = SOURCE, config = config,
                          model = model, run = run, hardware = kind == "time" and "H200" or nil, metric = metric,
                          measured = measured, unit = unit, tolerance = tolerance, note = NOTE }
  end
  add("-allocated", "h200 torchtitan memory", "memory", "allocated", r[5], "GiB", 0.10)
  add("-reserved", "h200 torchtitan memory", "memory", "reserved", r[6], "GiB", 0.10)
  add("-step", "h200 torchtitan time", "time", "step_time_s", r[7], "s", 0.15)
end
return cases
