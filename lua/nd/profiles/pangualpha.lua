-- pangualpha.lua: op profile of PanGu-alpha. Dropout masks in 1 byte.
-- Counts from memory-model.md §5.2 (the default decoder's but for the five
-- below); run from reference model-spec-census-train-yaml.md §b.1.
return {
  extends = "default",
  kinds = {
    decoder = { ops = { attBMM = 1, ffMM = 2, softmax = 2, dropout = 5, normOp = 4 } },
  },
  run = { dropout_bytes = 1 },
  -- learned absolute positions: no rotary embedding
  model = { no_rope = true },
}
