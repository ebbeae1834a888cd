-- throughput: the fastest training step first (the estimated step time in
-- seconds, src/core/timing.c), then the lowest peak memory among equally fast
-- ones. The default ranking of ndlua search.lua. Sorted in C.
return {
  about = "fastest estimated step first, then the lowest peak memory",
  order = { "step_time_s", "peak_bytes" },
}
