-- NVIDIA A100 80GB SXM4 in HGX/DGX A100 nodes: 8 GPUs on NVLink 3 through
-- NVSwitch, one 200 Gb/s HDR InfiniBand port a GPU between nodes.
return {
  name = "A100-80GB",
  about = "NVIDIA A100 80GB SXM4 (HGX/DGX A100), 8 GPUs a node, HDR InfiniBand",
  aliases = { "a100", "a100-sxm", "a100-sxm4-80gb" },
  -- Datasheet: 80GB HBM2e (nvidia-smi: 81920 MiB).
  memory = "80GiB",
  -- Datasheet: BF16 Tensor Core 312 TFLOP/s dense (624 with sparsity).
  peak_tflops = 312,
  -- Assumption: 65 % of peak. Large BF16 GEMMs reach about 80 % of peak on
  -- A100; attention kernels, norms, activations and dropout, which the time
  -- model counts no FLOPs for, take the rest. Megatron-LM reached 153
  -- TFLOP/s a GPU (49 %, counting recompute) end to end on GPT-3 175B with
  -- its pipeline bubble and communication (Narayanan et al. 2021, Table 1),
  -- so the kernels alone ran well above that.
  sustained_tflops = 203,
  -- Datasheet: HBM2e, 2,039 GB/s (A100 80GB SXM). x 0.8, what element-wise
  -- kernels (norms, activations, eager softmax) reach of it (assumption).
  memory_gbps = 2039 * 0.8,
  levels = {
    -- NVLink 3: 600 GB/s a GPU both ways = 300 GB/s each way (datasheet);
    -- x 0.8, the bus bandwidth NCCL's all-reduce reaches (assumption).
    { devices = 8, gbps = 300 * 0.8 },
    -- DGX A100: 8 ConnectX-6 HDR ports of 200 Gb/s = 25 GB/s a GPU; x 0.9.
    { gbps = 25 * 0.9 },
  },
}
