-- NVIDIA H800 SXM5 80GB in HGX H800 nodes: the H100 SXM5's compute and
-- memory with NVLink cut to 400 GB/s, 8 GPUs a node, one 400 Gb/s NDR
-- InfiniBand port a GPU between nodes. DeepSeek-V3 trained on 2,048 of them.
-- Sources: NVIDIA H800 Tensor Core GPU datasheet (China market, 2023);
-- DeepSeek-V3 Technical Report (arXiv:2412.19437), section 3.1-3.2.
return {
  name = "H800",
  about = "NVIDIA H800 SXM5 80GB (HGX H800), 8 GPUs a node on 400 GB/s NVLink, NDR InfiniBand",
  aliases = { "h800-sxm", "h800-80gb", "h800-sxm5" },
  -- Datasheet: 80GB HBM3, 3.35 TB/s, the H100 SXM5's memory (nvidia-smi:
  -- 81559 MiB on both).
  memory = "81559MiB",
  -- Datasheet: BF16 Tensor Core 1,979 TFLOP/s with sparsity = 989 dense,
  -- as the H100 SXM5.
  peak_tflops = 989,
  -- Assumption: 70 % of peak, the H100 profile's (same chip).
  sustained_tflops = 692,
  -- What cuDNN's causal flash attention reaches through PyTorch 2.11, its
  -- FLOPs counted as the time model counts them (the forward's, twice that
  -- backward), measured on one H200 (scripts/measure/attention_rate.py,
  -- spec/validation/data/h200-attention-rates.json): 421-470 TFLOP/s from
  -- 4096 to 65536 tokens (head width 128, 16-64 heads), 381 at 2048; the
  -- kernel is compute-bound, so the same GH100 SMs reach it on an H800.
  attention_tflops = 450,
  -- Datasheet: HBM3, 3.35 TB/s (H800 SXM5, as H100 SXM5). x 0.8, what element-wise
  -- kernels (norms, activations, eager softmax) reach of it (assumption).
  memory_gbps = 3350 * 0.8,
  levels = {
    -- Datasheet: NVLink 400 GB/s a GPU both ways = 200 each way; x 0.8 =
    -- 160 GB/s, the NVLink bandwidth the DeepSeek-V3 report states for its
    -- H800 nodes (section 3.2.1: "NVLink (160 GB/s)").
    { devices = 8, gbps = 200 * 0.8 },
    -- 400 Gb/s NDR a GPU = 50 GB/s (DeepSeek-V3 report: "IB (50 GB/s)"); x 0.9.
    { gbps = 50 * 0.9 },
  },
}
