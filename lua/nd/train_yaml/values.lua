--- Reading values out of a loaded train.yaml: sections, fallback chains,
-- and the conversions the seed parser does with Python's int(), float(),
-- bool() and `or`, each with the decision ndlua takes where Python's
-- behaviour is no rule a user would expect. Every refusal names the key
-- path and its file, line and column (or the command line, for a key an
-- override set).
-- @module nd.train_yaml.values

local core = require "nd.core"
local check = require "nd.check"
local overrides = require "nd.overrides"

local values = {}

local Reader = {}
Reader.__index = Reader

--- A reader of one document.
-- @tparam table doc the loaded document
-- @tparam table opts `file` (shown in messages), `warnings` (a collector)
function values.reader(doc, opts)
  local r = setmetatable({ doc = doc, file = opts.file, warnings = opts.warnings }, Reader)
  r.overridden = overrides.applied(doc) or {}
  r.root = { t = doc, path = "", stated = true }
  return r
end

--- Whether a value is stated: present and not a YAML null. A null is never a
-- statement anywhere in a train.yaml (the seed reads most nulls as absent
-- through `or`; ndlua reads all of them so).
function values.present(v)
  return v ~= nil and not core.isnull(v)
end
local present = values.present

--- Python's truthiness, which the seed's `a or b` chains test: nil, null,
-- false, 0, "" and an empty mapping or list are not, anything else is.
-- A chain therefore passes over a stated 0 (`tp_size: 0` falls back to
-- `tp_degree`, then 1), as the seed does.
function values.truthy(v)
  if not present(v) or v == false or v == 0 or v == "" then return false end
  if type(v) == "table" and next(v) == nil then return false end
  return true
end
local truthy = values.truthy

--- The key path of `key` under a section's `path` ("" at the root).
function values.join(path, key)
  return path == "" and key or (path .. "." .. key)
end
local join = values.join

-- The command-line option that set `path` (or a key above it), if any.
function Reader:override_of(path)
  local p = path
  while p do
    if self.overridden[p] then return self.overridden[p] end
    p = p:match("^(.*)%.[^.]*$")
  end
  return nil
end

--- Raises a bad-input error at the command-line option that set `path` (or
-- a key above it), if one did: the refusal points at it, not at the file.
function Reader:fail_if_overridden(path, message, accepted)
  local shown = self:override_of(path)
  if shown then check.key(nil, nil, path, { option = shown }):fail(message, accepted) end
end

--- The place of `sec.t[key]` (nd.check.key): its file, line and column, or
-- the command-line option that set it; the document itself for a key the
-- file does not state.
function Reader:place(sec, key)
  local path = key and join(sec.path, key) or sec.path
  local t, k = sec.t, key
  if not sec.stated or (key and sec.t[key] == nil) then t, k = self.doc, nil end
  return check.key(t, k, path ~= "" and path or nil, { option = self:override_of(path) })
end

--- Raises a bad-input error about `sec.t[key]`.
function Reader:fail(sec, key, message, accepted)
  self:place(sec, key):fail(message, accepted)
end

--- Raises a warning about a key path (printed once, kept for the JSON).
-- `kind`: what --strict makes of it (nd.warnings).
function Reader:warn(path, message, kind)
  if self.warnings then self.warnings:warn(path, message, kind) end
end

--- A section: `{t = mapping, path = "train.accelerator", stated = bool}`.
-- An absent or null section reads as empty; anything but a mapping is refused.
-- @tparam table parent a section (nil: the document's root)
function Reader:section(parent, key)
  parent = parent or self.root
  local v = parent.t[key]
  local path = join(parent.path, key)
  if not present(v) then return { t = {}, path = path, stated = false } end
  if type(v) ~= "table" or (v[1] ~= nil) then
    check.read(self:place(parent, key), v, "mapping", "a mapping (key: value lines)")
  end
  return { t = v, path = path, stated = true }
end

--- The first section of `names` (under the root) that the document states,
-- else an empty one named after the first: `training` (root) -> `train`.
-- A stated section wins even when empty, as the seed's lookups do.
function Reader:section_chain(...)
  local chain = { ... }
  for _, item in ipairs(chain) do
    local parent, key = item[1], item[2]
    parent = parent or self.root
    if parent.t[key] ~= nil and not core.isnull(parent.t[key]) then return self:section(parent, key) end
  end
  local first = chain[1]
  return { t = {}, path = join((first[1] or self.root).path, first[2]), stated = false }
end

--- The value at `key` of a section, nil when absent or null.
function Reader:value(sec, key)
  local v = sec.t[key]
  if present(v) then return v end
  return nil
end

--- The first truthy value along a chain of {section, key} pairs.
-- @treturn any the value (nil when none is truthy)
-- @treturn table the section it came from
-- @treturn string its key
function Reader:first(...)
  for _, item in ipairs({ ... }) do
    local v = item[1].t[item[2]]
    if truthy(v) then return v, item[1], item[2] end
  end
  return nil
end

--- A value as text for a message (nd.check.describe).
values.describe = check.describe

--- A whole number, as the seed's int() reads one. Decisions: an integer, a
-- float with no fraction (8.0) and a quoted decimal ("8", which int()
-- also reads) are taken; a boolean is refused (int(True) is 1 in Python,
-- but `tp_size: yes` is a typo, not a degree), as are fractions and other
-- text. `min` (default 1) bounds it below.
-- The largest whole number a train.yaml field takes: every degree, batch
-- and length ndlua reads is far below it, and the products the reader forms
-- of two such numbers stay inside a Lua integer.
values.MAX_INTEGER = 2 ^ 31

function Reader:integer(sec, key, v, min, what, max)
  min = min or 1
  local accepted = what or (min >= 1 and "a positive whole number" or "a whole number from " .. min)
  return check.integer(self:place(sec, key), v, min, max or values.MAX_INTEGER, accepted)
end

--- A number, as the seed's float() reads one. Decision: a quoted number is
-- taken ("1.0e9", which PyYAML reads as text since YAML 1.1 floats need a
-- signed exponent, is a number to float() and to every reader of a
-- recipe); a boolean or other text is refused.
function Reader:number(sec, key, v)
  if type(v) == "number" then return v end
  local n = type(v) == "string" and tonumber(v) or v
  return check.read(self:place(sec, key), n, "number", "a number such as 1.0", v)
end

--- A flag, as the seed's bool() reads one. Decision: true/false (and
-- YAML 1.1's yes/no/on/off, which load as booleans) and the numbers 0 and 1
-- are taken; text is refused, since bool("false") is true in Python and
-- nobody writing "false" means that.
function Reader:flag(sec, key, v)
  if v == nil or core.isnull(v) then return false end
  if type(v) == "boolean" then return v end
  if v == 0 or v == 1 then return v == 1 end
  return check.read(self:place(sec, key), v, "boolean", "true or false")
end

--- A name (text). Numbers are taken as their text, as str() does.
function Reader:name(sec, key, v)
  if type(v) == "string" then return v end
  if math.type(v) == "integer" then return tostring(v) end
  return check.read(self:place(sec, key), v, "name")
end

return values
