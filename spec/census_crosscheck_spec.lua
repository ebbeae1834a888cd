-- The census cross-check (issue 7): for each family ndlua prices, the bytes
-- per token PyTorch's autograd saves for backward in scripts/census.py's
-- reference layers (measured now, at the small dimensions of the fixtures
-- in spec/census/specs/) against ndlua's formulas (nd.core.activation_split).
-- Equal where both count the same tensors; where they do not, the test
-- states the difference exactly and why. Needs Debian's python3-torch.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local core = require "nd.core"
local census_formula = require("nd.census").formula
local warnings = require "nd.warnings"

local SEQ = 64

-- The census record of a fixture, measured by scripts/census.py.
local function census(fixture, options)
  local errors = os.tmpname()
  local cmd = string.format("/usr/bin/python3 scripts/census.py %s --spec spec/census/specs/%s.json --seq-len %d %s 2>%s",
    fixture, fixture, SEQ, options or "", errors)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  local ok = p:close()
  local f = io.open(errors)
  local err = f and f:read("a") or ""
  if f then f:close() end
  os.remove(errors)
  assert(ok, "census.py failed: " .. err)
  return nd.json.decode(out)
end

-- The fixture as ndlua settles it (its census-only fields left out).
local function model(fixture)
  local spec = nd.json.load("spec/census/specs/" .. fixture .. ".json")
  spec.kinds, spec.family = nil, nil
  return nd.model(spec, { warnings = warnings.quiet() })
end

-- The formula's bytes per token (nd.census.formula, the once-a-layer bytes
-- spread over the run's SEQ tokens), as a census record states them.
local function formula(m, run, kind, part)
  local f = census_formula(m, run, kind)[part]
  return f.saved, f.saved_tp
end

local function near(a, b) return math.abs(a - b) < 1e-9 end

local function check_kind(rec, m, run, kind)
  local shared, tp = formula(m, run, kind, "saved")
  assert.is_true(near(rec.saved, shared), string.format("saved: census %.4f, formula %.4f", rec.saved, shared))
  assert.is_true(near(rec.saved_tp, tp), string.format("saved_tp: census %.4f, formula %.4f", rec.saved_tp, tp))
end

local function check_selective(rec, m, run, kind)
  local shared, tp = formula(m, run, kind, "selective")
  assert.is_true(near(rec.selective, shared),
    string.format("selective: census %.4f, formula %.4f", rec.selective, shared))
  assert.is_true(near(rec.selective_tp, tp),
    string.format("selective_tp: census %.4f, formula %.4f", rec.selective_tp, tp))
end

-- The output layer: the census's shifted labels hold s + 1 int64s for s
-- tokens (8/s bytes a token more than ndlua's 8); the rest is equal.
local function check_output(rec, m, run, kind)
  local f = core.activation_split(m, run, kind).output
  assert.is_true(near(rec.saved, f.shared + f.layer / SEQ + 8 / SEQ),
    string.format("output saved: census %.4f, formula %.4f", rec.saved, f.shared + f.layer / SEQ))
  assert.is_true(near(rec.saved_tp, f.tp))
end

describe("census cross-check, flash attention (bf16)", function()
  local cases = {
    { "llama", { "decoder" } },          -- dense GQA, RMSNorm, SwiGLU
    { "qwen3_moe", { "decoder" } },      -- QK-norm, softmax router, grouped experts
    { "deepseek_v3", { "dense", "moe" } }, -- MLA, sigmoid router, shared expert
  }
  for _, c in ipairs(cases) do
    local fixture, kinds = c[1], c[2]
    describe(fixture, function()
      local rec, m, run
      setup(function()
        rec, m, run = census(fixture), model(fixture), nd.run { seq_length = SEQ }
      end)
      for _, kind in ipairs(kinds) do
        it(kind .. ": saved and saved_tp equal the formulas", function()
          check_kind(rec.activations[kind], m, run, kind)
        end)
        it(kind .. ": selective recompute (HyperParallel's rule) equals the formulas", function()
          check_selective(rec.activations[kind], m, run, kind)
        end)
      end
      it("output layer equals the formulas but for the shifted label", function()
        check_output(rec.output_activations, m, run, kinds[1])
      end)
    end)
  end
end)

describe("census cross-check, Qwen3.5 (zero-centred norms, gated attention, gated DeltaNet)", function()
  local rec, m, run
  setup(function()
    -- the delta rule as a fused kernel keeps it (HyperParallel's kernel contract)
    rec, m, run = census("qwen3_5", "--delta-rule kernel"), model("qwen3_5"), nd.run { seq_length = SEQ }
  end)
  it("full_attention: saved and saved_tp", function()
    check_kind(rec.activations.full_attention, m, run, "full_attention")
  end)
  it("full_attention: selective", function()
    check_selective(rec.activations.full_attention, m, run, "full_attention")
  end)
  it("linear_attention: saved and saved_tp", function()
    check_kind(rec.activations.linear_attention, m, run, "linear_attention")
  end)
  it("linear_attention: selective", function()
    check_selective(rec.activations.linear_attention, m, run, "linear_attention")
  end)
  it("output layer (a zero-centred final norm)", function()
    check_output(rec.output_activations, m, run, "full_attention")
  end)
end)

describe("census cross-check, eager attention", function()
  local rec, m, run
  setup(function()
    rec, m, run = census("llama", "--eager"), model("llama"), nd.run { seq_length = SEQ, flash_attention = false }
  end)
  it("llama eager: scores kept (fp32 softmax, bf16 probabilities) and the repeated k and v", function()
    check_kind(rec.activations.decoder, m, run, "decoder")
  end)
  it("llama eager, selective: the TP part (the softmax region keeps its scores, AV its probabilities)", function()
    local _, tp = formula(m, run, "decoder", "selective")
    assert.is_true(near(rec.activations.decoder.selective_tp, tp))
  end)
  pending("llama eager, selective, the TP-shared part: the census keeps 384 bytes a token, the formula 512 "
    .. "(one h-wide bf16 tensor; flash attention and GPT-2 agree, this combination is not understood yet)")
end)

describe("census cross-check, GPT-2 (fp16, eager, dropout): Korthikanti's layer", function()
  local rec, m, run
  setup(function()
    rec, m = census("gpt", "--dtype fp16"), model("gpt")
    run = nd.run { seq_length = SEQ, param_bytes = 2, compute_bytes = 2, softmax_bytes = 2 }
  end)
  it("saved: the formula's 10h + 16 less the two LayerNorms' fp32 mean and rstd (8 bytes each)", function()
    -- ndlua prices the gpt profile exactly as Korthikanti et al. do, who leave
    -- the statistics out; autograd keeps them
    local shared, tp = formula(m, run, "decoder", "saved")
    assert.is_true(near(rec.activations.decoder.saved, shared + 16))
    assert.is_true(near(rec.activations.decoder.saved_tp, tp))
  end)
  it("selective under HyperParallel's rule equals the formulas", function()
    check_selective(rec.activations.decoder, m, run, "decoder")
  end)
  it("the output layer, less the final LayerNorm's statistics (8 bytes)", function()
    local f = core.activation_split(m, run, "decoder").output
    assert.is_true(near(rec.output_activations.saved, f.shared + 8 + 8 / SEQ))
  end)
end)
