-- AMD Instinct MI300X in 8-GPU platforms (the MI300X Platform, OAM on a
-- UBB): every GPU linked directly to the other seven by Infinity Fabric,
-- 400 Gb/s a GPU between nodes.
-- Sources: AMD Instinct MI300X Accelerator data sheet (2023) and AMD
-- Instinct MI300X Platform data sheet (2023).
return {
  name = "MI300X",
  about = "AMD Instinct MI300X 192GB (MI300X Platform), 8 GPUs a node on Infinity Fabric, 400 Gb/s between",
  aliases = { "mi300", "mi300x-oam", "amd-mi300x" },
  -- Data sheet: 192 GB HBM3, 5.3 TB/s (binary units, as ndlua reads sizes).
  memory = "192GiB",
  -- Data sheet: peak BF16 1,307.4 TFLOP/s dense (2,614.9 with sparsity).
  peak_tflops = 1307.4,
  -- Assumption: 45 % of peak. Published MI300X training runs reach lower
  -- shares of their higher peak than H100 (younger kernels, the GEMM
  -- throughput limited by power at full load).
  sustained_tflops = 588,
  -- Datasheet: HBM3, 5.3 TB/s peak. x 0.8, what element-wise
  -- kernels (norms, activations, eager softmax) reach of it (assumption).
  memory_gbps = 5300 * 0.8,
  levels = {
    -- Data sheet: 7 Infinity Fabric links of 128 GB/s both ways (896 GB/s
    -- aggregate) = 448 GB/s each way a GPU over the mesh; x 0.7, less than
    -- NVSwitch's 0.8: a ring over the mesh uses one link a step, and RCCL's
    -- collectives reach a smaller share of the aggregate (assumption).
    { devices = 8, gbps = 448 * 0.7 },
    -- Assumption: one 400 Gb/s NIC a GPU = 50 GB/s, the usual build; x 0.9.
    { gbps = 50 * 0.9 },
  },
}
