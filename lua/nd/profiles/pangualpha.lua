-- pangualpha.lua: op profile of PanGu-alpha. Dropout masks in 1 byte.
-- Counts from memory-model.md §5.2; run from reference model-spec-census-train-yaml.md §b.1.
return {
  default = "decoder",
  kinds = {
    decoder = {
      ops = { attMM = 4, attBMM = 1, ffMM = 2, softmax = 2, dropout = 5, normOp = 4,
              gather = 4, headCast = 1, ffAct = 1, linrec = 0 },
    },
  },
  run = { dropout_bytes = 1 },
  -- learned absolute positions: no rotary embedding
  model = { no_rope = true },
}
