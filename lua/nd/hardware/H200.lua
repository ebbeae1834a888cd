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
  -- shapes and 8192 tokens 653-746 TFLOP/s (66-75 %); flash attention's
  -- lower rate is attention_tflops below.
  sustained_tflops = 692,
  -- What cuDNN's causal flash attention reaches through PyTorch 2.11, its
  -- FLOPs counted as the time model counts them (the forward's, twice that
  -- backward), measured on one H200 (scripts/measure/attention_rate.py,
  -- spec/validation/data/h200-attention-rates.json): 421-470 TFLOP/s from
  -- 4096 to 65536 tokens (head width 128, 16-64 heads), 381 at 2048; the
  -- kernel is compute-bound, so the same GH100 SMs reach it on every Hopper part.
  attention_tflops = 450,
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
