-- The search's work bounds (issue 13, item 6): divisors enumerated in
-- O(sqrt(n)), the global batch bounded, the space counted before a search
-- and refused past search.MAX_TESTED with how to narrow it.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local core = require "nd.core"
local search = require "nd.search"
local hardware = require "nd.hardware"
local tiny = dofile("spec/support/tiny.lua")

local FLAT = { name = "flat", peak_tflops = 2, sustained_tflops = 1, levels = { { gbps = 1 } },
               overlap = hardware.DEFAULT_OVERLAP, nd_comm_divisor = 1 }

local function space(model, o)
  local set = {}
  for _, d in ipairs(o.searched or {}) do set[d] = true end
  set.MB = true
  return search.space { model = model:spec(), hardware = FLAT, devices = o.devices, global_batch = o.batch,
                        budget_bytes = 1e15, searched = set, pinned = {}, recompute = o.recompute or { "off" },
                        keep_dropped = 0 }
end

-- Divisors by trial of every number up to n: the definition, to check against.
local function brute(n, bound)
  local out = {}
  for x = 1, math.min(n, bound or n) do
    if n % x == 0 then out[#out + 1] = x end
  end
  return out
end

describe("search.divisors", function()
  it("lists the divisors ascending, as trial of every number does, for 1 to 2000 and several bounds", function()
    for n = 1, 2000 do
      assert.are.same(brute(n), search.divisors(n))
      for _, b in ipairs({ 1, 7, 64, 1000 }) do assert.are.same(brute(n, b), search.divisors(n, b)) end
    end
  end)

  it("counts the divisors of large numbers from their factorizations", function()
    -- 720720 = 2^4 3^2 5 7 11 13: (4+1)(2+1)(1+1)^4 = 240 divisors
    assert.are.equal(240, #search.divisors(720720))
    -- 2^40 has the 41 divisors 2^0 .. 2^40: 2^20 trials, where trial up to n took 2^40
    local d = search.divisors(1 << 40)
    assert.are.equal(41, #d)
    assert.are.equal(1 << 40, d[41])
    -- 2^30: 31 divisors; with a bound of 1000, 2^0 .. 2^9
    assert.are.equal(31, #search.divisors(1 << 30))
    assert.are.equal(10, #search.divisors(1 << 30, 1000))
  end)
end)

describe("nd.core.search_count", function()
  it("counts exactly the candidates nd.core.search tests", function()
    local m = tiny.dense { num_hidden_layers = 8, num_key_value_heads = 4 }
    for _, o in ipairs({
      { devices = 8, batch = 16, searched = { "DP", "TP", "PP" } },
      { devices = 24, batch = 96, searched = { "DP", "TP", "PP", "CP", "VPP", "OP", "SP", "MBS" },
        recompute = { "off", "selective", "full" } },
      { devices = 12, batch = 720, searched = { "DP", "PP", "MBS", "OP" } },
    }) do
      local sp = space(m, o)
      local n = core.search_count(m, sp)
      local result = core.search(m, nd.run {}, sp)
      assert.are.equal(result:counts().tested, n)
      assert.is_true(n > 0)
    end
  end)

  it("refuses a space past search.MAX_TESTED before searching, saying how to narrow it", function()
    local m = tiny.dense { num_hidden_layers = 8 }
    local sp = space(m, { devices = 24, batch = 96, searched = { "DP", "TP", "PP", "CP", "OP", "SP", "MBS" } })
    local n = core.search_count(m, sp)
    local saved = search.MAX_TESTED
    search.MAX_TESTED = n - 1
    local ok, err = pcall(search.check_size, m, sp, { dims = "-l", recompute = "--recompute", batch = "-b" })
    search.MAX_TESTED = saved
    assert.is_false(ok)
    assert.is_true(err.bad_input)
    assert.matches(string.format("the search space holds %d candidates, more than the %d", n, n - 1), err.message,
                   1, true)
    assert.matches("narrow it: fewer dimensions searched (-l)", err.message, 1, true)
    assert.are.equal(n, search.check_size(m, sp, {}))
  end)
end)

describe("nd.core.limits", function()
  it("states each bound once, in src/core/nd_limits.h, read by its Lua names", function()
    local cli = require "nd.cli"
    assert.are.same({ devices = 1 << 20, global_batch = 1 << 30, threads = 1024, device_memory = 1 << 50,
                      layers = 100000, batch = 1 << 24, top_keys = 2, vpp = 64 }, core.limits)
    -- the keys a bounded search ranks by, as the C reader of space.top_keys accepts them
    assert.are.same({ step_time_s = true, peak_bytes = true, ["-step_time_s"] = true, ["-peak_bytes"] = true },
                    core.top_keys)
    assert.are.equal(core.limits.devices, cli.MAX_DEVICES)
    assert.are.equal(core.limits.devices, search.FULL_SHARD)
    assert.are.equal(core.limits.global_batch, search.MAX_GLOBAL_BATCH)
    assert.are.equal(core.limits.threads, search.MAX_THREADS)
    -- a run takes the bound and refuses one past it
    assert.has_no.errors(function() core.run { dp = core.limits.devices } end)
    assert.has_error(function() core.run { dp = core.limits.devices + 1 } end)
    -- vpp: 64 chunks a stage (ND_MAX_VPP), the bound nd.run settles its per-stage forms under
    assert.has_no.errors(function() core.run { vpp = core.limits.vpp } end)
    assert.has_error(function() core.run { vpp = core.limits.vpp + 1 } end)
    -- nd.run settles against the layers and batch bounds: one past each is refused
    assert.has_no.errors(function() nd.run { micro_batch_size = core.limits.batch } end)
    assert.has_error(function() nd.run { micro_batch_size = core.limits.batch + 1 } end)
    assert.has_error(function() nd.run { pp = 2, offset = { core.limits.layers + 1, 0 } } end)
  end)
end)
