-- phi3.lua: op profile of Phi-3 (Phi3ForCausalLM): the Llama layer with q,
-- k, v fused in qkv_proj and gate and up in gate_up_proj: the same weights
-- and the same saved tensors.
-- The op counts are llama.lua's, the default decoder's (reference
-- model-spec-census-train-yaml.md §b.1), under the family's own name, so
-- that a team can tune it here without touching the others.
return {
  extends = "llama",
}
