-- ndlua_spec.lua: the nd module as a script sees it (the executable itself is
-- tested by the transcripts in spec/cli/).
local nd = require "nd"

describe("the nd module", function()
  it("is the same table on every require", function()
    assert.are.equal(nd, require "nd")
  end)

  it("carries the version the Makefile states", function()
    local makefile = assert(io.open("Makefile")):read("a")
    local version = makefile:match("\nVERSION%s*:=%s*(%S+)")
    assert.is_string(version)
    assert.are.equal(version, nd.version)
  end)

  it("re-exports nd.core: the bridges, the null value and the helpers", function()
    local core = require "nd.core"
    for _, name in ipairs { "fail", "isnull", "null", "keys", "where", "array", "yaml", "json", "version" } do
      assert.are.equal(core[name], nd[name], name)
    end
    for _, name in ipairs { "load", "decode", "encode", "dump", "keys", "where" } do
      assert.is_function(nd.yaml[name], "yaml." .. name)
    end
    for _, name in ipairs { "load", "decode", "encode", "array", "keys" } do
      assert.is_function(nd.json[name], "json." .. name)
    end
  end)
end)

describe("nd.fail", function()
  it("raises a bad-input error table holding the message alone", function()
    local ok, err = pcall(nd.fail, "train.yaml: no model")
    assert.is_false(ok)
    assert.are.equal("table", type(err))
    assert.is_true(err.bad_input)
    assert.are.equal("train.yaml: no model", err.message)
  end)

  it("marks a given error table as bad input and raises it", function()
    local e = { message = "x.yaml:3:1: wrong" }
    local ok, err = pcall(nd.fail, e)
    assert.is_false(ok)
    assert.are.equal(e, err)
    assert.is_true(err.bad_input)
  end)

  it("wants a message", function()
    local ok, err = pcall(nd.fail)
    assert.is_false(ok)
    assert.matches("bad argument #1 to", err)
  end)
end)

describe("nd.array and nd.keys", function()
  it("marks a table as a sequence and returns it", function()
    local t = {}
    assert.are.equal(t, nd.array(t))
    assert.are.equal("[]", nd.json.encode(t))
    assert.are.equal("[]\n", nd.yaml.encode(t))
  end)

  it("gives no key order for a table built in Lua", function()
    assert.is_nil(nd.keys({ a = 1 }))
    assert.is_nil(nd.where({ a = 1 }, "a"))
  end)
end)
