--- The command line of search.lua and what it resolves to: the options
-- (one table gives the parser and --help), the train.yaml or search config
-- read for the search, the devices, global batch, memory budget, recompute
-- modes and dimensions, each from the first place that states it.
-- @module nd.search.command

local core = require "nd.core"
local cli = require "nd.cli"
local errors = require "nd.errors"
local overrides = require "nd.overrides"
local units = require "nd.units"
local files = require "nd.files"
local search = require "nd.search"
local search_base = require "nd.search.base"
local search_config = require "nd.search.config"
local model_keys = require "nd.search.config.model_keys"
local model_yaml = require "nd.model_yaml"
local train_yaml = require "nd.train_yaml"
local hardware = require "nd.hardware"
local policies = require "nd.policies"
local runtimes = require "nd.runtimes"

local command = {}

local COMMAND = {
  usage = "ndlua search.lua TRAIN_YAML|MODEL [options] [--section.key=value ...]",
  about = "Searches the parallel strategies (DP, TP, PP, VPP, CP, EP, OP (FSDP), SP, micro-batches, recompute)\n"
    .. "of the model a HyperParallel train.yaml trains, prices each one's memory per device, drops those over\n"
    .. "the budget, estimates the step time of the rest and ranks them by a policy. Writes the best into\n"
    .. "resolved.yaml. MODEL (a hub id such as deepseek-ai/DeepSeek-V3, or a checkpoint directory) stands for\n"
    .. "the train.yaml -d, -b, --seq and --zero imply (see --print-yaml). --section.key=value sets a key of the\n"
    .. "yaml before it is read.",
  options = {
    { name = "devices", short = "d", arg = "N", help = "devices (default: the yaml's context.device_num)" },
    { name = "global-batch", short = "b", arg = "B", help = "global batch in sequences (default: the yaml's)" },
    { name = "max-memory", short = "M", arg = "SIZE",
      help = "device memory cap with its unit, such as 58GB or 60GiB (GB read as GiB; default: context.max_device_memory, else the device's)" },
    { name = "reserve", short = "mem", arg = "SIZE", help = "memory kept free, taken off the cap (default 0)" },
    { name = "device-type", short = "A", arg = "NAME", help = "hardware profile (default A2; see below)" },
    { name = "dims", short = "l", arg = "DIM...", list = true, item = "^%w+$",
      help = "dimensions searched: " .. search.listed_text(" ") .. " (default all); the others keep the "
        .. "yaml's, but MB and DP always vary: DP fills the devices the others leave" },
    { name = "top", short = "t", arg = "N", default = 10, help = "candidates shown" },
    { name = "jobs", short = "j", arg = "N", default = 0,
      help = "threads the search runs on, 0 for every online core; any N gives the same result" },
    { name = "search-config", short = "s", arg = "FILE", help = "a search config (search.yaml)" },
    { name = "recompute", arg = "MODES", list = true, item = "^%a+$",
      help = "recompute modes priced: " .. table.concat(search.MODES, ",")
        .. " or auto (default: context.recompute, else the yaml's)" },
    { name = "policy", arg = "NAME|FILE", help = "ranking policy (default throughput; see below)" },
    { name = "calibration", short = "c", arg = "FILE", help = "rank and keep by the estimates with a calibration "
      .. "file's per-part ratios laid on (compare.lua --write-calibration); the header says so" },
    { name = "runtime", arg = "NAME",
      help = "the training runtime priced (default hyperparallel; estimate.lua --help lists them)" },
    { name = "output-dir", short = "o", arg = "DIR", default = ".", help = "where resolved.yaml goes" },
    { name = "json", help = "print one JSON document instead of the tables" },
    { name = "csv", arg = "FILE", help = "write every fitting candidate to FILE" },
    { name = "csv-limit", arg = "N",
      help = "write at most the first N fitting candidates (in rank order) to the --csv FILE" },
    { name = "svg", arg = "FILE", help = "write a chart of the top candidates to FILE" },
    { name = "balance", help = "price pipelined candidates with their balanced plan: per-stage layers and "
      .. "recompute (balance.lua); the memory filter and the ranking see it; a candidate whose even split fits "
      .. "takes the plan only where it ranks before that split by the policy (memory: a lower peak, or equal and a "
      .. "faster step; else a faster step) (default: the search config's balance, else context.balance)" },
    { name = "balance-limit", arg = "N", help = "with --balance: the most pipelined candidates balanced "
      .. "(default: every one its bound does not prune, ranking by step, peak or nd_score; 64 in rank order under "
      .. "a policy with a score function, which no bound orders)" },
    { name = "plan", short = "k", arg = "N", help = "with --balance: write the Nth ranked candidate's plan "
      .. "(layers, recompute lists, the balancer's problem) to plan-N.json in -o" },
    { name = "offload", short = "ao", help = "with --balance: the plans' plain layers may offload their "
      .. "activations to the host (balance.lua --offload; default: the search config's offload, else "
      .. "context.offload)" },
    { name = "auto-offload", help = "the same as --offload (the reference's name)" },
    { name = "host-link-gibps", arg = "G", help = "with --offload: the host link's GiB/s each way (default the "
      .. "profile's)" },
    { name = "host-link-overlap", arg = "F", help = "with --offload: the share of a layer's forward its copies may "
      .. "run behind (default 0.8)" },
    { name = "host-link-cost", arg = "MS", help = "with --offload: ms each GiB copied costs the step (default the "
      .. "profile's, else 0)" },
    require("nd.strict").OPTION,
    { name = "verbosity", short = "v", arg = "LEVEL", default = 1,
      help = "0 the table only; 1 summary and warnings; 2 also each dropped candidate; 3 also the space" },
  },
}
for _, o in ipairs(model_yaml.RUN_OPTIONS) do COMMAND.options[#COMMAND.options + 1] = o end

function command.help_text()
  local lines = { cli.help(COMMAND), "hardware profiles (-A; nd/hardware/NAME.lua on NDLUA_PATH adds one):" }
  for _, name in ipairs(hardware.names()) do
    local p = hardware.load(name)
    lines[#lines + 1] = string.format("  %-10s %s", name, p.about or "")
  end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "ranking policies (--policy; or a file, see examples/policies/):"
  for _, name in ipairs(policies.names()) do
    local p = policies.load(name)
    lines[#lines + 1] = string.format("  %-10s %s", name, p.about or "")
  end
  return table.concat(lines, "\n") .. "\n"
end

function command.read_options(argv)
  local list, rest = overrides.split(argv)
  local opts, args = cli.parse(COMMAND, rest)
  if opts.help then return opts end
  if #args > 1 then
    errors.raise { message = "search.lua takes one TRAIN_YAML, got " .. #args .. " arguments: "
      .. table.concat(args, " "), accepted = "ndlua search.lua --help" }
  end
  opts.path, opts.overrides = args[1], list
  if opts.devices then opts.devices = cli.positive_integer(opts.devices, "-d", cli.MAX_DEVICES, "devices") end
  if opts.global_batch then
    opts.global_batch = cli.positive_integer(opts.global_batch, "-b")
    if opts.global_batch > search.MAX_GLOBAL_BATCH then
      errors.raise { path = "-b", message = string.format("%d sequences is past the %d (2^30) a search takes",
        opts.global_batch, search.MAX_GLOBAL_BATCH), accepted = string.format("a global batch from 1 to %d sequences", search.MAX_GLOBAL_BATCH) }
    end
  end
  if opts.max_memory then
    opts.max_memory_text = opts.max_memory
    opts.max_memory = cli.size(opts.max_memory, "-M")
  end
  opts.reserve = opts.reserve and cli.size(opts.reserve, "-mem", true) or 0
  if opts.top < 1 then errors.raise { path = "-t", message = "shows at least 1 candidate, got " .. opts.top } end
  if opts.top > search.MAX_GLOBAL_BATCH then
    errors.raise { path = "-t", message = string.format("shows at most %d candidates, got %d", search.MAX_GLOBAL_BATCH,
      opts.top) }
  end
  if opts.jobs < 0 or opts.jobs > search.MAX_THREADS then
    errors.raise { path = "-j", message = "runs on 0 to " .. search.MAX_THREADS .. " threads, got " .. opts.jobs,
                   accepted = "0 (every online core) or a thread count" }
  end
  if opts.verbosity < 0 then errors.raise { path = "-v", message = "takes a level from 0" } end
  if opts.csv_limit then
    opts.csv_limit = cli.positive_integer(opts.csv_limit, "--csv-limit")
    if not opts.csv then
      errors.raise { path = "--csv-limit", message = "bounds the --csv file, but no --csv FILE was given",
                     accepted = "--csv FILE --csv-limit N" }
    end
  end
  if opts.balance_limit then opts.balance_limit = cli.positive_integer(opts.balance_limit, "--balance-limit") end
  if opts.plan then opts.plan = cli.positive_integer(opts.plan, "-k") end
  require("nd.host_link").read_options(opts, function(message, accepted)
    errors.raise { message = message, accepted = accepted or "ndlua search.lua --help" }
  end)
  if opts.dims then opts.dim_set = search.parse_dims(opts.dims) end
  if opts.recompute then
    opts.recompute = search.parse_recompute(opts.recompute, function(message, accepted)
      errors.raise { path = "--recompute", message = message, accepted = accepted }
    end)
  end
  opts.run = model_yaml.read_options(opts)
  opts.run.devices, opts.run.global_batch = opts.devices, opts.global_batch
  opts.model_ref = model_yaml.is_model_ref(opts.path)
  if opts.model_ref and not opts.devices then
    errors.raise { path = "-d", message = "a search from a model id (" .. opts.path .. ") needs the device count",
                   accepted = "-d N" }
  end
  if opts.search_config and opts.dims then
    errors.raise { path = "-l", message = "-l and -s both say which dimensions vary; a search config states them in "
      .. "parallelism", accepted = "drop -l, or -s" }
  end
  return opts
end

-- An absolute, normalized path (no symlinks resolved): nd.files'.
command.absolute = files.absolute

-- The train.yaml: the positional one, or the search config's (relative to
-- the working directory, else to the config's directory); both must agree.
local function train_yaml_path(opts, cfg)
  local named = cfg and cfg.train_yaml
  if named and not files.kind(named) and cfg.file:find("/") then
    local beside = cfg.file:match("^(.*)/") .. "/" .. named
    if files.kind(beside) then named = beside end
  end
  if opts.path and named and command.absolute(opts.path) ~= command.absolute(named) then
    errors.raise { file = cfg.file, path = "train_yaml", message = "names " .. cfg.train_yaml .. ", not the "
      .. "TRAIN_YAML " .. opts.path .. " the command line gives", accepted = "pass the same file" }
  end
  return opts.path or named
end

-- The train.yaml a search config without one stands for: its model fields
-- as config_overrides, its run facts at their keys (AutoModels schema;
-- nd.search.config.model_keys).
local function synthetic_doc(cfg, w)
  local m = cfg.model_keys
  if next(m.fields) == nil then
    errors.raise { file = cfg.file, message = "a search config without train_yaml states the model (model: "
      .. "hidden_size, num_hidden_layers, ...)" }
  end
  local doc, defaulted = model_keys.document(m)
  if defaulted and w then
    w:warn("model.max_position_embeddings", string.format("the search config states no sequence (seq_len or "
      .. "max_position_embeddings): every candidate is priced at %d tokens, the reference planner's default",
      model_keys.DEFAULT_SEQUENCE))
  end
  return doc
end

-- With a train.yaml, a search config's model fields (under any of their
-- names) must be the yaml's; its run facts are the yaml's own.
local function check_model_fields(cfg, spec, w)
  for key, v in pairs(cfg.model_keys.fields) do
    local mine, name = spec[key], cfg.model_keys.names[key] or key
    if mine ~= nil and type(v) ~= "table" and mine ~= v then
      local field = name ~= key and " (" .. key .. ")" or ""
      cfg.problems:error(cfg.model, name, "model." .. name, string.format("is %s here but %s in the train.yaml's "
        .. "model%s; the search config contradicts the yaml (drop the field, or change the yaml)", tostring(v),
        tostring(mine), field))
    end
  end
  for _, r in ipairs(cfg.model_keys.run) do
    w:warn("model." .. r[3], "the train.yaml states the run: " .. table.concat(r[1], ".") .. " is read from it, "
      .. "not from the search config")
  end
end

-- Without -d, the search config's cluster must count the devices the yaml's
-- context.device_num states.
local function check_devices(opts, cfg, b)
  local c = cfg.cluster
  if opts.devices or not c.num_nodes or not b.stated_devices or b.stated_devices == b.devices then return end
  errors.raise { file = cfg.file, path = "cluster", message = string.format("%d node(s) x %d cards = %d devices, "
    .. "but the train.yaml's context.device_num states %d; the search config contradicts the yaml", c.num_nodes,
    b.devices // c.num_nodes, b.devices, b.stated_devices),
    accepted = "state the same count, or -d N to search on N devices" }
end

-- Changes the search config makes to the yaml before it is read.
local function prepare_doc(doc, cfg)
  if not cfg then return end
  local accel
  if type(doc.train) == "table" and doc.accelerator == nil then
    if type(doc.train.accelerator) ~= "table" then doc.train.accelerator = {} end
    accel = doc.train.accelerator
  else
    if type(doc.accelerator) ~= "table" then doc.accelerator = {} end
    accel = doc.accelerator
  end
  if cfg.etp then accel.expert_tensor_parallel_degree = cfg.etp end
  if cfg.pp_config.pipeline_schedule then accel.pipeline_scheduler = cfg.pp_config.pipeline_schedule end
end

-- The document a search reads, and resolved.yaml is written over: the
-- train.yaml (or the search config's model) with the command line's
-- overrides and the search config's changes.
function command.source_doc(opts, cfg, path, w)
  local doc
  if path and opts.model_ref then
    doc = model_yaml.build(path, opts.run)
  elseif path then
    doc = core.yaml.load(path)
    -- -b is the search's batch, not the yaml's: it stays as the file states it
    local run = { seq = opts.run.seq, zero = opts.run.zero, devices = opts.run.devices }
    if type(doc) == "table" then model_yaml.apply(doc, run, false) end
  else
    doc = synthetic_doc(cfg, w)
  end
  overrides.apply(doc, opts.overrides)
  prepare_doc(doc, cfg)
  return doc
end

-- Reads the train.yaml (or the search config's model) for the search.
function command.load_base(opts, cfg, devices, w)
  local path = train_yaml_path(opts, cfg)
  if not path and not cfg then
    errors.raise { message = "search.lua needs a TRAIN_YAML (or a search config naming one)",
                   accepted = "ndlua search.lua --help" }
  end
  local doc = command.source_doc(opts, cfg, path, w)
  local b = search_base.read(doc, { devices = devices, warnings = w, device_memory = opts.max_memory,
                                    file = path or cfg.file, runtime = opts.runtime })
  b.path = path
  if not path then b.synthetic = doc end
  if path and cfg then
    check_model_fields(cfg, b.spec, w)
    check_devices(opts, cfg, b)
  end
  return b
end

-- The device count: -d, else the search config's cluster, else the yaml's.
function command.devices_of(opts, cfg, profile, w)
  local c = cfg and cfg.cluster or {}
  if opts.devices then
    if c.cards_per_node and opts.devices % c.cards_per_node ~= 0 then
      w:warn("cluster.cards_per_node", string.format("-d %d is not a multiple of cards_per_node %d: %d device(s) "
        .. "would not be placed", opts.devices, c.cards_per_node, opts.devices % c.cards_per_node))
    end
    return opts.devices
  end
  if not c.num_nodes then return nil end
  local per_node = c.cards_per_node or hardware.node_devices(profile)
  local devices = c.num_nodes * per_node
  if devices > core.limits.devices then
    -- the config's own refusal of a count past the bound, if it made one
    if #cfg.problems.errors > 0 then search_config.finish(cfg, w) end
    errors.at(cfg.cluster_doc, "num_nodes", "cluster.num_nodes", string.format("%d nodes of %d devices (%s) are "
      .. "%d devices, past the %d ndlua prices", c.num_nodes, per_node, c.cards_per_node and "cluster.cards_per_node"
      or profile.name .. "'s node", devices, core.limits.devices))
  end
  return devices
end

-- The memory budget (§c): the cap (-M, else cluster.device_memory_gb, else
-- context.max_device_memory, else the device's), the tighter of it and
-- constraint.memory_limit_gb, then -mem taken off. Returns bytes and where
-- the cap came from.
function command.budget_of(opts, cfg, b, profile)
  local cap, source
  local c = cfg and cfg.cluster or {}
  if opts.max_memory then
    cap, source = opts.max_memory, train_yaml.memory_source("-M", opts.max_memory_text)
  elseif c.device_memory_gb then
    cap, source = math.floor(c.device_memory_gb * 2 ^ 30 + 0.5), "cluster.device_memory_gb, GB read as GiB, 2^30 bytes"
  elseif b.parsed.device_memory_source == "context.max_device_memory" then
    cap, source = b.parsed.run.device_memory, b.parsed.device_memory_shown
  else
    cap, source = profile.memory_bytes, train_yaml.memory_source(profile.name .. "'s memory", profile.memory)
  end
  local limit = cfg and cfg.constraint.memory_limit_gb
  if limit and limit > 0 and limit * 2 ^ 30 < cap then
    cap, source = math.floor(limit * 2 ^ 30 + 0.5), "constraint.memory_limit_gb"
  end
  if opts.reserve > 0 then source = source .. string.format(", less %s kept free", units.gib(opts.reserve)) end
  local budget = cap - opts.reserve
  if budget <= 0 then
    errors.raise { path = "-mem", message = string.format("keeps %s free of a %s cap: nothing is left",
      units.gib(opts.reserve), units.gib(cap)) }
  end
  return budget, source
end

-- The global batch: -b, else constraint.global_batch_size, else the yaml's.
function command.batch_of(opts, cfg, b)
  local gbs, source = opts.global_batch, { path = "-b" }
  if not gbs and cfg and (cfg.constraint.global_batch_size or 0) > 0 then
    gbs, source = cfg.constraint.global_batch_size, { file = cfg.file, path = "constraint.global_batch_size" }
  end
  if not gbs then gbs, source = b.stated_batch, { file = b.file, path = "training.global_batch_size" } end
  if not gbs then
    errors.raise { file = b.file, path = "training.global_batch_size", message = "the yaml states no global batch",
                   accepted = "state it with -b B" }
  end
  if gbs > search.MAX_GLOBAL_BATCH then
    errors.raise { file = source.file, path = source.path, message = string.format("%d sequences is past the %d "
      .. "(2^30) a search takes", gbs, search.MAX_GLOBAL_BATCH), accepted = string.format("a global batch from 1 to %d "
      .. "sequences, or -b B", search.MAX_GLOBAL_BATCH) }
  end
  return gbs
end

-- The recompute modes priced: --recompute, else the search config's, else
-- context.recompute, else the one mode the yaml trains with.
function command.modes_of(opts, cfg, b, w)
  local fixed = cfg and cfg.recompute.fixed
  if opts.recompute and fixed then
    errors.raise { file = cfg.file, path = "recompute", message = "fixes recompute to "
      .. table.concat(cfg.recompute.modes, ", ") .. ", and --recompute searches "
      .. table.concat(opts.recompute, ", "), accepted = "drop --recompute, or the search config's recompute" }
  end
  if opts.recompute then return opts.recompute, "--recompute" end
  if cfg and cfg.recompute.modes then return cfg.recompute.modes, "the search config" end
  if b.recompute then return b.recompute, "context.recompute" end
  local mode = b.parsed.stated_ac_mode
  if mode then return { mode }, b.parsed.stated_ac_path end
  local r = b.parsed.run
  mode = (r.full_recompute ~= false and "full") or (r.selective_recompute ~= false and "selective") or "off"
  w:warn("model.config_overrides", "states recompute per stage, which a search cannot carry over to other "
    .. "pipelines: every candidate is priced with " .. mode .. " recompute in every layer (name modes with "
    .. "--recompute)")
  return { mode }, "model.config_overrides"
end

-- Which dimensions vary, their pinned values and candidate lists.
function command.dims_of(opts, cfg, b)
  local searched, allowed, pinned = {}, {}, {}
  for k, v in pairs(b.stated) do pinned[k] = v end
  if cfg then
    for key, dim in pairs(search_config.DIMS) do
      local d = cfg.dims[key]
      if d == nil then
        searched[dim] = not b.path
      elseif d.kind == "fixed" then
        pinned[dim] = d.value
      elseif d.kind == "list" then
        searched[dim], allowed[dim] = true, d.values
      else
        searched[dim] = true
      end
    end
    local pc = cfg.pp_config
    if pc.pp_degree then searched.PP, pinned.PP = false, pc.pp_degree end
    if pc.pp_interleave_num then pinned.VPP = pc.pp_interleave_num end
    if pc.micro_batch_num then allowed.MB = { pc.micro_batch_num } end
    if cfg.dims.micro_batch_num and cfg.dims.micro_batch_num.kind == "fixed" then
      allowed.MB = { cfg.dims.micro_batch_num.value }
    end
    searched.MB = true
  else
    searched = opts.dim_set or search.parse_dims(nil)
  end
  if not searched.DP and not pinned.DP then
    errors.raise { file = cfg and cfg.file, path = "parallelism.dp", message = string.format("DP keeps the "
      .. "train.yaml's, but its tp x pp x cp = %d x %d x %d does not divide the %d devices", b.stated.TP,
      b.stated.PP, b.stated.CP, b.devices), accepted = "state parallelism.dp (a list, or auto)" }
  end
  return searched, pinned, allowed
end

function command.space_lines(space, bounds)
  local lines = {}
  for _, d in ipairs(search.DIMS) do
    local e = space.dims[d]
    local text = e.searched and "searched" or ("fixed " .. tostring(e.pinned))
    if not e.searched and d == "OP" and e.pinned == search.FULL_SHARD then
      text = "fixed: every data-parallel rank (the yaml shards over all of them)"
    end
    if e.bound then text = text .. " up to " .. e.bound .. " (" .. bounds[d].why .. ")" end
    if e.allowed then
      local v = {}
      for i, x in ipairs(e.allowed) do v[i] = tostring(x) end
      text = text .. " among " .. table.concat(v, ", ")
    end
    lines[#lines + 1] = string.format("  %-4s %s", search.SHOWN[d], text)
  end
  return lines
end



--- Warns that offload is priced in memory alone: the time model moves no
-- bytes between host and device and steps no optimizer on the host, so
-- the step times of an offloading run are too short.
function command.warn_offload(run, w)
  local what = {}
  if run.offload_params then what[#what + 1] = "the parameters" end
  if run.offload_optimizer then what[#what + 1] = "the optimizer states" end
  if (run.offload_activations or 0) > 0 then what[#what + 1] = "activations" end
  if #what == 0 then return end
  w:warn(run.offload_params and "fsdp_config.enable_offload" or "offload",
         "the run offloads " .. table.concat(what, " and ") .. " to the host: priced in memory only; the step "
           .. "times leave out the host-device copies and the host's optimizer step, so they are too short")
end

-- Everything the search needs, from the command line, the search config
-- and the train.yaml.
function command.prepare(opts, w)
  local policy = policies.load(opts.policy)
  local cfg = opts.search_config and search_config.load(opts.search_config) or nil
  local profile = hardware.load(opts.device_type or (cfg and cfg.cluster.device_type) or hardware.DEFAULT)
  if cfg then
    profile = hardware.with_links(profile, cfg.cluster.intra_node_bandwidth_gbps, cfg.cluster.inter_node_bandwidth_gbps)
  end
  local devices = command.devices_of(opts, cfg, profile, w)
  local b
  if cfg and #cfg.problems.errors > 0 then
    -- A model the config's own errors leave unreadable: those errors, all
    -- of them, rather than the first the model's reading meets.
    local ok, got = pcall(command.load_base, opts, cfg, devices, w)
    if not ok then search_config.finish(cfg, w) error(got, 0) end
    b = got
  else
    b = command.load_base(opts, cfg, devices, w)
  end
  local gbs = command.batch_of(opts, cfg, b)
  command.warn_offload(b.parsed.run, w)
  local budget, budget_source = command.budget_of(opts, cfg, b, profile)
  local modes, modes_source = command.modes_of(opts, cfg, b, w)
  if cfg then
    search_config.validate(cfg, { spec = b.spec, devices = b.devices, global_batch = gbs,
                                  seq_length = b.parsed.run.seq_length,
                                  device_memory_gb = cfg.cluster.device_memory_gb or profile.memory_bytes / 2 ^ 30 })
    search_config.finish(cfg, w)
  end
  local searched, pinned, allowed = command.dims_of(opts, cfg, b)
  local refused = runtimes.pipeline_refusal(b.run:spec())
  if refused and searched.PP then
    w:warn(nil, string.format("the %s runtime does not pipeline a run with %s: PP searched at 1 only",
                              b.run:spec().runtime, refused))
  end
  local space, bounds = search.space {
    model = b.spec, hardware = profile, devices = b.devices, global_batch = gbs, budget_bytes = budget,
    searched = searched, pinned = pinned, allowed = allowed, recompute = modes,
    keep_dropped = opts.verbosity >= 2 and 1000 or 0, schedule = b.parsed.run.pp_schedule, threads = opts.jobs,
    runtime = b.parsed.run.runtime, overlapped_grad_reduce = b.parsed.run.overlapped_grad_reduce == true,
    no_pipeline = refused ~= nil,
  }
  local balance = command.balance_of(opts, cfg, b, profile)
  if balance then space.budget_bytes = math.floor(budget * require("nd.balance_search").WIDEN) end
  local problem = search.batch_problem(space, b.accumulates, b.stated_batch, cfg and {
    batch = "-b (or constraint.global_batch_size)",
    shrink = "let DP shrink by searching pp, cp or tp in the search config's parallelism" } or nil)
  if problem then errors.raise { message = problem } end
  return { cfg = cfg, profile = profile, base = b, gbs = gbs, budget = budget, budget_source = budget_source,
           modes = modes, modes_source = modes_source, space = space, bounds = bounds,
           policy = policy, spans_cp = b.parsed.run.shard_spans_cp == true, balance = balance }
end

-- Whether the balanced plans may offload (--offload, else the search
-- config's offload, else context.offload), and the host link they price it
-- with (nd.host_link.of the profile, the command line's values over it):
-- the link and where the choice came from, or nil.
local function offload_of(opts, cfg, b, profile, balance)
  local source
  if opts.offload then
    source = "--offload"
  elseif cfg and cfg.offload ~= nil then
    source = cfg.offload and "the search config's offload" or nil
  elseif b.offload then
    source = "context.offload"
  end
  if not source then return nil end
  if not balance then -- the reference's rule: -ao without -ar is an error
    errors.raise { message = source .. " chooses per layer in the balanced plans, but the search balances none",
                   accepted = "--balance with it" }
  end
  local link, why = require("nd.host_link").of(profile, opts.link)
  if not link then errors.raise { message = source .. ": " .. why, accepted = "--host-link-gibps G" } end
  return link, source
end

--- Whether the search balances its pipelined candidates (--balance, else
-- the search config's balance, else context.balance), and how many:
-- {limit, source, link (the host link where the plans may offload, else
-- nil), offload_source}, or nil.
function command.balance_of(opts, cfg, b, profile)
  local on, source, limit
  if opts.balance then
    on, source = true, "--balance"
  elseif cfg and cfg.balance ~= nil then
    on, source = cfg.balance ~= false, "the search config's balance"
    if math.type(cfg.balance) == "integer" then limit = cfg.balance end
  elseif b.balance then
    on, source = true, "context.balance"
  end
  if not on then
    offload_of(opts, cfg, b, profile, nil)
    if opts.balance_limit or opts.plan then
      errors.raise { path = opts.plan and "-k" or "--balance-limit", message = "reads the balanced plans, but the "
        .. "search balances none", accepted = "--balance" }
    end
    return nil
  end
  if opts.csv then
    errors.raise { path = "--csv", message = "writes every candidate at its even split, which " .. source
      .. " re-prices and re-ranks (the C search's filter widened)", accepted = "--csv without --balance" }
  end
  local link, offload_source = offload_of(opts, cfg, b, profile, true)
  return { limit = opts.balance_limit or limit, source = source, link = link, offload_source = offload_source }
end

--- Refuses outputs that are inputs (`--csv train.yaml`, `-o` over a yaml
-- named resolved.yaml) or that clash (`--csv X --svg X`), before the search
-- writes anything.
function command.check_outputs(opts, s)
  local outputs = {}
  if opts.csv then outputs[#outputs + 1] = { "--csv", opts.csv } end
  if opts.svg then outputs[#outputs + 1] = { "--svg", opts.svg } end
  outputs[#outputs + 1] = { "-o", opts.output_dir .. "/resolved.yaml" }
  local source = s.base.parsed.source or {}
  local inputs = {
    { "the TRAIN_YAML", s.base.path },
    { "the search config (-s)", opts.search_config },
    { "the ranking policy (--policy)", opts.policy and policies.is_file(opts.policy) and opts.policy or nil },
    { "the model's config.json", source.path },
  }
  files.check_outputs(outputs, inputs)
end

command.COMMAND = COMMAND

return command
