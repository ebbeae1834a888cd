--- check_yaml.lua: the fuzz check of the YAML loader. The input is a YAML text:
-- nd.yaml.decode reads it or raises a bad-input error naming fuzz.yaml and a
-- line and column; what it reads must come back unchanged from nd.yaml.encode
-- and a second decode, and the JSON encoder must take it or refuse it cleanly.
local core = require "nd.core"
local checks = require "check_lib"

return function(input)
  local v = checks.round_trip(core.yaml, "yaml", input)
  if v == nil then return end
  -- JSON cannot hold every YAML document (non-string keys of tables, say):
  -- encoding may refuse, but only with an error naming where.
  local ok, err = pcall(core.json.encode, v)
  if not ok and not tostring(err):find("as JSON") then
    checks.finding("json.encode of a YAML document failed unexpectedly", checks.describe(err))
  end
end
