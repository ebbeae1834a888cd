-- require_graph_spec.lua: the modules under lua/nd and the modules each
-- requires (issue 16, item 2). Every `require "x"` and `require("x")` call
-- with a literal name counts, the ones inside functions too; comments and
-- the text of strings do not. The graph must have no cycle, and no module
-- of the library may require "nd", the facade (lua/nd/init.lua), which
-- only re-exports what the library defines; and the API (nd.api.*) may not
-- require the command line's modules (nd.cli, nd.search.command).
local core = require "nd.core"

local ROOT = "lua/nd"

-- The Lua files under a directory, recursively, as {path, module} pairs:
-- lua/nd/init.lua is "nd", lua/nd/a/b.lua "nd.a.b".
local function modules_under(dir, prefix, out)
  for _, name in ipairs(assert(core.list_dir(dir))) do
    local path = dir .. "/" .. name
    local _, kind = core.file_id(path)
    if kind == "directory" then
      modules_under(path, prefix .. "." .. name, out)
    elseif kind == "file" and name:sub(-4) == ".lua" then
      local base = name:sub(1, -5)
      out[#out + 1] = { path = path, module = base == "init" and prefix or prefix .. "." .. base }
    end
  end
  return out
end

-- The position after a long bracket's close ("]]", "]==]") that opens at
-- `i` (at "["), or nil when no long bracket opens there.
local function long_bracket_end(text, i)
  local eq = text:match("^%[(=*)%[", i)
  if not eq then return nil end
  local _, stop = text:find("]" .. eq .. "]", i + #eq + 2, true)
  return (stop or #text) + 1, text:sub(i + #eq + 2, (stop or #text + 1) - #eq - 2)
end

-- Lua source as tokens: {kind = "name" | "string" | "sym", text}; comments
-- dropped, a string's text its content (escapes left as written).
local function tokens(text)
  local out, i, n = {}, 1, #text
  while i <= n do
    local c = text:sub(i, i)
    if c:match("%s") then
      i = i + 1
    elseif text:sub(i, i + 1) == "--" then
      local after = long_bracket_end(text, i + 2)
      if after then
        i = after
      else
        i = (text:find("\n", i, true) or n) + 1
      end
    elseif c == '"' or c == "'" then
      local j, buf = i + 1, {}
      while j <= n do
        local d = text:sub(j, j)
        if d == "\\" then
          buf[#buf + 1] = text:sub(j, j + 1)
          j = j + 2
        elseif d == c or d == "\n" then
          break
        else
          buf[#buf + 1] = d
          j = j + 1
        end
      end
      out[#out + 1] = { kind = "string", text = table.concat(buf) }
      i = j + 1
    elseif c == "[" and text:match("^%[=*%[", i) then
      local after, body = long_bracket_end(text, i)
      out[#out + 1] = { kind = "string", text = body }
      i = after
    elseif c:match("[%a_]") then
      local word = text:match("^[%w_]+", i)
      out[#out + 1] = { kind = "name", text = word }
      i = i + #word
    elseif c:match("%d") then
      i = i + #text:match("^[%w_%.]+", i)
    else
      out[#out + 1] = { kind = "sym", text = c }
      i = i + 1
    end
  end
  return out
end

-- The names a Lua source requires by a literal: `require "x"`,
-- `require 'x'`, `require [[x]]`, `require("x")`, `require ( "x" )`.
local function requires_of(text)
  local t, names = tokens(text), {}
  for k, tok in ipairs(t) do
    local prev = t[k - 1]
    if tok.kind == "name" and tok.text == "require" and not (prev and prev.kind == "sym"
        and (prev.text == "." or prev.text == ":")) then
      local arg = t[k + 1]
      if arg and arg.kind == "sym" and arg.text == "(" then arg = t[k + 2] end
      if arg and arg.kind == "string" then names[#names + 1] = arg.text end
    end
  end
  return names
end

-- The graph: module -> sorted list of the modules under lua/nd it
-- requires (nd.core, lpeg and other outside modules left out).
local function graph()
  local files = modules_under(ROOT, "nd", {})
  local known, g = {}, {}
  for _, f in ipairs(files) do known[f.module] = true end
  for _, f in ipairs(files) do
    local fh = assert(io.open(f.path, "r"))
    local text = fh:read("a")
    fh:close()
    local seen, list = {}, {}
    for _, name in ipairs(requires_of(text)) do
      if known[name] and not seen[name] then
        seen[name] = true
        list[#list + 1] = name
      end
    end
    table.sort(list)
    g[f.module] = list
  end
  return g
end

-- The elementary cycles of a graph, each as "a -> b -> ... -> a" starting
-- at its least module, sorted (at most `limit` of them).
local function cycles(g, limit)
  local names = {}
  for name in pairs(g) do names[#names + 1] = name end
  table.sort(names)
  local found = {}
  for _, start in ipairs(names) do
    local path, on = { start }, { [start] = true }
    local function walk(node)
      for _, nxt in ipairs(g[node]) do
        if #found >= limit then return end
        if nxt == start then
          found[#found + 1] = table.concat(path, " -> ") .. " -> " .. start
        elseif nxt > start and not on[nxt] then
          path[#path + 1], on[nxt] = nxt, true
          walk(nxt)
          path[#path], on[nxt] = nil, nil
        end
      end
    end
    walk(start)
  end
  table.sort(found)
  return found
end

describe("the require graph of lua/nd", function()
  local g = graph()

  it("reads requires as calls, inside functions too, and skips comments and strings", function()
    assert.are.same({ "a.b", "c", "d", "e", "f" }, requires_of(table.concat({
      'local a = require "a.b"',
      'local function f() return require("c"), require ( \'d\' ), require [[e]] end',
      '-- local x = require "commented"',
      '--[[ require "long comment" ]] local s = "require \\"in a string\\""',
      'local g = require("f").field',
      'local h = t.require "method-like"',
    }, "\n")))
    assert.is_table(g["nd"])
    assert.is_table(g["nd.search.command"])
    -- lua/nd/files.lua requires nd.errors inside a function only
    assert.is_truthy(table.concat(g["nd.files"], " "):find("nd.errors", 1, true))
  end)

  it("finds a cycle, naming it", function()
    assert.are.same({ "a -> b -> c -> a", "b -> d -> b" },
      cycles({ a = { "b" }, b = { "c", "d" }, c = { "a" }, d = { "b" } }, 10))
  end)

  it("has no module of the library requiring the facade \"nd\"", function()
    local offenders = {}
    for name, list in pairs(g) do
      for _, dep in ipairs(list) do
        if dep == "nd" and name ~= "nd" then offenders[#offenders + 1] = name end
      end
    end
    table.sort(offenders)
    assert(#offenders == 0, "library modules requiring \"nd\" (the facade): " .. table.concat(offenders, ", "))
  end)

  it("has the API (nd.api, nd.api.*) requiring no module of the command line", function()
    local offenders = {}
    for name, list in pairs(g) do
      if name == "nd.api" or name:find("^nd%.api%.") then
        for _, dep in ipairs(list) do
          if dep == "nd.cli" or dep == "nd.search.command" then offenders[#offenders + 1] = name .. " -> " .. dep end
        end
      end
    end
    table.sort(offenders)
    assert(#offenders == 0, "the API requires the command line's modules: " .. table.concat(offenders, ", "))
  end)

  it("has no cycle", function()
    local found = cycles(g, 200)
    assert(#found == 0, #found .. " require cycle(s):\n  " .. table.concat(found, "\n  "))
  end)
end)
