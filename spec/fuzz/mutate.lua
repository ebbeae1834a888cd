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
--   ndlua spec/fuzz/mutate.lua [MUTANTS_PER_SEED [SEED [TARGETS]]]   (defaults 40, 1, estimate)
--
-- TARGETS (comma separated, or all): estimate; search (the search configs
-- through search.lua -s); policy (the ranking policies through nd.search);
-- silent (misspelt priced keys and repeated sections must be refused or
-- warned about, not priced without a word). .ci/run runs all, bounded.
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

-- Beyond the estimate path (issue 34 item 10): search configs, ranking
-- policies, and the silent wrong answer.

local NDLUA = os.getenv("NDLUA") or "./ndlua"
if NDLUA:sub(1, 1) ~= "/" then NDLUA = (os.getenv("PWD") or ".") .. "/" .. NDLUA:gsub("^%./", "") end

local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function list_files(pattern)
  local out = {}
  local p = assert(io.popen("ls " .. pattern .. " 2>/dev/null"))
  for name in p:lines() do out[#out + 1] = name end
  p:close()
  return out
end

local function path_text(path)
  local shown = {}
  for i, k in ipairs(path) do shown[i] = tostring(k) end
  return table.concat(shown, ".")
end

--- The search-config seeds: the bundled example's and the upstream
-- HyperParallel search configs (spec/fixtures/upstream), each with its
-- train_yaml made absolute so a mutant runs from anywhere.
function mutate.search_seeds()
  local out = {}
  local files = list_files("examples/*/search.yaml spec/fixtures/upstream/auto_parallel-*search*.yaml")
  for _, file in ipairs(files) do
    local doc = nd.yaml.decode(read(file), file)
    if type(doc.train_yaml) == "string" and doc.train_yaml:sub(1, 1) ~= "/" then
      doc.train_yaml = (os.getenv("PWD") or ".") .. "/" .. file:match("^(.*)/") .. "/" .. doc.train_yaml
    end
    out[#out + 1] = { name = file, doc = doc }
  end
  return out
end

local function copy(t)
  if type(t) ~= "table" or nd.isnull(t) then return t end
  local c = {}
  for k, v in pairs(t) do c[k] = copy(v) end
  return c
end

--- Mutants of the search configs, each run as `ndlua search.lua -s MUTANT`
-- in a child (a search that crashes must not take the runner with it): it
-- must exit 0 or 2 (bad input), with no Lua traceback or "attempt to" in
-- its output.
function mutate.run_search(opts)
  local per_seed, next_int = opts.per_seed or 10, generator(opts.seed or 1)
  local findings, runs = {}, 0
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir " .. dir))
  for _, s in ipairs(mutate.search_seeds()) do
    local paths = paths_of(s.doc, {})
    for _ = 1, math.min(per_seed, #paths * #mutate.MUTATIONS) do
      local path, m = paths[next_int(#paths)], mutate.MUTATIONS[next_int(#mutate.MUTATIONS)]
      local doc = copy(s.doc)
      set_at(doc, path, m[2]())
      local encoded, text = pcall(nd.yaml.encode, doc)
      if encoded then
        runs = runs + 1
        local f = assert(io.open(dir .. "/search.yaml", "w"))
        f:write(text)
        f:close()
        local cmd = string.format("cd %s && timeout 60 %s search.lua -s search.yaml -v 0 -t 1 -j 1 -o out 2>&1 "
          .. ">/dev/null; echo \"status $?\"", shell_quote(dir), shell_quote(NDLUA))
        local p = assert(io.popen(cmd))
        local out = p:read("a")
        p:close()
        local status = tonumber(out:match("status (%d+)\n$"))
        if not (status == 0 or status == 2) or out:find("traceback", 1, true) or out:find("attempt to", 1, true) then
          findings[#findings + 1] = { seed = s.name, path = path_text(path), mutation = m[1],
                                      message = "search.lua -s exited " .. tostring(status) .. ": " .. out }
        end
      end
    end
  end
  os.execute("rm -rf " .. shell_quote(dir))
  return runs, findings
end

--- Mutants of the ranking policies (the built-in ones and
-- examples/policies/team.lua), each handed to nd.search as a table: it
-- must rank, or be refused by name (a bad-input error, or an argument
-- error of nd.search), never fail inside the ranking ("attempt to call a
-- number value").
function mutate.run_policies(opts)
  local per_seed, next_int = opts.per_seed or 10, generator(opts.seed or 1)
  local policies = require "nd.policies"
  local model, run = nd.load("examples/llama-3.1-70b-tp-pp-sp/train.yaml", { quiet = true })
  local seeds = {}
  for _, name in ipairs(policies.names()) do seeds[#seeds + 1] = { name = name, p = policies.load(name) } end
  seeds[#seeds + 1] = { name = "examples/policies/team.lua", p = policies.load("examples/policies/team.lua") }
  local keys = { "order", "keep", "score", "name", "about" }
  local findings, runs = {}, 0
  for _, s in ipairs(seeds) do
    for _ = 1, per_seed do
      local key, m = keys[next_int(#keys)], mutate.MUTATIONS[next_int(#mutate.MUTATIONS)]
      local p = {}
      for k, v in pairs(s.p) do p[k] = v end
      p[key] = m[2]()
      runs = runs + 1
      local ok, err = pcall(nd.search, model, run, { memory = "80GB", top = 3, policy = p })
      local named = type(err) == "table" and err.bad_input
        or type(err) == "string" and (err:find("nd.search", 1, true) or err:find("policy", 1, true))
      if not ok and not named then
        findings[#findings + 1] = { seed = s.name, path = key, mutation = m[1], message = tostring(err) }
      end
    end
  end
  return runs, findings
end

-- The estimate of a train.yaml text, with the warnings it raised: peak
-- bytes (nil when refused) and the warnings' text joined.
local function estimate_of(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  local train_yaml = require "nd.train_yaml"
  local w = require("nd.warnings").quiet()
  local ok, model, run = pcall(function()
    return train_yaml.build(train_yaml.load(path, { warnings = w }))
  end)
  local peak
  if ok then
    local fine, est = pcall(nd.estimate, model, run)
    if fine then peak = est.peak_bytes end
  end
  os.remove(path)
  return peak, table.concat(w:all(), "\n"), ok
end

--- The silent wrong answer: each key of a train.yaml seed misspelt (its
-- name with "_typo" added, as a user's typing error). The value it held is
-- then unread: when that changes the estimate (the key was priced), the
-- estimate must refuse or warn naming the misspelt key; an estimate that
-- changes without a word is a finding (the case of issue 34's items 3 and
-- 4: a value priced as though it were not there). A key of a section
-- ndlua does not price (dataloader, checkpoint) changes nothing and needs
-- no word.
-- A repeated section (a second copy with one value changed) must be
-- refused (item 4).
function mutate.run_silent(opts)
  local per_seed, next_int = opts.per_seed or 10, generator(opts.seed or 1)
  local findings, runs = {}, 0
  local files = list_files("examples/*/train.yaml spec/fixtures/upstream/*train.yaml")
  for _, file in ipairs(files) do
    local text = read(file)
    local doc = nd.yaml.decode(text, file)
    local base_peak = estimate_of(text)
    if base_peak then
      local paths = {}
      for _, pth in ipairs(paths_of(doc, {})) do
        if #pth == 2 and type(pth[2]) == "string" then paths[#paths + 1] = pth end
      end
      for _ = 1, math.min(per_seed, #paths) do
        local pth = paths[next_int(#paths)]
        local d = nd.yaml.decode(text, file)
        local section = d[pth[1]]
        local typo = pth[2] .. "_typo"
        section[typo], section[pth[2]] = section[pth[2]], nil
        local ok, mutant = pcall(nd.yaml.encode, d)
        if ok then
          runs = runs + 1
          local peak, warned, loaded = estimate_of(mutant)
          if loaded and peak ~= base_peak and not warned:find(typo, 1, true) then
            findings[#findings + 1] = { seed = file, path = path_text(pth), mutation = "misspelt as " .. typo,
              message = string.format("no warning names %s; peak %s bytes before, %s after", typo,
                                      tostring(base_peak), tostring(peak)) }
          end
        end
      end
      -- a section stated twice: the first copy's text again at the end
      local first = text:match("\n(accelerator:\n[^\n]*\n[^\n]*\n)")
      if first then
        runs = runs + 1
        local _, _, loaded = estimate_of(text .. "\n" .. first)
        if loaded then
          findings[#findings + 1] = { seed = file, path = "accelerator", mutation = "stated twice",
                                      message = "a second accelerator: section was read without a word" }
        end
      end
    end
  end
  return runs, findings
end

--- Mutants of the balancer's layer files (SAPP-PPB's, spec/fixtures/sapp-ppb/*.json), each run as
-- `ndlua balance.lua MUTANT -s 16 -m 32 --memory 56000MB` in a child: it must exit 0 (a plan), 1 (no
-- plan, said) or 2 (bad input), with no Lua traceback or "attempt to" in its output.
function mutate.run_balance(opts)
  local per_seed, next_int = opts.per_seed or 10, generator(opts.seed or 1)
  local findings, runs = {}, 0
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir " .. dir))
  for _, file in ipairs(list_files("spec/fixtures/sapp-ppb/*.json")) do
    local doc = nd.json.decode(read(file), file)
    local paths = paths_of(doc, {})
    for _ = 1, math.min(per_seed, #paths * #mutate.MUTATIONS) do
      local path, m = paths[next_int(#paths)], mutate.MUTATIONS[next_int(#mutate.MUTATIONS)]
      local d = nd.json.decode(read(file), file)
      set_at(d, path, m[2]())
      local encoded, text = pcall(nd.json.encode, d)
      if encoded then
        runs = runs + 1
        local f = assert(io.open(dir .. "/layers.json", "w"))
        f:write(text)
        f:close()
        local p = assert(io.popen(string.format("cd %s && timeout 60 %s balance.lua layers.json -s 16 -m 32 "
          .. "--memory 56000MB 2>&1 >/dev/null; echo \"status $?\"", shell_quote(dir), shell_quote(NDLUA))))
        local out = p:read("a")
        p:close()
        local status = tonumber(out:match("status (%d+)\n$"))
        if not (status == 0 or status == 1 or status == 2) or out:find("traceback", 1, true)
          or out:find("attempt to", 1, true) then
          findings[#findings + 1] = { seed = file, path = path_text(path), mutation = m[1],
                                      message = "balance.lua exited " .. tostring(status) .. ": " .. out }
        end
      end
    end
  end
  os.execute("rm -rf " .. shell_quote(dir))
  return runs, findings
end

mutate.TARGETS = { estimate = mutate.run, search = mutate.run_search, policy = mutate.run_policies,
                   silent = mutate.run_silent, balance = mutate.run_balance }

-- As a script: run and report.
--   ndlua spec/fuzz/mutate.lua [MUTANTS_PER_SEED [SEED [TARGET,...|all]]]
if arg and arg[0] and arg[0]:match("mutate%.lua$") then
  local per_seed, seed = tonumber(arg[1]) or 40, tonumber(arg[2]) or 1
  local targets = {}
  for t in (arg[3] or "estimate"):gmatch("[^,]+") do
    if t == "all" then
      targets = { "estimate", "search", "policy", "silent", "balance" }
      break
    end
    assert(mutate.TARGETS[t], "no mutation target " .. t .. " (estimate, search, policy, silent, balance, all)")
    targets[#targets + 1] = t
  end
  local total_runs, total = 0, 0
  for _, t in ipairs(targets) do
    local runs, findings = mutate.TARGETS[t] { per_seed = per_seed, seed = seed }
    for _, f in ipairs(findings) do
      print(string.format("FINDING [%s] %s: %s set to %s:\n%s", t, f.seed, f.path, f.mutation, f.message:sub(1, 2000)))
    end
    print(string.format("%s: %d mutants, %d findings", t, runs, #findings))
    total_runs, total = total_runs + runs, total + #findings
  end
  print(string.format("%d mutants, %d findings", total_runs, total))
  os.exit(total == 0 and 0 or 1)
end

return mutate
