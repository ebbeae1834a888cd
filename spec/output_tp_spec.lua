-- The output layer under TP (issue 31 item 6). Korthikanti et al. 2022
-- (section 4.3) count the output layer under TP with sequence parallelism
-- as 4·s·b·h/t·(1 + v/h): the final norm's input (2sbh/t), the head's input
-- (2sbh/t, Megatron's ColumnParallelLinear saves the rank's sequence shard
-- and gathers it again in the backward) and the fp32 logits of the
-- vocabulary-parallel loss (4sbv/t). ndlua adds the int64 labels, which
-- every TP rank holds whole (vocab_parallel_cross_entropy takes the unsplit
-- [s, b] labels): 8·s·b. torchtitan's head gathers its input before the
-- matmul (ColwiseParallel with input_layouts Shard(1)) and saves it whole:
-- 2sbh·(1 - 1/t) more (head_input_gathered, its profile).
local nd = require "nd"
local tiny = dofile("spec/support/tiny.lua")

local H, A, V, S = 1024, 16, 51200, 2048

-- A GPT-style model (LayerNorm, no biases in the loss) of width H, vocabulary V.
local m = tiny.dense { name = "gpt", arch = "gpt", hidden_size = H, num_attention_heads = A, num_key_value_heads = A,
  intermediate_size = 4 * H, num_hidden_layers = 2, layers = { { kind = "decoder", count = 2 } },
  qkv_bias = true, o_bias = true, mlp_bias = true, norm_bias = true, vocab_size = V,
  kinds = { decoder = { ops = tiny.GPT_OPS } },
  family = { flash_attention = false, dropout_bytes = 1, norm_bytes = 2, no_rope = true } }

local function output_bytes(fields)
  local spec = { seq_length = S, micro_batch_size = 1, micro_batch_num = 1 }
  for k, v in pairs(fields) do spec[k] = v end
  for _, row in ipairs(nd.estimate(m, nd.run(spec)).stages[1].rows) do
    if row.kind == "output" then return row.activation_bytes_per_layer end
  end
end

describe("the output layer under TP", function()
  for _, t in ipairs { 2, 4, 8 } do
    local korthikanti = 4 * S * H / t * (1 + V / H)
    it("Megatron with SP: Korthikanti's 4sbh/t(1 + v/h) and the whole labels, t = " .. t, function()
      assert.are.equal(korthikanti + 8 * S,
                       output_bytes { runtime = "megatron", tp = t, sequence_parallel = true })
    end)
    it("torchtitan with SP: its head saves its gathered input, 2sbh(1 - 1/t) more, t = " .. t, function()
      local megatron_form = output_bytes { runtime = "torchtitan", tp = t, sequence_parallel = true,
                                           head_input_gathered = false }
      assert.are.equal(2 * S * H * (1 - 1 / t),
                       output_bytes { runtime = "torchtitan", tp = t, sequence_parallel = true } - megatron_form)
    end)
  end
  it("without SP the norm and the head keep their whole inputs (Megatron replicates them over TP)", function()
    -- the norm's input and the head's input whole: 4sbh, the fp32 logits split: 4sbv/t, the labels 8sb
    local t = 8
    assert.are.equal(4 * S * H + 4 * S * V / t + 8 * S,
                     output_bytes { runtime = "megatron", tp = t, sequence_parallel = false })
  end)
end)
