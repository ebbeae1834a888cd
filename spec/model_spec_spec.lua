-- Model spec validation and settling (lua/nd/model/spec.lua, layer_stack.lua,
-- census/record.lua). Rules: reference model-spec-census-train-yaml.md §a.2-§a.3 (fields, validation,
-- settled facts), §b.2-§b.4 (layer stack), §c.1 (census records), §f (vision).
-- Family stacks are checked against the catalog config.json text by hand.
local model_spec = require "nd.model.spec"
local layer_stack = require "nd.layer_stack"
local hf_config = require "nd.hf_config"
local catalog = require "nd.catalog"
local core = require "nd.core"
local warnings = require "nd.warnings"

local function settle(spec, w)
  return model_spec.settle(spec, { warnings = w or warnings.quiet() })
end

local function from_catalog(id, w)
  return settle(hf_config.to_spec(core.json.load(catalog.path(id))), w)
end

-- A small dense spec; `extra` fields are laid over it.
local function base(extra)
  local s = { name = "tiny", hidden_size = 64, num_hidden_layers = 4, num_attention_heads = 8,
              vocab_size = 100, intermediate_size = 128 }
  for k, v in pairs(extra or {}) do s[k] = v end
  return s
end

local function refused(spec)
  local ok, err = pcall(settle, spec)
  assert.is_false(ok, "expected a refusal")
  assert.is_true(type(err) == "table" and err.bad_input == true, "not a bad-input error: " .. tostring(err))
  return err.message
end

-- Asserts the refusal of `spec` names `field` (and `also`, if given).
local function refuses(spec, field, also)
  local msg = refused(spec)
  assert.matches(field, msg, 1, true)
  if also then assert.matches(also, msg, 1, true) end
end

local function groups(s)
  local out = {}
  for i, g in ipairs(s.layers) do out[i] = { g.kind, g.count, g.mtp } end
  return out
end

local RECORD = { saved = 10, saved_tp = 20, working = 30, working_tp = 40, seq_length = 4096 }
local function record(extra)
  local r = {}
  for k, v in pairs(RECORD) do r[k] = v end
  for k, v in pairs(extra or {}) do r[k] = v end
  return r
end

describe("model spec layer stacks per family", function()
  it("DeepSeek-V3: 3 dense + 58 MoE + 1 MoE MTP", function()
    -- "first_k_dense_replace": 3, "num_hidden_layers": 61, "num_nextn_predict_layers": 1
    local s = from_catalog("deepseek-ai/DeepSeek-V3")
    assert.are.same({ { "dense", 3, false }, { "moe", 58, false }, { "moe", 1, true } }, groups(s))
    assert.are.equal("3×dense, 58×moe, 1×moe(mtp)", layer_stack.format(s.layers))
    assert.are.equal("deepseek", s.arch)
    assert.are.equal("dense", s.kinds.dense.ffn)
    assert.are.equal("moe", s.kinds.moe.ffn)
    assert.are.equal(128, s.head_dim)                -- MLA: the value width, "v_head_dim": 128
    assert.are.equal(128, s.family.v_head_dim)       -- deepseek profile model default
  end)

  it("DeepSeek-V2-Lite: 1 dense + 26 MoE, two shared experts", function()
    local s = from_catalog("deepseek-ai/DeepSeek-V2-Lite")
    assert.are.same({ { "dense", 1, false }, { "moe", 26, false } }, groups(s))
    assert.are.equal(2, s.num_shared_experts)
    assert.is_nil(s.shared_expert_intermediate_size) -- the C core takes 2 x moe_intermediate_size
    assert.is_nil(s.q_lora_rank)
  end)

  it("Qwen3.5-35B-A3B: runs of 3 linear + 1 full attention from layer_types, 1 MTP", function()
    -- text_config.layer_types: linear, linear, linear, full, repeated 10 times (40 layers);
    -- "mtp_num_hidden_layers": 1, priced as the last body kind
    local s = from_catalog("Qwen/Qwen3.5-35B-A3B")
    local g = groups(s)
    assert.are.equal(21, #g)
    assert.are.same({ "linear_attention", 3, false }, g[1])
    assert.are.same({ "full_attention", 1, false }, g[2])
    assert.are.same({ "linear_attention", 3, false }, g[19])
    assert.are.same({ "full_attention", 1, false }, g[20])
    assert.are.same({ "full_attention", 1, true }, g[21])
    assert.are.equal("linear", s.kinds.linear_attention.attention)
    assert.are.equal(1, s.kinds.linear_attention.ops.linrec)
    assert.are.equal("qwen3_5", s.arch)
    assert.are.equal(512, s.intermediate_size)       -- no intermediate_size: the shared width 512
    assert.are.equal(1, s.num_shared_experts)        -- 512 // 512
    assert.is_true(s.shared_expert_gate)             -- name contains qwen3_5
    assert.is_true(s.qk_norm)                        -- name contains qwen3
    assert.is_true(s.family.shard_activations)
  end)

  it("Qwen3.5-9B: 8 runs of 3 linear + 1 full, dense, 1 MTP", function()
    local s = from_catalog("Qwen/Qwen3.5-9B")
    local g = groups(s)
    assert.are.equal(17, #g)
    assert.are.same({ "linear_attention", 3, false }, g[15])
    assert.are.same({ "full_attention", 1, false }, g[16])
    assert.are.same({ "full_attention", 1, true }, g[17])
    assert.are.equal(12288, s.intermediate_size)
    assert.is_nil(s.num_experts)
  end)

  it("Qwen3-Next-80B-A3B: 12 runs of 3 linear + 1 full attention, on the qwen3_5 profile", function()
    local s = from_catalog("Qwen/Qwen3-Next-80B-A3B-Instruct")
    local g = groups(s)
    assert.are.equal(24, #g)
    for i = 1, 24, 2 do
      assert.are.same({ "linear_attention", 3, false }, g[i])
      assert.are.same({ "full_attention", 1, false }, g[i + 1])
    end
    assert.are.equal("qwen3_5", s.arch)
    assert.are.equal(512, s.num_experts)
    assert.are.equal(10, s.num_experts_per_tok)
    assert.are.equal(1, s.num_shared_experts)        -- 512 // 512
    assert.are.equal(512, s.shared_expert_intermediate_size)
  end)

  it("Qwen3-30B-A3B: 48 decoder layers keeping the model's MoE FFN", function()
    local s = from_catalog("Qwen/Qwen3-30B-A3B")
    assert.are.same({ { "decoder", 48, false } }, groups(s))
    assert.is_nil(s.kinds.decoder.ffn)
    assert.are.equal("qwen", s.arch)
    assert.is_true(s.qk_norm)
    assert.is_false(s.qkv_bias)                      -- "attention_bias": false
    assert.is_false(s.shared_expert_gate)
  end)

  it("Qwen2.5-7B: inferred QKV bias, no o bias", function()
    local s = from_catalog("Qwen/Qwen2.5-7B")
    assert.is_true(s.qkv_bias)                       -- name contains qwen2
    assert.is_false(s.o_bias)
    assert.is_false(s.qk_norm)
    assert.are.equal(128, s.head_dim)                -- 3584 / 28
  end)

  it("Qwen2-MoE style: the shared-expert count from the widths", function()
    -- Qwen1.5-MoE-A2.7B: moe_intermediate_size 1408, shared_expert_intermediate_size 5632
    local s = settle(base { name = "qwen2_moe", num_experts = 60, num_experts_per_tok = 4,
                            moe_intermediate_size = 1408, shared_expert_intermediate_size = 5632,
                            intermediate_size = 5632 })
    assert.are.equal(4, s.num_shared_experts)        -- 5632 // 1408
    assert.are.equal(5632, s.shared_expert_intermediate_size)
    assert.is_true(s.shared_expert_gate)
    assert.is_true(s.qkv_bias)
  end)

  it("Mixtral-8x7B: 8 experts at the dense width", function()
    local s = from_catalog("mistralai/Mixtral-8x7B-v0.1")
    assert.are.same({ { "decoder", 32, false } }, groups(s))
    assert.are.equal("mixtral", s.arch)
    assert.are.equal(8, s.num_experts)
    assert.are.equal(14336, s.moe_intermediate_size) -- routed width falls back to intermediate_size
    assert.are.equal(2, s.family.grad_bytes)
  end)

  it("GPT-2: the gpt profile, learned positions, biases", function()
    local s = from_catalog("openai-community/gpt2")
    assert.are.same({ { "decoder", 12, false } }, groups(s))
    assert.are.equal("gpt", s.arch)
    assert.are.equal(2, s.kinds.decoder.ops.ffMM)
    assert.are.equal(64, s.head_dim)                 -- 768 / 12
    assert.are.equal(1024, s.learned_position_embeddings)
    assert.is_true(s.norm_bias)
    assert.is_false(s.family.flash_attention)
  end)

  it("Llama and Gemma 2 get their own profiles, with no warning (issue 13)", function()
    local w = warnings.quiet()
    local s = from_catalog("meta-llama/Llama-2-7b-hf", w)
    assert.are.equal("llama", s.arch)                -- "model_type": "llama"
    assert.are.equal(32, s.num_key_value_heads)      -- "num_key_value_heads": 32
    assert.are.same({}, w:all())
    local g = from_catalog("google/gemma-2-9b", w)
    assert.are.equal("gemma", g.arch)                -- "model_type": "gemma2"
    assert.are.same({}, w:all())
    -- Gemma2DecoderLayer's four RMSNorms each keep their input: normOp 4
    assert.are.equal(4, g.kinds.decoder.ops.normOp)
    assert.are.equal(4, g.layer_norms)
    assert.are.equal(256, g.head_dim)
  end)

  it("Qwen3-VL-30B-A3B: the text stack and a settled vision tower", function()
    local s = from_catalog("Qwen/Qwen3-VL-30B-A3B-Instruct")
    assert.are.same({ { "decoder", 48, false } }, groups(s))
    local v = s.vision
    assert.are.same({ { kind = "encoder", count = 27, mtp = false } }, v.layers)  -- "depth": 27
    assert.are.equal("vision", v.arch)
    assert.are.equal(2, v.kinds.encoder.ops.ffMM)
    assert.are.equal(72, v.head_dim)                 -- 1152 / 16
    assert.is_true(v.family.shard_activations)       -- follows the qwen family (model-spec-census-train-yaml.md §f.5)
    assert.are.equal(576, v.max_position_embeddings)
  end)

  it("T5: encoder then decoder halves; an odd count is refused", function()
    local s = settle(base { arch = "t5", num_hidden_layers = 6 })
    assert.are.same({ { "encoder", 3, false }, { "decoder", 3, false } }, groups(s))
    refuses(base { arch = "t5", num_hidden_layers = 5 }, "num_hidden_layers", "even layer count")
  end)

  it("a dense model on a dense+moe profile is dense throughout", function()
    local s = settle(base { arch = "deepseek" })
    assert.are.same({ { "dense", 4, false } }, groups(s))
  end)

  it("takes a stated stack, and declared op counts", function()
    local s = settle(base { arch = "deepseek", num_experts = 4, num_experts_per_tok = 2, moe_intermediate_size = 32,
                            layers = { { kind = "moe", count = 2 }, { kind = "dense", count = 2 } } })
    assert.are.same({ { "moe", 2, false }, { "dense", 2, false } }, groups(s))
    local ops = { attMM = 4, attBMM = 2, ffMM = 2, softmax = 1, dropout = 1, normOp = 2, gather = 4,
                  headCast = 1, ffAct = 1, linrec = 0 }
    local t = settle(base { ops = { decoder = ops } })
    assert.are.equal(2, t.kinds.decoder.ops.ffMM)
  end)

  it("warns when layer_types names kinds the profile lacks, and prices the default kind", function()
    local w = warnings.quiet()
    local s = settle(base { arch = "qwen", layer_types = { "linear_attention", "full_attention",
                                                             "linear_attention", "full_attention" } }, w)
    assert.are.same({ { "decoder", 4, false } }, groups(s))
    assert.matches("layer_types names ['linear_attention', 'full_attention']", w:all()[1], 1, true)
    assert.matches("every layer is priced as 'decoder'", w:all()[1], 1, true)
  end)
end)

describe("settled facts", function()
  it("fills every flag and the head geometry", function()
    local s = settle(base())
    assert.are.equal(8, s.num_key_value_heads)
    assert.are.equal(8, s.head_dim)
    for _, key in ipairs({ "qk_norm", "qkv_bias", "o_bias", "mlp_bias", "norm_bias", "shared_expert_gate",
                           "attn_output_gate", "tie_word_embeddings" }) do
      assert.is_false(s[key], key)
    end
    assert.are.equal(2, s.layer_norms)
    assert.is_nil(s.layer_types)
    assert.is_nil(s.ops)
    assert.is_true(model_spec.is_settled(s))
    assert.is_false(model_spec.is_settled(base()))
    assert.are.equal("custom", settle(base { name = core.null, arch = "default" }).name)
  end)

  it("coerces whole floats to integers and strips torch. from dtypes", function()
    local s = settle(base { hidden_size = 64.0, torch_dtype = "torch.float16" })
    assert.are.equal("integer", math.type(s.hidden_size))
    assert.are.equal("float16", s.torch_dtype)
  end)

  it("drops JSON nulls", function()
    local s = settle(base { head_dim = core.null })
    assert.are.equal(8, s.head_dim)
  end)

  it("prices top-1 routing with a warning when num_experts_per_tok is unstated", function()
    local w = warnings.quiet()
    local s = settle(base { arch = "default", num_experts = 4, moe_intermediate_size = 32 }, w)
    assert.are.equal(1, s.num_experts_per_tok)
    assert.matches("num_experts_per_tok: not stated for 4 experts", w:all()[1], 1, true)
  end)

  it("keeps census records of the stack's kinds", function()
    local s = settle(base { activations = { decoder = record { selective = 1, selective_tp = 2 } },
                            output_activations = record() })
    assert.are.equal(1, s.activations.decoder.selective)
    assert.are.equal(4096, s.output_activations.seq_length)
  end)
end)

describe("model spec refusals name the field", function()
  it("unknown keys", function()
    refuses(base { offset = 1, hiden_size = 2 }, "unknown model spec keys [hiden_size, offset]")
  end)

  it("types: integers, flags, strings", function()
    refuses(base { hidden_size = "64" }, "hidden_size must be an integer")
    refuses(base { num_key_value_heads = 2.5 }, "num_key_value_heads must be an integer")
    refuses(base { intermediate_size = true }, "intermediate_size must be an integer")
    refuses(base { qk_norm = 1 }, "qk_norm must be true or false")
    refuses(base { tie_word_embeddings = "yes" }, "tie_word_embeddings must be true or false")
    refuses(base { torch_dtype = 2 }, "torch_dtype")
    refuses(base { layer_types = { 1, 2 } }, "layer_types must list layer type names")
    refuses(base { first_k_dense_replace = -1 }, "first_k_dense_replace must be at least 0")
  end)

  it("required fields missing or not positive", function()
    for _, key in ipairs({ "hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size" }) do
      refuses(base { [key] = core.null }, key .. " is required")
      refuses(base { [key] = 0 }, key .. " must be positive")
      refuses(base { [key] = -3 }, key .. " must be positive")
    end
  end)

  it("heads not divisible by KV heads", function()
    refuses(base { num_key_value_heads = 3 }, "num_key_value_heads", "num_attention_heads 8 is not divisible")
  end)

  it("a head width that does not resolve", function()
    refuses(base { hidden_size = 60 }, "head_dim", "hidden_size 60 is not divisible")
  end)

  it("MoE without a routed width", function()
    refuses(base { intermediate_size = core.null, num_experts = 8 }, "moe_intermediate_size", "routed experts")
  end)

  it("shared experts without a width", function()
    refuses(base { intermediate_size = core.null, num_shared_experts = 1 }, "num_shared_experts",
            "no width resolves")
  end)

  it("a dense model without a width", function()
    refuses(base { intermediate_size = core.null }, "intermediate_size")
  end)

  it("more experts per token than experts", function()
    refuses(base { num_experts = 4, num_experts_per_tok = 8, moe_intermediate_size = 8 }, "num_experts_per_tok")
  end)

  it("MLA without its rope width", function()
    refuses(base { kv_lora_rank = 16 }, "qk_rope_head_dim")
  end)

  it("layer groups whose counts do not add up (body and MTP)", function()
    refuses(base { layers = { { kind = "decoder", count = 3 } } }, "layers",
            "layers lists 3 body layers, but num_hidden_layers is 4")
    refuses(base { mtp_depth = 1, layers = { { kind = "decoder", count = 4 } } }, "layers",
            "layers lists 0 MTP layers, but mtp_depth is 1")
    refuses(base { layers = { { kind = "decoder", count = 1, mtp = true }, { kind = "decoder", count = 4 } } },
            "layers[1] is a body group after an MTP group")
    refuses(base { layers = { { kind = "decoder", count = 0 } } }, "layers[0].count")
    -- an infinite count (YAML .inf) is no whole number: refused, not a crash
    refuses(base { layers = { { kind = "decoder", count = math.huge } } }, "layers[0].count",
            "must be a positive whole number, got inf")
    refuses(base { layers = { { kind = "decoder", count = 4, extra = 1 } } }, "layers[0].extra")
    refuses(base { layers = {} }, "layers must be a non-empty list")
    refuses(base { layers = { { kind = "dense", count = 4 } } }, "layers[0].kind",
            "names kind 'dense', but op profile 'default' has ['decoder']")
  end)

  it("layer_types shorter than the body", function()
    refuses(base { arch = "qwen3_5", layer_types = { "full_attention" } }, "layer_types",
            "lists 1 layer types, but num_hidden_layers is 4")
  end)

  it("linear-attention dims partly stated, or missing for a linear kind", function()
    refuses(base { linear_num_key_heads = 4, linear_key_head_dim = 8 }, "linear_num_value_heads",
            "partly stated")
    refuses(base { arch = "qwen3_5", layer_types = { "linear_attention", "linear_attention", "linear_attention",
                                                     "full_attention" } }, "linear_num_key_heads",
            "prices linear-attention layers")
    refuses(base { linear_conv_kernel_dim = 0, linear_num_key_heads = 1, linear_key_head_dim = 1,
                   linear_num_value_heads = 1, linear_value_head_dim = 1 }, "linear_conv_kernel_dim must be positive")
  end)

  it("an unknown arch, listing the known ones", function()
    refuses(base { arch = "qwne" }, "arch", "unknown arch 'qwne'; the op profiles are")
  end)

  it("declared ops of other kinds than the profile's", function()
    refuses(base { ops = { dense = {} } }, "ops", "ops declares layer kinds ['dense'], but arch 'default' prices ['decoder']")
    refuses(base { ops = { decoder = { attMM = 4 } } }, "ops.attBMM")
  end)

  it("census records of kinds the stack does not have", function()
    refuses(base { activations = { moe = record() } }, "activations",
            "activations of kinds [moe] no layer of the stack is")
  end)

  it("census records that break §c.1", function()
    local function act(r) return base { activations = { decoder = r } } end
    local r = record()
    r.seq_length, r.extra = nil, 1
    refuses(act(r), "activations.decoder", "has unknown keys [extra] and lacks [seq_length]")
    refuses(act(record { selective = 1 }), "activations.decoder",
            "states one of [selective, selective_tp] without the other")
    refuses(act(record { saved = -1 }), "activations.decoder.saved", "cannot be negative")
    refuses(act(record { selective_attention_mm = 1.5, selective_ffn_mm = 0.5 }),
            "activations.decoder.selective_attention_mm", "cannot exceed 1")
    refuses(act(record { ops = { qkv = 1 }, ops_tp = {} }), "activations.decoder.ops", "must map ops of")
    refuses(act(record { ops = { attMM = -2 }, ops_tp = {} }), "activations.decoder.ops.attMM", "cannot be negative")
    refuses(act(record { seq_length = 0 }), "activations.decoder.seq_length")
    refuses(act(record { seq_length = math.huge }), "activations.decoder.seq_length",
            "must be a positive whole number of tokens, got inf")
    refuses(base { output_activations = record { working = "x" } }, "output_activations.working")
  end)

  it("vision towers", function()
    local function tower(extra)
      local v = { hidden_size = 32, num_hidden_layers = 2, num_attention_heads = 4, max_position_embeddings = 16 }
      for k, x in pairs(extra or {}) do v[k] = x end
      return base { vision = v }
    end
    assert.are.same({ { kind = "encoder", count = 2, mtp = false } }, settle(tower()).vision.layers)
    refuses(tower { num_attention_heads = core.null }, "vision.num_attention_heads", "missing required")
    refuses(tower { hidden_size = 0 }, "vision.hidden_size must be positive")
    refuses(tower { colour = 1 }, "vision.colour", "unknown vision tower key")
    refuses(tower { layers = { { kind = "encoder", count = 2, mtp = true } } }, "vision.layers", "MTP")
    refuses(tower { layers = { { kind = "encoder", count = 1 } } }, "vision.layers",
            "vision.layers lists 1 body layers, but num_hidden_layers is 2")
    refuses(tower { qkv_bias = "no" }, "vision.qkv_bias must be true or false")
  end)
end)
