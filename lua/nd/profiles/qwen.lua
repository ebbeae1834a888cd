-- qwen.lua: op profile of Qwen2, Qwen2.5, Qwen3 and their MoE and VL models.
-- Counts as default; the family shards activations over TP ranks
-- (shard_recompute_input = shard_output_activ = t). Reference model-spec-census-train-yaml.md §b.1,
-- memory-model.md §4.8.
return {
  default = "decoder",
  kinds = {
    decoder = {
      ops = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 1, dropout = 0, normOp = 2,
              gather = 4, headCast = 1, ffAct = 1, linrec = 0 },
    },
  },
  run = { shard_activations = true },
  model = {},
}
