-- devices_scaling.lua: the best strategy, its memory and its step time as
-- the cluster grows.
--
--   ndlua examples/devices_scaling.lua [OUT_DIR]
--
-- Llama-3.1-70B with the recipe of examples/llama-3.1-70b-tp-pp-sp/train.yaml
-- (8192 tokens, AdamW with fp32 main parameters) at a global batch of 512
-- sequences on H100s (80 GiB): for 64 to 8192 devices, nd.search finds the
-- fastest strategy that fits, every dimension and recompute mode searched.
-- With the batch fixed, twice the devices would ideally halve the step;
-- past 512 data-parallel ranks (one sequence each) the devices can only go
-- to TP, PP or CP, and the step falls behind. Two charts: the step time
-- against the ideal (OUT_DIR/devices_scaling.svg), and what fills the
-- peak stage's memory (OUT_DIR/devices_memory.svg).

local nd = require "nd"
local study = nd.study

local here = arg and arg[0] and arg[0]:match("^(.*)/") or "."
local out_dir = arg[1] or "."
local model, run, extras = nd.load(here .. "/llama-3.1-70b-tp-pp-sp/train.yaml")
local name = extras.source.id or model:spec().name
local BATCH, MEMORY, HARDWARE = 512, "80GB", "H100"
local DEVICES = { 64, 128, 256, 512, 1024, 2048, 4096, 8192 }
local budget = nd.units.parse_bytes(MEMORY)

print(string.format("%s, %d tokens a sequence, a global batch of %d sequences, on %s (%s a device)", name,
                    run.seq_length, BATCH, HARDWARE, nd.units.gib(budget)))
print("the fastest strategy that fits, searched over every dimension and recompute mode:")
print()

-- The components of the peak stage of a candidate, estimated again.
local function peak_stage(best)
  local est = nd.estimate(model, nd.candidate_run(run:with { device_memory = budget }, best))
  local s = est.stages[est.peak_stage + 1]
  return { params_bytes = s.params + s.main_params, grads_bytes = s.grads, optimizer_bytes = s.optimizer,
           activations_bytes = s.activations, other_bytes = s.comm + s.backward_overhead + s.reserve }
end

local first
local rows = study.sweep("devices", DEVICES, function(devices)
  local list, info = nd.search(model, run, { devices = devices, global_batch = BATCH, memory = MEMORY,
                                             hardware = HARDWARE, recompute = "auto", top = 1 })
  local best = list[1]
  if not best then return { strategy = info.problem } end
  first = first or { devices = devices, step_time_s = best.step_time_s }
  local row = peak_stage(best)
  row.strategy = string.format("dp %d tp %d pp %d cp %d, sp %s, op %d, %s", best.dp, best.tp, best.pp, best.cp,
                               best.sp and "on" or "off", best.op, best.recompute)
  row.peak_bytes, row.step_time_s, row.mfu = best.peak_bytes, best.step_time_s, best.mfu
  row.tokens_per_s_per_device = best.tokens_per_s_per_device
  row.ideal_s = first.step_time_s * first.devices / devices
  return row
end)

study.print_table(rows, {
  { key = "devices", unit = "devices" }, "strategy", { key = "peak_bytes", title = "peak" },
  { key = "step_time_s", title = "step" }, { key = "ideal_s", title = "ideal step" }, { key = "mfu", title = "MFU" },
  { key = "tokens_per_s_per_device", title = "throughput a device" },
})
print(string.format("(ideal step: the step on %d devices, divided as the devices multiply)", DEVICES[1]))
print()
print("what fills the peak stage:")
study.print_table(rows, { { key = "devices", unit = "devices" }, { key = "params_bytes", title = "params, main" },
                          "grads_bytes", "optimizer_bytes",
                          "activations_bytes", { key = "other_bytes", title = "comm, overhead, reserve" } })

local time_svg, memory_svg = out_dir .. "/devices_scaling.svg", out_dir .. "/devices_memory.svg"
nd.write_svg(time_svg, study.svg_lines {
  rows = rows, x = "devices", ys = { "step_time_s", "ideal_s" },
  names = { step_time_s = "best strategy", ideal_s = "ideal (linear)" }, dashes = { nil, "6 4" },
  log_x = true, log_y = true, xlabel = "devices (H100)", ylabel = "step time (s)", legend_title = "step time",
  title = string.format("%s: step time by device count", name),
  subtitle = string.format("both axes logarithmic; global batch %d x %d tokens; the fastest strategy within %s",
                           BATCH, run.seq_length, nd.units.gib(budget)),
})
nd.write_svg(memory_svg, study.svg_bars {
  rows = rows, x = "devices", stacked = true, width = 940,
  ys = { "params_bytes", "grads_bytes", "optimizer_bytes", "activations_bytes", "other_bytes" },
  names = { params_bytes = "params, main", other_bytes = "other" }, legend_title = "component",
  xlabel = "devices (H100)", ylabel = "memory of the peak stage (GiB)",
  title = string.format("%s: memory a device of the best strategy", name),
  subtitle = string.format("global batch %d x %d tokens; params with their fp32 main copy; other: communication "
    .. "buffers, backward overhead, reserve", BATCH, run.seq_length),
  lines = { { value = budget, label = "budget " .. nd.units.gib(budget) } },
})
print()
print("charts: " .. time_svg .. ", " .. memory_svg)
