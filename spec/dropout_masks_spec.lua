-- hidden_dropout_masks: a family without dropout whose runtime still keeps
-- its residual dropouts' masks. Megatron's TransformerLayer adds each
-- sublayer's output through a bias-dropout-add: at its default hidden_dropout
-- 0.1 that keeps a bool mask, and at 0 too when TorchScript compiles it (its
-- jit_fuser before PyTorch 2.2), as measured below with Debian's python3-torch.
--
-- The tiny dense model (spec/support/tiny.lua): h = 64, 2 layers, no dropout
-- in its profile (dropout = 0); an nd.run's compute width 2 B.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local core = require "nd.core"
local tiny = dofile("spec/support/tiny.lua")

local dense = tiny.dense()

local function estimate(model, fields)
  return nd.estimate(model, nd.run(fields)).stages[1]
end

describe("hidden_dropout_masks", function()
  it("TorchScript's bias-dropout-add keeps a 1-byte mask an element at dropout 0; eager keeps none", function()
    -- scripts/measure/torchscript_dropout.py: the bytes an element left allocated after the
    -- forward beyond its output, under Megatron's JIT options, on the CPU
    local p = assert(io.popen("/usr/bin/python3 scripts/measure/torchscript_dropout.py --elements 65536 2>&1"))
    local out = p:read("a")
    assert(p:close(), "torchscript_dropout.py failed: " .. out)
    local measured = nd.json.decode(out)
    assert.are.equal(1, measured.scripted_kept_bytes_per_element)
    assert.are.equal(0, measured.eager_kept_bytes_per_element)
  end)

  it("keeps two 1-byte masks of the hidden state a layer", function()
    -- 2 masks x 64 B x 128 tokens x 2 layers = 32768 B
    local plain = estimate(dense, { seq_length = 128 })
    local masked = estimate(dense, { seq_length = 128, hidden_dropout_masks = true })
    assert.are.equal(32768, masked.activations - plain.activations)
  end)

  it("the megatron runtime keeps them on every run (its profile, not a case, states it)", function()
    -- the same 32768 B as above, with no field stated by the run
    local plain = estimate(dense, { seq_length = 128 })
    local megatron = estimate(dense, { seq_length = 128, runtime = "megatron" })
    local without = estimate(dense, { seq_length = 128, runtime = "megatron", hidden_dropout_masks = false })
    assert.is_true(nd.run({ runtime = "megatron" }).hidden_dropout_masks)
    assert.are.equal(32768, megatron.activations - without.activations)
    assert.is_falsy(nd.run({}).hidden_dropout_masks)
    assert.are.equal(plain.activations, estimate(dense, { seq_length = 128, hidden_dropout_masks = false }).activations)
  end)

  it("a recomputed layer keeps none (its masks come back from the seed)", function()
    assert.are.equal(estimate(dense, { seq_length = 128, recompute = "full" }).activations,
                     estimate(dense, { seq_length = 128, recompute = "full", hidden_dropout_masks = true }).activations)
  end)

  it("a family with dropout keeps its own masks, no more", function()
    local gpt = tiny.gpt(64, 4, 2)
    assert.are.equal(estimate(gpt, { seq_length = 128 }).activations,
                     estimate(gpt, { seq_length = 128, hidden_dropout_masks = true }).activations)
  end)

  it("each mask's dropout reads the hidden state and writes its output and mask: h (2 bc + 1) a token", function()
    -- 1 GB/s of HBM: seconds are bytes / 1e9. Forward: 2 x 64 x (2·2 + 1) x 128 tokens x 2 layers
    -- = 163840 B; the backward twice that
    local hw = { peak_tflops = 2, sustained_tflops = 1, memory_gbps = 1, levels = { { gbps = 1 } },
                 overlap = { dp = 0, tp = 0, cp = 0, ep = 0, pp = 0 } }
    local plain = core.step_time(dense, nd.run { seq_length = 128 }, hw).parts
    local masked = core.step_time(dense, nd.run { seq_length = 128, hidden_dropout_masks = true }, hw).parts
    assert.is_true(math.abs((masked.forward_s - plain.forward_s) - 163840 / 1e9) < 1e-15)
    assert.is_true(math.abs((masked.backward_s - plain.backward_s) - 327680 / 1e9) < 1e-15)
  end)
end)

describe("inplace_tp_reduce", function()
  -- TP 2 without sequence parallelism: the reference prices one activation-sized TP buffer, the
  -- tokens' hidden states in the compute width: 128 tokens x 64 x 2 B = 16384 B
  local tp = { seq_length = 128, tp = 2 }
  it("Megatron's all-reduces run in place: no TP buffer", function()
    local plain = estimate(dense, tp)
    local inplace = estimate(dense, { seq_length = 128, tp = 2, inplace_tp_reduce = true })
    assert.are.equal(16384, plain.comm - inplace.comm)
    assert.are.equal(0, inplace.comm)
  end)

  it("sequence parallelism's all-gather output stays (Megatron's global memory buffer)", function()
    local sp = { seq_length = 128, tp = 2, sequence_parallel = true }
    local with_inplace = { seq_length = 128, tp = 2, sequence_parallel = true, inplace_tp_reduce = true }
    assert.are.equal(estimate(dense, sp).comm, estimate(dense, with_inplace).comm)
    assert.are.equal(16384, estimate(dense, with_inplace).comm)
  end)

  it("the megatron runtime states both: in-place TP and the masks (issue 31 item 8)", function()
    local spec = nd.run({ runtime = "megatron" }, dense):spec()
    assert.is_true(spec.inplace_tp_reduce)
    assert.is_true(spec.hidden_dropout_masks)
  end)
end)
