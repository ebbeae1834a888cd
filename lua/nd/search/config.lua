--- The search config (`ndlua search.lua -s search.yaml`): what a search
-- varies and within which limits, as the reference planner's users write it
-- (reference/search-ranking-cli.md §b.6):
--
--   train_yaml: path              # the run the search starts from (optional)
--   model: {...}                  # model fields; without train_yaml, the model
--   cluster: {num_nodes, cards_per_node, device_memory_gb, device_type}
--   parallelism:                  # int: fixed; list: candidates; auto: searched
--     dp, fsdp, tp, pp, cp, ep, etp (fixed only), micro_batch_num, recompute
--   constraint: {global_batch_size, memory_limit_gb}
--   recompute: none | off | selective | full | auto
--   recompute_modes: [off, selective, full]       # with recompute: auto
--   pp_config: {pp_degree, micro_batch_num, pp_interleave_num, pipeline_schedule,
--               stage_partition_mode, stage_partition, layer_offset_range,
--               layer_recompute_layers}
--   balance: true | false | N     # search.lua --balance (N: --balance-limit N)
--   offload: true | false         # search.lua --offload (with balance)
--
-- Reading checks each field's type (`search_config.read`); validating checks
-- the values against the model and the devices (`search_config.validate`).
-- Both collect every problem with its field path, file, line and column;
-- errors end the search with "Search config validation failed with K
-- error(s)." (exit status 2), warnings are printed and the search goes on.
-- @module nd.search.config

local core = require "nd.core"
local check = require "nd.check"
local errors = require "nd.errors"
local search = require "nd.search"
local describe = check.describe
local model_keys = require "nd.search.config.model_keys"
local SCHEDULES = require("nd.train_yaml").SCHEDULES

local search_config = {}

-- parallelism keys -> the search's dimensions (C names); etp is no dimension.
-- The parallelism keys of a search config, each to its dimension, and in
-- the order the summary names them: the core's dimensions (search.DIM_DESCS)
-- with a config key.
search_config.DIMS = {}
local DIM_ORDER = {}
for _, d in ipairs(search.DIM_DESCS) do
  if d.config_key then search_config.DIMS[d.config_key], DIM_ORDER[d.config_at] = d.name, d.config_key end
end

local SECTIONS = {
  train_yaml = "string", model = "mapping", cluster = "mapping", parallelism = "mapping", constraint = "mapping",
  recompute = "any", recompute_modes = "any", pp_config = "mapping", balance = "any",
  offload = "any",
}
local CLUSTER = { num_nodes = "count", cards_per_node = "count", device_memory_gb = "size", device_type = "string",
                  intra_node_bandwidth_gbps = "size", inter_node_bandwidth_gbps = "size" }
local CONSTRAINT = { global_batch_size = "count0", memory_limit_gb = "size0" }
local PP_CONFIG = {
  pp_degree = "count", stage_partition_mode = "string", stage_partition = "list", layer_offset_range = "list",
  layer_recompute_layers = "list", micro_batch_num = "count", pp_interleave_num = "count",
  pipeline_schedule = "string",
}
local PARALLELISM = { dp = true, fsdp = true, tp = true, pp = true, cp = true, ep = true, etp = true,
                      micro_batch_num = true, recompute = true }
local MODES = search.MODE_SET
-- The modes as messages list them (the core's registry, src/core/run.c).
local MODES_TEXT = core.types.run.choices.recompute.accepted

-- A collector of problems: errors and warnings with their place.
local Problems = {}
Problems.__index = Problems

local function problems_new(file)
  return setmetatable({ file = file, errors = {}, warnings = {} }, Problems)
end

-- The place of `t[key]` (nd.check.key), its refusals collected.
function Problems:at(t, key, path, line, col)
  return check.key(t, key, path, { file = self.file, sink = self.errors, line = line, col = col })
end

function Problems:error(t, key, path, message)
  self:at(t, key, path):fail(message)
end

-- An unknown key, placed at the key itself (the loader notes where each key
-- is written; a table built in Lua has no place but the file).
function Problems:unknown(t, key, path, message)
  local line, col
  if type(t) == "table" then line, col = select(2, core.where(t, key, "key")) end
  self:at(t, key, path, line, col):fail(message)
end

function Problems:warn(path, message, kind)
  self.warnings[#self.warnings + 1] = { path = path, message = message, kind = kind }
end

-- A mapping's keys in document order (sorted for a table no loader made).
local function keys_of(t)
  local keys = core.keys(t)
  if keys then return keys end
  keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  return keys
end

local is_mapping, is_list, is_count = check.is_mapping, check.is_list, check.is_count

-- The kinds of the sections' fields, as nd.check names them.
local KINDS = { count = "count", count0 = "count0", size = "gb", size0 = "gb0", string = "name", list = "list" }

-- The most a field takes, where the C core bounds what it becomes: the
-- devices a search spans (nd.core.limits.devices, 2^20) and a device's
-- memory (nd.core.limits.device_memory, 1 PiB = 2^20 GB read as GiB);
-- checked here, at the key, where the core would refuse the space with no
-- place.
local MOST = {
  num_nodes = { core.limits.devices, "devices" }, cards_per_node = { core.limits.devices, "devices" },
  device_memory_gb = { core.limits.device_memory / 2 ^ 30, "GB (1 PiB)" },
  memory_limit_gb = { core.limits.device_memory / 2 ^ 30, "GB (1 PiB)" },
}

-- Refuses a value past its field's MOST.
local function check_most(p, t, key, path, v)
  local most = MOST[key]
  if most and type(v) == "number" and v > most[1] then
    p:error(t, key, path, string.format("%s is past the %d %s ndlua prices", tostring(v), most[1], most[2]))
  end
end

-- Checks a section's keys and value kinds; returns a plain copy.
local function read_fields(p, t, path, schema)
  local out = {}
  if t == nil or core.isnull(t) then return out end
  for _, key in ipairs(keys_of(t)) do
    local v, kind, kpath = t[key], schema[key], path .. "." .. tostring(key)
    if kind == nil then
      local names = {}
      for k in pairs(schema) do names[#names + 1] = k end
      table.sort(names)
      p:unknown(t, key, kpath, "unknown key; " .. path .. " takes " .. table.concat(names, ", "))
    elseif not core.isnull(v) then
      out[key] = check.read(p:at(t, key, kpath), v, KINDS[kind])
      check_most(p, t, key, kpath, out[key])
    end
  end
  return out
end

-- One parallelism entry: an int (fixed), a list of ints (candidates) or auto.
local function read_degree(p, t, key, path)
  local v = t[key]
  if is_count(v) then return { kind = "fixed", value = v } end
  -- etp 0: not stated (the reference's default: the experts split as TP does)
  if key == "etp" and v == 0 then return { kind = "fixed", value = nil } end
  if type(v) == "string" and v:lower() == "auto" then
    if key == "etp" then
      p:error(t, key, path, "etp is never searched: state one degree")
      return nil
    end
    return { kind = "auto" }
  end
  if is_list(v) and #v > 0 and key ~= "etp" then
    local ok = true
    for _, x in ipairs(v) do ok = ok and is_count(x) end
    if ok then
      local values = {}
      for i, x in ipairs(v) do values[i] = x end
      table.sort(values)
      return { kind = "list", values = values }
    end
  end
  p:error(t, key, path, "must be a degree (a whole number above 0), a list of candidate degrees, or auto; got "
    .. describe(v))
  return nil
end

-- A recompute mode name (YAML's false is off, none is off).
local function mode_name(v)
  if v == false then return "off" end
  if type(v) ~= "string" then return nil end
  local n = v:lower()
  if n == "none" then return "off" end
  return MODES[n] and n or nil
end

local function read_modes(p, t, key, path)
  local v = t[key]
  if type(v) == "string" and v:lower() == "auto" then return { table.unpack(search.MODES) } end
  local list = is_list(v) and v or { v }
  local out, seen = {}, {}
  for _, x in ipairs(list) do
    local n = mode_name(x)
    if not n then
      p:error(t, key, path, "'" .. tostring(x) .. "' is no recompute mode; " .. MODES_TEXT .. ", or auto")
      return nil
    end
    if not seen[n] then
      seen[n] = true
      out[#out + 1] = n
    end
  end
  if #out == 0 then p:error(t, key, path, "names no recompute mode") return nil end
  return out
end

-- The top-level recompute (none | off | selective | full | auto | per_layer)
-- and recompute_modes, and parallelism.recompute: the modes searched, or nil
-- (the train.yaml's own).
local function read_recompute(p, doc, par)
  local out = { fixed = false }
  local top = doc.recompute
  local strategy = "none"
  if top ~= nil and not core.isnull(top) then
    if type(top) == "string" and (top:lower() == "auto" or top:lower() == "per_layer" or top:lower() == "none") then
      strategy = top:lower()
    elseif mode_name(top) then
      strategy = mode_name(top)
    else
      p:error(doc, "recompute", "recompute", describe(top) .. " is not none, " .. MODES_TEXT .. " or auto")
    end
  end
  if strategy == "per_layer" then
    p:error(doc, "recompute", "recompute", "per_layer: ndlua prices one recompute mode for every layer of a "
      .. "candidate; use auto to search off, selective and full")
  end
  if MODES[strategy] then
    out.modes, out.fixed = { strategy }, true
  elseif strategy == "auto" then
    out.modes = { table.unpack(search.MODES) }
  end
  if doc.recompute_modes ~= nil and not core.isnull(doc.recompute_modes) then
    if strategy ~= "auto" then
      p:error(doc, "recompute_modes", "recompute_modes", "is read with recompute: auto only (recompute is "
        .. strategy .. ")")
    else
      out.modes = read_modes(p, doc, "recompute_modes", "recompute_modes")
    end
  end
  if par.recompute ~= nil and not core.isnull(par.recompute) then
    if doc.recompute_modes ~= nil then
      p:error(par, "recompute", "parallelism.recompute", "states the modes that recompute_modes states too; keep one")
    elseif out.fixed then
      p:error(par, "recompute", "parallelism.recompute", "searches recompute, which recompute: " .. strategy
        .. " fixes; keep one")
    else
      out.modes = read_modes(p, par, "recompute", "parallelism.recompute")
      out.fixed = out.modes ~= nil and #out.modes == 1
    end
  end
  return out
end

-- pp_config.pipeline_schedule in any case (the reference's files write
-- "1F1B"), as the train.yaml's accelerator.pipeline_scheduler takes it.
local function read_schedule(p, cfg)
  local v = cfg.pp_config.pipeline_schedule
  if v == nil then return end
  cfg.pp_config.pipeline_schedule = check.choice(p:at(cfg.pp_config_doc, "pipeline_schedule",
    "pp_config.pipeline_schedule"), v, SCHEDULES, "pipeline schedule ndlua prices", true)
end

--- Reads a loaded search config, checking every field's type.
-- @tparam table doc the document (nd.yaml.load)
-- @tparam string file its path, for messages
-- @treturn table the config: `file, train_yaml, model, cluster, dims (by
--   parallelism key: {kind, value | values}), etp, constraint, recompute
--   ({modes, fixed} ), pp_config, problems`
function search_config.read(doc, file)
  local p = problems_new(file)
  local cfg = { file = file, problems = p, dims = {}, cluster = {}, constraint = {}, pp_config = {},
                model_keys = { fields = {}, run = {} }, recompute = { fixed = false } }
  if not is_mapping(doc) then
    p:error(nil, nil, "(document)", "a search config is a mapping of sections (train_yaml, model, cluster, "
      .. "parallelism, constraint, recompute, pp_config)")
    return cfg
  end
  for _, key in ipairs(keys_of(doc)) do
    local kind = SECTIONS[key]
    local v = doc[key]
    if kind == nil then
      p:unknown(doc, key, tostring(key), "unknown section; a search config takes train_yaml, model, cluster, "
        .. "parallelism, constraint, recompute, recompute_modes, pp_config, balance, offload")
    elseif kind == "mapping" and not core.isnull(v) then
      check.read(p:at(doc, key, key), v, "mapping")
    elseif kind == "string" and not core.isnull(v) then
      check.read(p:at(doc, key, key), v, "path")
    end
  end
  local function section(key) return is_mapping(doc[key]) and doc[key] or nil end
  cfg.train_yaml = type(doc.train_yaml) == "string" and doc.train_yaml or nil
  cfg.model = section("model")
  cfg.model_keys = model_keys.read(cfg.model, p, keys_of)
  cfg.cluster = read_fields(p, section("cluster"), "cluster", CLUSTER)
  cfg.cluster_doc = section("cluster")
  local c = cfg.cluster
  local most = core.limits.devices
  if c.num_nodes and c.cards_per_node and c.num_nodes <= most and c.cards_per_node <= most
     and c.num_nodes * c.cards_per_node > most then
    p:error(section("cluster"), "num_nodes", "cluster.num_nodes", string.format("%d nodes of %d cards are %d "
      .. "devices, past the %d ndlua prices", c.num_nodes, c.cards_per_node, c.num_nodes * c.cards_per_node,
      core.limits.devices))
  end
  cfg.constraint = read_fields(p, section("constraint"), "constraint", CONSTRAINT)
  cfg.pp_config = read_fields(p, section("pp_config"), "pp_config", PP_CONFIG)
  cfg.pp_config_doc = section("pp_config")
  local par = section("parallelism") or {}
  cfg.parallelism_doc = par
  for _, key in ipairs(keys_of(par)) do
    local path = "parallelism." .. tostring(key)
    if not PARALLELISM[key] then
      p:unknown(par, key, path, "unknown key; parallelism takes dp, fsdp, tp, pp, cp, ep, etp, micro_batch_num, "
        .. "recompute")
    elseif key ~= "recompute" and not core.isnull(par[key]) then
      local d = read_degree(p, par, key, path)
      if key == "etp" then cfg.etp = d and d.value else cfg.dims[key] = d end
    end
  end
  cfg.recompute = read_recompute(p, doc, par)
  -- balance: true, false, or how many pipelined candidates to balance
  local bal = doc.balance
  if bal ~= nil and not core.isnull(bal) then
    if type(bal) == "boolean" or (is_count(bal) and bal >= 1) then
      cfg.balance = bal
    else
      p:error(doc, "balance", "balance", "is " .. tostring(bal) .. "; balance takes true, false or a count of "
        .. "pipelined candidates to balance")
    end
  end
  -- offload: whether the balanced plans may offload activations
  local off = doc.offload
  if off ~= nil and not core.isnull(off) then
    if type(off) == "boolean" then
      cfg.offload = off
    else
      p:error(doc, "offload", "offload", "is " .. tostring(off) .. "; offload takes true or false")
    end
  end
  if cfg.dims.fsdp == nil and cfg.model_keys.op then
    cfg.dims.fsdp = { kind = "fixed", value = cfg.model_keys.op, source = "model.optimizer_weight_shard_size" }
  end
  read_schedule(p, cfg)
  return cfg
end

--- Loads and reads a search config file.
function search_config.load(path)
  return search_config.read(core.yaml.load(path), path)
end

--- The layouts a search config's comments name, as the upstream configs
-- list the strategies of an experiment ("#   dp16/tp4/pp2/mb8 ..."): each
-- word of a comment that joins a dimension's name and its degree with
-- "/" and states dp and mb, as `{text = "dp16/tp4/pp2/mb8", dp = 16, tp = 4,
-- pp = 2, mb = 8}`; none when the file cannot be read.
-- @tparam string path the search config
-- @treturn table the layouts, in the file's order
function search_config.comment_layouts(path)
  local f = io.open(path, "rb")
  if not f then return {} end
  local text = f:read("a") or ""
  f:close()
  local out = {}
  for line in text:gmatch("[^\n]+") do
    local comment = line:match("^%s*#(.*)$")
    for word in (comment or ""):gmatch("%a+%d+[/%w]*") do
      if word:find("/", 1, true) then
        local layout = { text = word }
        for name, n in word:gmatch("(%a+)(%d+)") do layout[name:lower()] = math.tointeger(tonumber(n)) end
        if layout.dp and layout.mb then out[#out + 1] = layout end
      end
    end
  end
  return out
end

-- The degrees an entry allows (fixed: one; list: its values; auto: none known).
local function degrees(d)
  if d == nil then return {} end
  if d.kind == "fixed" then return { d.value } end
  if d.kind == "list" then return d.values end
  return {}
end

-- Checks each degree an entry allows with f (a message or nil); the first
-- message is the entry's error.
local function each(cfg, key, f)
  for _, v in ipairs(degrees(cfg.dims[key])) do
    local message = f(v)
    if message then
      cfg.problems:error(cfg.parallelism_doc, key, "parallelism." .. key, message)
      return
    end
  end
end

-- The fixed degrees' product against the devices.
local function check_product(cfg, devices)
  local product, parts = 1, {}
  for _, key in ipairs({ "dp", "tp", "pp", "cp" }) do
    local d = cfg.dims[key]
    if d and d.kind == "fixed" then
      product = product * d.value
      parts[#parts + 1] = key .. " " .. d.value
    end
  end
  if product > devices then
    cfg.problems:error(cfg.parallelism_doc, nil, "parallelism", string.format("the product of the fixed degrees "
      .. "(%s) = %d exceeds the %d devices", table.concat(parts, " x "), product, devices))
  end
end

-- TP over the hidden size, CP over the sequence, EP over the experts.
local function check_model(cfg, spec, seq_length)
  each(cfg, "tp", function(t)
    if spec.hidden_size % t ~= 0 then
      return string.format("tp %d does not divide hidden_size %d", t, spec.hidden_size)
    end
  end)
  each(cfg, "cp", function(c)
    if seq_length % c ~= 0 then
      return string.format("cp %d does not divide the sequence of %d tokens", c, seq_length)
    end
  end)
  local experts = spec.num_experts or 1
  if experts > 1 then
    each(cfg, "ep", function(e)
      if experts % e ~= 0 then return string.format("ep %d does not divide the model's %d experts", e, experts) end
    end)
    return
  end
  for _, v in ipairs(degrees(cfg.dims.ep)) do
    if v > 1 then
      cfg.problems:warn("parallelism.ep", "the model is dense: expert parallelism above 1 refuses every candidate")
      return
    end
  end
end

-- The FSDP shard within a fixed dp; the batch over the micro-batches and dp.
local function check_batch(cfg, gbs)
  local dp = cfg.dims.dp
  if dp and dp.kind == "fixed" then
    each(cfg, "fsdp", function(f)
      if dp.value % f ~= 0 then
        return string.format("FSDP shards over %d ranks, which do not divide dp %d (the HSDP replicas would not "
          .. "be whole)", f, dp.value)
      end
    end)
  end
  if not gbs then return end
  each(cfg, "micro_batch_num", function(m)
    if gbs % m ~= 0 then return string.format("global batch %d is no multiple of micro_batch_num %d", gbs, m) end
  end)
  if dp and dp.kind == "fixed" and gbs % dp.value ~= 0 then
    cfg.problems:error(cfg.parallelism_doc, "dp", "parallelism.dp", string.format("global batch %d is no multiple "
      .. "of the effective DP %d", gbs, dp.value))
  end
end

--- Checks the config's values against the model and the devices (§b.6).
-- @tparam table cfg from search_config.read
-- @tparam table o `spec` (the settled model), `devices`, `global_batch`,
--   `seq_length`, `device_memory_gb` (the device's, for the limit warning)
function search_config.validate(cfg, o)
  check_product(cfg, o.devices)
  check_model(cfg, o.spec, o.seq_length)
  check_batch(cfg, o.global_batch)
  local layers = search.layers(o.spec)
  each(cfg, "pp", function(pp)
    if pp > layers then return string.format("pp %d exceeds the model's %d layers", pp, layers) end
  end)
  search_config.validate_pp_config(cfg, layers)
  if o.device_memory_gb and (cfg.constraint.memory_limit_gb or 0) > o.device_memory_gb then
    cfg.problems:warn("constraint.memory_limit_gb", string.format("%g GB is above the device's %g GB: the device's "
      .. "memory is the budget", cfg.constraint.memory_limit_gb, o.device_memory_gb))
  end
end

-- pp_config: the stage partition and ranges against the layers, and the
-- fixed values against their candidates in parallelism.
function search_config.validate_pp_config(cfg, layers)
  local p, pc, t = cfg.problems, cfg.pp_config, cfg.pp_config_doc
  local function against(key, dim)
    local d = cfg.dims[dim]
    if pc[key] and d and d.kind ~= "auto" then
      local found = false
      for _, v in ipairs(degrees(d)) do found = found or v == pc[key] end
      if not found then
        p:error(t, key, "pp_config." .. key, string.format("%d is not among parallelism.%s's candidates", pc[key], dim))
      end
    end
  end
  against("pp_degree", "pp")
  against("micro_batch_num", "micro_batch_num")
  if pc.pp_degree and pc.pp_degree > layers then
    p:error(t, "pp_degree", "pp_config.pp_degree", string.format("%d exceeds the model's %d layers", pc.pp_degree,
      layers))
  end
  if pc.stage_partition_mode and pc.stage_partition_mode ~= "uniform" and pc.stage_partition_mode ~= "manual" then
    p:error(t, "stage_partition_mode", "pp_config.stage_partition_mode", "must be uniform or manual")
  end
  local sp = pc.stage_partition
  if sp then
    local sum, ok = 0, true
    for _, x in ipairs(sp) do
      ok = ok and math.type(x) == "integer" and x >= 0
      sum = sum + (math.type(x) == "integer" and x or 0)
    end
    if not ok then
      p:error(t, "stage_partition", "pp_config.stage_partition", "must list the layers of each stage")
    elseif pc.pp_degree and #sp ~= pc.pp_degree then
      p:error(t, "stage_partition", "pp_config.stage_partition", string.format("lists %d stages; pp_degree is %d "
        .. "stages", #sp, pc.pp_degree))
    elseif sum ~= layers then
      p:error(t, "stage_partition", "pp_config.stage_partition", string.format("places %d layers; the model has %d "
        .. "(a stage partition names no layer that does not exist)", sum, layers))
    end
  end
  local r = pc.layer_offset_range
  if r then
    if #r ~= 2 or math.type(r[1]) ~= "integer" or math.type(r[2]) ~= "integer" or r[1] > r[2] then
      p:error(t, "layer_offset_range", "pp_config.layer_offset_range", "must be [min, max] with min <= max")
    elseif math.abs(r[1]) > layers or math.abs(r[2]) > layers then
      p:error(t, "layer_offset_range", "pp_config.layer_offset_range", "reaches past the model's "
        .. layers .. " layers")
    end
  end
  for _, x in ipairs(pc.layer_recompute_layers or {}) do
    if math.type(x) ~= "integer" or x < 0 or x >= layers then
      p:error(t, "layer_recompute_layers", "pp_config.layer_recompute_layers", string.format("%s is no layer index "
        .. "(0 to %d)", describe(x), layers - 1))
      break
    end
  end
  for _, key in ipairs({ "stage_partition_mode", "stage_partition", "layer_offset_range", "layer_recompute_layers" }) do
    if pc[key] ~= nil and not (key == "stage_partition_mode" and pc[key] == "uniform") then
      p:warn("pp_config." .. key, "is not read: ndlua balances each candidate's stages itself and recomputes one "
        .. "mode in every layer", "unpriced")
    end
  end
end

--- Raises the collected errors as one bad-input error (each on its line,
-- then the count), after handing the warnings to a collector.
function search_config.finish(cfg, warnings)
  local p = cfg.problems
  for _, w in ipairs(p.warnings) do warnings:warn(w.path, w.message, w.kind) end
  p.warnings = {}
  if #p.errors > 0 then
    errors.raise { message = table.concat(p.errors, "\n") .. string.format("\nSearch config validation failed with "
      .. "%d error(s).", #p.errors) }
  end
end

--- One line per dimension of what the config makes of it (the reference's
-- "Parallelism:" summary), given where undeclared ones come from.
function search_config.summary(cfg, inherited)
  local parts = {}
  for _, key in ipairs(DIM_ORDER) do
    local d = cfg.dims[key]
    local text
    if d == nil then
      text = inherited and string.format("fixed %s (train.yaml)", tostring(inherited[key])) or "searched (not declared)"
      if key == "micro_batch_num" and inherited then text = "searched (derived from the batch)" end
    elseif d.kind == "fixed" then
      text = string.format("fixed %d (%s)", d.value, d.source or "declared")
    elseif d.kind == "list" then
      local v = {}
      for i, x in ipairs(d.values) do v[i] = tostring(x) end
      text = "searched over [" .. table.concat(v, ", ") .. "]"
    else
      text = "searched (auto)"
    end
    parts[#parts + 1] = key .. " " .. text
  end
  if cfg.etp then parts[#parts + 1] = string.format("etp fixed %d (no dimension)", cfg.etp) end
  return table.concat(parts, "; ")
end

return search_config
