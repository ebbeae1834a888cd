-- FSDP over the context-parallel ranks (issue 31, the torchtitan CP rows).
--
-- torchtitan's parallelize_llama applies FSDP whenever
-- parallel_dims.dp_shard_enabled or parallel_dims.cp_enabled, on the
-- flattened dp_shard_cp mesh: with dp_shard 1 and CP 8 every block is still
-- all-gathered from eight shards before its forward and backward and its
-- gradients reduce-scattered over them. shard_spans_cp states that shard;
-- the DP buffers follow it (the ranks DP traffic spans, dp x cp), so a
-- CP-only FSDP run (dp 1) holds its gather and reduce-scatter buffers.
--
-- Runs name runtime "none" so that only the fields stated here apply (the
-- default runtime, hyperparallel, states shard_spans_cp itself).
--
-- The tiny dense model (spec/support/tiny.lua): a layer holds q, k, v, o
-- (4 x 64 x 64 = 16384), gate, up, down (3 x 64 x 256 = 49152) and two norms
-- (128): 65664 parameters. An FSDP unit's buffers (memory.c dp_buffer): the
-- gathered weights and the next layer's prefetch in bf16 (2 x 2 B) and the
-- fp32 reduce-scatter input (4 B): 8 B a parameter, 525312 B a layer. CP's
-- own buffer at 128 tokens over CP 4 (32 tokens a rank, one rotated K and V,
-- 4 heads of 16 in bf16): 2 x 32 x 4 x (16 + 16) x 2 = 16384 B, smaller.
local nd = require "nd"
local tiny = dofile("spec/support/tiny.lua")

local m = tiny.dense { num_hidden_layers = 2 }
local LAYER = 65664

local function decoder_comm(fields)
  local spec = { runtime = "none", zero = 3, param_bytes = 4, compute_bytes = 2, grad_bytes = 4, seq_length = 128,
                 micro_batch_size = 1, global_batch_size = 4, flash_attention = true }
  for k, v in pairs(fields) do spec[k] = v end
  local e = nd.estimate(m, nd.run(spec))
  for _, row in ipairs(e.stages[1].rows) do
    if row.kind == "decoder" then return row.comm_bytes_per_layer end
  end
end

describe("FSDP over CP (shard_spans_cp)", function()
  it("dp 1 x cp 4: a layer's gather, prefetch and reduce-scatter buffers, 8 B a parameter", function()
    assert.are.equal(8 * LAYER, decoder_comm { dp = 1, cp = 4, shard_spans_cp = true })
  end)

  it("the same buffers as FSDP over dp 4 without CP", function()
    assert.are.equal(decoder_comm { dp = 4, cp = 1 }, decoder_comm { dp = 1, cp = 4, shard_spans_cp = true })
  end)

  it("without the shard over CP, dp 1 has no DP traffic: CP's rotated K and V alone", function()
    assert.are.equal(2 * 32 * 4 * (16 + 16) * 2, decoder_comm { dp = 1, cp = 4, shard_spans_cp = false })
  end)
end)
