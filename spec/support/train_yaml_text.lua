-- train_yaml_text.lua: reading small train.yaml texts in the specs
-- (train_yaml_spec.lua, train_yaml_run_spec.lua, train_yaml_upstream_spec.lua).
local nd = require "nd"
local train_yaml = require "nd.train_yaml"
local warnings = require "nd.warnings"
local errors = require "nd.errors"

local fixture = {}

--- Parses yaml text (named t.yaml); returns the result and its warnings.
function fixture.read(text, opts)
  local w = warnings.quiet()
  local o = { file = "t.yaml", warnings = w }
  for k, v in pairs(opts or {}) do o[k] = v end
  local parsed = train_yaml.parse(nd.yaml.decode(text, "t.yaml"), o)
  return parsed, w:all()
end

--- The message of the bad-input error parsing `text` raises.
function fixture.refused(text, opts)
  local ok, err = pcall(fixture.read, text, opts)
  -- plain error(): a dofile'd file runs outside busted's spec environment
  if ok then error("expected a refusal", 2) end
  if not errors.is_bad_input(err) then
    error("not a bad-input error: " .. tostring(err), 2)
  end
  return err.message
end

--- How many warnings contain `needle` (plain text).
function fixture.count(list, needle)
  local n = 0
  for _, w in ipairs(list) do
    if w:find(needle, 1, true) then n = n + 1 end
  end
  return n
end

-- Models by name: Qwen3-8B (36 layers, max_position_embeddings 40960, torch_dtype
-- bfloat16), Qwen3-30B-A3B (128 experts), and a model from config_overrides
-- alone (no checkpoint, no dtype, no context limit).
fixture.QWEN = "model:\n  pretrained_model_name_or_path: Qwen/Qwen3-8B\n"
fixture.MOE = "model:\n  pretrained_model_name_or_path: Qwen/Qwen3-30B-A3B\n"
fixture.TINY = [[
model:
  name: tiny
  config_overrides:
    hidden_size: 256
    num_hidden_layers: 4
    num_attention_heads: 8
    vocab_size: 1000
    intermediate_size: 512
    arch: llama2
]]

return fixture
