-- Pipeline: micro-batches in flight per schedule (memory-model §8.1), the
-- layout of layers over stages and chunks (§6), and the backward overhead (§8.2).
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local tiny = dofile("spec/support/tiny.lua")

describe("micro-batches in flight (memory-model §8.1, p = 4, m = 3, stage 1)", function()
  local function mf(fields, chunk)
    local spec = { pp = 4, micro_batch_num = 3 }
    for k, v in pairs(fields) do spec[k] = v end
    return nd.run(spec):micro_factor(1, chunk or 0)
  end
  it("1F1B: min(p, m) − stage = 2", function() assert.are.equal(2, mf {}) end)
  it("seqpipe with 2 sequence chunks: min(p, m) − stage + n − 1 = 3", function()
    assert.are.equal(3, mf { pp_schedule = "seqpipe", seq_split = 2 })
  end)
  it("interleaved 1F1B, vpp 2, first chunk: 3", function() assert.are.equal(3, mf { vpp = 2 }) end)
  it("interleaved seqpipe, vpp 2, first chunk: 4", function()
    assert.are.equal(4, mf { vpp = 2, pp_schedule = "seqpipe", seq_split = 2 })
  end)
  it("DualPipeV second chunk: the stage index, 1", function()
    assert.are.equal(1, mf({ vpp = 2, pp_schedule = "zero_bubble_v" }, 1))
  end)
  it("DualPipeV first chunk: 2·min(p, m) − 1 − stage = 4", function()
    assert.are.equal(4, mf({ vpp = 2, pp_schedule = "zero_bubble_v" }, 0))
  end)
  it("GPipe holds every micro-batch, m = 3 (the reference writes p = 4, more than there are)", function()
    assert.are.equal(3, mf { pp_schedule = "gpipe" })
  end)
  it("1F1B stage 0 holds min(p, m) and the last stage 1 (p = 4, m = 8)", function()
    local r = nd.run { pp = 4, micro_batch_num = 8 }
    assert.are.same({ 4, 3, 2, 1 }, { r:micro_factor(0), r:micro_factor(1), r:micro_factor(2), r:micro_factor(3) })
  end)
end)

-- Interleaved 1F1B over one round, m = p = 8, v = 2 (torchtitan's 405B
-- interleaved row, docs/performance.md Table 5). Derived by hand from
-- torch.distributed.pipelining's schedules.py: rank r's warm-up is
-- _get_warmup_ops = min((v − 1)·p + 2(p − 1 − r), m·v) forwards and one
-- more runs before its first backward, the forwards taken chunk by chunk in
-- groups of m (one round): chunk 0 holds min(m, W) of the W = min(23 − 2r, 16)
-- forwards, the last chunk the rest. Before the cap ndlua gave chunk 0 of
-- stage 0 fifteen micro-batches (base + p − 1), more than the step has.
describe("interleaved 1F1B over one round (m = p = 8, v = 2)", function()
  local r = nd.run { pp = 8, vpp = 2, micro_batch_num = 8 }
  for s = 0, 7 do
    local held = math.min(23 - 2 * s, 16)
    it(string.format("stage %d: chunk 0 holds 8, chunk 1 %d", s, held - 8), function()
      assert.are.same({ 8, held - 8 }, { r:micro_factor(s, 0), r:micro_factor(s, 1) })
    end)
  end
  it("v = 3: stage 0 holds every forward, 8 a chunk; stage 4 23 = 8 + 8 + 7", function()
    local r3 = nd.run { pp = 8, vpp = 3, micro_batch_num = 8 }
    assert.are.same({ 8, 8, 8 }, { r3:micro_factor(0, 0), r3:micro_factor(0, 1), r3:micro_factor(0, 2) })
    assert.are.same({ 8, 8, 7 }, { r3:micro_factor(4, 0), r3:micro_factor(4, 1), r3:micro_factor(4, 2) })
  end)
  it("m < p (p = 4, m = 3, v = 2): stage 0 runs all m·v = 6 forwards first, 3 a chunk", function()
    local r4 = nd.run { pp = 4, vpp = 2, micro_batch_num = 3 }
    assert.are.same({ 3, 3 }, { r4:micro_factor(0, 0), r4:micro_factor(0, 1) })
  end)
end)

-- A 4-layer model laid out over 2 stages x 2 chunks: one layer a chunk.
describe("layout order (memory-model §6)", function()
  local m = tiny.dense { num_hidden_layers = 4 }
  local function first_layers(fields)
    local spec = { pp = 2, vpp = 2, micro_batch_num = 4 }
    for k, v in pairs(fields) do spec[k] = v end
    local l = nd.layout(m, nd.run(spec))
    return { l[1].chunks[1].first, l[2].chunks[1].first, l[1].chunks[2].first, l[2].chunks[2].first }, l
  end
  it("1F1B goes chunk by chunk: (s0,c0)=0, (s1,c0)=1, (s0,c1)=2, (s1,c1)=3", function()
    local firsts, l = first_layers {}
    assert.are.same({ 0, 1, 2, 3 }, firsts)
    assert.is_true(l[1].chunks[1].embedding)
    assert.is_true(l[2].chunks[2].output)
  end)
  it("DualPipeV climbs back in the second chunk: (s1,c1)=2, (s0,c1)=3, output on stage 0", function()
    local firsts, l = first_layers { pp_schedule = "zero_bubble_v" }
    assert.are.same({ 0, 1, 3, 2 }, firsts)
    assert.is_true(l[1].chunks[2].output)
  end)
end)

describe("layout offsets (memory-model §6 step 2)", function()
  -- DeepSeek-V3: 61 body layers + 1 MTP over 16 stages, the offset of
  -- sapp_nd-hyper_deepseek_v3.yaml: [0, 0, 1 x 12, 2, 0]; 62 // 16 = 3 a stage
  local ds = tiny.dense { num_hidden_layers = 61, mtp_depth = 1,
    layers = { { kind = "decoder", count = 61 }, { kind = "decoder", count = 1, mtp = true } } }
  local function counts(l)
    local out = {}
    for i, st in ipairs(l) do out[i] = st.chunks[1].count end
    return out
  end
  it("places 3, 3, 4 x 12, 5, 3 layers", function()
    local offset = { 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 0 }
    local l = nd.layout(ds, nd.run { pp = 16, micro_batch_num = 16, offset = offset })
    assert.are.same({ 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 3 }, counts(l))
    local last = l[16].chunks[1]
    assert.are.equal(59, last.first) -- layers 59, 60 and the MTP layer 61
    assert.is_true(last.runs[#last.runs].mtp)
  end)
  it("balances an unstated offset: the first 62 mod 16 = 14 stages take 4, the last two 3", function()
    local l = nd.layout(ds, nd.run { pp = 16, micro_batch_num = 16 })
    assert.are.same({ 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3 }, counts(l))
  end)
  it("front-loads a vision tower's offset (27, 4, 1) -> [21, -6, -6, -6]: every layer on stage 0", function()
    local tower = tiny.dense { num_hidden_layers = 27 }
    local l = nd.layout(tower, nd.run { pp = 4, micro_batch_num = 4, offset = { 21, -6, -6, -6 } })
    assert.are.same({ 27, 0, 0, 0 }, counts(l))
  end)
  it("refuses an offset that does not place every layer, with the counts", function()
    local ok, err = pcall(nd.layout, ds, nd.run { pp = 16, micro_batch_num = 16, offset = 1 })
    assert.is_false(ok)
    assert.is_true(err.bad_input)
    -- [1] x 16 asks for 16 x (3 + 1) = 64 layers of the 62
    assert.matches("offset places 64 layers, but the stack has 62", err.message, 1, true)
  end)
end)
