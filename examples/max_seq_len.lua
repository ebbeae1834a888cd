-- max_seq_len.lua: the longest sequence each recompute mode lets a device
-- hold, and how the peak grows with the sequence.
--
--   ndlua examples/max_seq_len.lua [OUT_DIR]
--
-- Llama-3.1-70B as examples/llama-3.1-70b-tp-pp-sp/train.yaml trains it:
-- 64 devices (dp 2 x tp 8 x pp 4, sequence parallel), micro-batch 1, the
-- yaml's 64 GiB a device. For each recompute mode, the longest sequence in
-- steps of 1024 tokens whose peak fits (a bisection over nd.estimate: the
-- peak only grows with the sequence); then the peak of each mode from 4K
-- to 128K tokens, drawn against the capacity in OUT_DIR/max_seq_len.svg
-- (cut off at 2.5 x the capacity, where the crossings are).

local nd = require "nd"
local study = nd.study

local here = arg and arg[0] and arg[0]:match("^(.*)/") or "."
local out_dir = arg[1] or "."
local model, run, extras = nd.load(here .. "/llama-3.1-70b-tp-pp-sp/train.yaml")
local name = extras.source.id or model:spec().name
local MODES = { "off", "selective", "full" }
local STEP = 1024
local limit = model:spec().max_position_embeddings
local capacity = nd.estimate(model, run).capacity_bytes

print(string.format("%s on %d devices (dp %d x tp %d x pp %d), micro-batch %d, %s a device",
                    name, run.dp * run.tp * run.pp, run.dp, run.tp, run.pp, run.micro_batch_size,
                    nd.units.gib(capacity)))

-- The peak of the run at `seq` tokens under `mode`.
local function estimate(mode, seq)
  return nd.estimate(model, run:with { recompute = mode, seq_length = seq })
end

local lengths = {}
for seq = STEP, limit, STEP do lengths[#lengths + 1] = seq end

local longest = study.sweep("recompute", MODES, function(mode)
  local seq, est = study.largest(lengths, function(s)
    local e = estimate(mode, s)
    return e.fits, e
  end)
  if not seq then return {} end
  local above = seq < limit and estimate(mode, seq + STEP) or nil
  return { max_seq = seq, peak_bytes = est.peak_bytes, spare_bytes = capacity - est.peak_bytes,
           above_bytes = above and above.peak_bytes }
end)

print()
print(string.format("The longest sequence that fits, in steps of %d tokens (the model's limit: %d tokens):", STEP,
                    limit))
study.print_table(longest, {
  "recompute", { key = "max_seq", title = "longest", unit = "tokens" }, { key = "peak_bytes", title = "its peak" },
  { key = "spare_bytes", title = "to spare" },
  { key = "above_bytes", title = string.format("peak at %d more", STEP) },
})

-- The peak of each mode at 4K, 8K, ... 128K tokens.
local curve = study.sweep("seq_length", { 4096, 8192, 16384, 32768, 65536, 131072 }, function(seq)
  local row = {}
  for _, mode in ipairs(MODES) do row[mode .. "_bytes"] = estimate(mode, seq).peak_bytes end
  return row
end)

print()
print("Peak memory a device by sequence length:")
study.print_table(curve, { { key = "seq_length", title = "sequence", unit = "tokens" }, "off_bytes",
                           "selective_bytes", "full_bytes" })

local path = out_dir .. "/max_seq_len.svg"
nd.write_svg(path, study.svg_lines {
  rows = curve, x = "seq_length", ys = { "off_bytes", "selective_bytes", "full_bytes" },
  names = { off_bytes = "off", selective_bytes = "selective", full_bytes = "full" },
  log_x = true, x_format = study.k, xlabel = "sequence length (tokens)", ylabel = "peak memory a device (GiB)",
  legend_title = "recompute",
  title = string.format("%s: peak memory by sequence length", name),
  subtitle = string.format("%d devices, dp %d x tp %d x pp %d, micro-batch %d", run.dp * run.tp * run.pp, run.dp,
                           run.tp, run.pp, run.micro_batch_size),
  lines = { { value = capacity, label = "capacity " .. nd.units.gib(capacity) } },
  y_max = 2.5 * capacity, -- the lines leave the plot at 2.5 x the capacity: the crossings matter
})
print()
print("chart: " .. path)
