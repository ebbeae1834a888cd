-- The built-in model catalog (lua/nd/catalog.lua, lua/nd/catalog/).
local catalog = require "nd.catalog"
local core = require "nd.core"

local function lines_of(cmd)
  local p = assert(io.popen(cmd))
  local out = {}
  for line in p:lines() do out[#out + 1] = line end
  p:close()
  return out
end

describe("nd.catalog", function()
  it("lists every directory of the catalog, and only those", function()
    local dirs = lines_of("ls -d " .. catalog.dir() .. "/*/ | xargs -n1 basename | sort")
    local ids = {}
    for i, id in ipairs(catalog.ids()) do ids[i] = catalog.dirname(id) end
    table.sort(ids)
    assert.are.same(dirs, ids)
    -- the 24 models of shared/models (README.md there lists them)
    assert.are.equal(24, #ids)
  end)

  it("holds the same config.json files as shared/models, unchanged", function()
    local shared = catalog.dir() .. "/../../../../shared/models"
    if not io.open(shared .. "/README.md") then return end -- only where the shared folder is beside the tree
    for _, id in ipairs(catalog.ids()) do
      local a = assert(io.open(catalog.path(id))):read("a")
      local b = assert(io.open(shared .. "/" .. catalog.dirname(id) .. "/config.json")):read("a")
      assert.are.equal(b, a, id)
    end
  end)

  it("keeps a provenance row for every model in README.md", function()
    local readme = assert(io.open(catalog.dir() .. "/README.md")):read("a")
    for _, id in ipairs(catalog.ids()) do
      assert.is_truthy(readme:find("| " .. catalog.dirname(id) .. " |", 1, true), id)
    end
  end)

  it("every config is valid JSON with a model_type", function()
    for _, id in ipairs(catalog.ids()) do
      local config = core.json.load(catalog.path(id))
      assert.are.equal("string", type(config.model_type), id)
    end
  end)

  it("looks a hub id up to its config path, ignoring case", function()
    local path = catalog.path("Qwen/Qwen3-30B-A3B")
    assert.are.equal(catalog.dir() .. "/Qwen--Qwen3-30B-A3B/config.json", path)
    assert.are.equal(path, catalog.path("qwen/qwen3-30b-a3b"))
    assert.are.equal("Qwen/Qwen3-30B-A3B", catalog.find("QWEN/QWEN3-30B-A3B"))
    assert.is_nil(catalog.path("Qwen/Qwen3-31B"))
    assert.is_nil(catalog.path(nil))
  end)

  it("suggests the closest ids for an unknown one", function()
    -- Qwen3-31B is one edit from Qwen3-32B
    assert.are.equal("Qwen/Qwen3-32B", catalog.closest("Qwen/Qwen3-31B")[1])
    -- a bare name is compared with the NAME part of each id
    assert.are.equal("meta-llama/Llama-3.1-8B", catalog.closest("Llama-3.1-8b")[1])
    assert.are.equal("openai-community/gpt2", catalog.closest("gpt2")[1])
    assert.are.equal(5, #catalog.closest("x", 5))
  end)

  it("measures edit distance", function()
    assert.are.equal(3, catalog.edit_distance("kitten", "sitting"))
    assert.are.equal(0, catalog.edit_distance("ABC", "abc"))
    assert.are.equal(3, catalog.edit_distance("", "abc"))
  end)
end)
