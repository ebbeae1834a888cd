-- The real HyperParallel recipes (spec/fixtures/upstream/, copies of
-- /work/shared/examples-upstream/): each parses, resolves its model and is
-- estimated without error, and what ndlua reads is checked against the yaml
-- text by hand; every expected value names the line of the file it comes from
-- ("L24" is line 24 of that file).
--
-- Six name checkpoints the catalog does not hold. ndlua picks no stand-in
-- (none of the files' own text says which config would be right); it refuses
-- them, suggesting the closest catalog ids, and these tests point them at one
-- with the override the recipes' comments document for local or offline
-- checkpoints (--model.pretrained_model_name_or_path=..., or for the legacy
-- schema --model.config_path=..., which keeps the file's schema: only the
-- pretrained key marks a file as AutoModels).
local nd = require "nd"
local train_yaml = require "nd.train_yaml"
local overrides = require "nd.overrides"
local layer_stack = require "nd.layer_stack"
local warnings = require "nd.warnings"

local DIR = "spec/fixtures/upstream/"

local function load(name, ...)
  local w = warnings.quiet()
  local list = overrides.split({ ... })
  local parsed = train_yaml.load(DIR .. name, { warnings = w, overrides = list })
  return parsed, w:all()
end

local function refused(name, ...)
  local ok, err = pcall(load, name, ...)
  assert.is_false(ok, "expected a refusal")
  assert.is_true(type(err) == "table" and err.bad_input == true, "not a bad-input error: " .. tostring(err))
  return err.message
end

-- The estimate of a parsed file, and the layers each stage holds.
local function estimate(parsed)
  local model, run = train_yaml.build(parsed)
  local est = nd.estimate(model, run)
  local layers = {}
  for i, st in ipairs(nd.layout(model, run)) do
    layers[i] = 0
    for _, c in ipairs(st.chunks) do layers[i] = layers[i] + c.count end
  end
  return est, layers, model
end

local count = dofile("spec/support/train_yaml_text.lua").count

local function degrees(r)
  return { dp = r.dp, tp = r.tp, pp = r.pp, cp = r.cp, ep = r.ep, etp = r.etp, vpp = r.vpp }
end

local function batch(r)
  return { r.micro_batch_size, r.micro_batch_num, r.global_batch_size }
end

describe("hyperparallel-models-qwen3_moe-recipe-train.yaml", function()
  local F = "hyperparallel-models-qwen3_moe-recipe-train.yaml"

  it("reads as the recipe states", function()
    local p, ws = load(F)
    local r = p.run
    assert.are.equal("automodels", p.schema)
    assert.are.equal("Qwen/Qwen3-30B-A3B", p.source.id) -- L15
    -- L34-37 tp/cp/ep/pp 1; L42 dp_shard_size 8, no device_num: dp 8; MoE with no etp: 1
    assert.are.same({ dp = 8, tp = 1, pp = 1, cp = 1, ep = 1, etp = 1, vpp = 1 }, degrees(r))
    assert.is_false(r.sequence_parallel) -- L38
    assert.is_false(r.loss_parallel) -- L39
    assert.is_true(r.reshard_params) -- L44-45
    assert.are.same({ true, 8, 1 }, { r.optimizer_parallel, r.optimizer_shard, r.expert_shard }) -- L42; no edp
    assert.are.same({ 1, 1, 8 }, batch(r)) -- L25 micro 1, L24 global 8 = 1 x 8 x 1
    assert.is_true(r.grad_clip) -- L29 max_grad_norm 1.0
    assert.are.equal(4096, r.seq_length) -- L116
    assert.is_true(p.seq_len_stated)
    assert.are.same({ true, false, "full" }, { r.full_recompute, r.selective_recompute, p.stated_ac_mode }) -- L89
    assert.are.same({ 2, 2, 2 }, { r.param_bytes, r.grad_bytes, r.compute_bytes }) -- L17 bfloat16
    assert.are.same({ "muon", 1, 2 }, { r.optimizer, r.optimizer_states, r.optimizer_state_bytes }) -- L147
    assert.are.equal(64 * 2 ^ 30, r.device_memory) -- no context: 64GB
    -- L51-68: three replace_module entries without `when`; the `when: cp` / `when: ep` ones are not noted
    assert.are.same({ "transformers.models.qwen3_moe.modeling_qwen3_moe.Qwen3MoeRMSNorm",
                      "transformers.models.qwen3_moe.modeling_qwen3_moe.Qwen3MoeAttention",
                      "transformers.models.qwen3_moe.modeling_qwen3_moe.Qwen3MoeExperts" },
      { p.replacements[1].module_type, p.replacements[2].module_type, p.replacements[3].module_type })
    assert.are.equal(3, #p.replacements)
    assert.are.same({ "context.device_num: AutoModels config carries no context.device_num; assuming "
      .. "dp_replicate=1 (d = dp_shard_size = 8). Pass -d/--devices for HSDP runs." }, ws)
  end)

  it("is estimated: FSDP-8 holds 30,532,122,624 parameters x 2 bytes / 8 (shared/models/PARAMS.md)", function()
    local est = estimate(load(F))
    assert.are.equal(1, #est.stages)
    assert.are.equal(30532122624 * 2 // 8, est.stages[1].params)
    -- FSDP keeps each gradient in its parameter's dtype, sharded as its parameter
    assert.are.equal(30532122624 * 2 // 8, est.stages[1].grads)
  end)

  it("takes a device count from the command line", function()
    -- 16 devices: dp 16, and L24's global batch of 8 is no multiple of 1 x 16
    assert.matches("training.global_batch_size: 8 is not a multiple of micro_batch_size x dp = 1 x 16 = 16",
                   refused(F, "--context.device_num=16"), 1, true)
    local p, ws = load(F, "--context.device_num=16", "--training.global_batch_size=32")
    assert.are.same({ 16, 2 }, { p.run.dp, p.run.micro_batch_num })
    assert.are.equal(0, #ws)
  end)
end)

describe("hyperparallel-models-qwen3_5_moe-recipe-train.yaml", function()
  local F = "hyperparallel-models-qwen3_5_moe-recipe-train.yaml"

  it("names Qwen/Qwen3.5-35B-A3B-Base (L19), which the catalog lacks: refused, the nearest id first", function()
    local m = refused(F)
    assert.matches("^spec/fixtures/upstream/" .. F:gsub("%-", "%%-") .. ":19:34: model.pretrained_model_name_or_path: "
      .. "cannot find the config.json of 'Qwen/Qwen3.5%-35B%-A3B%-Base'", m)
    assert.matches("closest catalog ids: Qwen/Qwen3.5-35B-A3B,", m, 1, true)
  end)

  it("reads as the recipe states, pointed at the catalog's Qwen3.5-35B-A3B as its L14 shows", function()
    local p, ws = load(F, "--model.pretrained_model_name_or_path=Qwen/Qwen3.5-35B-A3B")
    local r = p.run
    -- L45 ep 8, L53 dp_shard_size 64 (no device_num: dp 64), L54 edp_shard_size 8
    assert.are.same({ dp = 64, tp = 1, pp = 1, cp = 1, ep = 8, etp = 1, vpp = 1 }, degrees(r))
    assert.are.same({ true, 64, 8 }, { r.optimizer_parallel, r.optimizer_shard, r.expert_shard })
    assert.are.same({ 1, 2, 128 }, batch(r)) -- L31 micro 1, L30 global 128 = 1 x 64 x 2
    assert.are.equal(4096, r.seq_length) -- L120
    assert.are.equal("full", p.stated_ac_mode) -- L95
    assert.are.same({ 2, 2 }, { r.param_bytes, r.compute_bytes }) -- L21 bfloat16
    assert.are.same({ "muon", 1 }, { r.optimizer, r.optimizer_states }) -- L151
    -- L9-10: the causal LM (L18) trains the text tower; the checkpoint's vision and MTP weights are ignored
    assert.is_nil(p.model.vision)
    assert.are.equal(1, p.mtp_unpriced)
    assert.are.equal(40, p.model.num_hidden_layers)
    assert.are.equal(1, count(ws, "the model states 1 MTP layer"))
    assert.are.equal(0, #p.replacements) -- every entry of L63-89 has a `when`
    estimate(p)
  end)
end)

describe("hyperparallel-models-deepseek_v32-recipe-train.yaml", function()
  local F = "hyperparallel-models-deepseek_v32-recipe-train.yaml"

  it("names deepseek-ai/DeepSeek-V3.2 (L18), which the catalog lacks: refused, DeepSeek-V3 suggested", function()
    assert.matches("closest catalog ids: deepseek-ai/DeepSeek-V3,", refused(F), 1, true)
  end)

  it("reads as the recipe states, pointed at DeepSeek-V3 as its L12-14 show", function()
    local p, ws = load(F, "--model.pretrained_model_name_or_path=deepseek-ai/DeepSeek-V3")
    local r = p.run
    assert.are.equal("automodels", p.schema) -- L23 training
    -- L4-5: no accelerator or fsdp_config section, every degree 1; MoE with no etp: 1
    assert.are.same({ dp = 1, tp = 1, pp = 1, cp = 1, ep = 1, etp = 1, vpp = 1 }, degrees(r))
    assert.is_false(r.optimizer_parallel)
    assert.are.same({ 1, 1, 1 }, batch(r)) -- L26-27
    assert.are.equal(4096, r.seq_length) -- L90
    assert.are.equal("full", p.stated_ac_mode) -- L65
    assert.are.same({ 2, 2 }, { r.param_bytes, r.compute_bytes }) -- L19
    assert.is_false(r.flash_attention) -- L20 attn_implementation: eager
    assert.are.same({ "adamw", 2 }, { r.optimizer, r.optimizer_states }) -- L119
    assert.are.equal(1, count(ws, "the model states 1 MTP layer")) -- num_nextn_predict_layers 1
    assert.are.equal(3, #p.replacements) -- L36-53
    -- one device holds every parameter in bfloat16 (2 bytes), and does not fit
    local est, _, model = estimate(p)
    local total = model:params().total
    assert.are.equal(total * 2, est.stages[1].params)
    assert.is_false(est.fits)
    -- PARAMS.md counts 671,026,419,200 without MTP; nd.core.model counts 14,848 fewer (0.000002 %):
    -- the gate's e_score_correction_bias, 256 experts x 58 MoE layers, which it does not count
    assert.is_true(math.abs(total - 671026419200) <= 14848, tostring(total))
  end)
end)

describe("examples-qwen3_8-train.yaml", function()
  local F = "examples-qwen3_8-train.yaml"

  it("names Qwen/Qwen3.8-27B (L8), which the catalog lacks: refused", function()
    assert.matches("cannot find the config.json of 'Qwen/Qwen3.8-27B'", refused(F), 1, true)
  end)

  it("reads as the recipe states, pointed at Qwen3-8B (its directory's name, examples/qwen3_8)", function()
    local p = load(F, "--model.pretrained_model_name_or_path=Qwen/Qwen3-8B")
    local r = p.run
    assert.are.same({ dp = 8, tp = 1, pp = 1, cp = 1, ep = 1, etp = 0, vpp = 1 }, degrees(r)) -- L27-30, L35
    assert.is_false(r.reshard_params) -- L38 reshard_after_backward: false
    assert.is_true(r.flash_attention) -- L11 attn_implementation: sdpa
    assert.are.same({ 1, 1, 8 }, batch(r)) -- L17-18
    assert.are.equal(4096, r.seq_length) -- L80
    assert.are.equal("full", p.stated_ac_mode) -- L55
    assert.are.same({ "adamw", 2 }, { r.optimizer, r.optimizer_states }) -- L109
    assert.are.equal(0, #p.replacements) -- L45-49 is `when: cp`
    -- FSDP-8 of Qwen3-8B: 8,190,735,360 parameters (PARAMS.md) x 2 bytes / 8
    assert.are.equal(8190735360 * 2 // 8, estimate(p).stages[1].params)
  end)
end)

describe("examples-qwen3_5_9b_base-train.yaml", function()
  local F = "examples-qwen3_5_9b_base-train.yaml"

  it("names the placeholder /path/to/Qwen3.5-9B (L14): refused, Qwen/Qwen3.5-9B suggested first", function()
    assert.matches("closest catalog ids: Qwen/Qwen3.5-9B,", refused(F), 1, true)
  end)

  it("reads as the recipe states", function()
    local p = load(F, "--model.pretrained_model_name_or_path=Qwen/Qwen3.5-9B")
    local r = p.run
    assert.are.same({ dp = 4, tp = 1, pp = 1, cp = 1, ep = 1, etp = 0, vpp = 1 }, degrees(r)) -- L30-33, L38
    assert.are.same({ 1, 2, 8 }, batch(r)) -- L22 micro 1, L21 global 8 = 1 x 4 x 2
    assert.are.equal(1024, r.seq_length) -- L55
    -- L46 `mode: off`, which YAML reads as false: off
    assert.are.same({ false, false, "off" }, { r.full_recompute, r.selective_recompute, p.stated_ac_mode })
    assert.is_true(r.reshard_params) -- L39; no reshard_after_backward
    assert.are.same({ "adamw", 2 }, { r.optimizer, r.optimizer_states }) -- L79
    assert.are.same({ 2, 2 }, { r.param_bytes, r.compute_bytes }) -- L15
    assert.is_false(r.flash_attention) -- L16 attn_implementation: eager
    -- L13 HyperAutoModelForImageTextToText builds the tower (27 layers in the checkpoint)
    assert.are.equal(27, p.model.vision.num_hidden_layers)
    estimate(p)
  end)
end)

describe("examples-training_demo-train_qwen3_5_moe.ttachon.yaml", function()
  local F = "examples-training_demo-train_qwen3_5_moe.ttachon.yaml"

  it("names the local directory /home/tt/models/Qwen3.5-35B-A3B-Base (L17): refused", function()
    assert.matches("model.config_path: cannot find the config.json", refused(F), 1, true)
  end)

  it("reads as the recipe states", function()
    local p = load(F, "--model.config_path=Qwen/Qwen3.5-35B-A3B")
    local r = p.run
    assert.are.equal("automodels", p.schema) -- L31 training
    assert.are.equal(8, p.model.num_hidden_layers) -- L19
    assert.are.equal(256, p.model.num_experts) -- L22 null keeps all 256
    assert.is_nil(p.model.vision) -- L16: a recipe's builder, not a vision class
    -- L47-52 tp 1, cp 1, ep 8, pp 1; L57 dp_shard_size 16; L58 edp_shard_size 2
    assert.are.same({ dp = 16, tp = 1, pp = 1, cp = 1, ep = 8, etp = 1, vpp = 1 }, degrees(r))
    assert.are.equal(2, r.expert_shard)
    assert.are.same({ 1, 1, 16 }, batch(r)) -- L35-36
    assert.are.equal(128, r.seq_length) -- L113 data_config.seq_length
    assert.are.equal("off", p.stated_ac_mode) -- L97 "off"
    assert.are.same({ "muon", 1 }, { r.optimizer, r.optimizer_states }) -- L144
    -- L20: "7.75B cropped"
    local _, _, model = estimate(p)
    local total = model:params().total
    assert.is_true(total >= 7.745e9 and total < 7.755e9, tostring(total))
  end)
end)

describe("examples-qwen3_5_35b_a3b_base-train.yaml (legacy)", function()
  local F = "examples-qwen3_5_35b_a3b_base-train.yaml"

  it("names no checkpoint ndlua reads (model.weights_path, L4, is the legacy trainer's): refused", function()
    local m = refused(F)
    assert.matches(":3:3: model: names no checkpoint", m, 1, true) -- the section L3-7
    assert.matches("model.weights_path '/path/to/Qwen3.5-35B-A3B-Base' is the legacy trainer's", m, 1, true)
  end)

  it("reads as the file states, pointed at the catalog by model.config_path (still legacy)", function()
    local p, ws = load(F, "--model.config_path=Qwen/Qwen3.5-35B-A3B")
    local r = p.run
    assert.are.equal("legacy", p.schema)
    assert.are.equal(1, p.model.num_hidden_layers) -- L7
    assert.are.equal(1, p.model.mtp_depth) -- the legacy schema keeps the checkpoint's MTP layer
    assert.are.equal(0, p.mtp_unpriced)
    assert.are.same({ dp = 4, tp = 1, pp = 1, cp = 1, ep = 1, etp = 1, vpp = 1 }, degrees(r)) -- L27 dp_shard 4
    assert.are.same({ true, 4 }, { r.optimizer_parallel, r.optimizer_shard }) -- legacy default, over dp
    assert.are.same({ 1, 1, 4 }, batch(r)) -- L20-21
    assert.are.equal(64, r.seq_length) -- L12 data.max_seq_len
    assert.are.equal("off", p.stated_ac_mode) -- L47 none
    assert.are.same({ "adamw", 2 }, { r.optimizer, r.optimizer_states }) -- L31
    assert.is_true(r.grad_clip) -- L36 1.0e9 (text to PyYAML, a number to float())
    -- L42 train.mixed_precision.param_dtype is no key the seed reads; the checkpoint's bfloat16 is
    assert.are.same({ 2, 2 }, { r.param_bytes, r.compute_bytes })
    assert.are.equal(0, #ws)
    estimate(p)
  end)
end)

describe("examples-qwen3_vl_30b_a3b_instruct-train.yaml (legacy)", function()
  local F = "examples-qwen3_vl_30b_a3b_instruct-train.yaml"

  it("names no checkpoint ndlua reads, and states only the layer count: refused", function()
    local m = refused(F)
    assert.matches("does not state hidden_size, num_attention_heads, vocab_size", m, 1, true)
  end)

  it("reads as the file states, pointed at the catalog's Qwen3-VL-30B-A3B-Instruct", function()
    local p = load(F, "--model.config_path=Qwen/Qwen3-VL-30B-A3B-Instruct")
    local r = p.run
    assert.are.equal(4, p.model.num_hidden_layers) -- L10-11 text_config.num_hidden_layers
    assert.are.equal(27, p.model.vision.num_hidden_layers) -- L9 vl: true, the checkpoint's tower
    assert.is_true(r.freeze_vision) -- L6-7 freeze_modules: [model.visual]
    assert.are.same({ dp = 4, tp = 1, pp = 1, cp = 1, ep = 1, etp = 1, vpp = 1 }, degrees(r)) -- L30
    assert.are.same({ 1, 1, 4 }, batch(r)) -- L23-24
    assert.are.equal(64, r.seq_length) -- L15
    assert.are.equal("full", p.stated_ac_mode) -- L50
    assert.are.same({ "adamw", 2 }, { r.optimizer, r.optimizer_states }) -- L34
    estimate(p)
  end)
end)

describe("sapp_nd-hyper_qwen3_72b.yaml (legacy)", function()
  local F = "sapp_nd-hyper_qwen3_72b.yaml"

  it("reads as the file states", function()
    local p, ws = load(F)
    local r = p.run
    assert.are.equal("legacy", p.schema)
    assert.are.equal("overrides", p.source.kind) -- L21-32
    assert.are.same({ "qwen3_5", 80, 8192, 29696 }, { p.model.name, p.model.num_hidden_layers, p.model.hidden_size,
                                                     p.model.intermediate_size }) -- L15, L25, L23, L24
    -- L54 dp_replicate 32 x L53 dp_shard 1; L55 tp 4; L56 pp 8
    assert.are.same({ dp = 32, tp = 4, pp = 8, cp = 1, ep = 1, etp = 0, vpp = 1 }, degrees(r))
    assert.is_true(r.sequence_parallel) -- L57
    assert.are.same({ true, 8 }, { r.optimizer_parallel, r.optimizer_shard }) -- L58-59
    assert.are.same({ 1, 144, 4608 }, batch(r)) -- L46, L47, L45 = 1 x 32 x 144
    assert.are.equal(4096, r.seq_length) -- L37
    -- L31 full_rec per stage, L32 sel_rec false: no single trained mode
    assert.are.same({ 8, 6, 6, 6, 4, 4, 2, 2 }, r.full_recompute)
    assert.is_false(r.selective_recompute)
    assert.is_nil(p.stated_ac_mode)
    assert.is_false(r.recompute_slice_activation) -- L79
    assert.are.equal(0, r.offset) -- L29
    -- L18 param_init_type float32, L19 compute_dtype bfloat16, L20 softmax float32
    assert.are.same({ 4, 4, 2, 4, 4 }, { r.param_bytes, r.grad_bytes, r.compute_bytes, r.softmax_bytes,
                                         r.optimizer_state_bytes })
    assert.are.same({ "adamw", 2 }, { r.optimizer, r.optimizer_states }) -- L62
    assert.is_true(r.grad_clip) -- L67
    assert.are.equal(54 * 2 ^ 30, r.device_memory) -- L94
    assert.are.same({}, ws)
    -- 80 layers over 8 stages, offset 0: 10 each
    local est, layers = estimate(p)
    assert.are.same({ 10, 10, 10, 10, 10, 10, 10, 10 }, layers)
    assert.are.equal(8, #est.stages)
  end)
end)

describe("sapp_nd-hyper_deepseek_v3.yaml (legacy)", function()
  local F = "sapp_nd-hyper_deepseek_v3.yaml"

  it("reads as the file states", function()
    local p, ws = load(F)
    local r = p.run
    assert.are.equal("legacy", p.schema)
    assert.are.same({ "deepseek", "deepseek", 61, 1, 256 }, { p.model.name, p.model.arch, p.model.num_hidden_layers,
                                                             p.model.mtp_depth, p.model.num_experts }) -- L14, L24, L39, L34
    assert.are.equal("3×dense, 58×moe, 1×moe(mtp)", layer_stack.format(p.model.layers)) -- L38 first_k_dense 3
    -- L63 dp_replicate 16, L64 tp 4, L65 pp 16, L66 ep 8; MoE with no etp: 1
    assert.are.same({ dp = 16, tp = 4, pp = 16, cp = 1, ep = 8, etp = 1, vpp = 1 }, degrees(r))
    assert.is_true(r.sequence_parallel) -- L67
    assert.are.same({ true, 4 }, { r.optimizer_parallel, r.optimizer_shard }) -- L68-69
    assert.are.same({ 1, 32, 512 }, batch(r)) -- L55, L56, L54 = 1 x 16 x 32
    assert.are.equal(4096, r.seq_length) -- L46
    assert.are.equal("full", p.stated_ac_mode) -- L89
    assert.is_true(r.recompute_slice_activation) -- L90
    assert.are.same({ 1.5, true }, { r.capacity_factor, r.grouped_gemm }) -- L40; gmm unstated: true
    assert.are.same({ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1 }, r.offset) -- L41
    assert.is_true(r.mtp_in_offset)
    assert.are.same({ 4, 2 }, { r.param_bytes, r.compute_bytes }) -- L17, L18
    assert.are.same({ "adamw", 2 }, { r.optimizer, r.optimizer_states }) -- L72
    assert.is_true(r.grad_clip) -- L78
    assert.are.equal(58 * 2 ^ 30, r.device_memory) -- L105
    assert.are.same({}, ws)
    -- 61 + 1 MTP = 62 layers over 16 stages: 62 // 16 = 3, plus the offset: fifteen 4s and a 2
    local _, layers = estimate(p)
    assert.are.same({ 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2 }, layers)
  end)
end)
