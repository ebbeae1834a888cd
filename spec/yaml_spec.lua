-- yaml_spec.lua: nd.yaml, the YAML bridge, as Lua sees it.
--
-- The reference for every typed value is PyYAML's safe loader (python3-yaml),
-- which is how the HyperParallel trainer reads its train.yaml: an expected
-- value here is what `yaml.safe_load(TEXT)` gives, checked with
--   /usr/bin/python3 -c 'import yaml; print(repr(yaml.safe_load("v: 0x1f")))'
-- and spec/c/test_yaml_scalar.c holds the full scalar table at the C level.
local nd = require "nd"

local EXAMPLE = "examples/qwen3-30b-a3b-fsdp8/train.yaml"
-- PyYAML's reading of EXAMPLE, written as JSON in PyYAML's key order by
--   python3 -c 'import json, yaml; print(json.dumps(yaml.safe_load(open(
--     "examples/qwen3-30b-a3b-fsdp8/train.yaml")), indent=1, ensure_ascii=False))'
local EXAMPLE_BY_PYYAML = "spec/fixtures/qwen3-30b-a3b-fsdp8.pyyaml.json"

-- The error a call raises (it must raise one).
local function error_of(f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error")
  return err
end

-- Whether a and b hold the same values of the same Lua types (integer vs
-- float too), maps with the same keys in the same document order.
local function same(a, b, path)
  path = path or "(top)"
  if type(a) ~= type(b) or math.type(a) ~= math.type(b) then
    return false, path .. ": " .. tostring(a) .. " vs " .. tostring(b)
  end
  if type(a) ~= "table" then
    if a ~= a and b ~= b then return true end -- NaN
    return a == b, path .. ": " .. tostring(a) .. " vs " .. tostring(b)
  end
  local ka, kb = nd.keys(a), nd.keys(b) -- nil for a table built in Lua
  if ka and kb and table.concat(ka, ",") ~= table.concat(kb, ",") then
    return false, path .. ": keys " .. table.concat(ka, ",") .. " vs " .. table.concat(kb, ",")
  end
  if #a ~= #b then return false, path .. ": lengths differ" end
  for k, v in pairs(a) do
    local ok, why = same(v, b[k], path .. "." .. tostring(k))
    if not ok then return false, why end
  end
  for k in pairs(b) do
    if a[k] == nil then return false, path .. ": extra key " .. tostring(k) end
  end
  return true
end

local function assert_same(a, b)
  local ok, why = same(a, b)
  assert(ok, why)
end

local function write_file(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

describe("nd.yaml scalars (YAML 1.1, as PyYAML types them)", function()
  local function v(text) return nd.yaml.decode("v: " .. text .. "\n").v end

  it("reads the six boolean words in their three case forms, and only those", function()
    for _, word in ipairs { "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON" } do
      assert.are.equal(true, v(word), word)
    end
    for _, word in ipairs { "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF" } do
      assert.are.equal(false, v(word), word)
    end
    assert.are.equal("yEs", v("yEs")) -- PyYAML: 'yEs'
    assert.are.equal("y", v("y"))     -- PyYAML: 'y' (YAML 1.1's y/n are not in PyYAML)
  end)

  it("reads ~, null in three cases and the empty value as nd.null", function()
    for _, word in ipairs { "~", "null", "Null", "NULL", "" } do
      assert.is_true(nd.isnull(v(word)), "'" .. word .. "'")
    end
    assert.are.equal("nULL", v("nULL"))
  end)

  it("reads decimal, hex, octal, binary and sexagesimal integers as Lua integers", function()
    local cases = {
      { "12", 12 }, { "-12", -12 }, { "+12", 12 }, { "1_000", 1000 }, { "0", 0 },
      { "0x1F", 31 }, { "0x_1f", 31 }, { "-0x1f", -31 },
      { "017", 15 }, { "0_17", 15 },          -- a leading 0 is octal in YAML 1.1
      { "0b101", 5 }, { "-0b1_01", -5 },
      { "1:30", 90 }, { "190:20:30", 685230 }, -- base 60: 190*3600 + 20*60 + 30
      { "9223372036854775807", math.maxinteger }, { "-9223372036854775808", math.mininteger },
    }
    for _, c in ipairs(cases) do
      local got = v(c[1])
      assert.are.equal("integer", math.type(got), c[1])
      assert.are.equal(c[2], got, c[1])
    end
  end)

  it("reads floats with a dot, a signed exponent, base 60 and .inf/.nan as Lua floats", function()
    local cases = {
      { "1.5", 1.5 }, { "6.0e+1", 60.0 }, { "1.5E+3", 1500.0 }, { "1.5e-3", 0.0015 },
      { "1.", 1.0 }, { ".5", 0.5 }, { "1_0.5", 10.5 }, { "1:30.5", 90.5 },
      { ".inf", math.huge }, { ".Inf", math.huge }, { ".INF", math.huge }, { "-.inf", -math.huge },
      { "9223372036854775808", 2.0 ^ 63 }, -- past int64: the nearest float (PyYAML: a big int)
    }
    for _, c in ipairs(cases) do
      local got = v(c[1])
      assert.are.equal("float", math.type(got), c[1])
      assert.are.equal(c[2], got, c[1])
    end
    for _, word in ipairs { ".nan", ".NaN", ".NAN" } do
      local got = v(word)
      assert.is_true(math.type(got) == "float" and got ~= got, word)
    end
  end)

  it("keeps as strings what only looks like a number", function()
    -- PyYAML: each of these is a str (no dot, no exponent sign, no such prefix, ...)
    for _, text in ipairs { "1e5", "1.0e5", "6.0e1", "-.5", "0X1F", "0o17", "08", "0:30", "1:60",
                            "inf", "nan", "-.nan", "1_2_3a", "0b", "2001-12-14" } do
      assert.are.equal(text, v(text), text)
    end
  end)

  it("keeps quoted scalars strings, whatever they look like", function()
    for _, text in ipairs { "yes", "off", "~", "null", "", "12", "0x1f", "1.5", ".inf", "1:30" } do
      assert.are.equal(text, v('"' .. text .. '"'), '"' .. text .. '"')
      assert.are.equal(text, v("'" .. text .. "'"), "'" .. text .. "'")
    end
  end)

  it("follows explicit tags as PyYAML's constructors do", function()
    assert.are.equal("12", v("!!str 12"))
    assert.are.equal("yes", v("!!str yes"))
    local i = v('!!int "12"')
    assert.are.equal("integer", math.type(i))
    assert.are.equal(12, i)
    assert.are.equal(16, v('!!int "0x10"'))
    local f = v("!!float 1e5")       -- float('1e5') = 100000.0 in PyYAML
    assert.are.equal("float", math.type(f))
    assert.are.equal(100000.0, f)
    assert.are.equal(3.0, v("!!float 3"))
    assert.are.equal("float", math.type(v("!!float 3")))
    assert.are.equal(true, v('!!bool "YeS"'))
    assert.is_true(nd.isnull(v("!!null whatever")))
    assert.are.equal(12, v("! 12"))  -- PyYAML resolves the non-specific tag "!" as plain
  end)

  it("refuses a tag that does not fit its value, naming the place", function()
    local err = error_of(nd.yaml.decode, "a: 1\nb: !!int twelve\n", "t.yaml")
    assert.is_true(err.bad_input)
    assert.matches("^t%.yaml:2:4: the tag !!int does not fit the value 'twelve'", err.message)
    err = error_of(nd.yaml.decode, "v: !foo bar\n", "t.yaml")
    assert.matches("^t%.yaml:1:4: the tag !foo does not fit", err.message)
    err = error_of(nd.yaml.decode, "v: 0x_\n", "t.yaml") -- PyYAML: ValueError
    assert.are.equal("t.yaml:1:4: '0x_' is an integer without digits", err.message)
  end)
end)

describe("nd.null", function()
  it("stands for null in sequences and for keys present with a null value", function()
    local t = nd.yaml.decode("list: [~, 1, null, ]\nkey: ~\nempty:\n")
    assert.are.equal(3, #t.list)
    assert.are.equal(nd.null, t.list[1])
    assert.are.equal(1, t.list[2])
    assert.are.equal(nd.null, t.list[3])
    assert.are.equal(nd.null, t.key)
    assert.are.equal(nd.null, t.empty)
    assert.are.same({ "list", "key", "empty" }, nd.yaml.keys(t))
  end)

  it("is one value: the same from YAML, JSON, nd and nd.core", function()
    assert.are.equal(nd.null, nd.yaml.decode("~"))
    assert.are.equal(nd.null, nd.json.decode("null"))
    assert.are.equal(nd.null, require("nd.core").null)
    assert.are.equal("userdata", type(nd.null))
    assert.is_true(nd.isnull(nd.null))
    assert.is_false(nd.isnull(nil))
    assert.is_false(nd.isnull(false))
    assert.is_false(nd.isnull({}))
  end)

  it("prints as null", function()
    assert.are.equal("null", tostring(nd.null))
    assert.are.equal("null\n", nd.yaml.encode(nd.null))
  end)

  it("is what an empty document reads as, as in PyYAML", function()
    assert.are.equal(nd.null, nd.yaml.decode(""))
    assert.are.equal(nd.null, nd.yaml.decode("# only a comment\n"))
  end)
end)

describe("nd.yaml key order", function()
  local text = "zeta: 1\nalpha:\n  mid: [3, 2, 1]\n  beta: x\n  aa: {y: 1, x: 2}\nmiddle: 2.5\n"

  it("keeps the document's order of keys at every level", function()
    local t = nd.yaml.decode(text)
    assert.are.same({ "zeta", "alpha", "middle" }, nd.yaml.keys(t))
    assert.are.same({ "mid", "beta", "aa" }, nd.yaml.keys(t.alpha))
    assert.are.same({ "y", "x" }, nd.yaml.keys(t.alpha.aa))
  end)

  it("encodes a loaded table in its order, and reads back the same order and values", function()
    local t = nd.yaml.decode(text)
    local out = nd.yaml.encode(t)
    assert.are.equal("zeta: 1\nalpha:\n  mid:\n  - 3\n  - 2\n  - 1\n  beta: x\n  aa:\n    y: 1\n    x: 2\nmiddle: 2.5\n", out)
    assert_same(t, nd.yaml.decode(out))
  end)

  it("lists keys added after loading after the loaded ones, sorted", function()
    local t = nd.yaml.decode("b: 1\na: 2\n")
    t.d, t.c = 4, 3
    assert.are.equal("b: 1\na: 2\nc: 3\nd: 4\n", nd.yaml.encode(t))
    t.b = nil
    assert.are.same({ "a" }, nd.yaml.keys(t))
  end)

  it("sorts the keys of tables built in Lua: numbers, then strings, then booleans", function()
    assert.are.equal("1: one\n2: two\na: 1\nb: 2\ntrue: t\n",
                     nd.yaml.encode({ b = 2, a = 1, [2] = "two", [1] = "one", [true] = "t", [3] = nil }))
  end)

  it("reads the bundled train.yaml exactly as PyYAML does: values, types and key order", function()
    local doc = nd.yaml.load(EXAMPLE)
    assert_same(nd.json.load(EXAMPLE_BY_PYYAML), doc)
    assert.are.same({ "model", "training", "accelerator", "fsdp_config", "plan_overrides", "mixed_precision",
                      "activation_checkpoint", "activation_swap", "compile", "dataset", "dataloader",
                      "optimizer", "lr_scheduler", "checkpoint", "debug", "profiling" }, nd.yaml.keys(doc))
  end)

  it("round-trips the bundled train.yaml: load, encode, load keeps order and values", function()
    local doc = nd.yaml.load(EXAMPLE)
    local text = nd.yaml.encode(doc)
    assert_same(doc, nd.yaml.decode(text))
    -- the top-level keys come out in file order, one per line at the margin
    local margin = {}
    for line in text:gmatch("[^\n]+") do
      local key = line:match("^([%w_]+):")
      if key then margin[#margin + 1] = key end
    end
    assert.are.same(nd.yaml.keys(doc), margin)
    -- the empty containers keep their kind
    assert.truthy(text:find("\n  replicate_params: %[%]\n"))
    assert.truthy(text:find("\n  options: {}\n"))
  end)
end)

describe("nd.yaml positions", function()
  it("gives the file, line and column of a nested value", function()
    local t = nd.yaml.decode("top:\n  mid:\n    leaf: 42\n    list:\n      - a\n      - b\n", "n.yaml")
    -- line 3 is "    leaf: 42": the value starts in column 11
    assert.are.same({ "n.yaml", 3, 11 }, { nd.yaml.where(t.top.mid, "leaf") })
    -- line 6 is "      - b": the item starts in column 9
    assert.are.same({ "n.yaml", 6, 9 }, { nd.yaml.where(t.top.mid.list, 2) })
    -- the mapping under top starts at its first key, line 2 column 3
    assert.are.same({ "n.yaml", 2, 3 }, { nd.yaml.where(t.top) })
    assert.is_nil(nd.yaml.where(t.top.mid, "absent"))
  end)

  it("gives where a key itself is written, asked with \"key\"", function()
    local t = nd.yaml.decode("top:\n  mid:\n    leaf: 42\nflow: {x: 1, \"y\": 2}\n", "k.yaml")
    -- line 3 is "    leaf: 42": the key starts in column 5, its value in 11
    assert.are.same({ "k.yaml", 3, 5 }, { nd.yaml.where(t.top.mid, "leaf", "key") })
    assert.are.same({ "k.yaml", 3, 11 }, { nd.yaml.where(t.top.mid, "leaf", "value") })
    -- a block mapping's key is on the line above its value: "top:" is 1:1, its value 2:3
    assert.are.same({ "k.yaml", 1, 1 }, { nd.yaml.where(t, "top", "key") })
    assert.are.same({ "k.yaml", 2, 3 }, { nd.yaml.where(t, "top") })
    -- line 4 is 'flow: {x: 1, "y": 2}': x at column 8, the quoted y at 14
    assert.are.same({ "k.yaml", 4, 8 }, { nd.yaml.where(t.flow, "x", "key") })
    assert.are.same({ "k.yaml", 4, 14 }, { nd.yaml.where(t.flow, "y", "key") })
    assert.has_error(function() nd.yaml.where(t, "top", "place") end)
    -- a repeated key is refused (issue 34 item 4), naming both places
    assert.matches("^d%.yaml:3:1: the key 'a' is stated twice in one mapping %(first at line 1",
                   error_of(nd.yaml.decode, "a: 1\nb: 0\na: 2\n", "d.yaml").message)
  end)

  it("notes every key of a long mapping, in order, where it and its value are", function()
    -- 150 keys, k1..k150, one a line: "k<i>: <i>" (yaml_load.c notes a mapping's keys 64 at a time: this one
    -- crosses two such runs); key i is on line i, at column 1, its value after "k<i>: "
    local lines, names = {}, {}
    for i = 1, 150 do lines[i], names[i] = "k" .. i .. ": " .. i, "k" .. i end
    local t = nd.yaml.decode(table.concat(lines, "\n") .. "\n", "long.yaml")
    assert.are.same(names, nd.yaml.keys(t))
    for _, i in ipairs({ 1, 64, 65, 128, 129, 150 }) do
      assert.are.same({ "long.yaml", i, 1 }, { nd.yaml.where(t, "k" .. i, "key") })
      assert.are.same({ "long.yaml", i, #("k" .. i .. ": ") + 1 }, { nd.yaml.where(t, "k" .. i) })
    end
    -- a repeat names its first line, whether that key was read in this run of 64 or an earlier one
    for _, case in ipairs({ { 140, 130 }, { 140, 10 }, { 60, 3 } }) do
      local n, first = case[1], case[2]
      local text = table.concat(lines, "\n", 1, n) .. "\nk" .. first .. ": 0\n"
      assert.matches("^r%.yaml:" .. (n + 1) .. ":1: the key 'k" .. first .. "' is stated twice in one mapping "
                     .. "%(first at line " .. first .. ",", error_of(nd.yaml.decode, text, "r.yaml").message)
    end
  end)

  it("places a JSON key at its value (the JSON loader notes values only)", function()
    local t = nd.json.decode('{\n  "a": 1\n}', "k.json")
    local core = require "nd.core"
    -- line 2 is '  "a": 1': the value 1 starts in column 8
    assert.are.same({ "k.json", 2, 8 }, { core.where(t, "a", "key") })
  end)

  it("gives the positions of a loaded file under its path", function()
    local doc = nd.yaml.load(EXAMPLE)
    -- grep -n 'tp_size' gives line 34, "  tp_size: 1": the value is in column 12
    assert.are.same({ EXAMPLE, 34, 12 }, { nd.yaml.where(doc.accelerator, "tp_size") })
    -- line 150 is "    muon_lr: 3.0e-5": column 14
    assert.are.same({ EXAMPLE, 150, 14 }, { nd.yaml.where(doc.optimizer.muon_config, "muon_lr") })
  end)

  it("is what nd.errors.at uses to name the place of a bad value", function()
    local errors = require "nd.errors"
    local t = nd.yaml.decode("accelerator:\n  tp_size: four\n", "train.yaml")
    local err = error_of(errors.at, t.accelerator, "tp_size", "accelerator.tp_size",
                         'must be a positive integer, got "four"')
    assert.are.equal('train.yaml:2:12: accelerator.tp_size: must be a positive integer, got "four"', err.message)
  end)
end)

describe("nd.yaml anchors, aliases and merge keys", function()
  it("gives an alias the anchored value", function()
    local t = nd.yaml.decode("a: &x 5\nb: *x\nc: &m {k: v}\nd: *m\n")
    assert.are.equal(5, t.b)
    assert.are.equal("v", t.d.k)
  end)

  it("merges << maps as PyYAML does: merged keys first, explicit keys win", function()
    -- PyYAML: {'p': 3, 's': 1, 't': 0, 'r': 2}
    local t = nd.yaml.decode("d:\n  s: 1\n  r: 2\n  p: 3\n  <<: {p: 0, s: 0, t: 0}\n")
    assert.are.same({ "p", "s", "t", "r" }, nd.yaml.keys(t.d))
    assert.are.same({ p = 3, s = 1, t = 0, r = 2 }, t.d)
  end)

  it("lets the first map of a << list win, and a later << key win over an earlier one", function()
    local t = nd.yaml.decode("a: &a {x: 1, z: 0}\nb: &b {y: 2, x: 9}\n" ..
                             "c:\n  <<: [*a, *b]\n  w: 3\ne: {<<: *a, <<: *b}\n")
    -- PyYAML: c = {'y': 2, 'x': 1, 'z': 0, 'w': 3}; e = {'x': 9, 'z': 0, 'y': 2}
    assert.are.same({ "y", "x", "z", "w" }, nd.yaml.keys(t.c))
    assert.are.same({ y = 2, x = 1, z = 0, w = 3 }, t.c)
    assert.are.same({ "x", "z", "y" }, nd.yaml.keys(t.e))
    assert.are.same({ x = 9, z = 0, y = 2 }, t.e)
  end)

  it("places a merged value where the merged map wrote it", function()
    local t = nd.yaml.decode("base: &b\n  lr: 0.1\nrun:\n  <<: *b\n  steps: 3\n", "m.yaml")
    assert.are.same({ "m.yaml", 2, 7 }, { nd.yaml.where(t.run, "lr") })
    assert.are.same({ "m.yaml", 5, 10 }, { nd.yaml.where(t.run, "steps") })
  end)

  it("refuses a << that is not a map or a list of maps", function()
    -- PyYAML: "expected a mapping or list of mappings for merging" at line 2, column 7
    local err = error_of(nd.yaml.decode, "a:\n  <<: 3\n", "m.yaml")
    assert.are.equal("m.yaml:2:7: a << merge key takes a mapping or a list of mappings", err.message)
  end)
end)

describe("nd.yaml repeated keys (issue 34 item 4)", function()
  it("refuses a key stated twice in one mapping, naming both lines (PyYAML would keep the later silently)",
     function()
    local err = error_of(nd.yaml.decode, "model: {a: 1}\naccelerator:\n  tp_size: 2\nx: 1\naccelerator:\n  pp_size: 2\n",
                         "t.yaml")
    assert.are.equal("t.yaml:5:1: the key 'accelerator' is stated twice in one mapping (first at line 2, again here); "
                     .. "ndlua refuses a repeated key rather than let the later silently replace the earlier",
                     err.message)
    err = error_of(nd.yaml.decode, "a:\n  b: 1\n  c: 2\n  b: 3\n", "t.yaml")
    assert.matches("^t%.yaml:4:3: the key 'b' is stated twice in one mapping %(first at line 2, again here%)",
                   err.message)
    -- a flow mapping, and keys equal once typed (1 and 0x1 are both the integer 1)
    err = error_of(nd.yaml.decode, "a: {k: 1, k: 2}\n", "t.yaml")
    assert.matches("^t%.yaml:1:11: the key 'k' is stated twice", err.message)
    err = error_of(nd.yaml.decode, "1: a\n0x1: b\n", "t.yaml")
    assert.matches("^t%.yaml:2:1: the key '1' is stated twice in one mapping %(first at line 1", err.message)
  end)

  it("takes one key in separate mappings, and a mapping's own key over a << merged one", function()
    local t = nd.yaml.decode("a: {k: 1}\nb: {k: 2}\nbase: &b {k: 3}\nc:\n  <<: *b\n  k: 4\n")
    assert.are.same({ 1, 2, 4 }, { t.a.k, t.b.k, t.c.k })
  end)
end)

describe("nd.yaml refuses", function()
  local function refused(text, pattern)
    local err = error_of(nd.yaml.decode, text, "bad.yaml")
    assert.are.equal("table", type(err))
    assert.is_true(err.bad_input)
    assert.matches(pattern, err.message)
  end

  it("a syntax error, with line, column, libyaml's problem and its context", function()
    -- libyaml: "did not find expected ',' or ']'" at line 2 column 1, while
    -- parsing the flow sequence that opened at line 1 column 4 (PyYAML says the same)
    local err = error_of(nd.yaml.decode, "a: [1, 2\nb: 3\n", "bad.yaml")
    assert.are.equal("bad.yaml:2:2: YAML syntax error: did not find expected ',' or ']' "
                     .. "(while parsing a flow sequence at line 1, column 4)", err.message)
    -- PyYAML: "found unexpected end of stream" at line 2, column 1
    refused("a: 'open\n", "^bad%.yaml:2:1: YAML syntax error: found unexpected end of stream")
    -- PyYAML: "mapping values are not allowed here" at line 1, column 5
    refused("a: b: c\n", "^bad%.yaml:1:5: YAML syntax error: mapping values are not allowed in this context")
    refused("a: \xff\n", "^bad%.yaml:1:4: YAML syntax error: invalid leading UTF%-8 octet")
  end)

  it("a second document", function()
    -- PyYAML: "expected a single document in the stream ... but found another document" at 2:1
    refused("a: 1\n---\nb: 2\n", "^bad%.yaml:2:1: a second YAML document in one file")
  end)

  it("an alias bomb (billion laughs) before expanding it", function()
    local lines = { 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]' }
    local prev = "a"
    for name in ("bcdefghi"):gmatch(".") do
      lines[#lines + 1] = name .. ": &" .. name .. " [" .. ("*" .. prev .. ","):rep(8) .. "*" .. prev .. "]"
      prev = name
    end
    refused(table.concat(lines, "\n") .. "\n", "expands to more than a million nodes through its aliases")
  end)

  it("a recursive alias (PyYAML builds a cyclic structure; ndlua refuses it)", function()
    refused("a: &x [1, *x]\n", "^bad%.yaml:1:11: the alias %*x refers to the node that contains it")
  end)

  it("an alias to no anchor", function()
    refused("a: *nowhere\n", "^bad%.yaml:1:4: the alias %*nowhere names no anchor")
  end)

  it("10 000-deep nesting, of sequences and of mappings", function()
    -- the 257th "[" is at column 257, the 257th "{a: " at column 256 * 4 + 1
    refused(("["):rep(10000) .. ("]"):rep(10000), "^bad%.yaml:1:257: the document nests deeper than 256 levels")
    refused(("{a: "):rep(10000) .. "1" .. ("}"):rep(10000), "^bad%.yaml:1:1025: the document nests deeper")
    refused(("["):rep(257) .. ("]"):rep(257), "^bad%.yaml:1:257: the document nests deeper than 256 levels")
  end)

  it("but reads 256-deep nesting, and writes it back", function()
    local top = nd.yaml.decode(("["):rep(256) .. "7" .. ("]"):rep(256))
    local t = top
    for _ = 1, 256 do t = t[1] end
    assert.are.equal(7, t)
    assert_same(top, nd.yaml.decode(nd.yaml.encode(top)))
    assert.matches("cannot write a table nested deeper than 256 levels", error_of(nd.yaml.encode, { top }))
  end)

  it("a collection as a key", function()
    refused("? [a, b]\n: 1\n", "a mapping or sequence used as a key")
  end)

  it("a missing file, naming it", function()
    local err = error_of(nd.yaml.load, "no/such/file.yaml")
    assert.is_true(err.bad_input)
    assert.are.equal("no/such/file.yaml: cannot read: No such file or directory", err.message)
  end)
end)

describe("nd.yaml.encode", function()
  it("quotes strings that would read back as another type", function()
    local strings = { "yes", "Off", "~", "null", "", "12", "0x1f", "017", "1.5", "6.0e+1", ".inf",
                      "1:30", "2001-12-14", "<<", "=", "true" }
    local text = nd.yaml.encode(strings)
    for line in text:gmatch("[^\n]+") do
      assert.matches("^%- '.*'$", line)
    end
    assert.are.same(strings, nd.yaml.decode(text))
  end)

  it("writes plain the strings that read back as themselves", function()
    assert.are.equal("- 1e5\n- hello world\n- yEs\n", nd.yaml.encode({ "1e5", "hello world", "yEs" }))
  end)

  it("writes integers as integers and floats so they read back as floats", function()
    local t = { 3, 3.0, 0.1, 1e20, 1e-5, -0.0, math.huge, -math.huge, 2 ^ 53 }
    -- floats as Python's repr writes them, with .0 added to an exponent form
    assert.are.equal("- 3\n- 3.0\n- 0.1\n- 1.0e+20\n- 1.0e-05\n- -0.0\n- .inf\n- -.inf\n- 9007199254740992.0\n",
                     nd.yaml.encode(t))
    local back = nd.yaml.decode(nd.yaml.encode(t))
    assert_same(t, back)
    local nan = nd.yaml.decode(nd.yaml.encode({ 0 / 0 }))[1]
    assert.is_true(nan ~= nan)
  end)

  it("writes booleans, nulls, empty tables and multi-line strings", function()
    assert.are.equal("a: true\nb: false\nc: null\nd: {}\ne: []\nf: |-\n  two\n  lines\n",
                     nd.yaml.encode({ a = true, b = false, c = nd.null, d = {}, e = nd.json.array {},
                                      f = "two\nlines" }))
  end)

  it("refuses what YAML cannot hold, naming the key path", function()
    assert.matches("cannot write a function at a%.b as YAML",
                   error_of(nd.yaml.encode, { a = { b = print } }))
    local t = { x = {} }
    t.x.self = t
    assert.matches("cannot write a table that contains itself at x%.self as YAML", error_of(nd.yaml.encode, t))
  end)

  it("dumps to a file that loads back the same", function()
    local path = os.tmpname()
    local doc = nd.yaml.load(EXAMPLE)
    nd.yaml.dump(doc, path)
    assert_same(doc, nd.yaml.load(path))
    os.remove(path)
  end)

  it("refuses to dump into a missing directory, naming the file", function()
    local err = error_of(nd.yaml.dump, { a = 1 }, "/no/such/dir/out.yaml")
    assert.is_true(err.bad_input)
    assert.are.equal("/no/such/dir/out.yaml: cannot write: No such file or directory", err.message)
  end)

  it("reads files with Windows line ends and a byte-order mark", function()
    local path = os.tmpname()
    write_file(path, "\xef\xbb\xbfa: 1\r\nb: [x, y]\r\n")
    local t = nd.yaml.load(path)
    os.remove(path)
    assert.are.same({ a = 1, b = { "x", "y" } }, t)
    assert.are.same({ "a", "b" }, nd.yaml.keys(t))
  end)
end)
