-- recompute_tradeoff.lua: what full recompute buys over selective, and
-- what it costs, as the micro-batch grows.
--
--   ndlua examples/recompute_tradeoff.lua [OUT_DIR]
--
-- Llama-3.1-70B as examples/llama-3.1-70b-tp-pp-sp/train.yaml trains it:
-- 64 devices (dp 2 x tp 8 x pp 4), a global batch of 64 sequences of 8192
-- tokens, 64 GiB a device; the step timed on H100s. For micro-batches of
-- 1, 2, 4 and 8 sequences (32, 16, 8 and 4 micro-batches a step), the
-- peak memory and the step time under selective and under full recompute:
-- full recompute keeps only each layer's input and runs the forward again
-- in the backward; selective keeps all but the attention's softmax-side
-- tensors. The table says how much memory full saves and how much time it
-- costs; OUT_DIR/recompute_tradeoff.svg draws the peaks against the capacity.

local nd = require "nd"
local study = nd.study

local here = arg and arg[0] and arg[0]:match("^(.*)/") or "."
local out_dir = arg[1] or "."
local model, run, extras = nd.load(here .. "/llama-3.1-70b-tp-pp-sp/train.yaml")
local name = extras.source.id or model:spec().name
local HARDWARE = "H100"
local capacity = nd.estimate(model, run).capacity_bytes

print(string.format("%s on %d devices (dp %d x tp %d x pp %d), a global batch of %d x %d tokens, %s a device, "
                    .. "timed on %s", name, run.dp * run.tp * run.pp, run.dp, run.tp, run.pp, run.global_batch_size,
                    run.seq_length, nd.units.gib(capacity), HARDWARE))
print()

local rows = study.sweep("micro_batch_size", { 1, 2, 4, 8 }, function(mbs)
  local row = { micro_batches = run.global_batch_size // (mbs * run.dp) }
  for _, mode in ipairs({ "selective", "full" }) do
    local r = run:with { micro_batch_size = mbs, recompute = mode }
    local est, time = nd.estimate(model, r), nd.step_time(model, r, HARDWARE)
    row[mode .. "_bytes"] = est.peak_bytes
    row[mode .. "_fits"] = est.fits
    row[mode .. "_s"] = time.step_time_s
  end
  row.saved_bytes = row.selective_bytes - row.full_bytes
  row.cost_s = row.full_s - row.selective_s
  row.cost_share = row.cost_s / row.selective_s
  return row
end)

study.print_table(rows, {
  { key = "micro_batch_size", title = "micro-batch", unit = "seq" },
  { key = "micro_batches", title = "micro-batches a step" },
  { key = "selective_bytes", title = "selective peak" }, { key = "full_bytes", title = "full peak" },
  { key = "saved_bytes", title = "full saves" },
  { key = "selective_s", title = "selective step" }, { key = "full_s", title = "full step" },
  { key = "cost_s", title = "full costs" }, { key = "cost_share", title = "costs (share)" },
})
print()
local fits = {}
for _, r in ipairs(rows) do
  local modes = {}
  if r.selective_fits then modes[#modes + 1] = "selective" end
  if r.full_fits then modes[#modes + 1] = "full" end
  fits[#fits + 1] = string.format("micro-batch %d: %s", r.micro_batch_size,
                                  #modes > 0 and table.concat(modes, " and ") or "neither")
end
print(string.format("fits %s: %s", nd.units.gib(capacity), table.concat(fits, "; ")))

local path = out_dir .. "/recompute_tradeoff.svg"
nd.write_svg(path, study.svg_bars {
  rows = rows, x = "micro_batch_size", ys = { "selective_bytes", "full_bytes" },
  names = { selective_bytes = "selective", full_bytes = "full" }, legend_title = "recompute",
  xlabel = "micro-batch (sequences)", ylabel = "peak memory a device (GiB)",
  title = string.format("%s: peak memory by micro-batch and recompute", name),
  subtitle = string.format("%d devices, dp %d x tp %d x pp %d; global batch %d x %d tokens", run.dp * run.tp * run.pp,
                           run.dp, run.tp, run.pp, run.global_batch_size, run.seq_length),
  lines = { { value = capacity, label = "capacity " .. nd.units.gib(capacity), at = "left" } },
})
print("chart: " .. path)
