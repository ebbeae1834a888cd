-- bench.lua: ndlua's benchmarks (make bench). Each figure is the median of
-- five runs; the machine's other load moves single runs, so read medians.
-- Usage: ndlua scripts/bench.lua [section...]   (sections: params estimate search)
local nd = require "nd"
local core = require "nd.core"
local warnings = require("nd.warnings").quiet()

local RUNS = 5

local function median(f)
  local t = {}
  for i = 1, RUNS do t[i] = f() end
  table.sort(t)
  return t[(RUNS + 1) // 2]
end

local function report(label, seconds, unit_label)
  print(string.format("  %-58s %10.3f %s", label, seconds * 1e6, unit_label or "us"))
end

local function catalog(id) return nd.model(id, { warnings = warnings }) end

local sections = {}

-- Parameter counting of the largest catalog models (one count, in microseconds).
function sections.params()
  print("parameter counting (median of 5 runs of 10000 counts, per count):")
  for _, id in ipairs { "deepseek-ai/DeepSeek-V3", "meta-llama/Llama-3.1-405B", "Qwen/Qwen3-VL-30B-A3B-Instruct" } do
    local m = catalog(id)
    report(id, median(function() return core.time_params(m, 10000) / 10000 end))
  end
end

-- A synthetic dense model of n layers: the estimate's cost must not grow with n.
local function synthetic(layers)
  local ops = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 1, dropout = 0, normOp = 2, gather = 4,
                headCast = 1, ffAct = 1, linrec = 0 }
  return core.model { name = "synthetic", hidden_size = 4096, num_hidden_layers = layers,
    num_attention_heads = 32, num_key_value_heads = 8, intermediate_size = 14336, vocab_size = 128256,
    kinds = { decoder = { ops = ops } }, layers = { { kind = "decoder", count = layers } } }
end

-- One nd.estimate in C (layout, derive, every stage), in microseconds.
function sections.estimate()
  print("one estimate (median of 5 runs of 2000 estimates, per estimate; target under 20 us):")
  local cases = {
    { "DeepSeek-V3, 61 layers + MTP, pp 16, vpp 2, ep 64, dp 64", catalog("deepseek-ai/DeepSeek-V3"),
      { dp = 64, pp = 16, vpp = 2, ep = 64, micro_batch_num = 32, optimizer_parallel = true, recompute = "full" } },
    { "Llama-3.1-405B, pp 16, tp 8, dp 8", catalog("meta-llama/Llama-3.1-405B"),
      { dp = 8, tp = 8, pp = 16, micro_batch_num = 32, sequence_parallel = true, optimizer_parallel = true } },
  }
  for _, layers in ipairs { 16, 128, 1000 } do
    cases[#cases + 1] = { string.format("synthetic dense, %d layers, pp 16", layers), synthetic(layers),
      { dp = 4, tp = 8, pp = 16, micro_batch_num = 32, optimizer_parallel = true } }
  end
  for _, c in ipairs(cases) do
    local run = nd.run(c[3])
    report(c[1], median(function() return core.time_estimate(c[2], run, 2000) / 2000 end))
  end
end

-- The search (nd.core.search) of DeepSeek-V3 from the catalog over every
-- dimension and the three recompute modes, as search.lua declares it for
-- examples/deepseek-v3-256/train.yaml on A3 with a 58 GB budget and a global
-- batch of 2 a device. Targets: 1,000,000 priced a second, and the
-- 1024-device search (with the default policy's sort) under a second.
function sections.search()
  local lua_policy
  local command = require "nd.search.command"
  local policies = require "nd.policies"
  print("search, DeepSeek-V3 over every dimension x off/selective/full, A3, 58 GB (median of 5 runs):")
  print(string.format("  %-12s %10s %10s %10s %14s %10s %12s", "devices", "tested", "priced", "fitting",
                      "priced/s", "search s", "+ ranking s"))
  for _, n in ipairs { 1024, 4096 } do
    local opts = command.read_options { "examples/deepseek-v3-256/train.yaml", "-d", tostring(n), "-b",
                                        tostring(2 * n), "-A", "A3", "-M", "58GB", "--recompute", "auto" }
    local s = command.prepare(opts, warnings)
    local counts
    local search_s = median(function()
      local r = core.search(s.base.model, s.base.run, s.space)
      counts = r:counts()
      return counts.elapsed_s
    end)
    local total_s = median(function()
      local t0 = os.clock()
      local r = core.search(s.base.model, s.base.run, s.space)
      policies.apply(r, s.policy, {})
      for i = 1, math.min(10, r:size()) do r:candidate(i) end
      return os.clock() - t0
    end)
    print(string.format("  %-12d %10d %10d %10d %14.0f %10.3f %12.3f", n, counts.tested, counts.priced,
                        counts.fitting, counts.priced / search_s, search_s, total_s))
    if n == 1024 then lua_policy = { s = s, fitting = counts.fitting } end
  end
  -- A policy scoring in Lua (examples/policies/team.lua: keep and score on
  -- every fitting candidate) costs a table a candidate; per candidate:
  local team = policies.load("examples/policies/team.lua")
  local s = lua_policy.s
  local r = core.search(s.base.model, s.base.run, s.space)
  local ctx = { node_devices = 16, budget_bytes = s.budget }
  local per = median(function()
    local t0 = os.clock()
    policies.apply(r, team, ctx)
    return (os.clock() - t0) / lua_policy.fitting
  end)
  report(string.format("a Lua policy (keep + score) per fitting candidate, 1024 devices (%d)", lua_policy.fitting), per)
end

local wanted = #arg > 0 and arg or { "params", "estimate", "search" }
for _, name in ipairs(wanted) do
  if sections[name] then sections[name]() end
end
