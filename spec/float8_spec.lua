-- Float8 training refused by name (issue 31 item 5): a run stating float8
-- is not priced as the bf16 run it is not. torchao's Float8Linear keeps the
-- linears' high-precision inputs and weights for the backward and casts
-- both to float8 per matmul (with float8 FSDP all-gathers when enabled);
-- Transformer Engine keeps its own casts and amax histories; ndlua models
-- neither.
local nd = require "nd"

describe("float8", function()
  for _, key in ipairs { "float8", "fp8", "float8_linear", "enable_float8_linear", "enable_fsdp_float8_all_gather",
                         "mxfp8" } do
    it("refuses " .. key .. " by name, saying why", function()
      local ok, err = pcall(nd.run, { [key] = true, runtime = "torchtitan" })
      assert.is_false(ok)
      assert.are.equal(key, err.path)
      assert.truthy(tostring(err.message):find("float8 training is not priced", 1, true))
      assert.truthy(tostring(err.accepted):find("bf16 run", 1, true))
    end)
  end

  it("float8 = false states the bf16 run, priced as the run without it", function()
    local m = nd.model("meta-llama/Llama-3.1-8B")
    local plain = nd.estimate(m, nd.run { runtime = "torchtitan", dp = 8, seq_length = 2048 })
    local stated = nd.estimate(m, nd.run { runtime = "torchtitan", dp = 8, seq_length = 2048, float8 = false })
    assert.are.equal(plain.peak_bytes, stated.peak_bytes)
  end)
end)
