-- The search config (lua/nd/search/config.lua): reading each section with
-- its types, the validator's errors and warnings by field path with their
-- line (search-ranking-cli §b.6), and the message that ends a search.
local nd = require "nd"
local search_config = require "nd.search.config"
local warnings = require "nd.warnings"
local tiny = dofile("spec/support/tiny.lua")

local function read(text)
  return search_config.read(nd.yaml.decode(text, "s.yaml"), "s.yaml")
end

-- The tiny dense model: hidden 64, 2 layers; a MoE one of 8 experts.
local DENSE = tiny.dense():spec()
local MOE = tiny.dense { num_experts = 8, num_experts_per_tok = 2, moe_intermediate_size = 128 }:spec()

local function validate(text, o)
  local cfg = read(text)
  local opts = { spec = DENSE, devices = 8, global_batch = 16, seq_length = 128 }
  for k, v in pairs(o or {}) do opts[k] = v end
  search_config.validate(cfg, opts)
  return cfg.problems.errors, cfg.problems.warnings
end

describe("reading a search config", function()
  it("reads degrees: a number fixes, a list gives candidates (sorted), auto searches", function()
    local cfg = read([[
train_yaml: t.yaml
parallelism:
  dp: auto
  tp: [4, 1, 2]
  pp: 2
  etp: 1
constraint: {global_batch_size: 64, memory_limit_gb: 58}
]])
    assert.are.same({}, cfg.problems.errors)
    assert.are.equal("t.yaml", cfg.train_yaml)
    assert.are.same({ kind = "auto" }, cfg.dims.dp)
    assert.are.same({ kind = "list", values = { 1, 2, 4 } }, cfg.dims.tp)
    assert.are.same({ kind = "fixed", value = 2 }, cfg.dims.pp)
    assert.are.equal(1, cfg.etp)
    assert.are.equal(64, cfg.constraint.global_batch_size)
    assert.are.equal(58, cfg.constraint.memory_limit_gb)
  end)

  it("reads recompute: one mode fixes it, auto searches all three or recompute_modes", function()
    assert.are.same({ modes = { "full" }, fixed = true }, read("recompute: full").recompute)
    -- YAML 1.1: an unquoted off is false, which is off
    assert.are.same({ modes = { "off" }, fixed = true }, read("recompute: off").recompute)
    assert.are.same({ modes = { "off", "selective", "full" }, fixed = false }, read("recompute: auto").recompute)
    assert.are.same({ modes = { "full", "off" }, fixed = false },
                    read("recompute: auto\nrecompute_modes: [full, none]").recompute)
    assert.are.same({ fixed = false }, read("recompute: none").recompute)
    assert.are.same({ modes = { "selective", "full" }, fixed = false },
                    read("parallelism:\n  recompute: [selective, full]").recompute)
  end)

  it("collects every type error with its path and line", function()
    local cfg = read([[
train_yaml: 3
budget: 1
cluster:
  num_nodes: 0
  device_memory_gb: big
  racks: 2
parallelism:
  tp: [2, x]
  pp: -1
  etp: [1, 2]
  zp: 2
constraint:
  global_batch_size: 1.5
pp_config:
  stage_partition: 4
]])
    -- a value's error points at the value; an unknown key's at the key
    -- itself (the loader notes both places: budget at 2:1, racks at 6:3)
    assert.are.same({
      "s.yaml:1:13: train_yaml: must be a path, got 3",
      "s.yaml:2:1: budget: unknown section; a search config takes train_yaml, model, cluster, parallelism, "
        .. "constraint, recompute, recompute_modes, pp_config, balance, offload",
      "s.yaml:4:14: cluster.num_nodes: must be a whole number above 0, got 0",
      "s.yaml:5:21: cluster.device_memory_gb: must be a number of GB above 0, got 'big'",
      "s.yaml:6:3: cluster.racks: unknown key; cluster takes cards_per_node, device_memory_gb, device_type, "
        .. "inter_node_bandwidth_gbps, intra_node_bandwidth_gbps, num_nodes",
      "s.yaml:13:22: constraint.global_batch_size: must be a whole number (0: not stated), got 1.5",
      "s.yaml:15:20: pp_config.stage_partition: must be a list, got 4",
      "s.yaml:8:7: parallelism.tp: must be a degree (a whole number above 0), a list of candidate degrees, or auto; "
        .. "got [2,\"x\"]",
      "s.yaml:9:7: parallelism.pp: must be a degree (a whole number above 0), a list of candidate degrees, or auto; "
        .. "got -1",
      "s.yaml:10:8: parallelism.etp: must be a degree (a whole number above 0), a list of candidate degrees, or "
        .. "auto; got [1,2]",
      "s.yaml:11:3: parallelism.zp: unknown key; parallelism takes dp, fsdp, tp, pp, cp, ep, etp, micro_batch_num, "
        .. "recompute",
    }, cfg.problems.errors)
  end)

  it("places an unknown key at the key itself when the file is at hand", function()
    local path = os.tmpname() .. ".yaml"
    local f = assert(io.open(path, "w"))
    f:write("paralelism:\n  tp: [1, 2]\ncluster:\n  num_nodes: 1\n  racks:\n    - a\n")
    f:close()
    local cfg = search_config.load(path)
    os.remove(path)
    assert.matches("^" .. path:gsub("%p", "%%%0") .. ":1:1: paralelism: unknown section", cfg.problems.errors[1])
    assert.matches(":5:3: cluster.racks: unknown key", cfg.problems.errors[2], 1, true)
  end)

  it("refuses contradicting recompute statements", function()
    local function errors_of(text) return read(text).problems.errors end
    assert.matches("recompute_modes: is read with recompute: auto only (recompute is full)",
                   errors_of("recompute: full\nrecompute_modes: [off]")[1], 1, true)
    assert.matches("parallelism.recompute: searches recompute, which recompute: full fixes; keep one",
                   errors_of("recompute: full\nparallelism:\n  recompute: auto")[1], 1, true)
    assert.matches("per_layer: ndlua prices one recompute mode for every layer",
                   errors_of("recompute: per_layer")[1], 1, true)
    assert.matches("'half' is no recompute mode", errors_of("recompute: auto\nrecompute_modes: [half]")[1], 1, true)
  end)
end)

describe("validating a search config against the model and the devices", function()
  it("accepts a consistent config", function()
    local errs, warns = validate("parallelism: {dp: 2, tp: 2, pp: 2, fsdp: 2}")
    assert.are.same({}, errs)
    assert.are.same({}, warns)
  end)

  it("refuses fixed degrees whose product exceeds the devices", function()
    local errs = validate("parallelism: {dp: 4, tp: 2, pp: 2}")
    assert.are.same({ "s.yaml:1:14: parallelism: the product of the fixed degrees (dp 4 x tp 2 x pp 2) = 16 "
      .. "exceeds the 8 devices" }, errs)
  end)

  it("refuses a TP that does not divide the hidden size, a CP the sequence, an EP the experts", function()
    -- hidden 64: tp 3 does not divide it (3 is checked among the candidates); sequence 128: cp 3
    local errs = validate("parallelism: {tp: [2, 3], cp: 3}")
    assert.are.same({ "s.yaml:1:19: parallelism.tp: tp 3 does not divide hidden_size 64",
                      "s.yaml:1:31: parallelism.cp: cp 3 does not divide the sequence of 128 tokens" }, errs)
    errs = validate("parallelism: {ep: [2, 3]}", { spec = MOE })
    assert.are.same({ "s.yaml:1:19: parallelism.ep: ep 3 does not divide the model's 8 experts" }, errs)
  end)

  it("refuses an FSDP shard that does not divide dp", function()
    local errs = validate("parallelism: {dp: 4, fsdp: 3}")
    assert.matches("parallelism.fsdp: FSDP shards over 3 ranks, which do not divide dp 4", errs[1], 1, true)
  end)

  it("refuses a batch the micro-batches or the effective DP do not divide", function()
    local errs = validate("parallelism: {dp: 3, micro_batch_num: [2, 5]}")
    assert.are.same({ "s.yaml:1:39: parallelism.micro_batch_num: global batch 16 is no multiple of micro_batch_num 5",
                      "s.yaml:1:19: parallelism.dp: global batch 16 is no multiple of the effective DP 3" }, errs)
  end)

  it("refuses a pipeline deeper than the layers, in parallelism and in pp_config", function()
    local errs = validate("parallelism: {pp: [1, 4]}\npp_config: {pp_degree: 4}")
    assert.are.same({ "s.yaml:1:19: parallelism.pp: pp 4 exceeds the model's 2 layers",
                      "s.yaml:2:24: pp_config.pp_degree: 4 exceeds the model's 2 layers" }, errs)
  end)

  it("refuses a fixed pp_config value outside parallelism's candidates", function()
    local errs = validate("parallelism: {pp: [1, 2], micro_batch_num: [4, 8]}\npp_config: {pp_degree: 2, "
      .. "micro_batch_num: 16}")
    assert.are.same({ "s.yaml:2:44: pp_config.micro_batch_num: 16 is not among parallelism.micro_batch_num's "
      .. "candidates" }, errs)
  end)

  it("checks the stage partition, the offset range and the recompute layers against the layers", function()
    local errs, warns = validate([[
pp_config:
  pp_degree: 2
  stage_partition: [1, 1, 1]
  layer_offset_range: [2, 1]
  layer_recompute_layers: [0, 5]
]])
    assert.are.same({
      "s.yaml:3:20: pp_config.stage_partition: lists 3 stages; pp_degree is 2 stages",
      "s.yaml:4:23: pp_config.layer_offset_range: must be [min, max] with min <= max",
      "s.yaml:5:27: pp_config.layer_recompute_layers: 5 is no layer index (0 to 1)",
    }, errs)
    assert.are.equal(3, #warns)
    errs = validate("pp_config: {stage_partition: [1, 2]}")
    assert.matches("places 3 layers; the model has 2", errs[1], 1, true)
  end)

  it("warns of EP on a dense model and of a limit above the device's memory", function()
    local errs, warns = validate("parallelism: {ep: 2}\nconstraint: {memory_limit_gb: 80}",
                                 { device_memory_gb = 64 })
    assert.are.same({}, errs)
    assert.are.same({ { path = "parallelism.ep", message = "the model is dense: expert parallelism above 1 refuses "
                        .. "every candidate" },
                      { path = "constraint.memory_limit_gb", message = "80 GB is above the device's 64 GB: the "
                        .. "device's memory is the budget" } }, warns)
  end)

  it("ends with every error and their count; the warnings go to the collector", function()
    local cfg = read("parallelism: {tp: 3, cp: 3, ep: 2}")
    search_config.validate(cfg, { spec = DENSE, devices = 16, global_batch = 16, seq_length = 128 })
    local w = warnings.quiet()
    local ok, err = pcall(search_config.finish, cfg, w)
    assert.is_false(ok)
    assert.is_true(err.bad_input)
    assert.are.equal("s.yaml:1:19: parallelism.tp: tp 3 does not divide hidden_size 64\n"
      .. "s.yaml:1:26: parallelism.cp: cp 3 does not divide the sequence of 128 tokens\n"
      .. "Search config validation failed with 2 error(s).", err.message)
    assert.are.same({ "parallelism.ep: the model is dense: expert parallelism above 1 refuses every candidate" },
                    w:all())
  end)
end)

describe("the summary of what a config searches", function()
  it("names each dimension fixed, searched, or inherited from the train.yaml", function()
    local cfg = read("parallelism: {dp: auto, tp: [1, 2], pp: 2, etp: 1}")
    assert.are.equal("dp searched (auto); fsdp fixed all of dp (train.yaml); tp searched over [1, 2]; pp fixed 2 "
      .. "(declared); cp fixed 1 (train.yaml); ep fixed 1 (train.yaml); micro_batch_num searched (derived from the "
      .. "batch); etp fixed 1 (no dimension)",
      search_config.summary(cfg, { fsdp = "all of dp", cp = 1, ep = 1 }))
    assert.matches("cp searched %(not declared%)", search_config.summary(cfg, nil))
  end)
end)

-- The reference planner's model names (its auto_parallel-*.yaml examples
-- write Llama's n_layers/dim/inter_dim/n_heads/n_kv_heads and DeepSeek's
-- moe_inter_dim) and run facts, as the train.yaml the config stands for.
describe("a search config's model under the reference's names", function()
  local model_keys = require "nd.search.config.model_keys"

  it("maps each name to its model field, and run facts to legacy train.yaml keys", function()
    local cfg = read([[
model:
  n_layers: 32
  dim: 4096
  inter_dim: 14336
  n_heads: 32
  n_kv_heads: 8
  moe_inter_dim: 14336
  num_experts: 8
  vocab_size: 32000
  seq_len: 32768
  local_batch_size: 2
  param_init_type: float32
  compute_dtype: bfloat16
  capacity_factor: 1.5
  recompute_slice_activation: true
  optimizer_weight_shard_size: 4
pp_config: {pipeline_schedule: "1F1B"}
parallelism: {etp: 0}
]])
    assert.are.same({}, cfg.problems.errors)
    assert.are.same({ num_hidden_layers = 32, hidden_size = 4096, intermediate_size = 14336,
                      num_attention_heads = 32, num_key_value_heads = 8, moe_intermediate_size = 14336,
                      num_experts = 8, vocab_size = 32000 }, cfg.model_keys.fields)
    assert.are.equal("1f1b", cfg.pp_config.pipeline_schedule)
    assert.is_nil(cfg.etp) -- etp 0: not stated
    assert.are.same({ kind = "fixed", value = 4, source = "model.optimizer_weight_shard_size" }, cfg.dims.fsdp)
    local doc = model_keys.document(cfg.model_keys)
    assert.are.equal(32768, doc.data.max_seq_len)
    assert.are.equal(32768, doc.model.config_overrides.max_position_embeddings)
    assert.are.equal(2, doc.train.micro_batch_size)
    assert.are.equal("float32", doc.model.param_init_type)
    assert.are.equal("bfloat16", doc.model.compute_dtype)
    assert.are.equal(1.5, doc.model.config_overrides.capacity_factor)
    assert.is_true(doc.train.gradient_checkpointing.recompute_slice_activation)
  end)

  it("prices the sequence at max_position_embeddings without seq_len, else 4096 tokens", function()
    local doc, defaulted = model_keys.document(read("model: {hidden_size: 64, max_position_embeddings: 8192}")
      .model_keys)
    assert.are.equal(8192, doc.data.max_seq_len)
    assert.is_false(defaulted)
    doc, defaulted = model_keys.document(read("model: {hidden_size: 64}").model_keys)
    assert.are.equal(4096, doc.data.max_seq_len)
    assert.is_true(defaulted)
  end)

  it("warns of keys it cannot price and lists every wrong value", function()
    local cfg = read([[
model:
  n_layers: 2
  num_hidden_layers: 3
  dim: 1.5
  offset: [1, -1]
  use_flash_attention: false
pp_config: {pipeline_schedule: sideways}
]])
    assert.are.same({
      "s.yaml:3:22: model.num_hidden_layers: states num_hidden_layers, which model.n_layers states as 2; keep one",
      "s.yaml:4:8: model.dim: must be a whole number, got 1.5",
      "s.yaml:7:32: pp_config.pipeline_schedule: 'sideways' is no pipeline schedule ndlua prices; one of "
        .. "1f1b, interleaved, gpipe, seqpipe, seqsmartvpp, zero_bubble_v, zbv, dualpipev (in any case)",
    }, cfg.problems.errors)
    local paths = {}
    for i, w in ipairs(cfg.problems.warnings) do paths[i] = w.path end
    assert.are.same({ "model.offset" }, paths)
    -- use_flash_attention: false is priced: the eager attention, as a train.yaml's attn_implementation
    assert.are.same({ { { "model", "attn_implementation" }, "eager", "use_flash_attention" } }, cfg.model_keys.run)
    local doc = model_keys.document(read("model: {hidden_size: 64, use_flash_attention: false}").model_keys)
    assert.are.equal("eager", doc.model.attn_implementation)
    doc = model_keys.document(read("model: {hidden_size: 64, use_flash_attention: true}").model_keys)
    assert.is_nil(doc.model.attn_implementation)
  end)
end)
