-- mixtral.lua: op profile of Mixtral. Two softmaxes (attention and router)
-- and five norm ops a layer; gradients in 2 bytes.
-- Counts from reference model-spec-census-train-yaml.md §b.1 (the newest profile, test_op_profiles.py).
-- memory-model.md §5.2 read an older mixtral.yaml with the default counts
-- (softmax 1, normOp 2); its §12 shows the documented 39474 MB needs
-- softmax 2 / normOp 5, which the newest profile states.
return {
  default = "decoder",
  kinds = {
    decoder = {
      ops = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 2, dropout = 0, normOp = 5,
              gather = 4, headCast = 1, ffAct = 1, linrec = 0 },
    },
  },
  run = { grad_bytes = 2 },
  model = {},
}
