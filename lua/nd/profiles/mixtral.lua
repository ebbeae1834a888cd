-- mixtral.lua: op profile of Mixtral, Mistral's MoE. Two softmaxes (attention
-- and router) and five norm ops a layer; gradients in 2 bytes.
-- Counts from reference model-spec-census-train-yaml.md §b.1 (the newest profile, test_op_profiles.py).
-- memory-model.md §5.2 reads an older mixtral.yaml with the default counts
-- (softmax 1, normOp 2); its §12 shows the documented 39474 MB needs
-- softmax 2 / normOp 5, which the newest profile states.
return {
  extends = "mistral",
  kinds = {
    decoder = { ops = { softmax = 2, normOp = 5 } },
  },
  run = { grad_bytes = 2 },
}
