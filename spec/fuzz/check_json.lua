--- check_json.lua: the fuzz check of the JSON loader. The input is a JSON text:
-- nd.json.decode reads it or raises a bad-input error naming fuzz.json and a
-- line and column; what it reads must come back unchanged from nd.json.encode
-- (compact and indented) and a second decode.
local core = require "nd.core"
local checks = require "check_lib"
local same = require "check_same"

return function(input)
  local v = checks.round_trip(core.json, "json", input)
  if v == nil then return end
  local text = checks.must("json.encode with indent", core.json.encode, v, { indent = 2 })
  local w = checks.must("json.decode of indented text", core.json.decode, text, "indented.json")
  local d = same.diff(v, w)
  if d then checks.finding("the indented round trip changed the document at " .. d, text) end
  -- every JSON document is a YAML document (YAML 1.1 reads JSON's scalars alike but for some floats)
  checks.must("yaml.encode of a JSON document", core.yaml.encode, v)
end
