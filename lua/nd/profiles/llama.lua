-- llama.lua: op profile of Llama (LlamaForCausalLM: Llama 2, 3, 3.1): the
-- plain pre-norm decoder of default.lua, two RMSNorms a layer, a gated SiLU
-- MLP. A name starting "llama2" keeps llama2.lua.
-- The op counts are default.lua's (reference model-spec-census-train-yaml.md
-- §b.1), under the family's own name, so that a team can tune it here
-- without touching the others.
return {
  extends = "default",
}
