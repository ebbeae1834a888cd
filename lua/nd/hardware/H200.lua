-- NVIDIA H200 SXM 141GB in HGX H200 nodes: the H100's compute and NVLink 4
-- with more and faster memory (HBM3e, 4.8 TB/s), 400 Gb/s a GPU between nodes.
return {
  name = "H200",
  about = "NVIDIA H200 SXM 141GB (HGX H200), 8 GPUs a node, NDR InfiniBand",
  aliases = { "h200-sxm", "h200-141gb" },
  -- Datasheet: the H100 SXM's GH100 compute (BF16 Tensor Core 1,979
  -- TFLOP/s with sparsity = 989 dense), NVLink 4 and 400 Gb/s NDR
  -- (ConnectX-7) a GPU: its peak, sustained and attention rates and its
  -- levels are the H100 profile's. Measured on one H200 (PyTorch 2.11,
  -- 2026-12-04, spec/validation/data/h200-torchtitan-census-and-rates.json):
  -- bf16 GEMMs at Llama 3 8B's shapes and 8192 tokens 653-746 TFLOP/s
  -- (66-75 %), about the H100's 70 % (692); flash attention 421-470 TFLOP/s
  -- from 4096 to 65536 tokens (spec/validation/data/h200-attention-rates.json),
  -- about its 450.
  extends = "H100",
  -- Datasheet: 141GB HBM3e (nvidia-smi: 143771 MiB, 140.4 GiB).
  memory = "143771MiB",
  -- Datasheet: HBM3e, 4.8 TB/s (H200 SXM). x 0.8, what element-wise
  -- kernels (norms, activations, eager softmax) reach of it (assumption;
  -- measured on one H200: a 1 GiB device copy 4.10-4.13 TB/s read + write,
  -- 86 %).
  memory_gbps = 4800 * 0.8,
}
