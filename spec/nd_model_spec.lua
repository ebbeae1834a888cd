-- nd.resolve_model and nd.model (the block of lua/nd/init.lua for issue 3).
local nd = require "nd"
local core = require "nd.core"
local warnings = require "nd.warnings"

describe("nd.resolve_model", function()
  it("returns the settled spec, its source and the run keys", function()
    local spec, source, run = nd.resolve_model({ pretrained_model_name_or_path = "Qwen/Qwen3-8B",
                                                 config_overrides = { seq_length = 8192 } },
                                               { warnings = warnings.quiet() })
    assert.are.equal("qwen3", spec.name)
    assert.are.equal("catalog", source.kind)
    assert.are.same({ seq_length = 8192 }, run)
  end)
end)

describe("nd.model", function()
  -- GPT-2: 124,439,808 parameters (shared/models/PARAMS.md, the GPT-2 card's 124M)
  local GPT2_PARAMS = 124439808

  it("builds the C model from a hub id, a spec, or a settled spec", function()
    if not core.model then
      pending("nd.core.model is not built into this ndlua")
      return
    end
    local from_id = nd.model("openai-community/gpt2", { warnings = warnings.quiet() })
    assert.are.equal(GPT2_PARAMS, from_id:params().total)
    local settled = nd.resolve_model("openai-community/gpt2", { warnings = warnings.quiet() })
    assert.are.equal(GPT2_PARAMS, nd.model(settled):params().total)
    local spec = { name = "gpt2", hidden_size = 768, num_hidden_layers = 12, num_attention_heads = 12,
                   vocab_size = 50257, intermediate_size = 3072, tie_word_embeddings = true,
                   learned_position_embeddings = 1024, qkv_bias = true, o_bias = true, mlp_bias = true,
                   norm_bias = true }
    assert.are.equal(GPT2_PARAMS, nd.model(spec):params().total)
  end)
end)
