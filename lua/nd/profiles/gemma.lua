-- gemma.lua: op profile of Gemma 2 and Gemma 3 (Gemma2ForCausalLM,
-- Gemma3ForCausalLM). The default decoder's op counts but four RMSNorms a
-- layer (input, post-attention, pre- and post-feed-forward), each keeping
-- its input for backward: normOp 4. The MLP is gated (GeLU-tanh), as
-- default's SiLU one. Logit soft-capping and the sliding window change no
-- saved tensor under flash attention. Gemma 3's q and k norms are counted
-- as parameters (qk_norm), not as ops here.
return {
  extends = "default",
  kinds = {
    decoder = { ops = { normOp = 4 } },
  },
}
