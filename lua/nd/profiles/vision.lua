-- vision.lua: op profile of a vision tower (ViT encoder): the default
-- decoder's op counts but a plain 2-matmul MLP. The tower's activation
-- sharding follows its language family (nd.model.spec settles it).
-- Reference model-spec-census-train-yaml.md §b.1, §f.
return {
  extends = "default",
  default = "encoder",
  kinds = {
    encoder = { ops = { ffMM = 2 } },
  },
}
