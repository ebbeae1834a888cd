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

--- The part an offloading plan's host copies add to a step (search.lua
-- --balance --offload: the step with the copies, nd.balance_run's, less the
-- layout's, whose parts the others are), its chart colour the balance
-- drawing's copy blocks'. Listed only where a row has it (parts.listed).
parts.COPY = { "host_copy_s", "copy", "host copy", "#6b6b6b" }

--- The time parts a list of candidates shows: parts.PARTS, and the host
-- copy part after them where a row's parts have it.
function parts.listed(list)
  for _, c in ipairs(list) do
    if c.parts and c.parts.host_copy_s then
      local out = {}
      for i, p in ipairs(parts.PARTS) do out[i] = p end
      out[#out + 1] = parts.COPY
      return out
    end
  end
  return parts.PARTS
end

--- The byte components of a pipeline stage (the fields of an nd.estimate
-- stage), in the order of estimate.lua's table, its JSON and the chart
-- (nd.study.charts.COMPONENTS adds each its colour): {field, column}.
parts.MEMORY = {
  { "params", "params" }, { "grads", "grads" }, { "optimizer", "optimizer" }, { "main_params", "main" },
  { "activations", "activations" }, { "comm", "comm" }, { "backward_overhead", "overhead" },
  { "recv_buffers", "recv bufs" }, { "fragmentation", "fragment" }, { "grad_pool", "grad pool" }, { "reserve", "reserve" },
}

--- Seconds for the table: 3 decimals, or 3 significant digits below 0.01 s.
function parts.seconds(x)
  if x >= 1000 then return string.format("%.1f", x) end
  if x >= 0.01 then return string.format("%.3f", x) end
  return string.format("%.3g", x)
end

return parts
