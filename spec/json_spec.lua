-- json_spec.lua: nd.json, the JSON bridge, as Lua sees it.
--
-- Expected values come from Python's json module (the reference for a
-- Transformers config.json), checked with e.g.
--   /usr/bin/python3 -c 'import json; print(json.loads("[3, 3.0]"))'
--   /usr/bin/python3 -c 'import json; print(json.dumps(o, sort_keys=True, indent=2))'
local nd = require "nd"

local function error_of(f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error")
  return err
end

describe("nd.json.decode numbers", function()
  local t = nd.json.decode('{"big": 9007199254740993, "three": 3, "threef": 3.0, "neg0": -0, "exp": 1e2,' ..
                           ' "huge": 12345678901234567890, "min": -9223372036854775808, "half": -0.5}')

  it("keeps integers as Lua integers, exactly past 2^53", function()
    -- json.loads: 9007199254740993 (2^53 + 1, which no double holds)
    assert.are.equal("integer", math.type(t.big))
    assert.are.equal(9007199254740993, t.big)
    assert.are_not.equal(9007199254740992, t.big)
    assert.are.equal("integer", math.type(t.three))
    assert.are.equal(3, t.three)
    assert.are.equal(math.mininteger, t.min)
    assert.are.equal("integer", math.type(t.neg0)) -- json.loads("-0") is the int 0
    assert.are.equal(0, t.neg0)
  end)

  it("keeps floats as floats: 3.0 is not 3", function()
    assert.are.equal("float", math.type(t.threef))
    assert.are.equal(3.0, t.threef)
    assert.are.equal("float", math.type(t.exp)) -- json.loads("1e2") is 100.0
    assert.are.equal(100.0, t.exp)
    assert.are.equal(-0.5, t.half)
  end)

  it("gives an integer past 64 bits the nearest float", function()
    -- Python keeps the int; float(12345678901234567890) = 1.2345678901234567e+19
    assert.are.equal("float", math.type(t.huge))
    assert.are.equal(1.2345678901234567e+19, t.huge)
  end)
end)

describe("nd.json.decode values", function()
  it("reads null as nd.null, in objects and arrays", function()
    local t = nd.json.decode('{"a": null, "list": [1, null, 3]}')
    assert.are.equal(nd.null, t.a)
    assert.are.equal(3, #t.list)
    assert.are.equal(nd.null, t.list[2])
    assert.are.equal(nd.null, nd.json.decode("null"))
  end)

  it("reads strings, escapes and booleans", function()
    local t = nd.json.decode('{"s": "tab\\there \\"q\\" \\\\ \\u00e9", "yes": true, "no": false}')
    assert.are.equal('tab\there "q" \\ \xc3\xa9', t.s)
    assert.are.equal(true, t.yes)
    assert.are.equal(false, t.no)
  end)

  it("keeps the key order of objects", function()
    local t = nd.json.decode('{"zeta": 1, "alpha": {"y": 1, "x": 2}, "mid": []}')
    assert.are.same({ "zeta", "alpha", "mid" }, nd.json.keys(t))
    assert.are.same({ "y", "x" }, nd.json.keys(t.alpha))
  end)

  it("records where each value is", function()
    local t = nd.json.decode('{\n  "model": {\n    "hidden_size": 4096,\n    "dims": [1, 2]\n  }\n}', "config.json")
    -- line 3 is '    "hidden_size": 4096,': the value starts in column 20
    assert.are.same({ "config.json", 3, 20 }, { nd.where(t.model, "hidden_size") })
    -- line 4 is '    "dims": [1, 2]': the second item is in column 17
    assert.are.same({ "config.json", 4, 17 }, { nd.where(t.model.dims, 2) })
    assert.are.same({ "config.json", 2, 12 }, { nd.where(t, "model") })
  end)

  it("loads a file under its path", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write('{"n": 1}')
    f:close()
    local t = nd.json.load(path)
    os.remove(path)
    assert.are.equal(1, t.n)
    assert.are.same({ path, 1, 7 }, { nd.where(t, "n") })
  end)
end)

describe("nd.json.decode refuses", function()
  local function refused(text, message)
    local err = error_of(nd.json.decode, text, "bad.json")
    assert.are.equal("table", type(err))
    assert.is_true(err.bad_input)
    assert.are.equal(message, err.message)
  end

  it("a syntax error, with its line and column", function()
    -- json.loads: "Expecting value: line 2 column 13 (char 21)"
    refused('{"a": 1,\n "b": [1, 2,, 3]}', "bad.json:2:13: JSON syntax error at ','")
    -- json.loads: "Expecting ',' delimiter: line 1 column 6"
    refused('[1, 2', "bad.json:1:6: JSON syntax error: the text ends inside a value")
    -- json.loads: "Expecting ':' delimiter: line 1 column 6"
    refused('{"a" 1}', "bad.json:1:6: JSON syntax error at '1'")
    -- json.loads: "Expecting value: line 1 column 4"
    refused('[1,]', "bad.json:1:4: JSON syntax error: a comma before ']'")
    -- json.loads: "Expecting value: line 1 column 1"
    refused('', "bad.json:1:1: JSON syntax error: no value (the text is empty)")
    refused('{} x', "bad.json:1:4: JSON syntax error at 'x'")
  end)

  it("numbers outside JSON's grammar, which cJSON alone would take", function()
    -- json.loads refuses each of these
    refused('[1, 01]', "bad.json:1:5: JSON syntax error: a malformed number")
    refused('1.', "bad.json:1:1: JSON syntax error: a malformed number")
    refused('[-]', "bad.json:1:2: JSON syntax error: a malformed number")
  end)

  it("10 000-deep nesting", function()
    refused(("["):rep(10000) .. ("]"):rep(10000),
            "bad.json:1:257: the document nests deeper than 256 levels; refusing it")
    refused(('{"a":'):rep(10000) .. "1" .. ("}"):rep(10000),
            "bad.json:1:1281: the document nests deeper than 256 levels; refusing it")
  end)

  it("but reads 256-deep nesting, and writes it back", function()
    local text = ("["):rep(256) .. "7" .. ("]"):rep(256)
    local t = nd.json.decode(text)
    assert.are.equal(text, nd.json.encode(t))
    for _ = 1, 256 do t = t[1] end
    assert.are.equal(7, t)
    refused(("["):rep(257) .. ("]"):rep(257), "bad.json:1:257: the document nests deeper than 256 levels; refusing it")
    assert.matches("cannot write a table nested deeper than 256 levels",
                   error_of(nd.json.encode, { nd.json.decode(text) }))
  end)

  it("a missing file, naming it", function()
    local err = error_of(nd.json.load, "no/such/config.json")
    assert.is_true(err.bad_input)
    assert.are.equal("no/such/config.json: cannot read: No such file or directory", err.message)
  end)
end)

describe("nd.json.encode", function()
  local o = { name = "x", sizes = { 1, 2.5, nd.null }, nested = { b = true, a = {} }, empty = nd.json.array {} }

  it("sorts the keys of tables built in Lua", function()
    -- json.dumps(o, sort_keys=True, separators=(",", ":"))
    assert.are.equal('{"empty":[],"name":"x","nested":{"a":{},"b":true},"sizes":[1,2.5,null]}', nd.json.encode(o))
  end)

  it("is deterministic", function()
    local first = nd.json.encode(o)
    for _ = 1, 20 do
      local t = { name = "x", sizes = { 1, 2.5, nd.null }, nested = { b = true, a = {} }, empty = nd.json.array {} }
      assert.are.equal(first, nd.json.encode(t))
    end
  end)

  it("indents as json.dumps(indent=n) does", function()
    -- json.dumps(o, sort_keys=True, indent=2)
    assert.are.equal([[
{
  "empty": [],
  "name": "x",
  "nested": {
    "a": {},
    "b": true
  },
  "sizes": [
    1,
    2.5,
    null
  ]
}]], nd.json.encode(o, { indent = 2 }))
    local four = nd.json.encode(o, { indent = 4 })
    assert.truthy(four:find('\n        "a": {},\n', 1, true))
    assert.are.equal(nd.json.encode(o), nd.json.encode(o, { indent = 0 }))
    assert.matches("indent must be a whole number from 0 to 16", error_of(nd.json.encode, o, { indent = -1 }))
  end)

  it("keeps the loader's key order, then sorts keys added later", function()
    local t = nd.json.decode('{"zeta": 1, "alpha": [3, 1], "mid": {"y": null, "x": 0.5}}')
    assert.are.equal('{"zeta":1,"alpha":[3,1],"mid":{"y":null,"x":0.5}}', nd.json.encode(t))
    t.b, t.a = 2, 1
    assert.are.equal('{"zeta":1,"alpha":[3,1],"mid":{"y":null,"x":0.5},"a":1,"b":2}', nd.json.encode(t))
  end)

  it("writes integers as integers and floats with a dot or an exponent", function()
    -- json.dumps([3, 3.0, 9007199254740993, 0.1, 1e20]) = '[3, 3.0, 9007199254740993, 0.1, 1e+20]'
    assert.are.equal("[3,3.0,9007199254740993,0.1,1.0e+20]", nd.json.encode({ 3, 3.0, 9007199254740993, 0.1, 1e20 }))
    assert.are.equal("-9223372036854775808", nd.json.encode(math.mininteger))
  end)

  it("round-trips a document: same text, same types", function()
    local text = '{"b":1,"a":[1,2.5,null,true,"s"],"c":{"n":-0.0,"m":9007199254740993}}'
    assert.are.equal(text, nd.json.encode(nd.json.decode(text)))
  end)

  it("writes nd.null and nil as null, and NaN and infinities as null (JSON has none)", function()
    assert.are.equal("null", nd.json.encode(nd.null))
    assert.are.equal("null", nd.json.encode(nil))
    assert.are.equal("[null,null,null]", nd.json.encode({ 0 / 0, math.huge, -math.huge }))
  end)

  it("writes an empty table as {} unless marked with nd.json.array", function()
    assert.are.equal("{}", nd.json.encode({}))
    assert.are.equal("[]", nd.json.encode(nd.json.array {}))
    assert.are.equal('{"1":"a","3":"c"}', nd.json.encode({ [1] = "a", [3] = "c" }))
  end)

  it("escapes strings as JSON requires", function()
    assert.are.equal('"tab\\there \\"q\\" \\\\ \xc3\xa9 \\n"', nd.json.encode('tab\there "q" \\ \xc3\xa9 \n'))
  end)

  it("refuses what JSON cannot hold, naming the key path", function()
    assert.matches("cannot write a function at a%.b as JSON", error_of(nd.json.encode, { a = { b = print } }))
    assert.matches("cannot write a boolean key at the top level as JSON", error_of(nd.json.encode, { [true] = 1 }))
    local t = { x = {} }
    t.x.self = t
    assert.matches("cannot write a table that contains itself at x%.self as JSON", error_of(nd.json.encode, t))
  end)
end)
