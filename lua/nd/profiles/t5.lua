-- t5.lua: op profile of T5 encoder-decoder models: the first half of the
-- layers are encoder layers, the second half decoder layers (with
-- cross-attention: 8 projections). Dropout masks in 1 byte.
-- Counts from memory-model.md §5.2; run from reference model-spec-census-train-yaml.md §b.1.
return {
  default = "encoder",
  kinds = {
    encoder = {
      ops = { attMM = 4, attBMM = 1, ffMM = 2, softmax = 2, dropout = 5, normOp = 2,
              gather = 4, headCast = 1, ffAct = 1, linrec = 0 },
    },
    decoder = {
      ops = { attMM = 8, attBMM = 2, ffMM = 2, softmax = 4, dropout = 7, normOp = 3,
              gather = 6, headCast = 1, ffAct = 1, linrec = 0 },
    },
  },
  run = { dropout_bytes = 1 },
  -- a relative position bias on the scores: no rotary embedding
  model = { no_rope = true },
}
