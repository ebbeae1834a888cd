-- fuzz_corpus_spec.lua: the fuzz targets' checks (spec/fuzz/check_*.lua) on
-- every input of their corpora (spec/fuzz/corpus/TARGET/), the seeds and
-- the minimized inputs of what the fuzzers found, without libFuzzer: what
-- `make fuzz` holds the loaders to holds for these on every `make test`.
package.path = "spec/fuzz/?.lua;" .. package.path

local function corpus(target)
  local files = {}
  local p = assert(io.popen("ls spec/fuzz/corpus/" .. target))
  for name in p:lines() do files[#files + 1] = name end
  p:close()
  return files
end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function have(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end

for _, target in ipairs({ "yaml", "json", "estimate" }) do
  describe("the " .. target .. " fuzz target's corpus", function()
    local runnable = target ~= "estimate" or (have("lua/estimate.lua") and have("lua/nd/train_yaml.lua"))
    local files = corpus(target)
    it("has seeds", function()
      assert.is_true(#files >= 10, target .. " has " .. #files .. " seeds")
    end)
    if runnable then
      local check = require("check_" .. target)
      for _, name in ipairs(files) do
        it("holds for " .. name, function()
          check(read("spec/fuzz/corpus/" .. target .. "/" .. name))
        end)
      end
    else
      pending("needs lua/estimate.lua and lua/nd/train_yaml.lua")
    end
  end)
end
