-- Ascend A3: Atlas 900 A3 SuperPoD, 16 Ascend 910C dies a node, 24 nodes a
-- supernode. The levels, bandwidths, sustained TFLOP/s and the score's
-- communication divisor are the reference planner's machine table
-- (reference/search-ranking-cli.md §d.5 and §d.2, "on A3 all four ÷ 2").
return {
  name = "A3",
  about = "Huawei Ascend 910C (Atlas 900 A3 SuperPoD), 16 dies a node, 24 nodes a supernode",
  aliases = { "ascend910c", "ascend910_93" },
  -- A 910C chip holds two dies of 64 GB HBM each; the trainer sees a die
  -- as a device (the reference's A3 examples plan with 64GB).
  memory = "64GB",
  -- About 752 TFLOP/s dense FP16 a 910C chip as widely reported, half of it
  -- a die; Huawei publishes no datasheet figure. Used for MFU only.
  peak_tflops = 376,
  -- The reference's sustained rate (§d.5, "sustained TFLOP/s 160").
  sustained_tflops = 160,
  -- §d.5: levels [16, 24 nodes, unbounded] at [200, 25, 10] GB/s.
  -- The reference's host-link copy bandwidth (§d.5, "host link GiB/s 6.92",
  -- measured) and what each GiB copied costs the step beside its own time
  -- (§d.5, "copy cost 2.8 ms/GiB"): activation offload's copies (nd.host_link).
  host_link_gibps = 6.92,
  host_link_cost = 2.8,
  levels = {
    { devices = 16, gbps = 200 },
    { devices = 16 * 24, gbps = 25 },
    { gbps = 10 },
  },
  -- The reference's relative score halves every communication term on A3 (§d.2).
  nd_comm_divisor = 2,
}
