-- deepseek.lua: op profile of DeepSeek-V2/V3 (MLA attention): the first
-- first_k_dense_replace layers are dense, the rest (and MTP) MoE, each with
-- the default decoder's op counts. MLA's value head width defaults to 128.
-- Reference model-spec-census-train-yaml.md §b.1, §b.3, memory-model.md §5.1.
return {
  extends = "default",
  default = "moe",
  kinds = {
    dense = { ffn = "dense" },
    moe = { ffn = "moe" },
  },
  -- the router scores by an fp32 sigmoid
  model = { v_head_dim = 128, sigmoid_router = true },
}
