-- sanity_time.lua: the time model (src/core/timing.c, nd.core.step_time) against
-- published training runs of similar setups. A report, not a gate: it
-- prints the estimate beside what was published and how far apart they are.
--
--   ndlua scripts/sanity_time.lua
--
-- MFU here is model FLOPs (3 x the forward of every token, attention
-- included, recomputation not) over the dense BF16 peak. Publications count
-- differently; each case says how its figure is brought to that measure.
local nd = require "nd"
local core = require "nd.core"
local hardware = require "nd.hardware"
local warnings = require("nd.warnings").quiet()

local function profile(name, changes)
  local p = hardware.load(name)
  local c = hardware.core(p)
  for k, v in pairs(changes or {}) do c[k] = v end
  return c
end

local function row(label, estimate, published, unit)
  local off = (estimate - published) / published * 100
  print(string.format("  %-46s %12.4g %12.4g %s  (%+.0f %%)", label, estimate, published, unit or "", off))
end

local function parts_line(t)
  local p = t.parts
  local shares = {}
  for _, part in ipairs(require("nd.report.table").PARTS) do
    local k = part[1]
    shares[#shares + 1] = string.format("%s %.0f%%", k:gsub("_s$", ""), 100 * p[k] / t.step_time_s)
  end
  print("  estimated step: " .. table.concat(shares, ", "))
end

local cases = {}

-- Narayanan et al. 2021 ("Efficient Large-Scale Language Model Training on
-- GPU Clusters Using Megatron-LM"), Table 1: GPT-3 175B (96 layers, h 12288,
-- 96 heads, sequence 2048, vocabulary 51200) on 1024 A100 80GB, TP 8, PP 16,
-- DP 8, global batch 1536, micro-batch 1, full activation recomputation:
-- 153 TFLOP/s a GPU, 49 % of peak, counted as 96·B·s·l·h²·(1 + s/6h +
-- V/16lh), which includes the recomputed forward (4 passes). Model FLOPs
-- (3 passes) are 3/4 of that: 115 TFLOP/s, 36.8 % MFU; the step is the
-- batch's FLOPs over 1024 x 153 TFLOP/s.
function cases.gpt3()
  local m = nd.model({ name = "gpt3-175b", arch = "gpt", hidden_size = 12288, num_hidden_layers = 96,
                       num_attention_heads = 96, intermediate_size = 49152, vocab_size = 51200,
                       max_position_embeddings = 2048 }, { warnings = warnings })
  local run = nd.run { tp = 8, pp = 16, dp = 8, micro_batch_size = 1, micro_batch_num = 192, seq_length = 2048,
                       recompute = "full", grad_accumulation = true, grad_bytes = 4, param_bytes = 2, compute_bytes = 2,
                       -- Megatron's FusedScaleMaskSoftmax writes its output in 16 bits
                       softmax_bytes = 2 }
  local t = core.step_time(m, run, profile("A100-80GB"))
  local B, s, l, h, V = 1536, 2048, 96, 12288, 51200
  local flops = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
  local step = flops / (1024 * 153e12)
  print("GPT-3 175B, 1024 A100 80GB, TP 8 PP 16 DP 8, batch 1536 x 2048, full recompute (Narayanan et al. 2021):")
  row("step time", t.step_time_s, step, "s")
  row("MFU (published 49 % with recompute x 3/4)", 100 * t.mfu, 49 * 3 / 4, "%")
  parts_line(t)
end

-- Dubey et al. 2024 ("The Llama 3 Herd of Models"), Table 4: Llama 3 405B
-- pre-training on H100 at sequence 8192, TP 8, CP 1, PP 16, 16M tokens a
-- batch: 8192 GPUs (DP 64, 32 sequences a DP rank) 430 TFLOP/s, 43 % BF16
-- MFU; 16384 GPUs (DP 128, 16 a rank) 400 TFLOP/s, 41 %. FSDP-style
-- sharding of optimizer states and gradients over DP (ZeRO-2), interleaved
-- 1F1B (vpp chosen so 126 layers split: ndlua balances them itself).
function cases.llama3()
  local m = nd.model("meta-llama/Llama-3.1-405B", { warnings = warnings })
  print("Llama 3 405B, H100, TP 8 PP 16, sequence 8192, 16M tokens a batch (Dubey et al. 2024, Table 4):")
  for _, c in ipairs({ { 8192, 64, 32, 43 }, { 16384, 128, 16, 41 } }) do
    local run = nd.run { tp = 8, pp = 16, dp = c[2], vpp = 2, micro_batch_size = 1, micro_batch_num = c[3],
                         seq_length = 8192, sequence_parallel = true, grad_accumulation = true,
                         optimizer_parallel = true, grad_shard = true, grad_bytes = 4,
                         -- a production trainer's fused norm, SwiGLU and RoPE kernels
                         fused_norm = true, fused_swiglu = true, rope = "fused" }
    local t = core.step_time(m, run, profile("H100"))
    row(string.format("MFU on %d GPUs (DP %d)", c[1], c[2]), 100 * t.mfu, c[4], "%")
    if c[1] == 16384 then parts_line(t) end
  end
end

-- DeepSeek-AI 2024 ("DeepSeek-V3 Technical Report"): pre-training on 14.8T
-- tokens took 2.664M H800 GPU hours (2.788M in all) on 2048 H800: 14.8e12 /
-- (2.664e6 x 3600 s) = 1543 tokens a second a GPU. PP 16, EP 64 over 8
-- nodes, ZeRO-1 DP, no TP, DualPipe, sequence 4096, batch 15360 sequences
-- (after its ramp), FP8 GEMMs. H800 is H100 with NVLink cut to 400 GB/s
-- (200 each way). ndlua prices BF16 at 593 TFLOP/s sustained: the FP8
-- GEMMs ran up to twice that.
function cases.deepseek_v3()
  local m = nd.model("deepseek-ai/DeepSeek-V3", { warnings = warnings })
  local h800 = profile("H100", { levels = { { devices = 8, gbps = 200 * 0.8 }, { gbps = 50 * 0.9 } } })
  local run = nd.run { pp = 16, vpp = 2, ep = 64, dp = 128, micro_batch_size = 1, micro_batch_num = 120,
                       seq_length = 4096, pp_schedule = "zero_bubble_v", grad_accumulation = true,
                       optimizer_parallel = true, grad_bytes = 4,
                       -- its trainer's fused norm, SwiGLU and RoPE kernels
                       fused_norm = true, fused_swiglu = true, rope = "fused" }
  local t = core.step_time(m, run, h800)
  print("DeepSeek-V3, 2048 H800, PP 16 (DualPipe) EP 64 DP 128, 15360 x 4096 a batch (DeepSeek-AI 2024):")
  row("tokens a second a GPU", t.tokens_per_s_per_device, 14.8e12 / (2.664e6 * 3600))
  parts_line(t)
  -- DualPipe overlaps each direction's all-to-all with the other's compute;
  -- the profile's EP overlap (0) knows no schedule. With 90 % of it hidden:
  local hidden = profile("H100", { levels = h800.levels, overlap = { dp = 0.9, tp = 0.5, cp = 0.5, ep = 0.9,
                                                                      pp = 0.5 } })
  local t2 = core.step_time(m, run, hidden)
  row("tokens a second a GPU, EP 90 % hidden", t2.tokens_per_s_per_device, 14.8e12 / (2.664e6 * 3600))
  hidden.sustained_tflops = 2 * hidden.sustained_tflops
  row("  and FP8 GEMMs at twice the BF16 rate", core.step_time(m, run, hidden).tokens_per_s_per_device,
      14.8e12 / (2.664e6 * 3600))
end

print(string.format("  %-46s %12s %12s", "", "estimate", "published"))
for _, name in ipairs({ "gpt3", "llama3", "deepseek_v3" }) do
  cases[name]()
  print("")
end
