-- Refusals of the C core: each bad run or model spec is a bad-input error
-- (exit 2 from a script) whose message names the field.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local core = require "nd.core"
local tiny = dofile("spec/support/tiny.lua")

local function refusal(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected a refusal")
  assert.is_table(err)
  assert.is_true(err.bad_input)
  return err.message
end

describe("nd.run refuses", function()
  local cases = {
    { { tp = 0 }, "tp must be positive, got 0" },
    { { dp = -4 }, "dp must be positive, got -4" },
    { { tp = 2.5 }, "tp must be a whole number, got 2.5" },
    { { tp = "four" }, "tp must be a whole number, got \"four\" (a string)" },
    { { pp = 2 ^ 40 }, "pp must be from 1 to 1048576" },
    { { tpp = 2 }, "run: unknown key 'tpp'" },
    { { sequence_parallel = "yes" }, "sequence_parallel must be true or false" },
    { { pp_schedule = "1f2b" }, "pp_schedule: '1f2b' is not one of" },
    { { vpp = 3, pp_schedule = "zero_bubble_v" }, "zero_bubble_v (DualPipeV) runs at most 2 chunks" },
    { { recompute = "auto" }, "recompute: 'auto' is not a recompute mode" },
    { { recompute = { { first = 0, option = "partial" } } }, "recompute[1].option must be none, off, selective or full" },
    { { recompute = { { first = 0, count = 4, option = "full" }, { first = 2, option = "full" } } },
      "recompute[2] starts at layer 2, inside or before the range before it" },
    { { recompute = { { first = 0, option = "full" }, { first = 8, option = "full" } } },
      "recompute[2] follows an open range" },
    { { recompute = { { first = 0, option = "full", ops = { softmax = "recompute" } } } },
      "recompute[1].ops: only a selective range names ops" },
    { { recompute = { { option = "selective", ops = { sofmax = "recompute" } } } }, "'sofmax' is no op" },
    { { offset = { 1, 2 }, pp = 4 }, "offset lists 2 entries; the run has 4" },
    { { device_memory = "lots" }, "device_memory: 'lots' is no memory size" },
    { { micro_batch_num = 4, global_batch_size = 100, dp = 8 }, "global_batch_size 100 is not micro_batch_size x dp x micro_batch_num" },
    { { dp = 1024, tp = 1024, pp = 4 }, "devices; ndlua plans at most" },
    { { zero = 4 }, "ZeRO stage 4 is not 0, 1, 2 or 3" },
  }
  for _, c in ipairs(cases) do
    it(c[2], function()
      assert.matches(c[2], refusal(nd.run, c[1]), 1, true)
    end)
  end
end)

describe("nd.estimate refuses a layout that does not fit the stack", function()
  local m = tiny.dense { num_hidden_layers = 4 }
  it("a recompute range past the last layer, with the counts", function()
    local run = nd.run { recompute = { { first = 3, count = 3, option = "full" } } }
    assert.matches("recompute range 1 (first 3) reaches layer 5, past the model's 4 layers",
      refusal(nd.estimate, m, run), 1, true)
  end)
  it("an offset that misplaces layers", function()
    local run = nd.run { pp = 2, micro_batch_num = 2, offset = { 1, 0 } }
    assert.matches("offset places 5 layers, but the stack has 4", refusal(nd.estimate, m, run), 1, true)
  end)
end)

describe("nd.core.model refuses", function()
  local ops = tiny.DEFAULT_OPS
  local function spec(fields)
    local s = { name = "tiny", arch = "default", hidden_size = 64, num_hidden_layers = 2, num_attention_heads = 4,
                num_key_value_heads = 4, head_dim = 16, layer_norms = 2, vocab_size = 100, intermediate_size = 128,
                kinds = { decoder = { ops = ops } }, layers = { { kind = "decoder", count = 2 } } }
    for k, v in pairs(fields) do s[k] = v end
    return s
  end
  local cases = {
    { { hidden_size = 0 }, "hidden_size must be positive, got 0" },
    { { vocab_size = false }, "vocab_size must be a whole number" },
    { { num_key_value_heads = 3 }, "num_key_value_heads (3) must divide num_attention_heads (4)" },
    { { hidden_size = 10 ^ 15 }, "hidden_size must be from 1 to 16777216" },
    { { hiden_size = 64 }, "model spec: unknown key 'hiden_size'" },
    { { layers = { { kind = "decoder", count = 3 } } }, "layers must list num_hidden_layers body layers, then mtp_depth MTP layers" },
    { { mtp_depth = 1 }, "layers must list num_hidden_layers body layers, then mtp_depth MTP layers" },
    { { layers = { { kind = "decoder", count = 1, mtp = true }, { kind = "decoder", count = 2 } }, mtp_depth = 1 },
      "layers must list num_hidden_layers body layers, then mtp_depth MTP layers" },
    { { layers = { { kind = "encoder", count = 2 } } }, "kinds.encoder is not described" },
    { { num_experts = 8, moe_intermediate_size = 0, intermediate_size = 0 }, "layer kind 'decoder' is a mixture of experts, but moe_intermediate_size is not stated" },
    { { activations = { decoder = { saved = -1, saved_tp = 1, working = 1, working_tp = 1, seq_length = 8 } } },
      "activations.decoder.saved must be from 0" },
    { { activations = { decoder = { saved = 1, saved_tp = 1, working = 1, working_tp = 1, seq_length = 8, selective = 1 } } },
      "activations.decoder: selective and selective_tp come together" },
    { { activations = { decoder = { saved = 1, saved_tp = 1, working = 1, working_tp = 1, seq_length = 8, extra = 1 } } },
      "unknown key 'extra'" },
  }
  for _, c in ipairs(cases) do
    it(c[2], function()
      assert.matches(c[2], refusal(core.model, spec(c[1])), 1, true)
    end)
  end
end)
