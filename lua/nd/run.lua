--- nd.run and run:with: a run from a table of run fields (the C core's
-- run table, src/lnd_run.c RUN_KEYS), with sizes as text
-- (device_memory = "58GB", reserve_bytes = "2GiB") and `zero = 1 | 2 | 3`
-- (optimizer states; + gradients; + parameters sharded over DP).
-- run:with(changes) -> a new run with the changes laid over; the original
-- is unchanged. The facade (lua/nd/init.lua) re-exports nd.run with its
-- reference documentation; library modules require this module instead.
--
-- The C core's nd.run userdata has a methods table (its metatable's
-- `methods`, src/lnd_run.c) that `with` is added to here, once, when
-- this module is first required: the only place the library reaches into
-- a C metatable.
-- @module nd.run

local core = require "nd.core"
local units = require "nd.units"
local errors = require "nd.errors"
local runtimes = require "nd.runtimes"

local run = {}

-- ZeRO-3 is FSDP: parameters and gradients sharded with the optimizer
-- states, each layer's weights gathered for its forward and its backward
-- and its gradients reduce-scattered (grad_shard_as_params).
local ZERO_STAGES = {
  [1] = { optimizer_parallel = true, param_shard = false, grad_shard = false },
  [2] = { optimizer_parallel = true, param_shard = false, grad_shard = true },
  [3] = { optimizer_parallel = true, param_shard = true, grad_shard = true, grad_shard_as_params = true },
}

local function run_table(spec)
  local t = runtimes.apply(spec)
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

--- A run (nd.run): nd.core.run of the table, its sizes parsed and its
-- ZeRO stage spelled out.
function run.new(spec)
  if type(spec) ~= "table" then
    error("nd.run: argument 1 (spec) must be a table of run fields, got " .. type(spec), 2)
  end
  local r = core.run(run_table(spec))
  return r
end

local run_methods = getmetatable(core.run {}).methods

-- Fields that state the same fact in other forms: a change stating one
-- drops the others the run held (a mode replaces per-stage recompute).
local REPLACES = {
  recompute = { "full_recompute", "selective_recompute" },
  full_recompute = { "recompute" }, selective_recompute = { "recompute" },
}

-- After a change of dp, micro_batch_size or global_batch_size that leaves
-- micro_batch_num unstated, the count is derived again from the global
-- batch (which must be a whole number of micro_batch_size x dp).
local function rebatch(t, changes)
  if changes.micro_batch_num ~= nil or t.micro_batch_num == nil or not t.global_batch_size then return end
  if changes.dp == nil and changes.micro_batch_size == nil and changes.global_batch_size == nil then return end
  local per_step = (t.micro_batch_size or 1) * (t.dp or 1)
  if t.global_batch_size % per_step ~= 0 then
    errors.raise { path = "run:with", message = string.format("global_batch_size %d is not a multiple of "
      .. "micro_batch_size x dp = %d x %d", t.global_batch_size, t.micro_batch_size or 1, t.dp or 1),
      accepted = "change global_batch_size too, or state micro_batch_num" }
  end
  t.micro_batch_num = nil
end

-- After a change of pp, an offset list of the old pipeline that moves no
-- layer (all zeros: the balanced split) is dropped.
local function repipe(t, changes)
  if changes.pp == nil or changes.offset ~= nil or type(t.offset) ~= "table" then return end
  for _, v in ipairs(t.offset) do
    if v ~= 0 then return end
  end
  t.offset = nil
end

--- A new run with `changes` laid over this run's fields; the original is
-- unchanged. `nd.null` as a value removes a field. A recompute stated in
-- one form (`recompute = "selective"`) replaces the others
-- (full_recompute, selective_recompute); a change of dp,
-- micro_batch_size or global_batch_size without micro_batch_num derives
-- the micro-batch count again from the global batch; a change of pp drops
-- a balanced (all-zero) offset list of the old pipeline.
-- @tparam table changes run fields (nd.run's)
-- @treturn userdata nd.run
-- @usage local r2 = run:with{tp = 4, recompute = "selective"}
function run_methods.with(self, changes)
  if type(changes) ~= "table" then
    error("run:with: argument 1 (changes) must be a table of run fields, got " .. type(changes), 2)
  end
  local t = {}
  for k, v in pairs(self:spec()) do t[k] = v end
  if changes.runtime ~= nil and t.runtime ~= nil then -- a new runtime: the old one's fields go
    for _, k in ipairs(runtimes.fields_of(t.runtime, t)) do t[k] = nil end
  end
  for k in pairs(changes) do
    for _, other in ipairs(REPLACES[k] or {}) do
      if changes[other] == nil then t[other] = nil end
    end
  end
  for k, v in pairs(changes) do
    if core.isnull(v) then t[k] = nil else t[k] = v end
  end
  rebatch(t, changes)
  repipe(t, changes)
  return run.new(t)
end

return run
