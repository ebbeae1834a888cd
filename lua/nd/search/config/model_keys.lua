--- The model section of a search config under the reference planner's own
-- names: the search configs its users have (`auto_parallel-*.yaml`) write
-- the model in the Llama/DeepSeek reference code's names (`n_layers`,
-- `dim`, `inter_dim`, `n_heads`, ...) or in Transformers' names, and mix in
-- run facts (`param_init_type`, `seq_len`, `local_batch_size`,
-- `recompute_slice_activation`, ...). Each key maps here to what ndlua
-- reads: a model spec field, a key of the train.yaml the search config
-- stands for, or nothing (a key ndlua cannot price is warned about, never
-- refused).
-- @module nd.search.config.model_keys

local model_spec = require "nd.model.spec"

local model_keys = {}

--- The reference's names of model fields, by the model spec field they are.
model_keys.ALIASES = {
  n_layers = "num_hidden_layers", num_layers = "num_hidden_layers",
  dim = "hidden_size",
  inter_dim = "intermediate_size", ffn_hidden_size = "intermediate_size",
  n_heads = "num_attention_heads",
  n_kv_heads = "num_key_value_heads", num_query_groups = "num_key_value_heads",
  moe_inter_dim = "moe_intermediate_size",
  n_routed_experts = "num_experts",
  n_activated_experts = "num_experts_per_tok",
  n_shared_experts = "num_shared_experts",
  n_dense_layers = "first_k_dense_replace",
  num_nextn_predict_layers = "mtp_depth",
}

--- The training sequence: the first of these stated, else
-- max_position_embeddings (the reference's search config prices its
-- sequence at the context length, default 4096 tokens).
model_keys.SEQUENCE = { "seq_len", "seq_length", "max_seq_len" }
model_keys.DEFAULT_SEQUENCE = 4096

-- Run facts, by the train.yaml key each becomes. The train.yaml a search
-- config stands for is in the legacy (hyper_v2) schema, as the reference
-- planner writes it for its cost model, so the reference's precision keys
-- are read as they are: param_init_type the width the weights are kept in,
-- compute_dtype the width the layers compute in.
local RUN = {
  local_batch_size = { "train", "micro_batch_size" },
  param_init_type = { "model", "param_init_type" },
  compute_dtype = { "model", "compute_dtype" },
  softmax_compute_type = { "model", "softmax_compute_type" },
  recompute_slice_activation = { "train", "gradient_checkpointing", "recompute_slice_activation" },
  capacity_factor = { "model", "config_overrides", "capacity_factor" },
}
model_keys.RUN = RUN

-- Keys read for a check or a warning only, with what ndlua does instead.
local UNPRICED = {
  offset = "the search balances each candidate's stages itself (the first layers-mod-pp stages one layer more); "
    .. "an offset states one pipeline's layout",
  moe_enabled = true,
  optimizer_weight_shard_size = true,
}

local function is_int(v) return math.type(v) == "integer" end

-- The model spec kinds a value is checked against here, so that every
-- wrong value of the section is listed in one pass.
local function value_problem(field, v)
  local kind
  for _, f in ipairs(model_spec.FIELDS) do
    if f[1] == field then kind = f[2] end
  end
  if kind == "int" and not (is_int(v) and v >= 0) then return "must be a whole number, got " .. tostring(v) end
  if kind == "flag" and type(v) ~= "boolean" then return "must be true or false, got " .. tostring(v) end
  if kind == "float" and type(v) ~= "number" then return "must be a number, got " .. tostring(v) end
  return nil
end

--- Reads a search config's model section.
-- @tparam table model the section (a loaded mapping)
-- @tparam table p the config's problem collector (`error`, `warn`)
-- @tparam function keys_of a mapping's keys in document order
-- @treturn table `{fields = {spec field = value}, names = {spec field = the
--   key stating it}, run = {{path, value, key}},
--   sequence = tokens or nil, sequence_key, op = optimizer_weight_shard_size,
--   moe_enabled}`
function model_keys.read(model, p, keys_of)
  local out = { fields = {}, run = {}, names = {} }
  if type(model) ~= "table" then return out end
  local from = out.names -- the key each field was stated under
  for _, key in ipairs(keys_of(model)) do
    local v, path = model[key], "model." .. tostring(key)
    local field = model_keys.ALIASES[key] or (model_spec.is_field(key) and key) or nil
    if type(key) ~= "string" then
      p:error(model, key, path, "a model key is a name")
    elseif field then
      local problem = value_problem(field, v)
      if problem then
        p:error(model, key, path, problem)
      elseif from[field] and out.fields[field] ~= v then
        p:error(model, key, path, string.format("states %s, which model.%s states as %s; keep one", field,
          from[field], tostring(out.fields[field])))
      else
        out.fields[field], from[field] = v, key
      end
    elseif RUN[key] then
      out.run[#out.run + 1] = { RUN[key], v, key }
    elseif key == "seq_len" or key == "seq_length" or key == "max_seq_len" then
      if not (is_int(v) and v > 0) then
        out.sequence_refused = true
        p:error(model, key, path, "must be a number of tokens above 0, got " .. tostring(v))
      elseif out.sequence and out.sequence ~= v then
        p:error(model, key, path, string.format("states %d tokens; model.%s states %d", v, out.sequence_key,
          out.sequence))
      else
        out.sequence, out.sequence_key = v, key
      end
    elseif key == "moe_enabled" then
      if type(v) ~= "boolean" then p:error(model, key, path, "must be true or false, got " .. tostring(v)) end
      out.moe_enabled = v
    elseif key == "optimizer_weight_shard_size" then
      if not (is_int(v) and v > 0) then
        p:error(model, key, path, "must be a whole number above 0, got " .. tostring(v))
      else
        out.op = v
      end
    elseif key == "use_flash_attention" then
      -- false: the eager attention, keeping its scores (a train.yaml's attn_implementation: eager)
      if type(v) ~= "boolean" then
        p:error(model, key, path, "must be true or false, got " .. tostring(v))
      elseif v == false then
        out.run[#out.run + 1] = { { "model", "attn_implementation" }, "eager", key }
      end
    elseif UNPRICED[key] then
      p:warn(path, "is not read: " .. UNPRICED[key], "unpriced")
    else
      p:warn(path, "is no model field ndlua knows under this name or another; it is not priced", "unknown")
    end
  end
  local experts = out.fields.num_experts or 0
  if out.moe_enabled == true and experts <= 1 then
    p:error(model, "moe_enabled", "model.moe_enabled", "true, but the model states no num_experts above 1")
  elseif out.moe_enabled == false and experts > 1 then
    p:warn("model.moe_enabled", string.format("false, but num_experts is %d: the model is priced with its experts",
      experts))
  end
  return out
end

-- Sets doc[path[1]][path[2]]... = v, creating the sections.
local function set(doc, path, v)
  local t = doc
  for i = 1, #path - 1 do
    if type(t[path[i]]) ~= "table" then t[path[i]] = {} end
    t = t[path[i]]
  end
  t[path[#path]] = v
end

--- The train.yaml a search config without train_yaml stands for (legacy
-- schema, which builds the model's MTP layers as the reference prices
-- them): the model fields as config_overrides, the run facts at their
-- keys, the training sequence.
-- @treturn table the document
-- @treturn boolean whether the sequence was defaulted (no seq_len nor
--   max_position_embeddings)
function model_keys.document(m)
  local overrides = {}
  for k, v in pairs(m.fields) do overrides[k] = v end
  local doc = { model = { config_overrides = overrides }, train = { micro_batch_size = 1 } }
  for _, r in ipairs(m.run) do set(doc, r[1], r[2]) end
  local seq = m.sequence or m.fields.max_position_embeddings
  local defaulted = seq == nil and not m.sequence_refused
  seq = seq or model_keys.DEFAULT_SEQUENCE
  if not overrides.max_position_embeddings or overrides.max_position_embeddings < seq then
    overrides.max_position_embeddings = seq
  end
  set(doc, { "data", "max_seq_len" }, seq)
  return doc, defaulted
end

return model_keys
