-- qwen.lua: op profile of Qwen2, Qwen2.5, Qwen3 and their MoE and VL models.
-- Counts as default; the family shards activations over TP ranks
-- (shard_recompute_input = shard_output_activ = t). Reference model-spec-census-train-yaml.md §b.1,
-- memory-model.md §4.8.
return {
  extends = "default",
  run = { shard_activations = true },
}
