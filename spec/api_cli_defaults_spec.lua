-- One set of defaults (issue 33 item 2): a run naming no runtime prices
-- what estimate.lua prices for the same model and devices. For each bundled
-- example (examples/*/train.yaml) its model and degrees are taken from the
-- yaml's own text, and `ndlua estimate.lua MODEL -d N --tp T --pp P --cp C
-- --ep E --json` (the train.yaml a model id implies, nd.model_yaml) is held
-- to nd.estimate(nd.model(MODEL), nd.run{dp, tp, pp, cp, ep}) byte for byte,
-- every stage and every component. Both sides are ndlua's own: the
-- expectation is that they agree, not a number derived by hand.
--
-- A checkpoint with MTP layers (DeepSeek-V3) is one difference of model, not
-- of run: the AutoModels trainer builds no MTP layer (estimate.lua warns
-- and prices none), nd.model keeps the checkpoint's; the API states the
-- trainer's model with config_overrides = {mtp_depth = 0}.
local nd = require "nd"
local shell = dofile("spec/support/shell.lua")

local COMPONENTS = { "params", "grads", "optimizer", "main_params", "activations", "comm", "backward_overhead",
                     "fragmentation", "grad_pool", "reserve", "total" }

-- The examples' train.yaml files, in name order.
local function examples()
  local out = {}
  for _, name in ipairs(nd.list_dir("examples") or {}) do
    local path = "examples/" .. name .. "/train.yaml"
    local f = io.open(path)
    if f then
      f:close()
      out[#out + 1] = path
    end
  end
  return out
end

local function cli_estimate(id, d)
  local cmd = string.format("%s %s lua/estimate.lua %s -d %d --tp %d --pp %d --cp %d --ep %d --json 2>/dev/null",
                            shell.WRAPPER, shell.quote(shell.NDLUA), shell.quote(id), d.devices, d.tp, d.pp, d.cp,
                            d.ep)
  return nd.json.decode(shell.capture(cmd), id)
end

describe("nd.run naming no runtime prices what estimate.lua prices for a model id", function()
  local paths = examples()

  it("finds the bundled examples", function()
    assert.is_true(#paths >= 4, "examples found: " .. #paths)
  end)

  for _, path in ipairs(paths) do
    it(path .. ": the same bytes, stage by stage", function()
      local doc = nd.yaml.load(path)
      local id = doc.model.pretrained_model_name_or_path
      local a = doc.accelerator or {}
      local d = { tp = a.tp_size or 1, pp = a.pp_size or 1, cp = a.cp_size or 1, ep = a.ep_size or 1 }
      -- context.device_num, else (as the yaml's reader takes it) dp_shard_size data-parallel ranks
      d.devices = (doc.context or {}).device_num or doc.fsdp_config.dp_shard_size * d.tp * d.pp * d.cp
      local cli = cli_estimate(id, d)
      local section = { pretrained_model_name_or_path = id }
      if (cli.model.mtp_unpriced or 0) > 0 then section.config_overrides = { mtp_depth = 0 } end
      local model = nd.model(section, { warnings = require("nd.warnings").quiet() })
      local run = nd.run { dp = d.devices // (d.tp * d.pp * d.cp), tp = d.tp, pp = d.pp, cp = d.cp, ep = d.ep }
      local api = nd.estimate(model, run)
      assert.are.equal(#cli.stages, #api.stages)
      for i, s in ipairs(api.stages) do
        for _, k in ipairs(COMPONENTS) do
          assert.are.equal(cli.stages[i].bytes[k] or 0, s[k] or 0,
                           string.format("%s stage %d %s", path, i - 1, k))
        end
      end
      assert.are.same({ cli.peak_bytes, cli.peak_stage, cli.capacity_bytes },
                      { api.peak_bytes, api.peak_stage, api.capacity_bytes })
    end)
  end

  it("Qwen/Qwen3-8B on 8 devices, the issue's own example: the same, and far from the formulas' bare run", function()
    local cli = cli_estimate("Qwen/Qwen3-8B", { devices = 8, tp = 1, pp = 1, cp = 1, ep = 1 })
    local model = nd.model("Qwen/Qwen3-8B")
    local api = nd.estimate(model, nd.run { dp = 8 })
    assert.are.equal(cli.peak_bytes, api.peak_bytes)
    -- runtime "none" (the core's own defaults: no sharding, no recompute, fp32 states) is the 116 GiB the
    -- issue saw; the defaults a run naming no runtime takes are estimate.lua's 23.8 GiB
    local bare = nd.estimate(model, nd.run { dp = 8, runtime = "none" })
    assert.is_true(bare.peak_bytes > 4 * api.peak_bytes)
  end)

  it("keeps what a run states over the defaults: a recompute mode, a ZeRO stage, a width", function()
    local model = nd.model("Qwen/Qwen3-8B")
    local spec = nd.run { dp = 8, recompute = "off", zero = 1, param_bytes = 4 }:spec()
    assert.are.same({ "off", 4, "hyperparallel" }, { spec.recompute, spec.param_bytes, spec.runtime })
    assert.is_nil(spec.full_recompute) -- the defaults' mode gave way to the stated one
    assert.is_nil(spec.grad_shard_as_params) -- a stated ZeRO stage keeps none of the defaults' sharding
    assert.is_true(nd.estimate(model, nd.run { dp = 8, recompute = "off" }).peak_bytes
                   > nd.estimate(model, nd.run { dp = 8 }).peak_bytes)
    -- a stated optimizer keeps its own states: Muon one momentum for the matrices (the tables keep AdamW's two)
    assert.is_nil(nd.run({ dp = 8, optimizer = "Muon" }):spec().optimizer_states)
    assert.is_true(nd.estimate(model, nd.run { dp = 8, optimizer = "Muon" }).stages[1].optimizer
                   < nd.estimate(model, nd.run { dp = 8 }).stages[1].optimizer)
  end)
end)
