-- bench.lua: ndlua's benchmarks (make bench). Each figure is the median of
-- five runs; the machine's other load moves single runs, so read medians.
-- Usage: ndlua scripts/bench.lua [section...]   (sections: params estimate search balance)
local nd = require "nd"
local core = require "nd.core"
local warnings = require("nd.warnings").quiet()

local RUNS = 5

local function median(f)
  local t = {}
  for i = 1, RUNS do
    t[i] = f()
    collectgarbage("collect") -- a search result's C memory goes with it, not at some later cycle
  end
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
  return core.model { name = "synthetic", arch = "default", hidden_size = 4096, num_hidden_layers = layers,
    num_attention_heads = 32, num_key_value_heads = 8, head_dim = 128, layer_norms = 2,
    intermediate_size = 14336, vocab_size = 128256,
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

-- The searches of issue 15's bar, over every dimension and the three
-- recompute modes, with a global batch of 2 a device on A3 (58 GB), as
-- search.lua declares them: one thread and every online core, and the
-- floor (space.floor: the same nest and rules, each valid candidate
-- "priced" by one multiply-add a stage and layer kind). Targets (one
-- thread): 5 M priced/s on DeepSeek-V3 and 3 M/s on Qwen3-30B-A3B at 1024
-- devices; DeepSeek-V3 at 16384 devices under 0.3 s.
local SEARCHES = {
  { "DeepSeek-V3", "examples/deepseek-v3-256/train.yaml" },
  { "Qwen3-30B-A3B", "examples/qwen3-30b-a3b-fsdp8/train.yaml" },
}

function sections.search()
  local command = require "nd.search.command"
  local policies = require "nd.policies"
  print(string.format("search over every dimension x off/selective/full, A3, 58 GB, a batch of 2 a device " ..
                      "(median of %d runs; 'all' = every online core):", RUNS))
  print(string.format("  %-14s %7s %7s %9s %9s %8s %14s %9s %14s %7s", "model", "devices", "threads", "tested",
                      "priced", "fitting", "priced/s", "search s", "floor/s", "floor x"))
  local lua_policy
  for _, m in ipairs(SEARCHES) do
    for _, n in ipairs { 1024, 16384 } do
      local opts = command.read_options { m[2], "-d", tostring(n), "-b", tostring(2 * n), "-A", "A3", "-M", "58GB",
                                          "--recompute", "auto" }
      local s = command.prepare(opts, warnings)
      local floor_space = {}
      for k, v in pairs(s.space) do floor_space[k] = v end
      floor_space.floor, floor_space.threads = true, 1
      local floor_counts
      local floor_s = median(function()
        local r = core.search(s.base.model, s.base.run, floor_space)
        floor_counts = r:counts()
        return floor_counts.elapsed_s
      end)
      for _, threads in ipairs { 1, 0 } do
        s.space.threads = threads
        local counts
        local search_s = median(function()
          local r = core.search(s.base.model, s.base.run, s.space)
          counts = r:counts()
          return counts.elapsed_s
        end)
        local floor_rate = floor_counts.priced / floor_s
        print(string.format("  %-14s %7d %7s %9d %9d %8d %14.0f %9.3f %14.0f %7.1f", m[1], n,
                            threads == 1 and "1" or "all", counts.tested, counts.priced, counts.fitting,
                            counts.priced / search_s, search_s, floor_rate, floor_rate / (counts.priced / search_s)))
        if n == 1024 and threads == 1 and not lua_policy then lua_policy = { s = s, fitting = counts.fitting } end
      end
    end
  end
  -- the default policy's ranking (sort and the shown rows) on top of the search
  local s = lua_policy.s
  s.space.threads = 1
  local rank_s = median(function()
    local r = core.search(s.base.model, s.base.run, s.space)
    local t0 = os.clock()
    policies.apply(r, s.policy, {})
    for i = 1, math.min(10, r:size()) do r:candidate(i) end
    return os.clock() - t0
  end)
  report("the default policy's ranking of DeepSeek-V3 at 1024 devices (sort and 10 rows)", rank_s)
  -- A policy scoring in Lua (examples/policies/team.lua: keep and score on
  -- every fitting candidate) costs a table a candidate; per candidate:
  local team = policies.load("examples/policies/team.lua")
  local r = core.search(s.base.model, s.base.run, s.space)
  local ctx = { node_devices = 16, budget_bytes = s.budget }
  local per = median(function()
    local t0 = os.clock()
    policies.apply(r, team, ctx)
    return (os.clock() - t0) / lua_policy.fitting
  end)
  report(string.format("a Lua policy (keep + score) per fitting candidate, 1024 devices (%d)", lua_policy.fitting), per)
end

-- The pipeline balancer (issue 32): the bar's SAPP-PPB case (llama2_70b.json,
-- S 16, m 32, I 2, 56000 MB, -O 2: proved optimal in under 1 s), the same
-- under ndlua's step objective, and a DeepSeek-V3-like body of three layer
-- kinds (3 dense, 57 MoE, 1 MTP-like; made-up costs of the right shape).
function sections.balance()
  local balance = require "nd.balance"
  print("pipeline balancer (median of 5 solves, the solver's wall time):")
  local doc = nd.json.load("spec/fixtures/sapp-ppb/llama2_70b.json")
  for _, objective in ipairs { "sapp", "step" } do
    local p = balance.from_sapp(doc, { stages = 16, micro = 32, chunks = 2, limit = 56000, objective = objective })
    local plan
    local t = median(function() plan = core.balance(p); return plan.solve_s end)
    report(string.format("llama2_70b S16 m32 I2 56000 MB, %s objective (%s)", objective,
      plan.optimal and "proved" or "not proved"), t / 1000, "ms")
  end
  local dense = { stat = 800, fwd = 1, act = { off = 900, selective = 500, full = 60 }, time = { off = 3, selective = 3.1, full = 4 } }
  local moe = { stat = 2600, fwd = 2, act = { off = 1200, selective = 700, full = 70 }, time = { off = 5, selective = 5.2, full = 7 } }
  local mtp = { stat = 3000, fwd = 2, act = { off = 1500, full = 90 }, time = { off = 6, full = 8 } }
  for _, case in ipairs { { 16, 1 }, { 8, 2 }, { 16, 2 }, { 16, 2, "v" }, { 8, 3 }, { 8, 4 } } do
    local S, I, order, seq, inflight = case[1], case[2], case[3], {}, {}
    for i = 1, 61 do seq[i] = i <= 3 and 1 or i == 61 and 3 or 2 end
    for s = 1, S do
      inflight[s] = {}
      for v = 1, I do inflight[s][v] = I == 1 and S - s + 1 or S end
    end
    local a, b = core.balance_coeffs { pp = S, vpp = I, micro = 32 }
    local p = { stages = S, chunks = I, micro = 32, limit = 40000, kinds = { dense, moe, mtp }, sequence = seq,
                inflight = inflight, coef_sum = a, coef_max = b, order = order }
    local t = median(function() return core.balance(p).solve_s end)
    report(string.format("DeepSeek-V3-like kinds (61 layers) S%d m32 I%d%s 40000 MB, step objective", S, I,
      order and " (DualPipeV's V order)" or ""), t / 1000, "ms")
  end
end

local wanted = #arg > 0 and arg or { "params", "estimate", "search", "balance" }
for _, name in ipairs(wanted) do
  if sections[name] then sections[name]() end
end
