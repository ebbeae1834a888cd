-- Reading a train.yaml (lua/nd/train_yaml.lua): the schemas, the model
-- section, the context, accelerator and fsdp_config sections, the device
-- count and the sharding rules. Each rule of the key table of reference
-- model-spec-census-train-yaml.md §e.1 is tested stated, fallen back and defaulted; each warning of §e.2
-- raised exactly when its condition holds, and once; each error of §e.3
-- names its key path and its place in the file. The run-level rules (batch,
-- optimizer, recompute, dtypes, sequence, MoE, offset, plan_overrides,
-- command-line overrides) are in train_yaml_run_spec.lua.
--
-- Every expected value comes from the small yaml beside it and the seed
-- parser's rule it tests; model facts come from the catalog's config.json
-- (lua/nd/catalog): Qwen3-8B has 36 layers, max_position_embeddings 40960,
-- torch_dtype bfloat16; Qwen3-30B-A3B 128 experts; DeepSeek-V3 61 layers and
-- num_nextn_predict_layers 1; Qwen3-VL-30B-A3B-Instruct a 27-layer tower.
local nd = require "nd"
local train_yaml = require "nd.train_yaml"
local warnings = require "nd.warnings"

local fixture = dofile("spec/support/train_yaml_text.lua")
local read, refused, count = fixture.read, fixture.refused, fixture.count
local QWEN, MOE, TINY = fixture.QWEN, fixture.MOE, fixture.TINY

describe("train_yaml.schema", function()
  it("is automodels with a pretrained path or a root training, accelerator or fsdp_config section", function()
    assert.are.equal("automodels", train_yaml.schema(nd.yaml.decode(QWEN)))
    assert.are.equal("automodels", train_yaml.schema(nd.yaml.decode(TINY .. "training: {}\n")))
    assert.are.equal("automodels", train_yaml.schema(nd.yaml.decode(TINY .. "accelerator:\n")))
    assert.are.equal("automodels", train_yaml.schema(nd.yaml.decode(TINY .. "fsdp_config: {}\n")))
  end)

  it("is legacy otherwise: train.* and data.*, or a config_path alone", function()
    assert.are.equal("legacy", train_yaml.schema(nd.yaml.decode(TINY .. "train:\n  micro_batch_size: 1\n")))
    assert.are.equal("legacy", train_yaml.schema(nd.yaml.decode("model:\n  config_path: Qwen/Qwen3-8B\n")))
  end)
end)

describe("the model section", function()
  it("reads model.pretrained_model_name_or_path from the catalog", function()
    local p = read(QWEN)
    assert.are.equal("catalog", p.source.kind)
    assert.are.equal("Qwen/Qwen3-8B", p.source.id)
    assert.are.equal(36, p.model.num_hidden_layers)
  end)

  it("falls back to model.config_path, then to model.config_overrides", function()
    local p = read("model:\n  config_path: Qwen/Qwen3-8B\n")
    assert.are.equal("Qwen/Qwen3-8B", p.source.id)
    p = read(TINY)
    assert.are.equal("overrides", p.source.kind)
    assert.are.equal("tiny", p.model.name)
  end)

  it("refuses a yaml with no model section, naming the key", function()
    assert.are.equal("t.yaml:1:1: model: the train.yaml has no model section; a model mapping with "
      .. "pretrained_model_name_or_path or config_overrides", refused("train: {}\n"))
  end)

  it("refuses a model named nowhere, suggesting the closest catalog ids", function()
    local m = refused("model:\n  pretrained_model_name_or_path: Qwen/Qwen3-31B\n")
    assert.matches("^t.yaml:2:34: model.pretrained_model_name_or_path: cannot find the config.json of 'Qwen/Qwen3%-31B'", m)
    assert.matches("closest catalog ids: Qwen/Qwen3%-32B, Qwen/Qwen3%-8B", m)
  end)

  it("refuses a legacy section with no checkpoint and too few fields, naming model.weights_path", function()
    local m = refused("model:\n  weights_path: /path/to/ckpt\n  config_overrides:\n    num_hidden_layers: 1\n")
    assert.matches("^t.yaml:2:3: model: names no checkpoint", m)
    assert.matches("does not state hidden_size, num_attention_heads, vocab_size", m, 1, true)
    assert.matches("model.weights_path '/path/to/ckpt' is the legacy trainer's", m, 1, true)
    assert.matches("--model.config_path=", m, 1, true)
  end)

  describe("MTP", function()
    local DS = "model:\n  pretrained_model_name_or_path: deepseek-ai/DeepSeek-V3\n"

    it("is dropped under AutoModels, with one warning saying how many layers", function()
      local p, ws = read(DS)
      assert.are.equal(1, p.mtp_unpriced)
      assert.are.equal(0, p.model.mtp_depth)
      assert.are.equal("3×dense, 58×moe", require("nd.layer_stack").format(p.model.layers))
      assert.is_false(p.run.mtp_in_offset)
      assert.are.equal(1, count(ws, "model: the model states 1 MTP layer, which the AutoModels trainer does not "
        .. "build: ndlua prices none"))
    end)

    it("is kept by the legacy schema, in the offset (61 + 1 layers over pp 4: 62 mod 4 = 2 stages more)", function()
      local p, ws = read("model:\n  config_path: deepseek-ai/DeepSeek-V3\ntrain:\n  accelerator:\n"
        .. "    pipeline_parallel_degree: 4\n")
      assert.are.equal(0, p.mtp_unpriced)
      assert.are.equal(1, p.model.mtp_depth)
      assert.is_true(p.run.mtp_in_offset)
      assert.are.same({ 1, 1, 0, 0 }, p.run.offset)
      assert.are.equal(0, count(ws, "MTP"))
    end)

    it("raises no warning for a model without MTP", function()
      local _, ws = read(QWEN)
      assert.are.equal(0, count(ws, "MTP"))
    end)
  end)

  describe("the vision tower", function()
    local VL = "  pretrained_model_name_or_path: Qwen/Qwen3-VL-30B-A3B-Instruct\n"

    it("is kept where model._target_ builds an ImageTextToText, Vision2Seq or ConditionalGeneration model", function()
      for _, class in ipairs({ "HyperAutoModelForImageTextToText", "HyperAutoModelForVision2Seq",
                               "Qwen3VLMoeForConditionalGeneration" }) do
        local p = read("model:\n  _target_: hyper_parallel.models." .. class .. ".from_pretrained\n" .. VL)
        assert.are.equal(27, p.model.vision.num_hidden_layers, class)
        assert.is_true(p.vision.built)
      end
    end)

    it("is dropped where it names another class (a causal LM, a recipe's builder)", function()
      local p = read("model:\n  _target_: hyper_parallel.models.HyperAutoModelForCausalLM.from_pretrained\n" .. VL)
      assert.is_nil(p.model.vision)
      assert.is_true(p.vision.checkpoint)
      assert.is_false(p.vision.built)
      assert.matches("builds the language model alone", p.vision.why, 1, true)
    end)

    it("is kept where no class is named, and by the legacy schema", function()
      assert.is_table(read("model:\n" .. VL).model.vision)
      assert.is_table(read("model:\n  config_path: Qwen/Qwen3-VL-30B-A3B-Instruct\n").model.vision)
    end)

    it("is dropped by the legacy config_overrides.vl: false, and kept by vl: true", function()
      local base = "model:\n  config_path: Qwen/Qwen3-VL-30B-A3B-Instruct\n  config_overrides:\n"
      assert.is_nil(read(base .. "    vl: false\n").model.vision)
      assert.is_table(read(base .. "    vl: true\n").model.vision)
    end)

    it("takes context.visual_seq_len as the tower's tokens and the run's visual_seq_length", function()
      local p = read("model:\n" .. VL .. "context:\n  visual_seq_len: 1024\n")
      assert.are.equal(1024, p.model.vision.max_position_embeddings)
      assert.are.equal(1024, p.run.visual_seq_length)
      p = read("model:\n" .. VL)
      assert.is_nil(p.run.visual_seq_length)
    end)

    it("is frozen by model.freeze_modules naming the whole tower (run.freeze_vision)", function()
      for _, name in ipairs({ "model.visual", "visual", "model.visual.*", "vision_tower" }) do
        local p, ws = read("model:\n" .. VL .. "  freeze_modules: ['" .. name .. "']\n")
        assert.is_true(p.run.freeze_vision, name)
        assert.are.equal(0, count(ws, "freeze_modules"), name)
      end
      assert.is_nil(read("model:\n" .. VL).run.freeze_vision)
    end)

    it("prices a frozen part of the tower as trained, with a warning", function()
      local p, ws = read("model:\n" .. VL .. "  freeze_modules: [model.visual.merger]\n")
      assert.is_nil(p.run.freeze_vision)
      assert.are.equal(1, count(ws, "model.freeze_modules[0]: 'model.visual.merger' is not the whole vision tower"))
    end)

    it("warns when the frozen tower is not built", function()
      local p, ws = read("model:\n  _target_: x.HyperAutoModelForCausalLM\n" .. VL
        .. "  freeze_modules: [model.visual]\n")
      assert.is_nil(p.run.freeze_vision)
      assert.are.equal(1, count(ws, "model.freeze_modules: names the vision tower, which this run does not build"))
    end)
  end)

  describe("the legacy VLM overrides", function()
    it("reads config_overrides.text_config's fields as the language model's", function()
      local p = read("model:\n  config_path: Qwen/Qwen3-VL-30B-A3B-Instruct\n  config_overrides:\n    vl: true\n"
        .. "    text_config:\n      num_hidden_layers: 4\n")
      assert.are.equal(4, p.model.num_hidden_layers)
    end)

    it("refuses a field stated both ways, and an unknown one", function()
      assert.are.equal("t.yaml:6:26: model.config_overrides.text_config.num_hidden_layers: is stated twice, here "
        .. "and as model.config_overrides.num_hidden_layers; state it once",
        refused("model:\n  config_path: Qwen/Qwen3-8B\n  config_overrides:\n    num_hidden_layers: 2\n"
          .. "    text_config:\n      num_hidden_layers: 4\n"))
      assert.matches("^t.yaml:5:14: model.config_overrides.text_config.depth: unknown model field 'depth'",
        refused("model:\n  config_path: Qwen/Qwen3-8B\n  config_overrides:\n    text_config:\n      depth: 4\n"))
    end)
  end)
end)

describe("the context section", function()
  it("reads context.max_device_memory, else 64GB; -M wins over both", function()
    assert.are.equal(58 * 2 ^ 30, read(QWEN .. "context:\n  max_device_memory: 58GB\n").run.device_memory)
    assert.are.equal(64 * 2 ^ 30, read(QWEN).run.device_memory)
    local p = read(QWEN .. "context:\n  max_device_memory: 58GB\n", { device_memory = "80GiB" })
    assert.are.equal(80 * 2 ^ 30, p.run.device_memory)
    assert.are.equal("-M", p.device_memory_source)
  end)

  it("refuses a size without its unit", function()
    assert.are.equal("t.yaml:4:22: context.max_device_memory: is no memory size: 58; a size with its unit, such "
      .. "as 58GB or 64GiB (binary units)", refused(QWEN .. "context:\n  max_device_memory: 58\n"))
  end)

  it("reads context.expert_shard: group, and refuses any other value", function()
    assert.is_true(read(MOE .. "context:\n  expert_shard: group\n").run.expert_shard_group)
    assert.is_false(read(MOE).run.expert_shard_group)
    assert.are.equal("t.yaml:4:17: context.expert_shard: takes 'group' or nothing, not 'all'; group (shard each "
      .. "strategy's routed experts over its whole expert data-parallel group)",
      refused(MOE .. "context:\n  expert_shard: all\n"))
  end)

  it("reads context.moe_dispatch: unstated is nil, 0 is 0, a negative cost is refused", function()
    assert.is_nil(read(MOE).moe_dispatch)
    assert.are.equal(0, read(MOE .. "context:\n  moe_dispatch: 0\n").moe_dispatch)
    assert.are.equal(1.5, read(MOE .. "context:\n  moe_dispatch: 1.5\n").moe_dispatch)
    assert.are.equal("t.yaml:4:17: context.moe_dispatch: takes a cost, not -1; a number >= 0",
      refused(MOE .. "context:\n  moe_dispatch: -1\n"))
  end)

  -- context.deepep / ep_node_limit: ndlua's own keys for the run fields
  -- deepep and ep_node_limit (src/core/timing.c deepep_seconds; its
  -- hand-derived prices are in spec/c/test_timing_ep.c). Qwen3-30B-A3B's
  -- EP 32 on 32 H100s spans 4 nodes of 8, so DeepEP's per-node dispatch
  -- applies and the step changes with the key.
  local EP32 = MOE .. "dataset:\n  data_transform:\n    max_seq_len: 4096\naccelerator:\n  ep_size: 32\ncontext:\n  device_num: 32\n"
  local function step_of(text)
    local m, run = train_yaml.build((read(text)))
    return require("nd.api").step_time(m, run, "H100").step_time_s
  end

  it("reads context.deepep and context.ep_node_limit into the run's deepep and ep_node_limit", function()
    local p, ws = read(EP32 .. "  deepep: true\n  ep_node_limit: 2\n")
    assert.is_true(p.run.deepep)
    assert.are.equal(2, p.run.ep_node_limit)
    assert.are.equal(0, count(ws, "ep_node_limit"))
    p = read(EP32)
    assert.is_nil(p.run.deepep)
    assert.is_nil(p.run.ep_node_limit)
    -- the step of the yaml's run is the step of an nd.run stating the fields
    local m, run = train_yaml.build((read(EP32 .. "  deepep: true\n")))
    local fields = read(EP32).run
    fields.deepep = true
    local direct = require("nd.run").new(fields)
    local api = require "nd.api"
    assert.are.equal(api.step_time(m, direct, "H100").step_time_s, api.step_time(m, run, "H100").step_time_s)
    -- DeepEP sends a token to each of its ~3.6 destination nodes once, not
    -- to each of 7.75 remote ranks' experts: faster; a 2-node limit fewer still
    local plain, deepep = step_of(EP32), step_of(EP32 .. "  deepep: true\n")
    assert.is_true(deepep < plain)
    assert.is_true(step_of(EP32 .. "  deepep: true\n  ep_node_limit: 2\n") < deepep)
  end)

  it("warns about context.ep_node_limit without deepep, and refuses a negative limit or a text deepep", function()
    local p, ws = read(EP32 .. "  ep_node_limit: 4\n")
    assert.is_nil(p.run.ep_node_limit)
    assert.are.equal(1, count(ws, "context.ep_node_limit: is read with context.deepep: true only"))
    assert.are.equal("t.yaml:11:18: context.ep_node_limit: must be at least 0, got -1; a whole number of nodes from 0 (no limit)",
      refused(EP32 .. "  deepep: true\n  ep_node_limit: -1\n"))
    assert.are.equal("t.yaml:10:11: context.deepep: must be true or false, got 'yes please'; true or false",
      refused(EP32 .. "  deepep: yes please\n"))
  end)

  it("notes context.census and context.census_spec; without a record beside the checkpoint it warns once", function()
    -- Qwen/Qwen3-8B resolves to lua/nd/catalog/Qwen--Qwen3-8B/, which ships no census-2048.json
    local p, ws = read(QWEN .. "context:\n  census: true\n  census_spec: true\n"
      .. "dataset:\n  data_transform:\n    max_seq_len: 2048\n")
    assert.are.same({ requested = true, spec = true, seq_length = 2048 }, p.census)
    assert.are.equal(1, count(ws, "context.census: no census-2048.json beside"))
    assert.is_nil(p.model.activations)
    p, ws = read(QWEN)
    assert.is_false(p.census.requested)
    assert.are.equal(0, count(ws, "census"))
  end)

  it("reads a census file context.census names, relative to the train.yaml, and prices from it", function()
    -- spec/fixtures/census/llama-64.json measured spec/census/specs/llama.json; a
    -- config.json of the same dims in a temporary checkpoint directory
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir .. "/ckpt && cp spec/fixtures/census/llama-64.json " .. dir .. "/records.json")
    local f = assert(io.open(dir .. "/ckpt/config.json", "w"))
    f:write('{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, '
      .. '"num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 96, "vocab_size": 256}')
    f:close()
    local text = "model:\n  pretrained_model_name_or_path: " .. dir .. "/ckpt\ncontext:\n  census: records.json\n"
      .. "dataset:\n  data_transform:\n    max_seq_len: 64\n"
    local yaml = dir .. "/train.yaml"
    f = assert(io.open(yaml, "w"))
    f:write(text)
    f:close()
    local parsed = train_yaml.load(yaml, { warnings = warnings.quiet() })
    assert.are.equal(1032, parsed.model.activations.decoder.saved)
    -- and census-<seq>.json beside the checkpoint when context.census is true
    os.execute("mv " .. dir .. "/records.json " .. dir .. "/ckpt/census-64.json")
    f = assert(io.open(yaml, "w"))
    f:write((text:gsub("census: records.json", "census: true")))
    f:close()
    parsed = train_yaml.load(yaml, { warnings = warnings.quiet() })
    assert.are.equal(1184, parsed.model.activations.decoder.saved_tp)
    os.execute("rm -rf " .. dir)
  end)
end)

describe("the accelerator section", function()
  it("reads tp_size, else tp_degree, else 1 (and likewise pp, cp, ep)", function()
    local p = read(QWEN .. "accelerator:\n  tp_size: 2\n  tp_degree: 4\n  pp_size: 2\n  cp_size: 2\n"
      .. "context:\n  device_num: 16\n")
    assert.are.same({ 2, 2, 2 }, { p.run.tp, p.run.pp, p.run.cp })
    p = read(TINY .. "train:\n  accelerator:\n    tp_degree: 4\n    pipeline_parallel_degree: 2\n"
      .. "    context_parallel_degree: 2\n    expert_parallel_degree: 2\n")
    assert.are.same({ 4, 2, 2, 2 }, { p.run.tp, p.run.pp, p.run.cp, p.run.ep })
    p = read(QWEN)
    assert.are.same({ 1, 1, 1, 1, 1 }, { p.run.tp, p.run.pp, p.run.cp, p.run.ep, p.run.vpp })
  end)

  it("passes over a stated 0 as the seed's `or` does (tp_size: 0 falls back to tp_degree)", function()
    assert.are.equal(4, read(QWEN .. "accelerator:\n  tp_size: 0\n  tp_degree: 4\ncontext:\n  device_num: 4\n").run.tp)
    assert.are.equal(1, read(QWEN .. "accelerator:\n  ep_size: 0\n").run.ep)
  end)

  it("reads the root accelerator section, else train.accelerator; a stated root section wins even empty", function()
    assert.are.equal(2, read(TINY .. "train:\n  accelerator:\n    tp_degree: 2\n").run.tp)
    assert.are.equal(1, read(TINY .. "accelerator: {}\ntrain:\n  accelerator:\n    tp_degree: 2\n").run.tp)
  end)

  it("takes a quoted whole number and refuses fractions, booleans, text and negatives", function()
    assert.are.equal(2, read(QWEN .. "accelerator:\n  tp_size: '2'\ncontext:\n  device_num: 2\n").run.tp)
    assert.are.equal("t.yaml:4:12: accelerator.tp_size: must be a whole number, got 2.5; a positive whole number",
      refused(QWEN .. "accelerator:\n  tp_size: 2.5\n"))
    assert.are.equal("t.yaml:4:12: accelerator.tp_size: must be a whole number, got true; a positive whole number",
      refused(QWEN .. "accelerator:\n  tp_size: yes\n"))
    assert.are.equal("t.yaml:4:12: accelerator.pp_size: must be at least 1, got -2; a positive whole number",
      refused(QWEN .. "accelerator:\n  pp_size: -2\n"))
    assert.are.equal("t.yaml:4:12: accelerator.cp_size: must be a whole number, got 'two'; a positive whole number",
      refused(QWEN .. "accelerator:\n  cp_size: two\n"))
  end)

  it("reads expert_tensor_parallel_degree: 0 by default, 1 for a MoE model stating none", function()
    assert.are.equal(0, read(QWEN).run.etp)
    assert.are.equal(1, read(MOE).run.etp)
    assert.are.equal(2, read(MOE .. "accelerator:\n  expert_tensor_parallel_degree: 2\n"
      .. "  tp_size: 2\ncontext:\n  device_num: 2\n").run.etp)
  end)

  it("reads pp_interleave_num as vpp (default 1)", function()
    local p = read(QWEN .. "accelerator:\n  pp_size: 4\n  pp_interleave_num: 3\ncontext:\n  device_num: 4\n")
    assert.are.equal(3, p.run.vpp)
  end)

  it("reads sequence_parallel or use_seq_parallel (default off)", function()
    assert.is_true(read(QWEN .. "accelerator:\n  sequence_parallel: true\n").run.sequence_parallel)
    assert.is_true(read(TINY .. "train:\n  accelerator:\n    use_seq_parallel: true\n").run.sequence_parallel)
    assert.is_false(read(QWEN).run.sequence_parallel)
  end)

  it("refuses a flag written as text (bool('false') is true in Python, and no one means that)", function()
    assert.are.equal("t.yaml:4:22: accelerator.sequence_parallel: must be true or false, got 'false'; true or false",
      refused(QWEN .. "accelerator:\n  sequence_parallel: 'false'\n"))
  end)

  it("reads pipeline_scheduler (default 1f1b) and refuses a schedule ndlua does not price", function()
    assert.are.equal("1f1b", read(QWEN).run.pp_schedule)
    assert.are.equal("gpipe", read(QWEN .. "accelerator:\n  pipeline_scheduler: gpipe\n").run.pp_schedule)
    assert.matches("^t.yaml:4:23: accelerator.pipeline_scheduler: 'zb' is no pipeline schedule ndlua prices; one of 1f1b",
      refused(QWEN .. "accelerator:\n  pipeline_scheduler: zb\n"))
  end)

  it("reads loss_parallel (default off)", function()
    assert.is_true(read(QWEN .. "accelerator:\n  loss_parallel: true\n").run.loss_parallel)
    assert.is_false(read(QWEN).run.loss_parallel)
  end)

  describe("context_parallel_algo", function()
    local CP = QWEN .. "accelerator:\n  cp_size: 2\ncontext:\n  device_num: 2\n"

    it("is read as stated", function()
      local p, ws = read(QWEN .. "accelerator:\n  cp_size: 2\n  context_parallel_algo: ulysses_cp\n"
        .. "context:\n  device_num: 2\n")
      assert.are.equal("ulysses_cp", p.run.cp_algo)
      assert.are.equal(0, count(ws, "context_parallel_algo"))
    end)

    it("defaults to colossalai_cp, with one warning when cp > 1", function()
      local p, ws = read(CP)
      assert.are.equal("colossalai_cp", p.run.cp_algo)
      assert.are.equal(1, count(ws, "accelerator.context_parallel_algo: context_parallel_algo not set; defaulting "
        .. "to 'colossalai_cp' (Ring CP)"))
    end)

    it("defaults silently when cp is 1", function()
      local p, ws = read(QWEN)
      assert.are.equal("colossalai_cp", p.run.cp_algo)
      assert.are.equal(0, count(ws, "context_parallel_algo"))
    end)

    it("refuses an algorithm ndlua does not know", function()
      assert.matches("^t.yaml:5:26: accelerator.context_parallel_algo: 'megatron_cp' is no context%-parallel algorithm",
        refused(QWEN .. "accelerator:\n  cp_size: 2\n  context_parallel_algo: megatron_cp\n"))
    end)
  end)
end)

describe("the fsdp_config section", function()
  it("reads dp_shard_size, else accelerator.dp_shard, else 1", function()
    assert.are.equal(8, read(QWEN .. "fsdp_config:\n  dp_shard_size: 8\naccelerator:\n  dp_shard: 4\n").run.dp)
    assert.are.equal(4, read(QWEN .. "accelerator:\n  dp_shard: 4\n").run.dp)
    assert.are.equal(1, read(QWEN).run.dp)
  end)

  it("reshards parameters unless reshard_after_forward or reshard_after_backward is false", function()
    assert.is_true(read(QWEN).run.reshard_params)
    assert.is_true(read(QWEN .. "fsdp_config:\n  reshard_after_forward: true\n").run.reshard_params)
    assert.is_false(read(QWEN .. "fsdp_config:\n  reshard_after_backward: false\n").run.reshard_params)
    assert.is_false(read(QWEN .. "fsdp_config:\n  reshard_after_forward: false\n").run.reshard_params)
  end)

  it("reads enable_offload: the sharded parameters, their gradients and optimizer states on the host", function()
    assert.is_nil(read(QWEN).run.offload_params)
    assert.is_true(read(QWEN .. "fsdp_config:\n  dp_shard_size: 8\n  enable_offload: true\n").run.offload_params)
    assert.is_nil(read(QWEN .. "fsdp_config:\n  enable_offload: false\n").run.offload_params)
    assert.matches("fsdp_config.enable_offload", refused(QWEN .. "fsdp_config:\n  enable_offload: maybe\n"))
  end)

  it("reads compile.enabled: torch.compile's fused norms, SwiGLU and rotary embedding", function()
    assert.is_nil(read(QWEN).run.fused_norm)
    assert.is_nil(read(QWEN).run.rope) -- eager: nd.run's rotate_half
    local run = read(QWEN .. "compile:\n  enabled: true\n").run
    assert.is_true(run.fused_norm)
    assert.is_true(run.fused_swiglu)
    assert.are.equal("fused", run.rope)
    assert.is_nil(read(QWEN .. "compile:\n  enabled: false\n").run.fused_norm)
  end)

  it("reads model.attn_implementation: eager keeps the scores, the fused kernels and sdpa do not", function()
    assert.is_true(read(QWEN).run.flash_attention) -- Transformers' default, sdpa
    for name, fused in pairs { eager = false, sdpa = true, flash_attention_2 = true, flash_attention_3 = true,
                               flex_attention = true } do
      assert.are.equal(fused, read(QWEN .. "  attn_implementation: " .. name .. "\n").run.flash_attention, name)
    end
    local p, ws = read(QWEN .. "  attn_implementation: paged_attention\n")
    assert.is_true(p.run.flash_attention)
    assert.are.equal(1, count(ws, "model.attn_implementation: 'paged_attention' is no attention ndlua knows"))
    _, ws = read(QWEN .. "  attn_implementation: eager\n")
    assert.are.equal(0, count(ws, "attn_implementation"))
  end)

  it("implies the hyperparallel runtime", function()
    assert.are.equal("hyperparallel", read(QWEN).run.runtime)
  end)

  it("reads edp_shard_size as the expert shard (AutoModels; default 1); the legacy schema states none", function()
    local p = read(MOE .. "accelerator:\n  ep_size: 8\nfsdp_config:\n  dp_shard_size: 16\n  edp_shard_size: 2\n")
    assert.are.equal(2, p.run.expert_shard)
    assert.are.equal(1, read(MOE).run.expert_shard)
    p = read("model:\n  config_path: Qwen/Qwen3-30B-A3B\ntrain:\n  accelerator:\n    dp_shard: 2\n")
    assert.is_nil(p.run.expert_shard)
    assert.is_nil(p.run.expert_shard_group)
  end)

  it("warns that the legacy schema reads no context.expert_shard", function()
    local _, ws = read("model:\n  config_path: Qwen/Qwen3-30B-A3B\ncontext:\n  expert_shard: group\n")
    assert.are.equal(1, count(ws, "context.expert_shard: is read under the AutoModels schema only"))
  end)

  it("refuses a section that is not a mapping", function()
    assert.are.equal("t.yaml:3:14: fsdp_config: must be a mapping of keys, got [8]; a mapping (key: value lines)",
      refused(QWEN .. "fsdp_config: [8]\n"))
  end)
end)

describe("the data-parallel degree", function()
  local SHARD8 = QWEN .. "fsdp_config:\n  dp_shard_size: 8\n"
  local NO_COUNT = "context.device_num: AutoModels config carries no context.device_num"

  it("is context.device_num / (tp x pp x cp)", function()
    local p, ws = read(SHARD8 .. "accelerator:\n  tp_size: 2\n  pp_size: 2\ncontext:\n  device_num: 64\n")
    assert.are.equal(16, p.run.dp)
    assert.are.equal("context.device_num", p.dp_source)
    assert.are.equal(0, count(ws, NO_COUNT))
  end)

  it("is the command line's -d / (tp x pp x cp) under AutoModels, when no device_num is stated", function()
    local p, ws = read(SHARD8 .. "accelerator:\n  tp_size: 2\n", { devices = 32 })
    assert.are.equal(16, p.run.dp)
    assert.are.equal("-d", p.dp_source)
    assert.are.equal(0, count(ws, NO_COUNT))
  end)

  it("keeps context.device_num over -d, with a warning when they differ", function()
    local p, ws = read(SHARD8 .. "context:\n  device_num: 8\n", { devices = 16 })
    assert.are.equal(8, p.run.dp)
    assert.are.equal(1, count(ws, "context.device_num: states 8 devices, which wins over -d 16"))
    _, ws = read(SHARD8 .. "context:\n  device_num: 8\n", { devices = 8 })
    assert.are.equal(0, count(ws, "device"))
  end)

  it("is dp_replicate x dp_shard otherwise, with one warning under AutoModels when replicate is 1", function()
    local p, ws = read(SHARD8)
    assert.are.equal(8, p.run.dp)
    assert.are.equal(1, count(ws, NO_COUNT .. "; assuming dp_replicate=1 (d = dp_shard_size = 8). Pass "
      .. "-d/--devices for HSDP runs."))
    p, ws = read(SHARD8 .. "accelerator:\n  dp_replicate: 2\n")
    assert.are.equal(16, p.run.dp)
    assert.are.equal(0, count(ws, NO_COUNT))
  end)

  it("is dp_replicate x dp_shard in a legacy config, which reads no -d (with a warning when given)", function()
    local legacy = TINY .. "train:\n  accelerator:\n    dp_shard: 2\n    dp_replicate: 4\n"
    local p, ws = read(legacy)
    assert.are.equal(8, p.run.dp)
    assert.are.equal(0, #ws - count(ws, "sequence length") - count(ws, "dtype") - count(ws, "optimizer"))
    p, ws = read(legacy, { devices = 64 })
    assert.are.equal(8, p.run.dp)
    assert.are.equal(1, count(ws, "train.accelerator: -d 64 is not read for a legacy train.* config"))
    _, ws = read(legacy, { devices = 8 }) -- the count the file states: nothing to say
    assert.are.equal(0, count(ws, "-d"))
  end)

  it("refuses a device count tp x pp x cp does not divide, naming its source", function()
    assert.are.equal("t.yaml:6:15: context.device_num: 12 devices are not divisible by tp x pp x cp = 8 x 1 x 1 "
      .. "= 8; a device count that is a multiple of tp x pp x cp",
      refused(QWEN .. "accelerator:\n  tp_size: 8\ncontext:\n  device_num: 12\n"))
    assert.are.equal("-d: 12 devices are not divisible by tp x pp x cp = 8 x 1 x 1 = 8; a device count that is a "
      .. "multiple of tp x pp x cp", refused(QWEN .. "accelerator:\n  tp_size: 8\n", { devices = 12 }))
  end)

  it("warns when dp_shard_size does not divide the data-parallel degree", function()
    local _, ws = read(QWEN .. "fsdp_config:\n  dp_shard_size: 16\n", { devices = 8 })
    assert.are.equal(1, count(ws, "fsdp_config.dp_shard_size: shards over 16 ranks, which do not divide the "
      .. "data-parallel degree 8"))
  end)
end)

describe("optimizer and gradient sharding", function()
  it("shards the optimizer under AutoModels where dp_shard > 1, over optimizer_weight_shard_size or dp_shard", function()
    local p = read(QWEN .. "fsdp_config:\n  dp_shard_size: 8\n")
    assert.is_true(p.run.optimizer_parallel)
    assert.are.equal(8, p.run.optimizer_shard)
    p = read(QWEN .. "fsdp_config:\n  dp_shard_size: 8\naccelerator:\n  optimizer_weight_shard_size: 4\n")
    assert.are.equal(4, p.run.optimizer_shard)
    p = read(QWEN, { devices = 8 })
    assert.is_false(p.run.optimizer_parallel)
    assert.are.equal(1, p.run.optimizer_shard)
  end)

  it("reads enable_parallel_optimizer in a legacy config (default true), sharding over dp", function()
    local legacy = TINY .. "train:\n  accelerator:\n    dp_replicate: 4\n"
    local p = read(legacy)
    assert.is_true(p.run.optimizer_parallel)
    assert.are.equal(4, p.run.optimizer_shard)
    p = read(legacy .. "    enable_parallel_optimizer: false\n")
    assert.is_false(p.run.optimizer_parallel)
  end)

  it("reads gradient_accumulation_shard as grad_shard (default false)", function()
    assert.is_true(read(QWEN .. "accelerator:\n  gradient_accumulation_shard: true\n").run.grad_shard)
    assert.is_false(read(QWEN).run.grad_shard)
  end)

  it("states HyperParallel FSDP's constants, and shard_spans_cp under AutoModels only", function()
    local r = read(QWEN).run
    assert.are.same({ true, true, true, true, false, true },
      { r.grad_shard_as_params, r.grad_accumulation, r.deferred_grad_accumulation, r.overlapped_grad_reduce,
        r.param_casts, r.shard_spans_cp })
    assert.is_false(read(TINY).run.shard_spans_cp)
  end)

  it("states the seed's run constants", function()
    local r = read(QWEN).run
    assert.are.same({ true, true, false, true, true, 1, "hyperparallel" },
      { r.flash_attention, r.vocab_emb_dp, r.frozen, r.emb_dp_sharded, r.shard_mtp_param, r.seq_split,
        r.selective_rule })
    assert.is_false(r.tie_embeddings) -- Qwen3-8B: tie_word_embeddings false
    assert.is_true(read("model:\n  pretrained_model_name_or_path: Qwen/Qwen3-0.6B\n").run.tie_embeddings)
  end)
end)

describe("the run table", function()
  it("warns once where the expert degrees cannot hold the experts, which the C core clamps", function()
    -- ep 16 over dp 8 x tp 1 x cp 1 ranks: an expert data-parallel group of 8 / 16 < 1
    local p, ws = read(MOE .. "accelerator:\n  ep_size: 16\nfsdp_config:\n  dp_shard_size: 8\n")
    local model, run = train_yaml.build(p)
    assert.is_true(run:derived(model).experts_clamped)
    train_yaml.build(p)
    ws = p.warnings:all()
    assert.are.equal(1, count(ws, "accelerator.ep_size: expert degrees invalid for dp=8 tp=1 ep=16 etp=1 "
      .. "experts=128; clamping to minimum values"))
    p = read(MOE .. "accelerator:\n  ep_size: 8\nfsdp_config:\n  dp_shard_size: 8\n")
    train_yaml.build(p)
    assert.are.equal(0, count(p.warnings:all(), "expert degrees"))
  end)

  it("refuses plan_overrides that are no list", function()
    assert.matches("^t.yaml:4:3: plan_overrides: must be a list of entries",
      refused(QWEN .. "plan_overrides:\n  match: x\n"))
  end)

  it("is taken by nd.run, and nd.estimate prices it", function()
    local p = read(MOE .. "fsdp_config:\n  dp_shard_size: 8\ndataset:\n  data_transform:\n    max_seq_len: 2048\n")
    local model, run = train_yaml.build(p)
    local est = nd.estimate(model, run)
    -- FSDP-8 of Qwen3-30B-A3B: 30,532,122,624 parameters (shared/models/PARAMS.md) x 2 bytes / 8
    assert.are.equal(30532122624 * 2 // 8, est.stages[1].params)
  end)
end)
