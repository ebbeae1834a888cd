-- Census pricing (model-spec §c.5) and the backward overhead (memory-model §8.2),
-- on a hand-made record whose prices follow by hand:
--   kept      = tokens · (saved / sp + saved_tp / t + gathered K/V)
--   held      = tokens · (working / sp + working_tp / t + gathered K/V)
--   gathered K/V under ring CP = (cp − 1) · kv · (d_qk + d_v) · bc / t a token
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local tiny = dofile("spec/support/tiny.lua")

local RECORD = { saved = 1000, saved_tp = 3000, working = 2500, working_tp = 7000, selective = 400,
                 selective_tp = 2000, seq_length = 4096 }
local OUTPUT = { saved = 100, saved_tp = 4000, working = 300, working_tp = 12000, seq_length = 4096 }

-- h 64, 4 heads of 16 (kv 4), a census for every layer and the output.
local function model(fields)
  local spec = { activations = { decoder = RECORD }, output_activations = OUTPUT }
  for k, v in pairs(fields or {}) do spec[k] = v end
  return tiny.dense(spec)
end

local function estimate(m, fields)
  local spec = { seq_length = 4096, micro_batch_size = 1, reserve_bytes = 0 }
  for k, v in pairs(fields) do spec[k] = v end
  return nd.estimate(m, nd.run(spec))
end

describe("census pricing under TP, SP, CP and recompute", function()
  -- tp 2 with SP, ring CP 2: tokens = 4096 / 2 = 2048; gathered K/V = 1·4·32·2/2 = 128
  local run = { tp = 2, sequence_parallel = true, cp = 2 }
  it("prices a plain layer from the record: (1000/2 + 3000/2 + 128)·2048", function()
    local row = tiny.row(estimate(model(), run), 0, "decoder")
    assert.is_true(row.census)
    assert.are.equal((500 + 1500 + 128) * 2048, row.activation_bytes_per_layer)
  end)
  it("prices HyperParallel's selective recompute from selective / selective_tp: (200 + 1000 + 128)·2048", function()
    local r = { recompute = "selective" }
    for k, v in pairs(run) do r[k] = v end
    local row = tiny.row(estimate(model(), r), 0, "decoder")
    assert.is_true(row.census)
    assert.are.equal((200 + 1000 + 128) * 2048, row.activation_bytes_per_layer)
  end)
  it("prices another selective rule by formulas: the record does not measure it", function()
    local r = { recompute = "selective", selective_rule = "megatron" }
    for k, v in pairs(run) do r[k] = v end
    assert.is_false(tiny.row(estimate(model(), r), 0, "decoder").census)
  end)
  it("keeps a fully recomputed layer's input by formula, split by SP: h·bc / t = 64 bytes a token, 64·2048", function()
    -- Megatron and torchtitan checkpoint the layer's input as sequence
    -- parallelism left it: the rank's 1/t of the sequence (issue 12, item 5)
    local r = { recompute = "full" }
    for k, v in pairs(run) do r[k] = v end
    assert.are.equal(64 * 2048, tiny.row(estimate(model(), r), 0, "decoder").activation_bytes_per_layer)
  end)
  it("keeps the whole input of a fully recomputed layer under TP without SP: h·bc = 128 bytes a token", function()
    local r = { recompute = "full", tp = 2, cp = 2 }
    assert.are.equal(128 * 2048, tiny.row(estimate(model(), r), 0, "decoder").activation_bytes_per_layer)
  end)
  it("prices the output from its record, vocabulary-parallel loss: (100/2 + 4000/2)·2048", function()
    local row = tiny.row(estimate(model(), run), 0, "output")
    assert.is_true(row.census)
    assert.are.equal((50 + 2000) * 2048, row.activation_bytes_per_layer)
  end)
  it("says the estimate used a census", function()
    assert.is_true(estimate(model(), run).census_used)
    assert.is_false(estimate(tiny.dense(), run).census_used)
  end)
end)

describe("backward overhead (memory-model §8.2) with census working sets", function()
  -- one rank, s = 4096: a layer holds (2500 + 7000)·4096 = 38,912,000 at its
  -- backward peak; the output (300 + 12000)·4096 = 50,380,800
  -- The output's micro-batch is among those the stage holds already, so
  -- its backward adds only working − saved = (200 + 8000)·4096 (issue 12,
  -- item 1: the output's kept tensors count once)
  local LAYER, OUT = 9500 * 4096, 8200 * 4096
  local OUT_WORKING = 12300 * 4096 -- what DualPipeV's forward of the output node holds
  it("1F1B: a stage ending in a recomputed layer adds that layer's working set", function()
    local e = estimate(model(), { pp = 2, micro_batch_num = 2, recompute = "full" })
    assert.are.equal(LAYER, e.stages[1].backward_overhead)
  end)
  it("1F1B: the stage holding the output adds the output's working set", function()
    local e = estimate(model(), { pp = 2, micro_batch_num = 2, recompute = "full" })
    assert.are.equal(OUT, e.stages[2].backward_overhead)
  end)
  it("1F1B: an MTP layer before the output adds its working set too", function()
    local m = model { mtp_depth = 1, layers = { { kind = "decoder", count = 2 }, { kind = "decoder", count = 1, mtp = true } } }
    local e = estimate(m, { pp = 2, micro_batch_num = 2, recompute = "full" })
    assert.are.equal(OUT + LAYER, e.stages[2].backward_overhead)
  end)
  it("GPipe adds nothing", function()
    local e = estimate(model(), { pp = 2, micro_batch_num = 2, recompute = "full", pp_schedule = "gpipe" })
    assert.are.equal(0, e.stages[1].backward_overhead)
    assert.are.equal(0, e.stages[2].backward_overhead)
  end)
  it("DualPipeV: max(fwd_first + bwd_last, fwd_last + bwd_first)", function()
    -- 4 layers over 2 stages x 2 chunks, all recomputed. Stage 0 holds layer 0
    -- (chunk 0) and layer 3 with the output (chunk 1): fwd_first = 128·4096
    -- (layer 0's kept input), bwd_last = LAYER, fwd_last = OUT_WORKING (the output),
    -- bwd_first = LAYER. Stage 1 holds layers 1 and 2: fwd_last = LAYER
    -- (layer 2 priced plain).
    local e = estimate(model { num_hidden_layers = 4 }, { pp = 2, vpp = 2, micro_batch_num = 4,
      recompute = "full", pp_schedule = "zero_bubble_v" })
    assert.are.equal(math.max(128 * 4096 + LAYER, OUT_WORKING + LAYER), e.stages[1].backward_overhead)
    assert.are.equal(math.max(128 * 4096 + LAYER, LAYER + LAYER), e.stages[2].backward_overhead)
  end)
  it("1F1B without a census: a recomputed last layer adds its plain activations (Korthikanti's 34sbh + 5as²b)", function()
    local m = tiny.gpt(1024, 16, 4)
    local e = nd.estimate(m, nd.run { pp = 2, micro_batch_num = 2, recompute = "full", seq_length = 2048,
      softmax_bytes = 2, reserve_bytes = 0 })
    assert.are.equal(2048 * 1024 * (34 + 5 * 16 * 2048 / 1024), e.stages[1].backward_overhead)
  end)
end)

describe("the allocator reserve", function()
  it("adds 1 GiB to a stage by default, and what the run states", function()
    local m = tiny.dense()
    local a = nd.estimate(m, nd.run {})
    local b = nd.estimate(m, nd.run { reserve_bytes = "2GiB" })
    assert.are.equal(2 ^ 30, a.stages[1].reserve)
    assert.are.equal(2 ^ 31, b.stages[1].reserve)
    assert.are.equal(a.stages[1].total + 2 ^ 30, b.stages[1].total)
  end)
end)
