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

-- A spec field's value, or d where it is absent (nil or nd.null).
local function stated(v, d)
  if v == nil or core.isnull(v) then return d end
  return v
end

-- The stack in words: "3×dense, 58×moe, 1×moe(mtp)".
local function stack_text(m)
  local groups = {}
  for i, g in ipairs(m:stack()) do
    groups[i] = string.format("%d×%s%s", g.count, g.kind.name, g.mtp and "(mtp)" or "")
  end
  return table.concat(groups, ", ")
end

--- tostring(model): its name and arch, layers and stack, widths, heads,
-- vocabulary, vision tower and parameter counts (in billions), in one line.
function core.types.model.__tostring(m)
  local s, p = m:spec(), m:params()
  local experts = stated(s.num_experts, 1)
  local ffn = experts > 1 and string.format("%d experts (top-%d) of width %d", experts,
    stated(s.num_experts_per_tok, 1), stated(s.moe_intermediate_size, 0))
    or string.format("FFN width %d", stated(s.intermediate_size, 0))
  local counts = string.format("%.2f B parameters", p.total / 1e9)
  if p.active < p.total then counts = counts .. string.format(" (%.2f B active)", p.active / 1e9) end
  return string.format("%s (arch %s): %d layers [%s], hidden %d, %d heads (%d KV, head dim %d), %s, "
    .. "vocabulary %d%s; %s", s.name, s.arch, s.num_hidden_layers + stated(s.mtp_depth, 0), stack_text(m),
    s.hidden_size, s.num_attention_heads, s.num_key_value_heads, math.floor(s.head_dim + 0.5), ffn,
    s.vocab_size, type(s.vision) == "table" and ", with a vision tower" or "", counts)
end

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
