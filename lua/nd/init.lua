--- The nd module: ndlua's Lua API.
-- `local nd = require "nd"` gives the C core (YAML and JSON bridges, the
-- model, run and estimate types) and the Lua library built on it.
-- @module nd

local core = require "nd.core"

local nd = {}
for name, value in pairs(core) do
  nd[name] = value
end

-- BEGIN model resolution (issue 3; lua/nd/model_source.lua, model_spec.lua)
-- nd.resolve_model(section_or_id, opts) -> settled spec, source, run keys
-- nd.model(spec | section | id, opts) -> nd.core.model(settled spec)
-- Without opts.warnings, warnings go to one collector printing to stderr.
local model_source = require "nd.model_source"
local model_spec = require "nd.model_spec"
local stderr_warnings = require("nd.warnings").new()
local function with_warnings(opts)
  local out = { warnings = stderr_warnings }
  for k, v in pairs(opts or {}) do out[k] = v end
  return out
end
function nd.resolve_model(section, opts)
  return model_source.resolve_model(section, with_warnings(opts))
end
function nd.model(spec, opts)
  opts = with_warnings(opts)
  if type(spec) == "string" or (type(spec) == "table" and (spec.pretrained_model_name_or_path
      or spec.config_path or spec.config_overrides)) then
    spec = model_source.resolve_model(spec, opts)
  elseif not model_spec.is_settled(spec) then
    spec = model_spec.settle(spec, opts)
  end
  assert(core.model, "nd.core.model is not built into this ndlua")
  return core.model(spec)
end
-- END model resolution

return nd
