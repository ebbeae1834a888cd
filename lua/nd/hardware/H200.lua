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
  -- Measured on one H200 (PyTorch 2.11, 2026-12-04, spec/validation/data/
  -- h200-torchtitan-census-and-rates.json): bf16 GEMMs at Llama 3 8B's
  -- shapes and 8192 tokens 653-746 TFLOP/s (66-75 %); cuDNN's causal flash
  -- attention about 530 TFLOP/s forward and backward, which ndlua prices at
  -- this rate too.
  sustained_tflops = 692,
  -- Datasheet: HBM3e, 4.8 TB/s (H200 SXM). x 0.8, what element-wise
  -- kernels (norms, activations, eager softmax) reach of it (assumption;
  -- measured on one H200: a 1 GiB device copy 4.10-4.13 TB/s read + write,
  -- 86 %).
  memory_gbps = 4800 * 0.8,
  levels = {
    -- NVLink 4: 900 GB/s a GPU both ways = 450 GB/s each way (datasheet); x 0.8.
    { devices = 8, gbps = 450 * 0.8 },
    -- 400 Gb/s NDR (ConnectX-7) a GPU = 50 GB/s; x 0.9.
    { gbps = 50 * 0.9 },
  },
}
