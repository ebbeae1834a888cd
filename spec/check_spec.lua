-- The one checked reader (lua/nd/check.lua): a value of a kind read at a
-- place (a document's key, a command-line option, an API argument), and
-- each place's refusal (issue 16, item 5).
local nd = require "nd"
local check = require "nd.check"

-- The message of a bad-input error raised by f.
local function bad_input(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  assert.is_true(type(err) == "table" and err.bad_input == true, "expected a bad-input error")
  return err.message
end

describe("nd.check", function()
  local doc = nd.yaml.decode("a:\n  n: 0\n  s: 5\n  m: x\n", "c.yaml")

  it("reads a kind at a document's key, refusing at the value's file, line and column", function()
    assert.equal(5, check.read(check.key(doc.a, "s", "a.s"), doc.a.s, "count"))
    assert.equal("c.yaml:2:6: a.n: must be a whole number above 0, got 0",
                 bad_input(check.read, check.key(doc.a, "n", "a.n"), doc.a.n, "count"))
    assert.equal("c.yaml:3:6: a.s: must be a name, got 5; a module",
                 bad_input(check.read, check.key(doc.a, "s", "a.s"), doc.a.s, "name", "a module"))
  end)

  it("collects the refusals of a key read with a sink, and reads on", function()
    local sink = {}
    assert.is_nil(check.read(check.key(doc.a, "n", "a.n", { sink = sink }), doc.a.n, "count"))
    assert.is_nil(check.choice(check.key(doc.a, "m", "a.m", { sink = sink }), doc.a.m, { "y", "z" }, "letter"))
    assert.same({ "c.yaml:2:6: a.n: must be a whole number above 0, got 0",
                  "c.yaml:4:6: a.m: 'x' is no letter; one of y, z" }, sink)
  end)

  it("places a key the command line set at the option", function()
    assert.equal("command line --a.n=0: a.n: must be at least 1, got 0; a count",
                 bad_input(check.integer, check.key(doc.a, "n", "a.n", { option = "--a.n=0" }), 0, 1, nil, "a count"))
  end)

  it("reads whole numbers as int() does, within a range", function()
    local place = check.key(doc.a, "n", "a.n")
    assert.equal(8, check.integer(place, "8", 1))
    assert.equal(8, check.integer(place, 8.0, 1))
    assert.matches("must be a whole number, got true", bad_input(check.integer, place, true, 1), 1, true)
    assert.matches("must be at most 4, got 8", bad_input(check.integer, place, 8, 1, 4), 1, true)
  end)

  it("reads one of some choices, in any case when asked", function()
    local place = check.option("--x")
    assert.equal("1f1b", check.choice(place, "1F1B", { "1f1b", "gpipe" }, "schedule", true))
    assert.equal("--x: 'ring' is no algorithm; one of ulysses",
                 bad_input(check.choice, place, "ring", { "ulysses" }, "algorithm"))
  end)

  it("words an option's refusal with the text given", function()
    assert.equal("-d: takes a whole number above 0, got 'x'",
                 bad_input(check.read, check.option("-d"), nil, "count", nil, "x"))
    assert.matches("^%-M: '58' has no unit", bad_input(check.bytes, check.option("-M"), "58", { unit = true }))
    assert.equal(58 * 2 ^ 30, check.bytes(check.option("-M"), "58GB", { unit = true }))
  end)

  it("refuses an API argument as a plain error at the level given", function()
    local function checked(v) check.read(check.argument("f", "argument 1 (x)", 3), v, "run") end
    local ok, err = pcall(checked, 3)
    assert.is_false(ok)
    assert.equal("string", type(err))
    assert.matches("check_spec.lua:%d+: f: argument 1 %(x%) must be an nd.run, got number", err)
  end)
end)
