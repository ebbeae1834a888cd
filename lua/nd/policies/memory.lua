-- memory: the lowest peak memory per device first, then the fastest step
-- among equally light ones: for a cluster whose memory is tight or shared,
-- or to see how much headroom a model leaves. Sorted in C.
return {
  about = "lowest peak memory first, then the fastest step",
  order = { "peak_bytes", "step_time_s" },
}
