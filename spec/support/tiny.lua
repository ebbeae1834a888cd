-- tiny.lua: small hand-countable models for the memory-model specs (settled specs for nd.core.model).
local core = require "nd.core"

local tiny = {}

-- Op counts of the reference's default profile (a gated MLP: ffMM 3).
tiny.DEFAULT_OPS = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 1, dropout = 0, normOp = 2, gather = 4,
                     headCast = 1, ffAct = 1, linrec = 0 }
-- A GPT-3-style layer: plain GeLU MLP (ffMM 2), two dropouts, two LayerNorms.
tiny.GPT_OPS = { attMM = 4, attBMM = 2, ffMM = 2, softmax = 1, dropout = 2, normOp = 2, gather = 4,
                 headCast = 1, ffAct = 1, linrec = 0 }

-- A dense decoder of `layers` layers; fields override the defaults.
function tiny.dense(fields)
  local spec = {
    name = "tiny", arch = "default", hidden_size = 64, num_hidden_layers = 2, num_attention_heads = 4,
    num_key_value_heads = 4, intermediate_size = 256, vocab_size = 1000,
    kinds = { decoder = { ops = tiny.DEFAULT_OPS } },
  }
  for k, v in pairs(fields or {}) do spec[k] = v end
  spec.layers = spec.layers or { { kind = "decoder", count = spec.num_hidden_layers } }
  -- settled as nd.model.spec settles them
  local h, a = spec.hidden_size, spec.num_attention_heads
  spec.head_dim = spec.head_dim or (h % a == 0 and h // a or h / a)
  spec.layer_norms = spec.layer_norms or 2
  return core.model(spec)
end

-- A GPT-3-style model of hidden h and a heads: fp16 LayerNorms, dropout, no flash attention.
function tiny.gpt(h, a, layers)
  return tiny.dense {
    name = "gpt", arch = "gpt", hidden_size = h, num_attention_heads = a, num_key_value_heads = a,
    intermediate_size = 4 * h, num_hidden_layers = layers or 4, layers = { { kind = "decoder", count = layers or 4 } },
    qkv_bias = true, o_bias = true, mlp_bias = true, norm_bias = true,
    kinds = { decoder = { ops = tiny.GPT_OPS } },
    family = { flash_attention = false, dropout_bytes = 1, norm_bytes = 2, no_rope = true },
  }
end

-- Llama 3.1 8B (its catalog config, through nd.model) narrowed so that the
-- vocabulary weighs: `layers` layers of hidden 512, 4 heads of 128, 1 KV
-- head, MLP 1792; vocabulary 128256, untied, so each table holds
-- 128256 x 512 = 65667072 parameters.
function tiny.wide_vocab_llama(layers)
  return require("nd").model {
    pretrained_model_name_or_path = "meta-llama/Llama-3.1-8B",
    config_overrides = { hidden_size = 512, num_hidden_layers = layers, num_attention_heads = 4,
                         num_key_value_heads = 1, head_dim = 128, intermediate_size = 1792,
                         vocab_size = 128256, tie_word_embeddings = false },
  }
end

-- The first row of stage `stage` (0-based) whose kind is `kind`.
function tiny.row(estimate, stage, kind)
  for _, row in ipairs(estimate.stages[stage + 1].rows) do
    if row.kind == kind then return row end
  end
end

-- Static bytes of a stage: parameters, gradients, optimizer states, main copies.
function tiny.static(stage)
  return stage.params + stage.grads + stage.optimizer + stage.main_params
end

return tiny
