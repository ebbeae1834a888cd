--- Where a model's config comes from, and what the model section lays over
-- it. Reference model-spec-census-train-yaml.md §a.3 (_explicit_overrides, exec_overrides), §a.5
-- (config_overrides alone), §e.1 (model.* keys), DESIGN.md "Inputs".
--
-- The config.json is looked for, in order:
--   1. model.pretrained_model_name_or_path (else model.config_path) as a
--      local directory holding config.json (or a .json file itself);
--   2. the Hugging Face cache: model.cache_dir, else $HF_HUB_CACHE, else
--      $HF_HOME/hub, else ~/.cache/huggingface/hub; there
--      models--ORG--NAME/refs/<model.revision or main> names a snapshot
--      under snapshots/ (a revision that is a snapshot name is taken as is);
--      model.subfolder is honoured in both;
--   3. the built-in catalog by hub id (nd.catalog);
--   4. model.config_overrides alone.
-- Nothing is downloaded, ever.
-- @module nd.model.source

local core = require "nd.core"
local errors = require "nd.errors"
local files = require "nd.files"
local catalog = require "nd.catalog"
local model_spec = require "nd.model.spec"
local hf_config = require "nd.hf_config"

local model_source = {}
local placed

--- config_overrides keys that are run facts, not model fields (model-spec-census-train-yaml.md §a.3
-- EXEC_OVERRIDE_KEYS); returned apart as `run`.
model_source.RUN_KEYS = { "offset", "full_rec", "sel_rec", "capacity_factor", "cap_fact", "use_gmm", "gmm",
                          "seq_length" }
local IS_RUN_KEY = {}
for _, k in ipairs(model_source.RUN_KEYS) do IS_RUN_KEY[k] = true end

--- Whether a config_overrides key is a run key (RUN_KEYS).
function model_source.is_run_key(key)
  return IS_RUN_KEY[key] == true
end

local function present(v)
  return v ~= nil and not core.isnull(v)
end

-- A JSON value other than an object, as a message names it.
local function json_describe(v)
  if core.isnull(v) then return "null" end
  if type(v) == "string" then return string.format("the string %q", #v > 40 and v:sub(1, 40) .. "..." or v) end
  return tostring(v)
end

local probe = files.kind

local function read_first_line(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local line = f:read("l")
  f:close()
  return line and line:match("^%s*(.-)%s*$")
end

local function expand_home(path, getenv)
  local home = getenv("HOME")
  if home and path:sub(1, 2) == "~/" then return home .. path:sub(2) end
  return path
end

-- A string key of the section, or nil; anything else is refused.
local function string_key(section, key)
  local v = section[key]
  if not present(v) then return nil end
  if type(v) ~= "string" or v == "" then
    errors.at(section, key, "model." .. key, "must be a non-empty string, got " .. tostring(v))
  end
  return v
end

--- The Hugging Face hub cache directory (model-spec-census-train-yaml.md §e.1 model.cache_dir; the
-- HF_HUB_CACHE / HF_HOME rules of huggingface_hub).
function model_source.hf_cache_dir(section, getenv)
  getenv = getenv or os.getenv
  local stated = section and string_key(section, "cache_dir")
  if stated then return expand_home(stated, getenv), "model.cache_dir" end
  local hub = getenv("HF_HUB_CACHE")
  if hub and hub ~= "" then return hub, "from $HF_HUB_CACHE" end
  local home = getenv("HF_HOME")
  if home and home ~= "" then return home .. "/hub", "from $HF_HOME" end
  return (getenv("HOME") or "~") .. "/.cache/huggingface/hub", "the default location"
end

local function with_subfolder(dir, subfolder)
  return subfolder and (dir .. "/" .. subfolder) or dir
end

-- Step 1: a local directory (or a .json file).
local function find_local(name, subfolder, tried, getenv)
  local path = expand_home(name, getenv)
  if probe(path) == "file" and path:match("%.json$") then
    return { kind = "file", path = path, description = "file " .. path }
  end
  local config = with_subfolder(path, subfolder) .. "/config.json"
  if probe(config) == "file" then
    return { kind = "directory", path = config, description = "directory " .. with_subfolder(path, subfolder) }
  end
  tried[#tried + 1] = config .. "  (a local checkpoint directory)"
end

local function looks_like_hub_id(name)
  return name:match("^[%w][%w%._%-]*/[%w][%w%._%-]*$") or name:match("^[%w][%w%._%-]*$")
end

-- Step 2: the Hugging Face cache.
local function find_hf_cache(name, section, subfolder, tried, getenv)
  local root, why = model_source.hf_cache_dir(section, getenv)
  local repo = root .. "/models--" .. catalog.dirname(name)
  local revision = string_key(section, "revision") or "main"
  local ref = repo .. "/refs/" .. revision
  local snapshot = read_first_line(ref)
  local where = "  (the Hugging Face cache, " .. why .. ")"
  if not snapshot or snapshot == "" then
    if probe(repo .. "/snapshots/" .. revision) ~= "directory" then
      tried[#tried + 1] = ref .. where
      return nil
    end
    snapshot = revision
  end
  local dir = with_subfolder(repo .. "/snapshots/" .. snapshot, subfolder)
  local config = dir .. "/config.json"
  if probe(config) ~= "file" then
    tried[#tried + 1] = config .. where
    return nil
  end
  return { kind = "hf_cache", path = config, id = name, revision = revision, snapshot = snapshot,
           description = string.format("Hugging Face cache %s (revision %s, snapshot %s)", dir, revision, snapshot) }
end

-- Step 3: the built-in catalog.
local function find_catalog(name, tried)
  local id = catalog.find(name)
  if id then
    return { kind = "catalog", path = catalog.path(id), id = id, description = "built-in catalog " .. id }
  end
  tried[#tried + 1] = "the built-in catalog (no id '" .. name .. "')"
end

-- The config_overrides table split into model fields and run keys; unknown
-- keys are refused with their location.
local function split_overrides(section)
  local overrides = section.config_overrides
  if not present(overrides) then return {}, {} end
  if type(overrides) ~= "table" then
    errors.at(section, "config_overrides", "model.config_overrides", "must be a mapping of model fields")
  end
  local fields, run = {}, {}
  for key, v in pairs(overrides) do
    if IS_RUN_KEY[key] then
      if present(v) then run[key] = v end
    elseif model_spec.is_field(key) then
      if present(v) then fields[key] = v end
    else
      errors.at(overrides, key, "model.config_overrides." .. tostring(key),
                "unknown model spec key '" .. tostring(key) .. "': a model spec states the model only, "
                .. "and a run's strategy, such as its recompute, belongs in its execution spec",
                "a model field (see lua/nd/README.md) or a run key (" .. table.concat(model_source.RUN_KEYS, ", ") .. ")")
    end
  end
  return fields, run
end

-- The explicit model fields: canonical fields written directly in the model
-- section, then config_overrides over them (it wins). None and "auto" are
-- not statements (model-spec-census-train-yaml.md §a.3 _explicit_overrides).
local function explicit_fields(section, override_fields)
  local explicit = {}
  for key, v in pairs(section) do
    if key ~= "name" and model_spec.is_scalar_field(key) and present(v) and v ~= "auto" then
      explicit[key] = v
    end
  end
  for key, v in pairs(override_fields) do
    if v ~= "auto" then explicit[key] = v end
  end
  return explicit
end

-- Whether overrides describe a model: any field but torch_dtype (model-spec-census-train-yaml.md §a.5).
local function describes_model(fields)
  for key in pairs(fields) do
    if key ~= "torch_dtype" then return true end
  end
  return false
end

-- The bad-input error when nothing resolves.
local function not_found(section, key, name, tried)
  local lines = {}
  for i, t in ipairs(tried) do lines[i] = "  " .. t end
  local message
  if name then
    message = "cannot find the config.json of '" .. name .. "'; tried:\n" .. table.concat(lines, "\n")
    local near = catalog.closest(name, 3)
    message = message .. "\nclosest catalog ids: " .. table.concat(near, ", ")
  else
    message = "the model section states no pretrained_model_name_or_path, config_path or config_overrides"
  end
  errors.at(section, key, key and ("model." .. key) or "model", message,
            "to fix it, put the checkpoint directory (holding config.json) at that path or in the Hugging Face cache, "
            .. "name a catalog id (ndlua verify.lua --list-models), or state the model's fields under "
            .. "model.config_overrides")
end

-- Looks for the config.json of `name` in the places of steps 1-3.
local function find_config(section, name, getenv)
  local tried = {}
  local subfolder = string_key(section, "subfolder")
  local found = find_local(name, subfolder, tried, getenv)
  if not found and looks_like_hub_id(name) then
    found = find_hf_cache(name, section, subfolder, tried, getenv) or find_catalog(name, tried)
  end
  return found, tried
end

--- Resolves a model section (or a hub id / directory string).
-- @param section the train.yaml `model` mapping, or a string naming a
--   directory, a config.json or a hub id
-- @tparam[opt] table opts `getenv` (default os.getenv), `warnings`
-- @treturn table `{config = decoded config.json or nil, source = {kind,
--   path, id, revision, description}, overrides = model fields (explicit,
--   config_overrides winning), run = run keys, name = model.config_overrides.name
--   or model.name}`
function model_source.resolve(section, opts)
  opts = opts or {}
  local getenv = opts.getenv or os.getenv
  if type(section) == "string" then section = { pretrained_model_name_or_path = section } end
  if type(section) ~= "table" then
    errors.raise { path = "model", message = "the model section must be a mapping" }
  end
  local key = present(section.pretrained_model_name_or_path) and "pretrained_model_name_or_path"
    or present(section.config_path) and "config_path" or nil
  local name = key and string_key(section, key)
  local fields, run = split_overrides(section)
  if run.offset == nil and present(section.offset) then run.offset = section.offset end
  local result = { overrides = explicit_fields(section, fields), run = run,
                   name = fields.name or string_key(section, "name") }
  local found, tried = nil, {}
  if name then found, tried = find_config(section, name, getenv) end
  if found then
    result.config = model_source.load_config(found.path)
    result.source = found
    return result
  end
  if not describes_model(fields) then not_found(section, key, name, tried) end
  if name and opts.warnings then
    opts.warnings:warn("model." .. key, "cannot find the config.json of '" .. name
                       .. "' (tried " .. #tried .. " places); falling back to model.config_overrides")
  end
  result.source = { kind = "overrides", description = "model.config_overrides" }
  return result
end

--- Loads a config.json: one JSON object of the model's fields. Anything
-- else (an array, a number, null) is refused by name, before any field is
-- read from it.
function model_source.load_config(path)
  local config = core.json.load(path)
  local what = type(config) ~= "table" and json_describe(config) or nil
  if not what then
    for k in pairs(config) do
      if type(k) ~= "string" then what = "a JSON array"; break end
    end
    if next(config) == nil and core.json.encode(config) == "[]" then what = "an empty JSON array" end
  end
  if what then
    errors.raise { file = path, message = "a config.json holds one JSON object of the model's fields, got " .. what }
  end
  return config
end

-- The key a config.json states a canonical field under (its own name, an
-- alias such as n_embd, in the file or its text_config), with the table.
local function config_key(config, field)
  for _, t in ipairs({ config, type(config.text_config) == "table" and config.text_config or nil }) do
    if t[field] ~= nil then return t, field end
    for _, aliases in ipairs(hf_config.TEXT_ALIASES) do
      if aliases[1] == field then
        for i = 2, #aliases do
          if t[aliases[i]] ~= nil then return t, aliases[i] end
        end
      end
    end
  end
  return nil
end

-- The key a config.json's vision_config states a tower field under (its
-- own name or an alias such as depth), with the table.
local function vision_key(config, field)
  local vc = config.vision_config
  if type(vc) ~= "table" then return nil end
  for _, aliases in ipairs(hf_config.VISION_ALIASES) do
    if aliases[1] == field then
      for i = 2, #aliases do
        if vc[aliases[i]] ~= nil then return vc, aliases[i] end
      end
    end
  end
  if vc[field] ~= nil then return vc, field end
  return nil
end

-- A refusal about a vision tower's field (path vision.FIELD) placed where
-- the field was stated: model.config_overrides.vision, else the
-- config.json's vision_config; nil when neither states it.
local function placed_vision(err, section, found, field)
  local t, key, shown
  local over = type(section.config_overrides) == "table" and section.config_overrides.vision
  if type(over) == "table" and over[field] ~= nil then
    t, key, shown = over, field, "model.config_overrides.vision." .. field
  elseif found.config then
    t, key = vision_key(found.config, field)
    shown = key and ("vision_config." .. key)
  end
  if not t then return nil end
  local file, line, col = core.where(t, key)
  return errors.new { file = file or (found.source or {}).path, line = line, col = col, path = shown,
                      message = err.reason, accepted = err.accepted }
end

-- A model-spec refusal about a field (its path a bare field name, or
-- vision.FIELD for the tower's) placed where the field was stated:
-- model.config_overrides (which wins), the model section, else the
-- config.json, with file, line and column. Other errors pass unchanged.
function placed(err, section, found)
  if type(err) ~= "table" or not err.bad_input or err.file or type(err.path) ~= "string"
     or type(section) ~= "table" then
    return err
  end
  local tower_field = err.path:match("^vision%.([%w_]+)$")
  if tower_field then return placed_vision(err, section, found, tower_field) or err end
  if not err.path:match("^[%w_]+$") then return err end
  local field = err.path
  local overrides = section.config_overrides
  local t, key, shown
  if type(overrides) == "table" and overrides[field] ~= nil then
    t, key, shown = overrides, field, "model.config_overrides." .. field
  elseif section[field] ~= nil then
    t, key, shown = section, field, "model." .. field
  elseif found.config then
    t, key = config_key(found.config, field)
    shown = key and ((t == found.config and "" or "text_config.") .. key)
  end
  if not t then
    -- a field nothing states (a required one missing): the source is named
    local source = found.source or {}
    if source.path then return errors.new { file = source.path, path = field, message = err.reason,
                                             accepted = err.accepted } end
    return err
  end
  local file, line, col = core.where(t, key)
  return errors.new { file = file or (found.source or {}).path, line = line, col = col, path = shown,
                      message = err.reason, accepted = err.accepted }
end

--- Resolves a model section (or a hub id / directory string) to its
-- settled spec: the config found, mapped (nd.hf_config), the explicit
-- fields laid over it, validated and settled (nd.model.spec).
-- @tparam[opt] table opts `getenv`, `warnings`, `visual_seq_len`
-- @treturn table the settled spec
-- @treturn table the source `{kind, path, id, revision, description}`
-- @treturn table the run keys of config_overrides
function model_source.resolve_model(section, opts)
  opts = opts or {}
  local found = model_source.resolve(section, opts)
  local spec
  if found.config then
    hf_config.check_supported(found.config, found.source.path, found.overrides.arch)
    spec = hf_config.to_spec(found.config, { path = found.source.path, visual_seq_len = opts.visual_seq_len,
                                             warnings = opts.warnings })
  else
    spec = { name = found.name or "custom" }
  end
  for key, v in pairs(found.overrides) do spec[key] = v end
  local ok, settled = pcall(model_spec.settle, spec, { warnings = opts.warnings, visual_seq_len = opts.visual_seq_len,
                                                       where = "model.config_overrides" })
  if not ok then error(placed(settled, section, found), 0) end
  return settled, found.source, found.run
end

return model_source
