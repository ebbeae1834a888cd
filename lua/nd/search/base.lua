--- The train.yaml a search starts from: its model, the run every candidate
-- is laid over, and the values of the dimensions the search does not vary.
--
-- The search replaces the yaml's degrees, batch and recompute with each
-- candidate's, so the yaml is read with its device count set to the
-- search's (-d) and its batch unstated: a yaml whose own batch does not
-- suit the search's devices still gives the search its model, dtypes,
-- optimizer, schedule and sequence. The values the yaml states for the
-- dimensions (the pinned ones when -l leaves them out) are read before.
-- @module nd.search.base

local errors = require "nd.errors"
local train_yaml = require "nd.train_yaml"
local values = require "nd.train_yaml.values"
local warnings_mod = require "nd.warnings"
local search = require "nd.search"
local models = require "nd.model"
local runs = require "nd.run"

local base = {}

-- The batch keys of the yaml (training -> train): micro_batch_size,
-- micro_batch_num, global_batch_size (0 or absent: unstated).
local function read_batch(r)
  local t = r:section_chain({ nil, "training" }, { nil, "train" })
  local function count(key)
    local v = r:value(t, key)
    if not values.truthy(v) then return nil end
    return r:integer(t, key, v)
  end
  return { section = t, micro_batch_size = count("micro_batch_size") or 1, micro_batch_num = count("micro_batch_num"),
           global_batch_size = count("global_batch_size") }
end

-- context.recompute: the recompute modes the search prices (search-ranking-cli.md §e), or nil.
local function read_recompute(r, ctx)
  local v = r:value(ctx, "recompute")
  if v == nil then return nil end
  return search.parse_recompute(v, function(message, accepted) r:fail(ctx, "recompute", message, accepted) end)
end

-- The values the yaml states for each dimension, on `devices` devices.
local function stated_dims(r, auto, accel, fsdp, devices)
  local denom = accel.tp * accel.pp * accel.cp
  local dp = devices % denom == 0 and devices // denom or nil
  -- OP: 1 without an optimizer shard; "full" when the yaml shards over all
  -- its data-parallel ranks (a multiple of them: a yaml written for more
  -- devices), and then every candidate does (search.FULL_SHARD); else the
  -- shard it states (HSDP).
  local sharding = train_yaml.read_sharding(r, auto, accel, fsdp, dp or 1)
  local op = sharding.optimizer_parallel and sharding.optimizer_shard or 1
  if op > 1 and dp and op % dp == 0 then op = "full" end
  -- the degrees the accelerator section states by the dimensions' keys (tp, pp, ...), and the three
  -- it states otherwise
  local out = search.by_dim(accel)
  out.DP, out.SP, out.OP = dp, accel.sequence_parallel and 1 or 0, op
  return out, denom
end

-- Warnings of the yaml's own strategy that the search replaces.
local function about_replaced(text)
  return text:find("do not divide the data-parallel degree", 1, true) ~= nil
end

--- Reads a loaded train.yaml for a search.
-- @tparam table doc the document (overrides already applied)
-- @tparam table o `file` (for messages), `devices` (-d, or nil),
--   `warnings` (the command's collector), `device_memory` (bytes, or nil)
-- @treturn table `{parsed, model, run, spec, schema, devices, stated
--   (dimension values by C name), stated_batch, stated_devices
--   (context.device_num), recompute (context.recompute modes or nil),
--   accumulates}`
function base.read(doc, o)
  if type(doc) ~= "table" then
    errors.raise { file = o.file, message = "a train.yaml is a mapping of sections" }
  end
  local quiet = warnings_mod.quiet()
  local r = values.reader(doc, { file = o.file, warnings = quiet })
  local schema = train_yaml.schema(doc)
  local auto = schema == "automodels"
  local ctx = train_yaml.read_context(r)
  local batch = read_batch(r)
  local recompute = read_recompute(r, ctx.section)
  local balance = r:value(ctx.section, "balance")
  if balance ~= nil then balance = r:flag(ctx.section, "balance", balance) end
  local offload = r:value(ctx.section, "offload")
  if offload ~= nil then offload = r:flag(ctx.section, "offload", offload) end
  local devices = o.devices or ctx.device_num
  local accel = train_yaml.read_accelerator(r)
  local fsdp = train_yaml.read_fsdp(r, accel)
  if not devices and not auto then
    devices = math.max(1, accel.dp_replicate * fsdp.dp_shard) * accel.tp * accel.pp * accel.cp
  end
  if not devices then
    errors.raise { file = o.file, path = "context.device_num",
                   message = "the yaml states no device count, and the search needs one",
                   accepted = "state it with -d N (or context.device_num)" }
  end
  local stated, denom = stated_dims(r, auto, accel, fsdp, devices)
  -- The yaml as the search reads it: the search's devices, the batch unstated.
  if not values.present(doc.context) then doc.context = {} end
  if type(doc.context) == "table" and doc.context[1] == nil then
    doc.context.device_num = devices % denom == 0 and devices or denom
  end
  local t = batch.section
  if t.stated then
    t.t.global_batch_size, t.t.micro_batch_num = nil, nil
  end
  local parsed = train_yaml.parse(doc, { file = o.file, warnings = quiet, device_memory = o.device_memory,
                                         runtime = o.runtime })
  for _, w in ipairs(quiet:all_kinds()) do
    if not about_replaced(w.text) then o.warnings:warn(nil, w.text, w.kind) end
  end
  parsed.warnings = o.warnings
  local model = models.new(parsed.model, { warnings = o.warnings })
  local run = runs.new(parsed.run)
  stated.MBS = batch.micro_batch_size
  local stated_batch = batch.global_batch_size
  if not stated_batch and batch.micro_batch_num and stated.DP then
    stated_batch = batch.micro_batch_size * stated.DP * batch.micro_batch_num
  end
  return {
    parsed = parsed, model = model, run = run, spec = parsed.model, schema = schema, devices = devices,
    stated = stated, stated_batch = stated_batch, recompute = recompute, stated_devices = ctx.device_num,
    balance = balance, offload = offload,
    accumulates = run:derived(model).accumulates_grads, file = o.file,
  }
end

return base
