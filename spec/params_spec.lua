-- Parameter counts of every catalog model against ../shared/models/PARAMS.md:
-- "computed" is the PARAMS.md author's own count from the same config.json
-- (embeddings, the head unless tied, every linear, norm and router weight,
-- the final norm; text tower only, no MTP), which ndlua must reproduce;
-- "published" is the owner's figure (model card, paper, post), which the
-- total must meet within 0.5 % where the owner states an exact figure.
-- Active counts: the routed experts at top-k plus everything else; ndlua
-- counts the embedding and head as active, as PARAMS.md does (so
-- DeepSeek-V2-Lite's 2.66B against the owner's 2.4B without them).
local nd = require "nd"
local warnings = require "nd.warnings"

local function model(id)
  return nd.model(id, { warnings = warnings.quiet() })
end

-- id, computed total, computed active (nil = dense), published total (nil: a class name only)
local MODELS = {
  { "meta-llama/Llama-2-7b-hf", 6738415616 },
  { "meta-llama/Llama-2-70b-hf", 68976648192 },
  { "meta-llama/Llama-3.1-8B", 8030261248 },
  { "meta-llama/Llama-3.1-70B", 70553706496 },
  { "meta-llama/Llama-3.1-405B", 405853388800 },
  { "Qwen/Qwen2.5-7B", 7615616512, nil, 7.61e9 },           -- card: "7.61B"
  { "Qwen/Qwen2.5-72B", 72706203648, nil, 72.7e9 },         -- card: "72.7B"
  { "Qwen/Qwen3-0.6B", 596049920, nil, 596049920 },         -- "Total params: 596,049,920"
  { "Qwen/Qwen3-8B", 8190735360, nil, 8.2e9 },              -- card: "8.2B"
  { "Qwen/Qwen3-32B", 32762123264, nil, 32.8e9 },           -- card: "32.8B"
  { "Qwen/Qwen3-30B-A3B", 30532122624, 3353032704, 30.5e9 }, -- card: "30.5B in total"
  { "Qwen/Qwen3-235B-A22B", 235093634560, 22190763520, 235e9 },
  { "Qwen/Qwen3-Next-80B-A3B-Instruct", 79674391296, 3874929408, 80e9 },
  { "Qwen/Qwen3.5-9B", 8953803264 },
  { "Qwen/Qwen3.5-35B-A3B", 34660610688, 3454988928 },
  { "deepseek-ai/DeepSeek-V2-Lite", 15706484224, 2661150208 },
  { "mistralai/Mixtral-8x7B-v0.1", 46702792704, 12879925248, 46.7e9 }, -- Mistral: "46.7B total"
  { "mistralai/Mixtral-8x22B-v0.1", 140620634112, 39152031744, 141e9 },
  { "Qwen/Qwen2.5-VL-7B-Instruct", 7615616512 },
  { "Qwen/Qwen3-VL-30B-A3B-Instruct", 30532122624, 3353032704 },
  { "google/gemma-2-9b", 9241705984 },
  { "openai-community/gpt2", 124439808, nil, 124e6 },       -- card: "124M parameters"
}

describe("parameter counts against PARAMS.md", function()
  for _, c in ipairs(MODELS) do
    local id, computed, active, published = c[1], c[2], c[3], c[4]
    it(id .. ": text tower without MTP = the computed " .. computed, function()
      local p = model(id):params()
      assert.are.equal(computed, p.total - p.by_part.vision - p.by_part.mtp)
    end)
    if active then
      it(id .. ": active = the computed " .. active, function()
        assert.are.equal(active, model(id):params().active)
      end)
    end
    if published then
      it(id .. ": within 0.5 % of the published " .. published, function()
        local p = model(id):params()
        local total = p.total - p.by_part.vision - p.by_part.mtp
        assert.is_true(math.abs(total - published) <= 0.005 * published, tostring(total))
      end)
    end
  end

  it("DeepSeek-V3 main model: 671B published; computed 671,026,419,200 counts the router's 256 correction biases", function()
    -- ndlua counts router weights, not the e_score_correction_bias vectors:
    -- 58 MoE layers x 256 = 14,848 fewer than PARAMS.md's count.
    local p = model("deepseek-ai/DeepSeek-V3"):params()
    local main = p.total - p.by_part.mtp
    assert.are.equal(671026419200 - 58 * 256, main)
    assert.is_true(math.abs(main - 671e9) <= 0.005 * 671e9)
  end)
  it("DeepSeek-V3 with its MTP module: within 0.5 % of the 685B on the Hub", function()
    local p = model("deepseek-ai/DeepSeek-V3"):params()
    assert.is_true(math.abs(p.total - 685e9) <= 0.005 * 685e9, tostring(p.total))
  end)
  it("DeepSeek-V3 active: 37B published (36.6B + 0.9B head), computed 37,552,297,472", function()
    local p = model("deepseek-ai/DeepSeek-V3"):params()
    -- the same 14,848 router biases, of which every token uses all
    assert.are.equal(37552297472 - 58 * 256, p.active)
    assert.is_true(math.abs(p.active - 37e9) <= 0.03 * 37e9)
  end)
  it("Qwen3-VL-30B-A3B with its vision tower: the checkpoint's 31,070,754,032 exactly", function()
    -- safetensors total from a dump of the official checkpoint (PARAMS.md)
    assert.are.equal(31070754032, model("Qwen/Qwen3-VL-30B-A3B-Instruct"):params().total)
  end)
  it("Qwen2.5-VL-7B with its vision tower: within 0.5 % of the Hub's 8.29B", function()
    local total = model("Qwen/Qwen2.5-VL-7B-Instruct"):params().total
    assert.is_true(math.abs(total - 8.29e9) <= 0.005 * 8.29e9, tostring(total))
  end)
  it("active counts of MoE models are within 3 % of the published", function()
    -- Qwen3-30B-A3B 3.3B, Mixtral-8x7B 12.9B, Mixtral-8x22B 39B, Qwen3-235B 22B
    for id, want in pairs { ["Qwen/Qwen3-30B-A3B"] = 3.3e9, ["mistralai/Mixtral-8x7B-v0.1"] = 12.9e9,
                            ["mistralai/Mixtral-8x22B-v0.1"] = 39e9, ["Qwen/Qwen3-235B-A22B"] = 22e9 } do
      local active = model(id):params().active
      assert.is_true(math.abs(active - want) <= 0.03 * want, id .. " " .. active)
    end
  end)
end)

describe("forward FLOPs per token", function()
  -- Llama-3.1-8B at s = 4096, by hand: 2 FLOPs a weight a token, and the
  -- scores 2·a·s·(d_qk + d_v)·½ a layer for causal attention.
  local f = model("meta-llama/Llama-3.1-8B"):flops(4096)
  it("projections: 2 x 32 layers x 41,943,040 attention weights", function()
    assert.are.equal(2 * 32 * 41943040, f.by_part.attention_proj)
  end)
  it("MLP: 2 x 32 x 176,160,768", function()
    assert.are.equal(2 * 32 * 176160768, f.by_part.mlp)
  end)
  it("scores: 32 x 2 x 32 heads x 4096 x 256 x 0.5", function()
    assert.are.equal(32 * 2 * 32 * 4096 * 256 * 0.5, f.by_part.attention_scores)
    assert.are.equal(0.5, f.causal_factor)
  end)
  it("head: 2 x 128256 x 4096, and the total is the sum", function()
    assert.are.equal(2 * 128256 * 4096, f.by_part.output)
    assert.are.equal(f.by_part.attention_proj + f.by_part.mlp + f.by_part.attention_scores + f.by_part.output, f.total)
  end)
  it("MoE: routed experts at top-k of 128 (Qwen3-30B-A3B: 48 x 8 x 3·2048·768 x 2)", function()
    local g = model("Qwen/Qwen3-30B-A3B"):flops(4096)
    assert.are.equal(2 * 48 * 8 * 3 * 2048 * 768, g.by_part.routed_experts)
    assert.are.equal(2 * 48 * 2048 * 128, g.by_part.router)
  end)
end)
