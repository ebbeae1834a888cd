-- Precision as users state it (issue 33 item 7): HyperParallel's
-- `mixed_precision.enabled: true` (root, AutoModels) or
-- `train.mixed_precision.enabled: true` (legacy) keeps fp32 master weights
-- and fp32 optimizer states beside the narrower model, which is what the
-- seed parser prices for `optimizer.fp32_main_params: true`
-- (reference/seed-cost_model_parser_hyper.txt, _optimizer_states:
-- optimizer_state_bytes 4; main_param_bytes 4 when the stored parameters are
-- narrower than 4 bytes). Qwen3-8B's checkpoint states torch_dtype bfloat16
-- (lua/nd/catalog), so its stored parameters are 2 bytes.
local nd = require "nd"
local train_yaml = require "nd.train_yaml"

local fixture = dofile("spec/support/train_yaml_text.lua")
local read, refused, count, QWEN = fixture.read, fixture.refused, fixture.count, fixture.QWEN

local function widths(r) return { r.optimizer_state_bytes, r.main_param_bytes } end

describe("mixed_precision.enabled", function()
  it("true keeps fp32 states and an fp32 master copy of the bf16 parameters, as fp32_main_params does", function()
    local p, ws = read(QWEN .. "optimizer:\n  type: adamw\nmixed_precision:\n  enabled: true\n")
    assert.are.same({ 4, 4 }, widths(p.run))
    assert.are.same({ 2, 2 }, { p.run.param_bytes, p.run.grad_bytes }) -- the model stays bf16
    local q = read(QWEN .. "optimizer:\n  type: adamw\n  fp32_main_params: true\n")
    assert.are.same(widths(q.run), widths(p.run))
    -- read, not warned about as unpriced
    assert.are.equal(0, count(ws, "mixed_precision"))
  end)

  it("is read under train: in the legacy schema", function()
    local text = "model:\n  config_path: Qwen/Qwen3-8B\ntrain:\n  micro_batch_size: 1\n  mixed_precision:\n    enabled: true\n"
    local p = read(text)
    assert.are.equal("legacy", p.schema)
    assert.are.same({ 4, 4 }, widths(p.run))
  end)

  it("false or unstated keeps the states in the stored dtype, with no copy", function()
    assert.are.same({ 2, 0 }, widths(read(QWEN .. "mixed_precision:\n  enabled: false\n").run))
    assert.are.same({ 2, 0 }, widths(read(QWEN).run))
  end)

  it("over fp32 parameters adds no copy (the parameters are the master weights)", function()
    local p = read(QWEN .. "model_init_dtype: float32\nmixed_precision:\n  enabled: true\n")
    assert.are.same({ 4, 0 }, widths(p.run))
  end)

  it("is a flag: text is refused naming the key", function()
    local m = refused(QWEN .. "mixed_precision:\n  enabled: sometimes\n")
    assert.matches("mixed_precision.enabled", m, 1, true)
  end)

  it("prices the states and the copy: 8 + 4 bytes a parameter more than bf16 states alone", function()
    -- 16 devices, FSDP over all 16: the optimizer column holds states and
    -- master copy, each sharded over 16. Two fp32 states (8 B) and the fp32
    -- copy (4 B) against two bf16 states (4 B): 12 - 4 = 8 B a parameter.
    local base = QWEN .. "context:\n  device_num: 16\nfsdp_config:\n  dp_shard_size: 16\n"
    local function stage0(text)
      local model, run = train_yaml.build(read(text))
      return nd.estimate(model, run).stages[1], model
    end
    local plain, model = stage0(base)
    local mixed = stage0(base .. "mixed_precision:\n  enabled: true\n")
    local params = model:params().total
    local grown = (mixed.optimizer + (mixed.main_params or 0)) - (plain.optimizer + (plain.main_params or 0))
    assert.is_true(math.abs(grown - 8 * params / 16) <= 16, string.format("%d vs %d", grown, 8 * params // 16))
  end)
end)
