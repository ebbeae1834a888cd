-- t5.lua: op profile of T5 encoder-decoder models: the first half of the
-- layers are encoder layers, the second half decoder layers (with
-- cross-attention: 8 projections). Dropout masks in 1 byte.
-- Counts from memory-model.md §5.2 (each kind the default decoder's but for
-- the counts it states); run from reference model-spec-census-train-yaml.md §b.1.
return {
  extends = "default",
  default = "encoder",
  kinds = {
    encoder = { ops = { attBMM = 1, ffMM = 2, softmax = 2, dropout = 5 } },
    decoder = { ops = { attMM = 8, ffMM = 2, softmax = 4, dropout = 7, normOp = 3, gather = 6 } },
  },
  run = { dropout_bytes = 1 },
  -- a relative position bias on the scores: no rotary embedding
  model = { no_rope = true },
}
