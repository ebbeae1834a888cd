-- NVIDIA H800 SXM5 80GB in HGX H800 nodes: the H100 SXM5's compute and
-- memory with NVLink cut to 400 GB/s, 8 GPUs a node, one 400 Gb/s NDR
-- InfiniBand port a GPU between nodes. DeepSeek-V3 trained on 2,048 of them.
-- Sources: NVIDIA H800 Tensor Core GPU datasheet (China market, 2023);
-- DeepSeek-V3 Technical Report (arXiv:2412.19437), section 3.1-3.2.
return {
  name = "H800",
  about = "NVIDIA H800 SXM5 80GB (HGX H800), 8 GPUs a node on 400 GB/s NVLink, NDR InfiniBand",
  aliases = { "h800-sxm", "h800-80gb", "h800-sxm5" },
  -- Datasheet: the H100 SXM5's chip and memory (80GB HBM3, 3.35 TB/s;
  -- nvidia-smi: 81559 MiB on both; BF16 Tensor Core 1,979 TFLOP/s with
  -- sparsity = 989 dense): its memory, peak, sustained, attention and
  -- memory-bound rates are the H100 profile's.
  extends = "H100",
  levels = {
    -- Datasheet: NVLink 400 GB/s a GPU both ways = 200 each way; x 0.8 =
    -- 160 GB/s, the NVLink bandwidth the DeepSeek-V3 report states for its
    -- H800 nodes (section 3.2.1: "NVLink (160 GB/s)").
    { devices = 8, gbps = 200 * 0.8 },
    -- 400 Gb/s NDR a GPU = 50 GB/s (DeepSeek-V3 report: "IB (50 GB/s)"); x 0.9.
    { gbps = 50 * 0.9 },
  },
}
