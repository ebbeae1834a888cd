--- The train.yaml a model id implies, so that a new user can start from the
-- model: `ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 -b 64` and
-- `ndlua search.lua deepseek-ai/DeepSeek-V3 -d 1024 -b 1024` read the
-- HyperParallel train.yaml (AutoModels schema) their options state, built
-- here and printed with --print-yaml. The run options the scripts share
-- (--tp --pp --cp --ep, -b, --seq, --zero) are also overrides of a
-- train.yaml given as a file.
--
-- What the built yaml states when no option does, as HyperParallel's own
-- recipes run: FSDP over every data-parallel rank (fsdp_config.dp_shard_size
-- = dp, ZeRO-3), full activation checkpointing, AdamW, micro-batches of one
-- sequence of 4096 tokens, a global batch of one micro-batch a
-- data-parallel rank (pp of them under a pipeline).
-- @module nd.model_yaml

local errors = require "nd.errors"
local files = require "nd.files"
local overrides = require "nd.overrides"

local model_yaml = {}

model_yaml.DEFAULT_SEQUENCE = 4096

--- The options estimate.lua and search.lua share, as nd.cli declares them
-- (the degrees are estimate.lua's only: a search varies them).
model_yaml.DEGREE_OPTIONS = {
  { name = "tp", arg = "N", help = "tensor-parallel degree (accelerator.tp_size)" },
  { name = "pp", arg = "N", help = "pipeline stages (accelerator.pp_size)" },
  { name = "cp", arg = "N", help = "context-parallel degree (accelerator.cp_size)" },
  { name = "ep", arg = "N", help = "expert-parallel degree (accelerator.ep_size)" },
}
model_yaml.RUN_OPTIONS = {
  { name = "seq", arg = "TOKENS", help = "training sequence (dataset.data_transform.max_seq_len; 4096 for a model id)" },
  { name = "zero", arg = "STAGE",
    help = "ZeRO stage as HyperParallel's FSDP states it: 3 shards the weights over every data-parallel rank, "
      .. "2 keeps them gathered from forward to backward, 0 shards nothing (default 3 for a model id)" },
  { name = "print-yaml", help = "print the train.yaml read (built from a model id, or the file with the options "
      .. "applied) and exit" },
}

--- Whether a positional argument names a model rather than a train.yaml:
-- not named *.yaml, a directory (a checkpoint with its config.json), or
-- ORG/NAME that is no file (a hub id: the Hugging Face cache, else the
-- built-in catalog).
function model_yaml.is_model_ref(arg)
  if type(arg) ~= "string" then return false end
  if arg:match("%.ya?ml$") then return false end
  local kind = files.kind(arg)
  if kind == "directory" then return true end
  if kind then return false end
  return arg:match("^[%w][%w%._%-]*/[%w][%w%._%-]*$") ~= nil
end

local function count(opts, key, option)
  local v = opts[key]
  if v == nil then return nil end
  local n = math.tointeger(tonumber(v))
  if not n or n < 1 then
    errors.raise { path = option, message = "takes a whole number above 0, got '" .. tostring(v) .. "'" }
  end
  return n
end

--- The run options as numbers, checked (each nil when not given).
function model_yaml.read_options(opts)
  local o = {}
  for _, k in ipairs({ "tp", "pp", "cp", "ep", "seq" }) do o[k] = count(opts, k, "--" .. k) end
  if opts.zero ~= nil then
    local z = math.tointeger(tonumber(opts.zero))
    if z == 1 then
      errors.raise { path = "--zero", message = "ZeRO-1 (optimizer states alone sharded) has no train.yaml key: "
        .. "HyperParallel's FSDP shards the weights too", accepted = "--zero 0, 2 or 3" }
    end
    if z ~= 0 and z ~= 2 and z ~= 3 then
      errors.raise { path = "--zero", message = "is a ZeRO stage, got '" .. tostring(opts.zero) .. "'",
                     accepted = "0, 2 or 3" }
    end
    o.zero = z
  end
  return o
end

-- doc[a][b] = v, creating the section.
local function set(doc, a, b, v)
  if type(doc[a]) ~= "table" then doc[a] = {} end
  doc[a][b] = v
end

-- The keys the run options set, and how each option is shown: a value the
-- train.yaml reader refuses is refused at the option ("command line -b
-- 20000000: training.global_batch_size: ..."), as a --section.key=value
-- override's is (nd.overrides' registry), not at a key of the file.
local OPTION_KEYS = {
  { "global_batch", "-b", "training.global_batch_size" }, { "devices", "-d", "context.device_num" },
  { "tp", "--tp", "accelerator.tp_size" }, { "pp", "--pp", "accelerator.pp_size" },
  { "cp", "--cp", "accelerator.cp_size" }, { "ep", "--ep", "accelerator.ep_size" },
  { "seq", "--seq", "dataset.data_transform.max_seq_len" },
}

-- Notes in nd.overrides' registry the keys of doc the options of o set.
local function note_options(doc, o, degrees, devices)
  local set = overrides.applied(doc) or {}
  for _, k in ipairs(OPTION_KEYS) do
    local is_degree = k[1] == "tp" or k[1] == "pp" or k[1] == "cp" or k[1] == "ep"
    if o[k[1]] ~= nil and (degrees or not is_degree) and (devices or k[1] ~= "devices") then
      set[k[3]] = k[2] .. " " .. tostring(o[k[1]])
    end
  end
  overrides.registry[doc] = set
end

-- The FSDP keys of a ZeRO stage over dp data-parallel ranks.
local function set_zero(doc, zero, dp)
  if zero == 0 then
    set(doc, "fsdp_config", "dp_shard_size", 1)
  else
    set(doc, "fsdp_config", "dp_shard_size", dp)
    set(doc, "fsdp_config", "reshard_after_forward", zero == 3)
  end
end

--- The train.yaml a model id or checkpoint directory implies.
-- @tparam string ref the hub id or directory
-- @tparam table o `devices`, `global_batch`, and read_options' `tp pp cp
--   ep seq zero`
-- @treturn table the document (AutoModels schema)
function model_yaml.build(ref, o)
  local tp, pp, cp, ep = o.tp or 1, o.pp or 1, o.cp or 1, o.ep or 1
  local devices = o.devices or tp * pp * cp
  if devices % (tp * pp * cp) ~= 0 then
    errors.raise { path = "-d", message = string.format("%d devices are no multiple of tp x pp x cp = %d x %d x %d",
      devices, tp, pp, cp) }
  end
  local dp = devices // (tp * pp * cp)
  local batch = o.global_batch or dp * (pp > 1 and pp or 1)
  local doc = {
    model = { pretrained_model_name_or_path = ref },
    training = { global_batch_size = batch, micro_batch_size = 1 },
    accelerator = { tp_size = tp, pp_size = pp, cp_size = cp, ep_size = ep },
    activation_checkpoint = { mode = "full" },
    optimizer = { _target_ = "torch.optim.AdamW" },
    dataset = { data_transform = { max_seq_len = o.seq or model_yaml.DEFAULT_SEQUENCE } },
    context = { device_num = devices },
  }
  set_zero(doc, o.zero or 3, dp)
  note_options(doc, o, true, true)
  return doc
end

--- Lays the run options over a loaded train.yaml (AutoModels schema), as
-- its --section.key=value overrides would.
-- @tparam table doc the document (overrides applied)
-- @tparam table o read_options' values, `global_batch`, `devices`
-- @tparam[opt] boolean degrees whether --tp/--pp/--cp/--ep apply
function model_yaml.apply(doc, o, degrees)
  local legacy = type(doc.train) == "table" and doc.accelerator == nil and doc.training == nil
  local given = o.tp or o.pp or o.cp or o.ep or o.seq or o.zero or o.global_batch
  if legacy and given then
    errors.raise { message = "--tp, --pp, --cp, --ep, --seq, --zero and -b set an AutoModels train.yaml's keys; this "
      .. "one is in the legacy train.* schema", accepted = "set its train.* keys with --train.key=value" }
  end
  if degrees then
    for k, key in pairs({ tp = "tp_size", pp = "pp_size", cp = "cp_size", ep = "ep_size" }) do
      if o[k] then set(doc, "accelerator", key, o[k]) end
    end
  end
  if o.seq then
    if type(doc.dataset) ~= "table" then doc.dataset = {} end
    set(doc.dataset, "data_transform", "max_seq_len", o.seq)
  end
  if o.global_batch then
    set(doc, "training", "global_batch_size", o.global_batch)
    doc.training.micro_batch_num = nil
  end
  if o.zero then
    local a = type(doc.accelerator) == "table" and doc.accelerator or {}
    local ctx = type(doc.context) == "table" and doc.context or {}
    local devices = o.devices or ctx.device_num
    local denom = (a.tp_size or 1) * (a.pp_size or 1) * (a.cp_size or 1)
    if o.zero > 0 and not (math.type(devices) == "integer" and devices % denom == 0) then
      errors.raise { path = "--zero", message = "needs the device count (-d or context.device_num) to shard over "
        .. "the data-parallel ranks" }
    end
    set_zero(doc, o.zero, o.zero > 0 and devices // denom or 1)
  end
  note_options(doc, o, degrees, false)
end

return model_yaml
