-- No runtime: every field a run leaves unstated takes the C core's own
-- default (the formulas' and the model family's), none a runtime's. What a
-- test of the formulas themselves states (nd.run{runtime = "none", ...});
-- a run naming no runtime at all takes hyperparallel's defaults instead.
return {
  name = "none",
  about = "no runtime: the C core's formula defaults (no sharding, no recompute, the family's widths)",
  peak = "allocated",
  run = {},
}
