-- llama2.lua: op profile of Llama 2 named models (a name starting "llama2").
-- Counts as llama (the default decoder's); the family accumulates gradients
-- in 2 bytes even without pipeline parallelism. Reference
-- model-spec-census-train-yaml.md §b.1, memory-model.md §4.8, §5.1.
return {
  extends = "llama",
  run = { grad_bytes = 2, grad_accumulation = true },
}
