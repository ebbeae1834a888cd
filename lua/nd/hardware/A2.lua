-- Ascend A2: Atlas 800T A2 servers, 8 Ascend 910B NPUs a node.
-- The levels, bandwidths and sustained TFLOP/s are the reference planner's
-- machine table (reference/search-ranking-cli.md §d.5), so that searches
-- on A2 compare with its users' runs.
return {
  name = "A2",
  about = "Huawei Ascend 910B (Atlas 800T A2), 8 NPUs a node",
  aliases = { "ascend", "ascend910", "ascend910b" },
  -- 64 GB HBM2e a device (the reference's examples plan with 64GB and a
  -- 58-60 GB limit); binary units, as ndlua reads every size.
  memory = "64GB",
  -- About 313 TFLOP/s dense FP16 for the 910B3: Huawei publishes no
  -- per-SKU datasheet figure, this is the widely reported one. Used for
  -- MFU only.
  peak_tflops = 313,
  -- The reference's sustained rate (§d.5, "sustained TFLOP/s 140").
  sustained_tflops = 140,
  -- §d.5: levels [8, unbounded] at [50, 10] GB/s: HCCS inside the node,
  -- RoCE between nodes.
  -- The reference's host-link copy bandwidth (§d.5, "host link GiB/s 16.0",
  -- marked there a placeholder, not a measurement): what activation
  -- offload's device-host copies run at (nd.host_link).
  host_link_gibps = 16.0,
  levels = {
    { devices = 8, gbps = 50 },
    { gbps = 10 },
  },
}
