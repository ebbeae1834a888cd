-- demo.lua: reads a bundled train.yaml with nd.yaml and shows what it holds,
-- each value with its key path and the line and column it was read from.
-- Usage: ndlua examples/demo.lua [train.yaml]
-- (`make run` runs estimate.lua on the same file.)
local nd = require "nd"

local here = arg and arg[0] and arg[0]:match("^(.*)/") or "."
local path = arg[1] or (here .. "/qwen3-30b-a3b-fsdp8/train.yaml")
local doc = nd.yaml.load(path)

-- The value at a dotted key path, and the table and key that hold it.
local function lookup(t, dotted)
  local parent, key = nil, nil
  for part in dotted:gmatch("[^.]+") do
    if type(t) ~= "table" then return nil end
    parent, key, t = t, part, t[part]
  end
  return t, parent, key
end

local function describe(v)
  if nd.isnull(v) then return "null" end
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) == "table" then return nd.json.encode(v) end
  return tostring(v) .. " (" .. (math.type(v) or type(v)) .. ")"
end

print(path .. ": top-level keys, in file order:")
print("  " .. table.concat(nd.yaml.keys(doc), ", "))
print()
print("Some values (file:line:column: key path = value):")
local shown = {
  "model.pretrained_model_name_or_path", "model.torch_dtype", "training.global_batch_size",
  "training.micro_batch_size", "training.train_samples", "accelerator.tp_size",
  "fsdp_config.dp_shard_size", "fsdp_config.replicate_params", "activation_checkpoint.mode",
  "dataset.data_transform.max_seq_len", "optimizer.muon_config.muon_lr",
  "optimizer.adamw_config.adamw_betas",
}
for _, dotted in ipairs(shown) do
  local value, parent, key = lookup(doc, dotted)
  local file, line, col = nd.yaml.where(parent, key)
  print(string.format("  %s:%d:%d: %s = %s", file, line, col, dotted, describe(value)))
end
