-- cm.lua: op profile of the "cm" family: built like DeepSeek (dense then MoE
-- layers, MLA value heads of 128, the router scored by an fp32 sigmoid), so
-- it is deepseek.lua's. Its per-layer shard overrides (memory-model.md
-- §4.8) are the memory model's, not this file's.
-- Reference model-spec-census-train-yaml.md §b.1, memory-model.md §5.2.
return {
  extends = "deepseek",
}
