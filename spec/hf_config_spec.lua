-- Transformers config.json -> model spec fields (lua/nd/hf_config.lua).
-- Each expected value is read off the config.json text of the catalog file
-- named in the test (lua/nd/catalog/ORG--NAME/config.json), or follows the
-- rule of reference model-spec-census-train-yaml.md §a.3 / §a.4 cited beside it.
local hf_config = require "nd.hf_config"
local catalog = require "nd.catalog"
local core = require "nd.core"
local warnings = require "nd.warnings"

local function spec_of(id, opts)
  return hf_config.to_spec(core.json.load(catalog.path(id)), opts)
end

local function decode(text)
  return core.json.decode(text)
end

describe("nd.hf_config", function()
  it("maps a Llama config by canonical names (Llama-3.1-8B)", function()
    local s = spec_of("meta-llama/Llama-3.1-8B")
    assert.are.equal("llama", s.name)                -- "model_type": "llama"
    assert.are.equal(4096, s.hidden_size)
    assert.are.equal(32, s.num_hidden_layers)
    assert.are.equal(32, s.num_attention_heads)
    assert.are.equal(8, s.num_key_value_heads)
    assert.are.equal(14336, s.intermediate_size)
    assert.are.equal(128256, s.vocab_size)
    assert.are.equal(131072, s.max_position_embeddings)
    assert.is_false(s.qkv_bias)                      -- "attention_bias": false -> qkv_bias and o_bias
    assert.is_false(s.o_bias)
    assert.is_false(s.mlp_bias)                      -- "mlp_bias": false
    assert.is_false(s.tie_word_embeddings)
    assert.are.equal("bfloat16", s.torch_dtype)
    assert.is_nil(s.head_dim)                        -- not stated: settled later as h / a
    assert.is_nil(s.num_experts)
  end)

  it("leaves Qwen2's unstated biases to inference (Qwen2.5-7B)", function()
    local s = spec_of("Qwen/Qwen2.5-7B")
    assert.are.equal("qwen2", s.name)
    assert.is_nil(s.qkv_bias)                        -- no attention_bias key: inferred from the name later
    assert.are.equal(3584, s.hidden_size)
    assert.are.equal(4, s.num_key_value_heads)
  end)

  it("honours Qwen3's explicit head_dim (Qwen3-8B)", function()
    local s = spec_of("Qwen/Qwen3-8B")
    assert.are.equal(128, s.head_dim)                -- "head_dim": 128 although 4096 / 32 = 128 too
    local small = spec_of("Qwen/Qwen3-0.6B")
    assert.are.equal(128, small.head_dim)            -- 1024 / 16 = 64, head_dim 128 wins
    assert.is_true(small.tie_word_embeddings)        -- "tie_word_embeddings": true
  end)

  it("counts JSON null as absent (Qwen3-0.6B rope_scaling/sliding_window; DeepSeek-V2-Lite q_lora_rank)", function()
    local s = spec_of("deepseek-ai/DeepSeek-V2-Lite")
    assert.is_nil(s.q_lora_rank)                     -- "q_lora_rank": null
    local t = hf_config.to_spec(decode('{"model_type":"x","hidden_size":null,"n_embd":64}'))
    assert.are.equal(64, t.hidden_size)              -- null skipped, the next alias read
  end)

  it("maps Qwen3-MoE experts (Qwen3-30B-A3B)", function()
    local s = spec_of("Qwen/Qwen3-30B-A3B")
    assert.are.equal(128, s.num_experts)             -- "num_experts": 128
    assert.are.equal(8, s.num_experts_per_tok)
    assert.are.equal(768, s.moe_intermediate_size)
    assert.is_nil(s.num_shared_experts)
    assert.is_nil(s.shared_expert_intermediate_size)
  end)

  it("maps DeepSeek names: n_routed_experts, n_shared_experts, MLA, MTP (DeepSeek-V3)", function()
    local s = spec_of("deepseek-ai/DeepSeek-V3")
    assert.are.equal(256, s.num_experts)             -- "n_routed_experts": 256
    assert.are.equal(1, s.num_shared_experts)        -- "n_shared_experts": 1
    assert.are.equal(2048, s.moe_intermediate_size)
    assert.are.equal(3, s.first_k_dense_replace)
    assert.are.equal(1, s.mtp_depth)                 -- "num_nextn_predict_layers": 1
    assert.are.equal(512, s.kv_lora_rank)
    assert.are.equal(1536, s.q_lora_rank)
    assert.are.equal(64, s.qk_rope_head_dim)
    assert.are.equal(128, s.qk_nope_head_dim)
    assert.are.equal(128, s.v_head_dim)
  end)

  it("reads Mixtral's num_local_experts as its expert count (Mixtral-8x7B)", function()
    local s = spec_of("mistralai/Mixtral-8x7B-v0.1")
    assert.are.equal(8, s.num_experts)               -- "num_local_experts": 8
    assert.are.equal(2, s.num_experts_per_tok)
    assert.is_nil(s.moe_intermediate_size)           -- experts run at intermediate_size 14336
    assert.are.equal(14336, s.intermediate_size)
  end)

  it("maps GPT-2 names and its class facts (openai-community/gpt2)", function()
    local s = spec_of("openai-community/gpt2")
    assert.are.equal(768, s.hidden_size)             -- "n_embd": 768
    assert.are.equal(12, s.num_hidden_layers)        -- "n_layer": 12
    assert.are.equal(12, s.num_attention_heads)      -- "n_head": 12
    assert.are.equal(1024, s.max_position_embeddings) -- "n_positions": 1024
    assert.are.equal(3072, s.intermediate_size)      -- no n_inner: 4 * n_embd
    assert.are.equal(1024, s.learned_position_embeddings) -- wpe has n_positions rows
    assert.is_true(s.tie_word_embeddings)            -- GPT-2 ties wte and lm_head
    assert.is_true(s.qkv_bias)
    assert.is_true(s.o_bias)
    assert.is_true(s.mlp_bias)
    assert.is_true(s.norm_bias)                      -- LayerNorm has a bias
    local inner = hf_config.to_spec(decode('{"model_type":"gpt2","n_embd":64,"n_inner":100}'))
    assert.are.equal(100, inner.intermediate_size)   -- n_inner stated
    local null_inner = hf_config.to_spec(decode('{"model_type":"gpt2","n_embd":64,"n_inner":null}'))
    assert.are.equal(256, null_inner.intermediate_size)
  end)

  it("maps Gemma 2 (gemma-2-9b)", function()
    local s = spec_of("google/gemma-2-9b")
    assert.are.equal(256, s.head_dim)                -- "head_dim": 256 (3584 / 16 = 224)
    assert.are.equal(8, s.num_key_value_heads)
    assert.are.equal(4, s.layer_norms)               -- Gemma2DecoderLayer: pre/post attention and MLP norms
    assert.is_true(s.tie_word_embeddings)            -- not in the file; Gemma2Config ties by default
    assert.are.equal("float32", s.torch_dtype)
    assert.is_false(s.qkv_bias)
  end)

  it("derives Qwen3-Next's layer_types from full_attention_interval (Qwen3-Next-80B-A3B)", function()
    local s = spec_of("Qwen/Qwen3-Next-80B-A3B-Instruct")
    -- no layer_types in the file; "full_attention_interval": 4 over 48 layers:
    -- layers 4, 8, ..., 48 (1-based) are full attention
    assert.are.equal(48, #s.layer_types)
    assert.are.equal("linear_attention", s.layer_types[1])
    assert.are.equal("linear_attention", s.layer_types[3])
    assert.are.equal("full_attention", s.layer_types[4])
    assert.are.equal("full_attention", s.layer_types[48])
    assert.is_true(s.attn_output_gate)               -- Qwen3NextAttention always gates
    assert.are.equal(512, s.shared_expert_intermediate_size)
    assert.are.equal(16, s.linear_num_key_heads)
    assert.are.equal(128, s.linear_key_head_dim)
    assert.are.equal(32, s.linear_num_value_heads)
    assert.are.equal(128, s.linear_value_head_dim)
    assert.are.equal(4, s.linear_conv_kernel_dim)
  end)

  it("reads a VL model's text_config and vision_config (Qwen3-VL-30B-A3B)", function()
    local s = spec_of("Qwen/Qwen3-VL-30B-A3B-Instruct")
    assert.are.equal("qwen3_vl_moe", s.name)         -- the top-level model_type
    assert.are.equal(2048, s.hidden_size)            -- text_config.hidden_size
    assert.are.equal(128, s.num_experts)
    assert.are.equal("bfloat16", s.torch_dtype)      -- text_config.dtype (the newer spelling)
    assert.is_false(s.tie_word_embeddings)           -- top level: not in text_config
    local v = s.vision
    assert.are.equal("qwen3_vl_moe_vision", v.name)
    assert.are.equal(1152, v.hidden_size)
    assert.are.equal(27, v.num_hidden_layers)        -- "depth": 27
    assert.are.equal(16, v.num_attention_heads)      -- "num_heads": 16
    assert.are.equal(4304, v.intermediate_size)
    assert.are.equal(2048, v.out_hidden_size)
    assert.are.equal(16, v.patch_size)
    assert.are.equal(2, v.temporal_patch_size)
    assert.are.equal(3, v.in_channels)
    assert.are.equal(3, v.deepstack_mergers)         -- "deepstack_visual_indexes": [8, 16, 24]
    assert.are.equal(576, v.max_position_embeddings) -- 2304 // 2^2
    assert.is_true(v.norm_bias)
    assert.is_true(v.patch_bias)
  end)

  it("reads Qwen2.5-VL's tower and its gated MLP (Qwen2.5-VL-7B)", function()
    local w = warnings.quiet()
    local s = spec_of("Qwen/Qwen2.5-VL-7B-Instruct", { warnings = w })
    assert.are.equal(3584, s.hidden_size)            -- no text_config: the top level
    local v = s.vision
    assert.are.equal(32, v.num_hidden_layers)        -- "depth": 32
    assert.are.equal(3, v.in_channels)               -- "in_chans": 3
    assert.are.equal(3, v.ops.encoder.ffMM)          -- gate/up/down projections
    assert.is_false(v.patch_bias)
    -- no num_position_embeddings: 1024 visual tokens with a warning
    assert.are.equal(1024, v.max_position_embeddings)
    assert.matches("assuming 1024 visual tokens", w:all()[1], 1, true)
    -- context.visual_seq_len wins
    assert.are.equal(300, spec_of("Qwen/Qwen2.5-VL-7B-Instruct", { visual_seq_len = 300 }).vision.max_position_embeddings)
  end)

  it("maps Qwen3.5 (Qwen3.5-35B-A3B): layer_types, MTP, gate, no dense width", function()
    local s = spec_of("Qwen/Qwen3.5-35B-A3B")
    assert.are.equal("qwen3_5_moe", s.name)
    assert.are.equal(40, #s.layer_types)
    assert.are.equal(1, s.mtp_depth)                 -- "mtp_num_hidden_layers": 1
    assert.is_true(s.attn_output_gate)               -- "attn_output_gate": true
    assert.is_nil(s.intermediate_size)               -- none stated: model_spec derives it
    assert.are.equal(512, s.shared_expert_intermediate_size)
    assert.are.equal(256, s.num_experts)
  end)

  it("reads partial_rotary_factor on the tower, in rope_parameters, or as GPT-NeoX's rotary_pct", function()
    -- Qwen3.5-35B-A3B: text_config.rope_parameters.partial_rotary_factor 0.25
    assert.are.equal(0.25, spec_of("Qwen/Qwen3.5-35B-A3B").partial_rotary_factor)
    -- Qwen3-Next-80B-A3B-Instruct: "partial_rotary_factor": 0.25 on the top level
    assert.are.equal(0.25, spec_of("Qwen/Qwen3-Next-80B-A3B-Instruct").partial_rotary_factor)
    assert.are.equal(0.25, hf_config.to_spec(decode('{"model_type":"gpt_neox","rotary_pct":0.25}')).partial_rotary_factor)
    assert.is_nil(spec_of("meta-llama/Llama-3.1-8B").partial_rotary_factor) -- the whole head
  end)

  it("never reads keys starting with _ (Qwen2.5-72B partial file)", function()
    local s = spec_of("Qwen/Qwen2.5-72B")
    -- max_position_embeddings sits only under _inferred_not_verified there
    assert.is_nil(s.max_position_embeddings)
    assert.are.equal(8192, s.hidden_size)
  end)

  it("takes the first stated alias, in the reference's order", function()
    local s = hf_config.to_spec(decode('{"model_type":"m","num_experts":4,"n_routed_experts":8,'
      .. '"qk_layernorm":true,"torch_dtype":"float16","dtype":"bfloat16","n_shared_experts":1,"num_shared_experts":2}'))
    assert.are.equal(4, s.num_experts)
    assert.is_true(s.qk_norm)
    assert.are.equal("bfloat16", s.torch_dtype)     -- dtype before torch_dtype
    assert.are.equal(1, s.num_shared_experts)       -- n_shared_experts before num_shared_experts
    assert.are.equal("custom", hf_config.to_spec({}).name)
    assert.are.equal("/x/config.json", hf_config.to_spec({}, { path = "/x/config.json" }).name)
  end)

  it("warns about dense layers inside an MoE stack it cannot state", function()
    local w = warnings.quiet()
    hf_config.to_spec(decode('{"model_type":"qwen2_moe","mlp_only_layers":[0,1],"decoder_sparse_step":2}'),
                      { warnings = w })
    assert.are.equal(2, #w:all())
    assert.matches("mlp_only_layers", w:all()[1], 1, true)
  end)
end)
