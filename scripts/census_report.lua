-- census_report.lua: formula vs census, per family and layer kind (make census-report).
-- Measures each fixture of spec/census/specs/ with scripts/census.py (PyTorch
-- autograd) and prints its bytes per token beside ndlua's formulas and their
-- ratio. A report, not a gate: spec/census_crosscheck_spec.lua is the gate.
-- Usage: ndlua scripts/census_report.lua [--seq-len N]
local nd = require "nd"
local warnings = require "nd.warnings"
local census_formula = require("nd.census").formula

local seq = 64
for i = 1, #arg do
  if arg[i] == "--seq-len" then seq = tonumber(arg[i + 1]) end
end

-- fixture, census options, run fields (the census dtype and kernel)
local FAMILIES = {
  { "llama", "", {} },
  { "llama", "--eager", { flash_attention = false } },
  { "qwen3_moe", "", {} },
  { "deepseek_v3", "", {} },
  { "qwen3_5", "--delta-rule kernel", {} },
  { "gpt", "--dtype fp16", { softmax_bytes = 2 } },
}

local function census(fixture, options)
  local cmd = string.format("/usr/bin/python3 scripts/census.py %s --spec spec/census/specs/%s.json --seq-len %d %s 2>/dev/null",
    fixture, fixture, seq, options)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  if not p:close() or out == "" then return nil end
  return nd.json.decode(out)
end

local function model(fixture)
  local spec = nd.json.load("spec/census/specs/" .. fixture .. ".json")
  spec.kinds, spec.family = nil, nil
  return nd.model(spec, { warnings = warnings.quiet() })
end

local function ratio(a, b) return b ~= 0 and string.format("%.4f", a / b) or "-" end

print(string.format("census (PyTorch autograd, scripts/census.py) vs ndlua's formulas, bytes per token at s = %d", seq))
print(string.format("%-26s %-17s %11s %11s %11s %11s %8s", "family", "kind", "census", "census TP", "formula", "formula TP", "ratio"))
for _, f in ipairs(FAMILIES) do
  local fixture, options, fields = f[1], f[2], f[3]
  local rec = census(fixture, options)
  local label = fixture .. (options ~= "" and (" " .. options) or "")
  if not rec then
    print(string.format("%-26s census.py failed (is python3-torch installed?)", label))
  else
    local m = model(fixture)
    fields.seq_length = seq
    local run = nd.run(fields)
    local kinds = {}
    for kind in pairs(rec.activations) do kinds[#kinds + 1] = kind end
    table.sort(kinds)
    for _, kind in ipairs(kinds) do
      local c, f = rec.activations[kind], census_formula(m, run, kind).saved
      local shared, tp = f.saved, f.saved_tp
      print(string.format("%-26s %-17s %11.2f %11.2f %11.2f %11.2f %8s", label, kind, c.saved, c.saved_tp, shared, tp,
        ratio(c.saved + c.saved_tp, shared + tp)))
    end
    local o, c = census_formula(m, run, kinds[1]).output, rec.output_activations
    print(string.format("%-26s %-17s %11.2f %11.2f %11.2f %11.2f %8s", label, "output", c.saved, c.saved_tp,
      o.saved, o.saved_tp, ratio(c.saved + c.saved_tp, o.saved + o.saved_tp)))
  end
end
