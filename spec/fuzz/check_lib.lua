--- check_lib.lua: what the fuzz checkers hold a loader to.
-- A finding is raised as a string error (the harness aborts on it, so
-- libFuzzer keeps the input); a bad-input error is the loader working.
local same = require "check_same"

local checks = {}

--- Raises a finding: what went wrong, with the text involved.
function checks.finding(what, detail)
  error("FINDING: " .. what .. (detail and ("\n" .. tostring(detail)) or ""), 0)
end

local function describe(err)
  if type(err) == "table" then
    return "a table error: " .. tostring(err.message)
  end
  return tostring(err)
end
checks.describe = describe

--- Calls f(...); returns true and its first result, or false when it raised
-- a bad-input error whose message starts with `prefix` (a file name and a
-- line:col, or what the caller expects). Any other error is a finding.
function checks.call(what, prefix_pattern, f, ...)
  local ok, v = pcall(f, ...)
  if ok then return true, v end
  if type(v) ~= "table" or v.bad_input ~= true then
    checks.finding(what .. " raised an error that is not a bad-input error", describe(v))
  end
  if type(v.message) ~= "string" or v.message == "" then
    checks.finding(what .. " raised a bad-input error without a message")
  end
  if prefix_pattern and not v.message:find(prefix_pattern) then
    checks.finding(what .. " raised a bad-input error that does not say where", v.message)
  end
  return false, v
end

--- Calls f(...), which must not fail at all; returns its result.
function checks.must(what, f, ...)
  local ok, v = pcall(f, ...)
  if not ok then checks.finding(what .. " failed", describe(v)) end
  return v
end

--- decode(text) -> v, encode(v) -> text2, decode(text2) -> w: w must be v
-- and encode(w) must be text2. `bridge` is nd.core.yaml or nd.core.json.
function checks.round_trip(bridge, kind, input)
  local ok, v = checks.call(kind .. ".decode", "^fuzz%." .. kind .. ":%d+:%d+: ", bridge.decode, input,
                            "fuzz." .. kind)
  if not ok then return end
  local text = checks.must(kind .. ".encode of a decoded value", bridge.encode, v)
  local ok2, w = pcall(bridge.decode, text, "again." .. kind)
  if not ok2 then checks.finding(kind .. ".decode of what encode wrote failed", describe(w) .. "\n" .. text) end
  local d = same.diff(v, w)
  if d then checks.finding("the round trip changed the document at " .. d, text) end
  local text2 = checks.must(kind .. ".encode, a second time", bridge.encode, w)
  if text2 ~= text then checks.finding("encode(decode(encode(v))) differs from encode(v)", text .. "\n--\n" .. text2) end
  return v
end

return checks
