-- derive: the reference's unit facts (memory-model.md §4, model-spec §d.4),
-- each checked on run:derived(model).
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local tiny = dofile("spec/support/tiny.lua")

local dense = tiny.dense()

local function derived(fields, model)
  return nd.run(fields):derived(model or dense)
end

-- A MoE model: 8 experts of width 128, top-2 (the expert count matters for gcd).
local moe = tiny.dense { num_experts = 8, num_experts_per_tok = 2, moe_intermediate_size = 128 }

describe("derive: optimizer shard of the non-expert parameters (memory-model §4.3)", function()
  -- the reference's tested examples at TP 4, DP 8: ranks·t·param_cp
  local cases = { { 2, 8 }, { 8, 32 }, { 3, 32 }, { 16, 32 } }
  for _, c in ipairs(cases) do
    it("optimizer_shard " .. c[1] .. " -> " .. c[2], function()
      local d = derived { dp = 8, tp = 4, optimizer_parallel = true, optimizer_shard = c[1] }
      assert.are.equal(c[2], d.shard_p_os_non_exp_partial)
    end)
  end
  it("without an optimizer shard: TP alone (4)", function()
    assert.are.equal(4, derived({ dp = 8, tp = 4 }).shard_p_os_non_exp_partial)
  end)
  it("the full shard is d·cp·t with the optimizer sharded, cp·t without", function()
    assert.are.equal(32, derived({ dp = 8, tp = 4, optimizer_parallel = true }).shard_p_os_non_exp)
    assert.are.equal(4, derived({ dp = 8, tp = 4 }).shard_p_os_non_exp)
  end)
  it("a shard that spans CP divides the DP x CP domain and no further by CP", function()
    local d = derived { dp = 4, cp = 2, optimizer_parallel = true, optimizer_shard = 8, shard_spans_cp = true }
    assert.are.equal(1, d.param_cp)
    assert.are.equal(8, d.optimizer_ranks)
    assert.are.equal(8, d.shard_p_os_non_exp_partial)
  end)
end)

describe("derive: gradient shards (memory-model §4.3)", function()
  -- the reference's example: d = 4, t = 2 (t_exp = 2), optimizer shard 2
  local base = { dp = 4, tp = 2, optimizer_parallel = true, optimizer_shard = 2 }
  local function triple(extra)
    local f = {}
    for k, v in pairs(base) do f[k] = v end
    for k, v in pairs(extra) do f[k] = v end
    local d = derived(f)
    return { d.shard_grad_non_exp, d.shard_grad_exp, d.shard_grad_exp_partial }
  end
  it("as parameters (FSDP): (4, 8, 1)", function()
    assert.are.same({ 4, 8, 1 }, triple { grad_shard_as_params = true })
  end)
  it("as the optimizer (gradient_accumulation_shard): (8, 8, 1)", function()
    assert.are.same({ 8, 8, 1 }, triple { grad_shard = true })
  end)
  it("neither: TP alone (2, 2, 2)", function()
    assert.are.same({ 2, 2, 2 }, triple {})
  end)
end)

describe("derive: embedding shard (memory-model §4.5, d = 4, t = 2)", function()
  it("vocab_emb_dp and p = 1: over DP alone (4)", function()
    assert.are.equal(4, derived({ dp = 4, tp = 2 }).shard_embed)
  end)
  it("vocab_emb_dp and p = 2: over DP and TP (8)", function()
    assert.are.equal(8, derived({ dp = 4, tp = 2, pp = 2 }).shard_embed)
  end)
  it("without vocab_emb_dp: over DP and TP (8)", function()
    assert.are.equal(8, derived({ dp = 4, tp = 2, vocab_emb_dp = false }).shard_embed)
  end)
  it("without emb_dp_sharded: TP alone (2)", function()
    assert.are.equal(2, derived({ dp = 4, tp = 2, vocab_emb_dp = false, emb_dp_sharded = false }).shard_embed)
  end)
end)

describe("derive: expert degrees (model-spec §d.4 step 2)", function()
  it("etp unset, d >= ep: t_exp = t, d_exp = d/ep, edp = d·t·cp/ep", function()
    -- d 8, t 4, ep 8: t_exp·ep = 32 = d·t keeps t_exp = 4; d_exp = 1; edp = 32/8 = 4
    local d = derived({ dp = 8, tp = 4, ep = 8 }, moe)
    assert.are.same({ 4, 1, 4 }, { d.t_exp, d.d_exp, d.edp_group })
  end)
  it("etp unset, d < ep: d_exp = d·t/ep, and t_exp = 1 when t·ep > d·t", function()
    -- d 4, t 2, ep 8: d_exp = 8/8 = 1; t_exp·ep = 16 > 8 gives t_exp = 1; edp = 8/8 = 1
    local d = derived({ dp = 4, tp = 2, ep = 8 }, moe)
    assert.are.same({ 1, 1, 1 }, { d.t_exp, d.d_exp, d.edp_group })
  end)
  it("etp 2: t_exp = etp, d_exp = d·t·cp/etp/ep, edp = d·t·cp/(etp·ep)", function()
    -- d 8, t 4, ep 4, etp 2: d_exp = 32/2/4 = 4; edp = 32/8 = 4
    local d = derived({ dp = 8, tp = 4, ep = 4, etp = 2 }, moe)
    assert.are.same({ 2, 4, 4 }, { d.t_exp, d.d_exp, d.edp_group })
  end)
  it("edp_shard_size 8 with ep 8 over 64 devices shards each expert 8 ways (Qwen3.5 recipe)", function()
    -- hyperparallel-models-qwen3_5_moe-recipe-train.yaml: dp_shard 64, ep 8, edp_shard_size 8
    local d = derived({ dp = 64, ep = 8, optimizer_parallel = true, expert_shard = 8 }, moe)
    assert.are.equal(8, d.d_exp)
    assert.are.equal(8, d.shard_p_os_exp)
  end)
  it("expert_shard_group shards each expert over its whole expert-DP group", function()
    local d = derived({ dp = 64, ep = 8, optimizer_parallel = true, expert_shard_group = true }, moe)
    assert.are.equal(8, d.shard_p_os_exp)
  end)
  it("the shared experts' shard is gcd(n_exp, ranks·t_exp)", function()
    -- 8 experts, 16 optimizer ranks: gcd(8, 16) = 8
    local d = derived({ dp = 16, optimizer_parallel = true }, moe)
    assert.are.equal(8, d.shard_p_os_exp_partial)
  end)
end)

describe("derive: byte widths (memory-model §4.8)", function()
  local function optim(fields)
    local d = derived(fields)
    return { d.bytes_optim, d.bytes_optim_table }
  end
  it("default family: two 4-byte states (8, 8)", function()
    assert.are.same({ 8, 8 }, optim {})
  end)
  it("2-byte states: (4, 4)", function()
    assert.are.same({ 4, 4 }, optim { optimizer_state_bytes = 2 })
  end)
  it("Muon, one 2-byte state; tables keep two: (2, 4)", function()
    assert.are.same({ 2, 4 }, optim { optimizer = "hyper_parallel.optim.Muon", optimizer_state_bytes = 2 })
  end)
  it("fp32 states and an fp32 master copy: (12, 12)", function()
    assert.are.same({ 12, 12 }, optim { optimizer_state_bytes = 4, main_param_bytes = 4 })
  end)
  it("gradients cost nothing at p = 1 unless the run accumulates them", function()
    assert.are.equal(0, derived({}).bytes_grad)
    assert.are.equal(4, derived({ pp = 2 }).bytes_grad)
    assert.are.equal(4, derived({ grad_accumulation = true }).bytes_grad)
  end)
  it("flash attention: s_fa = s / a (4096 / 32 = 128)", function()
    local m = tiny.dense { hidden_size = 128, num_attention_heads = 32, num_key_value_heads = 32 }
    assert.are.equal(128, derived({ seq_length = 4096 }, m).s_fa)
  end)
end)

describe("derive: recompute switches (memory-model §4.6)", function()
  local order = { "attBMM", "headCast", "dropout", "softmax", "normOp", "gather", "ffAct" }
  local function switches(fields)
    local sw = derived(fields).switches
    local out = {}
    for i, name in ipairs(order) do out[i] = sw[name] end
    return out
  end
  it("MindFormers rule, selective with flash attention and SP 2: {1,0,1,1,0,1,0}", function()
    assert.are.same({ 1, 0, 1, 1, 0, 1, 0 },
      switches { selective_rule = "mindformers", recompute = "selective", tp = 2, sequence_parallel = true })
  end)
  it("MindFormers rule, only communication recompute at SP 2: all kept but gather", function()
    assert.are.same({ 1, 1, 1, 1, 1, 0, 1 },
      switches { selective_rule = "mindformers", selective_comm_recompute = true, tp = 2, sequence_parallel = true })
  end)
  it("HyperParallel rule, selective: keep the attention kernel, recompute the rest", function()
    assert.are.same({ 1, 0, 0, 0, 0, 0, 0 }, switches { recompute = "selective" })
  end)
  it("no selective recompute: every switch keeps", function()
    assert.are.same({ 1, 1, 1, 1, 1, 1, 1 }, switches {})
  end)
end)

describe("derive: communication flags (memory-model §4.4)", function()
  it("ZeRO level 2 without gradient sharding, 3 with it, 0 without an optimizer shard", function()
    assert.are.equal(2, derived({ dp = 4, optimizer_parallel = true }).comm_d_non_exp)
    assert.are.equal(3, derived({ dp = 4, optimizer_parallel = true, grad_shard = true }).comm_d_non_exp)
    assert.are.equal(0, derived({ dp = 4 }).comm_d_non_exp)
    assert.are.equal(0, derived({ dp = 1, optimizer_parallel = true }).comm_d_non_exp)
  end)
end)
