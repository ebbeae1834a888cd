--- Op profiles: the layer kinds of a model family, their op counts and the
-- family's run defaults, as Lua data files `nd/profiles/<arch>.lua`.
-- Reference model-spec-census-train-yaml.md §b.1 (profiles, DEFAULT_RUN), §a.3 (infer_arch),
-- memory-model.md §4.8 (what the run defaults mean), §5.2 (counts).
--
-- A profile file is found on the Lua path as module `nd.profiles.<arch>`,
-- so a directory on NDLUA_PATH holding `nd/profiles/<arch>.lua` adds a
-- profile or replaces a built-in one; `profiles.load_file` and
-- `profiles.register` add one from a script. Files are read as data: they
-- run with an empty environment.
--
-- A profile may extend another (`extends = "default"`) and state only what
-- differs from it: each kind it names starts from the base's kind of that
-- name, else from the base's default kind, and overlays the ops, attention
-- and ffn it states; naming no kinds keeps the base's; `run` and `model`
-- overlay the base's; `default` is the base's while the profile has that
-- kind.
-- @module nd.profiles

local core = require "nd.core"
local errors = require "nd.errors"
local files = require "nd.files"

local profiles = {}

--- The op vector, in its serialisation order (model-spec-census-train-yaml.md §b.1).
profiles.OP_NAMES = { "attMM", "attBMM", "ffMM", "softmax", "dropout", "normOp",
                      "gather", "headCast", "ffAct", "linrec" }

--- The profiles shipped in lua/nd/profiles/.
profiles.BUILTIN = { "default", "llama", "llama2", "mistral", "phi3", "gemma", "qwen", "qwen3_5", "deepseek",
                     "mixtral", "t5", "pangualpha", "cm", "vision", "gpt" }

-- DEFAULT_RUN (model-spec-census-train-yaml.md §b.1, memory-model.md §4.8) plus flash_attention: the
-- family run facts a profile's `run` may override. kind: "bytes" = a whole
-- number >= 0, "count" = a whole number >= 0, "flag" = a boolean. The
-- defaults are the C core's (src/binding/lnd_model.c FAMILY_FIELDS, nd.core.defaults.family),
-- stated there once.
local FAMILY_DEFAULTS = core.defaults.family
local RUN_FIELDS = {}
for i, f in ipairs {
  { "grad_bytes", "bytes" }, { "optimizer_state_bytes", "bytes" }, { "optimizer_states", "count" },
  { "main_param_bytes", "bytes" }, { "norm_bytes", "bytes" }, { "dropout_bytes", "bytes" },
  { "grad_accumulation", "flag" }, { "shard_activations", "flag" }, { "loss_parallel", "flag" },
  { "reshard_params", "flag" }, { "deferred_grad_accumulation", "flag" }, { "overlapped_grad_reduce", "flag" },
  { "flash_attention", "flag" },
} do
  assert(FAMILY_DEFAULTS[f[1]] ~= nil, "nd.core.defaults.family has no " .. f[1])
  RUN_FIELDS[i] = { f[1], FAMILY_DEFAULTS[f[1]], f[2] }
end

-- The family's implementation facts a profile's `model` may state (each
-- false unless stated), which the C core's model prices (src/core/model.h):
-- zero_centered_norms, Qwen3.5's zero-centred norms kept in fp32;
-- sigmoid_router, DeepSeek's (and cm's) router scored by an fp32 sigmoid;
-- no_rope, a family whose layers rotate no queries and keys (GPT's and
-- PanGu-alpha's learned positions, T5's relative bias), so the step time
-- prices no rotary embedding.
-- A layer kind's attention and FFN kinds, stated once in the C core
-- (src/core/model.c ATTENTION_KINDS, FFN_KINDS).
local ATTENTIONS, FFNS = core.types.model.choices.attention, core.types.model.choices.ffn

local MODEL_FLAG_NAMES = { "zero_centered_norms", "sigmoid_router", "no_rope" }
local MODEL_FLAGS = {}
for _, k in ipairs(MODEL_FLAG_NAMES) do MODEL_FLAGS[k] = true end

local RUN_KIND = {}
for _, f in ipairs(RUN_FIELDS) do RUN_KIND[f[1]] = f[3] end

--- The default run table: DEFAULT_RUN plus `flash_attention = true` (a new table).
function profiles.default_run()
  local run = {}
  for _, f in ipairs(RUN_FIELDS) do run[f[1]] = f[2] end
  return run
end

--- The names of the run facts, in order.
function profiles.run_names()
  local out = {}
  for i, f in ipairs(RUN_FIELDS) do out[i] = f[1] end
  return out
end

-- Name prefixes -> arch (model-spec-census-train-yaml.md §a.3 infer_arch, plus gpt; qwen3_next added:
-- Qwen3-Next is the Qwen3.5 hybrid of linear and full attention, which
-- the qwen profile would price as full attention throughout).
local ARCH_PREFIXES = {
  llama2 = "llama2", mixtral = "mixtral", t5 = "t5", pangualpha = "pangualpha",
  deepseek = "deepseek", qwen3_5 = "qwen3_5", ["qwen3.5"] = "qwen3_5",
  qwen3_next = "qwen3_5", qwen = "qwen", cm = "cm", gpt = "gpt",
  -- issue 13: the families of nd.hf_config.SUPPORTED with a profile each
  llama = "llama", mistral = "mistral", phi3 = "phi3", gemma = "gemma",
}

local registered = {}   -- arch -> checked profile (from files or register)

local function sorted_keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out, function(a, b) return tostring(a) < tostring(b) end)
  return out
end

-- The integer a whole number is (3.0 is 3); nil for anything else.
local function whole(v)
  return type(v) == "number" and math.tointeger(v) or nil
end

local function fail(file, path, message, accepted)
  errors.raise { file = file, path = path, message = message, accepted = accepted }
end

-- Checks one kind of a profile; returns {ops, attention, ffn}.
local function check_kind(kind, body, file)
  local where = "kinds." .. kind
  if type(body) ~= "table" or type(body.ops) ~= "table" then
    fail(file, where, "a layer kind needs an ops table", "ops = { attMM = 4, ... }")
  end
  for key in pairs(body) do
    if key ~= "ops" and key ~= "attention" and key ~= "ffn" then
      fail(file, where .. "." .. tostring(key), "unknown key of a layer kind", "ops, attention, ffn")
    end
  end
  local ops, known = {}, {}
  for _, op in ipairs(profiles.OP_NAMES) do
    known[op] = true
    local v = body.ops[op]
    if v == nil then
      fail(file, where .. ".ops." .. op, "the op vector lacks " .. op, "every op of " .. table.concat(profiles.OP_NAMES, ", "))
    end
    ops[op] = whole(v)
    if not ops[op] or ops[op] < 0 then
      fail(file, where .. ".ops." .. op, "an op count must be a whole number >= 0, got " .. tostring(v))
    end
  end
  for op in pairs(body.ops) do
    if not known[op] then
      fail(file, where .. ".ops." .. tostring(op), "unknown op", table.concat(profiles.OP_NAMES, ", "))
    end
  end
  local attention = body.attention or ATTENTIONS[1]
  if not ATTENTIONS.canonical[attention] then
    fail(file, where .. ".attention", "attention must be " .. ATTENTIONS.accepted .. ", got " .. tostring(attention))
  end
  -- the first FFN kind is the model's own, which an absent ffn states
  if body.ffn ~= nil and (body.ffn == FFNS[1] or not FFNS.canonical[body.ffn]) then
    fail(file, where .. ".ffn", "ffn must be " .. table.concat(FFNS, ", ", 2) .. " or absent, got "
      .. tostring(body.ffn))
  end
  return { ops = ops, attention = attention, ffn = body.ffn }
end

-- Checks the run and model defaults of a profile.
local function check_defaults(p, file)
  local run = {}
  for key, v in pairs(p.run or {}) do
    local kind = RUN_KIND[key]
    if not kind then
      fail(file, "run." .. tostring(key), "unknown run default", table.concat(profiles.run_names(), ", "))
    elseif kind == "flag" and type(v) ~= "boolean" then
      fail(file, "run." .. key, "must be true or false, got " .. tostring(v))
    elseif kind ~= "flag" and (not whole(v) or v < 0) then
      fail(file, "run." .. key, "must be a whole number >= 0, got " .. tostring(v))
    end
    if kind == "flag" then run[key] = v else run[key] = whole(v) end
  end
  local model = {}
  for key, v in pairs(p.model or {}) do
    if MODEL_FLAGS[key] then
      if type(v) ~= "boolean" then fail(file, "model." .. key, "must be true or false, got " .. tostring(v)) end
      model[key] = v
    elseif key ~= "v_head_dim" then
      fail(file, "model." .. tostring(key), "a profile's model defaults may only state v_head_dim, "
        .. table.concat(MODEL_FLAG_NAMES, ", "))
    else
      model.v_head_dim = whole(v)
      if not model.v_head_dim or model.v_head_dim <= 0 then
        fail(file, "model.v_head_dim", "must be a positive whole number, got " .. tostring(v))
      end
    end
  end
  return run, model
end

local resolving = {}     -- arch -> true while the bases of its `extends` are being found
local find               -- (arch) -> the checked profile of a file on the Lua path, nil if none

-- A copy of `own` laid over a copy of `base`; `own` itself when it is no table.
local function overlay(base, own)
  if own ~= nil and type(own) ~= "table" then return own end
  local out = {}
  for k, v in pairs(base or {}) do out[k] = v end
  for k, v in pairs(own or {}) do out[k] = v end
  return out
end

-- The base profile `p.extends` names, checked.
local function base_of(p, name, file)
  local arch = p.extends
  if type(arch) ~= "string" then
    fail(file, "extends", "names the op profile this one extends, got " .. tostring(arch))
  end
  if resolving[arch] then
    fail(file, "extends", "'" .. arch .. "' extends " .. tostring(name) .. ", directly or through its own base",
         "a base that does not lead back to this profile")
  end
  resolving[name] = true
  local ok, base = pcall(function() return registered[arch] or find(arch) end)
  resolving[name] = nil
  if not ok then error(base, 0) end
  if not base then
    fail(file, "extends", "unknown op profile '" .. arch .. "'", "the op profiles are "
         .. table.concat(profiles.known_archs(), ", "))
  end
  return base
end

-- One kind of a profile extending `base`: its own keys over the base's
-- kind of that name, else over the base's default kind.
local function inherit_kind(kind, body, base, file)
  local from = base.kinds[kind] or base.kinds[base.default]
  if not from then
    fail(file, "kinds." .. tostring(kind), "op profile '" .. base.name .. "' has no kind " .. tostring(kind)
         .. " and no default kind to start it from", table.concat(base.kind_names, ", "))
  end
  if type(body) ~= "table" then return body end
  local out = overlay({ attention = from.attention, ffn = from.ffn }, body)
  out.ops = overlay(from.ops, body.ops)
  return out
end

-- The profile table `p` with what it leaves to its base filled in from
-- that base: a profile table stating everything.
local function inherit(p, name, file)
  local base = base_of(p, name, file)
  local kinds = p.kinds
  if kinds == nil then
    kinds = base.kinds
  elseif type(kinds) == "table" then
    kinds = {}
    for kind, body in pairs(p.kinds) do kinds[kind] = inherit_kind(kind, body, base, file) end
  end
  local default = p.default
  if default == nil and type(kinds) == "table" and kinds[base.default] then default = base.default end
  return { kinds = kinds, default = default, run = overlay(base.run, p.run), model = overlay(base.model, p.model) }
end

--- Checks a profile table and returns it normalised:
-- `{name, file, extends, default, kinds = {[kind] = {ops, attention, ffn}}, kind_names, run, model}`.
-- A profile naming another in `extends` states only what differs from it.
-- Raises a bad-input error naming the file and key otherwise.
function profiles.check(p, name, file)
  file = file or ("profile " .. tostring(name))
  if type(p) ~= "table" then fail(file, nil, "an op profile must return a table") end
  for key in pairs(p) do
    if key ~= "kinds" and key ~= "default" and key ~= "run" and key ~= "model" and key ~= "extends" then
      fail(file, tostring(key), "unknown key of an op profile", "extends, kinds, default, run, model")
    end
  end
  local extends = p.extends
  if extends ~= nil then p = inherit(p, name or file, file) end
  if type(p.kinds) ~= "table" or next(p.kinds) == nil then
    fail(file, "kinds", "an op profile needs at least one layer kind")
  end
  local kinds = {}
  for kind, body in pairs(p.kinds) do
    if type(kind) ~= "string" or kind == "" then fail(file, "kinds", "kind names must be non-empty strings") end
    kinds[kind] = check_kind(kind, body, file)
  end
  local kind_names = sorted_keys(kinds)
  local default = p.default
  if default == nil and #kind_names == 1 then default = kind_names[1] end
  if default ~= nil and not kinds[default] then
    fail(file, "default", "names kind '" .. tostring(default) .. "', which the profile does not declare",
         table.concat(kind_names, ", "))
  end
  local run, model = check_defaults(p, file)
  return { name = name, file = file, extends = extends, default = default, kinds = kinds, kind_names = kind_names,
           run = run, model = model }
end

--- Registers a profile table under `name` (checked), replacing any.
function profiles.register(name, p, file)
  if type(name) ~= "string" or not name:match("^[%w_]+$") then
    errors.raise { message = "an op profile name is letters, digits and _, got " .. tostring(name) }
  end
  registered[name] = profiles.check(p, name, file)
  return registered[name]
end

--- Loads a profile file (plain data) and registers it under `name`
-- (default: the file's base name).
function profiles.load_file(path, name)
  name = name or path:match("([^/]+)%.lua$")
  local p, err, step = files.run_data(path)
  if err then
    local what = step == "read" and "cannot read the op profile: " or "the op profile failed: "
    errors.raise { file = path, message = what .. err }
  end
  return profiles.register(name, p, path)
end

--- The archs known: the built-in ones and any registered, sorted.
function profiles.known_archs()
  local set = {}
  for _, a in ipairs(profiles.BUILTIN) do set[a] = true end
  for a in pairs(registered) do set[a] = true end
  return sorted_keys(set)
end

-- Finds and loads the profile file of `arch` on the Lua path, nil if none.
function find(arch)
  if type(arch) ~= "string" or not arch:match("^[%w_]+$") then return nil end
  local path = package.searchpath("nd.profiles." .. arch, package.path)
  if not path then return nil end
  return profiles.load_file(path, arch)
end

--- The checked profile of `arch`; an unknown arch is a bad-input error
-- listing the known ones (`path` names the key it was read from).
function profiles.get(arch, path)
  local p = registered[arch] or find(arch)
  if p then return p end
  errors.raise { path = path or "arch",
                 message = "unknown arch '" .. tostring(arch) .. "'",
                 accepted = "the op profiles are " .. table.concat(profiles.known_archs(), ", ") }
end

--- The arch of a model name: the longest of the known name prefixes the
-- lowercased name starts with, else "default" with one warning per name.
-- @tparam string name the model name (model_type)
-- @param[opt] warnings a collector from nd.warnings
function profiles.infer_arch(name, warnings)
  local lower = tostring(name or ""):lower()
  local best, best_len = nil, 0
  for prefix, arch in pairs(ARCH_PREFIXES) do
    if #prefix > best_len and lower:sub(1, #prefix) == prefix then
      best, best_len = arch, #prefix
    end
  end
  if best then return best end
  if warnings then
    warnings:warn(string.format("no op profile matches model '%s', pricing it as 'default'; declare arch to choose one",
                                tostring(name)))
  end
  return "default"
end

--- The family facts of `arch` (nil or unknown: default): DEFAULT_RUN with
-- flash_attention, overlaid with the profile's run defaults, plus the
-- profile's model default `v_head_dim` (nil unless stated).
function profiles.family(arch)
  local p = registered[arch] or find(arch) or profiles.get("default")
  local run = profiles.default_run()
  for k, v in pairs(p.run) do run[k] = v end
  run.v_head_dim = p.model.v_head_dim
  for _, k in ipairs(MODEL_FLAG_NAMES) do run[k] = p.model[k] == true end
  return run
end

return profiles
