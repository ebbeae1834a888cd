--- Runtime profiles: what the training runtime that runs a job does with
-- its memory, as Lua data files `nd/runtimes/<name>.lua` (megatron,
-- torchtitan, deepspeed, hyperparallel, mindspore ship in
-- lua/nd/runtimes/; a directory on NDLUA_PATH may add or replace one).
-- A run names its runtime (`nd.run{runtime = "megatron", ...}`, `--runtime`
-- on the scripts; a train.yaml implies hyperparallel) and the profile's
-- `run` fields fill what the run leaves unstated.
--
-- A profile file returns:
--   name   its name
--   about  one line for --help
--   peak   what the runtime's own logs call the peak: "allocated"
--          (max_memory_allocated) or "reserved" (max_memory_reserved)
--   run    nd.run fields by component, as the C core groups them
--          (nd.core.types.run.components: pipeline, recompute, parallelism,
--          sharding, precision, kernels, loss, offload, allocator, training;
--          parallelism.sp_with_cp: the runtime trains sequence parallelism
--          beside context parallelism, which the search otherwise refuses;
--          parallelism.expert_folding: a stated etp of 1 is the experts' TP
--          degree, the expert layers folding the stage's ranks, where
--          otherwise etp <= 1 is not stated), e.g.
--          run = { kernels = { fused_norm = true }, allocator = { fragmentation = 0 } };
--          the sharding component also takes nd.run's `zero`; a field
--          stated flat (outside a component) is taken as nd.run takes it
--   overlap  (optional) shares of each collective compute hides, over the
--          hardware profile's (nd.hardware.DEFAULT_OVERLAP names them)
--   pipeline_refuses  (optional) what the runtime will not run under
--          pipeline parallelism: { sharding = { field = label, ... },
--          why = text, accepted = text }; a run of pp > 1 with one of those
--          sharding fields true is refused by name (nd.run), never priced,
--          and a search keeps such a run's PP at 1
-- @module nd.runtimes

local core = require "nd.core"
local errors = require "nd.errors"
local files = require "nd.files"

local runtimes = {}

--- The runtime a train.yaml implies.
runtimes.TRAIN_YAML = "hyperparallel"

-- Fields that state the sharding. A run that states how its parameters or
-- gradients are sharded (a ZeRO stage, param_shard, grad_shard or
-- grad_shard_as_params: a train.yaml always does) takes none of the
-- profile's sharding; one stating optimizer_parallel alone keeps the
-- profile's others (a Megatron run stating its distributed optimizer keeps
-- Megatron's unsharded weights and grad buffer).
local SHARDING = { "zero", "optimizer_parallel", "param_shard", "grad_shard", "grad_shard_as_params",
                   "reshard_params" }
local STATES_SHARDING = { "zero", "param_shard", "grad_shard", "grad_shard_as_params" }
-- The fields that state the recompute, each in its own form.
local RECOMPUTE = { "recompute", "full_recompute", "selective_recompute" }

local loaded = {}

local function bad(path, message)
  errors.raise { file = path, message = message }
end

-- The run's components and the fields of each (src/core/*_opts.h), and
-- the shorthands of nd.run a component takes beside its own fields.
local COMPONENTS = core.types.run.components
local SHORTHANDS = { sharding = { zero = true } }

-- A profile's run fields flat, as nd.run takes them: each component's
-- fields (each one a field of that component), and the fields stated flat.
local function flatten(path, run)
  local flat = {}
  local function put(key, v)
    if flat[key] ~= nil then bad(path, "run: " .. tostring(key) .. " is stated twice") end
    flat[key] = v
  end
  for name, v in pairs(run) do
    local keys = COMPONENTS[name]
    if keys and type(v) == "table" then
      local known = {}
      for _, key in ipairs(keys) do known[key] = true end
      for key, x in pairs(v) do
        if not known[key] and not (SHORTHANDS[name] or {})[key] then
          bad(path, string.format("run.%s.%s is no field of the %s component (%s)", name, tostring(key), name,
                                  table.concat(keys, ", ")))
        end
        put(key, x)
      end
    else
      put(name, v)
    end
  end
  return flat
end

local function check_pipeline_refuses(path, r)
  if r == nil then return end
  if type(r) ~= "table" or type(r.sharding) ~= "table" or next(r.sharding) == nil or type(r.why) ~= "string"
     or type(r.accepted) ~= "string" then
    bad(path, "pipeline_refuses must be { sharding = { field = label, ... }, why = text, accepted = text }")
  end
  local known = {}
  for _, k in ipairs(SHARDING) do known[k] = true end
  for k, label in pairs(r.sharding) do
    if not known[k] or k == "zero" or type(label) ~= "string" then
      bad(path, "pipeline_refuses.sharding: " .. tostring(k) .. " is no sharding field with a label ("
        .. table.concat(SHARDING, ", ", 2) .. ")")
    end
  end
end

local function check(path, p)
  if type(p) ~= "table" then bad(path, "a runtime profile returns a table, got " .. type(p)) end
  if type(p.name) ~= "string" or p.name == "" then bad(path, "name must be the runtime's name") end
  if p.peak ~= "allocated" and p.peak ~= "reserved" then
    bad(path, "peak must be \"allocated\" or \"reserved\", got " .. tostring(p.peak))
  end
  if type(p.run) ~= "table" then bad(path, "run must be a table of nd.run fields") end
  for k, v in pairs(p.overlap or {}) do
    if not ({ dp = 1, tp = 1, cp = 1, ep = 1, pp = 1 })[k] or type(v) ~= "number" or v < 0 or v > 1 then
      bad(path, "overlap." .. tostring(k) .. " must be a collective (dp, tp, cp, ep, pp) and a share from 0 to 1")
    end
  end
  if p.defaults ~= nil and type(p.defaults) ~= "table" then bad(path, "defaults must be a table of nd.run fields") end
  check_pipeline_refuses(path, p.pipeline_refuses)
  p.components, p.run = p.run, flatten(path, p.run)
  p.defaults = p.defaults and flatten(path, p.defaults) or nil
  p.about = p.about or p.name
  p.path = path
  return p
end

--- Loads a profile file (checked).
function runtimes.load_file(path)
  local p, err = files.run_data(path)
  if err then bad(nil, "runtime profile " .. err) end
  return check(path, p)
end

--- The names of the profiles on the Lua path, sorted.
function runtimes.names()
  local _, names = files.on_lua_path("runtimes")
  table.sort(names)
  return names
end

--- Loads a profile by name, ignoring case; a bad-input error naming
-- `option` (default "runtime") and listing the profiles when none matches.
function runtimes.load(name, option)
  if type(name) ~= "string" then
    errors.raise { path = option or "runtime", message = "a runtime's name must be a string, got " .. type(name),
                   accepted = "one of " .. table.concat(runtimes.names(), ", ") }
  end
  local key = name:lower()
  if loaded[key] then return loaded[key] end
  local paths, names = files.on_lua_path("runtimes")
  local path
  for _, n in ipairs(names) do
    if n:lower() == key then path = paths[n] end
  end
  if not path then files.unknown_profile(option or "runtime", name, "runtime", "runtimes", runtimes.names()) end
  local p = runtimes.load_file(path)
  loaded[key] = p
  return p
end

--- The run table `t` with the profile of `t.runtime` under it: each of the
-- profile's fields the run leaves unstated, except the sharding fields
-- when the run states its own sharding. Returns a new table.
function runtimes.apply(t)
  local out = {}
  for k, v in pairs(t) do out[k] = v end
  local p = runtimes.load(t.runtime == nil and runtimes.TRAIN_YAML or t.runtime, "runtime")
  out.runtime = p.name
  local skip, states = {}, false
  for _, k in ipairs(STATES_SHARDING) do states = states or t[k] ~= nil end
  if states then
    for _, k in ipairs(SHARDING) do skip[k] = true end
  end
  -- a run naming no runtime: the default runtime's defaults under it (a
  -- recompute stated in any form replaces the defaults' mode)
  local fields = p.run
  if t.runtime == nil and p.defaults then
    fields = {}
    for k, v in pairs(p.defaults) do fields[k] = v end
    for k, v in pairs(p.run) do fields[k] = v end
    for _, k in ipairs(RECOMPUTE) do
      if t[k] ~= nil then
        for _, other in ipairs(RECOMPUTE) do skip[other] = true end
      end
    end
  end
  for k, v in pairs(fields) do
    if out[k] == nil and not skip[k] then out[k] = v end
  end
  return out
end

--- What of a settled run table (or a run's spec) its runtime's
-- pipeline_refuses names (a label such as "ZeRO-2 (grad_shard)") and why,
-- or nil when the runtime runs it under pipeline parallelism; pp is not looked at.
function runtimes.pipeline_refusal(t)
  if t.runtime == nil then return nil end
  local r = runtimes.load(t.runtime, "runtime").pipeline_refuses
  if not r then return nil end
  -- sharded as the C core derives it (src/core/derive.c derive_sharding):
  -- unstated, param_shard follows optimizer_parallel; the gradients are
  -- sharded with grad_shard, or with grad_shard_as_params
  local sharded = {}
  for _, k in ipairs(SHARDING) do sharded[k] = t[k] == true end
  if t.param_shard == nil then sharded.param_shard = t.optimizer_parallel == true end
  sharded.grad_shard = sharded.grad_shard or sharded.grad_shard_as_params
  for _, k in ipairs(SHARDING) do
    if r.sharding[k] and sharded[k] then return r.sharding[k], r.why end
  end
  return nil
end

--- Refuses, by name, a settled run table (its ZeRO stage spelled out)
-- that its runtime will not run: pipeline parallelism with a sharding its
-- profile's pipeline_refuses names (DeepSpeed's PipelineEngine and ZeRO-2/3).
function runtimes.refuse_pipeline(t)
  if (t.pp or 1) <= 1 then return end
  local label, why = runtimes.pipeline_refusal(t)
  if not label then return end
  errors.raise { path = "pp", message = string.format("the %s runtime does not run pipeline parallelism "
    .. "(pp = %d) with %s: %s", t.runtime, t.pp, label, why),
    accepted = runtimes.load(t.runtime, "runtime").pipeline_refuses.accepted }
end

--- The fields the profile of `name` set in `t` (their values unchanged
-- since): what a change of runtime takes away before laying the new one.
function runtimes.fields_of(name, t)
  local p = runtimes.load(name, "runtime")
  local set = {}
  for k, v in pairs(p.run) do
    if t[k] == v then set[#set + 1] = k end
  end
  return set
end

return runtimes
