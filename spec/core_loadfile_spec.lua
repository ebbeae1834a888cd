-- nd.core.loadfile (src/bridge/chunks.c): Lua's loadfile(path, "t", env)
-- that takes a file ndlua was built with from its compiled form, as
-- require does for modules; nd.files.run_data loads the hardware, runtime
-- and op profiles through it. What it returns is what loadfile returns.
local core = require "nd.core"
local pretty = require "nd.pretty"

local function temp_file(text)
  local path = os.tmpname()
  local f <close> = assert(io.open(path, "w"))
  f:write(text)
  return path
end

describe("nd.core.loadfile", function()
  it("loads a profile of lua/ from its compiled form, the same table as loadfile's", function()
    local path = "lua/nd/hardware/H100.lua"
    assert.is_true(core.compiled(path))
    local mine, theirs = core.loadfile(path, {}), loadfile(path, "t", {})
    assert.are.equal(pretty.format(theirs()), pretty.format(mine()))
    assert.are.equal("@" .. path, debug.getinfo(mine, "S").source)
  end)

  it("runs the file in the environment given, as loadfile does", function()
    local path = temp_file("return { p = print, x = 1 }")
    local t = core.loadfile(path, {})()
    os.remove(path)
    assert.is_nil(t.p) -- the empty environment holds no print
    assert.are.equal(1, t.x)
  end)

  it("fails as loadfile fails: nil and its message", function()
    local missing = os.tmpname()
    os.remove(missing)
    local bad = temp_file("return {")
    for _, path in ipairs { missing, bad } do
      local f, err = core.loadfile(path, {})
      local lf, lerr = loadfile(path, "t", {})
      assert.is_nil(f)
      assert.is_nil(lf)
      assert.are.equal(lerr, err)
    end
    os.remove(bad)
  end)
end)
