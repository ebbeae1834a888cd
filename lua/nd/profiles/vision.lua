-- vision.lua: op profile of a vision tower (ViT encoder): a plain
-- 2-matmul MLP. The tower's activation sharding follows its language
-- family (nd.model.spec settles it). Reference model-spec-census-train-yaml.md §b.1, §f.
return {
  default = "encoder",
  kinds = {
    encoder = {
      ops = { attMM = 4, attBMM = 2, ffMM = 2, softmax = 1, dropout = 0, normOp = 2,
              gather = 4, headCast = 1, ffAct = 1, linrec = 0 },
    },
  },
  run = {},
  model = {},
}
