--- Bytes per element of a dtype named in a train.yaml (`bfloat16`,
-- `float32`, `torch.float16`, `fp8`, ...).
-- The seed's rule (`_bytes_from_dtype`): the first run of digits in the
-- name, divided by 8, at least 1 ("bfloat16" 2, "float32" 4,
-- "float8_e4m3fn" 1, "float64" 8). Where the name has no digits the seed
-- prices 4 bytes whatever it says; ndlua reads torch's digit-less names
-- (float 4, half 2, double 8) and refuses any other, since a typo priced
-- as float32 doubles a bf16 run's memory without a word.
-- `dtypes.read` reads the dtype keys of a train.yaml (train_yaml.read_dtypes).
-- @module nd.train_yaml.dtypes

local values = require "nd.train_yaml.values"

local dtypes = {}

-- torch's names without a width in them.
dtypes.NAMED = { float = 4, half = 2, double = 8 }

dtypes.ACCEPTED = "a dtype such as bfloat16, float16, float32, float8_e4m3fn (or half, float, double)"

-- A dtype name without case or torch's prefix: "torch.BFloat16" -> "bfloat16".
local function bare_name(name)
  return (name:lower():gsub("^torch%.", ""))
end

--- Bytes per element of a dtype name; nil when the name is none.
function dtypes.bytes(name)
  if type(name) ~= "string" then return nil end
  local bare = bare_name(name)
  local digits = bare:match("(%d+)")
  if digits then return math.max(1, tonumber(digits) // 8) end
  return dtypes.NAMED[bare]
end

--- Why no run trains with weights (or activations) of a dtype, or nil
-- where one can (or where the name is no dtype ndlua prices). The seed
-- prices any dtype by its width, and so does ndlua, but an 8-bit or
-- integer width names no layout a runtime trains in, and the memory it
-- gives is a fraction of any real run's.
function dtypes.untrainable(name)
  local n = dtypes.bytes(name)
  if not n then return nil end
  if bare_name(name):match("^q?u?int%d") then
    return "PyTorch gives no gradient to a tensor of an integer dtype"
  end
  if n == 1 then
    return "PyTorch's float8 dtypes are storage for scaled matmuls, with almost no other arithmetic (no "
      .. "optimizer step, norm or softmax runs in them); FP8 training (torchao's Float8Linear, "
      .. "Transformer Engine) holds the weights in bfloat16 or float32 and casts them to float8 only "
      .. "for each matmul"
  end
  return nil
end

-- The legacy precision keys of a model section, which the AutoModels trainer
-- hands on to the Transformers config and never reads, by what it reads instead.
local UNREAD_PRECISION_KEYS = {
  { "param_init_type", "the run keeps its weights in model_init_dtype, else model.torch_dtype" },
  { "compute_dtype", "the run computes in fsdp_config.mix_precision.param_dtype, else model_init_dtype, "
    .. "else model.torch_dtype" },
}

-- reads: fsdp_config.mix_precision.param_dtype, model_init_dtype (root),
-- model.torch_dtype, model.param_init_type and model.compute_dtype (legacy
-- only), model.softmax_compute_type; the checkpoint's own dtype
-- (seed `_init_bytes`, `_model_dtype`, `_stored_param_bytes`)
function dtypes.read(r, auto, spec, mix_precision)
  local m = r:section(nil, "model")
  local warned = {}
  local function warn_untrainable(path, v)
    local why = dtypes.untrainable(v)
    if why and not warned[path] then
      warned[path] = true
      local n = dtypes.bytes(v)
      r:warn(path, values.describe(v) .. " is priced at its width, " .. n .. (n == 1 and " byte" or " bytes")
             .. " per element "
             .. "of every weight, gradient, optimizer state and activation it sets, but no run trains in it: "
             .. why .. "; state the dtype the run holds its weights in")
    end
  end
  local function bytes(sec, key)
    local v = r:value(sec, key)
    local n = dtypes.bytes(v)
    if not n then r:fail(sec, key, values.describe(v) .. " is no dtype ndlua knows", dtypes.ACCEPTED) end
    warn_untrainable(values.join(sec.path, key), v)
    return n
  end
  -- The dtype the runtime loads the weights in: model.torch_dtype unless
  -- auto; else, in a legacy config, the legacy key; else the checkpoint's
  -- own; else bfloat16.
  local function model_dtype(legacy_key)
    local stated = r:value(m, "torch_dtype")
    if values.truthy(stated) and stated ~= "auto" then return bytes(m, "torch_dtype") end
    if not auto and values.truthy(r:value(m, legacy_key)) then return bytes(m, legacy_key) end
    if spec.torch_dtype then
      warn_untrainable("model.torch_dtype", spec.torch_dtype)
      return dtypes.bytes(spec.torch_dtype) or 2
    end
    return 2
  end
  local root = r.root
  local param_dtype = values.truthy(r:value(mix_precision, "param_dtype")) and bytes(mix_precision, "param_dtype")
  local init_dtype = values.truthy(r:value(root, "model_init_dtype")) and bytes(root, "model_init_dtype")
  local stated = false
  for _, key in ipairs(auto and { "torch_dtype" } or { "torch_dtype", "param_init_type" }) do
    local v = r:value(m, key)
    stated = stated or (values.truthy(v) and v ~= "auto")
  end
  if not stated and not init_dtype and not spec.torch_dtype then
    r:warn("model.torch_dtype", "neither the config nor a checkpoint states the model's dtype: its weights are "
           .. "priced in bfloat16; state model.torch_dtype if they are held in another")
  end
  if auto then
    for _, item in ipairs(UNREAD_PRECISION_KEYS) do
      if values.truthy(r:value(m, item[1])) then
        r:warn("model." .. item[1], "the AutoModels trainer reads no model." .. item[1] .. ", and neither does "
               .. "ndlua: " .. item[2])
      end
    end
  end
  local param_bytes = param_dtype or init_dtype or model_dtype("param_init_type")
  local softmax = r:value(m, "softmax_compute_type")
  return {
    param_bytes = param_bytes,
    -- FSDP keeps each gradient in its parameter's dtype.
    grad_bytes = param_bytes,
    compute_bytes = param_dtype or init_dtype or model_dtype("compute_dtype"),
    softmax_bytes = softmax and bytes(m, "softmax_compute_type") or 4,
    -- The width FSDP stores the parameters in, whatever it gathers them in.
    stored_bytes = init_dtype or model_dtype("param_init_type"),
  }
end

return dtypes
