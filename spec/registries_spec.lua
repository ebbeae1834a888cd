-- One direction and one registry per concept (issue 35 items 3 and 4): nd.run
-- settles a run in Lua and hands the core a settled table (the core calls
-- nothing back); the batch rule is one function (run.batch) that the yaml
-- reader, nd.run, run:with and the search read; the run's named choices
-- (pipeline schedules, CP algorithms with the reference's typo alias,
-- recompute modes) are stated once in the C core and read from
-- nd.core.types.run.choices.
local core = require "nd.core"
local runs = require "nd.run"
local train_yaml = require "nd.train_yaml"
local search = require "nd.search"

describe("the run's choices, stated once in the core", function()
  local choices = core.types.run.choices

  it("lists the CP algorithms with the reference's typo alias, each to its algorithm", function()
    -- the names SAPP-ND's seed parser accepts for context_parallel_algo
    -- (reference/seed-cost_model_parser_hyper.txt): colossalai_cp and
    -- hybrid_cp (also misspelt hybird_cp) are ring attention, ulysses_cp Ulysses
    local names = {}
    for i, n in ipairs(choices.cp_algo) do names[i] = n end
    assert.are.same({ "colossalai_cp", "ring", "hybrid_cp", "hybird_cp", "ulysses_cp", "ulysses" }, names)
    assert.are.equal("colossalai_cp", choices.cp_algo.canonical.hybird_cp)
    assert.are.equal("colossalai_cp", choices.cp_algo.canonical.ring)
    assert.are.equal("ulysses_cp", choices.cp_algo.canonical.ulysses)
    -- the yaml reader reads the same table, not a copy
    assert.are.equal(choices.cp_algo, train_yaml.CP_ALGOS)
  end)

  it("lists the schedules with their aliases; the two-chunk ones come from it", function()
    assert.are.equal(choices.pp_schedule, train_yaml.SCHEDULES)
    assert.are.equal("1f1b", choices.pp_schedule.canonical.interleaved)
    assert.are.equal("seqpipe", choices.pp_schedule.canonical.seqsmartvpp)
    -- DualPipeV runs two chunks a stage: zero_bubble_v, zbv and dualpipev name it
    assert.are.same({ zero_bubble_v = true, zbv = true, dualpipev = true }, search.TWO_CHUNK_SCHEDULES)
  end)

  it("lists the recompute modes in the order a search prices them", function()
    assert.are.same({ "off", "selective", "full" }, search.MODES)
    assert.are.equal(choices.recompute, train_yaml.AC_MODES)
    assert.are.equal("off, selective, full", choices.recompute.accepted)
  end)

  it("a core run reads cp_algo by the same registry", function()
    assert.has_no.errors(function() core.run { cp = 2, cp_algo = "hybird_cp" } end)
    local ok, err = pcall(core.run, { cp = 2, cp_algo = "ringg" })
    assert.is_false(ok)
    assert.matches("cp_algo: 'ringg' is not one of " .. choices.cp_algo.accepted, err.message, 1, true)
  end)
end)

describe("the batch rule, once (run.batch)", function()
  it("derives the micro-batch count and the global batch", function()
    -- 64 sequences over micro 2 x dp 4 = 8 a step: 8 micro-batches
    assert.are.same({ 8, 64 }, { runs.batch(2, 4, 2, 64, nil) })
    -- nothing stated: pp micro-batches, the global batch what they make (1 x 4 x 3)
    assert.are.same({ 3, 12 }, { runs.batch(1, 4, 3, nil, nil) })
    -- a count stated: the global batch is the product (2 x 2 x 5)
    assert.are.same({ 5, 20 }, { runs.batch(2, 2, 1, 0, 5) })
  end)

  it("names what does not hold", function()
    -- 6 over 1 x 4: no whole count; nd.run prices pp micro-batches, a yaml refuses it
    local num, global, problem = runs.batch(1, 4, 2, 6, nil)
    assert.are.same({ 2, 6 }, { num, global })
    assert.is_true(problem.indivisible)
    assert.are.equal("6 is not a multiple of micro_batch_size x dp = 1 x 4 = 4", problem.message)
    -- 32 stated against 1 x 4 x 4 = 16
    _, _, problem = runs.batch(1, 4, 1, 32, 4)
    assert.are.equal("32 is not micro_batch_size x dp x micro_batch_num = 1 x 4 x 4 = 16", problem.message)
  end)

  it("nd.run, run:with and the yaml reader refuse by it with the same words", function()
    local ok, err = pcall(runs.new, { dp = 4, micro_batch_num = 4, global_batch_size = 32 })
    assert.is_false(ok)
    assert.are.equal("global_batch_size 32 is not micro_batch_size x dp x micro_batch_num = 1 x 4 x 4 = 16",
                     err.message)
    local r = runs.new { dp = 4, global_batch_size = 32, micro_batch_num = 8 }
    ok, err = pcall(r.with, r, { dp = 3 })
    assert.is_false(ok)
    assert.matches("global_batch_size 32 is not a multiple of micro_batch_size x dp = 1 x 3 = 3", err.message, 1, true)
  end)

  it("nd.run hands the core its settled parts; the run's table stays as stated", function()
    local r = runs.new { dp = 2, pp = 2, global_batch_size = 16, optimizer = "Muon", recompute = "full" }
    -- 16 over 1 x 2: 8 micro-batches; Muon keeps one state a parameter
    assert.matches("micro%-batch 1 x 8", tostring(r))
    local spec = r:spec()
    assert.is_nil(spec.micro_batch_num)
    assert.is_nil(spec.optimizer_states)
    assert.is_nil(spec.full_recompute)
  end)
end)

describe("the search dimensions, stated once in the core (SEARCH_DIMS)", function()
  it("come in the reference's ALL_DIMS order, with -l's alias and the search config's keys", function()
    -- the reference planner's ALL_DIMS (search-ranking-cli.md §b.1), TP for its MP
    local names = {}
    for i, d in ipairs(core.search_dims) do names[i] = d.name end
    assert.are.same({ "DP", "EP", "TP", "CP", "PP", "VPP", "MB", "MBS", "SP", "OP" }, names)
    assert.are.same(names, search.DIMS)
    assert.are.equal("TP", search.DIM_NAMES.MP)
    -- a search config's parallelism keys: fsdp is OP, micro_batch_num MB
    local config = require "nd.search.config"
    assert.are.same({ dp = "DP", fsdp = "OP", tp = "TP", pp = "PP", cp = "CP", ep = "EP", micro_batch_num = "MB" },
                    config.DIMS)
    assert.are.equal("vpp", search.KEYS.VPP)
  end)

  it("read a run's or a yaml's value of each by its key", function()
    -- the keys are the run's and the accelerator section's names of the degrees
    assert.are.same({ TP = 2, PP = 4, VPP = 2, MBS = 1 },
                    search.by_dim({ tp = 2, pp = 4, vpp = 2, mbs = 1, mb = 8, global_batch = 64 }, { MB = true }))
  end)

  it("are listed by help, -l's message and completion in one order", function()
    assert.are.equal("DP, TP (or MP), SP, PP, VPP, CP, EP, OP, MB, MBS", search.listed_text(", "))
    local ok, err = pcall(search.parse_dims, { "XX" })
    assert.is_false(ok)
    assert.are.equal(search.listed_text(", "), err.accepted)
  end)

  it("give the reports their columns in one order, the run's etp among them", function()
    -- the CSV's and the JSON's degree columns as search.lua --csv writes them
    -- (spec/cli transcripts): each place 1..11 once
    local keys = {}
    for i, col in ipairs(core.search_columns) do
      keys[i] = col.key
      if col.dim then assert.are.equal(i, col.dim.column) end
    end
    assert.are.same({ "dp", "tp", "pp", "vpp", "cp", "ep", "etp", "op", "sp", "mb", "mbs" }, keys)
    assert.is_nil(core.search_columns[7].dim)
    local csv = require "nd.report.csv"
    assert.are.same({ "rank", "dp", "tp", "pp", "vpp", "cp", "ep", "etp", "op", "sp", "mb", "mbs", "recompute" },
                    { table.unpack(csv.COLUMNS, 1, 13) })
  end)

  it("write a candidate's degrees in the reports' forms", function()
    local table_report = require "nd.report.table"
    local c = { dp = 8, tp = 1, pp = 2, vpp = 1, cp = 1, ep = 4, etp = 1, op = 8, sp = false, mb = 4, mbs = 1,
                recompute = "full" }
    -- the one-line form as the dropped lines have printed it (by hand from the values above)
    assert.are.equal("dp 8 tp 1 pp 2 vpp 1 cp 1 ep 4 op 8 sp off mb 4 mbs 1 full", table_report.degrees(c))
    -- resolved.yaml's plain accelerator keys, AutoModels and legacy (nd.train_yaml's fallback chains)
    local resolved = require "nd.resolved_yaml"
    local doc = { accelerator = { tp_degree = 4 } }
    resolved.apply(doc, "automodels", c)
    assert.are.same({ 1, 1, 2, 1, 4 }, { doc.accelerator.tp_size, doc.accelerator.tp_degree, doc.accelerator.pp_size,
                                         doc.accelerator.cp_size, doc.accelerator.ep_size })
    local legacy = { train = { accelerator = { pp_size = 8 } } }
    resolved.apply(legacy, "legacy", c)
    local a = legacy.train.accelerator
    assert.are.same({ 1, 2, 2, 1, 4 }, { a.tp_degree, a.pipeline_parallel_degree, a.pp_size,
                                         a.context_parallel_degree, a.expert_parallel_degree })
  end)
end)

describe("a layer kind's attention and FFN kinds, stated once in the core", function()
  local profiles = require "nd.profiles"
  local ops = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 1, dropout = 0, normOp = 2, gather = 4, headCast = 1,
                ffAct = 1, linrec = 0 }
  local function refusal(kind)
    local ok, err = pcall(profiles.check, { kinds = { a = kind } }, "reg_kinds")
    assert.is_false(ok)
    return err.message
  end

  it("lists full and linear attention; dense and MoE FFNs beside the model's own", function()
    local choices = core.types.model.choices
    assert.are.same({ "full", "linear" }, { table.unpack(choices.attention) })
    assert.are.same({ "model", "dense", "moe" }, { table.unpack(choices.ffn) })
  end)

  it("an op profile's kinds are checked against them, with the same words", function()
    local kind = function(t) t.ops = ops return t end
    assert.has_no.errors(function() profiles.check({ kinds = { a = kind { attention = "linear", ffn = "moe" } } }) end)
    assert.matches("attention must be full or linear, got sparse", refusal(kind { attention = "sparse" }), 1, true)
    assert.matches("ffn must be dense, moe or absent, got model", refusal(kind { ffn = "model" }), 1, true)
    assert.matches("ffn must be dense, moe or absent, got glu", refusal(kind { ffn = "glu" }), 1, true)
  end)
end)

describe("a layer kind's attention form, one descriptor in the core (src/core/layer_kinds.c)", function()
  local nd = require "nd"
  -- each kind of a model's stack: its name, form and attention weights
  local function kinds(id)
    local out = {}
    for _, g in ipairs(nd.model(id):stack()) do out[g.kind.name] = { g.kind.attention, g.kind.params.attention } end
    return out
  end

  it("prices full attention, MLA and linear attention by their own rows", function()
    -- Llama 3.1 8B, h 4096, 32 query and 8 KV heads of 128: q and o 4096², k and v 4096·1024 (by hand)
    assert.are.same({ decoder = { "full", 2 * 4096 * 4096 + 2 * 4096 * 1024 } }, kinds("meta-llama/Llama-3.1-8B"))
    -- DeepSeek-V2-Lite, h 2048, 16 heads, no q latent, kv latent 512, rope 64, nope 128, v 128 (by hand):
    -- query 2048·16·192, kv 2048·576 + 512 + 512·16·256, output 16·128·2048
    local mla = 2048 * 16 * 192 + (2048 * 576 + 512 + 512 * 16 * 256) + 16 * 128 * 2048
    assert.are.same({ dense = { "mla", mla }, moe = { "mla", mla } }, kinds("deepseek-ai/DeepSeek-V2-Lite"))
    -- Qwen3.5-9B's config.json: h 4096; gated DeltaNet nk 16, dk 128, nv 32, dv 128, conv 4
    -- (in_proj_qkvz, out_proj, conv, in_proj_ba, dt_bias and A_log, norm; by hand); its full
    -- layers 16 query and 4 KV heads of 256 with the output gate fused into q_proj
    local linear = 4096 * (2 * 2048 + 2 * 4096) + 4096 * 4096 + 4 * (2 * 2048 + 4096) + 2 * 4096 * 32 + 2 * 32 + 128
    local full = 4096 * 2 * 4096 + 4096 * 4096 + 2 * 4096 * 1024
    assert.are.same({ linear_attention = { "linear", linear }, full_attention = { "full", full } },
                    kinds("Qwen/Qwen3.5-9B"))
  end)

  it("each attention flavour has one row of the model's own fields on the Lua side", function()
    -- the flavours are the core's (src/core/model.c); the linear row's fields are Transformers'
    -- Qwen3NextConfig / Qwen3_5Config names
    local model_spec = require "nd.model.spec"
    for _, flavour in ipairs(core.types.model.choices.attention) do assert.is_table(model_spec.ATTENTION[flavour]) end
    local names = {}
    for i, f in ipairs(model_spec.ATTENTION.linear.dims) do names[i] = f[1] end
    assert.are.same({ "linear_num_key_heads", "linear_key_head_dim", "linear_num_value_heads", "linear_value_head_dim",
                      "linear_conv_kernel_dim" }, names)
    local ok, err = pcall(nd.model, { name = "qwen3_5_x", arch = "qwen3_5", hidden_size = 1024, num_hidden_layers = 4,
      num_attention_heads = 8, vocab_size = 1000, intermediate_size = 2048,
      layer_types = { "linear_attention", "linear_attention", "linear_attention", "full_attention" } })
    assert.is_false(ok)
    assert.are.equal("linear_num_key_heads", err.path)
    assert.matches("op profile 'qwen3_5' prices linear%-attention layers, but the model declares no linear_num_key_heads, ",
                   err.message)
  end)

  it("a form refuses a model that lacks the dims it needs", function()
    local spec = nd.model("Qwen/Qwen3.5-9B"):spec()
    spec.linear_num_key_heads = 0
    local ok, err = pcall(core.model, spec)
    assert.is_false(ok)
    assert.are.equal("layer kind 'linear_attention' is linear attention, but a linear-attention dim is 0",
                     err.message)
  end)
end)

describe("a layer kind's feed-forward form, one descriptor in the core (src/core/layer_kinds.c)", function()
  local nd = require "nd"
  -- each kind of a model's body: its FFN form and FFN weights {dense_mlp, router, routed, shared}
  local function kinds(id)
    local out = {}
    for _, g in ipairs(nd.model(id):stack()) do
      local p = g.kind.params
      out[g.kind.name] = { g.kind.ffn, p.dense_mlp, p.router, p.routed_experts, p.shared_experts }
    end
    return out
  end

  it("prices a dense MLP and a mixture of experts by their own rows", function()
    -- Llama 3.1 8B: a gated MLP of 14336 over h 4096, three matrices (by hand)
    assert.are.same({ decoder = { "dense", 3 * 4096 * 14336, 0, 0, 0 } }, kinds("meta-llama/Llama-3.1-8B"))
    -- DeepSeek-V2-Lite's config.json: h 2048; its first layer dense of 10944; the others 64 routed
    -- experts of 1408 (router 2048·64) and 2 shared experts of 1408 each, one MLP of 2816 (by hand)
    assert.are.same({ dense = { "dense", 3 * 2048 * 10944, 0, 0, 0 },
                      moe = { "moe", 0, 2048 * 64, 64 * 3 * 2048 * 1408, 3 * 2048 * 2816 } },
                    kinds("deepseek-ai/DeepSeek-V2-Lite"))
    -- Qwen3.5-35B-A3B's config.json: h 2048, 256 experts of 512, a shared expert of 512 with
    -- its sigmoid gate (shared_expert_gate: h weights); both layer kinds are MoE
    local moe = { "moe", 0, 2048 * 256, 256 * 3 * 2048 * 512, 3 * 2048 * 512 + 2048 }
    assert.are.same({ linear_attention = moe, full_attention = moe }, kinds("Qwen/Qwen3.5-35B-A3B"))
  end)

  it("runs 2 FLOPs a weight a token, top-k of the routed experts", function()
    -- DeepSeek-V2-Lite: 1 dense layer and 26 MoE layers, 6 of 64 experts a token (by hand)
    local f = nd.model("deepseek-ai/DeepSeek-V2-Lite"):flops(4096).by_part
    assert.are.equal(2 * 3 * 2048 * 10944, f.mlp)
    assert.are.equal(26 * 2 * 64 * 3 * 2048 * 1408 * 6 / 64, f.routed_experts)
    assert.are.equal(26 * 2 * 3 * 2048 * 2816, f.shared_experts)
    assert.are.equal(26 * 2 * 2048 * 64, f.router)
  end)

  it("each feed-forward flavour has one row of the model's own fields on the Lua side", function()
    -- the flavours are the core's (src/core/model.c; `model`, the model's own, has none); the
    -- fields and config.json names are Transformers' (DeepseekV2Config, MixtralConfig, GPT2Config)
    local model_spec, hf_config = require "nd.model.spec", require "nd.hf_config"
    for _, flavour in ipairs(core.types.model.choices.ffn) do
      if flavour ~= "model" then assert.is_table(model_spec.FFN[flavour]) end
    end
    local names = {}
    for i, f in ipairs(model_spec.FFN.moe.dims) do names[i] = f[1] end
    assert.are.same({ "num_experts", "num_experts_per_tok", "num_shared_experts", "moe_intermediate_size",
                      "shared_expert_intermediate_size", "first_k_dense_replace" }, names)
    -- config.json names: the rows' (feed-forward and linear attention), as hf_config reads them
    local aliases = {}
    for _, a in ipairs(hf_config.TEXT_ALIASES) do aliases[a[1]] = { table.unpack(a, 2) } end
    assert.are.same({ "intermediate_size", "n_inner" }, aliases.intermediate_size)
    assert.are.same({ "num_experts", "n_routed_experts", "num_local_experts" }, aliases.num_experts)
    assert.are.same({ "n_shared_experts", "num_shared_experts" }, aliases.num_shared_experts)
    for _, f in ipairs(model_spec.ATTENTION.linear.dims) do assert.are.same({ f[1] }, aliases[f[1]]) end
  end)

  it("a form refuses a model that lacks what it needs", function()
    local spec = nd.model("deepseek-ai/DeepSeek-V2-Lite"):spec()
    spec.intermediate_size = 0
    local ok, err = pcall(core.model, spec)
    assert.is_false(ok)
    assert.are.equal("layer kind 'dense' is dense, but intermediate_size is not stated", err.message)
  end)
end)
