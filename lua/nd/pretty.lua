--- Tables as text a reader can take in, for the interactive prompt: keys
-- sorted (a sequence in order), nested tables indented, a value with its
-- own __tostring (an nd.model, an nd.run) as it prints itself, strings
-- quoted. Deep or long tables are cut, saying how much is left out.
--
--   local pretty = require "nd.pretty"
--   print(pretty.format({tp = 2, dims = {"DP", "TP"}}))
--   -- {
--   --   dims = {"DP", "TP"},
--   --   tp = 2,
--   -- }
-- @module nd.pretty

local pretty = {}

--- How deep and how long a table is shown before it is cut.
pretty.MAX_DEPTH = 4
pretty.MAX_ITEMS = 40
--- A table whose one-line form fits in this many characters prints on one line.
pretty.LINE = 72

local function is_identifier(k)
  return type(k) == "string" and k:match("^[%a_][%w_]*$") ~= nil
end

local function key_text(k)
  if is_identifier(k) then return k end
  if type(k) == "string" then return "[" .. string.format("%q", k) .. "]" end
  return "[" .. tostring(k) .. "]"
end

local function key_order(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return ta < tb end
  if ta == "number" or ta == "string" then return a < b end
  return tostring(a) < tostring(b)
end

local format

-- The entries of t: the sequence part in order, then the other keys sorted.
local function entries(t)
  local n, list = #t, {}
  for i = 1, n do list[#list + 1] = { nil, t[i] } end
  local keys = {}
  for k in pairs(t) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, key_order)
  for _, k in ipairs(keys) do list[#list + 1] = { k, t[k] } end
  return list
end

local function format_table(t, depth, seen, indent)
  if seen[t] then return "<cycle>" end
  if depth >= pretty.MAX_DEPTH then return "{...}" end
  local list = entries(t)
  if #list == 0 then return "{}" end
  seen[t] = true
  local parts = {}
  for i, e in ipairs(list) do
    if i > pretty.MAX_ITEMS then
      parts[#parts + 1] = string.format("... (%d more)", #list - pretty.MAX_ITEMS)
      break
    end
    local v = format(e[2], depth + 1, seen, indent .. "  ")
    parts[#parts + 1] = e[1] == nil and v or (key_text(e[1]) .. " = " .. v)
  end
  seen[t] = nil
  local line = "{" .. table.concat(parts, ", ") .. "}"
  if #line + #indent <= pretty.LINE and not line:find("\n", 1, true) then return line end
  return "{\n" .. indent .. "  " .. table.concat(parts, ",\n" .. indent .. "  ") .. ",\n" .. indent .. "}"
end

format = function(v, depth, seen, indent)
  local tv = type(v)
  if tv == "string" then return string.format("%q", v) end
  if tv == "table" then
    local mt = getmetatable(v)
    if type(mt) == "table" and mt.__tostring then return tostring(v) end
    return format_table(v, depth, seen, indent)
  end
  return tostring(v)
end

--- A value as text: a table laid out over lines, anything else as
-- tostring gives it (a string quoted).
-- @param v the value
-- @treturn string
function pretty.format(v)
  return format(v, 0, {}, "")
end

return pretty
