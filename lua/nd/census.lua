--- Census records: reading the JSON scripts/census.py writes, and finding it for a model.
-- A census file is `{"activations": {kind: record}, "output_activations": record,
-- "provenance": {...}}`: bytes per token one layer of each kind keeps for
-- backward, measured with PyTorch (model-spec §c). ndlua prices a kind from
-- its record instead of its formulas (src/core/activations.c census_*).
-- @module nd.census

local core = require "nd.core"
local errors = require "nd.errors"
local files = require "nd.files"
local census_record = require "nd.census.record"

local census = {}

local TOP_KEYS = { activations = true, output_activations = true, provenance = true }

local function is_null(v) return v == nil or core.isnull(v) end

--- Reads and checks a census file.
-- @tparam string path the JSON file census.py wrote
-- @treturn table `{activations = {kind = record}, output_activations = record|nil, provenance = table|nil}`
function census.load(path)
  if type(path) ~= "string" then
    error("census.load: path must be a file name, got " .. type(path), 2)
  end
  local doc = core.json.load(path)
  if type(doc) ~= "table" or doc[1] ~= nil or next(doc) == nil and core.keys(doc) == nil then
    errors.raise { file = path, message = "a census file is a JSON object with activations and output_activations" }
  end
  for key in pairs(doc) do
    if not TOP_KEYS[key] then
      errors.raise { file = path, path = tostring(key),
                     message = "unknown key in a census file", accepted = "activations, output_activations, provenance" }
    end
  end
  if is_null(doc.activations) or type(doc.activations) ~= "table" then
    errors.raise { file = path, path = "activations", message = "a census file maps layer kinds to census records" }
  end
  local out = { activations = {}, provenance = doc.provenance }
  for kind, rec in pairs(doc.activations) do
    local ok, checked = pcall(census_record.check, rec, "activations." .. tostring(kind))
    if not ok then
      if errors.is_bad_input(checked) then
        errors.raise { file = path, message = checked.message }
      end
      error(checked, 0)
    end
    out.activations[kind] = checked
  end
  if not is_null(doc.output_activations) then
    local ok, checked = pcall(census_record.check, doc.output_activations, "output_activations")
    if not ok then errors.raise { file = path, message = checked.message or tostring(checked) } end
    out.output_activations = checked
  end
  return out
end

--- The census file beside a checkpoint's config: `DIR/census-<seq>.json`.
-- @tparam string dir the directory holding config.json
-- @tparam integer seq the training sequence length
-- @treturn string|nil the path when such a file exists
function census.beside(dir, seq)
  if type(dir) ~= "string" then return nil end
  local path = string.format("%s/census-%d.json", dir, seq)
  return files.kind(path) and path or nil
end

--- Lays a census's records over a model spec (a copy; the spec is not changed).
-- Records the spec states itself (config_overrides.activations) win.
-- @tparam table spec a model spec (settled or not)
-- @tparam table records what census.load returns
function census.attach(spec, records)
  local out = {}
  for k, v in pairs(spec) do out[k] = v end
  local activations = {}
  for kind, rec in pairs(records.activations or {}) do activations[kind] = rec end
  for kind, rec in pairs(spec.activations or {}) do activations[kind] = rec end
  out.activations = activations
  if out.output_activations == nil then out.output_activations = records.output_activations end
  return out
end

--- The formula's bytes per token of a layer kind, in a census record's
-- terms at TP 1 (saved: what TP does not split; saved_tp: what it does), the
-- once-a-layer bytes spread over the run's tokens: replicated ones (routers,
-- group sizes, norm weights) on the saved side, split ones (linear
-- attention's convolution tail, per-head tensors) on the saved_tp side.
-- @tparam userdata model nd.model
-- @tparam userdata run nd.run (its seq_length spreads the per-layer bytes)
-- @tparam string kind a layer kind of the model
-- @treturn table `{saved = {saved, saved_tp}, selective = {saved, saved_tp},
--   output = {saved, saved_tp}}`
function census.formula(model, run, kind)
  local seq = run.seq_length
  local split = core.activation_split(model, run, kind)
  local function record(s)
    return { saved = s.shared + s.layer / seq, saved_tp = s.tp + s.expert + s.layer_tp / seq }
  end
  local o = split.output
  return { saved = record(split.saved), selective = record(split.selective),
           output = { saved = o.shared + o.layer / seq, saved_tp = o.tp } }
end

return census
