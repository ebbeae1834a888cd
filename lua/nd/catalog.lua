--- The built-in model catalog: real Transformers config.json files by hub id.
-- `lua/nd/catalog/ORG--NAME/config.json` holds the checkpoint `ORG/NAME`'s
-- config; `lua/nd/catalog/index.lua` lists the ids and `README.md` keeps
-- each file's provenance.
-- @module nd.catalog

local catalog = {}

--- The directory of the catalog (beside this file).
function catalog.dir()
  local here = package.searchpath("nd.catalog", package.path)
  if here then return (here:gsub("%.lua$", "")) end
  local source = debug.getinfo(1, "S").source:gsub("^@", "")
  return (source:gsub("%.lua$", ""))
end

local ids_cache

--- The hub ids of the catalog, in the order of index.lua (a new array).
function catalog.ids()
  if not ids_cache then
    -- nd.core.loadfile: loadfile(path, "t", {}), from the compiled form ndlua was built with
    local chunk = assert(require("nd.core").loadfile(catalog.dir() .. "/index.lua", {}))
    ids_cache = chunk()
  end
  local out = {}
  for i, id in ipairs(ids_cache) do out[i] = id end
  return out
end

--- The directory name of a hub id: `ORG/NAME` -> `ORG--NAME`, as the
-- Hugging Face cache names its `models--ORG--NAME` folders.
function catalog.dirname(id)
  return (id:gsub("/", "--"))
end

--- The catalog id matching `id` exactly, else ignoring case (hub ids are
-- case-insensitive); nil when the catalog has none.
function catalog.find(id)
  if type(id) ~= "string" then return nil end
  local lower = id:lower()
  local loose
  for _, known in ipairs(catalog.ids()) do
    if known == id then return known end
    if known:lower() == lower then loose = known end
  end
  return loose
end

--- The path of the config.json of a catalog id, or nil when the catalog
-- does not hold `id`.
function catalog.path(id)
  local known = catalog.find(id)
  if not known then return nil end
  return catalog.dir() .. "/" .. catalog.dirname(known) .. "/config.json"
end

-- Levenshtein distance between two strings, case folded.
local function edit_distance(a, b)
  a, b = a:lower(), b:lower()
  local previous = {}
  for j = 0, #b do previous[j] = j end
  for i = 1, #a do
    local current = { [0] = i }
    local ca = a:sub(i, i)
    for j = 1, #b do
      local cost = (ca == b:sub(j, j)) and 0 or 1
      current[j] = math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
    end
    previous = current
  end
  return previous[#b]
end
catalog.edit_distance = edit_distance

--- Catalog ids close to an unknown `id`, nearest first (at most `n`,
-- default 3). An id is compared whole and by its NAME part, so
-- `Qwen3-30B` finds `Qwen/Qwen3-30B-A3B`.
function catalog.closest(id, n)
  n = n or 3
  -- no hub id is hundreds of characters: past that, no id is close, and
  -- the distance would cost length x length
  if #id > 200 then return {} end
  local scored = {}
  for _, known in ipairs(catalog.ids()) do
    local name = known:match("/(.*)$") or known
    local d = math.min(edit_distance(id, known), edit_distance(id, name))
    scored[#scored + 1] = { id = known, d = d }
  end
  table.sort(scored, function(x, y)
    if x.d ~= y.d then return x.d < y.d end
    return x.id < y.id
  end)
  local out = {}
  for i = 1, math.min(n, #scored) do out[i] = scored[i].id end
  return out
end

return catalog
