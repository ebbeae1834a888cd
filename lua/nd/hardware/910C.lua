-- Huawei Ascend 910C in the CloudMatrix 384 supernode (Atlas 900 A3
-- SuperPoD): 384 chips of two dies each, every die a device, all joined by
-- the Unified Bus; RDMA between supernodes. The A3 profile is the same
-- machine as the reference planner's table prices it; this one is the
-- hardware's as Huawei describes it.
-- Source: Zuo et al., "Serving Large Language Models on Huawei
-- CloudMatrix384" (Huawei, arXiv:2506.12708, 2025), section 3: a 910C chip
-- has two dies, about 752 TFLOP/s BF16 dense and 128 GB of HBM (3.2 TB/s)
-- for both, 392 GB/s of UB bandwidth each way and a 400 Gb/s RDMA plane.
return {
  name = "910C",
  about = "Huawei Ascend 910C dies (CloudMatrix 384), 768 dies on the Unified Bus, the links' own bandwidths",
  aliases = { "cloudmatrix384", "cm384" },
  -- The A3 profile's die: 128 GB of HBM a chip = 64 GB a die, about 752
  -- TFLOP/s BF16 dense a chip = 376 a die, and the reference's sustained
  -- rate for A3 (§d.5: 160).
  extends = "A3",
  levels = {
    -- 16 dies (8 chips) a server, then the 384-chip supernode, both on the
    -- UB at 392 GB/s each way a chip = 196 a die; x 0.8 (assumption).
    { devices = 16, gbps = 196 * 0.8 },
    { devices = 768, gbps = 196 * 0.8 },
    -- 400 Gb/s RDMA a chip = 50 GB/s = 25 a die; x 0.9.
    { gbps = 25 * 0.9 },
  },
  -- The reference's relative score halves every communication term on its
  -- A3 table (§d.2); these are the links' own figures, priced whole.
  nd_comm_divisor = 1,
}
