-- gpt.lua: op profile of a GPT-3-style layer (GPT-2, Megatron GPT):
-- LayerNorm with bias, a plain 2-matmul GeLU MLP, dropout after attention
-- and after the MLP, no flash attention. Korthikanti et al. 2022 count its
-- activations as sbh(34 + 5as/h) bytes in fp16: dropout masks in 1 byte
-- (as^2b for the scores, sbh twice for the residual dropouts: dropout 2),
-- LayerNorm inputs in 2 bytes (4sbh for the two norms: norm_bytes 2).
-- The other op counts are the default decoder's.
return {
  extends = "default",
  kinds = {
    decoder = { ops = { ffMM = 2, dropout = 2 } },
  },
  run = { flash_attention = false, dropout_bytes = 1, norm_bytes = 2 },
  -- learned absolute positions (wpe): no rotary embedding
  model = { no_rope = true },
}
