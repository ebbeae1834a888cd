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
  -- Assumption: 80 % of peak, what large BF16 GEMMs reach on A100
  -- (cuBLAS). The time model runs the layers' matmuls (the attention
  -- scores too) at this rate and prices the memory-bound ops apart, by the
  -- bytes they move over memory_gbps below, so the rate keeps no share for
  -- them (a share for them here would count them twice). Megatron-
  -- LM's measured A100 runs (Korthikanti et al. 2022, Table 5; Narayanan et
  -- al. 2021, Table 1; spec/validation) come out within 15 % at it.
  sustained_tflops = 250,
  -- Datasheet: HBM2e, 2,039 GB/s (A100 80GB SXM). x 0.8, what element-wise
  -- kernels (norms, activations, eager softmax) reach of it (assumption).
  memory_gbps = 2039 * 0.8,
  -- Datasheet: PCIe Gen4 x16, 64 GB/s both ways = 32 GB/s each way (in
  -- GiB/s, as the reference's table states host links): activation
  -- offload's device-host copies (nd.host_link).
  host_link_gibps = 32e9 / 2 ^ 30,
  levels = {
    -- NVLink 3: 600 GB/s a GPU both ways = 300 GB/s each way (datasheet);
    -- x 0.8, the bus bandwidth NCCL's all-reduce reaches (assumption).
    { devices = 8, gbps = 300 * 0.8 },
    -- DGX A100: 8 ConnectX-6 HDR ports of 200 Gb/s = 25 GB/s a GPU; x 0.9.
    { gbps = 25 * 0.9 },
  },
}
