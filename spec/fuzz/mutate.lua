--- mutate.lua: the structure-aware pass over the estimate target's seeds
-- (issue 13). libFuzzer mutates bytes, which mostly breaks the YAML before
-- any rule reads it; this pass mutates the documents: each seed of
-- spec/fuzz/corpus/estimate (the upstream HyperParallel yamls, the bundled
-- examples, the catalog's config.json files) is decoded, one key at a time
-- is deleted or given a value of another shape (text, a list, a mapping, a
-- flag, null, 2^62, 1e300, -1, NaN, 0, 0.5, 1000 characters), and the
-- document is written back (YAML, or JSON for a config.json) and run
-- through check_estimate.lua: estimate.lua must end normally or with a
-- bad-input error (exit 2), never with an internal error (exit 1).
--
--   ndlua spec/fuzz/mutate.lua [MUTANTS_PER_SEED [SEED]]   (defaults 40, 1)
--
-- As a module (spec/fuzz_mutate_spec.lua runs it in `make test`):
-- `require("mutate").run{per_seed = n, seed = s}` returns the count of
-- mutants run and the findings (each `{seed, path, mutation, message}`).
package.path = "spec/fuzz/?.lua;" .. package.path
local nd = require "nd"
local check = require "check_estimate"

local mutate = {}

local LONG = string.rep("x", 1000)

-- The mutations: a name and the value it puts at a key (nil: deleted).
mutate.MUTATIONS = {
  { "deleted", function() return nil end },
  { "text", function() return "x" end },
  { "a list", function() return { 1, 2 } end },
  { "a mapping", function() return { a = 1 } end },
  { "a flag", function() return true end },
  { "null", function() return nd.null end },
  { "2^62", function() return 1 << 62 end },
  { "1e300", function() return 1e300 end },
  { "-1", function() return -1 end },
  { "NaN", function() return 0 / 0 end },
  { "0", function() return 0 end },
  { "0.5", function() return 0.5 end },
  { "1000 characters", function() return LONG end },
}

-- Every key path of a document (mappings and lists), depth first, as
-- lists of keys.
local function paths_of(t, prefix, out)
  out = out or {}
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local p = { table.unpack(prefix) }
    p[#p + 1] = k
    out[#out + 1] = p
    if type(t[k]) == "table" and not nd.isnull(t[k]) and #out < 2000 then paths_of(t[k], p, out) end
  end
  return out
end

local function set_at(doc, path, value)
  local t = doc
  for i = 1, #path - 1 do t = t[path[i]] end
  t[path[#path]] = value
end

-- A small deterministic generator (a 64-bit LCG, Knuth's MMIX constants),
-- so that a run is the same on every machine.
local function generator(seed)
  local state = seed
  return function(n)
    state = state * 6364136223846793005 + 1442695040888963407
    return ((state >> 33) % n) + 1
  end
end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

--- The seeds: the estimate corpus's inputs whose text decodes to a mapping.
function mutate.seeds()
  local out = {}
  local p = assert(io.popen("ls spec/fuzz/corpus/estimate"))
  for name in p:lines() do
    local input = read("spec/fuzz/corpus/estimate/" .. name)
    local json = (input:byte(1) or 0) % 8 >= 4
    local ok, doc = pcall(json and nd.json.decode or nd.yaml.decode, input:sub(3))
    if ok and type(doc) == "table" and next(doc) ~= nil then
      out[#out + 1] = { name = name, head = input:sub(1, 2), text = input:sub(3), json = json }
    end
  end
  p:close()
  return out
end

--- Runs `per_seed` mutants of every seed (`seed` chooses them); returns the
-- mutants run and the findings.
function mutate.run(opts)
  local per_seed, next_int = opts.per_seed or 40, generator(opts.seed or 1)
  local findings, runs = {}, 0
  local stderr = io.stderr
  for _, s in ipairs(mutate.seeds()) do
    local decode = s.json and nd.json.decode or nd.yaml.decode
    local paths = paths_of(decode(s.text), {})
    for _ = 1, math.min(per_seed, #paths * #mutate.MUTATIONS) do
      local path, m = paths[next_int(#paths)], mutate.MUTATIONS[next_int(#mutate.MUTATIONS)]
      local doc = decode(s.text)
      set_at(doc, path, m[2]())
      local encoded, text = pcall(s.json and nd.json.encode or nd.yaml.encode, doc)
      if encoded then
        runs = runs + 1
        local ok, err = pcall(check, s.head .. text)
        io.stderr = stderr
        if not ok then
          local shown = {}
          for i, k in ipairs(path) do shown[i] = tostring(k) end
          findings[#findings + 1] = { seed = s.name, path = table.concat(shown, "."), mutation = m[1],
                                      message = tostring(type(err) == "table" and err.message or err) }
        end
      end
    end
  end
  return runs, findings
end

-- As a script: run and report.
if arg and arg[0] and arg[0]:match("mutate%.lua$") then
  local runs, findings = mutate.run { per_seed = tonumber(arg[1]) or 40, seed = tonumber(arg[2]) or 1 }
  for _, f in ipairs(findings) do
    print(string.format("FINDING %s: %s set to %s:\n%s", f.seed, f.path, f.mutation, f.message:sub(1, 2000)))
  end
  print(string.format("%d mutants, %d findings", runs, #findings))
  os.exit(#findings == 0 and 0 or 1)
end

return mutate
