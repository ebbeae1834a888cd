-- dump_names.lua: a Lua 5.4 binary chunk (string.dump's output) without
-- its local-variable and upvalue names, lines kept. scripts/lua_chunks.lua
-- writes the library's chunks through it, so that ndlua's load of a module
-- does not intern those names (about 4 000 strings over the modules an
-- estimate loads, two thirds of them "(for state)" and "_ENV").
--
-- The format is Lua 5.4's ldump.c (lundump.c reads it back the same way):
--   header: "\27Lua", version 0x54, format 0, LUAC_DATA (6 bytes), the sizes
--     of an instruction, a lua_Integer and a lua_Number (1 byte each), then
--     LUAC_INT and LUAC_NUM (an integer and a number of those sizes); then
--     one byte, the main function's upvalue count.
--   a function (dumpFunction): source (a string), linedefined,
--     lastlinedefined (ints), numparams, is_vararg, maxstacksize (bytes);
--     code (an int n, n instructions); constants (an int n, each a tag byte
--     and its value: none for nil/false/true, a lua_Integer for an integer,
--     a lua_Number for a float, a string for a short or long string);
--     upvalues (an int n, 3 bytes each: instack, idx, kind); protos (an int
--     n, n functions); debug (dumpDebug): lineinfo (an int n, n bytes),
--     abslineinfo (an int n, n pairs of ints pc, line), locvars (an int n,
--     each a string and two ints startpc, endpc), upvalue names (an int n,
--     n strings).
--   an int or size: 7 bits a byte, most significant first, the last byte
--     marked 0x80 (dumpSize); a string: its size + 1 as a size, then its
--     bytes (size 0: no string).
-- The rewrite writes 0 for the counts of locvars and of upvalue names and
-- drops what they counted; every other byte is copied. lundump.c's
-- loadDebug then leaves the function with no local names and each upvalue's
-- name NULL, as a function dumped with strip leaves them, but with its
-- lineinfo and abslineinfo, so error messages and tracebacks keep their
-- "file:line:". Lua's ldebug.c then has no name for a local or an upvalue:
-- a message says what it can still find from the code (a field's key, a
-- constant, a global's name only by "_ENV", which is an upvalue name, so
-- such a name reads "field") or nothing, and debug.getlocal gives no names
-- for a compiled function's locals.

local M = {}

-- Tags of the constants (lobject.h makevariant(type, variant) = type | variant << 4).
local NIL, FALSE, TRUE = 0, 1, 17 -- LUA_VNIL, LUA_VFALSE, LUA_VTRUE
local INTEGER, FLOAT = 3, 19      -- LUA_VNUMINT, LUA_VNUMFLT
local SHORT, LONG = 4, 20         -- LUA_VSHRSTR, LUA_VLNGSTR
local ZERO = "\x80"               -- an int 0 as dumpSize writes it

--- Reads an int or size at `at` (lundump.c loadUnsigned): its value and the
-- position after it.
local function size_at(s, at)
  local x = 0
  repeat
    local b = s:byte(at)
    if b == nil then error("dump_names: the dump ends inside a number", 0) end
    x = (x << 7) | (b & 0x7f)
    at = at + 1
  until b & 0x80 ~= 0
  return x, at
end

local function skip_string(s, at)
  local n
  n, at = size_at(s, at)
  return n == 0 and at or at + n - 1
end

local function skip_ints(s, at, count)
  for _ = 1, count do
    local _, after = size_at(s, at)
    at = after
  end
  return at
end

--- Walks the function at `at`, appending to out the bytes from `from`
-- (the first not yet copied) with its names left out. Returns the position
-- after the function (also the next byte to copy).
local function rewrite_function(s, at, from, sizes, out)
  at = skip_string(s, at)  -- source
  at = skip_ints(s, at, 2) -- linedefined, lastlinedefined
  at = at + 3              -- numparams, is_vararg, maxstacksize
  local n
  n, at = size_at(s, at)
  at = at + n * sizes.instruction
  n, at = size_at(s, at)
  for _ = 1, n do
    local tag = s:byte(at)
    at = at + 1
    if tag == INTEGER then
      at = at + sizes.integer
    elseif tag == FLOAT then
      at = at + sizes.number
    elseif tag == SHORT or tag == LONG then
      at = skip_string(s, at)
    elseif tag ~= NIL and tag ~= FALSE and tag ~= TRUE then
      error(string.format("dump_names: a constant of unknown tag %s", tostring(tag)), 0)
    end
  end
  n, at = size_at(s, at)
  at = at + 3 * n -- upvalues: instack, idx, kind
  n, at = size_at(s, at)
  for _ = 1, n do
    at = rewrite_function(s, at, from, sizes, out)
    from = at
  end
  n, at = size_at(s, at)
  at = at + n -- lineinfo
  n, at = size_at(s, at)
  at = skip_ints(s, at, 2 * n) -- abslineinfo
  out[#out + 1] = s:sub(from, at - 1)
  n, at = size_at(s, at)
  for _ = 1, n do
    at = skip_ints(s, skip_string(s, at), 2) -- locvar name, startpc, endpc
  end
  n, at = size_at(s, at)
  for _ = 1, n do
    at = skip_string(s, at) -- upvalue name
  end
  out[#out + 1] = ZERO .. ZERO
  return at
end

--- The dump `s` (string.dump's output, Lua 5.4) with no local-variable
-- or upvalue names; fails on a dump of another format.
function M.without_names(s)
  if s:sub(1, 6) ~= "\27Lua\x54\0" then
    error("dump_names: not a Lua 5.4 binary chunk (format 0)", 0)
  end
  local sizes = { instruction = s:byte(13), integer = s:byte(14), number = s:byte(15) }
  local main = 16 + sizes.integer + sizes.number + 1 -- after the header and the upvalue count
  local out = { s:sub(1, main - 1) }
  local after = rewrite_function(s, main, main, sizes, out)
  if after ~= #s + 1 then
    error(string.format("dump_names: %d bytes after the main function", #s + 1 - after), 0)
  end
  return table.concat(out)
end

return M
