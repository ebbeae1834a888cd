Supported model types (issue 13, item 3). A config.json's model_type must
be one ndlua has a layer model for (nd.hf_config.SUPPORTED, each with the
op profile it is priced with); any other is refused by name unless the
model states an op profile. Falcon-7B (multi-query, parallel attention)
is refused, not priced as a plain decoder (11.16 B parameters for its 7.2 B).

  $ mkdir falcon && cat > falcon/config.json <<'EOF'
  > {
  >   "model_type": "falcon",
  >   "hidden_size": 4544,
  >   "num_attention_heads": 71,
  >   "num_hidden_layers": 32,
  >   "multi_query": true,
  >   "parallel_attn": true,
  >   "vocab_size": 65024
  > }
  > EOF
  $ ndlua verify.lua falcon
  falcon/config.json:2:17: model_type: model_type falcon is not supported: ndlua has no layer model for it, and pricing it as another family's would be wrong without a word; supported (with the op profile each is priced with): llama (llama), mistral (mistral), mixtral (mixtral), phi3 (phi3), gemma2 (gemma), gemma3_text (gemma), qwen2 (qwen), qwen2_5_vl (qwen), qwen3 (qwen), qwen3_moe (qwen), qwen3_vl_moe (qwen), qwen3_next (qwen3_5), qwen3_5 (qwen3_5), qwen3_5_moe (qwen3_5), deepseek_v2 (deepseek), deepseek_v3 (deepseek), gpt2 (gpt); or state an op profile with model.config_overrides.arch (cm, deepseek, default, gemma, gpt, llama, llama2, mistral, mixtral, pangualpha, phi3, qwen, qwen3_5, t5, vision) to price it as that family
  [2]

Stating an op profile takes the responsibility: the model is then priced as
that family, from the fields it states (here the FFN width Falcon's config
leaves to its code, 4 x 4544 = 18176):

  $ cat > falcon.yaml <<'EOF'
  > model:
  >   pretrained_model_name_or_path: falcon
  >   config_overrides:
  >     arch: default
  >     intermediate_size: 18176
  > EOF
  $ ndlua verify.lua falcon.yaml 2>&1 | grep -E '^model'
  model falcon (arch default)

Gemma 3 (model_type gemma3_text) ties its embeddings by default
(Gemma3TextConfig), keeps four RMSNorms a layer and normalizes q and k
over head_dim. Gemma 3 1B by hand: the embedding 262144 x 1152 =
301,989,888; a layer's attention 1152 x 256 x (4 + 1 + 1 + 4) = 2,949,120,
its gated MLP 3 x 1152 x 6912 = 23,887,872, its norms 4 x 1152 + 2 x 256 =
5,120: 26,842,112 a layer, 697,894,912 for 26; the final norm 1,152; the
head tied, so nothing more: 999,885,952 (the count Hugging Face lists for
google/gemma-3-1b-pt). Untied it would be 301,989,888 more.

  $ mkdir gemma3 && cat > gemma3/config.json <<'EOF'
  > {
  >   "model_type": "gemma3_text",
  >   "hidden_size": 1152,
  >   "intermediate_size": 6912,
  >   "num_hidden_layers": 26,
  >   "num_attention_heads": 4,
  >   "num_key_value_heads": 1,
  >   "head_dim": 256,
  >   "vocab_size": 262144,
  >   "max_position_embeddings": 32768
  > }
  > EOF
  $ ndlua verify.lua gemma3 2>&1 | grep -E '^(model|warning)|^  (total|tie_word_embeddings|qk_norm|layer_norms) ' | head -5
  model gemma3_text (arch gemma)
    tie_word_embeddings                true
    qk_norm                            true
    layer_norms                        4
    total                       999,885,952  (999.89 M)
