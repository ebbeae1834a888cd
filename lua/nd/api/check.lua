--- Argument checks of the nd API and the study library: each public
-- function checks its arguments once, at its top, and a wrong one raises
-- an error naming the function, the argument's place and name, what it
-- must be and what it was:
--
--   script.lua:12: nd.estimate: argument 2 (run) must be an nd.run, got table
--
-- The error is a plain Lua error (a mistake in the calling script), raised
-- at the caller's line; bad *data* (a train.yaml, a size) raises the
-- structured bad-input errors of nd.errors instead.
-- @module nd.api.check

local units = require "nd.units"

local check = {}

--- The type of a value as the messages name it: the metatable's `__name`
-- of a userdata (nd.model, nd.run), else Lua's type.
function check.typename(v)
  if type(v) == "userdata" then
    local mt = getmetatable(v)
    if type(mt) == "table" and type(mt.__name) == "string" then return mt.__name end
  end
  return type(v)
end

-- What each kind accepts, and its words for the message.
local KINDS = {
  string = { test = function(v) return type(v) == "string" end, words = "a string" },
  table = { test = function(v) return type(v) == "table" end, words = "a table" },
  ["function"] = { test = function(v) return type(v) == "function" end, words = "a function" },
  number = { test = function(v) return type(v) == "number" and v == v end, words = "a number" },
  positive = { test = function(v) return math.type(v) == "integer" and v > 0 end,
               words = "a whole number above 0" },
  boolean = { test = function(v) return type(v) == "boolean" end, words = "true or false" },
  list = { test = function(v) return type(v) == "table" and #v > 0 end, words = "a non-empty list" },
  model = { test = function(v) return check.typename(v) == "nd.model" end, words = "an nd.model" },
  run = { test = function(v) return check.typename(v) == "nd.run" end, words = "an nd.run" },
  size = { test = function(v) return (type(v) == "number" and v > 0) or type(v) == "string" end,
           words = "a size (bytes, or text such as \"80GB\")" },
}

--- Raises the argument error at the caller of the checked function.
-- @tparam string fname the function, as the user calls it ("nd.estimate")
-- @param n the argument's place (1, 2, ...) or an option's name ("opts.top")
-- @tparam string name what the argument is ("run")
-- @tparam string words what it must be ("an nd.run")
-- @param v the value given
-- @tparam[opt] integer level extra frames between the checked function and its caller
function check.fail(fname, n, name, words, v, level)
  local what = type(n) == "number" and string.format("argument %d (%s)", n, name) or tostring(n)
  error(string.format("%s: %s must be %s, got %s", fname, what, words, check.typename(v)), 3 + (level or 0))
end

--- Checks one argument: `check.arg("nd.estimate", 2, "run", run, "run")`.
-- Kinds: string, table, function, number, positive, boolean, list, model,
-- run, size. `optional`: nil passes. `level`: frames between the checked
-- function and this call (1 from a helper of it).
function check.arg(fname, n, name, v, kind, optional, level)
  if v == nil and optional then return v end
  local k = assert(KINDS[kind], "check.arg: no kind " .. tostring(kind))
  if not k.test(v) then check.fail(fname, n, name, k.words, v, 1 + (level or 0)) end
  return v
end

--- Checks the fields of an options table: each key must be one of
-- `known` (`{name = kind}`; a kind "any" takes anything), each value of
-- its kind. Returns the table (or an empty one for nil).
function check.options(fname, n, opts, known)
  if opts == nil then return {} end
  if type(opts) ~= "table" then check.fail(fname, n, "opts", "a table of options", opts, 1) end
  for key, v in pairs(opts) do
    local kind = known[key]
    if kind == nil then
      local names = {}
      for name in pairs(known) do names[#names + 1] = name end
      table.sort(names)
      error(string.format("%s: opts.%s is no option (options: %s)", fname, tostring(key),
                          table.concat(names, ", ")), 3)
    end
    if kind ~= "any" and not KINDS[kind].test(v) then
      check.fail(fname, "opts." .. key, key, KINDS[kind].words, v, 1)
    end
  end
  return opts
end

--- A size option in bytes: a number, or text units.parse_bytes reads.
-- `level`: frames between the checked function and this call.
function check.bytes(fname, what, v, level)
  if type(v) == "number" then return math.floor(v + 0.5) end
  local bytes, err = units.parse_bytes(v)
  if not bytes or bytes <= 0 then
    error(string.format("%s: %s: %s", fname, what, err or "must be a size above 0"), 3 + (level or 0))
  end
  return bytes
end

return check
