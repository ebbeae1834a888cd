--- The one checked reader of every input ndlua is given: a value of a kind
-- (a whole number in a range, a number, a flag, a name, a path, a list, a
-- mapping, a size, one of some choices) read at a place, and refused
-- through that place:
--
--   check.key(t, key, path, o)   a key of a loaded document (nd.yaml,
--                                nd.json), at the file, line and column the
--                                loader recorded for its value (or at the
--                                command-line option that set it)
--   check.option(name)           a command-line option ("-d", "--seq")
--   check.argument(fname, what)  an argument of an API function
--
-- A place words a refusal (`place:refused(words, v)`: "must be a name, got
-- 5", "takes a whole number above 0, got 'x'", "argument 2 (run) must be an
-- nd.run, got table") and fails (`place:fail(message, accepted)`). Bad data
-- (a document's key, an option) fails as a structured bad-input error of
-- nd.errors (exit status 2), raised at once or, for a key read with a
-- `sink`, collected so that every problem of a file is listed in one pass;
-- a wrong API argument is a mistake in the calling script and fails as a
-- plain Lua error at the caller's line.
-- @module nd.check

local core = require "nd.core"
local errors = require "nd.errors"
local units = require "nd.units"

local check = {}

--- A value as text for a message: text quoted, a table as JSON.
function check.describe(v)
  if v == nil or core.isnull(v) then return "null" end
  if type(v) == "string" then return "'" .. v .. "'" end
  if type(v) == "table" then
    local ok, text = pcall(core.json.encode, v)
    return ok and text or "a table"
  end
  return tostring(v)
end

--- The type of a value as the messages name it: the metatable's `__name`
-- of a userdata (nd.model, nd.run), else Lua's type.
function check.typename(v)
  if type(v) == "userdata" then
    local mt = getmetatable(v)
    if type(mt) == "table" and type(mt.__name) == "string" then return mt.__name end
  end
  return type(v)
end

local function is_mapping(v) return type(v) == "table" and (next(v) == nil or v[1] == nil) end
local function is_list(v) return type(v) == "table" and (next(v) == nil or v[1] ~= nil) end
local function is_count(v) return math.type(v) == "integer" and v > 0 end
check.is_mapping, check.is_list, check.is_count = is_mapping, is_list, is_count

--- The kinds a value is read as: `test(v)` whether it is one, `words` what
-- the refusal says is accepted.
check.KINDS = {
  count = { test = is_count, words = "a whole number above 0" },
  count0 = { test = function(v) return math.type(v) == "integer" and v >= 0 end,
             words = "a whole number (0: not stated)" },
  gb = { test = function(v) return type(v) == "number" and v > 0 end, words = "a number of GB above 0" },
  gb0 = { test = function(v) return type(v) == "number" and v >= 0 end, words = "a number of GB above 0" },
  number = { test = function(v) return type(v) == "number" and v == v end, words = "a number" },
  integer = { test = function(v) return math.type(v) == "integer" end, words = "a whole number" },
  boolean = { test = function(v) return type(v) == "boolean" end, words = "true or false" },
  name = { test = function(v) return type(v) == "string" end, words = "a name" },
  path = { test = function(v) return type(v) == "string" end, words = "a path" },
  string = { test = function(v) return type(v) == "string" end, words = "a string" },
  list = { test = is_list, words = "a list" },
  nonempty = { test = function(v) return type(v) == "table" and #v > 0 end, words = "a non-empty list" },
  mapping = { test = is_mapping, words = "a mapping of keys" },
  table = { test = function(v) return type(v) == "table" end, words = "a table" },
  ["function"] = { test = function(v) return type(v) == "function" end, words = "a function" },
  model = { test = function(v) return check.typename(v) == "nd.model" end, words = "an nd.model" },
  run = { test = function(v) return check.typename(v) == "nd.run" end, words = "an nd.run" },
  size = { test = function(v) return (type(v) == "number" and v > 0) or type(v) == "string" end,
           words = "a size (bytes, or text such as \"80GB\")" },
}

--- Reads `v` as `kind` at `place`: returns it, or fails there (nil when
-- the place collects its refusals).
-- @param place a place (check.key, check.option, check.argument)
-- @param v the value
-- @tparam string kind a name of check.KINDS
-- @tparam[opt] string accepted what is accepted, after the message
-- @param[opt] given the value as the user gave it, for the message, when v
--   is a conversion of it (the number an option's text reads as)
function check.read(place, v, kind, accepted, given)
  local k = assert(check.KINDS[kind], "check.read: no kind " .. tostring(kind))
  if not k.test(v) then
    place:fail(place:refused(k.words, given == nil and v or given), accepted)
    return nil -- a place that collects its refusals goes on reading
  end
  return v
end

--- A whole number as the seed's int() reads one: an integer, a float with
-- no fraction (8.0) and decimal text ("8") are taken; nil otherwise.
function check.whole(v)
  if math.type(v) == "integer" then return v end
  if math.type(v) == "float" and v == math.floor(v) and math.abs(v) < 2 ^ 53 then return math.tointeger(v) end
  if type(v) == "string" and v:match("^%s*[-+]?%d+%s*$") then return math.tointeger(tonumber(v)) end
  return nil
end

--- Reads a whole number from `min` to `max` at `place` (check.whole's
-- readings); the refusals say "must be a whole number", "must be at least"
-- and "must be at most", each followed by `accepted`.
function check.integer(place, v, min, max, accepted)
  local n = check.whole(v)
  if n == nil then place:fail(place:refused("a whole number", v), accepted) end
  if n < min then place:fail("must be at least " .. min .. ", got " .. n, accepted) end
  if max and n > max then
    place:fail(string.format("must be at most %d, got %d", math.tointeger(max), n), accepted)
  end
  return n
end

--- Reads one of `choices` (names) at `place`: returns the name, or fails
-- with "'V' is no WHAT", accepting "one of A, B". With `any_case` the
-- name is compared (and returned) lower-cased, and the accepted text says so.
function check.choice(place, v, choices, what, any_case)
  local name = (any_case and type(v) == "string") and v:lower() or v
  for _, c in ipairs(choices) do
    if c == name then return c end
  end
  place:fail(string.format("'%s' is no %s", tostring(v), what),
             "one of " .. table.concat(choices, ", ") .. (any_case and " (in any case)" or ""))
  return nil
end

--- Reads a size in bytes (text units.parse_bytes reads, such as "80GB")
-- at `place`. `o`: `allow_zero`, `unit` (text without a unit is refused, as
-- on the command line: a bare 58 is no size a reader can be sure of).
function check.bytes(place, v, o)
  o = o or {}
  local bytes, err = units.parse_bytes(v)
  if o.unit and bytes and bytes ~= 0 and not units.has_unit(v) then
    local text = tostring(v)
    place:fail(string.format("'%s' has no unit; a size needs one on the command line as in the yaml (%s would be "
      .. "read as %s bytes)", text, text, text), string.format("%sGB or %sGiB (both 2^30 bytes: ndlua reads GB as "
      .. "GiB), 512MiB, or %sB for bytes", text, text, text))
  end
  if not bytes or (bytes <= 0 and not o.allow_zero) then place:fail(err or "must be a size above 0") end
  return bytes
end

-- A key of a loaded document.
local Key = {}
Key.__index = Key

--- A key of a loaded document: `t[key]`, shown as `path`. A refusal is
-- placed at the file, line and column the loader recorded for the value
-- (for `key` nil, for the table itself).
-- @tparam table t the table holding the value (nil: no position)
-- @param key its key in t
-- @tparam string path the dotted key path shown to the user
-- @tparam[opt] table o `file` (shown when the loader recorded none),
--   `option` (the command-line option that set the key: the refusal points
--   at it instead), `sink` (a list: a refusal's message is appended to it
--   and reading goes on, instead of a raise), `line` and `col` (a position
--   the loader does not record: a key's own, where its value is below it)
function check.key(t, key, path, o)
  o = o or {}
  return setmetatable({ t = t, key = key, path = path, file = o.file, option = o.option, sink = o.sink,
                        line = o.line, col = o.col }, Key)
end

function Key:refused(words, v)
  return "must be " .. words .. ", got " .. check.describe(v)
end

--- Fails at the key: raises the bad-input error, or appends its message
-- to the sink and returns.
function Key:fail(message, accepted)
  local f = { path = self.path, message = message, accepted = accepted }
  if self.option then
    f.file = "command line " .. self.option
  else
    if type(self.t) == "table" then f.file, f.line, f.col = core.where(self.t, self.key) end
    f.file = f.file or self.file
    if self.line then f.line, f.col = self.line, self.col end
  end
  local e = errors.new(f)
  if not self.sink then error(e, 0) end
  self.sink[#self.sink + 1] = e.message
end

-- A command-line option.
local Option = {}
Option.__index = Option

--- A command-line option, named as given ("-d", "--seq").
function check.option(name)
  return setmetatable({ name = name }, Option)
end

function Option:refused(words, v)
  return "takes " .. words .. ", got '" .. tostring(v) .. "'"
end

function Option:fail(message, accepted)
  errors.raise { path = self.name, message = message, accepted = accepted }
end

-- An argument of an API function.
local Argument = {}
Argument.__index = Argument

--- An argument of an API function: `fname` as the user calls it
-- ("nd.estimate"), `what` the argument's place and name ("argument 2
-- (run)", "opts.top"); `level` the error's level as `error` counts it from
-- the place's `fail` (1): the frame of the checked function's caller.
function check.argument(fname, what, level)
  return setmetatable({ fname = fname, what = what, level = level }, Argument)
end

function Argument:refused(words, v)
  return string.format("%s must be %s, got %s", self.what, words, check.typename(v))
end

-- The error is raised at the checked function's caller.
function Argument:fail(message)
  error(self.fname .. ": " .. message, self.level)
end

return check
