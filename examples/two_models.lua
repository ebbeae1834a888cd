-- two_models.lua: two models on one cluster, side by side.
--
--   ndlua examples/two_models.lua
--
-- Qwen3-235B-A22B or DeepSeek-V3 on 512 H100s (80 GiB), a global batch of
-- 1024 sequences of 4096 tokens? Both take the recipe of
-- examples/deepseek-v3-256/train.yaml (AdamW, bf16, 4096 tokens) with the
-- model swapped and the devices set to 512; nd.search finds each one's
-- fastest strategy that fits, every dimension and recompute mode searched,
-- and nd.study.compare puts the two side by side, down to the days a
-- trillion tokens take at that step.

local nd = require "nd"
local study = nd.study

local here = arg and arg[0] and arg[0]:match("^(.*)/") or "."
local YAML = here .. "/deepseek-v3-256/train.yaml"
local DEVICES, BATCH, MEMORY, HARDWARE = 512, 1024, "80GB", "H100"
local MODELS = { "Qwen/Qwen3-235B-A22B", "deepseek-ai/DeepSeek-V3" }

-- A model's row: what it is, and the best strategy the search finds.
local function study_model(id)
  local model, run = nd.load(YAML, { overrides = { ["model.pretrained_model_name_or_path"] = id,
                                                   ["context.device_num"] = DEVICES } })
  local spec, params = model:spec(), model:params()
  local list, info = nd.search(model, run, { global_batch = BATCH, memory = MEMORY, hardware = HARDWARE,
                                             recompute = "auto", top = 1 })
  local row = { params = params.total, active_params = params.active, layers = spec.num_hidden_layers,
                experts = string.format("%d (top %d)", spec.num_experts or 1, spec.num_experts_per_tok or 1),
                fitting = info.counts and info.counts.fitting }
  local best = list[1]
  if not best then
    row.strategy = info.problem
    return row
  end
  row.strategy = string.format("dp %d tp %d pp %d cp %d ep %d", best.dp, best.tp, best.pp, best.cp, best.ep)
  row.details = string.format("vpp %d, sp %s, op %d, mbs %d, %s", best.vpp, best.sp and "on" or "off", best.op,
                              best.mbs, best.recompute)
  row.peak_bytes, row.step_time_s, row.mfu = best.peak_bytes, best.step_time_s, best.mfu
  row.tokens_per_s_per_device = best.tokens_per_s_per_device
  row.days = best.step_time_s * 1e12 / (BATCH * run.seq_length) / 86400
  row.seq_length = run.seq_length
  return row
end

local items = {}
for i, id in ipairs(MODELS) do items[i] = { id, study_model(id) } end

print(string.format("%d %s devices (%s each), a global batch of %d sequences of %d tokens; the fastest strategy "
                    .. "that fits:", DEVICES, HARDWARE, nd.units.gib(nd.units.parse_bytes(MEMORY)), BATCH,
                    items[1][2].seq_length))
print()
study.print_table(study.compare(items, {
  { key = "params", title = "parameters" }, { key = "active_params", title = "active a token" },
  { key = "layers", unit = "layers" }, { key = "experts", title = "routed experts" },
  { key = "fitting", title = "fit the budget", unit = "strategies" },
  { key = "strategy", title = "best strategy" }, { key = "details", title = "" },
  { key = "peak_bytes", title = "peak a device" }, { key = "step_time_s", title = "step" },
  { key = "mfu", title = "MFU" }, { key = "tokens_per_s_per_device", title = "throughput a device" },
  { key = "days", title = "1T tokens take", unit = "days" },
}))
