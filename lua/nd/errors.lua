--- Structured bad-input errors.
-- Library code raises tables marked `bad_input = true`; only the executable
-- turns them into a printed message and exit status 2. A message reads
-- `FILE:LINE:COL: key.path: what is wrong; what is accepted`.
-- @module nd.errors

local core = require "nd.core"

local errors = {}

local BadInput = {}
BadInput.__index = BadInput
BadInput.__tostring = function(e) return e.message end

--- Formats the location prefix of a message.
-- @tparam table f fields: file, line, col, path (all optional)
local function location(f)
  local parts = {}
  if f.file then
    local where = f.file
    if f.line then
      where = where .. ":" .. f.line
      if f.col then where = where .. ":" .. f.col end
    end
    parts[#parts + 1] = where
  end
  if f.path and f.path ~= "" then parts[#parts + 1] = f.path end
  if #parts == 0 then return "" end
  return table.concat(parts, ": ") .. ": "
end

--- Text cut to `n` bytes (default 80) on a UTF-8 boundary, with how long
-- it was: a value of megabytes is never echoed whole into a message.
function errors.cut(text, n)
  n = n or 80
  if #text <= n then return text end
  local cut = n
  while cut > 0 and (text:byte(cut + 1) or 0) >= 0x80 and (text:byte(cut + 1) or 0) < 0xC0 do cut = cut - 1 end
  return text:sub(1, cut) .. string.format("... (%d bytes)", #text)
end

--- Builds a bad-input error table (without raising it).
-- @tparam table f fields: message (required), file, line, col, path, accepted
function errors.new(f)
  assert(type(f) == "table" and f.message, "errors.new needs a message")
  local text = location(f) .. f.message
  if f.accepted then text = text .. "; " .. f.accepted end
  if #text > 2000 then
    -- a long message holds a value as the user gave it: every run of more
    -- than 100 characters without a space is cut to 80
    text = text:gsub("%S+", function(word)
      if #word <= 100 then return nil end
      local body, tail = word:match("^(.-)([;,:]?)$")
      return errors.cut(body) .. tail
    end)
  end
  local e = { bad_input = true, message = text, reason = f.message, file = f.file,
              line = f.line, col = f.col, path = f.path, accepted = f.accepted }
  return setmetatable(e, BadInput)
end

--- Raises a bad-input error. Never returns.
function errors.raise(f)
  error(errors.new(f), 0)
end

--- Raises a bad-input error about the value at `key` of a loaded table,
-- with the file, line and column the loader recorded for it.
-- @tparam table t the table holding the value (from nd.yaml or nd.json)
-- @param key the key in t (nil: the table itself)
-- @tparam string path the dotted key path shown to the user
-- @tparam string message what is wrong
-- @tparam[opt] string accepted what would be accepted
function errors.at(t, key, path, message, accepted)
  local file, line, col
  if type(t) == "table" then file, line, col = core.where(t, key) end
  errors.raise { file = file, line = line, col = col, path = path, message = message, accepted = accepted }
end

--- Whether v is a bad-input error table.
function errors.is_bad_input(v)
  return type(v) == "table" and v.bad_input == true
end

return errors
