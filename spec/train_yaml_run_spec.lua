-- Reading a train.yaml (lua/nd/train_yaml.lua), the run's rules: batch,
-- optimizer, gradient clipping, activation checkpointing, dtypes, the
-- sequence length, the MoE run keys, the pipeline offset, plan_overrides,
-- and command-line overrides (lua/nd/overrides.lua). Reference model-spec-census-train-yaml.md §e.1-§e.3
-- and the seed parser; the schemas and sections are in train_yaml_spec.lua.
-- Model facts from the catalog's config.json: Qwen3-8B has 36 layers,
-- max_position_embeddings 40960 and torch_dtype bfloat16; Qwen3-30B-A3B 128
-- experts; DeepSeek-V3 61 layers + 1 MTP.
local nd = require "nd"
local train_yaml = require "nd.train_yaml"
local overrides = require "nd.overrides"
local warnings = require "nd.warnings"

local fixture = dofile("spec/support/train_yaml_text.lua")
local read, refused, count = fixture.read, fixture.refused, fixture.count
local QWEN, MOE, TINY = fixture.QWEN, fixture.MOE, fixture.TINY

describe("the batch", function()
  local DP4 = QWEN .. "fsdp_config:\n  dp_shard_size: 4\n"

  it("reads training.* and derives micro_batch_num from the global batch: 32 / (2 x 4) = 4", function()
    local r = read(DP4 .. "training:\n  global_batch_size: 32\n  micro_batch_size: 2\n").run
    assert.are.same({ 2, 4, 32 }, { r.micro_batch_size, r.micro_batch_num, r.global_batch_size })
  end)

  it("falls back to the legacy train section", function()
    local r = read(TINY .. "train:\n  global_batch_size: 16\n  micro_batch_num: 16\n").run
    assert.are.same({ 1, 16, 16 }, { r.micro_batch_size, r.micro_batch_num, r.global_batch_size })
  end)

  it("defaults: micro_batch_size 1, micro_batch_num the pipeline degree, the global batch their product", function()
    local r = read(DP4 .. "accelerator:\n  pp_size: 2\ncontext:\n  device_num: 8\n").run
    -- dp = 8 / pp 2 = 4; micro_batch_num = pp = 2; global = 1 x 4 x 2
    assert.are.same({ 1, 2, 8 }, { r.micro_batch_size, r.micro_batch_num, r.global_batch_size })
  end)

  it("refuses a global batch micro_batch_size x dp does not divide", function()
    assert.are.equal("t.yaml:6:22: training.global_batch_size: 6 is not a multiple of micro_batch_size x dp = "
      .. "1 x 4 = 4; a global batch that micro_batch_size x dp divides, or a micro_batch_num",
      refused(DP4 .. "training:\n  global_batch_size: 6\n"))
  end)

  it("refuses a global batch that disagrees with a stated micro_batch_num", function()
    assert.matches("^t.yaml:6:22: training.global_batch_size: 32 is not micro_batch_size x dp x micro_batch_num = "
      .. "1 x 4 x 2 = 8", refused(DP4 .. "training:\n  global_batch_size: 32\n  micro_batch_num: 2\n"))
  end)
end)

describe("the optimizer", function()
  it("is named by optimizer._target_: Muon keeps one state a parameter", function()
    local r = read(QWEN .. "optimizer:\n  _target_: hyper_parallel.components.optim.Muon\n").run
    assert.are.same({ "muon", 1 }, { r.optimizer, r.optimizer_states })
  end)

  it("falls back to optimizer.type, and to train.optimizer: AdamW keeps two", function()
    local r = read(TINY .. "train:\n  optimizer:\n    type: adamw\n").run
    assert.are.same({ "adamw", 2 }, { r.optimizer, r.optimizer_states })
  end)

  it("is priced as adamw when none is stated, with one warning", function()
    local p, ws = read(QWEN)
    assert.are.same({ "adamw", 2 }, { p.run.optimizer, p.run.optimizer_states })
    assert.are.equal(1, count(ws, "optimizer._target_: the config states no optimizer: it is priced as adamw, "
      .. "two states a parameter"))
    _, ws = read(QWEN .. "optimizer:\n  type: adamw\n")
    assert.are.equal(0, count(ws, "optimizer"))
  end)

  it("keeps its states in the stored dtype, or in fp32 with fp32_main_params (and an fp32 copy)", function()
    local r = read(QWEN).run -- Qwen3-8B is stored in bfloat16
    assert.are.same({ 2, 0 }, { r.optimizer_state_bytes, r.main_param_bytes })
    r = read(QWEN .. "optimizer:\n  type: adamw\n  fp32_main_params: true\n").run
    assert.are.same({ 4, 4 }, { r.optimizer_state_bytes, r.main_param_bytes })
    r = read(QWEN .. "model_init_dtype: float32\noptimizer:\n  type: adamw\n  fp32_main_params: true\n").run
    assert.are.same({ 4, 0 }, { r.optimizer_state_bytes, r.main_param_bytes })
  end)
end)

describe("gradient clipping", function()
  it("is on where training.max_grad_norm > 0", function()
    assert.is_true(read(QWEN .. "training:\n  max_grad_norm: 1.0\n").run.grad_clip)
  end)

  it("falls back to optimizer.max_grad_norm where training states none or 0", function()
    assert.is_true(read(QWEN .. "training:\n  max_grad_norm: 0\noptimizer:\n  max_grad_norm: 0.5\n").run.grad_clip)
    -- PyYAML reads 1.0e9 (no sign in the exponent) as text; float() reads it as a number
    assert.is_true(read(TINY .. "train:\n  optimizer:\n    max_grad_norm: 1.0e9\n").run.grad_clip)
  end)

  it("is off where none is stated", function()
    assert.is_false(read(QWEN).run.grad_clip)
  end)

  it("refuses text that is no number", function()
    assert.are.equal("t.yaml:4:18: training.max_grad_norm: must be a number, got 'one'; a number such as 1.0",
      refused(QWEN .. "training:\n  max_grad_norm: one\n"))
  end)
end)

describe("activation checkpointing", function()
  local function ac(mode, extra)
    return read(QWEN .. "activation_checkpoint:\n  mode: " .. mode .. "\n" .. (extra or ""))
  end

  it("reads activation_checkpoint.mode: full, selective, off", function()
    local p = ac("full")
    assert.are.same({ true, false, "full" }, { p.run.full_recompute, p.run.selective_recompute, p.stated_ac_mode })
    p = ac("selective")
    assert.are.same({ false, true, "selective" }, { p.run.full_recompute, p.run.selective_recompute, p.stated_ac_mode })
    p = ac("'off'")
    assert.are.same({ false, false, "off" }, { p.run.full_recompute, p.run.selective_recompute, p.stated_ac_mode })
  end)

  it("reads YAML's unquoted off (false) as off, not as a fall through to the legacy key", function()
    local p = ac("off", "train:\n  gradient_checkpointing:\n    activation_checkpoint: full\n")
    assert.are.same({ false, "off" }, { p.run.full_recompute, p.stated_ac_mode })
  end)

  it("reads none as off, and names in any case", function()
    assert.are.equal("off", ac("none").stated_ac_mode)
    assert.are.equal("full", ac("FULL").stated_ac_mode)
  end)

  it("falls back to train.gradient_checkpointing.activation_checkpoint where the mode is unstated or null", function()
    local p = read(TINY .. "train:\n  gradient_checkpointing:\n    activation_checkpoint: full\n")
    assert.is_true(p.run.full_recompute)
    p = ac("null", "train:\n  gradient_checkpointing:\n    activation_checkpoint: selective\n")
    assert.are.equal("selective", p.stated_ac_mode)
  end)

  it("is off by default", function()
    local p = read(QWEN)
    assert.are.same({ false, false, "off" }, { p.run.full_recompute, p.run.selective_recompute, p.stated_ac_mode })
  end)

  it("refuses auto, a list, true and unknown names with the accepted modes", function()
    assert.are.equal("t.yaml:4:9: activation_checkpoint.mode: 'auto' is the search's recompute dimension, not one "
      .. "mode a run trains with; one of off, selective, full", refused(QWEN .. "activation_checkpoint:\n  mode: auto\n"))
    assert.are.equal("t.yaml:4:9: activation_checkpoint.mode: [\"full\",false] is a list of modes, the search's "
      .. "recompute dimension, not one mode a run trains with; one of off, selective, full",
      refused(QWEN .. "activation_checkpoint:\n  mode: [full, off]\n"))
    assert.are.equal("t.yaml:4:9: activation_checkpoint.mode: true is not an activation checkpoint mode; one of "
      .. "off, selective, full", refused(QWEN .. "activation_checkpoint:\n  mode: on\n"))
    assert.are.equal("t.yaml:6:28: train.gradient_checkpointing.activation_checkpoint: 'ful' is not an activation "
      .. "checkpoint mode; one of off, selective, full",
      refused(TINY .. "train:\n  gradient_checkpointing:\n    activation_checkpoint: ful\n"):gsub("^t.yaml:%d+",
        "t.yaml:6"))
  end)

  it("takes config_overrides.full_rec and sel_rec over the mode, and states no trained mode then", function()
    local p = read(TINY:gsub("arch: llama2", "arch: llama2\n    full_rec: [2, 1]\n    sel_rec: false")
      .. "activation_checkpoint:\n  mode: selective\naccelerator:\n  pp_size: 2\ncontext:\n  device_num: 2\n")
    assert.are.same({ 2, 1 }, p.run.full_recompute)
    assert.is_false(p.run.selective_recompute)
    assert.is_nil(p.stated_ac_mode)
  end)

  it("reads recompute_slice_activation from activation_checkpoint, else fsdp_config, else the legacy key", function()
    assert.is_true(read(QWEN .. "activation_checkpoint:\n  recompute_slice_activation: true\n"
      .. "fsdp_config:\n  recompute_slice_activation: false\n").run.recompute_slice_activation)
    assert.is_true(read(QWEN .. "fsdp_config:\n  recompute_slice_activation: true\n").run.recompute_slice_activation)
    assert.is_true(read(TINY .. "train:\n  gradient_checkpointing:\n    recompute_slice_activation: true\n")
      .run.recompute_slice_activation)
    assert.is_false(read(QWEN).run.recompute_slice_activation)
  end)
end)

describe("the dtypes", function()
  it("take fsdp_config.mix_precision.param_dtype for the parameters, gradients and compute", function()
    local r = read(QWEN .. "fsdp_config:\n  mix_precision:\n    param_dtype: float32\n").run
    assert.are.same({ 4, 4, 4 }, { r.param_bytes, r.grad_bytes, r.compute_bytes })
    -- the stored parameters (and so the optimizer states) stay in the model's bfloat16
    assert.are.equal(2, r.optimizer_state_bytes)
  end)

  it("take model_init_dtype next, for the parameters, the compute and the stored width", function()
    local r = read(QWEN .. "model_init_dtype: float32\n").run
    assert.are.same({ 4, 4, 4 }, { r.param_bytes, r.compute_bytes, r.optimizer_state_bytes })
  end)

  it("take model.torch_dtype next, unless it is auto", function()
    local r = read(QWEN .. "  torch_dtype: float32\n").run
    assert.are.same({ 4, 4 }, { r.param_bytes, r.compute_bytes })
    r = read(QWEN .. "  torch_dtype: auto\n").run -- Qwen3-8B's checkpoint: bfloat16
    assert.are.same({ 2, 2 }, { r.param_bytes, r.compute_bytes })
  end)

  it("take the legacy param_init_type and compute_dtype in a legacy config", function()
    local r = read(TINY .. "  param_init_type: float32\n  compute_dtype: float16\n").run
    assert.are.same({ 4, 4, 2, 4 }, { r.param_bytes, r.grad_bytes, r.compute_bytes, r.optimizer_state_bytes })
  end)

  it("warn that the AutoModels trainer reads neither legacy key, once each", function()
    local p, ws = read(QWEN .. "  param_init_type: float32\n  compute_dtype: float16\n")
    assert.are.same({ 2, 2 }, { p.run.param_bytes, p.run.compute_bytes }) -- the checkpoint's bfloat16
    assert.are.equal(1, count(ws, "model.param_init_type: the AutoModels trainer reads no model.param_init_type, "
      .. "and neither does ndlua: the run keeps its weights in model_init_dtype, else model.torch_dtype"))
    assert.are.equal(1, count(ws, "model.compute_dtype: the AutoModels trainer reads no model.compute_dtype"))
    _, ws = read(QWEN)
    assert.are.equal(0, count(ws, "reads no model."))
  end)

  it("are bfloat16 where nothing states one, with one warning", function()
    local p, ws = read(TINY)
    assert.are.same({ 2, 2 }, { p.run.param_bytes, p.run.compute_bytes })
    assert.are.equal(1, count(ws, "model.torch_dtype: neither the config nor a checkpoint states the model's dtype"))
    _, ws = read(TINY .. "  torch_dtype: bfloat16\n")
    assert.are.equal(0, count(ws, "model's dtype"))
    _, ws = read(QWEN) -- the checkpoint states bfloat16
    assert.are.equal(0, count(ws, "model's dtype"))
  end)

  it("read model.softmax_compute_type (default float32)", function()
    assert.are.equal(4, read(QWEN).run.softmax_bytes)
    assert.are.equal(2, read(QWEN .. "  softmax_compute_type: float16\n").run.softmax_bytes)
  end)

  it("read torch's names without a width, and refuse names that are no dtype", function()
    assert.are.equal(2, read(QWEN .. "  torch_dtype: torch.half\n").run.param_bytes)
    assert.are.equal(1, read(QWEN .. "  torch_dtype: float8_e4m3fn\n").run.param_bytes)
    assert.matches("^t.yaml:3:16: model.torch_dtype: 'bfloat' is no dtype ndlua knows; a dtype such as bfloat16",
      refused(QWEN .. "  torch_dtype: bfloat\n"))
  end)

  it("warn, once per key, of a dtype no run trains in: 8-bit floats and integers", function()
    -- torch refuses requires_grad on integer tensors ("Only Tensors of floating point and complex
    -- dtype can require gradients"); its float8 dtypes have no optimizer or norm kernels.
    local p, ws = read(QWEN .. "  torch_dtype: float8_e4m3fn\n")
    assert.are.equal(1, p.run.param_bytes) -- still priced at the stated width, as the seed does
    assert.are.equal(1, count(ws, "model.torch_dtype: 'float8_e4m3fn' is priced at its width, 1 byte per element"))
    _, ws = read(QWEN .. "  torch_dtype: torch.int8\nfsdp_config:\n  mix_precision:\n    param_dtype: uint8\n")
    assert.are.equal(1, count(ws, "model.torch_dtype: 'torch.int8' is priced at its width, 1 byte per element"))
    assert.are.equal(1, count(ws, "fsdp_config.mix_precision.param_dtype: 'uint8' is priced at its width"))
    assert.are.equal(2, count(ws, "PyTorch gives no gradient to a tensor of an integer dtype")) -- one per key
    _, ws = read(QWEN .. "  torch_dtype: int32\n")
    assert.are.equal(1, count(ws, "'int32' is priced at its width, 4 bytes per element"))
    -- a name with no width is no dtype ndlua prices: refused where the yaml states it, not warned of
    assert.is_nil(require("nd.train_yaml.dtypes").untrainable("bool"))
    assert.are.equal("PyTorch gives no gradient to a tensor of an integer dtype",
      require("nd.train_yaml.dtypes").untrainable("torch.QInt8"))
    for _, fine in ipairs { "bfloat16", "float16", "float32", "torch.half", "float" } do
      _, ws = read(QWEN .. "  torch_dtype: " .. fine .. "\n")
      assert.are.equal(0, count(ws, "is priced at its width"), fine)
    end
  end)
end)

describe("the sequence length", function()
  it("is dataset.data_transform.max_seq_len, else data_config.seq_length, else data.max_seq_len", function()
    local p = read(QWEN .. "dataset:\n  data_transform:\n    max_seq_len: 1024\n  data_config:\n    seq_length: 2048\n")
    assert.are.same({ 1024, true }, { p.run.seq_length, p.seq_len_stated })
    assert.are.equal(2048, read(QWEN .. "dataset:\n  data_config:\n    seq_length: 2048\n").run.seq_length)
    assert.are.equal(512, read(TINY .. "data:\n  max_seq_len: 512\n").run.seq_length)
  end)

  it("is the model's context limit where none is stated, with one warning", function()
    local p, ws = read(QWEN)
    assert.are.same({ 40960, false }, { p.run.seq_length, p.seq_len_stated })
    assert.are.equal(1, count(ws, "dataset.data_transform.max_seq_len: no training sequence length in the config; "
      .. "costing the model context limit of 40960."))
  end)

  it("falls back to config_overrides.seq_length, then 4096, for a model stating no limit", function()
    local p, ws = read((TINY:gsub("arch: llama2", "arch: llama2\n    seq_length: 8192")))
    assert.are.equal(8192, p.run.seq_length)
    assert.are.equal(1, count(ws, "costing the model context limit of 8192"))
    assert.are.equal(4096, read(TINY).run.seq_length)
  end)
end)

describe("the MoE run keys", function()
  it("are no grouped GEMM and a capacity factor of 1 for a dense model", function()
    local r = read(QWEN).run
    assert.are.same({ false, 1 }, { r.grouped_gemm, r.capacity_factor })
  end)

  it("read config_overrides.capacity_factor, else cap_fact, at least 1; use_gmm, else gmm, default true", function()
    local base = MOE .. "  config_overrides:\n"
    assert.are.equal(1.5, read(base .. "    capacity_factor: 1.5\n    cap_fact: 2\n").run.capacity_factor)
    assert.are.equal(2, read(base .. "    cap_fact: 2\n").run.capacity_factor)
    assert.are.equal(1, read(base .. "    capacity_factor: 0.5\n").run.capacity_factor)
    assert.are.same({ true, 1 }, { read(MOE).run.grouped_gemm, read(MOE).run.capacity_factor })
    assert.is_false(read(base .. "    use_gmm: false\n    gmm: true\n").run.grouped_gemm)
    assert.is_false(read(base .. "    gmm: false\n").run.grouped_gemm)
  end)
end)

describe("the pipeline offset", function()
  local PP4 = "accelerator:\n  pp_size: 4\ncontext:\n  device_num: 4\n"

  it("is balanced where unstated: the first (layers mod pp) stages one more (36 mod 4 = 0; 61 mod 4 = 1)", function()
    assert.are.same({ 0, 0, 0, 0 }, read(QWEN .. PP4).run.offset)
    assert.are.same({ 1, 0, 0, 0 }, read("model:\n  pretrained_model_name_or_path: deepseek-ai/DeepSeek-V3\n"
      .. PP4).run.offset)
  end)

  it("is left to the C core's balancing under VPP", function()
    local p = read(QWEN .. "accelerator:\n  pp_size: 4\n  pp_interleave_num: 2\ncontext:\n  device_num: 4\n")
    assert.is_nil(p.run.offset)
  end)

  it("is config_overrides.offset as stated, else model.offset; 0 stays 0, k is k on every stage", function()
    assert.are.same({ 1, 0, 0, -1 }, read(QWEN .. "  config_overrides:\n    offset: [1, 0, 0, -1]\n" .. PP4).run.offset)
    assert.are.same({ 1, 0, 0, -1 }, read(QWEN .. "  offset: [1, 0, 0, -1]\n" .. PP4).run.offset)
    assert.are.equal(0, read(QWEN .. "  offset: 0\n" .. PP4).run.offset)
    -- Qwen3-8B's 36 layers over 4 stages x 2 chunks: 36 // 4 // 2 = 4 a chunk, 32
    -- placed, so an offset of 1 on every stage places the 4 left over
    local vpp2 = "accelerator:\n  pp_size: 4\n  pp_interleave_num: 2\ncontext:\n  device_num: 4\n"
    assert.are.same({ 1, 1, 1, 1 }, read(QWEN .. "  offset: 1\n" .. vpp2).run.offset)
  end)

  it("refuses an offset that does not place the model's layers, with the counts", function()
    -- 36 layers over 4 stages: 9 each, nothing left over, so [2, 2, 2, 2] places 8 too many
    assert.are.equal("t.yaml:3:11: model.offset: places 44 layers (4 stages x 1 chunks of 9, plus offsets adding "
      .. "to 8), but the model has 36; offsets adding to 0", refused(QWEN .. "  offset: 2\n" .. PP4))
  end)

  it("refuses a list whose length is not the pipeline degree", function()
    assert.are.equal("t.yaml:4:13: model.config_overrides.offset: lists 2 stages; the run has 4; a whole number, a "
      .. "list of one per stage (pp = 4), or vpp = 1 such lists",
      refused(QWEN .. "  config_overrides:\n    offset: [1, -1]\n" .. PP4))
  end)
end)

describe("plan_overrides", function()
  local PLAN = [[
plan_overrides:
  - match: ["*.input_layernorm", model.norm]
    module_type: transformers.models.qwen3.modeling_qwen3.Qwen3RMSNorm
    replace_module:
      _target_: my.replace_rms_norm
  - match: "*.self_attn"
    when: cp
    inner_wrapper: sdpa_hf_ulysses
  - match: "*.mlp"
    when: ep
    module_type: x.Mlp
    replace_module:
      _target_: my.replace_mlp
]]

  it("notes the entries that replace a module on every run (replace_module, no when)", function()
    local p = read(QWEN .. PLAN)
    assert.are.same({ { index = 0, match = { "*.input_layernorm", "model.norm" },
                        module_type = "transformers.models.qwen3.modeling_qwen3.Qwen3RMSNorm",
                        target = "my.replace_rms_norm" } }, p.replacements)
    assert.are.same({}, read(QWEN).replacements)
  end)

  it("refuses replace_module without module_type", function()
    assert.are.equal("t.yaml:5:21: plan_overrides[0].replace_module: states replace_module without module_type; the "
      .. "class it replaces, as module_type: transformers.models....",
      refused(QWEN .. "plan_overrides:\n  - match: x\n    replace_module: {_target_: y}\n"))
  end)
end)

describe("command-line overrides", function()
  it("split --section.key=value out of the command line, leaving the rest", function()
    local list, rest = overrides.split({ "t.yaml", "--model.pretrained_model_name_or_path=Qwen/Qwen3-8B", "-d", "8",
                                         "--json", "--accelerator.tp_size=2" })
    assert.are.same({ "t.yaml", "-d", "8", "--json" }, rest)
    assert.are.same({ "model.pretrained_model_name_or_path", "accelerator.tp_size" }, { list[1].path, list[2].path })
  end)

  it("refuse an override without a value or with an empty key", function()
    assert.has_error(function() overrides.split({ "--accelerator.tp_size" }) end)
    local ok, err = pcall(overrides.split, { "--accelerator..tp=2" })
    assert.is_false(ok)
    assert.matches("is no key path", err.message, 1, true)
  end)

  it("set keys before the yaml is read, with the YAML scalar rules, creating sections", function()
    local list = overrides.split({ "--accelerator.tp_size=2", "--activation_checkpoint.mode=off",
                                   "--context.device_num=8", "--model.config_overrides.offset=[1, -1]",
                                   "--accelerator.pp_size=2" })
    local p = read(QWEN .. "activation_checkpoint:\n  mode: full\n", { overrides = list })
    assert.are.same({ 2, 2, 2, "off" }, { p.run.tp, p.run.pp, p.run.dp, p.stated_ac_mode })
    assert.are.same({ 1, -1 }, p.run.offset)
  end)

  it("take a table of paths and values too", function()
    local p = read(QWEN, { overrides = { ["fsdp_config.dp_shard_size"] = 4 } })
    assert.are.equal(4, p.run.dp)
  end)

  it("can switch the schema and the model, as the trainer's own command line does", function()
    local p = read(TINY, { overrides = overrides.split({ "--model.pretrained_model_name_or_path=Qwen/Qwen3-8B" }) })
    assert.are.equal("automodels", p.schema)
    assert.are.equal("Qwen/Qwen3-8B", p.source.id)
  end)

  it("are named in messages as the command line, not a line of the file", function()
    local list = overrides.split({ "--accelerator.tp_size=two" })
    assert.are.equal("command line --accelerator.tp_size=two: accelerator.tp_size: must be a whole number, got "
      .. "'two'; a positive whole number", refused(QWEN .. "accelerator:\n  tp_size: 2\n", { overrides = list }))
  end)

  it("refuse a path through a value that is no mapping", function()
    local list = overrides.split({ "--model.pretrained_model_name_or_path.x=1" })
    assert.matches("model.pretrained_model_name_or_path is not a mapping", refused(QWEN, { overrides = list }), 1, true)
  end)
end)

describe("warnings", function()
  it("are kept once however often a condition is met, and printed as `warning: path: message`", function()
    local lines = {}
    local stream = { write = function(_, ...) lines[#lines + 1] = table.concat({ ... }) end }
    local w = warnings.new { stream = stream }
    local doc = nd.yaml.decode(QWEN, "t.yaml")
    train_yaml.parse(doc, { warnings = w })
    train_yaml.parse(nd.yaml.decode(QWEN, "t.yaml"), { warnings = w })
    assert.are.equal(#w:all(), #lines)
    assert.are.equal(1, count(w:all(), "the config states no optimizer"))
    assert.are.equal(1, count(lines, "warning: optimizer._target_: the config states no optimizer: it is priced as "
      .. "adamw, two states a parameter\n"))
  end)
end)
