--- Command-line overrides in the trainer's own form: `--section.key=value`.
-- HyperParallel's `scripts/train_lm.py` takes them after the yaml (the
-- recipes' comments show `--model.pretrained_model_name_or_path=/path`);
-- ndlua's estimate, verify and search take them the same way. Each one sets
-- a key of the loaded document before the train.yaml is read, its value read
-- with the YAML scalar rules of the file itself (`off` is false, `[8, 6]` a
-- list, `null` a null), and the key is remembered, so a message about it
-- says it came from the command line rather than pointing into the file.
--
--   local overrides = require "nd.overrides"
--   local list, rest = overrides.split(argv)   -- before nd.cli.parse(rest)
--   overrides.apply(doc, list)                  -- doc from nd.yaml.load
-- @module nd.overrides

local core = require "nd.core"
local errors = require "nd.errors"

local overrides = {}

local ACCEPTED = "write --section.key=value, e.g. --model.pretrained_model_name_or_path=Qwen/Qwen3-8B"

-- A dotted path's parts; nil when a part is empty.
local function parts_of(path)
  local parts = {}
  for part in (path .. "."):gmatch("([^.]*)%.") do
    if part == "" then return nil end
    parts[#parts + 1] = part
  end
  return parts
end

--- Whether a command-line argument is an override (`--a.b...=...` or `--a.b`).
function overrides.is_override(arg)
  local name = arg:match("^%-%-([^=]+)")
  return name ~= nil and name:find(".", 1, true) ~= nil
end

--- Splits the overrides out of a command line.
-- @tparam table argv the arguments
-- @treturn table the overrides `{{path = "a.b", text = "value", shown = "--a.b=value"}, ...}`
-- @treturn table the other arguments, in order
function overrides.split(argv)
  local list, rest, only_args = {}, {}, false
  for _, a in ipairs(argv) do
    if only_args or a == "--" then
      only_args = true
      rest[#rest + 1] = a
    elseif overrides.is_override(a) then
      local path, text = a:match("^%-%-([^=]+)=(.*)$")
      if not path then
        errors.raise { path = a, message = "an override needs a value", accepted = ACCEPTED }
      end
      if not parts_of(path) then
        errors.raise { path = a, message = "'" .. path .. "' is no key path", accepted = ACCEPTED }
      end
      list[#list + 1] = { path = path, text = text, shown = a }
    else
      rest[#rest + 1] = a
    end
  end
  return list, rest
end

--- Decodes an override's value with the YAML scalar rules (an empty value is null).
function overrides.decode(o)
  local ok, value = pcall(core.yaml.decode, o.text, o.shown)
  if not ok then
    errors.raise { path = o.shown, message = "its value is no YAML value: " .. tostring(errors.is_bad_input(value)
      and value.reason or value), accepted = ACCEPTED }
  end
  if value == nil then return core.null end
  return value
end

--- Applies overrides to a loaded document, in order (a later one wins).
-- Missing sections are created; a path through a value that is not a
-- mapping is refused.
-- @tparam table doc the document (nd.yaml.load)
-- @tparam table list overrides from `split`
-- @treturn table the set of paths overridden (`{["a.b"] = "--a.b=v"}`),
--   also kept as `doc` metadata for `overrides.applied(doc)`
function overrides.apply(doc, list)
  local set = overrides.applied(doc) or {}
  for _, o in ipairs(list) do
    local parts = parts_of(o.path)
    local t, walked = doc, {}
    for i = 1, #parts - 1 do
      walked[#walked + 1] = parts[i]
      local next_t = t[parts[i]]
      if next_t == nil or core.isnull(next_t) then
        next_t = {}
        t[parts[i]] = next_t
      elseif type(next_t) ~= "table" or next_t[1] ~= nil then
        errors.raise { path = o.shown, message = table.concat(walked, ".") .. " is not a mapping, so it has no key '"
          .. parts[i + 1] .. "'", accepted = ACCEPTED }
      end
      t = next_t
    end
    t[parts[#parts]] = overrides.decode(o)
    set[o.path] = o.shown
  end
  overrides.registry[doc] = set
  return set
end

--- Overrides as a list: a list from `split` as it is, or a table
-- `{["section.key"] = value}` (values encoded as YAML, applied in path order).
function overrides.list_of(t)
  if t[1] ~= nil or next(t) == nil then return t end
  local list = {}
  for path, v in pairs(t) do
    list[#list + 1] = { path = path, text = core.yaml.encode(v), shown = "--" .. path }
  end
  table.sort(list, function(a, b) return a.path < b.path end)
  return list
end

-- The overrides applied to each document (weak keys: documents come and go).
overrides.registry = setmetatable({}, { __mode = "k" })

--- The overrides applied to a document (`{[path] = shown}`), or nil.
function overrides.applied(doc)
  return overrides.registry[doc]
end

return overrides
