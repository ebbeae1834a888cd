-- Static memory under expert parallelism and the communication buffers, by hand.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local tiny = dofile("spec/support/tiny.lua")

-- 16 bytes a parameter: fp16 weights and gradients, fp32 Adam states and master copy.
local ADAM = { param_bytes = 2, grad_bytes = 2, grad_accumulation = true, optimizer_state_bytes = 4,
               optimizer_states = 2, main_param_bytes = 4, reserve_bytes = 0 }

local function run(fields)
  local t = {}
  for k, v in pairs(ADAM) do t[k] = v end
  for k, v in pairs(fields) do t[k] = v end
  return nd.run(t)
end

-- A MoE layer by hand: h = 64, 4 heads of 16, 8 experts of width 128 (gated):
--   attention 4·64·64 = 16384, norms 128, router 64·8 = 512 -> 17024 non-expert
--   routed 8 · 3·64·128 = 196608
local moe = tiny.dense { num_experts = 8, num_experts_per_tok = 2, moe_intermediate_size = 128 }

describe("static memory of a MoE layer under EP", function()
  it("EP 8 over DP 8 leaves one whole expert a rank (expert DP 1), the rest sharded over 8", function()
    -- optimizer shard 8: non-expert weights and states over 8; experts over the
    -- expert DP group d_exp·cp·t_exp = 1; gradients over TP (1), the experts'
    -- over EP only: 196608 / 8 = 24576 routed parameters a rank
    local e = nd.estimate(moe, run { dp = 8, ep = 8, optimizer_parallel = true })
    local row = tiny.row(e, 0, "decoder")
    local params = 17024 * 2 / 8 + 24576 * 2
    local optimizer = 17024 * 8 / 8 + 24576 * 8
    local main = 17024 * 4 / 8 + 24576 * 4
    local grads = 17024 * 2 + 24576 * 2
    assert.are.equal(params + optimizer + main + grads, row.static_bytes_per_layer) -- 457,056
  end)
  it("EP 2 over DP 8: four experts a rank, sharded over their expert DP group of 4", function()
    -- d_exp = 8 / 2 = 4; experts' weights and states over 4; 98304 routed a rank
    local e = nd.estimate(moe, run { dp = 8, ep = 2, optimizer_parallel = true })
    local row = tiny.row(e, 0, "decoder")
    local routed = 196608 / 2
    local params = 17024 * 2 / 8 + routed * 2 / 4
    local states = 17024 * 12 / 8 + routed * 12 / 4
    local grads = (17024 + routed) * 2
    assert.are.equal(params + states + grads, row.static_bytes_per_layer)
  end)
end)

describe("communication buffers (src/core/memory.c), one layer at a time", function()
  local dense = tiny.dense() -- a layer of 65664 parameters
  local function comm(model, fields)
    local e = nd.estimate(model, run(fields))
    return tiny.row(e, 0, "decoder").comm_bytes_per_layer
  end
  it("FSDP over 4: the layer gathered and the next prefetched (2·W·bc) and its gradients reduced (W·bg)", function()
    local w = 65664
    assert.are.equal(2 * w * 2 + w * 2, comm(dense, { dp = 4, optimizer_parallel = true, grad_shard_as_params = true }))
  end)
  it("ZeRO-1 over 4: one bucket of the layer's gradients (W·bg)", function()
    assert.are.equal(65664 * 2, comm(dense, { dp = 4, zero = 1 }))
  end)
  it("TP 2: the gathered input of a micro-batch, tokens·h·bc", function()
    assert.are.equal(4096 * 64 * 2, comm(dense, { tp = 2 }))
  end)
  it("ring CP 2: the K/V blocks sent and received, 2·tokens·kv·(d_qk + d_v)·bc / t", function()
    -- tokens on a rank 4096 / 2 = 2048; 4 KV heads of 16
    assert.are.equal(2 * 2048 * 4 * 32 * 2, comm(dense, { cp = 2 }))
  end)
  it("EP 8: dispatch and combine, 2·tokens·k·h·bc·(ep − 1)/ep, beside max(dp, tp, cp)", function()
    -- top-2 of 8 experts, 4096 tokens; DP 8 under ZeRO-1 adds one gradient bucket
    -- of the non-expert weights (17024); the experts' expert-DP group is
    -- d·t·cp / (t_exp·ep) = 1, so no rank shares their gradients
    local ep = 2 * 4096 * 2 * 64 * 2 * 7 / 8
    assert.are.equal(ep + 17024 * 2, comm(moe, { dp = 8, ep = 8, zero = 1 }))
  end)
  it("a stage holds the largest layer's buffers, not their sum", function()
    local e = nd.estimate(dense, run { tp = 2 })
    assert.are.equal(4096 * 64 * 2, e.stages[1].comm)
  end)
end)
