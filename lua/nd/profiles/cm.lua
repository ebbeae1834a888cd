-- cm.lua: op profile of the "cm" family: built like DeepSeek (dense then MoE
-- layers, MLA value heads of 128). Its per-layer shard overrides
-- (memory-model.md §4.8) are the memory model's, not this file's.
-- Reference model-spec-census-train-yaml.md §b.1, memory-model.md §5.2.
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
  -- the router scores by an fp32 sigmoid, as DeepSeek's
  model = { v_head_dim = 128, sigmoid_router = true },
}
