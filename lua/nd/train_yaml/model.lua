--- The model a train.yaml trains: its `model` section resolved (nd.model.source),
-- then trimmed to what the run's trainer builds. Seed parser
-- `_resolve_model_config_pipeline`, `_without_mtp`, `_builds_vision_tower`;
-- reference model-spec-census-train-yaml.md §e.1 (model.* keys) and §f (multimodal).
-- @module nd.train_yaml.model

local errors = require "nd.errors"
local model_source = require "nd.model.source"
local model_spec = require "nd.model.spec"
local values = require "nd.train_yaml.values"

local model = {}

--- The AutoModels classes that build a vision-language checkpoint's tower;
-- every other named class (`HyperAutoModelForCausalLM`, a recipe's own
-- builder) builds the language model alone and loads the tower's weights as
-- unexpected. Seed `_VISION_TARGETS`.
model.VISION_TARGETS = { "ImageTextToText", "Vision2Seq", "ConditionalGeneration" }

--- The module names in `model.freeze_modules` that freeze the whole vision
-- tower (after a leading `model.` and a trailing `.*`): Qwen-VL's `visual`,
-- and the names other Transformers VLMs give theirs.
model.TOWER_NAMES = { visual = true, vision_tower = true, vision_model = true, vision_encoder = true }

-- reads: model
function model.section(r)
  local v = r.doc.model
  if not values.present(v) then
    r:fail(r.root, "model", "the train.yaml has no model section",
           "a model mapping with pretrained_model_name_or_path or config_overrides")
  end
  -- The path the messages show is "model"; section() refuses a non-mapping.
  local sec = r:section(nil, "model")
  return sec
end

-- The checkpoint key the section states (truthy), as the resolver reads it:
-- model.pretrained_model_name_or_path, else model.config_path.
local function checkpoint_key(sec)
  if values.truthy(sec.t.pretrained_model_name_or_path) then return "pretrained_model_name_or_path" end
  if values.truthy(sec.t.config_path) then return "config_path" end
  return nil
end

-- reads: model.config_overrides.text_config, model.config_overrides.vl
-- The legacy (hyper_v2) trainer's VLM recipes write the language model's
-- fields under config_overrides.text_config, as Transformers nests them,
-- and switch the tower with config_overrides.vl. Neither is a model spec
-- field. Decision: text_config's fields are the spec's own (the spec *is*
-- the text tower, model-spec-census-train-yaml.md §a.3), so they are moved up, a field stated both ways
-- being refused; `vl` is taken out and returned (false: no tower is built).
-- The loaded section is rewritten in place.
local function fold_legacy_overrides(r, sec)
  local over = r:section(sec, "config_overrides")
  if not over.stated then return nil end
  local vl
  if over.t.vl ~= nil then
    vl = r:flag(over, "vl", over.t.vl)
    over.t.vl = nil
  end
  local text = r:section(over, "text_config")
  if text.stated then
    for key, v in pairs(text.t) do
      if not model_spec.is_field(key) then
        r:fail(text, key, "unknown model field '" .. tostring(key) .. "' of the language model",
               "a model field (see lua/nd/README.md)")
      end
      if over.t[key] ~= nil then
        r:fail(text, key, "is stated twice, here and as " .. over.path .. "." .. key, "state it once")
      end
      over.t[key] = v
    end
    over.t.text_config = nil
  end
  return vl
end

-- A legacy config (or any without a checkpoint) must describe the model in
-- config_overrides. The seed does not read model.weights_path (its legacy
-- trainer's checkpoint), and neither does ndlua; a message says so.
local function check_describes_model(r, sec)
  if checkpoint_key(sec) then return end
  local over = sec.t.config_overrides
  over = type(over) == "table" and over or {}
  for key in pairs(over) do
    -- an unknown key: nd.model.source refuses it, with a better message
    if not model_spec.is_field(key) and not model_source.is_run_key(key) then return end
  end
  local missing = {}
  for _, key in ipairs(model_spec.REQUIRED) do
    if not values.present(over[key]) and not values.present(sec.t[key]) then missing[#missing + 1] = key end
  end
  if #missing == 0 then return end
  local message = "names no checkpoint to read the model from (model.pretrained_model_name_or_path or "
    .. "model.config_path), and model.config_overrides does not state " .. table.concat(missing, ", ")
  if values.present(sec.t.weights_path) then
    message = message .. " (model.weights_path " .. values.describe(sec.t.weights_path)
      .. " is the legacy trainer's; ndlua reads no config from it, as the seed parser reads none)"
  end
  r:fail(r.root, "model", message, "set model.config_path to a checkpoint directory or a catalog id "
    .. "(on the command line: --model.config_path=Qwen/Qwen3-8B), or state the model's fields under "
    .. "model.config_overrides")
end

--- Whether the run's model class builds the tower its checkpoint has
-- (seed `_builds_vision_tower`): under the AutoModels schema, a
-- `model._target_` naming one of VISION_TARGETS, or none at all; the
-- legacy schema prices what the checkpoint has, unless config_overrides.vl
-- is false.
-- @treturn boolean built
-- @treturn string why, for the report
function model.builds_vision_tower(r, sec, auto, vl)
  if vl == false then return false, "model.config_overrides.vl is false" end
  if not auto then return true, "the legacy schema builds what the checkpoint has" end
  local target = sec.t._target_
  if not values.truthy(target) then return true, "model._target_ names no class" end
  target = tostring(target)
  for _, name in ipairs(model.VISION_TARGETS) do
    if target:find(name, 1, true) then return true, "model._target_ builds an " .. name .. " model" end
  end
  return false, "model._target_ " .. target:match("[^.]*%.?[^.]*$") .. " builds the language model alone"
end

-- reads: model.freeze_modules
-- Decision (ndlua's, the seed reads no freeze list): an entry naming the
-- whole vision tower (model.visual, visual, vision_tower, ...) freezes it
-- (run.freeze_vision: no gradients or optimizer states for it); any other
-- entry is priced as trained, with a warning, since ndlua prices frozen
-- parts only at the tower's granularity.
function model.read_freeze(r, sec, has_tower)
  local v = sec.t.freeze_modules
  if not values.present(v) then return false end
  local list = type(v) == "table" and v or { v }
  local freeze = false
  for i, entry in ipairs(list) do
    local name = type(entry) == "string" and entry:gsub("%.?%*$", ""):gsub("^model%.", "") or nil
    if name and model.TOWER_NAMES[name] then
      freeze = true
    else
      r:warn("model.freeze_modules[" .. (i - 1) .. "]", values.describe(entry) .. " is not the whole vision "
             .. "tower; ndlua prices frozen modules only for the tower, so it is priced as trained")
    end
  end
  if freeze and not has_tower then
    r:warn("model.freeze_modules", "names the vision tower, which this run does not build")
    return false
  end
  return freeze
end

--- Resolves the model section and trims it to what the trainer builds.
-- @tparam table r the reader
-- @tparam boolean auto whether the document is of the AutoModels schema
-- @tparam table ctx read_context's result (visual_seq_len)
-- @treturn table `{spec = settled spec, source, run_keys, mtp_unpriced,
--   vision = {built, why}, freeze_vision}`
function model.resolve(r, auto, ctx)
  local sec = model.section(r)
  local vl = fold_legacy_overrides(r, sec)
  check_describes_model(r, sec)
  local ok, spec, source, run_keys = pcall(model_source.resolve_model, sec.t, {
    warnings = r.warnings, visual_seq_len = ctx.visual_seq_len > 0 and ctx.visual_seq_len or nil,
  })
  if not ok then
    -- A refusal about a key the command line set points at it, not at the file.
    local err = spec
    if errors.is_bad_input(err) and err.path then r:fail_if_overridden(err.path, err.reason, err.accepted) end
    error(err, 0)
  end
  local out = { spec = spec, source = source, run_keys = run_keys, mtp_unpriced = 0 }
  if auto then
    -- The AutoModels trainer builds the Transformers causal LM, which has no
    -- MTP layer whatever the checkpoint declares (Qwen3.5's mtp.*,
    -- DeepSeek-V3's last layer): it loads their weights as unexpected.
    out.mtp_unpriced = spec.mtp_depth or 0
    if out.mtp_unpriced > 0 then
      r:warn("model", string.format("the model states %d MTP layer%s, which the AutoModels trainer does not "
        .. "build: ndlua prices none", out.mtp_unpriced, out.mtp_unpriced == 1 and "" or "s"))
      local body = {}
      for _, g in ipairs(spec.layers) do
        if not g.mtp then body[#body + 1] = g end
      end
      spec.layers, spec.mtp_depth = body, 0
    end
  end
  local built, why = model.builds_vision_tower(r, sec, auto, vl)
  out.vision = { checkpoint = spec.vision ~= nil, built = spec.vision ~= nil and built, why = why }
  if spec.vision and not built then spec.vision = nil end
  out.freeze_vision = model.read_freeze(r, sec, spec.vision ~= nil)
  return out
end

return model
