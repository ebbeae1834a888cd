-- resolved.yaml (lua/nd/resolved_yaml.lua): the train.yaml with a strategy
-- written in. Round trip: read back by nd.train_yaml (as estimate.lua reads
-- it) on the search's devices, it costs exactly the candidate the search
-- priced, the same peak bytes, for candidates spread over whole searches of
-- the bundled examples, in both schemas. And what it writes: the keys of
-- search-ranking-cli §a.8, the context left out, the order kept.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local core = require "nd.core"
local search = require "nd.search"
local command = require "nd.search.command"
local resolved = require "nd.resolved_yaml"
local train_yaml = require "nd.train_yaml"
local warnings = require "nd.warnings"

-- Searches `path` with the command-line arguments `argv` (a roomy budget,
-- every recompute mode) and returns the prepared search and its result.
local function searched(path, argv)
  local all = { path, "-M", "1000GB", "--recompute", "auto" }
  for _, a in ipairs(argv) do all[#all + 1] = a end
  local opts = command.read_options(all)
  local s = command.prepare(opts, warnings.quiet())
  s.overrides = opts.overrides
  return s, core.search(s.base.model, s.base.run, s.space)
end

-- The peak estimate.lua gives the resolved yaml of candidate c.
local function resolved_peak(path, s, c)
  local doc = nd.yaml.load(path)
  require("nd.overrides").apply(doc, s.overrides)
  resolved.apply(doc, s.base.schema, c)
  local parsed = train_yaml.parse(doc, { devices = s.base.devices, warnings = warnings.quiet() })
  return nd.estimate(nd.model(parsed.model), nd.run(parsed.run)).peak_bytes
end

-- Checks up to `n` candidates spread over the result; returns how many.
local function round_trip(path, argv, n)
  local s, r = searched(path, argv)
  local spans = s.base.parsed.run.shard_spans_cp == true
  local step, checked = math.max(1, r:size() // n), 0
  for i = 1, r:size(), step do
    local c = search.candidate(r, i, nil, spans)
    if not (c.op_priced > 1 and c.op == 1) then -- the search sets these aside (see search.lua)
      local peak = resolved_peak(path, s, c)
      assert.are.equal(c.peak_bytes, peak, string.format("dp %d tp %d pp %d vpp %d cp %d ep %d op %d sp %s mb %d "
        .. "mbs %d %s", c.dp, c.tp, c.pp, c.vpp, c.cp, c.ep, c.op, tostring(c.sp), c.mb, c.mbs, c.recompute))
      checked = checked + 1
    end
  end
  return checked
end

describe("resolved.yaml round trip: estimate.lua costs the candidate the search priced", function()
  it("Qwen3-30B-A3B (MoE, FSDP, Muon) on 64 devices, every dimension", function()
    assert.is_true(round_trip("examples/qwen3-30b-a3b-fsdp8/train.yaml", { "-d", "64", "-b", "128" }, 60) >= 50)
  end)

  it("DeepSeek-V3 (MLA, 256 experts, VPP) on 256 devices, every dimension", function()
    assert.is_true(round_trip("examples/deepseek-v3-256/train.yaml", {}, 60) >= 50)
  end)

  it("DeepSeek-V3 on 64 devices with OP kept at the yaml's FSDP over all ranks", function()
    assert.is_true(round_trip("examples/deepseek-v3-256/train.yaml", { "-d", "64", "-l", "DP", "TP", "PP", "CP",
                                                                       "EP" }, 40) >= 30)
  end)

  it("DeepSeek-V3 under DualPipeV (zero_bubble_v: VPP up to 2), set by a command-line override", function()
    assert.is_true(round_trip("examples/deepseek-v3-256/train.yaml",
                              { "--accelerator.pipeline_scheduler=zero_bubble_v" }, 40) >= 30)
  end)

  it("Llama-3.1-70B (fp32 main params, selective) on 64 devices", function()
    assert.is_true(round_trip("examples/llama-3.1-70b-tp-pp-sp/train.yaml", {}, 40) >= 30)
  end)

  it("the legacy train.* schema", function()
    local path = os.tmpname() .. ".yaml"
    local f = assert(io.open(path, "w"))
    f:write([[
model:
  config_path: Qwen/Qwen3-8B
  torch_dtype: bfloat16
train:
  global_batch_size: 64
  micro_batch_size: 1
  accelerator:
    dp_shard: 8
    dp_replicate: 2
    tp_degree: 2
    pipeline_parallel_degree: 2
    sequence_parallel: true
  gradient_checkpointing:
    activation_checkpoint: selective
  optimizer:
    type: AdamW
data:
  max_seq_len: 4096
]])
    f:close()
    local n = round_trip(path, { "-d", "64" }, 40)
    os.remove(path)
    assert.is_true(n >= 30)
  end)
end)

describe("what resolved.yaml writes", function()
  local C = { dp = 4, tp = 2, pp = 2, vpp = 2, cp = 1, ep = 4, op = 4, sp = true, mb = 8, mbs = 2,
              recompute = "selective" }

  it("AutoModels: the degrees, the FSDP shard, the batch and the mode; context left out; order kept", function()
    local doc = nd.yaml.decode([[
model:
  pretrained_model_name_or_path: Qwen/Qwen3-8B
  config_overrides:
    offset: [1, 0]
training:
  global_batch_size: 8
  micro_batch_size: 1
  micro_batch_num: 4
accelerator:
  tp_size: 1
  pp_size: 1
  sequence_parallel: false
fsdp_config:
  dp_shard_size: 8
activation_checkpoint:
  mode: full
  layers: {"3-7": off}
context:
  device_num: 8
]])
    local removed = resolved.apply(doc, "automodels", C)
    assert.are.same({ "model.config_overrides.offset" }, removed)
    assert.are.equal([[
model:
  pretrained_model_name_or_path: Qwen/Qwen3-8B
  config_overrides: {}
training:
  global_batch_size: 64
  micro_batch_size: 2
  micro_batch_num: 8
accelerator:
  tp_size: 2
  pp_size: 2
  sequence_parallel: true
  cp_size: 1
  ep_size: 4
  pp_interleave_num: 2
fsdp_config:
  dp_shard_size: 4
activation_checkpoint:
  mode: selective
]], nd.yaml.encode(doc))
  end)

  -- (keys the yaml does not state go after its own, sorted: nd.yaml's rule for keys added to a loaded table)
  it("legacy: train.accelerator's degrees, dp_shard x dp_replicate, the batch, the mode spelled for it", function()
    local doc = nd.yaml.decode([[
train:
  global_batch_size: 8
  accelerator:
    tp_degree: 1
    dp_shard: 8
  gradient_checkpointing:
    activation_checkpoint: full
context:
  device_num: 8
]])
    local off = {}
    for k, v in pairs(C) do off[k] = v end
    off.recompute, off.op = "off", 2
    resolved.apply(doc, "legacy", off)
    assert.are.equal([[
train:
  global_batch_size: 64
  accelerator:
    tp_degree: 2
    dp_shard: 2
    context_parallel_degree: 1
    dp_replicate: 2
    expert_parallel_degree: 4
    optimizer_weight_shard_size: 2
    pipeline_parallel_degree: 2
    pp_interleave_num: 2
    sequence_parallel: true
  gradient_checkpointing:
    activation_checkpoint: none
  micro_batch_size: 2
]], nd.yaml.encode(doc))
  end)
end)
