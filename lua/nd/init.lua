--- The nd module: ndlua's Lua API.
-- `local nd = require "nd"` gives the C core (YAML and JSON bridges, the
-- model, run and estimate types) and the Lua library built on it.
-- @module nd

local core = require "nd.core"

local nd = {}
for name, value in pairs(core) do
  nd[name] = value
end

return nd
