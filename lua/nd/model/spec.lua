--- Model spec validation and settling: a spec (the canonical fields of a
-- Transformers config, config_overrides laid over) becomes the *settled*
-- spec that `nd.core.model` takes (lua/nd/README.md describes it).
-- Reference model-spec-census-train-yaml.md §a.1-§a.3 (fields, coercions, validation, settled facts),
-- §b (the layer stack), §c.1 (census records), §f (vision tower).
-- Every refusal is a bad-input error whose message names the field.
-- @module nd.model.spec

local core = require "nd.core"
local errors = require "nd.errors"
local profiles = require "nd.profiles"
local layer_stack = require "nd.layer_stack"
local hf_config = require "nd.hf_config"
local kinds = require "nd.model.kinds"

local model_spec = {}

--- A layer kind's attention and feed-forward flavours (the C core's,
-- nd.core.types.model.choices), each one row of what a model states for it (nd.model.kinds).
model_spec.ATTENTION = kinds.ATTENTION
model_spec.FFN = kinds.FFN

-- The lists in order, one after another.
local function joined(...)
  local out = {}
  for _, list in ipairs({ ... }) do table.move(list, 1, #list, #out + 1, out) end
  return out
end

-- The fields of a model spec in print order, with their type (model-spec-census-train-yaml.md §a.2):
-- int (whole number; "pos": > 0 when stated, else >= 0), float, flag
-- (a real boolean), string, dtype, and the structured fields; the feed-forward flavours'
-- fields are their rows' (dense, then after max_position_embeddings moe).
-- learned_position_embeddings is ndlua's: the rows of a learned position
-- table (GPT-2's wpe, n_positions rows) that rotary models lack.
model_spec.FIELDS = joined({
  { "name", "string" }, { "arch", "string" },
  { "hidden_size", "int", "pos" }, { "num_hidden_layers", "int", "pos" },
  { "num_attention_heads", "int", "pos" }, { "num_key_value_heads", "int", "pos" },
  { "head_dim", "int", "pos" }, { "vocab_size", "int", "pos" } },
  model_spec.FFN.dense.dims, { { "max_position_embeddings", "int", "pos" } }, model_spec.FFN.moe.dims, {
  { "mtp_depth", "int" },
  { "kv_lora_rank", "int" }, { "q_lora_rank", "int" }, { "qk_rope_head_dim", "int" },
  { "qk_nope_head_dim", "int" }, { "v_head_dim", "int", "pos" },
  { "multiple_of", "int", "pos" }, { "ffn_dim_multiplier", "float" }, { "partial_rotary_factor", "float" },
  { "attn_output_gate", "flag" }, { "tie_word_embeddings", "flag" },
  { "learned_position_embeddings", "int" },
  { "qk_norm", "flag" }, { "qkv_bias", "flag" }, { "o_bias", "flag" }, { "mlp_bias", "flag" },
  { "norm_bias", "flag" }, { "shared_expert_gate", "flag" }, { "layer_norms", "int" },
  { "torch_dtype", "dtype" },
})
-- then the attention flavours' own fields, in the core's order of the flavours, and the structured ones
for _, flavour in ipairs(core.types.model.choices.attention) do
  local dims = model_spec.ATTENTION[flavour].dims
  table.move(dims, 1, #dims, #model_spec.FIELDS + 1, model_spec.FIELDS)
end
table.move({ { "layer_types", "names" }, { "ops", "table" }, { "layers", "table" }, { "activations", "table" },
             { "output_activations", "table" }, { "vision", "table" } }, 1, 6, #model_spec.FIELDS + 1, model_spec.FIELDS)

local KIND = {}
local POSITIVE = {}
for _, f in ipairs(model_spec.FIELDS) do
  KIND[f[1]] = f[2]
  POSITIVE[f[1]] = f[3] == "pos"
end

model_spec.REQUIRED = { "hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size" }

local dim_names = kinds.dim_names

--- Whether `key` is a model spec field.
function model_spec.is_field(key)
  return KIND[key] ~= nil
end

--- Whether a field is a plain value (number, flag or string) that a model
-- section may state directly.
function model_spec.is_scalar_field(key)
  local k = KIND[key]
  return k ~= nil and k ~= "table" and k ~= "names"
end

local function fail(path, message, accepted)
  errors.raise { path = path, message = message, accepted = accepted }
end

local function describe(v)
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) == "table" then return (v[1] ~= nil or next(v) == nil) and "a list" or "a mapping" end
  return tostring(v)
end

-- The range the C core reads each number field in (src/binding/lnd_model.c's
-- model fields, nd.core.model_bounds): checked here, where the refusal is placed
-- at the key's file:line or option (nd.model.source), not in the core, which
-- knows no place.
local bounds

-- Refuses a number past its field's range; `key` is the path, `field` the
-- field; a float field's numbers shown as floats (0.0, 1e+15), as the core
-- shows them.
local function check_bounds(key, field, n, float)
  bounds = bounds or core.model_bounds()
  local b = bounds[field]
  if b and not (n >= b[1] and n <= b[2]) then -- NaN too
    local function shown(x) return tostring(float and x + 0.0 or x) end
    fail(key, string.format("%s must be from %s to %s, got %s", key, shown(b[1]), shown(b[2]), shown(n)))
  end
end

-- One value coerced by its kind (model-spec-census-train-yaml.md §a.2 from_dict); `key` is the path
-- named in messages.
local function coerce_value(key, v, kind, positive)
  local field = key:match("[%w_]+$")
  if kind == "int" then
    local n = type(v) == "number" and math.tointeger(v) or nil
    if not n then fail(key, key .. " must be an integer, got " .. describe(v)) end
    if n < 0 or (n == 0 and positive) then
      fail(key, key .. " must be " .. (positive and "positive" or "at least 0") .. ", got " .. n)
    end
    check_bounds(key, field, n)
    return n
  elseif kind == "float" then
    if type(v) ~= "number" then fail(key, key .. " must be a number, got " .. describe(v)) end
    check_bounds(key, field, v, true)
  elseif kind == "flag" then
    if type(v) ~= "boolean" then fail(key, key .. " must be true or false, got " .. describe(v)) end
  elseif kind == "string" then
    if type(v) ~= "string" or v == "" then fail(key, key .. " must be a non-empty string, got " .. describe(v)) end
  elseif kind == "dtype" then
    if type(v) ~= "string" then fail(key, key .. " must be a dtype name such as bfloat16, got " .. describe(v)) end
    return (v:gsub("^torch%.", ""))
  elseif kind == "names" then
    if type(v) ~= "table" then fail(key, "layer_types must list layer type names") end
    for i, name in ipairs(v) do
      if type(name) ~= "string" then fail(key, "layer_types must list layer type names; entry " .. i .. " is " .. describe(name)) end
    end
  elseif kind == "table" and type(v) ~= "table" then
    fail(key, key .. " must be a table, got " .. describe(v))
  end
  return v
end

--- Checks the keys and value types of a spec; returns a coerced copy
-- (JSON/YAML nulls dropped). Unknown keys are refused by name.
-- @tparam table spec
-- @tparam[opt] string where what the spec was read from, for the message
function model_spec.coerce(spec, where)
  if type(spec) ~= "table" then fail(where, "a model spec must be a table, got " .. describe(spec)) end
  local unknown = {}
  for key in pairs(spec) do
    if not KIND[key] then unknown[#unknown + 1] = tostring(key) end
  end
  if #unknown > 0 then
    table.sort(unknown)
    fail(where, "unknown model spec keys [" .. table.concat(unknown, ", ") .. "]: a model spec states the model only, "
         .. "and a run's strategy, such as its offset or recompute, belongs in its execution spec")
  end
  local out = {}
  for key, v in pairs(spec) do
    if not core.isnull(v) then out[key] = coerce_value(key, v, KIND[key], POSITIVE[key]) end
  end
  return out
end

-- Required fields present and positive (model-spec-census-train-yaml.md §a.2 validation 1).
local function check_required(s)
  for _, key in ipairs(model_spec.REQUIRED) do
    if s[key] == nil then
      fail(key, key .. " is required and was not supplied",
           "supply it in the model config or in model.config_overrides")
    end
  end
end

-- KV heads, head width (model-spec-census-train-yaml.md §a.2 validation 2, effective_head_dim). An MLA
-- model's head width is its value width: v_head_dim, else the family's
-- (DeepSeek: 128; memory-model.md §4.8), as the reference's derive sets dh.
local function settle_attention(s, family)
  local heads = s.num_attention_heads
  s.num_key_value_heads = s.num_key_value_heads or heads
  if heads % s.num_key_value_heads ~= 0 then
    fail("num_key_value_heads", string.format(
      "num_attention_heads %d is not divisible by num_key_value_heads %d", heads, s.num_key_value_heads))
  end
  local mla = (s.kv_lora_rank or 0) > 0
  if mla and not s.qk_rope_head_dim then
    fail("qk_rope_head_dim", "an MLA model (kv_lora_rank > 0) needs qk_rope_head_dim")
  end
  -- an MLA model's value width: stated, else the family's (the C core
  -- prices MLA values at v_head_dim, else at head_dim)
  if mla then s.v_head_dim = s.v_head_dim or family.v_head_dim end
  if not s.head_dim and mla then s.head_dim = s.v_head_dim end
  if not s.head_dim then
    if s.hidden_size % heads ~= 0 then
      fail("head_dim", string.format("hidden_size %d is not divisible by num_attention_heads %d and no head_dim is stated",
                                     s.hidden_size, heads), "state head_dim")
    end
    s.head_dim = s.hidden_size // heads
  end
end

-- MoE checks on the stated widths, then the derivations (model-spec-census-train-yaml.md §a.2
-- validation 3-4, §a.3 _derive_shared_experts, _derive_dense_ffn_width).
-- shared_expert_intermediate_size is the width of all shared experts
-- together (Qwen states one shared MLP); unstated (or 0), the C core takes
-- num_shared_experts x moe_intermediate_size (DeepSeek), as the settled
-- spec's format says.
local function settle_experts(s, warnings)
  local n_exp = s.num_experts or 0
  local is_moe = n_exp > 1
  if n_exp == 1 and (s.num_experts_per_tok or 1) > 1 then
    fail("num_experts_per_tok", string.format("num_experts_per_tok %d routes each token to more experts than the "
      .. "1 num_experts states", s.num_experts_per_tok),
      "num_experts_per_tok at most num_experts (a single expert is a dense feed-forward)")
  end
  if is_moe and not s.moe_intermediate_size and not s.intermediate_size then
    fail("moe_intermediate_size", string.format(
      "no feed-forward width resolves for %d routed experts", n_exp),
      "declare moe_intermediate_size, or intermediate_size if the experts run at the dense width")
  end
  if (s.num_shared_experts or 0) > 0 and not s.shared_expert_intermediate_size
     and not s.moe_intermediate_size and not s.intermediate_size then
    fail("num_shared_experts", "num_shared_experts is set but no width resolves for it",
         "declare shared_expert_intermediate_size or moe_intermediate_size")
  end
  local shared = s.shared_expert_intermediate_size
  if not s.num_shared_experts and shared and s.moe_intermediate_size then
    -- Qwen2-MoE states one shared MLP of 5632 beside experts of 1408: 4 experts' worth.
    s.num_shared_experts = math.max(1, shared // s.moe_intermediate_size)
  end
  s.intermediate_size = s.intermediate_size or shared or s.moe_intermediate_size
  if not is_moe then
    if not s.intermediate_size then
      fail("intermediate_size", "intermediate_size is required for a dense feed-forward",
           "state intermediate_size (the FFN width)")
    end
    return false
  end
  if (s.moe_intermediate_size or 0) == 0 then
    s.moe_intermediate_size = s.intermediate_size -- Mixtral runs its experts at the dense width
  end
  if not s.num_experts_per_tok then
    s.num_experts_per_tok = 1
    if warnings then warnings:warn("num_experts_per_tok", "not stated for " .. n_exp .. " experts; pricing top-1 routing") end
  elseif s.num_experts_per_tok > n_exp then
    fail("num_experts_per_tok", string.format("num_experts_per_tok %d exceeds num_experts %d", s.num_experts_per_tok, n_exp))
  end
  return true
end

-- The widths that settle to 0 when stated as 0, refused once the rest of
-- the spec is settled: a width for the shared experts, and one for the
-- routed experts when a kind of the stack prices them.
local function check_zero_widths(s)
  local n_exp = s.num_experts or 0
  if (s.num_shared_experts or 0) > 0 and (s.shared_expert_intermediate_size or 0) == 0
     and (s.moe_intermediate_size or 0) == 0 then
    errors.raise { message = "num_shared_experts is set but no width resolves for it",
                   accepted = "declare shared_expert_intermediate_size or moe_intermediate_size" }
  end
  if n_exp <= 1 or (s.moe_intermediate_size or 0) > 0 then return end
  for _, k in pairs(s.kinds) do
    if k.ffn == "moe" or k.ffn == nil then
      errors.raise { message = string.format("no feed-forward width resolves for %d routed experts", n_exp),
                     accepted = "declare moe_intermediate_size, or intermediate_size if the experts run at the "
                       .. "dense width" }
    end
  end
end

-- Each attention flavour's own fields: all or none (model-spec-census-train-yaml.md §b.4
-- LinearAttentionDims); the set of the flavours whose fields are stated.
local function check_attention_dims(s)
  local out = {}
  for _, flavour in ipairs(core.types.model.choices.attention) do
    local row = model_spec.ATTENTION[flavour]
    local stated, missing = 0, {}
    for _, key in ipairs(dim_names(row)) do
      if s[key] then stated = stated + 1 else missing[#missing + 1] = key end
    end
    if stated > 0 and #missing > 0 then
      fail(missing[1], row.what .. " dims are partly stated; missing " .. table.concat(missing, ", "),
           "state all of " .. table.concat(dim_names(row), ", ") .. ", or none")
    end
    out[flavour] = stated > 0
  end
  return out
end

local function name_has(name, ...)
  local lower = name:lower()
  for _, part in ipairs({ ... }) do
    if lower:find(part, 1, true) then return true end
  end
  return false
end

-- The settled facts inferred from the name when unstated (model-spec-census-train-yaml.md §a.3 _validated).
local function settle_flags(s, warnings)
  s.name = s.name or "custom"
  s.arch = s.arch or profiles.infer_arch(s.name, warnings)
  local function default(key, value)
    if s[key] == nil then s[key] = value end
  end
  default("qk_norm", name_has(s.name, "qwen3"))
  default("qkv_bias", name_has(s.name, "qwen2"))
  default("shared_expert_gate", name_has(s.name, "qwen2_moe", "qwen3_5", "qwen3_next"))
  -- the gpt profile is GPT-2/GPT-3's layer: LayerNorm with a bias, as
  -- Korthikanti et al. price it (issue 12, item 7)
  default("norm_bias", s.arch == "gpt")
  for _, key in ipairs({ "o_bias", "mlp_bias", "norm_bias", "attn_output_gate", "tie_word_embeddings" }) do
    default(key, false)
  end
  default("layer_norms", 2)
end

-- Declared op counts must name exactly the profile's kinds (model-spec-census-train-yaml.md §b.1 resolve_ops).
local function declared_ops(ops, profile, where)
  if not ops then return {} end
  local names = {}
  for kind in pairs(ops) do names[#names + 1] = tostring(kind) end
  table.sort(names)
  if table.concat(names, ",") ~= table.concat(profile.kind_names, ",") then
    fail(where, string.format("%s declares layer kinds %s, but arch '%s' prices %s", where,
                              layer_stack.quoted_list(names), profile.name, layer_stack.quoted_list(profile.kind_names)))
  end
  local out = {}
  for _, kind in ipairs(names) do
    local body = { ops = ops[kind], attention = profile.kinds[kind].attention, ffn = profile.kinds[kind].ffn }
    out[kind] = profiles.check({ kinds = { [kind] = body } }, profile.name, where).kinds[kind].ops
  end
  return out
end

-- The kinds a stack uses, each {ops, attention, ffn}: the profile's, with
-- declared op counts in place of the profile's.
local function kinds_of(groups, profile, declared)
  local kinds = {}
  for _, kind in ipairs(layer_stack.distinct_kinds(groups)) do
    local k = profile.kinds[kind]
    local counts = {}
    for op, n in pairs(declared[kind] or k.ops) do counts[op] = n end
    kinds[kind] = { ops = counts, attention = k.attention, ffn = k.ffn }
  end
  return kinds
end

-- The stack (stated or derived) and the kinds it uses (model-spec-census-train-yaml.md §b.2-§b.4).
local function settle_layers(s, profile, is_moe, dims_stated, warnings)
  local groups
  if s.layers then
    groups = layer_stack.check_groups(s.layers, "layers")
  else
    groups = layer_stack.derive(profile, {
      num_layers = s.num_hidden_layers, mtp_depth = s.mtp_depth, layer_types = s.layer_types,
      first_k_dense = s.first_k_dense_replace, is_moe = is_moe }, warnings)
  end
  layer_stack.check_kinds(groups, profile, "layers")
  layer_stack.check_counts(groups, s.num_hidden_layers, s.mtp_depth, "layers")
  local kinds = kinds_of(groups, profile, declared_ops(s.ops, profile, "ops"))
  for _, k in pairs(kinds) do
    local row = model_spec.ATTENTION[k.attention]
    if row and #row.dims > 0 and not dims_stated[k.attention] then
      fail(row.dims[1][1], string.format("op profile '%s' prices %s layers, but the model declares no %s",
        profile.name, row.what, table.concat(dim_names(row), ", ")))
    end
  end
  return groups, kinds
end

-- The fields of a vision tower spec (model-spec-census-train-yaml.md §a.2 VisionSpec), with the extras
-- the C core counts a tower's parameters from (patch conv, deepstack
-- mergers, biases).
local VISION_FIELDS = {
  name = { "string" }, hidden_size = { "int", true }, num_hidden_layers = { "int", true },
  num_attention_heads = { "int", true }, num_key_value_heads = { "int", true }, head_dim = { "int", true },
  intermediate_size = { "int", true }, out_hidden_size = { "int", true }, patch_size = { "int", true },
  spatial_merge_size = { "int", true }, num_position_embeddings = { "int", true },
  max_position_embeddings = { "int", true }, temporal_patch_size = { "int", true },
  in_channels = { "int", true }, deepstack_mergers = { "int" }, layer_norms = { "int" },
  qkv_bias = { "flag" }, o_bias = { "flag" }, mlp_bias = { "flag" }, norm_bias = { "flag" },
  patch_bias = { "flag" }, layers = { "table" }, ops = { "table" },
}

-- Coerces a tower spec: unknown keys refused (the reference drops them
-- silently; ndlua refuses them, as it does a text spec's).
local function coerce_vision(v)
  if type(v) ~= "table" then fail("vision", "vision must be a table of the tower's fields") end
  local t = {}
  for key, value in pairs(v) do
    local f = VISION_FIELDS[key]
    local path = "vision." .. tostring(key)
    if not f then
      local names = {}
      for name in pairs(VISION_FIELDS) do names[#names + 1] = name end
      table.sort(names)
      fail(path, "unknown vision tower key '" .. tostring(key) .. "'", "one of " .. table.concat(names, ", "))
    end
    if not core.isnull(value) then t[key] = coerce_value(path, value, f[1], f[2]) end
  end
  for _, key in ipairs({ "hidden_size", "num_hidden_layers", "num_attention_heads" }) do
    if not t[key] then fail("vision." .. key, "the vision tower is missing required field vision." .. key) end
  end
  return t
end

--- Settles a vision tower spec on the `vision` profile (model-spec-census-train-yaml.md §a.2 VisionSpec, §f).
-- @tparam table v the tower spec
-- @tparam table text_family the language model's family facts
-- @tparam table opts visual_seq_len, warnings
function model_spec.settle_vision(v, text_family, opts)
  local t = coerce_vision(v)
  t.name, t.arch = t.name or "vision", "vision"
  t.num_key_value_heads = t.num_key_value_heads or t.num_attention_heads
  if not t.head_dim then
    -- a tower's head width need not be whole: it is priced as the quotient
    local heads = t.num_attention_heads
    t.head_dim = t.hidden_size % heads == 0 and t.hidden_size // heads or t.hidden_size / heads
  end
  for _, key in ipairs({ "qkv_bias", "o_bias", "mlp_bias", "norm_bias", "patch_bias" }) do
    if t[key] == nil then t[key] = false end
  end
  t.layer_norms = t.layer_norms or 2
  t.max_position_embeddings = t.max_position_embeddings
    or hf_config.visual_tokens(t, opts.visual_seq_len, opts.warnings)
  local profile = profiles.get("vision")
  local groups = t.layers and layer_stack.check_groups(t.layers, "vision.layers")
    or { { kind = profile.default, count = t.num_hidden_layers, mtp = false } }
  for _, g in ipairs(groups) do
    if g.mtp then fail("vision.layers", "vision.layers marks MTP layers; a tower has none") end
  end
  layer_stack.check_kinds(groups, profile, "vision.layers")
  layer_stack.check_counts(groups, t.num_hidden_layers, 0, "vision.layers")
  t.layers, t.kinds = groups, kinds_of(groups, profile, declared_ops(t.ops, profile, "vision.ops"))
  t.ops = nil
  t.family = profiles.family("vision")
  t.family.shard_activations = text_family.shard_activations
  return t
end

--- Whether a spec is already settled (has its stack, kinds and family).
function model_spec.is_settled(spec)
  return type(spec) == "table" and type(spec.kinds) == "table" and type(spec.family) == "table"
    and type(spec.layers) == "table"
end

--- Validates and settles a model spec (a new table; the input is not changed).
-- @tparam table spec canonical fields (nd.hf_config output, overrides laid over)
-- @tparam[opt] table opts `warnings` (a collector), `visual_seq_len`, `where`
--   (what the spec was read from, for unknown-key messages)
-- @treturn table the settled spec of lua/nd/README.md
function model_spec.settle(spec, opts)
  opts = opts or {}
  local w = opts.warnings
  local s = model_spec.coerce(spec, opts.where)
  check_required(s)
  settle_flags(s, w)
  local profile = profiles.get(s.arch, "arch")
  s.family = profiles.family(s.arch)
  settle_attention(s, s.family)
  local is_moe = settle_experts(s, w)
  local dims_stated = check_attention_dims(s)
  s.layers, s.kinds = settle_layers(s, profile, is_moe, dims_stated, w)
  s.ops, s.layer_types = nil, nil
  -- (nd.census.record loads here, with the first model stating census records)
  if s.activations then s.activations = require("nd.census.record").check_all(s.activations, s.kinds) end
  if s.output_activations then
    s.output_activations = require("nd.census.record").check(s.output_activations, "output_activations")
  end
  if s.vision then s.vision = model_spec.settle_vision(s.vision, s.family, opts) end
  check_zero_widths(s)
  return s
end

return model_spec
