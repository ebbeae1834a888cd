--- nd.model and nd.resolve_model: a model from a hub id, a train.yaml's
-- model section or a model spec (lua/nd/README.md, "The settled model
-- spec"). The facade (lua/nd/init.lua) re-exports them with their
-- reference documentation; library modules require this module instead.
-- Without opts.warnings, warnings go to one collector printing to stderr.
-- @module nd.model

local core = require "nd.core"
local model_source = require "nd.model.source"
local model_spec = require "nd.model.spec"
local stderr_warnings = require("nd.warnings").new()

local model = {}

local function with_warnings(opts)
  local out = { warnings = stderr_warnings }
  for k, v in pairs(opts or {}) do out[k] = v end
  return out
end

local function check_model_arg(fname, spec, opts)
  if type(spec) ~= "string" and type(spec) ~= "table" then
    error(string.format("%s: argument 1 (spec) must be a hub id, a model section or a model spec, got %s", fname,
                        type(spec)), 3)
  end
  if opts ~= nil and type(opts) ~= "table" then
    error(string.format("%s: argument 2 (opts) must be a table of options, got %s", fname, type(opts)), 3)
  end
end

--- Resolves a model (nd.resolve_model): the settled spec, the source and
-- the run keys of config_overrides.
function model.resolve(section, opts)
  check_model_arg("nd.resolve_model", section, opts)
  return model_source.resolve_model(section, with_warnings(opts))
end

--- A model (nd.model): nd.core.model of the settled spec of a hub id, a
-- model section or a model spec (settled or not).
function model.new(spec, opts)
  check_model_arg("nd.model", spec, opts)
  opts = with_warnings(opts)
  if type(spec) == "string" or (type(spec) == "table" and (spec.pretrained_model_name_or_path
      or spec.config_path or spec.config_overrides)) then
    spec = model_source.resolve_model(spec, opts)
  elseif not model_spec.is_settled(spec) then
    spec = model_spec.settle(spec, opts)
  end
  return core.model(spec)
end

return model
