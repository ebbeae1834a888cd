-- NVIDIA H200 SXM 141GB in HGX H200 nodes: the H100's compute and NVLink 4
-- with more and faster memory (HBM3e, 4.8 TB/s), 400 Gb/s a GPU between nodes.
return {
  name = "H200",
  about = "NVIDIA H200 SXM 141GB (HGX H200), 8 GPUs a node, NDR InfiniBand",
  aliases = { "h200-sxm", "h200-141gb" },
  -- Datasheet: 141GB HBM3e (nvidia-smi: 143771 MiB, 140.4 GiB).
  memory = "143771MiB",
  -- Datasheet: BF16 Tensor Core 1,979 TFLOP/s with sparsity = 989 dense.
  peak_tflops = 989,
  -- Assumption: 70 % of peak, the H100's (the same GH100 compute; the
  -- faster HBM3e speeds the memory-bound ops, priced apart by memory_gbps).
  sustained_tflops = 692,
  -- Datasheet: HBM3e, 4.8 TB/s (H200 SXM). x 0.8, what element-wise
  -- kernels (norms, activations, eager softmax) reach of it (assumption).
  memory_gbps = 4800 * 0.8,
  levels = {
    -- NVLink 4: 900 GB/s a GPU both ways = 450 GB/s each way (datasheet); x 0.8.
    { devices = 8, gbps = 450 * 0.8 },
    -- 400 Gb/s NDR (ConnectX-7) a GPU = 50 GB/s; x 0.9.
    { gbps = 50 * 0.9 },
  },
}
