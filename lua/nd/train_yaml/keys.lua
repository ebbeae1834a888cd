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

local function set(list)
  local s = {}
  for _, k in ipairs(list) do s[k] = true end
  return s
end

-- The keys of each checked section: those ndlua's rules read (README,
-- "Reading train.yaml"), then those of the trainer's schemas that it does
-- not need (as the upstream recipes of ../shared/examples-upstream state
-- them). Sections not listed (dataset's loaders, checkpoint, profiling,
-- compile, lr_scheduler, ...) are the trainer's alone and are not checked.
local ACCELERATOR = {
  "tp_size", "tp_degree", "pp_size", "pipeline_parallel_degree", "cp_size", "context_parallel_degree", "ep_size",
  "expert_parallel_degree", "expert_tensor_parallel_degree", "pp_interleave_num", "dp_shard", "dp_replicate",
  "sequence_parallel", "use_seq_parallel", "pipeline_scheduler", "context_parallel_algo", "loss_parallel",
  "enable_parallel_optimizer", "optimizer_weight_shard_size", "gradient_accumulation_shard",
  -- the trainer's, not priced
  "comm_fusion",
}
local TRAINING = {
  "micro_batch_size", "micro_batch_num", "global_batch_size", "max_grad_norm",
  -- the trainer's
  "backend", "enable_full_determinism", "eval_iters", "init_device", "loss_aggregation", "seed", "train_iters",
  "train_samples", "max_steps", "num_train_epochs", "logging", "checkpoint", "debug",
}
local OPTIMIZER = {
  "_target_", "type", "fp32_main_params", "max_grad_norm",
  -- the trainer's
  "adamw_config", "muon_config", "no_decay_params", "betas", "eps", "loss_aggregation", "lr", "lr_decay_style",
  "lr_min", "lr_warmup_ratio", "weight_decay",
}

keys.SECTIONS = {
  [""] = set {
    "model", "training", "accelerator", "fsdp_config", "activation_checkpoint", "context", "optimizer", "dataset",
    "data", "train", "plan_overrides", "model_init_dtype",
    -- the trainer's (and the legacy planner's)
    "activation_swap", "checkpoint", "compile", "dataloader", "debug", "lr_scheduler", "mixed_precision",
    "profiler", "profiling", "base_arch_mem_comp", "comm_expr", "default_pp_sched", "nodes_mem_comp", "passes",
    "pp_sched",
  },
  accelerator = set(ACCELERATOR),
  ["train.accelerator"] = set(ACCELERATOR),
  training = set(TRAINING),
  train = set((function()
    local t = { "accelerator", "gradient_checkpointing", "mixed_precision", "optimizer" }
    for _, k in ipairs(TRAINING) do t[#t + 1] = k end
    return t
  end)()),
  optimizer = set(OPTIMIZER),
  ["train.optimizer"] = set(OPTIMIZER),
  fsdp_config = set {
    "dp_shard_size", "edp_shard_size", "reshard_after_forward", "reshard_after_backward", "mix_precision",
    "recompute_slice_activation",
    -- the trainer's
    "backward_prefetch_depth", "forward_prefetch_depth", "comm_fusion", "replicate_params", "requires_grad_sync",
    -- read: offload prices the host's share (fsdp_config.enable_offload)
    "enable_offload",
  },
  activation_checkpoint = set { "mode", "recompute_slice_activation" },
  ["train.gradient_checkpointing"] = set { "activation_checkpoint", "recompute_slice_activation" },
  context = set {
    "device_num", "max_device_memory", "visual_seq_len", "census", "census_spec", "expert_shard", "moe_dispatch",
    "recompute", "balance", "deepep", "ep_node_limit",
  },
  dataset = set { "data_transform", "data_config", "_target_", "data_path", "model_assets" },
  ["dataset.data_transform"] = set { "max_seq_len", "_target_", "data_type", "text_keys" },
  data = set { "max_seq_len", "num_workers", "pin_memory", "shuffle", "train_path", "type", "vl_grid_h", "vl_grid_t",
               "vl_grid_w" },
  model = set {
    "pretrained_model_name_or_path", "config_path", "config_overrides", "revision", "subfolder", "name", "_target_",
    "torch_dtype", "param_init_type", "compute_dtype", "softmax_compute_type", "freeze_modules", "offset",
    -- the trainer's
    "attn_implementation", "experts_implementation", "force_hf", "ignore_mismatched_sizes", "local_files_only",
    "tokenizer_path", "validate_placement", "weights_path", "trust_remote_code", "cache_dir",
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
