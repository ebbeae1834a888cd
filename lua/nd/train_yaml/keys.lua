--- The keys of a train.yaml that no rule reads, and those read but not
-- priced. A misspelled key (`accelerator.tp_szie`, `--acclerator.tp_size=4`)
-- would otherwise leave its value unused without a word: every key of the
-- sections ndlua reads is checked against what its rules read and what
-- the trainer's schema states, and one that is neither gets a warning with
-- the closest known key. Keys the trainer reads that change memory or time
-- but that ndlua does not price get a warning of their own when they are
-- stated with another value than the one ndlua assumes.
-- @module nd.train_yaml.keys

local core = require "nd.core"
local model_spec = require "nd.model.spec"

local keys = {}

-- The keys of each checked section: those ndlua's rules read (README,
-- "Reading train.yaml"), then those of the trainer's schemas that it does
-- not need (as the upstream recipes of ../shared/examples-upstream state
-- them). Sections not listed (dataset's loaders, checkpoint, profiling,
-- compile, lr_scheduler, ...) are the trainer's alone and are not checked.
local ACCELERATOR = {
  tp_size = true, tp_degree = true, pp_size = true, pipeline_parallel_degree = true, cp_size = true,
  context_parallel_degree = true, ep_size = true, expert_parallel_degree = true, expert_tensor_parallel_degree = true,
  pp_interleave_num = true, dp_shard = true, dp_replicate = true, sequence_parallel = true, use_seq_parallel = true,
  pipeline_scheduler = true, context_parallel_algo = true, loss_parallel = true, enable_parallel_optimizer = true,
  optimizer_weight_shard_size = true, gradient_accumulation_shard = true,
  -- the trainer's, not priced
  comm_fusion = true,
}
local TRAINING = {
  micro_batch_size = true, micro_batch_num = true, global_batch_size = true, max_grad_norm = true,
  -- the trainer's
  backend = true, enable_full_determinism = true, eval_iters = true, init_device = true, loss_aggregation = true,
  seed = true, train_iters = true, train_samples = true, max_steps = true, num_train_epochs = true, logging = true,
  checkpoint = true, debug = true,
}
-- The legacy schema's train section: its sections and training's keys.
local TRAIN = { accelerator = true, gradient_checkpointing = true, mixed_precision = true, optimizer = true }
for k in pairs(TRAINING) do TRAIN[k] = true end
local OPTIMIZER = {
  _target_ = true, type = true, fp32_main_params = true, max_grad_norm = true,
  -- the trainer's
  adamw_config = true, muon_config = true, no_decay_params = true, betas = true, eps = true, loss_aggregation = true,
  lr = true, lr_decay_style = true, lr_min = true, lr_warmup_ratio = true, weight_decay = true,
}

keys.SECTIONS = {
  [""] = {
    model = true, training = true, accelerator = true, fsdp_config = true, activation_checkpoint = true, context = true,
    optimizer = true, dataset = true, data = true, train = true, plan_overrides = true, model_init_dtype = true,
    -- the trainer's (and the legacy planner's)
    activation_swap = true, checkpoint = true, compile = true, dataloader = true, debug = true, lr_scheduler = true,
    mixed_precision = true, profiler = true, profiling = true, base_arch_mem_comp = true, comm_expr = true,
    default_pp_sched = true, nodes_mem_comp = true, passes = true, pp_sched = true,
  },
  accelerator = ACCELERATOR,
  ["train.accelerator"] = ACCELERATOR,
  training = TRAINING,
  train = TRAIN,
  optimizer = OPTIMIZER,
  ["train.optimizer"] = OPTIMIZER,
  fsdp_config = {
    dp_shard_size = true, edp_shard_size = true, reshard_after_forward = true, reshard_after_backward = true,
    mix_precision = true, recompute_slice_activation = true,
    -- the trainer's
    backward_prefetch_depth = true, forward_prefetch_depth = true, comm_fusion = true, replicate_params = true,
    requires_grad_sync = true,
    -- read: offload prices the host's share (fsdp_config.enable_offload)
    enable_offload = true,
  },
  activation_checkpoint = { mode = true, recompute_slice_activation = true },
  ["train.gradient_checkpointing"] = { activation_checkpoint = true, recompute_slice_activation = true },
  context = {
    device_num = true, max_device_memory = true, visual_seq_len = true, census = true, census_spec = true,
    expert_shard = true, moe_dispatch = true, recompute = true, balance = true, offload = true, deepep = true,
    ep_node_limit = true,
  },
  dataset = { data_transform = true, data_config = true, _target_ = true, data_path = true, model_assets = true },
  ["dataset.data_transform"] = { max_seq_len = true, _target_ = true, data_type = true, text_keys = true },
  data = {
    max_seq_len = true, num_workers = true, pin_memory = true, shuffle = true, train_path = true, type = true,
    vl_grid_h = true, vl_grid_t = true, vl_grid_w = true,
  },
  model = {
    pretrained_model_name_or_path = true, config_path = true, config_overrides = true, revision = true,
    subfolder = true, name = true, _target_ = true, torch_dtype = true, param_init_type = true, compute_dtype = true,
    softmax_compute_type = true, freeze_modules = true, offset = true,
    -- the trainer's
    attn_implementation = true, experts_implementation = true, force_hf = true, ignore_mismatched_sizes = true,
    local_files_only = true, tokenizer_path = true, validate_placement = true, weights_path = true,
    trust_remote_code = true, cache_dir = true,
  },
}

-- Besides its listed keys, a model section may state any model field.
local function known(section, key)
  local s = keys.SECTIONS[section]
  if s[key] then return true end
  return section == "model" and model_spec.is_field(key)
end

--- Keys that change memory or time which ndlua does not price: the value
-- it assumes (a key stated otherwise is warned about) and why.
keys.UNPRICED = {
  ["fsdp_config.forward_prefetch_depth"] = { 1, "ndlua prices one layer gathered ahead (depth 1)" },
  ["fsdp_config.backward_prefetch_depth"] = { 1, "ndlua prices one layer gathered ahead (depth 1)" },
  -- a list of parameter names FSDP keeps whole on every rank instead of sharding
  ["fsdp_config.replicate_params"] = { {}, "ndlua shards every parameter over dp_shard_size; the named ones "
    .. "are whole on every rank, their states and gradients too" },
}

-- A value as the warning shows it: a list as [a, b], an empty one as [].
local function shown(v)
  if type(v) ~= "table" then return tostring(v) end
  local items = {}
  for i, item in ipairs(v) do items[i] = tostring(item) end
  return "[" .. table.concat(items, ", ") .. "]"
end

-- Whether a stated value is the one ndlua assumes (an assumed list: empty).
local function is_assumed(v, assumed)
  if type(assumed) == "table" then return type(v) == "table" and next(v) == nil end
  return v == assumed
end

--- The edit distance of two words (Damerau's: a swap of two neighbours
-- counts one, so `tp_szie` is 1 from `tp_size`).
function keys.distance(a, b)
  local d = {}
  for i = 0, #a do d[i] = { [0] = i } end
  for j = 0, #b do d[0][j] = j end
  for i = 1, #a do
    for j = 1, #b do
      local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
      local v = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if i > 1 and j > 1 and a:sub(i, i) == b:sub(j - 1, j - 1) and a:sub(i - 1, i - 1) == b:sub(j, j) then
        v = math.min(v, d[i - 2][j - 2] + 1)
      end
      d[i][j] = v
    end
  end
  return d[#a][#b]
end

--- The known key of a section closest to `key`, if one is close enough to
-- be a misspelling (at most a third of its letters, and at least 1).
function keys.closest(section, key)
  local best, best_d
  local names = {}
  for k in pairs(keys.SECTIONS[section] or {}) do names[#names + 1] = k end
  table.sort(names)
  for _, k in ipairs(names) do
    local d = keys.distance(key:lower(), k)
    if not best_d or d < best_d then best, best_d = k, d end
  end
  if best and best_d <= math.max(1, #key // 3) then return best end
  return nil
end

local function join(path, key)
  return path == "" and key or (path .. "." .. key)
end

-- Where a key is: the command-line option that set it, else its file,
-- line and column.
local function where(r, t, key, path)
  local option = r:override_of(path)
  if not option then -- a section the command line created for a key below it
    local below = {}
    for p, o in pairs(r.overridden) do
      if p:sub(1, #path + 1) == path .. "." then below[#below + 1] = o end
    end
    table.sort(below)
    option = below[1]
  end
  if option then return "set by the command line's " .. option end
  local file, line, col = core.where(t, key)
  if file and line then return string.format("%s:%d:%d", file, line, col or 1) end
  return r.file
end

local function check_section(r, t, path)
  if type(t) ~= "table" or t[1] ~= nil or core.isnull(t) then return end
  local names = {}
  for k in pairs(t) do
    if type(k) == "string" then names[#names + 1] = k end
  end
  table.sort(names)
  for _, k in ipairs(names) do
    local full = join(path, k)
    if not known(path, k) then
      local guess = keys.closest(path, k)
      local at = where(r, t, k, full)
      r:warn(full, string.format("no rule reads this key%s, so its value is not used; %s", at and (" (" .. at .. ")")
        or "", guess and ("did you mean " .. join(path, guess) .. "?") or ("the keys read here are listed in "
        .. "README.md, \"Reading train.yaml\"")), "unknown")
    elseif keys.SECTIONS[full] then
      check_section(r, t[k], full)
    end
  end
end

-- The value at a dotted path of the document, if every step is a mapping.
local function at_path(doc, path)
  local t = doc
  for part in path:gmatch("[^.]+") do
    if type(t) ~= "table" then return nil end
    t = t[part]
  end
  return t
end

--- Warns on every key of the checked sections that no rule reads (with
-- the closest known key), and on every unpriced key stated with another
-- value than ndlua assumes.
-- @tparam table r the reader (nd.train_yaml.values) of the document
function keys.check(r)
  check_section(r, r.doc, "")
  local paths = {}
  for p in pairs(keys.UNPRICED) do paths[#paths + 1] = p end
  table.sort(paths)
  for _, p in ipairs(paths) do
    local v = at_path(r.doc, p)
    local assumed, why = keys.UNPRICED[p][1], keys.UNPRICED[p][2]
    if v ~= nil and not core.isnull(v) and not is_assumed(v, assumed) then
      local parent_path, key = p:match("^(.*)%.([^.]+)$")
      local parent = parent_path and at_path(r.doc, parent_path) or r.doc
      local at = where(r, parent, key or p, p)
      r:warn(p, string.format("is %s%s, which the trainer reads but ndlua does not price: %s; the estimate is "
        .. "for %s", shown(v), at and (" (" .. at .. ")") or "", why, shown(assumed)), "unpriced")
    end
  end
end

return keys
