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

-- BEGIN runs and estimates (issue 4; src/lnd_run.c, src/lnd_estimate.c)
-- nd.run(table) -> nd.run: the C core's run table, plus sizes as text
-- (device_memory = "58GB", reserve_bytes = "2GiB") and `zero = 1 | 2 | 3`
-- (optimizer states; + gradients; + parameters sharded over DP).
-- run:with(changes) -> a new run with the changes laid over; the original
-- is unchanged. nd.estimate(model, run) and nd.layout(model, run) as in C.
local units = require "nd.units"
local errors = require "nd.errors"

local ZERO_STAGES = {
  [1] = { optimizer_parallel = true, param_shard = false, grad_shard = false },
  [2] = { optimizer_parallel = true, param_shard = false, grad_shard = true },
  [3] = { optimizer_parallel = true, param_shard = true, grad_shard = true },
}

local function run_table(spec)
  local t = {}
  for k, v in pairs(spec) do t[k] = v end
  for _, key in ipairs { "device_memory", "reserve_bytes" } do
    if type(t[key]) == "string" then
      local n, err = units.parse_bytes(t[key])
      if not n then errors.raise { path = key, message = err } end
      t[key] = n
    end
  end
  if t.zero ~= nil then
    local stage = ZERO_STAGES[t.zero]
    if not stage and t.zero ~= 0 then
      errors.raise { path = "zero", message = "ZeRO stage " .. tostring(t.zero) .. " is not 0, 1, 2 or 3" }
    end
    for k, v in pairs(stage or {}) do
      if t[k] == nil then t[k] = v end
    end
    t.zero = nil
  end
  return t
end

function nd.run(spec)
  if type(spec) ~= "table" then
    error("nd.run: spec must be a table of run fields, got " .. type(spec), 2)
  end
  local r = core.run(run_table(spec))
  return r
end

local run_methods = getmetatable(core.run {}).methods
--- A new run with `changes` laid over this run's fields.
function run_methods.with(self, changes)
  if type(changes) ~= "table" then
    error("run:with: changes must be a table of run fields, got " .. type(changes), 2)
  end
  local t = {}
  for k, v in pairs(self:spec()) do t[k] = v end
  for k, v in pairs(changes) do t[k] = v end
  return nd.run(t)
end
-- END runs and estimates

return nd
