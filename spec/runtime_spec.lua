-- Runtime profiles (lua/nd/runtimes/, issue 12): a run names the runtime
-- that trains it and the profile fills what the run leaves unstated.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local runtimes = require "nd.runtimes"
local quiet = require("nd.warnings").quiet()

local LLAMA2_7B = 6738415616 -- meta-llama/Llama-2-7b-hf, PARAMS.md

local function static_bytes(stage)
  return stage.params + stage.grads + stage.optimizer + stage.main_params
end

describe("runtime profiles", function()
  it("ships megatron, torchtitan, deepspeed, hyperparallel, mindspore and none", function()
    assert.are.same({ "deepspeed", "hyperparallel", "megatron", "mindspore", "none", "torchtitan" }, runtimes.names())
  end)
  it("fills unstated fields and keeps stated ones", function()
    local spec = nd.run({ runtime = "megatron", grad_bytes = 2 }):spec()
    assert.are.equal(2, spec.grad_bytes)        -- stated
    assert.are.equal(4, spec.main_param_bytes)  -- Megatron's fp32 main params
    assert.is_true(spec.fused_norm)
    assert.are.equal("megatron", spec.runtime)
  end)
  it("takes the name in any case", function()
    assert.are.equal("torchtitan", nd.run({ runtime = "TorchTitan" }):spec().runtime)
  end)
  it("refuses an unknown runtime, listing the known ones", function()
    local ok, err = pcall(nd.run, { runtime = "jax" })
    assert.is_false(ok)
    assert.truthy(tostring(err.message):find("'jax' is no runtime ndlua knows", 1, true))
    assert.truthy(tostring(err.accepted):find("megatron", 1, true))
  end)
  it("a stated ZeRO stage replaces the profile's sharding (torchtitan's FSDP gives way to zero = 1)", function()
    local spec = nd.run({ runtime = "torchtitan", zero = 1 }):spec()
    assert.is_nil(spec.grad_shard_as_params)
    assert.is_false(spec.param_shard)
  end)
  it("a run stating its params' or grads' sharding keeps it (a train.yaml's FSDP under --runtime megatron)", function()
    local spec = nd.run({ runtime = "megatron", optimizer_parallel = true, grad_shard_as_params = true }):spec()
    assert.is_nil(spec.param_shard)   -- Megatron's false not laid over the stated FSDP
    assert.is_nil(spec.grad_shard)
    assert.are.equal(4, spec.grad_bytes) -- the rest of the profile still applies
  end)
  it("run:with a new runtime drops the old profile's fields", function()
    local r = nd.run({ runtime = "megatron" }):with { runtime = "torchtitan" }
    local spec = r:spec()
    assert.are.equal("torchtitan", spec.runtime)
    assert.are.equal(4, spec.param_bytes)          -- torchtitan's fp32 sharded params
    assert.is_nil(spec.inplace_dp_buffers)         -- Megatron's, gone
    assert.is_true(spec.grad_shard_as_params)
  end)
end)

describe("a profile's components (src/core/*_opts.h, nd.core.types.run.components)", function()
  local core = require "nd.core"
  local components = core.types.run.components
  local function profile(text)
    local path = os.tmpname() .. ".lua"
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
    local ok, p = pcall(runtimes.load_file, path)
    os.remove(path)
    return ok, p
  end
  -- Each field in the component whose formulas read it: the kernels' in
  -- activations.c, the allocator's in estimate.c, the buffers with the sharding.
  it("groups each field with the formulas that read it", function()
    local function has(list, key)
      for _, k in ipairs(list) do if k == key then return true end end
      return false
    end
    assert.is_true(has(components.kernels, "fused_norm"))
    assert.is_true(has(components.kernels, "rope"))
    assert.is_true(has(components.loss, "loss_inplace_grad"))
    assert.is_true(has(components.allocator, "fragmentation"))
    assert.is_true(has(components.sharding, "inplace_dp_buffers"))
    assert.is_true(has(components.precision, "main_param_bytes"))
    assert.is_false(has(components.kernels, "fragmentation"))
  end)
  -- Issue 31: SP beside CP is the runtime's capability (parallelism.sp_with_cp),
  -- stated where the runtime trains it: Megatron-Core's context-parallel guide
  -- (a TP2CP2 layer with SP's collectives) and torchtitan's parallelize_llama
  -- (SequenceParallel TP plan, then CP on the same blocks), as their profiles
  -- cite. The others follow the reference planner ("CP+SP incompatible") by
  -- stating nothing: the C default, false.
  it("states sequence parallelism beside context parallelism where the runtime trains it", function()
    local function has(list, key)
      for _, k in ipairs(list) do if k == key then return true end end
      return false
    end
    assert.is_true(has(components.parallelism, "sp_with_cp"))
    local want = { megatron = true, torchtitan = true, hyperparallel = false, mindspore = false,
                   deepspeed = false, none = false }
    for name, yes in pairs(want) do
      assert.are.equal(yes, runtimes.load(name).run.sp_with_cp == true, name)
      assert.are.equal(yes, nd.run { runtime = name }:spec().sp_with_cp == true, name)
    end
    -- a run naming no runtime takes hyperparallel's defaults: the reference's rule
    assert.is_nil(require("nd").run({}):spec().sp_with_cp)
  end)
  it("every component field is a field nd.run takes", function()
    for name, keys in pairs(components) do
      for _, key in ipairs(keys) do
        local ok, err = pcall(nd.run, { [key] = {} })
        -- a table is no value any field takes: refused by its type, not as an unknown key
        assert.is_false(ok, name .. "." .. key)
        assert.falsy(tostring(err.message or err):find("unknown key", 1, true), name .. "." .. key)
      end
    end
  end)
  it("lays a component's fields flat, as nd.run takes them", function()
    local ok, p = profile('return { name = "x", peak = "allocated", run = { kernels = { fused_norm = true }, '
      .. 'allocator = { fragmentation = 0.5 }, seq_length = 1024 } }')
    assert.is_true(ok, tostring(p))
    assert.are.same({ fused_norm = true, fragmentation = 0.5, seq_length = 1024 }, p.run)
  end)
  it("refuses a field in a component that does not hold it", function()
    local ok, err = profile('return { name = "x", peak = "allocated", run = { kernels = { fragmentation = 0 } } }')
    assert.is_false(ok)
    assert.truthy(err.message:find("run.kernels.fragmentation is no field of the kernels component", 1, true))
  end)
  it("refuses a field stated twice", function()
    local ok, err = profile('return { name = "x", peak = "allocated", run = { fused_norm = true, '
      .. 'kernels = { fused_norm = false } } }')
    assert.is_false(ok)
    assert.truthy(err.message:find("fused_norm is stated twice", 1, true))
  end)
end)

describe("Megatron's bytes a parameter (theoretical_memory_usage.py)", function()
  -- bf16 weights 2 + fp32 main grads 4 + fp32 main params and two moments
  -- 12: 18 bytes a parameter, or 6 + 12/DP with the distributed optimizer
  local m = nd.model("meta-llama/Llama-2-7b-hf", { warnings = quiet })
  local function bytes_per_param(dist_opt)
    local e = nd.estimate(m, nd.run { runtime = "megatron", dp = 8, optimizer_parallel = dist_opt,
                                      seq_length = 2048, micro_batch_size = 2, micro_batch_num = 8 })
    return static_bytes(e.stages[1]) / LLAMA2_7B
  end
  it("18 without the distributed optimizer", function()
    assert.are.equal(18, bytes_per_param(false))
  end)
  it("6 + 12/8 = 7.5 with it at DP 8", function()
    assert.are.equal(7.5, bytes_per_param(true))
  end)
  it("allocated is the total without reserve (max_memory_allocated has none)", function()
    local e = nd.estimate(m, nd.run { runtime = "megatron", dp = 8, optimizer_parallel = true, seq_length = 2048 })
    assert.are.equal(0, e.stages[1].reserve)
    assert.are.equal(e.peak_bytes, e.allocated_bytes)
    assert.are.equal(e.allocated_bytes, e.reserved_bytes)
  end)
end)

describe("the allocator and offload", function()
  local m = nd.model("meta-llama/Llama-2-7b-hf", { warnings = quiet })
  it("reserved = allocated x (1 + fragmentation), total = reserved + reserve", function()
    local e = nd.estimate(m, nd.run { dp = 8, zero = 3, seq_length = 2048, fragmentation = 0.25,
                                      reserve_bytes = 1024 })
    local s = e.stages[1]
    assert.are.equal(s.allocated * 1.25, s.reserved) -- exact up to the rounding of each part
    assert.are.equal(s.reserved + 1024, s.total)
    assert.are.equal(s.reserved - s.allocated, s.fragmentation)
  end)
  it("offloaded parameters take their grads and optimizer states to the host", function()
    local base = nd.run { dp = 8, zero = 3, seq_length = 2048, reserve_bytes = 0 }
    local on = nd.estimate(m, base).stages[1]
    local off = nd.estimate(m, base:with { offload_params = true }).stages[1]
    assert.are.equal(0, static_bytes(off))
    assert.are.equal(static_bytes(on), off.host.total)
    assert.are.equal(on.activations, off.activations)
  end)
  it("an offloaded optimizer moves its states and main params, not the weights or grads", function()
    local base = nd.run { runtime = "deepspeed", dp = 8, zero = 2, seq_length = 2048 }
    local on = nd.estimate(m, base).stages[1]
    local off = nd.estimate(m, base:with { offload_optimizer = true }).stages[1]
    assert.are.equal(on.params, off.params)
    assert.are.equal(on.grads, off.grads)
    assert.are.equal(0, off.optimizer + off.main_params)
    assert.are.equal(on.optimizer + on.main_params, off.host.total)
  end)
  it("offload_activations moves that share of the kept activations", function()
    local base = nd.run { dp = 8, seq_length = 2048 }
    local on = nd.estimate(m, base).stages[1]
    local off = nd.estimate(m, base:with { offload_activations = 0.5 }).stages[1]
    assert.are.equal(on.activations / 2, off.activations)
    assert.are.equal(on.activations / 2, off.host.activations)
  end)
end)

describe("a runtime's overlap over the device's", function()
  -- Megatron runs its TP collectives on the compute stream: none hidden,
  -- where the device profile's default hides half (nd.hardware.DEFAULT_OVERLAP.tp)
  local m = nd.model({ name = "tiny-llama", arch = "default", hidden_size = 1024, num_hidden_layers = 4,
                       num_attention_heads = 8, num_key_value_heads = 8, intermediate_size = 4096,
                       vocab_size = 32000, max_position_embeddings = 2048 }, { warnings = quiet })
  local h100 = nd.hardware("H100")
  it("Megatron's TP time is twice the default's (overlap 0 against 0.5)", function()
    local plain = nd.step_time(m, nd.run { tp = 2, seq_length = 2048 }, h100).parts.tp_s
    local megatron = nd.step_time(m, nd.run { tp = 2, seq_length = 2048, runtime = "megatron" }, h100).parts.tp_s
    -- 4 layers x 8·(2 − 1)/2 · 2048 · 1024 · 2 B a micro-batch, at NVLink's 360 GB/s
    assert.is_true(math.abs(megatron - 4 * 4 * 2048 * 1024 * 2 / 360e9) < 1e-12)
    assert.is_true(math.abs(megatron - 2 * plain) < 1e-12)
  end)
  it("Megatron's gradient all-reduce waits for the backward unless --overlap-grad-reduce, then its buckets", function()
    -- W = 4 layers x (4·1024² + 3·1024·4096 + 2·1024) + embedding and head 2·32000·1024 = 132653056;
    -- the all-reduce of its fp32 main grads over DP 8 in a node: 2·7/8·W·4 B at 360 GB/s
    local W = 4 * (4 * 1024 * 1024 + 3 * 1024 * 4096 + 2 * 1024) + 2 * 32000 * 1024
    local r = nd.run { dp = 8, seq_length = 2048, runtime = "megatron" }
    local after = nd.step_time(m, r, h100).parts.dp_s
    assert.is_true(math.abs(after - 2 * 7 / 8 * W * 4 / 360e9) < 1e-15)
    -- --overlap-grad-reduce: buckets of max(4e7, 1e6·8) = 4e7 parameters, e = 4e7/W of them the last;
    -- the others behind the backward H, (1 - e)·max(0, C - H), the last one's e·C after it
    local t = nd.step_time(m, r:with { overlapped_grad_reduce = true }, h100)
    local e, H = 4e7 / W, t.parts.backward_s + t.parts.recompute_s
    assert.is_true(math.abs(t.parts.dp_s - ((1 - e) * math.max(0, after - H) + e * after)) < 1e-15)
    assert.is_true(t.parts.dp_s < after)
  end)
end)
