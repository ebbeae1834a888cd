-- nd.pretty: how the interactive prompt shows a table (issue 14 item 6).
local pretty = require "nd.pretty"

describe("nd.pretty.format", function()
  it("writes a short table on one line, the sequence first, then the keys sorted", function()
    assert.are.equal('{1, 2, b = "x", z = true}', pretty.format({ 1, 2, z = true, b = "x" }))
    assert.are.equal("{}", pretty.format({}))
    -- number keys before string keys
    assert.are.equal('{[2.5] = 2, ["a b"] = 1}', pretty.format({ ["a b"] = 1, [2.5] = 2 }))
  end)

  it("lays a long table over lines, nested tables indented", function()
    local t = { name = string.rep("n", 40), dims = { "DP", "TP" }, levels = { { devices = 8, gbps = 160 } } }
    assert.are.equal('{\n  dims = {"DP", "TP"},\n  levels = {{devices = 8, gbps = 160}},\n  name = "'
      .. string.rep("n", 40) .. '",\n}', pretty.format(t))
  end)

  it("cuts cycles, depth and length, saying so", function()
    local t = { a = 1 }
    t.self = t
    assert.are.equal("{a = 1, self = <cycle>}", pretty.format(t))
    assert.are.equal("{{{{{...}}}}}", pretty.format({ { { { { { 1 } } } } } }))
    local long = {}
    for i = 1, 45 do long[i] = i end
    assert.matches("... (5 more)", pretty.format(long), 1, true)
  end)

  it("shows a value with __tostring as it prints itself", function()
    local v = setmetatable({}, { __tostring = function() return "nd.run(tp 2)" end })
    assert.are.equal("{run = nd.run(tp 2)}", pretty.format({ run = v }))
  end)
end)
