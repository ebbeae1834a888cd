--- resolved.yaml: the train.yaml with the strategy a search chose written
-- in, for the trainer (reference/search-ranking-cli.md §a.8). The document
-- keeps its keys in the order written (nd.yaml keeps it); comments are not
-- kept; keys the strategy adds go after the others of their section
-- (sorted, as nd.yaml writes keys added to a loaded table).
--
-- AutoModels schema: accelerator.tp_size, pp_size, cp_size, ep_size,
-- pp_interleave_num and sequence_parallel; fsdp_config.dp_shard_size (the
-- candidate's OP); training.global_batch_size and micro_batch_size
-- (micro_batch_num is derived by the trainer, and set only where the yaml
-- states it); activation_checkpoint.mode (its per-layer `layers` plan
-- removed). Legacy schema (train.*): train.accelerator.dp_shard,
-- dp_replicate, tp_degree, pipeline_parallel_degree, context_parallel_degree,
-- expert_parallel_degree, pp_interleave_num, sequence_parallel;
-- train.global_batch_size, micro_batch_size, micro_batch_num;
-- train.gradient_checkpointing.activation_checkpoint (off spelled none).
--
-- Both: the cost-model-only `context` section is left out, and the keys of
-- model.config_overrides that would override the strategy (offset,
-- full_rec, sel_rec) are removed: the candidate's stages are balanced and
-- it recomputes one mode in every layer.
-- @module nd.resolved_yaml

local core = require "nd.core"

local resolved = {}

-- A mapping under `t` at `key`, created (appended) when absent.
local function section(t, key)
  local s = t[key]
  if type(s) ~= "table" or core.isnull(s) then
    s = {}
    t[key] = s
  end
  return s
end

-- Sets the canonical key, and any other key of its fallback chain the yaml
-- states (so no stale value wins over it).
local function set(t, keys, value)
  t[keys[1]] = value
  for i = 2, #keys do
    if t[keys[i]] ~= nil then t[keys[i]] = value end
  end
end

local function drop_overrides(doc, notes)
  local model = type(doc.model) == "table" and doc.model or nil
  if not model then return end
  for _, holder in ipairs({ model.config_overrides, model }) do
    if type(holder) == "table" then
      for _, key in ipairs({ "offset", "full_rec", "sel_rec" }) do
        if holder[key] ~= nil then
          holder[key] = nil
          notes[#notes + 1] = (holder == model and "model." or "model.config_overrides.") .. key
        end
      end
    end
  end
end

-- The degrees written to plain accelerator keys (a dimension's yaml_key and
-- legacy_key, nd.core.search_dims), in the reports' order: the schema's key
-- first, the other schema's after it.
local function set_degrees(a, c, legacy_first)
  for _, col in ipairs(core.search_columns) do
    local d = col.dim
    if d and d.yaml_key then
      set(a, legacy_first and { d.legacy_key, d.yaml_key } or { d.yaml_key, d.legacy_key }, c[d.key])
    end
  end
end

local function automodels(doc, c)
  local a = section(doc, "accelerator")
  set_degrees(a, c, false)
  if c.vpp > 1 or a.pp_interleave_num ~= nil then a.pp_interleave_num = c.vpp end
  if c.sp or a.sequence_parallel ~= nil then a.sequence_parallel = c.sp end
  if a.use_seq_parallel ~= nil then a.use_seq_parallel = c.sp end
  section(doc, "fsdp_config").dp_shard_size = c.op
  local t = section(doc, "training")
  t.global_batch_size = c.dp * c.mb * c.mbs
  t.micro_batch_size = c.mbs
  if t.micro_batch_num ~= nil then t.micro_batch_num = c.mb end
  local ac = section(doc, "activation_checkpoint")
  ac.mode = c.recompute
  ac.layers = nil
end

local function legacy(doc, c)
  local train = section(doc, "train")
  local a = section(train, "accelerator")
  local shard = c.dp % c.op == 0 and c.op or c.dp
  a.dp_shard = shard
  a.dp_replicate = c.dp // shard
  set_degrees(a, c, true)
  if c.vpp > 1 or a.pp_interleave_num ~= nil then a.pp_interleave_num = c.vpp end
  if a.use_seq_parallel ~= nil and a.sequence_parallel == nil then
    a.use_seq_parallel = c.sp
  else
    a.sequence_parallel = c.sp
  end
  -- the optimizer shard as the legacy reader takes it: enable_parallel_optimizer
  -- (default on) over optimizer_weight_shard_size (default: all of dp)
  if c.op > 1 then
    if a.enable_parallel_optimizer ~= nil then a.enable_parallel_optimizer = true end
    if c.op ~= c.dp or a.optimizer_weight_shard_size ~= nil then a.optimizer_weight_shard_size = c.op end
  else
    a.enable_parallel_optimizer = false
    a.optimizer_weight_shard_size = nil
  end
  local t = type(doc.training) == "table" and doc.training or train
  t.global_batch_size = c.dp * c.mb * c.mbs
  t.micro_batch_size = c.mbs
  if t.micro_batch_num ~= nil then t.micro_batch_num = c.mb end
  local mode = c.recompute == "off" and "none" or c.recompute
  if type(doc.activation_checkpoint) == "table" and doc.activation_checkpoint.mode ~= nil then
    doc.activation_checkpoint.mode = c.recompute
    doc.activation_checkpoint.layers = nil
  end
  section(train, "gradient_checkpointing").activation_checkpoint = mode
end

--- Writes a candidate's strategy into a loaded train.yaml (in place).
-- @tparam table doc the document (nd.yaml.load, with the command line's overrides)
-- @tparam string schema "automodels" or "legacy" (nd.train_yaml.schema)
-- @tparam table c the candidate (result:candidate(i))
-- @treturn table the key paths removed besides `context` (for a note)
function resolved.apply(doc, schema, c)
  local notes = {}
  doc.context = nil
  drop_overrides(doc, notes)
  if schema == "automodels" then automodels(doc, c) else legacy(doc, c) end
  return notes
end

-- The key of a stated per-stage recompute list, by its mode.
local PLAN_KEYS = { full = "full_rec", selective = "sel_rec" }

--- Writes a balanced plan into a loaded train.yaml (in place):
-- model.config_overrides.offset and the plan's recompute list (full_rec or
-- sel_rec: the first layers of each stage, or of each chunk), as
-- nd.balance_run.changes states them; the other list removed and the
-- run-wide mode set off under them (the lists win over the mode, and no
-- layer outside them recomputes).
-- @tparam table doc the document
-- @tparam string schema "automodels" or "legacy"
-- @tparam table changes nd.balance_run.changes' fields
-- @tparam number chunks the run's virtual chunks (one list per chunk when more than one)
function resolved.apply_plan(doc, schema, changes, chunks)
  local model = section(doc, "model")
  local over = section(model, "config_overrides")
  model.offset, model.full_rec, model.sel_rec = nil, nil, nil
  over.offset = chunks == 1 and changes.offset[1] or changes.offset
  over.full_rec, over.sel_rec = nil, nil
  for mode, key in pairs(PLAN_KEYS) do
    local list = changes[mode == "full" and "full_recompute" or "selective_recompute"]
    if type(list) == "table" then over[key] = list end
  end
  if schema == "automodels" then
    local ac = section(doc, "activation_checkpoint")
    ac.mode, ac.layers = "off", nil
  else
    section(section(doc, "train"), "gradient_checkpointing").activation_checkpoint = "none"
    if type(doc.activation_checkpoint) == "table" and doc.activation_checkpoint.mode ~= nil then
      doc.activation_checkpoint.mode, doc.activation_checkpoint.layers = "off", nil
    end
  end
end

--- Writes the document to `path`; a bad-input error when it cannot.
function resolved.write(path, doc)
  require("nd.files").write(path, core.yaml.encode(doc), "the resolved yaml")
end

return resolved
