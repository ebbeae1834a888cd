-- NVIDIA B200 in HGX/DGX B200 nodes: 8 GPUs on NVLink 5 through NVSwitch,
-- one 400 Gb/s ConnectX-7 port a GPU between nodes.
return {
  name = "B200",
  about = "NVIDIA B200 (HGX/DGX B200), 8 GPUs a node, 400 Gb/s InfiniBand",
  aliases = { "b200-sxm", "hgx-b200", "dgx-b200" },
  -- HGX B200 datasheet: 1.4 TB HBM3e for 8 GPUs; DGX B200: 1,440 GB = 180 GB a GPU.
  memory = "180GB",
  -- HGX B200 datasheet: FP16/BF16 Tensor Core 36 PFLOP/s for 8 GPUs with
  -- sparsity = 4.5 a GPU, 2.25 PFLOP/s dense.
  peak_tflops = 2250,
  -- Assumption: 55 % of peak. Blackwell's tensor cores doubled again over
  -- H100 while HBM bandwidth grew 2.4x; kernels and frameworks are younger.
  sustained_tflops = 1238,
  -- Datasheet: HBM3e, 8 TB/s (HGX B200, per GPU). x 0.8, what element-wise
  -- kernels (norms, activations, eager softmax) reach of it (assumption).
  memory_gbps = 8000 * 0.8,
  levels = {
    -- NVLink 5: 1.8 TB/s a GPU both ways = 900 GB/s each way (datasheet); x 0.8.
    { devices = 8, gbps = 900 * 0.8 },
    -- DGX B200: 8 ConnectX-7 ports of 400 Gb/s = 50 GB/s a GPU; x 0.9.
    { gbps = 50 * 0.9 },
  },
}
