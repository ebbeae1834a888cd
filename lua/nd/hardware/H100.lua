-- NVIDIA H100 SXM5 80GB in HGX/DGX H100 nodes: 8 GPUs on NVLink 4 through
-- NVSwitch, one 400 Gb/s NDR InfiniBand port a GPU between nodes.
return {
  name = "H100",
  about = "NVIDIA H100 SXM5 80GB (HGX/DGX H100), 8 GPUs a node, NDR InfiniBand",
  aliases = { "h100-sxm", "h100-80gb", "h100-sxm5" },
  -- Datasheet: 80GB HBM3 (nvidia-smi: 81559 MiB, 79.6 GiB).
  memory = "81559MiB",
  -- Datasheet: BF16 Tensor Core 1,979 TFLOP/s with sparsity = 989 dense.
  peak_tflops = 989,
  -- Assumption: 70 % of peak, the low end of the 70-75 % H100's BF16
  -- GEMMs reach in cuBLAS (a layer's GEMMs are smaller than the ones
  -- benchmarks quote). The time model prices the memory-bound ops apart
  -- (memory_gbps below), so the rate keeps no share for them (a share for
  -- them here would count them twice). Llama 3 405B trained at
  -- 38-43 % MFU end to end (Dubey et al. 2024, Table 4): ndlua within 12 %
  -- of each (spec/validation).
  sustained_tflops = 692,
  -- What cuDNN's causal flash attention reaches through PyTorch 2.11, its
  -- FLOPs counted as the time model counts them (the forward's, twice that
  -- backward), measured on one H200 (scripts/measure/attention_rate.py,
  -- spec/validation/data/h200-attention-rates.json): 421-470 TFLOP/s from
  -- 4096 to 65536 tokens (head width 128, 16-64 heads), 381 at 2048; the
  -- kernel is compute-bound, so the same GH100 SMs reach it on an H100.
  attention_tflops = 450,
  -- Below 4096 keys a query the kernel slows (FlashAttention-2, Dao 2023,
  -- section 3.2: each thread block loops over the key blocks for one block
  -- of queries, with fixed work around the loop): the same H200
  -- measurements follow 470·L/(L + 384) within 4 % from 2048 to 65536
  -- tokens, so the rate at L keys is 450 · (L/(L + 384)) / (4096/(4096 + 384)).
  attention_short = { knee = 384, from = 4096 },
  -- Tile and wave quantization (NVIDIA, Matrix Multiplication Background
  -- User's Guide): a GEMM's output is cut into tiles, one SM each at a
  -- time; a partial tile or a partial last wave of tiles costs a whole one.
  -- H100 SXM5: 132 SMs (NVIDIA H100 Tensor Core GPU Architecture
  -- whitepaper, Table 3); tile 128 x 256, CUTLASS 3's Hopper GEMMs'
  -- (the warp-specialized cooperative kernel's TileShape in its sm90
  -- examples).
  sm_count = 132,
  gemm_tile = { m = 128, n = 256 },
  -- Datasheet: HBM3, 3.35 TB/s (H100 SXM). x 0.8, what element-wise
  -- kernels (norms, activations, eager softmax) reach of it (assumption).
  memory_gbps = 3350 * 0.8,
  -- Datasheet: PCIe Gen5 x16, 128 GB/s both ways = 64 GB/s each way (in
  -- GiB/s, as the reference's table states host links): activation
  -- offload's device-host copies (nd.host_link). H200 and H800 take it
  -- (their datasheets state the same PCIe Gen5 128 GB/s).
  host_link_gibps = 64e9 / 2 ^ 30,
  levels = {
    -- NVLink 4: 900 GB/s a GPU both ways = 450 GB/s each way (datasheet);
    -- x 0.8, the bus bandwidth NCCL's all-reduce reaches (assumption).
    { devices = 8, gbps = 450 * 0.8 },
    -- DGX H100: 8 ConnectX-7 NDR ports of 400 Gb/s = 50 GB/s a GPU; x 0.9.
    { gbps = 50 * 0.9 },
  },
}
