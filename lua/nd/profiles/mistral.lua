-- mistral.lua: op profile of Mistral (MistralForCausalLM): the Llama layer,
-- with sliding-window attention that flash attention prices as the full
-- one's memory.
-- The op counts are default.lua's (reference model-spec-census-train-yaml.md §b.1): a model of this
-- family is priced as before, under its own name, and a team can tune it
-- here without touching the others.
return {
  default = "decoder",
  kinds = {
    decoder = {
      ops = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 1, dropout = 0, normOp = 2,
              gather = 4, headCast = 1, ffAct = 1, linrec = 0 },
    },
  },
  run = {},
  model = {},
}
