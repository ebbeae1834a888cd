-- nd.census: reading census files and pricing a model from them.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local census = require "nd.census"
local warnings = require "nd.warnings"

-- spec/fixtures/census/llama-64.json: scripts/census.py on spec/census/specs/llama.json
-- at 64 tokens (h 64, 4 heads of 16, 2 KV heads, SwiGLU of 96); its decoder record is
-- saved 1032 = 16h + 8 and saved_tp 1184 = 4ad + 4kd + 8a + 8I bytes a token, as
-- spec/census/test_families.py derives by hand.
local FIXTURE = "spec/fixtures/census/llama-64.json"

local function tmpfile(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

local function refusal(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok)
  assert.is_true(err.bad_input)
  return err.message
end

describe("nd.census.load", function()
  it("reads the records and keeps the provenance aside", function()
    local c = census.load(FIXTURE)
    assert.are.equal(1032, c.activations.decoder.saved)
    assert.are.equal(1184, c.activations.decoder.saved_tp)
    assert.are.equal(64, c.activations.decoder.seq_length)
    assert.is_table(c.output_activations)
    assert.is_table(c.provenance)
  end)
  it("refuses an unknown top-level key, naming it", function()
    local path = tmpfile('{"activations": {}, "extra": 1}')
    assert.matches("extra: unknown key in a census file", refusal(census.load, path), 1, true)
    os.remove(path)
  end)
  it("refuses negative bytes, naming the field", function()
    local path = tmpfile('{"activations": {"decoder": {"saved": -1, "saved_tp": 0, "working": 0, "working_tp": 0, "seq_length": 8}}}')
    assert.matches("activations.decoder.saved: bytes per token cannot be negative", refusal(census.load, path), 1, true)
    os.remove(path)
  end)
  it("refuses a record's unknown keys", function()
    local path = tmpfile('{"activations": {"decoder": {"saved": 1, "saved_tp": 0, "working": 0, "working_tp": 0, "seq_length": 8, "kept": 3}}}')
    assert.matches("has unknown keys [kept]", refusal(census.load, path), 1, true)
    os.remove(path)
  end)
  it("refuses malformed JSON with the file and position", function()
    local path = tmpfile('{"activations": ')
    assert.matches(path .. ":1:", refusal(census.load, path), 1, true)
    os.remove(path)
  end)
  it("finds census-<seq>.json beside a checkpoint", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir .. " && cp " .. FIXTURE .. " " .. dir .. "/census-4096.json")
    assert.are.equal(dir .. "/census-4096.json", census.beside(dir, 4096))
    assert.is_nil(census.beside(dir, 8192))
    os.execute("rm -rf " .. dir)
  end)
end)

describe("a model priced from its census", function()
  it("prices its layers from the records: (1032 + 1184)·4096 bytes a micro-batch at TP 1", function()
    local spec = nd.json.load("spec/census/specs/llama.json")
    spec.kinds, spec.family = nil, nil
    spec = census.attach(spec, census.load(FIXTURE))
    local m = nd.model(spec, { warnings = warnings.quiet() })
    local e = nd.estimate(m, nd.run { seq_length = 4096, reserve_bytes = 0 })
    local row
    for _, r in ipairs(e.stages[1].rows) do if r.kind == "decoder" then row = r end end
    assert.is_true(row.census)
    assert.is_true(e.census_used)
    assert.are.equal((1032 + 1184) * 4096, row.activation_bytes_per_layer)
  end)
end)
