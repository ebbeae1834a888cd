-- NVIDIA GB200 NVL72: 72 Blackwell GPUs (36 Grace-Blackwell superchips) in
-- one NVLink 5 domain through the rack's NVLink switches; 400 Gb/s a GPU
-- (ConnectX-7) between racks.
-- Source: NVIDIA GB200 NVL72 datasheet (2024): for the 72 GPUs, FP16/BF16
-- Tensor Core 360 PFLOP/s with sparsity, HBM3e up to 13.4 TB, NVLink
-- 130 TB/s.
return {
  name = "GB200",
  about = "NVIDIA GB200 NVL72, 72 GPUs an NVLink domain (rack), 400 Gb/s InfiniBand between racks",
  aliases = { "gb200-nvl72", "nvl72" },
  -- Datasheet: 13.4 TB HBM3e for 72 GPUs = 186 GB a GPU.
  memory = "186GB",
  -- Datasheet: 360 PFLOP/s sparse for 72 GPUs = 5 a GPU, 2.5 PFLOP/s dense.
  peak_tflops = 2500,
  -- Assumption: 55 % of peak, the B200 profile's.
  sustained_tflops = 1375,
  -- Datasheet: HBM3e, 8 TB/s a Blackwell GPU (GB200 NVL72). x 0.8, what element-wise
  -- kernels (norms, activations, eager softmax) reach of it (assumption).
  memory_gbps = 8000 * 0.8,
  -- GB200 superchip (NVIDIA GB200 NVL72 product page): NVLink-C2C joins the
  -- Grace CPU and the superchip's two Blackwell GPUs at 900 GB/s both ways,
  -- 450 GB/s each way; shared by the two GPUs (assumption: the page states
  -- it a superchip), 225 GB/s each way a GPU, in GiB/s: activation
  -- offload's device-host copies (nd.host_link).
  host_link_gibps = 225e9 / 2 ^ 30,
  levels = {
    -- Datasheet: NVLink 130 TB/s for 72 GPUs = 1.8 TB/s a GPU both ways =
    -- 900 GB/s each way; x 0.8.
    { devices = 72, gbps = 900 * 0.8 },
    -- One ConnectX-7 400 Gb/s port a GPU = 50 GB/s (assumption for the
    -- scale-out network; the compute tray carries four for its four GPUs); x 0.9.
    { gbps = 50 * 0.9 },
  },
}
