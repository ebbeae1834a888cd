-- NVIDIA H20 96GB in HGX H20 nodes: a Hopper cut to a sixth of the H100's
-- tensor throughput, with more memory and the full NVLink 4, 8 GPUs a node,
-- 400 Gb/s a GPU between nodes.
-- Source: NVIDIA HGX H20 product brief (2024; distributed to partners, its
-- figures as the trade press reported them: 96 GB HBM3 at 4.0 TB/s, FP16/BF16
-- Tensor Core 148 TFLOP/s dense (296 with sparsity), NVLink 900 GB/s).
return {
  name = "H20",
  about = "NVIDIA H20 96GB (HGX H20), 8 GPUs a node, 400 Gb/s InfiniBand",
  aliases = { "h20-96gb", "hgx-h20" },
  -- Product brief: 96GB HBM3, read in binary units (the H100's 80GB reads
  -- 79.6 GiB in nvidia-smi: an estimate a little high).
  memory = "96GiB",
  -- Product brief: FP16/BF16 Tensor Core 148 TFLOP/s dense.
  peak_tflops = 148,
  -- Assumption: 70 % of peak. The tensor cores are slow against 4 TB/s of
  -- memory, so the memory-bound ops weigh less than on H100 and GEMMs
  -- run near peak.
  sustained_tflops = 104,
  -- Datasheet (product brief): HBM3, 4.0 TB/s. x 0.8, what element-wise
  -- kernels (norms, activations, eager softmax) reach of it (assumption).
  memory_gbps = 4000 * 0.8,
  levels = {
    -- Product brief: NVLink 900 GB/s both ways = 450 each way; x 0.8.
    { devices = 8, gbps = 450 * 0.8 },
    -- Assumption: one 400 Gb/s NDR port a GPU = 50 GB/s, as HGX H100; x 0.9.
    { gbps = 50 * 0.9 },
  },
}
