-- llama2.lua: op profile of Llama 2 named models (a name starting "llama2").
-- Counts as default; the family accumulates gradients in 2 bytes even
-- without pipeline parallelism. Reference model-spec-census-train-yaml.md §b.1, memory-model.md §4.8, §5.1.
return {
  default = "decoder",
  kinds = {
    decoder = {
      ops = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 1, dropout = 0, normOp = 2,
              gather = 4, headCast = 1, ffAct = 1, linrec = 0 },
    },
  },
  run = { grad_bytes = 2, grad_accumulation = true },
  model = {},
}
