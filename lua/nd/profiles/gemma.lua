-- gemma.lua: op profile of Gemma 2 and Gemma 3 (Gemma2ForCausalLM,
-- Gemma3ForCausalLM). The default decoder's op counts but four RMSNorms a
-- layer (input, post-attention, pre- and post-feed-forward), each keeping
-- its input for backward: normOp 4. The MLP is gated (GeLU-tanh), as
-- default's SiLU one. Logit soft-capping and the sliding window change no
-- saved tensor under flash attention. Gemma 3's q and k norms are counted
-- as parameters (qk_norm), not as ops here.
return {
  default = "decoder",
  kinds = {
    decoder = {
      ops = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 1, dropout = 0, normOp = 4,
              gather = 4, headCast = 1, ffAct = 1, linrec = 0 },
    },
  },
  run = {},
  model = {},
}
