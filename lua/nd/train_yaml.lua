--- Reading a HyperParallel train.yaml as the seed parser reads it
-- (reference/seed-cost_model_parser_hyper.txt; model-spec-census-train-yaml.md §e key table, warnings and
-- errors; §f multimodal). The result is a settled model spec and a run
-- table for nd.run. One function per section, each naming the key paths it
-- reads; a team changes a default or adds a key here, never in C.
--
--   local train_yaml = require "nd.train_yaml"
--   local parsed = train_yaml.load("train.yaml", {devices = 64})
--   local m, run = nd.model(parsed.model), nd.run(parsed.run)
--
-- Two schemas (model-spec-census-train-yaml.md §e): the AutoModels one (model.pretrained_model_name_or_path,
-- or a root `training`, `accelerator` or `fsdp_config` section) and the
-- legacy hyper_v2 one (`train.*`, `data.*`). Sections fall back from the
-- first to the second: `accelerator` -> `train.accelerator`, `training` ->
-- `train`, `optimizer` -> `train.optimizer`. A YAML null is "not stated"
-- everywhere. Where the seed leans on Python (int() of text, truthiness),
-- the decision ndlua takes is written beside the rule (and in
-- nd.train_yaml.values for the conversions).
-- @module nd.train_yaml

local core = require "nd.core"
local units = require "nd.units"
local check = require "nd.check"
local warnings_mod = require "nd.warnings"
local overrides = require "nd.overrides"
local keys = require "nd.train_yaml.keys"
local values = require "nd.train_yaml.values"
local dtypes = require "nd.train_yaml.dtypes"
local model_part = require "nd.train_yaml.model"
local runtimes = require "nd.runtimes"
local models = require "nd.model"
local runs = require "nd.run"

local train_yaml = {}

local CHOICES = core.types.run.choices
--- Pipeline schedules the C core runs, by the names a yaml gives (the
-- core's registry, src/core/layout.c PP_SCHEDULES).
train_yaml.SCHEDULES = CHOICES.pp_schedule
--- Context-parallel algorithms (colossalai_cp and hybrid_cp are ring
-- attention; the core's registry, src/core/run.c CP_ALGORITHMS).
train_yaml.CP_ALGOS = CHOICES.cp_algo
--- Activation checkpoint modes a trainer runs (the core's recompute modes).
train_yaml.AC_MODES = CHOICES.recompute
-- The modes a message names ("one of off, selective, full").
local AC_ACCEPTED = "one of " .. CHOICES.recompute.accepted
--- The device memory a run has when nothing states one, as messages name
-- it: "64GB", the whole GiB of nd.core.defaults.device_memory (src/core/run.h).
train_yaml.DEFAULT_DEVICE_MEMORY = string.format("%dGB", core.defaults.device_memory >> 30)
assert(units.parse_bytes(train_yaml.DEFAULT_DEVICE_MEMORY) == core.defaults.device_memory)

local function one_of(list, v)
  for _, x in ipairs(list) do
    if x == v then return true end
  end
  return false
end

--- The schema of a document: "automodels" or "legacy" (model-spec-census-train-yaml.md §e
-- `is_auto_models_schema`): a truthy model.pretrained_model_name_or_path,
-- or a root training, accelerator or fsdp_config section, even an empty one.
function train_yaml.schema(doc)
  local m = type(doc.model) == "table" and doc.model or {}
  if values.truthy(m.pretrained_model_name_or_path) then return "automodels" end
  for _, key in ipairs({ "training", "accelerator", "fsdp_config" }) do
    if doc[key] ~= nil then return "automodels" end
  end
  return "legacy"
end

-- The largest value the C core reads a run field as (src/binding/lnd_run.c's
-- run fields, nd.core.run_bounds): a key is bounded by it where it is read,
-- so that a value past it is refused at its file:line or option.
local run_bounds
local function run_max(field)
  run_bounds = run_bounds or core.run_bounds()
  return run_bounds[field][2]
end

-- reads: context.device_num, context.max_device_memory, context.visual_seq_len,
-- context.census, context.census_spec, context.expert_shard, context.moe_dispatch,
-- context.deepep, context.ep_node_limit
function train_yaml.read_context(r)
  local ctx = r:section(nil, "context")
  local out = { section = ctx }
  local v = r:value(ctx, "device_num")
  -- int(device_num or 0): 0 is "not stated".
  out.device_num = values.truthy(v) and r:integer(ctx, "device_num", v, 1, nil, core.limits.devices) or nil
  v = r:value(ctx, "max_device_memory")
  if v ~= nil then
    -- Decision: a size needs its unit; a bare 58 is no size a reader can be
    -- sure of (the seed would read str(58) as 58 bytes).
    local bytes = type(v) == "string" and v:match("%a") and units.parse_bytes(v)
    if not bytes or bytes <= 0 then
      r:fail(ctx, "max_device_memory", "is no memory size: " .. values.describe(v),
             "a size with its unit, such as 58GB or 64GiB (binary units)")
    end
    if bytes > core.limits.device_memory then
      r:fail(ctx, "max_device_memory", "is " .. v .. ", past the 1 PiB a device could hold",
             "a device's memory, such as 58GB or 64GiB")
    end
    out.device_memory, out.device_memory_text = bytes, v
  end
  v = r:value(ctx, "visual_seq_len")
  out.visual_seq_len = values.truthy(v) and r:integer(ctx, "visual_seq_len", v) or 0
  -- context.census: true (a census-<seq>.json beside the checkpoint's config)
  -- or the path of a census file (relative to the train.yaml)
  v = r:value(ctx, "census")
  if type(v) == "string" then
    out.census, out.census_file = true, v
  else
    out.census = r:flag(ctx, "census", v)
  end
  out.census_spec = r:flag(ctx, "census_spec", r:value(ctx, "census_spec"))
  v = r:value(ctx, "expert_shard")
  if v ~= nil and v ~= "group" then
    r:fail(ctx, "expert_shard", "takes 'group' or nothing, not " .. values.describe(v),
           "group (shard each strategy's routed experts over its whole expert data-parallel group)")
  end
  out.expert_shard_group = v == "group"
  v = r:value(ctx, "moe_dispatch")
  if v ~= nil then
    -- Unstated is unstated (the estimate keeps its measured default); 0
    -- switches the dispatch term off; a negative cost is refused.
    local n = r:number(ctx, "moe_dispatch", v)
    if n < 0 then r:fail(ctx, "moe_dispatch", "takes a cost, not " .. values.describe(v), "a number >= 0") end
    out.moe_dispatch = n
  end
  return train_yaml.read_deepep(r, ctx, out)
end

-- context.deepep, context.ep_node_limit (ndlua's own keys: HyperParallel's
-- schema names no expert dispatch kernel). deepep: the expert all-to-all
-- runs on DeepEP's internode kernels, as NeMo AutoModel's
-- model.backend.enable_deepep and Megatron's --moe-enable-deepep run it (a
-- token crosses the network once per destination node; src/core/timing.c
-- deepep_seconds). ep_node_limit: the most nodes a token's experts span
-- (DeepSeek-V3's node-limited routing), 0 for none; read with deepep only.
function train_yaml.read_deepep(r, ctx, out)
  out.deepep = r:flag(ctx, "deepep", r:value(ctx, "deepep"))
  local v = r:value(ctx, "ep_node_limit")
  if v ~= nil and not core.isnull(v) then
    out.ep_node_limit = r:integer(ctx, "ep_node_limit", v, 0, "a whole number of nodes from 0 (no limit)",
                                  run_max("ep_node_limit"))
    if not out.deepep then
      r:warn(ctx.path .. ".ep_node_limit", "is read with context.deepep: true only; without DeepEP "
             .. "the expert all-to-all is priced as the plain one")
    end
  end
  return out
end

-- The most devices a degree spans (the C core's run bound, src/core/nd_limits.h).
local MAX_DEGREE = core.limits.devices


-- A degree along a chain of keys: the first truthy one, else 1.
local function degree(r, ...)
  local v, sec, key = r:first(...)
  if v == nil then return 1 end
  return r:integer(sec, key, v, 1, nil, MAX_DEGREE)
end

local MAX_VPP = 64

local function bounded_degree(r, max, ...)
  local v, sec, key = r:first(...)
  if v == nil then return 1 end
  return r:integer(sec, key, v, 1, nil, max)
end

-- reads: accelerator (root) -> train.accelerator: tp_size -> tp_degree,
-- pp_size -> pipeline_parallel_degree, cp_size -> context_parallel_degree,
-- ep_size -> expert_parallel_degree, expert_tensor_parallel_degree,
-- pp_interleave_num, dp_shard, dp_replicate, sequence_parallel |
-- use_seq_parallel, pipeline_scheduler, context_parallel_algo, loss_parallel
function train_yaml.read_accelerator(r)
  local train = r:section(nil, "train")
  local a = r:section_chain({ nil, "accelerator" }, { train, "accelerator" })
  local out = { section = a }
  out.tp = degree(r, { a, "tp_size" }, { a, "tp_degree" })
  out.pp = degree(r, { a, "pp_size" }, { a, "pipeline_parallel_degree" })
  out.cp = degree(r, { a, "cp_size" }, { a, "context_parallel_degree" })
  out.ep = degree(r, { a, "ep_size" }, { a, "expert_parallel_degree" })
  local v = r:value(a, "expert_tensor_parallel_degree")
  out.etp = v and r:integer(a, "expert_tensor_parallel_degree", v, 0, nil, run_max("etp")) or 0
  -- the C core takes up to 64 chunks a stage (src/binding/lnd_run.c's run fields)
  out.vpp = bounded_degree(r, MAX_VPP, { a, "pp_interleave_num" })
  out.dp_shard = degree(r, { a, "dp_shard" })
  out.dp_replicate = degree(r, { a, "dp_replicate" })
  out.sequence_parallel = r:flag(a, "sequence_parallel", r:value(a, "sequence_parallel"))
    or r:flag(a, "use_seq_parallel", r:value(a, "use_seq_parallel"))
  v = r:value(a, "pipeline_scheduler")
  -- any case: the reference's files write "1F1B"
  local schedule = v and r:name(a, "pipeline_scheduler", v) or "1f1b"
  out.pp_schedule = check.choice(r:place(a, "pipeline_scheduler"), schedule, train_yaml.SCHEDULES,
                                 "pipeline schedule ndlua prices", true)
  out.loss_parallel = r:flag(a, "loss_parallel", r:value(a, "loss_parallel"))
  v = r:value(a, "context_parallel_algo")
  out.cp_algo_stated = values.truthy(v) and r:name(a, "context_parallel_algo", v) or nil
  if out.cp_algo_stated then
    check.choice(r:place(a, "context_parallel_algo"), out.cp_algo_stated, train_yaml.CP_ALGOS,
                 "context-parallel algorithm")
  end
  return out
end

-- reads: fsdp_config.dp_shard_size (-> accelerator.dp_shard),
-- fsdp_config.edp_shard_size, fsdp_config.reshard_after_forward,
-- fsdp_config.reshard_after_backward, fsdp_config.mix_precision.param_dtype
function train_yaml.read_fsdp(r, accel)
  local f = r:section(nil, "fsdp_config")
  local out = { section = f }
  local v, sec, key = r:first({ f, "dp_shard_size" })
  out.dp_shard = v and r:integer(sec, key, v, 1, nil, run_max("optimizer_shard")) or accel.dp_shard
  v = r:value(f, "edp_shard_size")
  out.edp_shard = values.truthy(v) and r:integer(f, "edp_shard_size", v, 1, nil, run_max("expert_shard")) or 1
  -- HyperParallel's FSDP frees a layer's gathered parameters after its
  -- forward and after its backward unless the run keeps them through either.
  local fwd, bwd = r:value(f, "reshard_after_forward"), r:value(f, "reshard_after_backward")
  out.reshard_params = (fwd == nil or r:flag(f, "reshard_after_forward", fwd))
    and (bwd == nil or r:flag(f, "reshard_after_backward", bwd))
  out.mix_precision = r:section(f, "mix_precision")
  -- HyperParallel's fully_shard offload keeps the sharded parameters, their
  -- gradients and the optimizer step on the host, as torch FSDP's CPUOffload
  -- does; the device holds the layers it gathers while they run.
  v = r:value(f, "enable_offload")
  out.offload_params = v ~= nil and r:flag(f, "enable_offload", v) or false
  return out
end

-- reads: compile.enabled. torch.compile fuses each norm and the SwiGLU
-- product into kernels that keep their inputs and fp32 statistics, not
-- eager PyTorch's upcast copies and intermediate products.
function train_yaml.read_compile(r)
  local c = r:section(nil, "compile")
  local v = r:value(c, "enabled")
  return v ~= nil and r:flag(c, "enabled", v) or false
end

-- reads: activation_swap (root): HyperParallel's attention swap, "none" or
-- "attention" (distributed/attention_swap.py): each self_attn module's saved
-- tensors are sent to the host after the next one's forward and brought
-- back a layer ahead in the backward (swap_attention). HyperParallel's
-- validate_attention_swap refuses it with activation checkpointing, with
-- torch.compile and under pipeline parallelism, and so does ndlua.
function train_yaml.read_activation_swap(r, recompute, compiled, pp)
  local v = r.doc.activation_swap
  if not values.present(v) then return false end
  local name = type(v) == "string" and v:lower() or nil
  if name == "none" then return false end
  if name ~= "attention" then
    r:fail(r.root, "activation_swap", values.describe(v) .. " is not an activation swap mode HyperParallel runs",
           "none or attention")
  end
  local why
  if recompute.full_recompute ~= false or recompute.selective_recompute ~= false then
    why = "with activation checkpointing (" .. recompute.mode_path .. ")"
  elseif compiled then
    why = "with torch.compile (compile.enabled)"
  elseif pp > 1 then
    why = "under pipeline parallelism (pp = " .. pp .. ")"
  end
  if why then
    r:fail(r.root, "activation_swap", "HyperParallel refuses activation_swap 'attention' " .. why,
           "activation_swap: none, or attention with no checkpointing, no compile and pp 1")
  end
  return true
end

-- Transformers' attention implementations, by whether the kernel is fused
-- (keeps its fp32 statistics, not the scores): sdpa (PyTorch picks its
-- flash, memory-efficient or cuDNN kernel, or torch_npu's fused attention),
-- the flash-attn packages and flex attention are; eager multiplies out the
-- scores, keeps their fp32 softmax and bf16 probabilities and repeats K and
-- V to the query heads.
train_yaml.ATTENTION_FUSED = { sdpa = true, flash_attention_2 = true, flash_attention_3 = true,
                               flex_attention = true, eager = false }

--- Whether the model's attention is a fused kernel: model.attn_implementation,
-- which the trainer hands to from_pretrained (Transformers' default, sdpa,
-- where unstated). A name ndlua does not know is priced fused, with a warning.
-- reads: model.attn_implementation (the seed forwards it and prices flash attention)
function train_yaml.read_attention(r)
  local m = r:section(nil, "model")
  local v = r:value(m, "attn_implementation")
  if not values.truthy(v) then return true end
  local name = r:name(m, "attn_implementation", v)
  local fused = train_yaml.ATTENTION_FUSED[name]
  if fused == nil then
    r:warn("model.attn_implementation", string.format("'%s' is no attention ndlua knows (eager, sdpa, "
      .. "flash_attention_2, flash_attention_3, flex_attention): priced as a fused kernel, which keeps no "
      .. "scores", name))
    return true
  end
  return fused
end

-- The data-parallel degree (seed `_resolve_data_parallel`): context.device_num,
-- else (AutoModels only) the device count of the command line (-d), divided
-- by tp x pp x cp; else dp_replicate x dp_shard, with a warning under
-- AutoModels when that assumes no replication.
function train_yaml.read_devices(r, auto, accel, fsdp, ctx, devices)
  local denom = accel.tp * accel.pp * accel.cp
  local count, source = ctx.device_num, "context.device_num"
  if count and devices and devices ~= count then
    r:warn("context.device_num", string.format("states %d devices, which wins over -d %d; "
      .. "override it with --context.device_num=%d", count, devices, devices))
  end
  if not count and devices then
    if auto then
      count, source = devices, "-d"
    elseif devices ~= accel.dp_replicate * fsdp.dp_shard * denom then
      r:warn("train.accelerator", string.format("-d %d is not read for a legacy train.* config, whose "
        .. "dp_replicate x dp_shard = %d states the data-parallel degree", devices, accel.dp_replicate * fsdp.dp_shard))
    end
  end
  if not count then
    if auto and accel.dp_replicate == 1 then
      r:warn("context.device_num", string.format("AutoModels config carries no context.device_num; assuming "
        .. "dp_replicate=1 (d = dp_shard_size = %d). Pass -d/--devices for HSDP runs.", fsdp.dp_shard))
    end
    return math.max(1, accel.dp_replicate * fsdp.dp_shard), "dp_replicate x dp_shard"
  end
  if count % denom ~= 0 then
    local message = string.format("%d devices are not divisible by tp x pp x cp = %d x %d x %d = %d", count,
                                  accel.tp, accel.pp, accel.cp, denom)
    local accepted = "a device count that is a multiple of tp x pp x cp"
    if source == "-d" then check.option("-d"):fail(message, accepted) end
    r:fail(ctx.section, "device_num", message, accepted)
  end
  local dp = count // denom
  if fsdp.dp_shard > 1 and dp % fsdp.dp_shard ~= 0 then
    r:warn(fsdp.section.path .. ".dp_shard_size", string.format("shards over %d ranks, which do not divide the "
      .. "data-parallel degree %d (%s %d / tp x pp x cp %d)", fsdp.dp_shard, dp, source, count, denom))
  end
  return dp, source
end

-- reads: accelerator.enable_parallel_optimizer (legacy only),
-- accelerator.optimizer_weight_shard_size, accelerator.gradient_accumulation_shard
-- (seed `_parse_optimizer_parallelism`). HyperParallel's FSDP holds every
-- gradient sharded as its parameter from the first backward to the step.
function train_yaml.read_sharding(r, auto, accel, fsdp, dp)
  local a = accel.section
  local out = {}
  if auto then
    out.optimizer_parallel = fsdp.dp_shard > 1
  else
    local v = r:value(a, "enable_parallel_optimizer")
    out.optimizer_parallel = v == nil or r:flag(a, "enable_parallel_optimizer", v)
  end
  local v = r:value(a, "optimizer_weight_shard_size")
  local stated = values.truthy(v) and r:integer(a, "optimizer_weight_shard_size", v, 1, nil, run_max("optimizer_shard"))
    or nil
  out.optimizer_shard = math.max(1, stated or (auto and fsdp.dp_shard or dp))
  out.grad_shard = r:flag(a, "gradient_accumulation_shard", r:value(a, "gradient_accumulation_shard"))
  out.grad_shard_as_params = true
  -- The AutoModels dp_shard_size spans the DP x CP domain, so CP shards no
  -- parameter state beyond it.
  out.shard_spans_cp = auto
  out.grad_accumulation = true
  out.deferred_grad_accumulation = true
  out.overlapped_grad_reduce = true
  out.reshard_params = fsdp.reshard_params
  -- It gathers the weights in the compute dtype and keeps no cast of them.
  out.param_casts = false
  return out
end

-- reads: fsdp_config.edp_shard_size, context.expert_shard (AutoModels only;
-- the legacy schema states neither and the family's rule applies)
function train_yaml.read_expert_shard(r, auto, fsdp, ctx)
  if not auto then
    if ctx.expert_shard_group then
      r:warn("context.expert_shard", "is read under the AutoModels schema only; this legacy config is priced "
             .. "by the family's expert sharding")
    end
    return {}
  end
  return { expert_shard = fsdp.edp_shard, expert_shard_group = ctx.expert_shard_group }
end

-- reads: training (root) -> train: micro_batch_size, micro_batch_num,
-- global_batch_size. micro_batch_num unstated (or 0) is the global batch
-- over micro_batch_size x dp, else the pipeline degree.
function train_yaml.read_batch(r, dp, pp)
  local t = r:section_chain({ nil, "training" }, { nil, "train" })
  local function count(key)
    local v = r:value(t, key)
    if not values.truthy(v) then return 0 end
    return r:integer(t, key, v, 1, nil, run_max(key))
  end
  local micro = math.max(1, count("micro_batch_size"))
  -- Decision: a global batch that is no multiple of micro_batch_size x dp,
  -- or disagrees with a stated micro_batch_num, is refused (the seed
  -- priced pp micro-batches and kept the global batch it could not split).
  -- The rule and its messages: nd.run's run.batch; a step past the core's
  -- bound is nd.run's to refuse.
  local num, gbs, problem = runs.batch(micro, dp, pp, count("global_batch_size"), count("micro_batch_num"))
  if problem and problem.key then r:fail(t, problem.key, problem.message, problem.accepted) end
  return { micro_batch_size = micro, micro_batch_num = num, global_batch_size = gbs }
end

-- reads: optimizer (root) -> train.optimizer: _target_ -> type,
-- fp32_main_params. The optimizer's name decides the states it keeps a
-- parameter (Muon one momentum, AdamW two moments); each is zeros_like the
-- gradient, held in the stored parameters' dtype, unless fp32_main_params
-- keeps an fp32 copy of each narrower parameter and the states in fp32.
-- mixed_precision.enabled (root) -> train.mixed_precision.enabled: true
-- states the same as fp32_main_params (the trainer's mixed precision keeps
-- fp32 master weights and optimizer states beside the narrower model).
function train_yaml.read_optimizer(r, stored_bytes)
  local train = r:section(nil, "train")
  local o = r:section_chain({ nil, "optimizer" }, { train, "optimizer" })
  local mp = r:section_chain({ nil, "mixed_precision" }, { train, "mixed_precision" })
  local mixed = r:flag(mp, "enabled", r:value(mp, "enabled"))
  local v, sec, key = r:first({ o, "_target_" }, { o, "type" })
  local name
  if v == nil then
    r:warn(o.path .. "._target_", "the config states no optimizer: it is priced as adamw, two states a parameter")
    name = "adamw"
  else
    -- The class's own name: hyper_parallel.components.optim.Muon -> muon.
    local stated = r:name(sec, key, v)
    name = stated:match("([^.]+)$")
    if not name then
      r:fail(sec, key, "names no optimizer class: " .. values.describe(v),
             "a class path such as torch.optim.AdamW or hyper_parallel.components.optim.Muon")
    end
    name = name:lower()
  end
  local fp32_main = r:flag(o, "fp32_main_params", r:value(o, "fp32_main_params")) or mixed
  return {
    section = o,
    optimizer = name,
    optimizer_states = runs.optimizer_states(name),
    optimizer_state_bytes = fp32_main and 4 or stored_bytes,
    main_param_bytes = (fp32_main and stored_bytes < 4) and 4 or 0,
  }
end

-- reads: training.max_grad_norm (-> train.max_grad_norm) -> optimizer.max_grad_norm
function train_yaml.read_grad_clip(r, optimizer_section)
  local t = r:section_chain({ nil, "training" }, { nil, "train" })
  local v, sec, key = r:first({ t, "max_grad_norm" }, { optimizer_section, "max_grad_norm" })
  return { grad_clip = v ~= nil and r:number(sec, key, v) > 0 }
end

-- A per-stage form (an offset, config_overrides.full_rec / sel_rec): a list of
-- one whole number per stage, or vpp such lists (one per chunk), each at least
-- `min`; nd.run settles its shape (nd.run.stage_rows), with the messages
-- naming the yaml key. Returns the list and the sum of its entries.
local function per_stage_list(r, sec, key, v, pp, vpp, min, accepted)
  local _, sum = runs.stage_rows(v, pp, vpp, {
    length = function(n, nested, wanted)
      r:fail(sec, key, string.format("lists %d %s; the run has %d", n, nested and "chunks" or "stages", wanted),
             accepted)
    end,
    row = function() r:fail(sec, key, "must list one entry per stage (" .. pp .. ") in each chunk", accepted) end,
    entry = function(x) return r:integer(sec, key, x, math.max(min, -core.limits.layers), accepted, core.limits.layers) end,
  })
  return v, sum
end

-- The section of model.config_overrides (else model) stating a run key.
local function run_key_section(r, key)
  local m = r:section(nil, "model")
  local over = r:section(m, "config_overrides")
  return r:value(over, key) ~= nil and over or m
end

-- reads: activation_checkpoint.mode -> train.gradient_checkpointing.activation_checkpoint,
-- activation_checkpoint.recompute_slice_activation -> fsdp_config.recompute_slice_activation
-- -> train.gradient_checkpointing.recompute_slice_activation,
-- model.config_overrides.full_rec / sel_rec (which win over the mode)
function train_yaml.read_recompute(r, run_keys, pp, vpp)
  local train = r:section(nil, "train")
  local gc = r:section(train, "gradient_checkpointing")
  local ac = r:section(nil, "activation_checkpoint")
  local sec, key = ac, "mode"
  if r:value(ac, "mode") == nil then sec, key = gc, "activation_checkpoint" end
  local v = sec.t[key]
  local mode
  -- As the trainer reads it: an unquoted off (YAML's false) is off, not a
  -- fall through to the legacy key; a name that is no mode is refused.
  if not values.present(v) or v == false then
    mode = "off"
  elseif type(v) == "string" then
    mode = v:lower()
    if mode == "none" then mode = "off" end
    if mode == "auto" then
      r:fail(sec, key, "'auto' is the search's recompute dimension, not one mode a run trains with",
             AC_ACCEPTED)
    elseif not one_of(train_yaml.AC_MODES, mode) then
      r:fail(sec, key, values.describe(v) .. " is not an activation checkpoint mode", AC_ACCEPTED)
    end
  elseif type(v) == "table" then
    r:fail(sec, key, values.describe(v) .. " is a list of modes, the search's recompute dimension, not one mode "
           .. "a run trains with", AC_ACCEPTED)
  else
    r:fail(sec, key, values.describe(v) .. " is not an activation checkpoint mode", AC_ACCEPTED)
  end
  local fsdp = r:section(nil, "fsdp_config")
  local slice_v, slice_sec = nil, nil
  for _, s in ipairs({ ac, fsdp, gc }) do
    if r:value(s, "recompute_slice_activation") ~= nil then
      slice_v, slice_sec = s.t.recompute_slice_activation, s
      break
    end
  end
  local full, sel = run_keys.full_rec, run_keys.sel_rec
  for _, key in ipairs { "full_rec", "sel_rec" } do
    local v = run_keys[key]
    if v ~= nil and type(v) ~= "boolean" then
      local sec = run_key_section(r, key)
      local accepted = string.format("true, false, a count of layers, a list of one per stage (pp = %d), or "
        .. "vpp = %d such lists", pp, vpp)
      if type(v) == "table" then per_stage_list(r, sec, key, v, pp, vpp, 0, accepted)
      else r:integer(sec, key, v, 0, accepted) end
    end
  end
  if full == nil then full = mode == "full" end
  if sel == nil then sel = mode == "selective" end
  return {
    full_recompute = full,
    selective_recompute = sel,
    selective_rule = "hyperparallel",
    recompute_slice_activation = slice_v ~= nil and r:flag(slice_sec, "recompute_slice_activation", slice_v) or false,
    -- The mode the run trains with; nil where config_overrides states
    -- per-stage recompute instead.
    stated_ac_mode = (run_keys.full_rec == nil and run_keys.sel_rec == nil) and mode or nil,
    mode_path = sec.path .. "." .. key,
  }
end

-- reads: fsdp_config.mix_precision.param_dtype, model_init_dtype, model.torch_dtype,
-- model.param_init_type, model.compute_dtype, model.softmax_compute_type
-- (in nd.train_yaml.dtypes, beside the dtype names it reads)
train_yaml.read_dtypes = dtypes.read

-- reads: dataset.data_transform.max_seq_len -> dataset.data_config.seq_length
-- -> data.max_seq_len; else the model's context limit
-- (max_position_embeddings, else config_overrides.seq_length, else 4096)
-- with a warning
function train_yaml.read_sequence(r, spec, run_keys)
  local dataset = r:section(nil, "dataset")
  local v, sec, key = r:first({ r:section(dataset, "data_transform"), "max_seq_len" },
                              { r:section(dataset, "data_config"), "seq_length" },
                              { r:section(nil, "data"), "max_seq_len" })
  if v ~= nil then
    return { seq_length = r:integer(sec, key, v), seq_len_stated = true, seq_len_path = sec.path .. "." .. key }
  end
  local limit = spec.max_position_embeddings
  if not limit and values.truthy(run_keys.seq_length) then
    limit = r:integer(r:section(r:section(nil, "model"), "config_overrides"), "seq_length", run_keys.seq_length)
  end
  limit = limit or 4096
  r:warn("dataset.data_transform.max_seq_len", string.format("no training sequence length in the config; costing "
    .. "the model context limit of %d. Set dataset.data_transform.max_seq_len (Online) or "
    .. "dataset.data_config.seq_length (Indexed).", limit))
  return { seq_length = limit, seq_len_stated = false }
end

-- reads: model.config_overrides.capacity_factor -> cap_fact,
-- model.config_overrides.use_gmm -> gmm (MoE models only); the expert TP
-- degree of a MoE model that states none is 1
function train_yaml.read_moe(r, spec, run_keys, etp)
  if (spec.num_experts or 1) <= 1 then return { grouped_gemm = false, capacity_factor = 1 } end
  local over = r:section(r:section(nil, "model"), "config_overrides")
  local out = {}
  local cap_key = run_keys.capacity_factor ~= nil and "capacity_factor" or "cap_fact"
  local cap = run_keys[cap_key]
  out.capacity_factor = cap == nil and 1 or math.max(1, r:number(over, cap_key, cap))
  if out.capacity_factor > run_max("capacity_factor") then
    r:fail(over, cap_key, string.format("must be at most %d, got %s", run_max("capacity_factor"), values.describe(cap)),
           "a capacity factor such as 1.25")
  end
  local gmm_key = run_keys.use_gmm ~= nil and "use_gmm" or "gmm"
  local gmm = run_keys[gmm_key]
  out.grouped_gemm = gmm == nil or r:flag(over, gmm_key, gmm)
  if etp == 0 then out.etp = 1 end
  return out
end

-- reads: model.config_overrides.offset -> model.offset. A list is taken as
-- it is, 0 as 0, another whole number k as k on every stage. Unstated, the
-- seed's balanced offset: the first (layers mod pp) stages one layer more
-- (MTP layers counted); under VPP the C core balances the chunks itself, so
-- the offset is left unstated (the seed's all-zero list would not place
-- every layer).
function train_yaml.read_offset(r, run_keys, pp, vpp, layers)
  local v = run_keys.offset
  if v ~= nil then
    local sec = run_key_section(r, "offset")
    local accepted = string.format("a whole number, a list of one per stage (pp = %d), or vpp = %d such lists",
                                   pp, vpp)
    local list, sum
    if type(v) == "table" then
      list, sum = per_stage_list(r, sec, "offset", v, pp, vpp, -(1 << 30), accepted)
    else
      local k = r:integer(sec, "offset", v, -(1 << 30), accepted)
      if k == 0 then return 0 end
      list, sum = {}, k * pp
      for i = 1, pp do list[i] = k end
    end
    -- the stages take layers // pp // vpp a chunk, plus the offsets, which
    -- must therefore add up to what that even split leaves over
    local per = layers // pp // vpp
    if per * pp * vpp + sum ~= layers then
      r:fail(sec, "offset", string.format("places %d layers (%d stages x %d chunks of %d, plus offsets adding "
        .. "to %d), but the model has %d", per * pp * vpp + sum, pp, vpp, per, sum, layers),
        string.format("offsets adding to %d", layers - per * pp * vpp))
    end
    return list
  end
  if vpp > 1 then return nil end
  local extra = layers % pp
  local list = {}
  for i = 1, pp do list[i] = (i <= extra) and 1 or 0 end
  return list
end

-- reads: plan_overrides (root list): the entries that replace a module
-- (replace_module) on every run (no `when`), which a census runs its
-- layers with; ndlua notes them for the census
function train_yaml.read_plan_overrides(r)
  local v = r.doc.plan_overrides
  if not values.present(v) then return {} end
  if type(v) ~= "table" or (next(v) ~= nil and v[1] == nil) then
    r:fail(r.root, "plan_overrides", "must be a list of entries", "a list of {match, module_type, replace_module}")
  end
  local out = {}
  for i, entry in ipairs(v) do
    local sec = { t = type(entry) == "table" and entry or {}, path = "plan_overrides[" .. (i - 1) .. "]",
                  stated = type(entry) == "table" }
    if type(entry) == "table" and values.present(entry.replace_module) and not values.present(entry.when) then
      if not values.truthy(entry.module_type) then
        r:fail(sec, "replace_module", "states replace_module without module_type",
               "the class it replaces, as module_type: transformers.models....")
      end
      local target = entry.replace_module
      if type(target) == "table" then target = target._target_ end
      local match = entry.match
      if type(match) ~= "table" then match = { match } end
      out[#out + 1] = { index = i - 1, match = match, module_type = entry.module_type, target = target }
    end
  end
  return out
end

local function copy_into(dst, src, keys)
  for _, k in ipairs(keys) do
    if src[k] ~= nil then dst[k] = src[k] end
  end
end

-- The run table for nd.run from the parts read.
local function run_table(p)
  local run = {}
  copy_into(run, p.accel, { "tp", "pp", "cp", "ep", "etp", "vpp", "sequence_parallel", "pp_schedule",
                            "loss_parallel" })
  run.dp = p.dp
  for _, part in ipairs({ p.sharding, p.expert, p.batch, p.moe, p.grad_clip }) do
    for k, v in pairs(part) do run[k] = v end
  end
  copy_into(run, p.recompute, { "full_recompute", "selective_recompute", "selective_rule",
                                "recompute_slice_activation" })
  copy_into(run, p.optimizer, { "optimizer", "optimizer_states", "optimizer_state_bytes", "main_param_bytes" })
  copy_into(run, p.dtypes, { "param_bytes", "grad_bytes", "compute_bytes", "softmax_bytes" })
  run.cp_algo = p.accel.cp_algo_stated or "colossalai_cp"
  run.flash_attention, run.vocab_emb_dp, run.frozen, run.emb_dp_sharded = p.flash_attention ~= false, true, false, true
  run.tie_embeddings = p.spec.tie_word_embeddings == true
  run.shard_mtp_param, run.seq_split = true, 1
  run.offset = p.offset
  run.runtime = p.runtime
  -- expert_tensor_parallel_degree 0 or 1 is "none" in a train.yaml (the reference's
  -- reading), whatever runtime trains it: a runtime that reads a stated etp 1 as the
  -- experts' degree (parallelism.expert_folding) does not read the 1 read_moe writes
  if run.etp == 1 and runtimes.load(p.runtime, "--runtime").run.expert_folding then
    run.expert_folding = false
  end
  if p.fsdp.offload_params then run.offload_params = true end
  if p.swap_attention then run.swap_attention = true end
  if p.ctx.deepep then run.deepep, run.ep_node_limit = true, p.ctx.ep_node_limit end
  -- torch.compile fuses the norms, the SwiGLU product and Transformers'
  -- rotate_half rotary embedding (real-valued element-wise ops)
  if p.compiled then run.fused_norm, run.fused_swiglu, run.rope = true, true, "fused" end
  run.mtp_in_offset = (p.spec.mtp_depth or 0) > 0
  run.seq_length = p.sequence.seq_length
  run.device_memory = p.device_memory
  if p.ctx.visual_seq_len > 0 and p.spec.vision then run.visual_seq_length = p.ctx.visual_seq_len end
  if p.freeze_vision then run.freeze_vision = true end
  return run
end

-- The sequence length a census is taken at: the dataset's, else 4096
-- (the seed's census length).
local function census_seq_length(p)
  return p.sequence.seq_len_stated and p.sequence.seq_length or 4096
end

local read_parts, device_memory_of, check_expert_degree

-- Keys only MindFormers' yaml schema has at its root (run_mode,
-- parallel_config, runner_config, ...), or under model (model_config).
local MINDFORMERS_ROOT = { "parallel_config", "runner_config", "recompute_config", "moe_config", "run_mode",
                          "use_parallel", "micro_batch_interleave_num" }

--- Refuses a MindFormers-schema yaml (sapp_nd's *-mindformers.yaml): ndlua
-- reads HyperParallel's train.yaml, whose keys are other; read as one, such
-- a file would price a model and strategy it does not state.
function train_yaml.refuse_mindformers(doc, file)
  if type(doc) ~= "table" then return end
  local found, where_t
  if type(doc.model) == "table" and type(doc.model.model_config) == "table" then
    found, where_t = "model.model_config", doc.model
  end
  for _, k in ipairs(MINDFORMERS_ROOT) do
    if not found and doc[k] ~= nil then found, where_t = k, doc end
  end
  if not found or doc.training ~= nil or doc.accelerator ~= nil or type(doc.train) == "table" then return end
  local key = found:match("[^.]+$")
  check.key(where_t, key, found, { file = file }):fail(
    "MindFormers schema is not read: this file states its model under model.model_config and its "
      .. "strategy under parallel_config, where ndlua reads a HyperParallel train.yaml (model, accelerator, "
      .. "training, fsdp_config)",
    "a HyperParallel train.yaml (see examples/), e.g. parallel_config.model_parallel as "
      .. "accelerator.tp_size, pipeline_stage as pp_size, data_parallel x model_parallel x pipeline_stage as "
      .. "context.device_num, and the model as model.pretrained_model_name_or_path or model.config_overrides")
end

--- Reads a loaded train.yaml. The document is the reader's to change: the
-- overrides are laid over it, and a legacy VLM's config_overrides.text_config
-- is folded into config_overrides.
-- @tparam table doc the document (nd.yaml.load; overrides already applied
--   with nd.overrides, or given in opts.overrides)
-- @tparam[opt] table opts `file` (for messages), `devices` (-d),
--   `device_memory` (-M, bytes or text; wins over context.max_device_memory),
--   `warnings` (a collector; default one printing to stderr), `runtime` (a
--   runtime profile's name, --runtime; default hyperparallel), `overrides`
--   (`{["section.key"] = value}` or a list from nd.overrides.split)
-- @treturn table `{model = settled spec, run = run table for nd.run, source,
--   schema, mtp_unpriced, replacements, seq_len_stated, stated_ac_mode,
--   vision, census, moe_dispatch, dp_source, warnings (the collector)}`
function train_yaml.parse(doc, opts)
  opts = opts or {}
  if type(doc) ~= "table" or doc[1] ~= nil then
    check.key(nil, nil, nil, { file = opts.file }):fail("a train.yaml is a mapping of sections, got "
      .. (type(doc) == "table" and "a list" or values.describe(doc)))
  end
  if opts.overrides then overrides.apply(doc, overrides.list_of(opts.overrides)) end
  train_yaml.refuse_mindformers(doc, opts.file)
  local w = opts.warnings or warnings_mod.new()
  local r = values.reader(doc, { file = opts.file, warnings = w })
  local schema = train_yaml.schema(doc)
  local p, resolved = read_parts(r, schema == "automodels", opts)
  keys.check(r)
  return {
    model = p.spec, run = run_table(p), source = resolved.source, schema = schema,
    mtp_unpriced = resolved.mtp_unpriced, replacements = p.replacements,
    seq_len_stated = p.sequence.seq_len_stated, stated_ac_mode = p.recompute.stated_ac_mode,
    stated_ac_path = p.recompute.mode_path,
    vision = resolved.vision, moe_dispatch = p.ctx.moe_dispatch, dp_source = p.dp_source,
    device_memory_source = p.device_memory_source, device_memory_shown = p.device_memory_shown,
    census = { requested = p.ctx.census, spec = p.ctx.census_spec,
               seq_length = p.ctx.census and census_seq_length(p) or nil },
    warnings = w,
  }
end

-- The directory of a file path ("." for a bare name).
local function dirname(path)
  return path and path:match("^(.*)/[^/]*$") or "."
end

-- context.census: the census records laid over the model spec. A stated
-- file is read (relative to the train.yaml); `true` looks for
-- census-<seq>.json beside the checkpoint's config, at the dataset's
-- sequence length else 4096 (the seed's census length). Records the model
-- states itself (config_overrides.activations) win. Without a record the
-- layers are priced by formulas, with a warning saying how to measure them.
local function with_census(r, p, resolved, opts)
  local seq = census_seq_length(p)
  local path = p.ctx.census_file
  if path and path:sub(1, 1) ~= "/" then path = dirname(opts.file) .. "/" .. path end
  if not path then
    local source = resolved.source or {}
    path = source.path and require("nd.census").beside(dirname(source.path), seq)
    if not path then
      local where = source.path and dirname(source.path) or "the checkpoint's directory"
      r:warn("context.census", string.format("no census-%d.json beside %s: the layers are priced by formulas; "
        .. "measure them with scripts/census.py MODEL --seq-len %d --out %s/census-%d.json", seq, where, seq,
        where, seq))
      return p.spec
    end
  end
  local census = require "nd.census" -- loaded here: most runs read no census
  local records = census.load(path)
  local kinds = {}
  for _, group in ipairs(p.spec.layers or {}) do kinds[group.kind] = true end
  require("nd.census.record").check_kinds(records.activations, kinds)
  return census.attach(p.spec, records)
end

--- Where a capacity came from, as output states it: the source and the size
-- as written, and how its unit is read ("-M 80GB, GB read as GiB, 2^30 bytes").
function train_yaml.memory_source(label, text)
  local shown = text and (label .. " " .. tostring(text)) or label
  local note = units.unit_note(text)
  return note and (shown .. ", " .. note) or shown
end

-- The device capacity: -M (opts.device_memory, with opts.device_memory_text
-- as written), else context.max_device_memory, else opts.fallback_memory
-- ({bytes, label, text}: the device -A names), else the default. Returns
-- bytes, where from ("-M", "context.max_device_memory", the fallback's label
-- or "the default 64GB") and the source as output states it, with the size
-- as written and how its unit is read.
function device_memory_of(ctx, opts)
  if opts.device_memory then
    local text = opts.device_memory_text or (type(opts.device_memory) == "string" and opts.device_memory or nil)
    return units.parse_bytes(opts.device_memory), "-M", train_yaml.memory_source("-M", text)
  end
  if ctx.device_memory then
    return ctx.device_memory, "context.max_device_memory",
      train_yaml.memory_source("context.max_device_memory", ctx.device_memory_text)
  end
  local f = opts.fallback_memory
  if f then return f.bytes, f.label, train_yaml.memory_source(f.label, f.text) end
  return units.parse_bytes(train_yaml.DEFAULT_DEVICE_MEMORY), "the default " .. train_yaml.DEFAULT_DEVICE_MEMORY,
    train_yaml.memory_source("the default", train_yaml.DEFAULT_DEVICE_MEMORY)
end

-- The expert degree must split the routed experts evenly: an ep past the
-- experts (1000000 for 128) or not dividing them (3 for 128) is no layout a
-- trainer builds, and pricing it would put a fraction of an expert on a
-- device. (An ep the data-parallel ranks cannot hold is the seed's clamping
-- warning, in train_yaml.build.)
function check_expert_degree(r, accel, spec)
  local ep, experts = accel.ep, spec.num_experts or 0
  if ep <= 1 then return end
  local sec = accel.section
  local key = values.truthy(r:value(sec, "ep_size")) and "ep_size" or "expert_parallel_degree"
  if experts <= 1 then
    r:warn(sec.path .. "." .. key, string.format("is %d, but the model has no routed experts: it splits nothing", ep))
    return
  end
  if ep > experts or experts % ep ~= 0 then
    local ok = {}
    for d = 1, experts do
      if experts % d == 0 and #ok < 12 then ok[#ok + 1] = tostring(d) end
    end
    r:fail(sec, key, string.format("%d does not divide the model's %d routed experts", ep, experts),
           "a divisor of " .. experts .. " (" .. table.concat(ok, ", ") .. (#ok == 12 and ", ..." or "") .. ")")
  end
end

-- Reads every section, in the seed's order: the context and the model
-- first (the run's defaults depend on the model), then the run.
function read_parts(r, auto, opts)
  local p = { ctx = train_yaml.read_context(r) }
  local resolved = model_part.resolve(r, auto, p.ctx)
  local spec = resolved.spec
  p.spec = spec
  p.accel = train_yaml.read_accelerator(r)
  p.fsdp = train_yaml.read_fsdp(r, p.accel)
  -- the runtime that trains it: HyperParallel unless the command line names another
  p.runtime = opts.runtime and runtimes.load(opts.runtime, "--runtime").name or runtimes.TRAIN_YAML
  p.dp, p.dp_source = train_yaml.read_devices(r, auto, p.accel, p.fsdp, p.ctx, opts.devices)
  p.sharding = train_yaml.read_sharding(r, auto, p.accel, p.fsdp, p.dp)
  p.expert = train_yaml.read_expert_shard(r, auto, p.fsdp, p.ctx)
  p.batch = train_yaml.read_batch(r, p.dp, p.accel.pp)
  p.dtypes = train_yaml.read_dtypes(r, auto, spec, p.fsdp.mix_precision)
  p.optimizer = train_yaml.read_optimizer(r, p.dtypes.stored_bytes)
  p.grad_clip = train_yaml.read_grad_clip(r, p.optimizer.section)
  if p.accel.cp > 1 and not p.accel.cp_algo_stated then
    r:warn(p.accel.section.path .. ".context_parallel_algo", "context_parallel_algo not set; defaulting to "
      .. "'colossalai_cp' (Ring CP). Set it to 'ulysses_cp' explicitly if Ulysses CP is intended.")
  end
  p.recompute = train_yaml.read_recompute(r, resolved.run_keys, p.accel.pp, p.accel.vpp)
  p.moe = train_yaml.read_moe(r, spec, resolved.run_keys, p.accel.etp)
  check_expert_degree(r, p.accel, spec)
  p.offset = train_yaml.read_offset(r, resolved.run_keys, p.accel.pp, p.accel.vpp,
                                    spec.num_hidden_layers + (spec.mtp_depth or 0))
  p.sequence = train_yaml.read_sequence(r, spec, resolved.run_keys)
  p.device_memory, p.device_memory_source, p.device_memory_shown = device_memory_of(p.ctx, opts)
  p.freeze_vision = resolved.freeze_vision
  p.replacements = train_yaml.read_plan_overrides(r)
  p.compiled = train_yaml.read_compile(r)
  p.flash_attention = train_yaml.read_attention(r)
  p.swap_attention = train_yaml.read_activation_swap(r, p.recompute, p.compiled, p.accel.pp)
  if p.ctx.census then
    p.spec = with_census(r, p, resolved, opts)
  end
  return p, resolved
end

--- The nd.model and nd.run of a parsed train.yaml, with the warning the
-- seed's derive raises where the expert degrees cannot hold the experts
-- (the C core clamps them rather than refusing: a search still reaches the
-- strategy and rejects it by memory).
-- @treturn userdata nd.model
-- @treturn userdata nd.run
function train_yaml.build(parsed)
  local m, run = models.new(parsed.model), runs.new(parsed.run)
  local derived = run:derived(m)
  if derived.experts_clamped then
    local r = parsed.run
    parsed.warnings:warn("accelerator.ep_size", string.format("expert degrees invalid for dp=%d tp=%d ep=%d "
      .. "etp=%d experts=%d; clamping to minimum values", r.dp, r.tp, r.ep, r.etp, parsed.model.num_experts or 1))
  end
  return m, run
end

--- Loads and reads a train.yaml (see parse for opts and the result).
function train_yaml.load(path, opts)
  opts = opts or {}
  local doc = core.yaml.load(path)
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  o.file = o.file or path
  return train_yaml.parse(doc, o)
end

return train_yaml
