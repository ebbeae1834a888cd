-- mistral.lua: op profile of Mistral (MistralForCausalLM): the Llama layer,
-- with sliding-window attention that flash attention prices as the full
-- one's memory.
-- The op counts are llama.lua's, the default decoder's (reference
-- model-spec-census-train-yaml.md §b.1), under the family's own name, so
-- that a team can tune it here without touching the others.
return {
  extends = "llama",
}
