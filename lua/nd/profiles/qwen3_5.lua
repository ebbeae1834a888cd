-- qwen3_5.lua: op profile of the Qwen3.5 / Qwen3-Next hybrids: gated-DeltaNet
-- linear-attention layers between full-attention layers, named by the
-- config's layer_types. A linear layer has no s^2 score terms (attBMM,
-- softmax, headCast 0) and one delta-rule state update (linrec 1).
-- Reference model-spec-census-train-yaml.md §b.1, §b.5.
return {
  default = "full_attention",
  kinds = {
    full_attention = {
      attention = "full",
      ops = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 1, dropout = 0, normOp = 2,
              gather = 4, headCast = 1, ffAct = 1, linrec = 0 },
    },
    linear_attention = {
      attention = "linear",
      ops = { attMM = 4, attBMM = 0, ffMM = 3, softmax = 0, dropout = 0, normOp = 2,
              gather = 4, headCast = 0, ffAct = 1, linrec = 1 },
    },
  },
  run = { shard_activations = true },
  -- zero-centred norms (weight + 1), kept in fp32
  model = { zero_centered_norms = true },
}
