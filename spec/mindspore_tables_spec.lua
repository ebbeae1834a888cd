-- MindFormers' embedding and output head under the parallel optimizer
-- (issue 31 item 3, the first and the last stage).
--
-- Sources (mindspore-lab/mindformers, MindSpore):
--  * under vocab_emb_dp the tables stay whole on every TP rank at any PP
--    degree: LlamaEmbedding.shard sets gather ((1, 1), (dp, 1)) and
--    DeepseekV2ForCausalLM (DeepSeek-V3's training model) lm_head
--    ((dp·cp, 1), (1, 1)); the parallel optimizer's group of a parameter is
--    the devices repeating it (here dp x tp), cut into groups of
--    optimizer_weight_shard_size (OperatorInfo::CreateGroupForOptShard), and
--    accu_grads, cloned from the parameters, stay whole without
--    gradient_accumulation_shard;
--  * one all-gather a sharded parameter, after its cast to the compute
--    width, shared by every forward user (step_parallel.cc InsertParallelOpt,
--    InsertAllGatherAfterCast): the tables' gathered copies are held as the
--    layers' are (keep_gathered_params), the head's through its backward,
--    the embedding's under PP through the stage's micro-batches' forwards;
--  * DeepSeek-V3's MTP module looks its tokens up in the embedding's weight
--    and its output goes through the model's one lm_head
--    (DeepseekV2Model.construct, TrainingDeepseekV3ForCausalLM.construct).
--
-- The tiny dense model (spec/support/tiny.lua): h = 64, 4 heads, MLP 256
-- gated, vocabulary 1000, untied; a layer 65664 parameters; the embedding
-- 64000; the head and final norm 64064. DP 4, TP 2, PP 2 (two layers a
-- stage), the parallel optimizer without a shard size: a layer's weights
-- over 4 x 2 = 8, a table's over the 8 ranks repeating it.
local nd = require "nd"
local tiny = dofile("spec/support/tiny.lua")

local LAYER, EMB, HEAD = 65664, 64000, 64064

local function stages(fields, model)
  local spec = { runtime = "mindspore", dp = 4, tp = 2, pp = 2, optimizer_parallel = true, seq_length = 128,
                 micro_batch_size = 1, global_batch_size = 8 }
  for k, v in pairs(fields or {}) do spec[k] = v end
  return nd.estimate(model or tiny.dense { num_hidden_layers = 4 }, nd.run(spec)).stages
end

describe("MindSpore's tables under vocab_emb_dp", function()
  -- fp32 accu_grads: two layers at their TP split (2 · 65664 / 2 · 4 B =
  -- 262656 B) and the table whole. Before: the table split by TP too
  -- (390656 B on the first stage, 390784 B on the last).
  it("the embedding's accu_grads whole on every TP rank", function()
    assert.are.equal(2 * LAYER / 2 * 4 + EMB * 4, stages()[1].grads) -- 518656
  end)

  it("the head's accu_grads whole on every TP rank", function()
    assert.are.equal(2 * LAYER / 2 * 4 + HEAD * 4, stages()[2].grads) -- 518912
  end)

  -- optimizer_weight_shard_size 2: a layer over 2 DP ranks x TP 2, a table
  -- over 2 of the 8 ranks repeating it. Before: the embedding over 2 x 2.
  it("optimizer_shard cuts a table's 8 repeating ranks into groups of 2", function()
    local s = stages { optimizer_shard = 2 }
    assert.are.equal(2 * LAYER / 4 * 4 + EMB / 2 * 4, s[1].params)  -- 259328 (before 195328)
    assert.are.equal(2 * LAYER / 4 * 4 + HEAD / 2 * 4, s[2].params) -- 259456
  end)

  -- gradient_accumulation_shard: accu_grads sliced as the weights are
  it("gradient_accumulation_shard slices the tables' accu_grads over their group", function()
    local s = stages { grad_shard = true }
    assert.are.equal(2 * LAYER / 8 * 4 + EMB / 8 * 4, s[1].grads)  -- 97664
    assert.are.equal(2 * LAYER / 8 * 4 + HEAD / 8 * 4, s[2].grads) -- 97696
  end)

  -- the comm part with and without keep_gathered_params: the layers' bf16
  -- copies at their TP split (2 · 65664 / 2 · 2 B = 131328 B) and the
  -- table's whole (2 B a parameter). Before: the layers' alone.
  it("keeps the tables' gathered bf16 copies with the layers'", function()
    local kept, plain = stages(), stages { keep_gathered_params = false }
    assert.are.equal(2 * LAYER / 2 * 2 + EMB * 2, kept[1].comm - plain[1].comm)  -- 259328
    assert.are.equal(2 * LAYER / 2 * 2 + HEAD * 2, kept[2].comm - plain[2].comm) -- 259456
  end)

  it("tables_whole_tp off, or no vocab_emb_dp: the seed's TP-split tables", function()
    assert.are.equal(2 * LAYER / 2 * 4 + EMB / 2 * 4, stages { tables_whole_tp = false }[1].grads)
    assert.are.equal(2 * LAYER / 2 * 4 + HEAD / 2 * 4, stages { vocab_emb_dp = false }[2].grads)
  end)
end)

describe("MindSpore's MTP module", function()
  -- 3 layers and 1 MTP layer; the module's own parameters: its projection
  -- and norms, 2h² + 3h = 8384, sliced as a layer's weights (over 8; fp32
  -- weights 4 B, two fp32 states 8 B) with accu_grads at the TP split; and
  -- the embedding's weight on the last stage, whole over TP (weights and
  -- states over 8, accu_grads whole).
  local mtp = tiny.dense { num_hidden_layers = 3, mtp_depth = 1,
                           layers = { { kind = "decoder", count = 3 }, { kind = "decoder", count = 1, mtp = true } } }
  local PROJ = 2 * 64 * 64 + 3 * 64
  local function module_static(fields)
    local s = stages(fields, mtp)
    return tiny.row({ stages = s }, 1, "mtp_module").static_bytes_per_layer
  end

  it("holds no head of its own: the model's lm_head serves its output", function()
    local own = PROJ / 8 * 4 + PROJ / 8 * 8 + PROJ / 2 * 4 -- 29344
    local embedding = EMB / 8 * 4 + EMB / 8 * 8 + EMB * 4   -- 352000
    assert.are.equal(own + embedding, module_static())      -- 381344
  end)

  it("mtp_shares_head off: a head of its own, as the seed prices it", function()
    local head = HEAD / 8 * 4 + HEAD / 8 * 8 + HEAD * 4 -- 352352
    assert.are.equal(381344 + head, module_static { mtp_shares_head = false })
  end)
end)

-- The last stage's output layer: what MindFormers' loss keeps and the logits
-- of a head whole over TP (issue 31 item 3, round 2). Sources
-- (mindspore-lab/mindformers):
--  * mindformers/core/loss/loss.py CrossEntropyLoss: _LogSoftmax casts the
--    logits to fp32 and returns the log-softmax and OneHot(label) with fp32
--    on/off values, both split (dp, mp); _NLLLoss's custom bprop takes both,
--    so the two are kept for the backward (4 B + 4 B a vocabulary entry over t);
--  * DeepseekV2ForCausalLM under vocab_emb_dp: lm_head's matmul shard
--    ((dp·cp, 1), (1, 1)): every TP rank writes the logits of the whole
--    vocabulary for its whole sequence (its rows split over dp·cp alone);
--    the loss takes them split over mp, and the head's backward takes their
--    gradient gathered whole again. At the split, and at that gather, the
--    whole logits (bc·V a token) and their TP slices (bc·V/t) are both alive;
--  * TrainingDeepseekV3ForCausalLM runs lm_head once over the main and the
--    MTP outputs together ((B, (1 + mtp)·S, V)) and splits the result.
-- Tiny model as above: V = 1000, bf16 compute (bc = 2), 128 tokens a
-- micro-batch; the loss upcasts (fp32, 4 B).
describe("MindSpore's output layer", function()
  local TOKENS, V = 128, 1000
  local function estimate(fields, model)
    local spec = { runtime = "mindspore", dp = 4, tp = 2, pp = 2, optimizer_parallel = true, seq_length = 128,
                   micro_batch_size = 1, global_batch_size = 8 }
    for k, v in pairs(fields or {}) do spec[k] = v end
    return nd.estimate(model or tiny.dense { num_hidden_layers = 4 }, nd.run(spec))
  end
  -- the last stage's backward overhead less the head's own comm bytes (the
  -- head's part of that overhead is its extra working bytes plus its comm)
  local function head_extra(e)
    return e.stages[2].backward_overhead - tiny.row(e, 1, "output").comm_bytes_per_layer
  end

  -- t = 2: the one-hot labels, 4 B · 1000 / 2 a token, 128 tokens = 256000 B
  -- beside the fp32 log-softmax (the seed's kept part). Before: no field.
  it("keeps the fp32 one-hot labels beside the log-softmax", function()
    local with = tiny.row(estimate(), 1, "output").activation_bytes_per_layer
    local without = tiny.row(estimate { loss_keeps_one_hot = false }, 1, "output").activation_bytes_per_layer
    assert.are.equal(4 * V / 2 * TOKENS, with - without) -- 256000
  end)

  -- DP 2, TP 4: whole logits 2 · 1000 + slices 2 · 1000 / 4 = 2500 B a token,
  -- 320000 B; above the loss backward's two fp32 temporaries (2 · 4 · 1000 / 4
  -- = 2000 B a token, 256000 B: the seed's extra, the figure before) and its
  -- forward copies ((2 + 4) · 1000 / 4 = 1500 B a token).
  it("holds the head's whole-vocabulary logits and their TP slices", function()
    assert.are.equal((2 * V + 2 * V / 4) * TOKENS, head_extra(estimate { dp = 2, tp = 4 })) -- 320000
  end)

  -- the head's input rows are split over dp·cp alone: sequence parallelism
  -- does not divide the whole logits (before: 256000 B as above)
  it("the whole logits are not split by sequence parallelism", function()
    assert.are.equal(320000, head_extra(estimate { dp = 2, tp = 4, sequence_parallel = true }))
  end)

  -- tables_whole_tp off: the TP-split head of the seed, its loss's extra alone
  it("tables_whole_tp off: the seed's TP-split logits", function()
    assert.are.equal(2 * 4 * V / 4 * TOKENS, head_extra(estimate { dp = 2, tp = 4, tables_whole_tp = false })) -- 256000
  end)

  -- one MTP module sharing the head (TP 2): the head's logits of both
  -- outputs at once, 2 · (2 · 1000 + 2 · 1000 / 2) = 6000 B a token, 768000 B,
  -- against 512000 B (the loss backward's 2 · 4 · 1000 / 2 a token) when
  -- the module has its own head. Before: no difference.
  it("one head over the main and the MTP outputs: (1 + mtp) times the logits", function()
    local mtp = tiny.dense { num_hidden_layers = 3, mtp_depth = 1,
                             layers = { { kind = "decoder", count = 3 }, { kind = "decoder", count = 1, mtp = true } } }
    local shared = estimate({}, mtp).stages[2].backward_overhead
    local own = estimate({ mtp_shares_head = false }, mtp).stages[2].backward_overhead
    assert.are.equal(2 * (2 * V + 2 * V / 2) * TOKENS - 2 * 4 * V / 2 * TOKENS, shared - own) -- 256000
  end)
end)
