-- Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
-- Transformer Models", Table 2: activation bytes of one GPT-3-style layer
-- (fp16, dropout, no flash attention, MLP 4h), per micro-batch:
--   no parallelism        s·b·h·(34 + 5·a·s/h)
--   TP t                  s·b·h·(10 + 24/t + 5·a·s/(h·t))
--   TP t + SP             s·b·h·(34/t + 5·a·s/(h·t))
--   TP t + selective      s·b·h·(10 + 24/t)
--   TP t + SP + selective s·b·h·34/t
--   full recompute        2·s·b·h
-- The `megatron` selective rule recomputes exactly the paper's attention
-- core (softmax, its dropout, and the dropout's output). ndlua must give
-- these exactly with the gpt profile.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local tiny = dofile("spec/support/tiny.lua")

local function layer_bytes(m, fields)
  local spec = { seq_length = fields.s, micro_batch_size = fields.b, tp = fields.t, param_bytes = 2,
                 compute_bytes = 2, softmax_bytes = 2, reserve_bytes = 0, micro_batch_num = 1,
                 sequence_parallel = fields.sp or false, selective_rule = "megatron" }
  if fields.selective then spec.recompute = "selective" end
  if fields.full then spec.recompute = "full" end
  local e = nd.estimate(m, nd.run(spec))
  return tiny.row(e, 0, "decoder").activation_bytes_per_layer
end

local CASES = {
  { s = 2048, b = 1, h = 1024, a = 16 },
  { s = 4096, b = 2, h = 2048, a = 32 },
  { s = 1024, b = 4, h = 12288, a = 96 }, -- GPT-3 175B's width and heads
}

describe("Korthikanti et al. 2022 Table 2, gpt profile", function()
  for _, c in ipairs(CASES) do
    local m = tiny.gpt(c.h, c.a, 2)
    local sbh = c.s * c.b * c.h
    local score = 5 * c.a * c.s / c.h
    for _, t in ipairs { 1, 2, 4, 8 } do
      local label = string.format("s=%d b=%d h=%d a=%d t=%d", c.s, c.b, c.h, c.a, t)
      it("no recompute, TP: " .. label, function()
        assert.are.equal(sbh * (10 + 24 / t + score / t), layer_bytes(m, { s = c.s, b = c.b, t = t }))
      end)
      it("TP + SP: " .. label, function()
        assert.are.equal(sbh * (34 / t + score / t), layer_bytes(m, { s = c.s, b = c.b, t = t, sp = true }))
      end)
      it("TP + selective: " .. label, function()
        assert.are.equal(sbh * (10 + 24 / t), layer_bytes(m, { s = c.s, b = c.b, t = t, selective = true }))
      end)
      it("TP + SP + selective: " .. label, function()
        assert.are.equal(sbh * 34 / t, layer_bytes(m, { s = c.s, b = c.b, t = t, sp = true, selective = true }))
      end)
      it("full recompute: " .. label, function()
        assert.are.equal(2 * sbh, layer_bytes(m, { s = c.s, b = c.b, t = t, full = true }))
      end)
    end
    it(string.format("no parallelism is 34 + 5as/h (s=%d h=%d)", c.s, c.h), function()
      assert.are.equal(sbh * (34 + score), layer_bytes(m, { s = c.s, b = c.b, t = 1 }))
    end)
  end
end)
