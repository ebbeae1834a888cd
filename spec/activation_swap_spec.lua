-- HyperParallel's attention swap (issue 31 item 4): activation_swap:
-- attention in a train.yaml (hyper_parallel/distributed/attention_swap.py)
-- wraps every self_attn module so that the tensors it saves for the backward
-- (those of 1 MiB or more with their own storage: at training sizes all of
-- them) go to the host after the next self_attn's forward and come back one
-- layer ahead in the backward (core/activation_checkpoint/swap.py); the last
-- layer's, which no later forward sends away, stay. At the backward's start
-- the device holds every layer's other activations and the last layer's
-- attention.
--
-- The tiny dense model (spec/support/tiny.lua), 4 layers: h = 64, 4 heads and
-- 4 KV heads of 16, bf16, flash attention. Its attention keeps, a token, the
-- q/k/v projections' input (64 x 2 B), the flash kernel's q, k, v and output
-- ((4 x 16 + 4 x 32 + 4 x 16) x 2 B = 512 B) and its fp32 statistics (4 x 8
-- B): 672 B; at 128 tokens, 86016 B a layer.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local tiny = dofile("spec/support/tiny.lua")
local fixture = dofile("spec/support/train_yaml_text.lua")
local read, refused, QWEN = fixture.read, fixture.refused, fixture.QWEN

local m = tiny.dense { num_hidden_layers = 4 }
local ATTENTION = 672 * 128

local function stage(fields)
  local spec = { seq_length = 128, micro_batch_size = 1, flash_attention = true, compute_bytes = 2 }
  for k, v in pairs(fields) do spec[k] = v end
  return nd.estimate(m, nd.run(spec)).stages[1]
end

describe("activation_swap: attention", function()
  it("sends three layers' attention activations of four to the host, the last stays", function()
    local plain, swapped = stage {}, stage { swap_attention = true }
    assert.are.equal(3 * ATTENTION, plain.activations - swapped.activations)
  end)

  it("moves nothing from a recomputed layer", function()
    assert.are.equal(stage { recompute = "full" }.activations,
                     stage { swap_attention = true, recompute = "full" }.activations)
  end)

  it("is read from a train.yaml's activation_swap", function()
    assert.is_true(read(QWEN .. "activation_swap: attention\n").run.swap_attention)
    assert.is_nil(read(QWEN .. "activation_swap: none\n").run.swap_attention)
  end)

  it("is refused where HyperParallel refuses it: with checkpointing, compile or PP", function()
    assert.matches("HyperParallel refuses activation_swap 'attention' with activation checkpointing",
                   refused(QWEN .. "activation_swap: attention\nactivation_checkpoint:\n  mode: full\n"))
    assert.matches("HyperParallel refuses activation_swap 'attention' with torch.compile",
                   refused(QWEN .. "activation_swap: attention\ncompile:\n  enabled: true\n"))
    assert.matches("not an activation swap mode HyperParallel runs",
                   refused(QWEN .. "activation_swap: mlp\n"))
  end)
end)
