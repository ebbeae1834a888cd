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

local wanted = #arg > 0 and arg or { "params", "estimate", "search" }
for _, name in ipairs(wanted) do
  if sections[name] then sections[name]() end
end
