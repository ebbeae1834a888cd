-- best_strategy_memory.lua: the memory of every pipeline stage of the best
-- strategy a search finds.
--
--   ndlua examples/best_strategy_memory.lua [OUT_DIR]
--
-- DeepSeek-V3 with the recipe of examples/deepseek-v3-256/train.yaml on 512
-- H100s (80 GiB), a global batch of 1024 sequences of 4096 tokens: nd.search
-- finds the fastest strategy that fits (every dimension and recompute mode
-- searched); nd.candidate_run turns it into a run, and nd.estimate prices
-- it stage by stage. The first stage holds the embedding and the 3 dense
-- layers, the last the output; activations fall along the pipeline, as
-- 1F1B keeps fewer micro-batches in flight on later stages. The picture is
-- OUT_DIR/best_strategy_memory.svg.

local nd = require "nd"
local study = nd.study

local here = arg and arg[0] and arg[0]:match("^(.*)/") or "."
local out_dir = arg[1] or "."
local DEVICES, BATCH, MEMORY, HARDWARE = 512, 1024, "80GB", "H100"
local model, run, extras = nd.load(here .. "/deepseek-v3-256/train.yaml",
                                   { overrides = { ["context.device_num"] = DEVICES }, device_memory = MEMORY })
local name = extras.source.id or model:spec().name

local list, info = nd.search(model, run, { global_batch = BATCH, memory = MEMORY, hardware = HARDWARE,
                                           recompute = "auto", top = 1 })
local best = list[1]
if not best then nd.fail(info.problem) end
local best_run = nd.candidate_run(run, best)
local est = nd.estimate(model, best_run)

-- The layers each stage holds, from the pipeline's layout.
local layers = {}
for i, stage in ipairs(nd.layout(model, best_run)) do
  local n = 0
  for _, chunk in ipairs(stage.chunks) do n = n + chunk.count end
  layers[i] = n
end

local strategy = string.format("dp %d x tp %d x pp %d x cp %d, ep %d, vpp %d, sp %s, op %d, micro-batch %d x %d, "
                               .. "recompute %s", best.dp, best.tp, best.pp, best.cp, best.ep, best.vpp,
                               best.sp and "on" or "off", best.op, best.mbs, best.mb, best.recompute)
print(string.format("%s on %d %s devices, a global batch of %d x %d tokens: of %d strategies that fit %s, the "
                    .. "fastest is", name, DEVICES, HARDWARE, BATCH, run.seq_length, info.counts.fitting,
                    nd.units.gib(info.budget_bytes)))
print("  " .. strategy)
print(string.format("  step %s, MFU %.1f %%, peak %s on stage %d", nd.units.seconds(best.step_time_s), 100 * best.mfu,
                    nd.units.gib(best.peak_bytes), best.peak_stage))
print()

local rows = {}
for i, s in ipairs(est.stages) do
  rows[i] = { stage = s.stage, peak = s.stage == est.peak_stage and "*" or "", layers = layers[i],
              params_bytes = s.params, grads_bytes = s.grads, optimizer_bytes = s.optimizer,
              activations_bytes = s.activations, comm_bytes = s.comm, overhead_bytes = s.backward_overhead,
              reserve_bytes = s.reserve, total_bytes = s.total }
end
print("memory a device by pipeline stage (* the peak):")
study.print_table(rows, { { key = "peak", title = "" }, "stage", { key = "layers", unit = "layers" }, "params_bytes",
                          "grads_bytes", "optimizer_bytes", "activations_bytes", "comm_bytes", "overhead_bytes",
                          "reserve_bytes", "total_bytes" })

local path = out_dir .. "/best_strategy_memory.svg"
nd.write_svg(path, study.svg_stages(est, {
  title = string.format("%s on %d %s: memory a device, stage by stage", name, DEVICES, HARDWARE),
  subtitle = strategy, layers = layers, width = 980,
}))
print()
print("chart: " .. path)
