--- Memory sizes and times as text: parsing ("58GB", "60GiB", "1.5 TiB") and printing.
-- Sizes are binary, as the reference planner and the trainers read them:
-- a GB is 2^30 bytes, as a GiB is. Parsing uses string patterns; nothing
-- is `load`ed.
-- @module nd.units

local units = {}

-- Powers of 1024 by unit; both the decimal-looking and the binary spellings
-- mean binary multiples.
local POWERS = { b = 0, k = 1, m = 2, g = 3, t = 4, p = 5 }

-- A size as written: blanks (spaces, tabs), a number (digits with an
-- optional fraction, or a fraction alone), blanks, an optional unit (a
-- letter of K M G T P, either case, with "iB" or "B" after it, or a lone
-- "B"), blanks, and nothing else. Each step takes all it can and is not
-- retried with less (as a PEG's possessive repetition and ordered choice:
-- "512 bytes" is no size, its "b" being a unit followed by more letters).
-- Returns the number's text and the unit's first letter (nil without a
-- unit), or nil when the text is no size.
local function match_size(text)
  local at = text:match("^[ \t]*()")
  local value, after = text:match("^(%d+%.%d+)()", at)
  if not value then value, after = text:match("^(%d+)()", at) end
  if not value then value, after = text:match("^(%.%d+)()", at) end
  if not value then return nil end
  at = text:match("^[ \t]*()", after)
  local u, past = text:match("^([kKmMgGtTpP])()", at)
  if u then
    at = text:match("^[iI][bB]()", past) or text:match("^[bB]()", past) or past
  else
    u, past = text:match("^([bB])()", at)
    if u then at = past end
  end
  if not text:find("^[ \t]*$", at) then return nil end
  return value, u
end

--- Parses a memory size into bytes (an integer).
-- @tparam string|number text "58GB", "60GiB", "1.5 TiB", "512MB", "1024" (bytes)
-- @treturn[1] integer bytes
-- @treturn[2] nil
-- @treturn[2] string why the text is no size
function units.parse_bytes(text)
  if type(text) == "number" then
    if text < 0 or text ~= text then return nil, "a size cannot be negative" end
    return math.floor(text + 0.5)
  end
  if type(text) ~= "string" then
    return nil, "a size is text such as 58GB or 60GiB"
  end
  local value, u = match_size(text)
  if not value then
    return nil, string.format("'%s' is no memory size; write a number and a unit, such as 58GB, 60GiB or 512MiB", text)
  end
  local power = 0
  if u then
    local first = u:sub(1, 1):lower()
    power = first == "b" and 0 or POWERS[first]
  end
  return math.floor(tonumber(value) * 1024 ^ power + 0.5)
end

--- How a size's unit is read, for output that states it: "GB read as GiB,
-- 2^30 bytes" for the decimal-looking spellings (KB, MB, GB, TB, PB, and K,
-- M, G, T, P alone), nil for a binary one (GiB) or bytes.
-- @tparam string text a size as written ("58GB")
-- @treturn string|nil the note
function units.unit_note(text)
  if type(text) ~= "string" then return nil end
  local _, u = match_size(text)
  if not u or u:sub(1, 1):lower() == "b" then return nil end
  local letter = u:sub(1, 1):upper()
  if text:lower():find("ib") then return nil end
  return string.format("%sB read as %siB, 2^%d bytes", letter, letter, 10 * POWERS[letter:lower()])
end

--- Whether a size as written states its unit ("58GB", "512 B"), as a size
-- on the command line or in a yaml must: a bare "58" is refused.
function units.has_unit(text)
  if type(text) ~= "string" then return false end
  local _, u = match_size(text)
  return u ~= nil
end

--- Formats bytes with a binary unit: "12.34 GiB", "512.0 MiB", "8 B".
-- @tparam number n bytes
-- @tparam[opt] integer decimals digits after the point (default 2)
function units.format_bytes(n, decimals)
  decimals = decimals or 2
  local abs = math.abs(n)
  local names = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" }
  local i = 1
  while abs >= 1024 and i < #names do
    abs = abs / 1024
    i = i + 1
  end
  if i == 1 then return string.format("%d B", math.floor(n)) end
  return string.format("%." .. decimals .. "f %s", (n < 0 and -abs or abs), names[i])
end

--- Formats bytes in GiB always ("57.50 GiB"), for tables that compare sizes.
function units.gib(n, decimals)
  return string.format("%." .. (decimals or 2) .. "f GiB", n / 2 ^ 30)
end

--- Formats bytes in MiB always ("1024.0 MiB").
function units.mib(n, decimals)
  return string.format("%." .. (decimals or 1) .. "f MiB", n / 2 ^ 20)
end

--- Formats seconds: "12.3 s", "450 ms" below a second is written "0.450 s".
function units.seconds(t)
  if t >= 100 then return string.format("%.0f s", t) end
  if t >= 1 then return string.format("%.2f s", t) end
  return string.format("%.3f s", t)
end

--- Formats a count with a decimal suffix: "8.19 B", "30.53 B", "512".
function units.count(n)
  for _, u in ipairs({ { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "K" } }) do
    if math.abs(n) >= u[1] then return string.format("%.2f %s", n / u[1], u[2]) end
  end
  return tostring(n)
end

return units
