-- nd.train_yaml.keys: keys no rule reads, the closest known key, and keys
-- read but not priced (issue 13, item 1).
local keys = require "nd.train_yaml.keys"
local train_yaml = require "nd.train_yaml"
local warnings = require "nd.warnings"
local nd = require "nd"

describe("nd.train_yaml.keys", function()
  it("measures edit distance with a swap of neighbours as one edit", function()
    -- kitten -> sitting: the textbook Levenshtein example, 3 edits
    assert.are.equal(3, keys.distance("kitten", "sitting"))
    -- tp_szie -> tp_size: i and z swapped, one edit (Levenshtein would say 2)
    assert.are.equal(1, keys.distance("tp_szie", "tp_size"))
    assert.are.equal(0, keys.distance("pp_size", "pp_size"))
    assert.are.equal(7, keys.distance("", "tp_size"))
  end)

  it("guesses the closest key of the section, or nothing when none is close", function()
    assert.are.equal("tp_size", keys.closest("accelerator", "tp_szie"))
    assert.are.equal("accelerator", keys.closest("", "acclerator"))
    assert.are.equal("micro_batch_size", keys.closest("training", "micro_bach_size"))
    assert.is_nil(keys.closest("accelerator", "frobnicate"))
  end)

  local function parse(text)
    local w = warnings.quiet()
    local doc = nd.yaml.decode(text, "t.yaml")
    local p = train_yaml.parse(doc, { file = "t.yaml", devices = 8, warnings = w })
    return p, w:all()
  end

  it("warns on a misspelled key with its line and leaves the degree as stated elsewhere", function()
    local p, all = parse("model:\n  pretrained_model_name_or_path: Qwen/Qwen3-8B\naccelerator:\n  tp_szie: 4\n"
      .. "training:\n  global_batch_size: 8\ndataset:\n  data_transform:\n    max_seq_len: 4096\n"
      .. "optimizer:\n  _target_: adamw\n")
    assert.are.equal(1, p.run.tp)
    local found
    for _, m in ipairs(all) do
      if m:find("accelerator.tp_szie", 1, true) then found = m end
    end
    assert.truthy(found, "a warning on accelerator.tp_szie")
    assert.truthy(found:find("t.yaml:4:", 1, true))
    assert.truthy(found:find("did you mean accelerator.tp_size?", 1, true))
  end)

  it("warns that a parameter FSDP replicates is priced sharded (fsdp_config.replicate_params)", function()
    -- the upstream recipes state replicate_params: [] (none replicated, what ndlua prices)
    local _, all = parse("model:\n  pretrained_model_name_or_path: Qwen/Qwen3-8B\nfsdp_config:\n"
      .. "  replicate_params: [lm_head, embed_tokens]\n")
    local found
    for _, m in ipairs(all) do
      if m:find("fsdp_config.replicate_params", 1, true) then found = m end
    end
    assert.truthy(found, "a warning on replicate_params")
    assert.truthy(found:find("is [lm_head, embed_tokens] (t.yaml:4:", 1, true), found)
    assert.truthy(found:find("the estimate is for []", 1, true), found)
  end)

  it("says nothing of a file whose every key is known", function()
    local _, all = parse("model:\n  pretrained_model_name_or_path: Qwen/Qwen3-8B\n  torch_dtype: bfloat16\n"
      .. "training:\n  global_batch_size: 8\n  seed: 42\ndataset:\n  data_transform:\n    max_seq_len: 4096\n"
      .. "optimizer:\n  _target_: adamw\nfsdp_config:\n  forward_prefetch_depth: 1\n  replicate_params: []\n")
    for _, m in ipairs(all) do
      assert.is_nil(m:find("rule reads", 1, true), m)
      assert.is_nil(m:find("not price", 1, true), m)
    end
  end)
end)
