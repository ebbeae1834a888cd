-- What the binding's field tables (src/binding/lua_fields.c) refuse and read, seen
-- through nd.core: a hardware profile's list of levels (FIELD_ARRAY: 1 to
-- 8 tables, each read by its own fields), a required number (FIELD_REQNUM)
-- and the model's one-line description, written in Lua (lua/nd/model.lua).
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local core = require "nd.core"
local tiny = dofile("spec/support/tiny.lua")

local dense = tiny.dense()

-- A profile with the given levels: one TFLOP/s sustained, two peak.
local function hardware(levels)
  return { peak_tflops = 2, sustained_tflops = 1, levels = levels }
end

local function refusal(fn, ...)
  local ok, err = pcall(fn, ...)
  assert.is_false(ok)
  return type(err) == "table" and err.message or tostring(err)
end

describe("a hardware profile's levels, read by a field table", function()
  it("an absent, empty or over-long list is refused, naming the field and the limit", function()
    local r = nd.run { seq_length = 128 }
    for _, levels in ipairs { {}, "fast" } do
      assert.matches("hardware.levels must list {devices = n, gbps = bandwidth} from the node outward (at most 8)",
        refusal(core.step_time, dense, r, hardware(levels)), 1, true)
    end
    local nine = {}
    for i = 1, 9 do nine[i] = { devices = 2 ^ i, gbps = 1 } end
    assert.matches("(at most 8)", refusal(core.step_time, dense, r, hardware(nine)), 1, true)
  end)

  it("each level is read by its own fields: gbps required, devices bounded", function()
    local r = nd.run { seq_length = 128 }
    assert.matches("hardware.levels[2].gbps is required and was not supplied",
      refusal(core.step_time, dense, r, hardware { { devices = 8, gbps = 1 }, { devices = 64 } }), 1, true)
    assert.matches("hardware.levels[1].devices",
      refusal(core.step_time, dense, r, hardware { { devices = 0, gbps = 1 } }), 1, true)
    assert.matches("hardware.peak_tflops is required and was not supplied",
      refusal(core.step_time, dense, r, { sustained_tflops = 1, levels = { { gbps = 1 } } }), 1, true)
  end)

  it("the level a collective's span falls in sets its bandwidth", function()
    -- tiny model, TP 2 at one micro-batch of 128 tokens: 65536 bytes a layer
    -- forward and backward (search_time_spec's hand count), 2 layers.
    -- Within a node of 8 at 4 GB/s: 2 · 65536 / 4e9 s; with the node at 2
    -- devices the span of 2 still falls in it; at 1 device it falls in the
    -- second level, 1 GB/s: four times the time.
    local r = nd.run { seq_length = 128, tp = 2 }
    local fast = core.step_time(dense, r, hardware { { devices = 8, gbps = 4 }, { gbps = 1 } }).parts.tp_s
    local edge = core.step_time(dense, r, hardware { { devices = 2, gbps = 4 }, { gbps = 1 } }).parts.tp_s
    local slow = core.step_time(dense, r, hardware { { devices = 1, gbps = 4 }, { gbps = 1 } }).parts.tp_s
    assert.is_true(math.abs(fast - 2 * 65536 / 4e9) < 1e-18)
    assert.are.equal(fast, edge)
    assert.is_true(math.abs(slow - 4 * fast) < 1e-18)
  end)
end)

describe("a census record's required fields", function()
  it("a record without working_tp is refused, naming where it was", function()
    local partial = { decoder = { saved = 1, saved_tp = 1, working = 1, seq_length = 128 } }
    assert.matches("activations.decoder.working_tp is required and was not supplied",
      refusal(tiny.dense, { activations = partial }), 1, true)
  end)
end)

describe("tostring(model), written in Lua", function()
  it("states the name, stack, widths, vocabulary and parameters in billions", function()
    -- Qwen3-8B's config: 36 layers, hidden 4096, 32 heads, 8 KV of 128,
    -- FFN 12288, vocabulary 151936; 8.19 B parameters (PARAMS.md: 8,190,735,360).
    assert.are.equal("qwen3 (arch qwen): 36 layers [36×decoder], hidden 4096, 32 heads (8 KV, head dim 128), "
      .. "FFN width 12288, vocabulary 151936; 8.19 B parameters", tostring(nd.model "Qwen/Qwen3-8B"))
  end)

  it("a mixture of experts names its experts and the parameters a token reaches", function()
    -- DeepSeek-V3: 61 layers + 1 MTP, 256 experts top-8 of width 2048;
    -- 671.03 B without MTP + its 11.5 B unique = 682.6 B; 37,552,297,472
    -- active (PARAMS.md).
    local text = tostring(nd.model "deepseek-ai/DeepSeek-V3")
    assert.matches("62 layers [3×dense, 58×moe, 1×moe(mtp)]", text, 1, true)
    assert.matches("256 experts (top-8) of width 2048", text, 1, true)
    assert.matches("682.64 B parameters (37.55 B active)", text, 1, true)
  end)
end)
