-- torchtitan splits the embedding over TP (issue 31): its Llama TP plan
-- (parallelize_llama's apply_tp) makes tok_embeddings RowwiseParallel
-- (input_layouts Replicate, output_layouts Shard(1)), the table's rows (the
-- vocabulary) sharded over the TP ranks whatever the pipeline degree. The
-- core's default, vocab_emb_dp (MindSpore's: the embedding data-parallel,
-- whole on each TP rank at PP 1), keeps it whole; the profile states false.
local nd = require "nd"
local tiny = dofile("spec/support/tiny.lua")

-- A 2-layer model: hidden 512, vocabulary 128256, untied: the table holds
-- 128256 x 512 = 65667072 parameters.
local function model() return tiny.wide_vocab_llama(2) end

local function embedding_static(fields)
  local r = { runtime = "torchtitan", dp = 2, tp = 2, seq_length = 2048, micro_batch_size = 1,
              global_batch_size = 2, recompute = "full" }
  for k, v in pairs(fields or {}) do r[k] = v end
  for _, row in ipairs(nd.estimate(model(), nd.run(r)).stages[1].rows) do
    if row.kind == "embedding" then return row.static_bytes_per_layer end
  end
end

describe("torchtitan's embedding under TP", function()
  it("the profile states vocab_emb_dp = false", function()
    assert.is_false(nd.run({ runtime = "torchtitan" }):spec().vocab_emb_dp)
  end)

  it("the table is split over TP and FSDP at PP 1: fp32 parameters, gradients and two AdamW states", function()
    -- by hand: 65667072 / (2 TP x 2 FSDP) x (4 + 4 + 2 x 4) bytes
    assert.are.equal(65667072 / 4 * 16, embedding_static())
  end)

  it("half the TP 1 table", function()
    assert.are.equal(embedding_static { tp = 1 } / 2, embedding_static())
  end)
end)
