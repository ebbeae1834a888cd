-- HyperParallel (torch-based, on Ascend or GPU) running Transformers models,
-- as a train.yaml states them. Its facts come from the train.yaml itself
-- and the model family's profile (lua/nd/profiles/), so this profile
-- states nothing more: eager Transformers kernels unless the yaml's
-- replacements name fused ones.
return {
  name = "hyperparallel",
  about = "HyperParallel train.yaml runs (the default for train.yaml): facts from the yaml and the family",
  peak = "allocated",
  run = {},
}
