--- A layer kind's flavours on the Lua side: each attention flavour and each feed-forward
-- flavour of the C core (nd.core.types.model.choices) is one row of what a model states for
-- it. nd.model.spec lists and checks the rows' fields; nd.hf_config reads them from a
-- config.json by the rows' config names. The core prices each kind by its forms
-- (src/core/layer_kinds.c: full attention, MLA, linear attention; dense, MoE).
--
-- A row: `what`, its name in messages; `dims`, its own fields, each {name, type, "pos"} as
-- nd.model.spec's FIELDS lists them (int: a whole number; "pos": > 0 when stated) with
-- `config`, the names a config.json states it under, first found wins (its own name when
-- absent).
-- @module nd.model.kinds

local kinds = {}

--- The attention flavours. A flavour's dims are stated all or none, and needed by a stack
-- with a kind of it.
kinds.ATTENTION = {
  full = { what = "full-attention", dims = {} },
  -- the gated DeltaNet (model-spec-census-train-yaml.md §b.4 LinearAttentionDims)
  linear = { what = "linear-attention", dims = {
    { "linear_num_key_heads", "int", "pos" }, { "linear_key_head_dim", "int", "pos" },
    { "linear_num_value_heads", "int", "pos" }, { "linear_value_head_dim", "int", "pos" },
    { "linear_conv_kernel_dim", "int", "pos" } } },
}

--- The feed-forward flavours (the core's `model`, a kind that states none, is the model's own:
-- moe when it has experts). nd.model.spec settles their widths (settle_experts).
kinds.FFN = {
  -- GPT-2 states its MLP width as n_inner (GPT2Config's attribute_map)
  dense = { what = "dense", dims = { { "intermediate_size", "int", config = { "intermediate_size", "n_inner" } } } },
  -- Mixtral's num_local_experts is its expert count (MixtralConfig's attribute_map exposes it as
  -- num_experts); DeepSeek states n_routed_experts and n_shared_experts
  moe = { what = "mixture-of-experts", routed = true, dims = {
    { "num_experts", "int", config = { "num_experts", "n_routed_experts", "num_local_experts" } },
    { "num_experts_per_tok", "int", "pos" },
    { "num_shared_experts", "int", config = { "n_shared_experts", "num_shared_experts" } },
    { "moe_intermediate_size", "int" }, { "shared_expert_intermediate_size", "int" },
    { "first_k_dense_replace", "int" } } },
}

--- A row's field names in order.
function kinds.dim_names(row)
  local names = {}
  for i, f in ipairs(row.dims) do names[i] = f[1] end
  return names
end

--- A row's fields as a config.json reader's alias lists: {name, config name...} each.
function kinds.aliases(row)
  local out = {}
  for i, f in ipairs(row.dims) do
    out[i] = { f[1], table.unpack(f.config or { f[1] }) }
  end
  return out
end

return kinds
