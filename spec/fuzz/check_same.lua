--- check_same.lua: the fuzz checkers' deep comparison of two loaded documents.
-- Two values are the same when they have the same type, numbers the same
-- subtype (integer or float), value and sign (NaN equal to NaN), and tables
-- the same keys in the same document order and the same values (whether an
-- empty table is a map or a sequence shows in its encoding, which the
-- checkers compare). Returns nil, or the path of the first difference.
local core = require "nd.core"

local same = {}

local function number_diff(a, b)
  if math.type(a) ~= math.type(b) then return math.type(a) .. " vs " .. math.type(b) end
  if a ~= a and b ~= b then return nil end
  if a ~= b then return tostring(a) .. " vs " .. tostring(b) end
  if a == 0 and math.type(a) == "float" and 1 / a ~= 1 / b then return "the sign of a zero" end
  return nil
end

local function key_text(k)
  if type(k) == "string" then return string.format("%q", k) end
  return tostring(k)
end

local diff

local function table_diff(a, b, path)
  local ka, kb = core.keys(a) or {}, core.keys(b) or {}
  if #ka ~= #kb then return path .. ": " .. #ka .. " keys vs " .. #kb end
  for i = 1, #ka do
    if diff(ka[i], kb[i], path .. ".<key " .. i .. ">") then
      return path .. ": key " .. i .. " is " .. key_text(ka[i]) .. " vs " .. key_text(kb[i])
    end
  end
  local n = 0
  for k, v in pairs(a) do
    n = n + 1
    local d = diff(v, b[k], path .. "[" .. key_text(k) .. "]")
    if d then return d end
  end
  for _ in pairs(b) do n = n - 1 end
  if n ~= 0 then return path .. ": a different number of entries" end
  return nil
end

function diff(a, b, path)
  if type(a) ~= type(b) then return path .. ": a " .. type(a) .. " vs a " .. type(b) end
  if type(a) == "number" then
    local d = number_diff(a, b)
    return d and (path .. ": " .. d)
  end
  if type(a) == "table" then return table_diff(a, b, path) end
  if a ~= b then return path .. ": " .. key_text(a) .. " vs " .. key_text(b) end
  return nil
end

--- The path of the first difference between a and b, or nil.
function same.diff(a, b)
  return diff(a, b, "$")
end

return same
