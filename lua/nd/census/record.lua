--- Census records (`KindActivations`): bytes per token one layer of a kind
-- keeps for backward, as scripts/census.py measures them. Reference model-spec-census-train-yaml.md §c.1.
-- @module nd.census.record

local errors = require "nd.errors"
local profiles = require "nd.profiles"

local census_record = {}

-- Fields of a record: the four base sizes and seq_length are required; the
-- optional ones come in pairs, both or neither.
local BASE = { "saved", "saved_tp", "working", "working_tp" }
local PAIRS = {
  { "selective", "selective_tp" },
  { "selective_attention_mm", "selective_ffn_mm" },
  { "ops", "ops_tp" },
}
local SHARES = { selective_attention_mm = true, selective_ffn_mm = true }

local KNOWN = { seq_length = true }
for _, k in ipairs(BASE) do KNOWN[k] = true end
for _, p in ipairs(PAIRS) do KNOWN[p[1]], KNOWN[p[2]] = true, true end

local function fail(path, message)
  errors.raise { path = path, message = message }
end

local function list(names)
  table.sort(names)
  return "[" .. table.concat(names, ", ") .. "]"
end

-- Keys exactly the record's fields, the required ones present.
local function check_keys(rec, where)
  local unknown, lacking = {}, {}
  for key in pairs(rec) do
    if not KNOWN[key] then unknown[#unknown + 1] = tostring(key) end
  end
  for _, key in ipairs(BASE) do
    if rec[key] == nil then lacking[#lacking + 1] = key end
  end
  if rec.seq_length == nil then lacking[#lacking + 1] = "seq_length" end
  if #unknown > 0 or #lacking > 0 then
    fail(where, string.format("%s has unknown keys %s and lacks %s", where, list(unknown), list(lacking)))
  end
end

-- An op map: op-vector names or `other` -> bytes per token >= 0.
local function check_op_map(map, path)
  local accepted = {}
  for _, op in ipairs(profiles.OP_NAMES) do accepted[op] = true end
  accepted.other = true
  local names = table.concat(profiles.OP_NAMES, ", ") .. ", other"
  if type(map) ~= "table" then fail(path, path .. " must map ops of [" .. names .. "] to bytes per token") end
  local out = {}
  for op, bytes in pairs(map) do
    if not accepted[op] or type(bytes) ~= "number" then
      fail(path, path .. " must map ops of [" .. names .. "] to bytes per token; '" .. tostring(op) .. "' does not")
    end
    if bytes < 0 then fail(path .. "." .. op, path .. "." .. op .. ": bytes per token cannot be negative") end
    out[op] = bytes
  end
  return out
end

-- The range the C core reads each number of a record in (src/binding/lnd_model.c's
-- census fields, nd.core.model_bounds().census): checked here, where the refusal
-- names the record and its file, not in the core.
local bounds
local function bound(key)
  bounds = bounds or require("nd.core").model_bounds().census
  return bounds[key]
end

-- One numeric field of a record.
local function check_size(rec, key, where)
  local path = where .. "." .. key
  local v = rec[key]
  if type(v) ~= "number" then fail(path, path .. " must be a number of bytes per token, got " .. tostring(v)) end
  if v < 0 then fail(path, path .. ": bytes per token cannot be negative, got " .. tostring(v)) end
  if SHARES[key] and v > 1 then fail(path, path .. ": a share of FLOPs cannot exceed 1, got " .. tostring(v)) end
  local b = bound(key)
  if b and not (v >= b[1] and v <= b[2]) then -- NaN too
    fail(path, string.format("%s must be from %s to %s, got %s", path, b[1] + 0.0, b[2] + 0.0, v + 0.0))
  end
  return v
end

--- Checks one census record and returns a copy; `where` names it
-- (`activations.decoder`, `output_activations`).
function census_record.check(rec, where)
  if type(rec) ~= "table" then fail(where, where .. " must be a census record (a table)") end
  check_keys(rec, where)
  local out = {}
  for _, key in ipairs(BASE) do out[key] = check_size(rec, key, where) end
  local s = rec.seq_length
  out.seq_length = type(s) == "number" and math.tointeger(s) or nil
  if not out.seq_length or out.seq_length <= 0 then
    fail(where .. ".seq_length", where .. ".seq_length must be a positive whole number of tokens, got " .. tostring(s))
  end
  if out.seq_length > bound("seq_length")[2] then
    fail(where .. ".seq_length", string.format("%s.seq_length must be at most %d tokens, got %d", where,
                                               bound("seq_length")[2], out.seq_length))
  end
  for _, pair in ipairs(PAIRS) do
    local a, b = rec[pair[1]], rec[pair[2]]
    if (a == nil) ~= (b == nil) then
      fail(where, string.format("%s states one of [%s, %s] without the other", where, pair[1], pair[2]))
    end
    if a ~= nil then
      for _, key in ipairs(pair) do
        if key == "ops" or key == "ops_tp" then
          out[key] = check_op_map(rec[key], where .. "." .. key)
        else
          out[key] = check_size(rec, key, where)
        end
      end
    end
  end
  return out
end

--- Checks `activations` (kind -> record) against the kinds of a stack:
-- every kind must be one the stack has. Returns the checked copy.
-- @tparam table activations kind -> record
-- @tparam table stack_kinds set of kinds of the stack
function census_record.check_kinds(activations, stack_kinds)
  local strangers = {}
  for kind in pairs(activations) do
    if not stack_kinds[kind] then strangers[#strangers + 1] = tostring(kind) end
  end
  if #strangers > 0 then
    local have = {}
    for k in pairs(stack_kinds) do have[#have + 1] = k end
    fail("activations", string.format("activations of kinds %s no layer of the stack is; the stack has %s",
                                      list(strangers), list(have)))
  end
end

function census_record.check_all(activations, stack_kinds)
  if type(activations) ~= "table" then fail("activations", "activations must map layer kinds to census records") end
  census_record.check_kinds(activations, stack_kinds)
  local out = {}
  for kind, rec in pairs(activations) do
    out[kind] = census_record.check(rec, "activations." .. kind)
  end
  return out
end

return census_record
