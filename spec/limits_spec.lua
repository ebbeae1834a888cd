-- limits_spec.lua: the input limits of the loaders and the C core, and the
-- regressions of what the fuzzers found (spec/fuzz/). Each limit is a
-- bad-input error whose message names what is refused and the limit.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local core = require "nd.core"
local tiny = dofile("spec/support/tiny.lua")

local function refusal(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected a refusal")
  assert.is_table(err, "expected a bad-input error table, got " .. tostring(err))
  assert.is_true(err.bad_input)
  return err.message
end

local function tmpfile(content)
  local path = os.tmpname()
  local f = assert(io.open(path, "wb"))
  f:write(content)
  f:close()
  return path
end

describe("the JSON loader (fuzz findings)", function()
  it("refuses a control character between tokens, which cJSON would skip as a blank", function()
    -- found by fuzz_json: {\3"k": 6931348623157e308} read the number as inf,
    -- its literal lost because the scan and cJSON disagreed on the blank
    assert.are.equal("x.json:1:2: JSON syntax error at byte 3",
                     refusal(core.json.decode, '{\3"k": 6931348623157e308}', "x.json"))
    assert.are.equal("x.json:2:1: JSON syntax error at byte 12", refusal(core.json.decode, '[1,\n\f2]', "x.json"))
  end)

  it("refuses a number past a double's range instead of reading infinity", function()
    assert.are.equal("x.json:1:8: the number 6931348623157e308 is past the range of a double (about 1.8e308)",
                     refusal(core.json.decode, '{"h": [6931348623157e308]}', "x.json"))
    assert.are.equal("x.json:1:2: the number -1e400 is past the range of a double (about 1.8e308)",
                     refusal(core.json.decode, '[-1e400]', "x.json"))
    assert.are.equal(1.7976931348623157e308, core.json.decode('[1.7976931348623157e308]')[1])
    assert.are.equal(0.0, core.json.decode('[1e-400]')[1]) -- underflow reads as 0.0, as Python's json
  end)

  it("refuses strings that are not UTF-8 (found by fuzz_json: YAML could not write them back)", function()
    assert.are.equal("x.json:1:5: a string holds bytes that are not UTF-8; JSON text is Unicode",
                     refusal(core.json.decode, '["ab\255"]', "x.json"))
    assert.matches("not UTF%-8", refusal(core.json.decode, '{"\237\160\128": 1}')) -- a surrogate, CESU-style
    assert.matches("not UTF%-8", refusal(core.json.decode, '["\192\175"]')) -- an overlong '/'
    assert.are.equal("é😀", core.json.decode('["é😀"]')[1])
  end)

  it("refuses a \\u0000, which would cut the string short, and raw control characters", function()
    assert.are.equal("x.json:1:5: a \\u0000 (NUL) in a string; ndlua reads strings without NUL characters",
                     refusal(core.json.decode, '["ab\\u0000c"]', "x.json"))
    assert.are.equal("a\\u0000", core.json.decode('["a\\\\u0000"]')[1]) -- an escaped backslash, then text
    assert.are.equal("x.json:1:4: a control character (byte 10) in a string; JSON writes it as an escape "
                     .. "(\\n, \\t, \\u0001)", refusal(core.json.decode, '["a\nb"]', "x.json"))
  end)

  it("names a trailing comma where it stands (cJSON placed the error past the end)", function()
    assert.are.equal("x.json:2:9: JSON syntax error: a comma before '}'",
                     refusal(core.json.decode, '{"a": 1,\n "b": 2,}', "x.json"))
    assert.are.equal("x.json:1:7: JSON syntax error: a comma before ']'", refusal(core.json.decode, '[1, 2,]', "x.json"))
    assert.are.same({ ",", "}" }, core.json.decode('[",", "}"]')) -- inside strings they are text
  end)

  it("reads a UTF-8 byte order mark as cJSON does, with columns after it", function()
    local t = core.json.decode('\239\187\191{"a": [1, 2]}', "bom.json")
    assert.are.equal(2, t.a[2])
    assert.are.same({ "bom.json", 1, 7 }, { core.where(t, "a") })
  end)

  it("refuses nesting deeper than 256 and files over 64 MiB", function()
    assert.matches("x.json:1:257: the document nests deeper than 256 levels",
                   refusal(core.json.decode, string.rep("[", 257) .. string.rep("]", 257), "x.json"))
    local ok = pcall(core.json.decode, string.rep("[", 256) .. string.rep("]", 256))
    assert.is_true(ok)
  end)
end)

describe("the YAML writer (fuzz findings)", function()
  it("refuses a string that is not UTF-8, naming where, instead of 'out of memory'", function()
    local ok, err = pcall(core.yaml.encode, { a = { "ok", "\255" } })
    assert.is_false(ok)
    assert.are.equal("cannot write a string that is not UTF-8 text at a[2] as YAML", err)
    ok, err = pcall(core.yaml.encode, { ["k\255"] = 1 })
    assert.is_false(ok)
    assert.matches("not UTF%-8 text at k", err)
  end)
end)

describe("the YAML loader's limits", function()
  it("refuses nesting deeper than 256 levels", function()
    assert.matches("x.yaml:1:257: the document nests deeper than 256 levels; refusing it",
                   refusal(core.yaml.decode, string.rep("[", 257) .. string.rep("]", 257), "x.yaml"))
  end)

  it("refuses a billion-laughs document past a million nodes", function()
    local lines = { "a0: &a0 [x, x, x, x, x, x, x, x, x, x]" }
    for i = 1, 6 do
      lines[#lines + 1] = string.format("a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]",
                                        i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1)
    end
    assert.matches("expands to more than a million nodes through its aliases",
                   refusal(core.yaml.decode, table.concat(lines, "\n"), "laughs.yaml"))
  end)

  it("refuses a file over 64 MiB before parsing it", function()
    local path = tmpfile(string.rep("# padding to 64 MiB\n", (64 << 20) // 20 + 1))
    local msg = refusal(core.yaml.load, path)
    os.remove(path)
    assert.are.equal(path .. ": larger than 64 MiB; ndlua reads configuration files, not data", msg)
  end)

  it("refuses a directory and a missing file by name", function()
    assert.are.equal("/tmp: is a directory, not a file", refusal(core.yaml.load, "/tmp"))
    assert.matches("^/nonexistent/t%.yaml: cannot read: No such file or directory$",
                   refusal(core.json.load, "/nonexistent/t.yaml"))
  end)
end)

describe("numeric ranges at the C boundary", function()
  it("gives a huge whole number its range, not 'must be a whole number'", function()
    assert.are.equal("tp must be from 1 to 1048576, got 1e+20", refusal(nd.run, { tp = 1e20 }))
    assert.are.equal("tp must be from 1 to 1048576, got 1099511627776", refusal(nd.run, { tp = 1 << 40 }))
    assert.are.equal("hidden_size must be from 1 to 16777216, got 1000000000000000",
                     refusal(tiny.dense, { hidden_size = 1e15 }))
    assert.are.equal("hidden_size must be from 1 to 16777216, got 1e+16",
                     refusal(tiny.dense, { hidden_size = 1e16 }))
    assert.are.equal("hidden_size must be from 1 to 16777216, got 1000000000000000",
                     refusal(tiny.dense, { hidden_size = 10 ^ 15 // 1 }))
    assert.are.equal("tp must be from 1 to 1048576, got inf", refusal(nd.run, { tp = math.huge }))
    assert.are.equal("tp must be a whole number, got nan", refusal(nd.run, { tp = 0 / 0 }):gsub("%-nan", "nan"))
  end)

  it("bounds the batch before multiplying it out (2^24 x 2^20 x 2^24 overflowed an int64)", function()
    assert.are.equal("micro_batch_size x dp x micro_batch_num = 16777216 x 1048576 x 16777216 = "
                     .. "2.9514790517935e+20 sequences a step; ndlua plans at most 16777216",
                     refusal(nd.run, { micro_batch_size = 1 << 24, dp = 1 << 20, micro_batch_num = 1 << 24 }))
    assert.matches("^global_batch_size 8 is not micro_batch_size x dp x micro_batch_num",
                   refusal(nd.run, { micro_batch_size = 1 << 24, dp = 1 << 20, micro_batch_num = 1 << 24,
                                     global_batch_size = 8 }))
    assert.is_userdata(nd.run { micro_batch_size = 1 << 24, dp = 1, micro_batch_num = 1 })
    assert.is_userdata(nd.run { micro_batch_size = 1 << 10, dp = 1 << 10, micro_batch_num = 1 << 4,
                                global_batch_size = 1 << 24 })
  end)

  it("counts the devices in doubles before any product of degrees is formed", function()
    assert.are.equal("dp x tp x pp x cp = 4194304 devices; ndlua plans at most 1048576",
                     refusal(nd.run, { dp = 1024, tp = 1024, pp = 4 }))
    assert.are.equal("dp x tp x pp x cp = 1.2089258196146e+24 devices; ndlua plans at most 1048576",
                     refusal(nd.run, { dp = 1 << 20, tp = 1 << 20, pp = 1 << 20, cp = 1 << 20 }))
  end)

  it("bounds the pipeline's chunks (pp x vpp), which the layout holds one record each", function()
    assert.are.equal("pp x vpp = 262144 pipeline chunks; ndlua plans at most 131072 (a model holds at most "
                     .. "100000 layers)", refusal(nd.run, { pp = 4096, vpp = 64 }))
    assert.are.equal("pp x vpp = 1048576 pipeline chunks; ndlua plans at most 131072 (a model holds at most "
                     .. "100000 layers)", refusal(nd.run, { pp = 1 << 20 }))
    assert.is_userdata(nd.run { pp = 2048, vpp = 64 })
  end)

  it("bounds the recompute ranges (one a layer) before allocating them", function()
    local ranges = {}
    for i = 1, 100001 do ranges[i] = { first = i - 1, count = 1, option = "full" } end
    assert.are.equal("recompute lists 100001 ranges; at most 100000 (one a layer)",
                     refusal(nd.run, { recompute = ranges }))
  end)

  it("bounds the layer kinds of a stack, which are looked up by a scan", function()
    local kinds, layers = {}, {}
    for i = 1, 1025 do
      kinds["k" .. i] = { ops = tiny.DEFAULT_OPS }
      layers[i] = { kind = "k" .. i, count = 1 }
    end
    assert.are.equal("layers name more than 1024 layer kinds",
                     refusal(tiny.dense, { num_hidden_layers = 1025, kinds = kinds, layers = layers }))
  end)

  it("refuses names past 4096 bytes and quotes long values cut short", function()
    assert.are.equal("optimizer must be a name of at most 4096 bytes, got \"" .. string.rep("x", 60)
                     .. "...\" (a string of 5000 bytes)", refusal(nd.run, { optimizer = string.rep("x", 5000) }))
    assert.are.equal("run: unknown key '" .. string.rep("k", 60) .. "...'",
                     refusal(nd.run, { [string.rep("k", 100)] = 1 }))
    assert.are.equal("tp must be a whole number, got \"" .. string.rep("9", 60) .. "...\" (a string of 61 bytes)",
                     refusal(nd.run, { tp = string.rep("9", 61) }))
  end)

  it("refuses an estimate past 2^59 bytes in a part instead of rounding it to nonsense", function()
    local m = tiny.dense { hidden_size = 1 << 24, intermediate_size = 1 << 24, vocab_size = 1 << 31,
                           num_attention_heads = 64, num_key_value_heads = 64, num_hidden_layers = 100000 }
    local msg = refusal(nd.estimate, m, nd.run { seq_length = 1 << 31, micro_batch_size = 1 << 24 })
    assert.matches("^the estimate comes to [%d.e+]+ bytes in one part, past the 2%^59 bytes %(512 PiB%) ndlua "
                   .. "counts; the model or the run is too large to price$", msg)
  end)
end)

describe("a config.json that is no JSON object (found by reading the fuzzers' JSON as a checkpoint)", function()
  local model_source = require "nd.model.source"
  for _, case in ipairs({ { "42", "42" }, { "null", "null" }, { "true", "true" }, { '"qwen"', 'the string "qwen"' },
                          { "[1, 2]", "a JSON array" }, { "[]", "an empty JSON array" } }) do
    it("refuses " .. case[1] .. " by name, where it indexed a number before", function()
      local path = tmpfile(case[1])
      local msg = refusal(model_source.load_config, path)
      os.remove(path)
      assert.are.equal(path .. ": a config.json holds one JSON object of the model's fields, got " .. case[2], msg)
    end)
  end
  it("reads an object", function()
    local path = tmpfile('{"hidden_size": 64}')
    local config = model_source.load_config(path)
    os.remove(path)
    assert.are.equal(64, config.hidden_size)
  end)
end)
