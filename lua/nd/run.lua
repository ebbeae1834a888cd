--- nd.run and run:with: a run from a table of run fields (the C core's
-- run table, src/binding/lnd_run.c RUN_FIELDS), with sizes as text
-- (device_memory = "58GB", reserve_bytes = "2GiB") and `zero = 1 | 2 | 3`
-- (optimizer states; + gradients; + parameters sharded over DP).
-- run:with(changes) -> a new run with the changes laid over; the original
-- is unchanged. The facade (lua/nd/init.lua) re-exports nd.run with its
-- reference documentation; library modules require this module instead.
--
-- The C core's nd.run userdata has a methods table (its metatable's
-- `methods`, nd.core.types.run, src/binding/lnd_run.c) that `with` is added to
-- here, once, when this module is first required; the metatable's `ops`
-- names the ops a selective range can drop.
-- The per-stage forms (offset, full_recompute, selective_recompute), the
-- recompute ranges, the micro-batch count and the optimizer's states are
-- settled here, once, with the messages; the core reads them settled.
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

-- Float8 training, refused by name (issue 31 item 5) rather than priced as
-- the bf16 run it is not: torchao's Float8Linear (torchtitan's float8
-- converter) keeps each linear's weight and input in high precision for the
-- backward, casts both to float8 with dynamic scales for every matmul, and
-- with enable_fsdp_float8_all_gather gathers float8 weights; Transformer
-- Engine's fp8 keeps its own casts and amax histories. ndlua has none of these.
local FLOAT8_KEYS = { "float8", "fp8", "float8_linear", "enable_float8_linear", "enable_fsdp_float8_all_gather",
                      "mxfp8" }

local function refuse_float8(spec)
  for _, key in ipairs(FLOAT8_KEYS) do
    local v = spec[key]
    if v ~= nil and v ~= false then
      errors.raise { path = key, message = "float8 training is not priced: ndlua has no model of the float8 "
        .. "casts, scales and float8 FSDP all-gathers torchao's Float8Linear or Transformer Engine keep, and will "
        .. "not price the run as bf16",
        accepted = "the bf16 run (leave " .. key .. " out); its memory is near the float8 run's where the linears "
          .. "save their high-precision inputs (torchtitan's 8B FSDP table: 77.0 GiB bf16, 76.8 GiB float8)" }
    end
  end
end

local function run_table(spec)
  refuse_float8(spec)
  local t = runtimes.apply(spec)
  for _, key in ipairs(FLOAT8_KEYS) do
    if t[key] == false then t[key] = nil end -- float8 = false states the bf16 run ndlua prices
  end
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
  runtimes.refuse_pipeline(t)
  return t
end

local run_methods = core.types.run.methods
-- The C core's bounds on what nd.run settles (src/core/nd_limits.h): the most
-- layers a count names, the most sequences a batch holds; and the ops a
-- selective range can drop, in the order the core reads them.
local MAX_LAYERS, MAX_BATCH, MAX_DEVICES = core.limits.layers, core.limits.batch, core.limits.devices
local OPS = core.types.run.ops

local function raise(fmt, ...)
  errors.raise { message = string.format(fmt, ...) }
end

local function absent(v) return v == nil or core.isnull(v) end

--- The rows of a per-stage list (an offset, a per-stage recompute count):
-- one whole number per stage, or vpp such lists (one per chunk). `check`
-- states the messages: length(n, nested, wanted), row(nested), and
-- entry(x) -> the whole number x states (or raises). Returns the entries
-- flat (chunk-major) and their sum. Shared by nd.run and nd.train_yaml
-- (which names the yaml key, file and line).
function run.stage_rows(v, pp, vpp, check)
  local nested = type(rawget(v, 1)) == "table"
  local wanted = nested and vpp or pp
  if rawlen(v) ~= wanted then check.length(rawlen(v), nested, wanted) end
  local flat, sum = {}, 0
  for c = 1, nested and vpp or 1 do
    local row = nested and rawget(v, c) or v
    if type(row) ~= "table" or rawlen(row) ~= pp then check.row(nested) end
    for s = 1, pp do
      local k = check.entry(rawget(row, s))
      flat[#flat + 1], sum = k, sum + k
    end
  end
  return flat, sum
end

-- A per-stage form, as the core reads it: nil (unstated, false or 0), true
-- (every layer), or a flat list of pp counts (one a stage) or pp x vpp
-- (chunk-major). Stated as true, false, a number (that many on every
-- stage), a list per stage, or vpp lists per stage; entries from lo.
local function stage_form(t, key, pp, vpp, lo)
  local v = t[key]
  if absent(v) then return nil end
  local function entry(x)
    local k = math.tointeger(x)
    if not k or k < lo or k > MAX_LAYERS then
      raise("%s must hold whole numbers from %d to %d, got %s", key, lo, MAX_LAYERS, tostring(x))
    end
    return k
  end
  if type(v) == "boolean" then
    if v and key == "offset" then raise("offset must be a number or a list of numbers per stage, not true") end
    return v or nil
  elseif type(v) == "number" then
    local k, flat = entry(v), {}
    if k == 0 then return nil end
    for s = 1, pp do flat[s] = k end
    return flat
  elseif type(v) == "table" then
    return (run.stage_rows(v, pp, vpp, {
      length = function(n, nested, wanted)
        raise("%s lists %d %s; the run has %d", key, n, nested and "chunks" or "entries", wanted)
      end,
      row = function(nested) raise("%s%s must list one entry per stage (%d)", key, nested and "[chunk]" or "", pp) end,
      entry = entry,
    }))
  end
  raise("%s must be true, false, a number or a list of numbers per stage, got %s", key, tostring(v))
end

-- A value as the core's field messages show it: a string quoted (a long
-- one cut to 60 bytes, with its length), others as tostring shows them.
local function shown(v)
  if type(v) ~= "string" then return tostring(v) end
  if #v <= 60 then return '"' .. v .. '" (a string)' end
  return string.format('"%s..." (a string of %d bytes)', v:sub(1, 60), #v)
end

-- A whole-number field of a range, from lo to hi; dflt when absent.
local function whole(g, where, key, lo, hi, dflt)
  local x = g[key]
  if absent(x) then return dflt end
  local v = math.type(x) == "integer" and x or nil
  if not v then
    if type(x) ~= "number" or x ~= math.floor(x) then raise("%s%s must be a whole number, got %s", where, key, shown(x)) end
    if math.abs(x) > 9.0e15 then raise("%s%s must be from %d to %d, got %s", where, key, lo, hi, shown(x)) end
    v = math.tointeger(x)
  end
  if v < lo and lo >= 1 then raise("%s%s must be positive, got %d", where, key, v) end
  if v < lo or v > hi then raise("%s%s must be from %d to %d, got %d", where, key, lo, hi, v) end
  return v
end

local RANGE_KEYS = { first = true, count = true, option = true, ops = true }
local OPTIONS = { none = "off", off = "off", selective = "selective", full = "full" }

-- A range's ops: {op = "keep" | "recompute"}, as a list of 1 (kept) or 0
-- (recomputed) in the core's order of OPS.
local function range_ops(ops, where, mode)
  if ops == nil then return nil end
  if mode ~= "selective" or type(ops) ~= "table" then
    raise('%sops: only a selective range names ops, as {op = "keep" | "recompute"}', where)
  end
  local out, known = {}, {}
  for i, name in ipairs(OPS) do
    local v = ops[name]
    v = (type(v) == "string" or type(v) == "number") and tostring(v) or nil
    if v ~= nil and v ~= "recompute" and v ~= "keep" then raise("%sops.%s must be keep or recompute", where, name) end
    out[i], known[name] = v == "recompute" and 0 or 1, true
  end
  for name in next, ops do
    name = type(name) == "string" and name or "?"
    if not known[name] then
      raise("%sops: '%s' is no op a recompute can drop (%s)", where, name, table.concat(OPS, ", "))
    end
  end
  return out
end

-- Range i of recompute: {first, count, mode, ops}, count -1 when open.
local function range(g, i)
  local where = "recompute[" .. i .. "]."
  if type(g) ~= "table" then raise("recompute[%d] must be a range {first, count, option, ops}", i) end
  for key in next, g do
    if type(key) ~= "string" then raise("%srange has a key that is not a name: %s", where, shown(key)) end
    if not RANGE_KEYS[key] then
      raise("%srange: unknown key '%s'", where, #key > 60 and key:sub(1, 60) .. "..." or key)
    end
  end
  local out = { first = whole(g, where, "first", 0, MAX_LAYERS, 0), count = whole(g, where, "count", 1, MAX_LAYERS, -1) }
  local option = g.option
  if absent(option) then option = "none" end
  if type(option) ~= "string" then raise("%soption must be a name, got %s", where, shown(option)) end
  if #option > 4096 then raise("%soption must be a name of at most 4096 bytes, got %s", where, shown(option)) end
  out.mode = OPTIONS[option] or raise("%soption must be none, off, selective or full", where)
  out.ops = range_ops(g.ops, where, out.mode)
  return out
end

-- recompute as a list of ranges in model order, without overlap; only the
-- last may be open.
local function ranges(v)
  local n = rawlen(v)
  if n > MAX_LAYERS then raise("recompute lists %d ranges; at most %d (one a layer)", n, MAX_LAYERS) end
  local out, after = {}, 0
  for i = 1, n do
    if i > 1 and out[i - 1].count < 0 then
      raise("recompute[%d] follows an open range (no count); only the last may be open", i)
    end
    local g = range(rawget(v, i), i)
    if g.first < after then
      raise("recompute[%d] starts at layer %d, inside or before the range before it (which ends at %d); ranges go "
        .. "in model order without overlap", i, g.first, after)
    end
    out[i], after = g, g.first + math.max(g.count, 0)
  end
  return out
end

--- The optimizer states a parameter its name implies: Muon keeps one
-- momentum, AdamW (and any other) two moments.
function run.optimizer_states(name)
  return name:lower():find("muon", 1, true) and 1 or 2
end

-- The optimizer's name, settled to the states it keeps.
local function settle_optimizer(t)
  local name = t.optimizer
  if absent(name) then return {} end
  if type(name) ~= "string" then raise("optimizer must be a name, got %s", shown(name)) end
  if #name > 4096 then raise("optimizer must be a name of at most 4096 bytes, got %s", shown(name)) end
  return { optimizer_states = run.optimizer_states(name) }
end

--- The batch rule, stated here once: a step is micro_batch_size x dp x
-- micro_batch_num sequences, the global batch. An unstated micro_batch_num
-- (nil or 0) is the global batch over micro_batch_size x dp where that
-- divides, else pp; an unstated global batch (nil or 0) is the step.
-- Returns the micro-batch count, the global batch and, where the rule does
-- not hold, what does not: nil or {key, message, accepted}, with
-- `indivisible` set when only the default count fell back to pp (nd.run
-- prices that, a train.yaml and run:with refuse it). Products in floats
-- past 2^63.
function run.batch(micro, dp, pp, global, num)
  global, num = global or 0, num or 0
  local per_step, problem = micro * dp, nil
  if num == 0 and global > 0 and global % per_step ~= 0 then
    num, problem = pp, { key = "global_batch_size", indivisible = true, message = string.format(
      "%d is not a multiple of micro_batch_size x dp = %d x %d = %d", global, micro, dp, per_step),
      accepted = "a global batch that micro_batch_size x dp divides, or a micro_batch_num" }
  elseif num == 0 then
    num = global > 0 and global // per_step or pp
  elseif global > 0 and global ~= 1.0 * per_step * num then
    problem = { key = "global_batch_size", message = string.format("%d is not micro_batch_size x dp x "
      .. "micro_batch_num = %d x %d x %d = %d", global, micro, dp, num, per_step * num),
      accepted = "a consistent batch, or one of them unstated" }
  end
  local all = 1.0 * per_step * num
  if global == 0 and all > MAX_BATCH then
    problem = { message = string.format("micro_batch_size x dp x micro_batch_num = %d x %d x %d = %s sequences a "
      .. "step; ndlua plans at most %d", micro, dp, num, tostring(all), MAX_BATCH) }
  end
  return num, global > 0 and global or per_step * num, problem
end

-- A whole number the core checks (a degree, a batch size): v, or dflt
-- when absent; nil when it is no whole number from 1 to hi (the core then
-- refuses it with its field message).
local function checked(v, hi, dflt)
  if absent(v) then return dflt end
  v = math.tointeger(v)
  return v and v >= 1 and v <= hi and v or nil
end

-- The micro-batches a step and the global batch they make (run.batch),
-- once the degrees and sizes they come from are ones the core accepts.
local function settle_batch(t, out)
  local dp, pp = checked(t.dp, MAX_DEVICES, 1), checked(t.pp, MAX_DEVICES, 1)
  local micro, global = checked(t.micro_batch_size, MAX_BATCH, 1), checked(t.global_batch_size, MAX_BATCH, 0)
  if not (dp and pp and micro and global) then return end
  local num, all, problem = run.batch(micro, dp, pp, global, whole(t, "", "micro_batch_num", 1, MAX_BATCH, 0))
  if problem and not problem.indivisible then
    raise("%s%s", problem.key and problem.key .. " " or "", problem.message)
  end
  out.micro_batch_num, out.global_batch_size = num, all
end

-- The per-stage forms and ranges: {offset, full_recompute,
-- selective_recompute, ranges}. recompute states a mode for every layer
-- (off, selective, full) or ranges in model order.
local function settle_forms(t, f)
  local pp, vpp = checked(t.pp, MAX_DEVICES, 1), checked(t.vpp, core.limits.vpp, 1)
  if not (pp and vpp) then return end
  f.offset, f.full_recompute, f.selective_recompute = stage_form(t, "offset", pp, vpp, -MAX_LAYERS),
    stage_form(t, "full_recompute", pp, vpp, 0), stage_form(t, "selective_recompute", pp, vpp, 0)
  local mode = t.recompute
  if type(mode) == "string" then
    if f.full_recompute or f.selective_recompute then
      raise("recompute: state either a mode or full_recompute / selective_recompute, not both")
    end
    if mode == "full" then
      f.full_recompute = true
    elseif mode == "selective" then
      f.selective_recompute = true
    elseif mode ~= "off" and mode ~= "none" then
      raise("recompute: '%s' is not a recompute mode; expected %s, or a list of ranges {first, count, option, ops}",
        mode, core.types.run.choices.recompute.accepted)
    end
  elseif type(mode) == "table" then
    f.ranges = ranges(mode)
  elseif not absent(mode) then
    raise("recompute must be %s, or a list of ranges, got %s", core.types.run.choices.recompute.accepted,
      tostring(mode))
  end
end

-- The parts of a run table t that nd.run settles, settled: the table the
-- core reads them from (nd.core.run's second argument), apart from t so
-- that run:spec() stays what was stated. A part whose degrees the core
-- will refuse is left out; the core's message names the degree.
local function settle(t)
  local devices = 1.0
  for _, key in ipairs { "dp", "tp", "pp", "cp" } do devices = devices * (checked(t[key], MAX_DEVICES, 1) or 1) end
  if devices > MAX_DEVICES then return {} end -- the core refuses the degrees first
  local out = settle_optimizer(t)
  settle_batch(t, out)
  settle_forms(t, out)
  return out
end

--- A run (nd.run): nd.core.run of the table, its sizes parsed and its
-- ZeRO stage spelled out, its per-stage forms and ranges settled here.
function run.new(spec)
  if type(spec) ~= "table" then
    error("nd.run: argument 1 (spec) must be a table of run fields, got " .. type(spec), 2)
  end
  local t = run_table(spec)
  return core.run(t, settle(t))
end

-- Fields that state the same fact in other forms: a change stating one
-- drops the others the run held (a mode replaces per-stage recompute).
local REPLACES = {
  recompute = { "full_recompute", "selective_recompute" },
  full_recompute = { "recompute" }, selective_recompute = { "recompute" },
}

-- After a change of dp, micro_batch_size or global_batch_size that leaves
-- micro_batch_num unstated, the count is derived again from the global
-- batch (run.batch: it must be a whole number of micro_batch_size x dp).
local function rebatch(t, changes)
  if changes.micro_batch_num ~= nil or t.micro_batch_num == nil or not t.global_batch_size then return end
  if changes.dp == nil and changes.micro_batch_size == nil and changes.global_batch_size == nil then return end
  local _, _, problem = run.batch(t.micro_batch_size or 1, t.dp or 1, t.pp or 1, t.global_batch_size)
  if problem and problem.indivisible then
    errors.raise { path = "run:with", message = problem.key .. " " .. problem.message,
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
