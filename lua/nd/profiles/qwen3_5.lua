-- qwen3_5.lua: op profile of the Qwen3.5 / Qwen3-Next hybrids: gated-DeltaNet
-- linear-attention layers between full-attention layers, named by the
-- config's layer_types. A full-attention layer is qwen's decoder; a linear
-- layer has no s^2 score terms (attBMM, softmax, headCast 0) and one
-- delta-rule state update (linrec 1). The family shards activations as
-- qwen does. Reference model-spec-census-train-yaml.md §b.1, §b.5.
return {
  extends = "qwen",
  default = "full_attention",
  kinds = {
    full_attention = {},
    linear_attention = {
      attention = "linear",
      ops = { attBMM = 0, softmax = 0, headCast = 0, linrec = 1 },
    },
  },
  -- zero-centred norms (weight + 1), kept in fp32
  model = { zero_centered_norms = true },
}
