--- The layer stack of a model: ordered groups `{kind, count, mtp}` of the
-- kinds an op profile declares. Reference model-spec-census-train-yaml.md §b.2 (groups and their
-- counts), §b.3 (deriving a stack), §b.4 (resolving it on a profile).
-- @module nd.layer_stack

local errors = require "nd.errors"

local layer_stack = {}

local function fail(path, message, accepted)
  errors.raise { path = path, message = message, accepted = accepted }
end

local function quoted_list(names)
  local out = {}
  for i, n in ipairs(names) do out[i] = "'" .. tostring(n) .. "'" end
  return "[" .. table.concat(out, ", ") .. "]"
end
layer_stack.quoted_list = quoted_list

--- Checks a stated `layers` list (model-spec-census-train-yaml.md §b.2): a non-empty array of groups
-- with exactly the keys kind, count, mtp; returns normalised groups.
function layer_stack.check_groups(list, where)
  where = where or "layers"
  if type(list) ~= "table" or #list == 0 then
    fail(where, where .. " must be a non-empty list of {kind, count, mtp} groups")
  end
  local groups = {}
  for i, g in ipairs(list) do
    local at = string.format("%s[%d]", where, i - 1)
    if type(g) ~= "table" then fail(at, at .. " must be a {kind, count, mtp} group") end
    for key in pairs(g) do
      if key ~= "kind" and key ~= "count" and key ~= "mtp" then
        fail(at .. "." .. tostring(key), at .. " has unknown key '" .. tostring(key) .. "'", "kind, count, mtp")
      end
    end
    if type(g.kind) ~= "string" or g.kind == "" then
      fail(at .. ".kind", at .. ".kind must name a layer kind, got " .. tostring(g.kind))
    end
    local count = type(g.count) == "number" and math.tointeger(g.count)
    if not count or count <= 0 then
      fail(at .. ".count", at .. ".count must be a positive whole number, got " .. tostring(g.count))
    end
    if g.mtp ~= nil and type(g.mtp) ~= "boolean" then
      fail(at .. ".mtp", at .. ".mtp must be true or false, got " .. tostring(g.mtp))
    end
    groups[i] = { kind = g.kind, count = count, mtp = g.mtp == true }
  end
  return groups
end

--- Checks that a stack's body and MTP groups add up (model-spec-census-train-yaml.md §b.2): MTP groups
-- come last, body counts sum to num_hidden_layers, MTP counts to mtp_depth.
function layer_stack.check_counts(groups, num_layers, mtp_depth, where)
  where = where or "layers"
  local body, mtp, seen_mtp = 0, 0, false
  for i, g in ipairs(groups) do
    if g.mtp then
      seen_mtp, mtp = true, mtp + g.count
    else
      if seen_mtp then
        fail(where, string.format("%s[%d] is a body group after an MTP group; MTP groups come last", where, i - 1))
      end
      body = body + g.count
    end
  end
  if body ~= num_layers then
    fail(where, string.format("%s lists %d body layers, but num_hidden_layers is %d", where, body, num_layers))
  end
  if mtp ~= (mtp_depth or 0) then
    fail(where, string.format("%s lists %d MTP layers, but mtp_depth is %d", where, mtp, mtp_depth or 0))
  end
end

-- Run-length groups of a list of kind names.
local function run_length(kinds)
  local groups = {}
  for _, kind in ipairs(kinds) do
    local last = groups[#groups]
    if last and last.kind == kind then
      last.count = last.count + 1
    else
      groups[#groups + 1] = { kind = kind, count = 1, mtp = false }
    end
  end
  return groups
end

-- Groups from layer_types when the profile declares every name (step 1 of
-- model-spec-census-train-yaml.md §b.3); nil (with a warning) when it does not.
local function groups_from_layer_types(profile, n, layer_types, warnings)
  if #layer_types < n then
    fail("layer_types", string.format("layer_types lists %d layer types, but num_hidden_layers is %d",
                                      #layer_types, n))
  end
  local kinds, unknown, seen = {}, {}, {}
  for i = 1, n do
    local name = layer_types[i]
    kinds[i] = name
    if not profile.kinds[name] and not seen[name] then
      seen[name] = true
      unknown[#unknown + 1] = name
    end
  end
  if #unknown == 0 then return run_length(kinds) end
  if warnings then
    warnings:warn("layer_types", string.format(
      "layer_types names %s, which op profile '%s' does not declare; every layer is priced as '%s'",
      quoted_list(unknown), profile.name, tostring(profile.default)))
  end
  return nil
end

-- The structural body of a profile (step 2 of model-spec-census-train-yaml.md §b.3).
local function structural_groups(profile, n, first_k_dense, is_moe)
  local groups = {}
  if profile.kinds.dense and profile.kinds.moe then
    -- A dense model priced on a dense+moe profile is dense throughout.
    local dense = is_moe and math.max(0, math.min(first_k_dense or 0, n)) or n
    if dense > 0 then groups[#groups + 1] = { kind = "dense", count = dense, mtp = false } end
    if n - dense > 0 then groups[#groups + 1] = { kind = "moe", count = n - dense, mtp = false } end
  elseif profile.kinds.encoder and profile.kinds.decoder then
    if n % 2 ~= 0 then
      fail("num_hidden_layers", string.format(
        "an encoder-decoder stack needs an even layer count; num_hidden_layers is %d", n))
    end
    groups[1] = { kind = "encoder", count = n // 2, mtp = false }
    groups[2] = { kind = "decoder", count = n // 2, mtp = false }
  else
    if not profile.default then
      fail("arch", string.format("op profile '%s' has several layer kinds and no default; state layers", profile.name))
    end
    groups[1] = { kind = profile.default, count = n, mtp = false }
  end
  return groups
end

--- Derives a stack (model-spec-census-train-yaml.md §b.3) from the layer count, MTP depth, layer_types
-- and first_k_dense_replace.
-- @tparam table profile a checked profile (nd.profiles)
-- @tparam table f fields: num_layers, mtp_depth, layer_types, first_k_dense, is_moe
-- @param[opt] warnings a collector
function layer_stack.derive(profile, f, warnings)
  local groups
  if f.layer_types then
    groups = groups_from_layer_types(profile, f.num_layers, f.layer_types, warnings)
  end
  groups = groups or structural_groups(profile, f.num_layers, f.first_k_dense, f.is_moe)
  if (f.mtp_depth or 0) > 0 then
    local last = groups[#groups]
    groups[#groups + 1] = { kind = last and last.kind or profile.default, count = f.mtp_depth, mtp = true }
  end
  return groups
end

--- Checks that every group names a kind of the profile (model-spec-census-train-yaml.md §b.4).
function layer_stack.check_kinds(groups, profile, where)
  for i, g in ipairs(groups) do
    if not profile.kinds[g.kind] then
      fail(string.format("%s[%d].kind", where or "layers", i - 1), string.format(
        "%s[%d] names kind '%s', but op profile '%s' has %s", where or "layers", i - 1, g.kind,
        profile.name, quoted_list(profile.kind_names)))
    end
  end
end

--- The distinct kinds of a stack, in order of first use.
function layer_stack.distinct_kinds(groups)
  local out, seen = {}, {}
  for _, g in ipairs(groups) do
    if not seen[g.kind] then
      seen[g.kind] = true
      out[#out + 1] = g.kind
    end
  end
  return out
end

--- A stack as text: `3×dense, 58×moe, 1×moe(mtp)`.
function layer_stack.format(groups)
  local parts = {}
  for i, g in ipairs(groups) do
    parts[i] = string.format("%d×%s%s", g.count, g.kind, g.mtp and "(mtp)" or "")
  end
  return table.concat(parts, ", ")
end

return layer_stack
