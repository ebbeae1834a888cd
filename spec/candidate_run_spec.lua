-- nd.core.candidate_run (issue 16, item 1): the run of a search candidate is
-- built once, by the C core's search_candidate_run, so the run a script
-- prices again (nd.candidate_run) is the run the search priced: the same
-- step time to the last bit and the same peak.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local core = require "nd.core"
local search = require "nd.search"
local hardware = require "nd.hardware"
local warnings = require("nd.warnings").quiet()

local A3 = hardware.load("A3")
local llama = nd.model("meta-llama/Llama-3.1-70B", { warnings = warnings })

local function space(o)
  local searched = {}
  for _, d in ipairs(search.DIMS) do searched[d] = true end
  return search.space { model = llama:spec(), hardware = A3, devices = 64, global_batch = 128,
                        budget_bytes = 40 * 2 ^ 30, searched = searched, pinned = o.pinned or {},
                        recompute = { "off", "selective", "full" }, keep_dropped = 0, threads = 1 }
end

-- Candidates spread over the result: first, last and some between.
local function some(r)
  local out, n = {}, r:size()
  for _, i in ipairs { 1, 2, n // 7, n // 3, n // 2, (2 * n) // 3, n - 1, n } do
    if i >= 1 then out[#out + 1] = r:candidate(i) end
  end
  return out
end

describe("nd.core.candidate_run", function()
  it("gives the run a search priced: its step time exactly, its peak in rounded bytes", function()
    local base = nd.run { seq_length = 4096 }
    local r = core.search(llama, base, space {})
    assert.is_true(r:size() > 100)
    local profile = hardware.core(A3)
    local modes = {}
    for _, c in ipairs(some(r)) do
      local run = nd.candidate_run(base, c)
      assert.are.equal(c.step_time_s, core.step_time(llama, run, profile).step_time_s)
      assert.are.equal(c.peak_bytes, nd.estimate(llama, run).peak_bytes)
      assert.are.equal(c.dp, run.dp)
      assert.are.equal(c.recompute, run:spec().recompute)
      modes[c.recompute] = true
    end
    assert.is_true(next(modes) ~= nil)
  end)

  -- The search's estimate leaves out stages that hold the same layers as an
  -- earlier one and no more micro-batches in flight (src/core/estimate.c
  -- dominated); a whole estimate of every fitting candidate's run must find
  -- the same peak on the same stage. Under DualPipeV a later stage holds
  -- more micro-batches of its second chunk (the stage index) and fewer of
  -- its first, so a stage laid out like an earlier one can be heavier:
  -- Qwen3-30B-A3B at 64 devices and 80 GB has such candidates (skipping
  -- every stage laid out alike, whatever it holds, misprices 41 of 8307).
  -- The search also keeps the prices of the dense layers and the tables
  -- from one EP to the next (src/core/estimate.c estimate_forget_expert_prices),
  -- and each stage's work for a step from one OP to the next (src/core/timing.c
  -- timing_memo's works): every fitting candidate's step time must be the
  -- one nd.core.step_time finds for its run alone, to the last bit.
  -- DeepSeek-V3 (3 dense layers, then MoE) at 256 devices and 64 GB, EP
  -- searched over 9 values among its fitting candidates, must price each
  -- as a whole estimate does too.
  local qwen = nd.model("Qwen/Qwen3-30B-A3B", { warnings = warnings })
  local dsv3 = nd.model("deepseek-ai/DeepSeek-V3", { warnings = warnings })
  -- (H100 states the HBM bandwidth the element-wise ops reach, so that
  -- sequence parallelism, which shards them, changes a step's time.)
  local H100 = hardware.load("H100")
  -- Under torchtitan's runtime a candidate's peak turns on its micro-batches
  -- (one a step frees the gradients before the forward, grads_set_to_none),
  -- which the search's derived values must follow from one MB to the next.
  for _, case in ipairs { { llama, "1f1b", 40, 64, H100 }, { qwen, "zero_bubble_v", 80, 64, A3 },
                          { dsv3, "1f1b", 64, 256, H100 }, { llama, "1f1b", 80, 64, H100, "torchtitan" } } do
    local model, schedule, gb, devices, device, runtime = case[1], case[2], case[3], case[4], case[5], case[6]
    it("prices every fitting candidate's step time, peak and peak stage as its run alone does (" .. model:spec().name
       .. ", " .. schedule .. (runtime and ", " .. runtime or "") .. ")", function()
      local searched = {}
      for _, d in ipairs(search.DIMS) do searched[d] = true end
      local sp = search.space { model = model:spec(), hardware = device, devices = devices, global_batch = 2 * devices,
                                budget_bytes = gb * 2 ^ 30, searched = searched, pinned = {},
                                recompute = { "off", "selective", "full" }, keep_dropped = 0, threads = 1 }
      local base = nd.run { seq_length = 4096, pp_schedule = schedule, runtime = runtime }
      local r = core.search(model, base, sp)
      local deep, eps, profile, released = 0, {}, hardware.core(device, runtime), { [true] = 0, [false] = 0 }
      for i = 1, r:size() do
        local c = r:candidate(i)
        local run = nd.candidate_run(base, c)
        local e = nd.estimate(model, run)
        assert.are.equal(core.step_time(model, run, profile).step_time_s, c.step_time_s)
        assert.are.equal(e.peak_bytes, c.peak_bytes)
        assert.are.equal(e.peak_stage, c.peak_stage)
        if c.pp >= 4 then deep = deep + 1 end
        eps[c.ep] = true
        local one = c.pp == 1 and c.mb == 1
        released[one] = released[one] + 1
      end
      assert.is_true(deep > 50) -- enough candidates with stages alike to skip
      if runtime then assert.is_true(released[true] > 10 and released[false] > 10) end
      if model == dsv3 then assert.is_not_nil(eps[1] and eps[8] and eps[64]) end
    end)
  end

  it("leaves the base run as it was, and its table stays the base's but for the candidate", function()
    local base = nd.run { seq_length = 4096, offset = { 0, 0 }, pp = 2, recompute = "full", device_memory = "40GB" }
    local before = base:spec()
    local c = core.search(llama, base, space {}):candidate(1)
    local run = core.candidate_run(base, c)
    assert.are.equal(before, base:spec())
    assert.are.equal(2, base.pp)
    assert.are.same({ 0, 0 }, base:spec().offset)
    assert.is_nil(run:spec().offset)
    assert.are.equal(40 * 2 ^ 30, run:spec().device_memory)
    assert.are.equal(c.pp, run:spec().pp)
    -- the run's table builds the same run again
    assert.are.equal(nd.estimate(llama, run).peak_bytes, nd.estimate(llama, nd.run(run:spec())).peak_bytes)
  end)

  it("refuses a candidate past the bounds a run takes", function()
    local base = nd.run {}
    local c = core.search(llama, base, space {}):candidate(1)
    local function refused(changes)
      local bad = {}
      for k, v in pairs(c) do bad[k] = v end
      for k, v in pairs(changes) do bad[k] = v end
      return not pcall(core.candidate_run, base, bad)
    end
    assert.is_true(refused { dp = 0 })
    assert.is_true(refused { tp = core.limits.devices + 1 })
    assert.is_true(refused { dp = 1 << 12, tp = 1 << 12 })
    assert.is_true(refused { mb = 1 << 30, mbs = 1 << 30 })
    assert.is_true(refused { recompute = "some" })
    assert.is_false(refused {})
  end)
end)
