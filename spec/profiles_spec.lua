-- Op profiles (lua/nd/profiles.lua, lua/nd/profiles/*.lua).
-- Expected counts are the tables of reference model-spec-census-train-yaml.md §b.1 and memory-model.md §5.2.
local profiles = require "nd.profiles"
local warnings = require "nd.warnings"

local function raised(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  assert.is_true(type(err) == "table" and err.bad_input == true, "expected a bad-input error, got " .. tostring(err))
  return err.message
end

local function vector(p, kind)
  local out = {}
  for i, op in ipairs(profiles.OP_NAMES) do out[i] = p.kinds[kind].ops[op] end
  return out
end

local function tempdir()
  local p = assert(io.popen("mktemp -d"))
  local dir = p:read("l")
  p:close()
  return dir
end

describe("nd.profiles", function()
  it("knows the eleven shipped archs", function()
    local known = profiles.known_archs()
    for _, arch in ipairs({ "default", "llama2", "qwen", "qwen3_5", "deepseek", "mixtral", "t5",
                            "pangualpha", "cm", "vision", "gpt" }) do
      assert.is_truthy(profiles.get(arch), arch)
      local found = false
      for _, k in ipairs(known) do found = found or k == arch end
      assert.is_true(found, arch)
    end
  end)

  it("refuses an unknown arch, listing the known ones", function()
    local msg = raised(profiles.get, "qwne")
    assert.matches("unknown arch 'qwne'", msg, 1, true)
    assert.matches("the op profiles are cm, deepseek, default, gemma, gpt, llama, llama2, mistral, mixtral, pangualpha, "
                   .. "phi3, qwen, qwen3_5, t5",
                   msg, 1, true)
    raised(profiles.get, "../etc")
  end)

  it("states the op counts of model-spec-census-train-yaml.md §b.1", function()
    local default = { 4, 2, 3, 1, 0, 2, 4, 1, 1, 0 }
    assert.are.same(default, vector(profiles.get("default"), "decoder"))
    assert.are.same(default, vector(profiles.get("qwen"), "decoder"))
    assert.are.same(default, vector(profiles.get("llama2"), "decoder"))
    assert.are.same(default, vector(profiles.get("qwen3_5"), "full_attention"))
    assert.are.same({ 4, 0, 3, 0, 0, 2, 4, 0, 1, 1 }, vector(profiles.get("qwen3_5"), "linear_attention"))
    assert.are.same(default, vector(profiles.get("deepseek"), "dense"))
    assert.are.same(default, vector(profiles.get("deepseek"), "moe"))
    assert.are.same({ 4, 2, 3, 2, 0, 5, 4, 1, 1, 0 }, vector(profiles.get("mixtral"), "decoder"))
    -- memory-model.md §5.2 gives the whole vectors of t5, pangualpha, vision
    assert.are.same({ 4, 1, 2, 2, 5, 2, 4, 1, 1, 0 }, vector(profiles.get("t5"), "encoder"))
    assert.are.same({ 8, 2, 2, 4, 7, 3, 6, 1, 1, 0 }, vector(profiles.get("t5"), "decoder"))
    assert.are.same({ 4, 1, 2, 2, 5, 4, 4, 1, 1, 0 }, vector(profiles.get("pangualpha"), "decoder"))
    assert.are.same({ 4, 2, 2, 1, 0, 2, 4, 1, 1, 0 }, vector(profiles.get("vision"), "encoder"))
    -- gpt: a 2-matmul MLP and two residual dropouts (Korthikanti et al. 2022)
    assert.are.same({ 4, 2, 2, 1, 2, 2, 4, 1, 1, 0 }, vector(profiles.get("gpt"), "decoder"))
  end)

  -- Every shipped profile resolved through its `extends` chain, stated
  -- whole by hand: the op vectors and run/model defaults of
  -- model-spec-census-train-yaml.md §b.1's table (default, qwen, qwen3_5,
  -- deepseek, mixtral, llama2, t5, pangualpha, cm, vision), memory-model.md
  -- §5.2's whole vectors (t5, pangualpha, vision), Korthikanti et al. 2022
  -- for gpt (2-matmul MLP, two residual dropouts, 1-byte masks, 2-byte
  -- LayerNorm inputs, no flash attention), Gemma 2's four RMSNorms a layer
  -- (input, post-attention, pre- and post-feed-forward: normOp 4), and the
  -- default decoder for llama, mistral and phi3 (the same layer).
  it("resolves every shipped profile to the counts and defaults its sources give", function()
    local D = { 4, 2, 3, 1, 0, 2, 4, 1, 1, 0 }
    local function kind(v, attention, ffn) return { v = v, attention = attention or "full", ffn = ffn } end
    local expected = {
      default = { default = "decoder", kinds = { decoder = kind(D) }, run = {}, model = {} },
      llama = { default = "decoder", kinds = { decoder = kind(D) }, run = {}, model = {} },
      mistral = { default = "decoder", kinds = { decoder = kind(D) }, run = {}, model = {} },
      phi3 = { default = "decoder", kinds = { decoder = kind(D) }, run = {}, model = {} },
      llama2 = { default = "decoder", kinds = { decoder = kind(D) }, run = { grad_bytes = 2, grad_accumulation = true },
                 model = {} },
      gemma = { default = "decoder", kinds = { decoder = kind { 4, 2, 3, 1, 0, 4, 4, 1, 1, 0 } }, run = {}, model = {} },
      qwen = { default = "decoder", kinds = { decoder = kind(D) }, run = { shard_activations = true }, model = {} },
      qwen3_5 = { default = "full_attention",
                  kinds = { full_attention = kind(D),
                            linear_attention = kind({ 4, 0, 3, 0, 0, 2, 4, 0, 1, 1 }, "linear") },
                  run = { shard_activations = true }, model = { zero_centered_norms = true } },
      deepseek = { default = "moe", kinds = { dense = kind(D, "full", "dense"), moe = kind(D, "full", "moe") },
                   run = {}, model = { v_head_dim = 128, sigmoid_router = true } },
      cm = { default = "moe", kinds = { dense = kind(D, "full", "dense"), moe = kind(D, "full", "moe") },
             run = {}, model = { v_head_dim = 128, sigmoid_router = true } },
      mixtral = { default = "decoder", kinds = { decoder = kind { 4, 2, 3, 2, 0, 5, 4, 1, 1, 0 } },
                  run = { grad_bytes = 2 }, model = {} },
      t5 = { default = "encoder", kinds = { encoder = kind { 4, 1, 2, 2, 5, 2, 4, 1, 1, 0 },
                                            decoder = kind { 8, 2, 2, 4, 7, 3, 6, 1, 1, 0 } },
             run = { dropout_bytes = 1 }, model = { no_rope = true } },
      pangualpha = { default = "decoder", kinds = { decoder = kind { 4, 1, 2, 2, 5, 4, 4, 1, 1, 0 } },
                     run = { dropout_bytes = 1 }, model = { no_rope = true } },
      vision = { default = "encoder", kinds = { encoder = kind { 4, 2, 2, 1, 0, 2, 4, 1, 1, 0 } }, run = {},
                 model = {} },
      gpt = { default = "decoder", kinds = { decoder = kind { 4, 2, 2, 1, 2, 2, 4, 1, 1, 0 } },
              run = { flash_attention = false, dropout_bytes = 1, norm_bytes = 2 }, model = { no_rope = true } },
    }
    local count = 0
    for _, arch in ipairs(profiles.BUILTIN) do
      local want, p = assert(expected[arch], arch), profiles.get(arch)
      count = count + 1
      assert.are.equal(want.default, p.default, arch)
      local names = {}
      for k in pairs(want.kinds) do names[#names + 1] = k end
      table.sort(names)
      assert.are.same(names, p.kind_names, arch)
      for k, w in pairs(want.kinds) do
        assert.are.same(w.v, vector(p, k), arch .. "." .. k)
        assert.are.equal(w.attention, p.kinds[k].attention, arch .. "." .. k)
        assert.are.equal(w.ffn, p.kinds[k].ffn, arch .. "." .. k)
      end
      assert.are.same(want.run, p.run, arch)
      assert.are.same(want.model, p.model, arch)
    end
    assert.are.equal(15, count)
  end)

  describe("extends", function()
    local function ops(over)
      local v = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 1, dropout = 0, normOp = 2, gather = 4, headCast = 1,
                  ffAct = 1, linrec = 0 }
      for k, n in pairs(over or {}) do v[k] = n end
      return v
    end

    it("states only what differs: ops, run and model over the base's, its kinds and default kept", function()
      profiles.register("ext_base", { default = "b", kinds = { a = { ops = ops(), ffn = "dense" },
                                                                b = { ops = ops { linrec = 1 }, attention = "linear" } },
                                      run = { grad_bytes = 2 }, model = { v_head_dim = 64 } })
      local p = profiles.register("ext_child", { extends = "ext_base", run = { dropout_bytes = 1 },
                                                 model = { no_rope = true } })
      assert.are.equal("ext_base", p.extends)
      assert.are.equal("b", p.default)
      assert.are.same({ "a", "b" }, p.kind_names)
      assert.are.same({ 4, 2, 3, 1, 0, 2, 4, 1, 1, 1 }, vector(p, "b"))
      assert.are.equal("linear", p.kinds.b.attention)
      assert.are.equal("dense", p.kinds.a.ffn)
      assert.are.same({ grad_bytes = 2, dropout_bytes = 1 }, p.run)
      assert.are.same({ v_head_dim = 64, no_rope = true }, p.model)
      -- a named kind starts from the base's kind of its name, a new one from the base's default kind
      p = profiles.register("ext_kinds", { extends = "ext_base", kinds = { a = { ops = { ffMM = 2 } },
                                                                           c = { ops = { softmax = 0 } } } })
      assert.are.same({ "a", "c" }, p.kind_names)
      assert.are.same({ 4, 2, 2, 1, 0, 2, 4, 1, 1, 0 }, vector(p, "a"))
      assert.are.equal("dense", p.kinds.a.ffn)
      assert.are.same({ 4, 2, 3, 0, 0, 2, 4, 1, 1, 1 }, vector(p, "c"))
      assert.are.equal("linear", p.kinds.c.attention)
      assert.is_nil(p.default)
      -- the base's counts are not changed by what a profile extending it states
      assert.are.same({ 4, 2, 3, 1, 0, 2, 4, 1, 1, 0 }, vector(profiles.get("ext_base"), "a"))
    end)

    it("refuses a partial op vector without a base, an unknown base, and a circle", function()
      assert.matches("kinds.decoder.ops.attBMM",
                     raised(profiles.register, "ext_bad", { kinds = { decoder = { ops = { attMM = 4 } } } }), 1, true)
      local err = select(2, pcall(profiles.register, "ext_bad", { extends = "no_such" }))
      assert.are.equal("extends", err.path)
      assert.matches("unknown op profile 'no_such'", err.message, 1, true)
      assert.matches("names the op profile this one extends, got 3",
                     raised(profiles.register, "ext_bad", { extends = 3 }), 1, true)
      assert.matches("kinds.x.ops.bogus",
                     raised(profiles.register, "ext_bad", { extends = "default", kinds = { x = { ops = { bogus = 1 } } } }),
                     1, true)
      local dir = tempdir()
      os.execute("mkdir -p " .. dir .. "/nd/profiles")
      for name, base in pairs { ext_loop_a = "ext_loop_b", ext_loop_b = "ext_loop_a" } do
        local f = assert(io.open(dir .. "/nd/profiles/" .. name .. ".lua", "w"))
        f:write(string.format("return { extends = %q }\n", base))
        f:close()
      end
      local saved = package.path
      package.path = dir .. "/?.lua;" .. package.path
      local ok, loop = pcall(profiles.get, "ext_loop_a")
      package.path = saved
      os.execute("rm -rf " .. dir)
      assert.is_false(ok)
      assert.are.equal("extends", loop.path)
      assert.matches("'ext_loop_a' extends ext_loop_b, directly or through its own base", loop.message, 1, true)
    end)
  end)

  it("states each kind's attention and ffn flavour and default kind", function()
    local q = profiles.get("qwen3_5")
    assert.are.equal("full_attention", q.default)
    assert.are.equal("linear", q.kinds.linear_attention.attention)
    assert.are.equal("full", q.kinds.full_attention.attention)
    local d = profiles.get("deepseek")
    assert.are.equal("moe", d.default)
    assert.are.equal("dense", d.kinds.dense.ffn)
    assert.are.equal("moe", d.kinds.moe.ffn)
    assert.are.equal("moe", profiles.get("cm").default)
    assert.are.equal("encoder", profiles.get("t5").default)
    assert.is_nil(profiles.get("qwen").kinds.decoder.ffn)
  end)

  it("gives DEFAULT_RUN plus flash_attention as the default run", function()
    assert.are.same({ grad_bytes = 4, optimizer_state_bytes = 4, optimizer_states = 2, main_param_bytes = 0,
                      norm_bytes = 4, dropout_bytes = 0, grad_accumulation = false, shard_activations = false,
                      loss_parallel = true, reshard_params = false, deferred_grad_accumulation = false,
                      overlapped_grad_reduce = false, flash_attention = true }, profiles.default_run())
  end)

  it("states the families' implementation facts in their profiles, not by name in the C core", function()
    assert.is_true(profiles.family("qwen3_5").zero_centered_norms)
    assert.is_true(profiles.family("deepseek").sigmoid_router)
    assert.is_true(profiles.family("cm").sigmoid_router)
    for _, arch in ipairs(profiles.BUILTIN) do
      local f = profiles.family(arch)
      assert.are.equal(arch == "qwen3_5", f.zero_centered_norms, arch)
      assert.are.equal(arch == "deepseek" or arch == "cm", f.sigmoid_router, arch)
      -- GPT and PanGu-alpha learn absolute positions, T5 biases the scores by relative ones
      assert.are.equal(arch == "gpt" or arch == "pangualpha" or arch == "t5", f.no_rope, arch)
    end
    local ops = {}
    for _, op in ipairs(profiles.OP_NAMES) do ops[op] = 0 end
    assert.is_true(profiles.check({ kinds = { a = { ops = ops } }, model = { sigmoid_router = true } }, "x").model
                     .sigmoid_router)
    local ok, err = pcall(profiles.check, { kinds = { a = { ops = ops } }, model = { sigmoid_router = 1 } }, "x")
    assert.is_false(ok)
    assert.matches("must be true or false", tostring(err.message or err), 1, true)
  end)

  it("resolves each family's run and model defaults (model-spec-census-train-yaml.md §b.1)", function()
    assert.is_true(profiles.family("qwen").shard_activations)
    assert.is_true(profiles.family("qwen3_5").shard_activations)
    assert.are.equal(2, profiles.family("mixtral").grad_bytes)
    assert.are.equal(2, profiles.family("llama2").grad_bytes)
    assert.is_true(profiles.family("llama2").grad_accumulation)
    assert.are.equal(1, profiles.family("t5").dropout_bytes)
    assert.are.equal(1, profiles.family("pangualpha").dropout_bytes)
    assert.are.equal(128, profiles.family("deepseek").v_head_dim)
    assert.are.equal(128, profiles.family("cm").v_head_dim)
    assert.is_nil(profiles.family("qwen").v_head_dim)
    local gpt = profiles.family("gpt")
    assert.is_false(gpt.flash_attention)
    assert.are.equal(1, gpt.dropout_bytes)
    -- unknown or nil: the default family
    assert.are.same(profiles.family("default"), profiles.family(nil))
    assert.are.equal(4, profiles.family(nil).grad_bytes)
  end)

  describe("infer_arch", function()
    it("takes the longest known prefix of the lowercased name (model-spec-census-train-yaml.md §a.3, plus gpt)",
       function()
      local w = warnings.quiet()
      local cases = {
        qwen2 = "qwen", qwen3_moe = "qwen", qwen3_5_moe = "qwen3_5", ["Qwen3.5-9B"] = "qwen3_5",
        qwen3_next = "qwen3_5", qwen3_vl_moe = "qwen", deepseek_v3 = "deepseek", mixtral = "mixtral",
        llama2_7b = "llama2", t5 = "t5", pangualpha = "pangualpha", cm_model = "cm", gpt2 = "gpt",
        GPT2 = "gpt",
      }
      for name, arch in pairs(cases) do
        assert.are.equal(arch, profiles.infer_arch(name, w), name)
      end
      assert.are.same({}, w:all())
    end)

    it("falls back to default with one warning per name", function()
      local w = warnings.quiet()
      assert.are.equal("default", profiles.infer_arch("falcon", w))
      assert.are.equal("default", profiles.infer_arch("falcon", w))
      assert.are.equal("default", profiles.infer_arch("mamba", w))
      local all = w:all()
      assert.are.equal(2, #all)
      assert.matches("no op profile matches model 'falcon'", all[1], 1, true)
      -- the families issue 13 gave profiles
      assert.are.equal("llama", profiles.infer_arch("llama", w))
      assert.are.equal("llama2", profiles.infer_arch("llama2_7b", w))
      assert.are.equal("gemma", profiles.infer_arch("gemma2", w))
      assert.are.equal("gemma", profiles.infer_arch("gemma3_text", w))
      assert.are.equal("mistral", profiles.infer_arch("mistral", w))
      assert.are.equal("phi3", profiles.infer_arch("phi3", w))
      assert.are.equal(2, #w:all())
    end)
  end)

  describe("user profiles", function()
    it("loads an edited copy of a shipped profile file", function()
      local dir = tempdir()
      local src = assert(io.open(package.searchpath("nd.profiles.qwen", package.path))):read("a")
      local edited = src:gsub("shard_activations = true", "shard_activations = true, grad_bytes = 2")
      local f = assert(io.open(dir .. "/myqwen.lua", "w"))
      f:write(edited)
      f:close()
      local p = profiles.load_file(dir .. "/myqwen.lua")
      assert.are.equal("myqwen", p.name)
      assert.are.equal(2, profiles.family("myqwen").grad_bytes)
      assert.is_truthy(profiles.get("myqwen"))
      os.execute("rm -rf " .. dir)
    end)

    it("refuses a broken profile by key", function()
      local base = function()
        return { kinds = { decoder = { ops = { attMM = 4, attBMM = 2, ffMM = 3, softmax = 1, dropout = 0,
                 normOp = 2, gather = 4, headCast = 1, ffAct = 1, linrec = 0 } } } }
      end
      local p = base()
      p.kinds.decoder.ops.linrec = nil
      assert.matches("kinds.decoder.ops.linrec", raised(profiles.register, "broken", p), 1, true)
      p = base()
      p.kinds.decoder.ops.attMM = 1.5
      assert.matches("kinds.decoder.ops.attMM", raised(profiles.register, "broken", p), 1, true)
      p = base()
      p.kinds.decoder.attention = "sparse"
      assert.matches("kinds.decoder.attention", raised(profiles.register, "broken", p), 1, true)
      p = base()
      p.run = { grad_bites = 2 }
      assert.matches("run.grad_bites", raised(profiles.register, "broken", p), 1, true)
      p = base()
      p.run = { flash_attention = "no" }
      assert.matches("run.flash_attention", raised(profiles.register, "broken", p), 1, true)
      p = base()
      p.model = { head_dim = 64 }
      assert.matches("model.head_dim", raised(profiles.register, "broken", p), 1, true)
      p = base()
      p.default = "encoder"
      assert.matches("default", raised(profiles.register, "broken", p), 1, true)
      assert.matches("kinds", raised(profiles.register, "broken", { kinds = {} }), 1, true)
    end)
  end)
end)
