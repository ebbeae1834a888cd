-- Huawei Ascend 910B in Atlas 800T A2 training servers, 8 NPUs a node in an
-- HCCS full mesh, RoCE between nodes, with the links' own figures. The A2
-- profile is the same machine as the reference planner's table prices it
-- (50 and 10 GB/s), to compare with its users' runs; this one is the
-- hardware's.
-- Sources: Huawei Atlas 800T A2 training server specifications (Huawei
-- product page, 2023: 8 Ascend 910B NPUs of 64 GB HBM2e, 8 x 200GE RoCE
-- ports); the per-chip peak and HCCS figures are not in a Huawei datasheet
-- and are the widely reported ones (marked below).
return {
  name = "910B",
  about = "Huawei Ascend 910B (Atlas 800T A2), 8 NPUs a node, the links' own bandwidths (A2: the reference's)",
  aliases = { "atlas800t-a2" },
  -- The A2 profile's device: 64 GB HBM2e an NPU (product page), about 313
  -- TFLOP/s dense FP16 for the 910B3 (reported, no datasheet), and the
  -- reference's sustained rate for A2 (search-ranking-cli §d.5: 140),
  -- measured by its users on this chip.
  extends = "A2",
  levels = {
    -- Reported: HCCS full mesh, 7 links of 56 GB/s a NPU = 392 GB/s; a
    -- ring uses one link a step: x 0.5 for HCCL's share of the mesh
    -- (assumption).
    { devices = 8, gbps = 392 * 0.5 },
    -- Product page: 8 x 200GE RoCE a server = 25 GB/s an NPU; x 0.9.
    { gbps = 25 * 0.9 },
  },
}
