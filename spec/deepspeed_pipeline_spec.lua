-- DeepSpeed's PipelineEngine runs ZeRO stage 0 or 1 only (issue 31 item 2):
-- its __init__ (deepspeed/runtime/pipe/engine.py) asserts
-- zero_optimization_stage() < 2, "ZeRO-2 and ZeRO-3 are incompatible with
-- pipeline parallelism". ndlua refuses such a run by name instead of
-- pricing it, and a search under the deepspeed runtime keeps PP at 1 for a
-- run whose gradients or parameters are sharded.
local nd = require "nd"
local runtimes = require "nd.runtimes"

describe("DeepSpeed ZeRO-2/3 with pipeline parallelism", function()
  for stage, label in pairs { [2] = "ZeRO-2 (grad_shard)", [3] = "ZeRO-3 (param_shard)" } do
    it("refuses zero = " .. stage .. " with pp 2 by name, citing the engine's assert", function()
      local ok, err = pcall(nd.run, { runtime = "deepspeed", dp = 4, pp = 2, zero = stage, seq_length = 2048 })
      assert.is_false(ok)
      assert.are.equal("pp", err.path)
      assert.truthy(tostring(err.message):find(label, 1, true))
      assert.truthy(tostring(err.message):find("ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism", 1,
                                               true))
      assert.truthy(tostring(err.message):find("deepspeed/runtime/pipe/engine.py", 1, true))
    end)
  end

  it("refuses a change to pp 2 of a ZeRO-2 run (run:with)", function()
    local r = nd.run { runtime = "deepspeed", dp = 8, zero = 2, seq_length = 2048 }
    assert.is_false((pcall(r.with, r, { pp = 2 })))
  end)

  it("refuses FSDP-style sharding stated without a stage (param_shard follows optimizer_parallel)", function()
    local ok, err = pcall(nd.run, { runtime = "deepspeed", dp = 4, pp = 2, optimizer_parallel = true,
                                    grad_shard_as_params = true, seq_length = 2048 })
    assert.is_false(ok)
    assert.truthy(tostring(err.message):find("ZeRO-3 (param_shard)", 1, true))
  end)

  it("accepts ZeRO-1 with pp 2, ZeRO-2/3 without pipeline, and ZeRO-2 with pp 2 under megatron", function()
    assert.truthy(nd.run { runtime = "deepspeed", dp = 4, pp = 2, zero = 1, seq_length = 2048 })
    assert.truthy(nd.run { runtime = "deepspeed", dp = 8, pp = 1, zero = 3, seq_length = 2048 })
    assert.truthy(nd.run { runtime = "megatron", dp = 4, pp = 2, zero = 2, seq_length = 2048 })
  end)

  it("names the refusal to a search, which keeps PP at 1", function()
    assert.are.equal("ZeRO-2 (grad_shard)",
                     (runtimes.pipeline_refusal(nd.run { runtime = "deepspeed", dp = 8, zero = 2 }:spec())))
    assert.is_nil(runtimes.pipeline_refusal(nd.run { runtime = "deepspeed", dp = 8, zero = 1 }:spec()))
    local m = nd.model("meta-llama/Llama-3.1-8B")
    local rows = nd.search(m, nd.run { runtime = "deepspeed", dp = 16, zero = 3, seq_length = 2048,
                                       micro_batch_size = 1, global_batch_size = 64 },
                           { devices = 16, dims = { "DP", "PP" }, top = 100 })
    assert.is_true(#rows > 0)
    for _, row in ipairs(rows) do assert.are.equal(1, row.pp) end
  end)
end)
