-- default.lua: op profile of a plain pre-norm decoder (Llama, Gemma, any
-- model no other profile matches). Reference model-spec-census-train-yaml.md §b.1, memory-model.md §5.2.
--
-- A profile is plain data. Copy this file to <arch>.lua in an nd/profiles/
-- directory on NDLUA_PATH (or load it with nd.profiles.load_file) to make a
-- new one, or write one that extends a shipped one. Keys:
--   extends  the profile this one starts from (optional): it then states
--            only what differs, and a kind only the ops that differ
--   kinds    each layer kind the family builds: ops = the op vector (every
--            count a whole number >= 0), attention = "full" | "linear"
--            (default "full"), ffn = "dense" | "moe" | nil (nil: the
--            model's own feed-forward)
--   default  the kind of a layer nothing else names (optional with one kind)
--   run      family run defaults over DEFAULT_RUN (nd.profiles.default_run())
--   model    family model defaults: v_head_dim, zero_centered_norms,
--            sigmoid_router, no_rope
-- Op vector (per layer): attMM q,k,v,o projections; attBMM QK^T and AV;
-- ffMM feed-forward matmuls (3 gated, 2 plain); softmax; dropout; normOp
-- norms; gather TP gathers; headCast score casts; ffAct activations;
-- linrec delta-rule state updates.
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
