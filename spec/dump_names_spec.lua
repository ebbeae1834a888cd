-- dump_names_spec.lua: scripts/dump_names.lua, a Lua 5.4 binary chunk less
-- its local-variable and upvalue names, its lines kept: the form of the
-- library's files ndlua carries (scripts/lua_chunks.lua).
local dump_names = dofile("scripts/dump_names.lua")

-- A chunk with two locals and two functions, one line each counted by hand.
local SOURCE = table.concat({
  "local up = 5",                         -- 1
  "local function f(x)",                  -- 2
  "  local t = nil",                      -- 3
  "  return t.x + up",                    -- 4
  "end",                                  -- 5
  "return f, function() return up end",   -- 6
}, "\n")

local function both()
  local fn = assert(load(SOURCE, "@t.lua", "t"))
  local bare = assert(load(dump_names.without_names(string.dump(fn)), "@t.lua", "b"))
  return fn, bare
end

describe("dump_names.without_names", function()
  it("drops the names: the dump is shorter by exactly their bytes", function()
    -- Removed, by hand from ldump.c's format (a string is its size + 1 in
    -- one byte, then its bytes; startpc and endpc here are under 128, one
    -- byte each; each count stays one byte, now 0): the main function's
    -- locals up (1 + 2 + 2) and f (1 + 1 + 2), its upvalue _ENV (1 + 4);
    -- f's locals x (1 + 1 + 2) and t (1 + 1 + 2), its upvalue up (1 + 2);
    -- the second function's upvalue up (1 + 2): 5 + 4 + 5 + 4 + 4 + 3 + 3 = 28.
    local dump = string.dump(assert(load(SOURCE, "@t.lua", "t")))
    assert.are.equal(28, #dump - #dump_names.without_names(dump))
  end)

  it("leaves the function itself: its stripped dump is the source's", function()
    local fn, bare = both()
    assert.are.equal(string.dump(fn, true), string.dump(bare, true))
  end)

  it("keeps each constant: nil, booleans, an integer, a float, short and long strings", function()
    -- luac5.4 -l -l lists this chunk's constants: 1.5 (F), "s", the long
    -- string, "b" (S), true (B), "c" (S), false (B), nil (N), 1 << 62 (I)
    local long = "a string that is longer than forty bytes, a long one"
    local text = "local t = {1.5, s = '" .. long .. "', b = true, c = false}\n"
      .. "return t, t.s == nil, 1 << 62"
    local fn = assert(load(text, "@k.lua", "t"))
    local bare = assert(load(dump_names.without_names(string.dump(fn)), "@k.lua", "b"))
    assert.are.equal(string.dump(fn, true), string.dump(bare, true))
    local t, is_nil, big = bare()
    assert.are.same({ 1.5, s = long, b = true, c = false }, t)
    assert.are.equal(false, is_nil)
    assert.are.equal(4611686018427387904, big)
  end)

  it("keeps the lines: an error names line 4, where the source's does", function()
    local fn, bare = both()
    local _, with_names = pcall(fn(), 1)
    local _, without = pcall(bare(), 1)
    -- ldebug.c names the indexed local t from the function's local names;
    -- without them nothing names it (t was set by LOADNIL, which carries no name)
    assert.are.equal("t.lua:4: attempt to index a nil value (local 't')", with_names)
    assert.are.equal("t.lua:4: attempt to index a nil value", without)
    local a, b = debug.getinfo(fn(), "SL"), debug.getinfo(bare(), "SL")
    assert.are.same({ 2, 5 }, { b.linedefined, b.lastlinedefined })
    assert.are.same(a.activelines, b.activelines)
  end)

  it("leaves no local or upvalue name", function()
    local fn, bare = both()
    assert.are.equal("x", debug.getlocal(fn(), 1))
    assert.is_nil(debug.getlocal(bare(), 1))
    -- lapi.c aux_upvalue names an upvalue without a name "(no name)"
    assert.are.equal("_ENV", (debug.getupvalue(fn, 1)))
    assert.are.equal("(no name)", (debug.getupvalue(bare, 1)))
    assert.are.same({ "(no name)", 5 }, { debug.getupvalue(bare(), 1) })
  end)

  it("gives the same dump again for a dump it wrote", function()
    local _, bare = both()
    local once = dump_names.without_names(string.dump(bare))
    assert.are.equal(once, dump_names.without_names(once))
  end)

  it("refuses what is not a Lua 5.4 binary chunk", function()
    assert.has_error(function() dump_names.without_names("return 1") end,
      "dump_names: not a Lua 5.4 binary chunk (format 0)")
    local dump = string.dump(assert(load(SOURCE, "@t.lua", "t")))
    assert.has_error(function() dump_names.without_names(dump .. "x") end,
      "dump_names: 1 bytes after the main function")
    assert.has_error(function() dump_names.without_names(dump:sub(1, 40)) end)
  end)
end)

describe("the library ndlua carries", function()
  -- nd.units runs compiled (spec/cli/ndlua_compiled.t); its source, loaded
  -- here from its text, is what Lua compiles
  local path = package.searchpath("nd.units", package.path)
  local text = assert(io.open(path, "rb")):read("a")

  it("has no local names, where its source has them", function()
    assert.is_true(require("nd").compiled(path))
    local source_units = assert(load(text, "@" .. path, "t"))()
    assert.are.equal("n", debug.getlocal(source_units.gib, 1))
    assert.is_nil(debug.getlocal(require("nd.units").gib, 1))
  end)

  it("names the source's lines: gib's error is on the line after its `function`", function()
    local line
    local n = 0
    for l in (text .. "\n"):gmatch("(.-)\n") do
      n = n + 1
      if l:match("^function units%.gib%(") then line = n + 1 end
    end
    local _, message = pcall(require("nd.units").gib, {})
    assert.are.equal(path .. ":" .. line .. ": attempt to perform arithmetic on a table value", message)
  end)
end)
