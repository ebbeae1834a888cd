--- Argument checks of the nd API and the study library: each public
-- function checks its arguments once, at its top, and a wrong one raises
-- an error naming the function, the argument's place and name, what it
-- must be and what it was:
--
--   script.lua:12: nd.estimate: argument 2 (run) must be an nd.run, got table
--
-- The error is a plain Lua error (a mistake in the calling script), raised
-- at the caller's line; bad *data* (a train.yaml, a size) raises the
-- structured bad-input errors of nd.errors instead. The values are read
-- by nd.check, the one checked reader, at an argument's place.
-- @module nd.api.check

local reader = require "nd.check"

local check = {}

--- The type of a value as the messages name it (nd.check.typename).
check.typename = reader.typename

-- The kinds of nd.check an API argument is read as, by the names the API
-- uses for them.
local KINDS = { positive = "count", list = "nonempty" }
local function kind_of(name)
  local kind = KINDS[name] or name
  assert(reader.KINDS[kind], "check.arg: no kind " .. tostring(name))
  return kind
end

local function what_of(n, name)
  return type(n) == "number" and string.format("argument %d (%s)", n, name) or tostring(n)
end

--- Raises the argument error at the caller of the checked function.
-- @tparam string fname the function, as the user calls it ("nd.estimate")
-- @param n the argument's place (1, 2, ...) or an option's name ("opts.top")
-- @tparam string name what the argument is ("run")
-- @tparam string words what it must be ("an nd.run")
-- @param v the value given
-- @tparam[opt] integer level extra frames between the checked function and its caller
function check.fail(fname, n, name, words, v, level)
  -- levels from the place's fail: check.fail, the checked function, its caller
  local place = reader.argument(fname, what_of(n, name), 4 + (level or 0))
  place:fail(place:refused(words, v))
end

--- Checks one argument: `check.arg("nd.estimate", 2, "run", run, "run")`.
-- Kinds: string, table, function, number, positive, boolean, list, model,
-- run, size. `optional`: nil passes. `level`: frames between the checked
-- function and this call (1 from a helper of it).
function check.arg(fname, n, name, v, kind, optional, level)
  if v == nil and optional then return v end
  -- levels from the place's fail: nd.check.read, check.arg, the checked function, its caller
  local checked = reader.read(reader.argument(fname, what_of(n, name), 5 + (level or 0)), v, kind_of(kind))
  return checked -- not a tail call: the levels count this frame
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
      -- levels from the place's fail: check.options, the checked function, its caller
      reader.argument(fname, nil, 4):fail(string.format("opts.%s is no option (options: %s)", tostring(key),
                                                        table.concat(names, ", ")))
    end
    if kind ~= "any" then reader.read(reader.argument(fname, "opts." .. key, 5), v, kind_of(kind)) end
  end
  return opts
end

--- A size option in bytes: a number, or text units.parse_bytes reads.
-- `level`: frames between the checked function and this call.
function check.bytes(fname, what, v, level)
  if type(v) == "number" then return math.floor(v + 0.5) end
  -- levels from the place's fail: nd.check.bytes, check.bytes, the checked function, its caller
  -- (the message reads "fname: what: the problem")
  local bytes = reader.bytes(reader.argument(fname .. ": " .. what, nil, 5 + (level or 0)), v)
  return bytes -- not a tail call: the levels count this frame
end

return check
