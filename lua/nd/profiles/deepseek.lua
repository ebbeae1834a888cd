-- deepseek.lua: op profile of DeepSeek-V2/V3 (MLA attention): the first
-- first_k_dense_replace layers are dense, the rest (and MTP) MoE. MLA's
-- value head width defaults to 128. Reference model-spec-census-train-yaml.md §b.1, §b.3,
-- memory-model.md §5.1.
return {
  default = "moe",
  kinds = {
    dense = {
      ffn = "dense",
      ops = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 1, dropout = 0, normOp = 2,
              gather = 4, headCast = 1, ffAct = 1, linrec = 0 },
    },
    moe = {
      ffn = "moe",
      ops = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 1, dropout = 0, normOp = 2,
              gather = 4, headCast = 1, ffAct = 1, linrec = 0 },
    },
  },
  run = {},
  -- the router scores by an fp32 sigmoid
  model = { v_head_dim = 128, sigmoid_router = true },
}
