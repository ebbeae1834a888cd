--- The names the reports share: the time parts of a step and the byte
-- components of a pipeline stage, each in the order the tables, the CSV,
-- the JSON and the charts show them, and seconds as the tables print
-- them. nd.report.table holds each under the same name; estimate.lua,
-- which prints one run, loads this alone.
-- @module nd.report.parts

local parts = {}

--- The time parts, in the order of the table, the CSV and the chart:
-- {key of candidate.parts, short name, long name (the chart's)}.
parts.PARTS = {
  { "forward_s", "fwd", "forward" }, { "backward_s", "bwd", "backward" }, { "recompute_s", "rec", "recompute" },
  { "tp_s", "tp", "TP comm" }, { "cp_s", "cp", "CP comm" }, { "ep_s", "ep", "EP comm" }, { "pp_s", "pp", "PP comm" },
  { "dp_s", "dp", "DP comm" }, { "bubble_s", "bubble", "bubble" }, { "optimizer_s", "opt", "optimizer step" },
}

--- The byte components of a pipeline stage (the fields of an nd.estimate
-- stage), in the order of estimate.lua's table, its JSON and the chart
-- (nd.study.charts.COMPONENTS adds each its colour): {field, column}.
parts.MEMORY = {
  { "params", "params" }, { "grads", "grads" }, { "optimizer", "optimizer" }, { "main_params", "main" },
  { "activations", "activations" }, { "comm", "comm" }, { "backward_overhead", "overhead" },
  { "fragmentation", "fragment" }, { "grad_pool", "grad pool" }, { "reserve", "reserve" },
}

--- Seconds for the table: 3 decimals, or 3 significant digits below 0.01 s.
function parts.seconds(x)
  if x >= 1000 then return string.format("%.1f", x) end
  if x >= 0.01 then return string.format("%.3f", x) end
  return string.format("%.3g", x)
end

return parts
