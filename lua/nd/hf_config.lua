--- A Transformers config.json mapped to a model spec (canonical field names).
-- Reference model-spec-census-train-yaml.md §a.3 (aliases, derivations), §a.4 (families), §f (vision).
-- The result is an unsettled spec: nd.model.spec validates and settles it.
--
-- Rules, in order:
-- 1. The text tower is `text_config` when the config has one (VL models),
--    else the config itself; `vision_config` becomes the `vision` sub-spec.
-- 2. Each canonical field takes the first alias the tower states; a JSON
--    null counts as absent; keys starting with `_` are never read (the
--    catalog's partial files keep notes under `_source`).
-- 3. Facts a Transformers config class holds in code rather than in its
--    config.json (CLASS_FACTS) fill fields the file leaves out.
-- @module nd.hf_config

local core = require "nd.core"
local errors = require "nd.errors"
local kinds = require "nd.model.kinds"

local hf_config = {}

local function present(v)
  return v ~= nil and not core.isnull(v)
end

-- The lists in order, one after another.
local function joined(...)
  local out = {}
  for _, list in ipairs({ ... }) do table.move(list, 1, #list, #out + 1, out) end
  return out
end

-- Canonical text field -> its aliases, first stated wins (model-spec-census-train-yaml.md §a.3); a
-- layer kind flavour's fields are its row's (nd.model.kinds: the feed-forward and the linear
-- attention fields, with their config names). Beyond the reference's table:
-- * GPT-2 names (n_embd, n_layer, n_head, n_inner, n_positions) come last:
--   they are what GPT2Config's attribute_map points hidden_size etc. at.
-- * Mixtral's `num_local_experts` is its expert count: MixtralConfig's
--   attribute_map exposes it as `num_experts` (the reference could not
--   confirm this; without it Mixtral would read as a dense model).
hf_config.TEXT_ALIASES = joined({
  { "hidden_size", "hidden_size", "n_embd" },
  { "num_hidden_layers", "num_hidden_layers", "n_layer" },
  { "num_attention_heads", "num_attention_heads", "n_head" },
  { "num_key_value_heads", "num_key_value_heads" },
  { "head_dim", "head_dim" } },
  kinds.aliases(kinds.FFN.dense), {
  { "vocab_size", "vocab_size" },
  { "max_position_embeddings", "max_position_embeddings", "n_positions" } },
  kinds.aliases(kinds.FFN.moe), {
  { "mtp_depth", "mtp_depth", "num_nextn_predict_layers", "mtp_num_hidden_layers" },
  { "multiple_of", "multiple_of" },
  { "ffn_dim_multiplier", "ffn_dim_multiplier" },
  { "kv_lora_rank", "kv_lora_rank" },
  { "q_lora_rank", "q_lora_rank" },
  { "qk_rope_head_dim", "qk_rope_head_dim" },
  { "qk_nope_head_dim", "qk_nope_head_dim" },
  { "v_head_dim", "v_head_dim" },
  { "attn_output_gate", "attn_output_gate" },
  { "tie_word_embeddings", "tie_word_embeddings" },
  { "qkv_bias", "qkv_bias", "attention_bias" },
  { "o_bias", "o_bias", "attention_bias" },
  { "mlp_bias", "mlp_bias" },
  { "qk_norm", "qk_norm", "use_qk_norm", "qk_layernorm" },
  { "layer_types", "layer_types" } },
  kinds.aliases(kinds.ATTENTION.linear), {
  -- the share of each head's width the rotary embedding turns (GPT-NeoX: rotary_pct)
  { "partial_rotary_factor", "partial_rotary_factor", "rotary_pct" },
  { "torch_dtype", "dtype", "torch_dtype" },
})

-- Fields a composite (VL) config may state on the top level rather than in
-- text_config: Qwen3-VL keeps tie_word_embeddings there, older VL
-- configs their torch_dtype.
local TOP_LEVEL_FALLBACK = { tie_word_embeddings = true, torch_dtype = true }

-- Vision tower field -> aliases on vision_config (model-spec-census-train-yaml.md §a.3).
hf_config.VISION_ALIASES = {
  { "hidden_size", "hidden_size" },
  { "num_hidden_layers", "depth", "num_hidden_layers" },
  { "num_attention_heads", "num_heads", "num_attention_heads" },
  { "intermediate_size", "intermediate_size" },
  { "out_hidden_size", "out_hidden_size" },
  { "patch_size", "patch_size" },
  { "spatial_merge_size", "spatial_merge_size" },
  { "num_position_embeddings", "num_position_embeddings" },
  { "temporal_patch_size", "temporal_patch_size" },
  { "in_channels", "in_channels", "in_chans" },
}

-- Transformers derives Qwen3-Next's layer_types from full_attention_interval
-- when the config lists none: layer i is full attention when (i+1) is a
-- multiple of the interval (default 4), linear attention otherwise.
local function interval_layer_types(tower)
  local n = tower.num_hidden_layers
  if math.type(n) ~= "integer" or n <= 0 then return nil end
  local interval = present(tower.full_attention_interval) and tower.full_attention_interval or 4
  if math.type(interval) ~= "integer" or interval <= 0 then return nil end
  local types = {}
  for i = 1, n do
    types[i] = (i % interval == 0) and "full_attention" or "linear_attention"
  end
  return types
end

-- What a config class holds in code, by model_type prefix: applied to fields
-- the config.json leaves unstated. Each entry says which module it is from.
-- Gemma 2's logit softcapping, query_pre_attn_scalar and sliding window
-- (alternate layers attend 4096 tokens) change no parameter and, with flash
-- attention, no activation byte: they are not mapped. (Its sliding layers do
-- fewer score FLOPs past 4096 tokens; the FLOP count does not model that.)
local CLASS_FACTS = {
  -- GPT2Model: tied wte/lm_head (PretrainedConfig default), Conv1D
  -- projections and LayerNorms with biases, a learned position table
  -- (wpe) of n_positions rows, MLP width n_inner or 4 * n_embd.
  { prefix = "gpt2", facts = function(spec)
      return { tie_word_embeddings = true, qkv_bias = true, o_bias = true, mlp_bias = true,
               norm_bias = true, learned_position_embeddings = spec.max_position_embeddings,
               intermediate_size = math.type(spec.hidden_size) == "integer" and 4 * spec.hidden_size or nil }
    end },
  -- Gemma2Config: tie_word_embeddings and head_dim 256 by default;
  -- Gemma2DecoderLayer has four RMSNorms (pre/post attention, pre/post MLP).
  { prefix = "gemma2", facts = function()
      return { tie_word_embeddings = true, head_dim = 256, layer_norms = 4 }
    end },
  -- Qwen3NextAttention always gates its output (q_proj is 2 * heads * head_dim
  -- wide); Qwen3NextConfig derives layer_types from full_attention_interval.
  -- Gemma3TextConfig: tie_word_embeddings and head_dim 256 by default;
  -- Gemma3DecoderLayer has Gemma 2's four RMSNorms, and Gemma3Attention
  -- q_norm and k_norm over head_dim.
  { prefix = "gemma3", facts = function()
      return { tie_word_embeddings = true, head_dim = 256, layer_norms = 4, qk_norm = true }
    end },
  { prefix = "qwen3_next", facts = function(_, tower)
      return { attn_output_gate = true, layer_types = interval_layer_types(tower) }
    end },
  { prefix = "qwen3_5", facts = function(_, tower)
      return { layer_types = interval_layer_types(tower) }
    end },
}

-- The first stated alias of a field in `t`, ignoring JSON nulls.
local function first_alias(t, aliases)
  for i = 2, #aliases do
    local v = t[aliases[i]]
    if present(v) then return v end
  end
  return nil
end

local function model_type_of(config, tower)
  local mt = present(config.model_type) and config.model_type or nil
  if mt == nil and present(tower.model_type) then mt = tower.model_type end
  return type(mt) == "string" and mt or nil
end

-- Fills fields the config leaves unstated from CLASS_FACTS.
local function apply_class_facts(spec, tower, model_type)
  local lower = (model_type or ""):lower()
  local text_type = type(tower.model_type) == "string" and tower.model_type:lower() or lower
  for _, entry in ipairs(CLASS_FACTS) do
    local p = entry.prefix
    if lower:sub(1, #p) == p or text_type:sub(1, #p) == p then
      for key, value in pairs(entry.facts(spec, tower)) do
        if spec[key] == nil then spec[key] = value end
      end
    end
  end
end

-- What a vision tower class holds in code, by the tower's model_type (else
-- the model's). Qwen2.5-VL (Qwen2_5_VisionTransformerPretrainedModel):
-- RMSNorms, a bias-free patch conv, biased qkv/proj, and a gated MLP
-- (gate/up/down with biases: ffMM 3 on the vision profile's encoder).
-- Qwen3-VL and Qwen3.5 (Qwen3VLVisionModel): LayerNorms with biases, a
-- biased patch conv, biased qkv/proj and a plain 2-matmul MLP with biases.
local VISION_FACTS = {
  { prefix = "qwen2_5_vl", facts = {
      qkv_bias = true, o_bias = true, mlp_bias = true, norm_bias = false, patch_bias = false,
      ops = { encoder = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 1, dropout = 0, normOp = 2,
                          gather = 4, headCast = 1, ffAct = 1, linrec = 0 } } } },
  { prefix = "qwen3_vl", facts = {
      qkv_bias = true, o_bias = true, mlp_bias = true, norm_bias = true, patch_bias = true } },
  { prefix = "qwen3_5", facts = {
      qkv_bias = true, o_bias = true, mlp_bias = true, norm_bias = true, patch_bias = true } },
}

local function apply_vision_facts(v, vc, model_type)
  local tower_type = (type(vc.model_type) == "string" and vc.model_type or model_type or ""):lower()
  for _, entry in ipairs(VISION_FACTS) do
    if tower_type:sub(1, #entry.prefix) == entry.prefix then
      for key, value in pairs(entry.facts) do
        if v[key] == nil then v[key] = value end
      end
      return
    end
  end
end

-- Warns about Qwen-MoE / DeepSeek layouts that mix dense layers into the MoE
-- stack in ways the profiles cannot state (every layer is priced as MoE).
local function warn_sparse_layout(tower, warnings)
  if not warnings then return end
  local only = tower.mlp_only_layers
  if type(only) == "table" and #only > 0 then
    warnings:warn("mlp_only_layers", "the config lists dense layers among the MoE layers; ndlua prices every layer as MoE")
  end
  local step = tower.decoder_sparse_step
  if math.type(step) == "integer" and step > 1 then
    warnings:warn("decoder_sparse_step", "only every " .. step .. "th layer is MoE in the checkpoint; ndlua prices every layer as MoE")
  end
  local freq = tower.moe_layer_freq
  if math.type(freq) == "integer" and freq > 1 then
    warnings:warn("moe_layer_freq", "only every " .. freq .. "th layer after the dense ones is MoE in the checkpoint; ndlua prices every one as MoE")
  end
end

--- The visual token count of a tower: `visual_seq_len` (context.visual_seq_len)
-- when given, else num_position_embeddings // spatial_merge_size^2, else
-- 1024 with a warning (model-spec-census-train-yaml.md §a.3, §f).
function hf_config.visual_tokens(vision, visual_seq_len, warnings)
  if visual_seq_len and visual_seq_len > 0 then return visual_seq_len end
  local grid = vision.num_position_embeddings
  if math.type(grid) == "integer" and grid > 0 then
    local merge = vision.spatial_merge_size
    if math.type(merge) ~= "integer" or merge <= 0 then merge = 1 end
    return grid // (merge * merge)
  end
  if warnings then
    warnings:warn("vision tower declares no num_position_embeddings; assuming 1024 visual tokens. "
                  .. "Set context.visual_seq_len to the tokens an image gives")
  end
  return 1024
end

-- The vision sub-spec of a vision_config table. Qwen3-VL's deepstack
-- layers each feed the language model through a patch merger of their own.
local function vision_spec(vc, name, model_type, opts)
  local v = { name = name .. "_vision" }
  for _, aliases in ipairs(hf_config.VISION_ALIASES) do
    v[aliases[1]] = first_alias(vc, aliases)
  end
  if type(vc.deepstack_visual_indexes) == "table" and #vc.deepstack_visual_indexes > 0 then
    v.deepstack_mergers = #vc.deepstack_visual_indexes
  end
  apply_vision_facts(v, vc, model_type)
  v.max_position_embeddings = hf_config.visual_tokens(v, opts.visual_seq_len, opts.warnings)
  return v
end

--- The model_types whose config.json ndlua maps and prices, each with the
-- op profile (lua/nd/profiles/) it is priced with. Any other model_type
-- is refused unless the model states its op profile (config_overrides.arch):
-- Falcon's multi-query, parallel-attention layer, Mamba's state-space
-- blocks or T5's encoder-decoder would be priced as a decoder they are not.
hf_config.SUPPORTED = {
  { "llama", "llama" }, { "mistral", "mistral" }, { "mixtral", "mixtral" }, { "phi3", "phi3" },
  { "gemma2", "gemma" }, { "gemma3_text", "gemma" },
  { "qwen2", "qwen" }, { "qwen2_5_vl", "qwen" }, { "qwen3", "qwen" }, { "qwen3_moe", "qwen" },
  { "qwen3_vl_moe", "qwen" }, { "qwen3_next", "qwen3_5" }, { "qwen3_5", "qwen3_5" }, { "qwen3_5_moe", "qwen3_5" },
  { "deepseek_v2", "deepseek" }, { "deepseek_v3", "deepseek" }, { "gpt2", "gpt" },
}

--- The op profile a model_type maps to, or nil when it is not supported.
function hf_config.profile_of(model_type)
  for _, e in ipairs(hf_config.SUPPORTED) do
    if e[1] == model_type then return e[2] end
  end
  return nil
end

--- Refuses a config.json whose model_type is not in hf_config.SUPPORTED,
-- unless the model states its op profile (`arch`). A config stating no
-- model_type is priced from its fields (with the profile warning).
-- @tparam table config the decoded config.json (positions kept)
-- @tparam string path the file, for the message
-- @tparam[opt] string arch the op profile the model states
function hf_config.check_supported(config, path, arch)
  local model_type = config.model_type
  if not present(model_type) or arch ~= nil then return end
  if type(model_type) ~= "string" then
    errors.at(config, "model_type", "model_type", "must be the name of the model's family, got "
      .. type(model_type))
  end
  if hf_config.profile_of(model_type) then return end
  local list = {}
  for _, e in ipairs(hf_config.SUPPORTED) do list[#list + 1] = e[1] .. " (" .. e[2] .. ")" end
  local file, line, col = core.where(config, "model_type")
  errors.raise { file = file or path, line = line, col = col, path = "model_type",
    message = string.format("model_type %s is not supported: ndlua has no layer model for it, and pricing it as "
      .. "another family's would be wrong without a word", model_type),
    accepted = "supported (with the op profile each is priced with): " .. table.concat(list, ", ")
      .. "; or state an op profile with model.config_overrides.arch (" .. table.concat(require("nd.profiles").known_archs(), ", ")
      .. ") to price it as that family" }
end

--- Maps a config.json table to an unsettled model spec.
-- @tparam table config the decoded config.json
-- @tparam[opt] table opts `path` (named when the config states no
--   model_type), `visual_seq_len` (context.visual_seq_len), `warnings`
-- @treturn table spec: canonical fields (absent = nil), `name`, `vision`
function hf_config.to_spec(config, opts)
  opts = opts or {}
  local tower = config
  if type(config.text_config) == "table" and not core.isnull(config.text_config) then
    tower = config.text_config
  end
  local spec = {}
  for _, aliases in ipairs(hf_config.TEXT_ALIASES) do
    local v = first_alias(tower, aliases)
    if v == nil and tower ~= config and TOP_LEVEL_FALLBACK[aliases[1]] then
      v = first_alias(config, aliases)
    end
    spec[aliases[1]] = v
  end
  -- Transformers 5 configs keep the rotary settings in rope_parameters (Qwen3.5)
  local rope = tower.rope_parameters
  if spec.partial_rotary_factor == nil and type(rope) == "table" and present(rope.partial_rotary_factor) then
    spec.partial_rotary_factor = rope.partial_rotary_factor
  end
  local model_type = model_type_of(config, tower)
  spec.name = model_type or opts.path or "custom"
  apply_class_facts(spec, tower, model_type)
  warn_sparse_layout(tower, opts.warnings)
  local vc = config.vision_config
  if type(vc) == "table" and not core.isnull(vc) then
    spec.vision = vision_spec(vc, spec.name, model_type, opts)
  end
  return spec
end

return hf_config
