-- The search's work-saving paths give the result the plain loop nest gives
-- (issue 15): threads (space.threads, search.lua -j), the early stop of a
-- dropped candidate's pricing, the reference score left to those that read
-- it, and the index sort. Each is compared with a path that does not take
-- the shortcut, on DeepSeek-V3 (MoE, MTP, many stages dropped) and a dense
-- Llama, field by field at full precision.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local core = require "nd.core"
local search = require "nd.search"
local hardware = require "nd.hardware"
local warnings = require("nd.warnings").quiet()

local A3 = hardware.load("A3")

-- Every field of every fitting candidate (in the result's order), of the
-- kept dropped examples and of the lightest, with the counts.
local function snapshot(r)
  local fit = {}
  for i = 1, r:size() do fit[i] = r:candidate(i) end
  local counts = r:counts()
  counts.elapsed_s = nil
  return { counts = counts, fit = fit, dropped = r:dropped(), lightest = r:lightest() }
end

local function space(m, o)
  local searched = {}
  for _, d in ipairs(search.DIMS) do searched[d] = true end
  return search.space { model = m:spec(), hardware = A3, devices = o.devices, global_batch = o.batch,
                        budget_bytes = o.budget, searched = searched, pinned = {},
                        recompute = { "off", "selective", "full" }, keep_dropped = o.keep_dropped or 0,
                        threads = o.threads }
end

local dsv3 = nd.model("deepseek-ai/DeepSeek-V3", { warnings = warnings })
local llama = nd.model("meta-llama/Llama-3.1-70B", { warnings = warnings })
local CASES = {
  { "DeepSeek-V3 on 256 devices, 58 GiB", dsv3, nd.run {}, { devices = 256, batch = 512, budget = 58 * 2 ^ 30 } },
  { "Llama-3.1-70B on 64 devices, 40 GiB", llama, nd.run {}, { devices = 64, batch = 128, budget = 40 * 2 ^ 30 } },
}

describe("threads", function()
  for _, case in ipairs(CASES) do
    local label, m, run, o = case[1], case[2], case[3], case[4]
    it("give the one-thread result for any count: " .. label, function()
      local one = snapshot(core.search(m, run, space(m, { devices = o.devices, batch = o.batch, budget = o.budget,
                                                          keep_dropped = 5, threads = 1 })))
      -- the case must exercise both sides of the budget
      assert.is_true(one.counts.fitting > 100 and one.counts.dropped > 100)
      for _, threads in ipairs { 2, 3, 7, 0 } do
        local many = snapshot(core.search(m, run, space(m, { devices = o.devices, batch = o.batch,
                                                             budget = o.budget, keep_dropped = 5,
                                                             threads = threads })))
        assert.are.same(one, many)
      end
    end)
  end

  it("order sorted results the same way, ties in the nest's order", function()
    local function sorted(threads, keys, tie_all)
      local r = core.search(dsv3, nd.run {}, space(dsv3, { devices = 256, batch = 512, budget = 58 * 2 ^ 30,
                                                           threads = threads }))
      if tie_all then for i = 1, r:size() do r:set_score(i, 1) end end
      r:sort(keys)
      return snapshot(r)
    end
    assert.are.same(sorted(1, { "step_time_s", "peak_bytes" }), sorted(3, { "step_time_s", "peak_bytes" }))
    -- every score equal: the sort keeps the order the candidates were found in
    local unsorted = snapshot(core.search(dsv3, nd.run {}, space(dsv3, { devices = 256, batch = 512,
                                                                         budget = 58 * 2 ^ 30, threads = 1 })))
    local tied = sorted(3, { "score" }, true)
    for i, c in ipairs(unsorted.fit) do c.score = 1 end
    assert.are.same(unsorted.fit, tied.fit)
    -- sorted once already, the records stand out of the nest's order
    -- (the sort then reads each record's order): ties still fall back to it
    local again = core.search(dsv3, nd.run {}, space(dsv3, { devices = 256, batch = 512, budget = 58 * 2 ^ 30,
                                                              threads = 1 }))
    again:sort { "-step_time_s" }
    assert.are_not.same(unsorted.fit[1].step_time_s, again:candidate(1).step_time_s)
    for i = 1, again:size() do again:set_score(i, 1) end
    again:sort { "score" }
    assert.are.same(unsorted.fit, snapshot(again).fit)
  end)

  it("are refused past the bound", function()
    local sp = space(llama, { devices = 8, batch = 8, budget = 1e15, threads = 1 })
    sp.threads = 1025
    assert.has_error(function() core.search(llama, nd.run {}, sp) end)
  end)
end)

describe("a search bounded to its top (space.top, search.lua without --csv)", function()
  -- The heap keeps the top candidates by the sort's own order (the keys,
  -- then the order the nest found them in), so the bounded result, sorted,
  -- is the unbounded result's sorted prefix, on one thread or several.
  local function first(r, keys, n)
    r:sort(keys)
    local out = {}
    for i = 1, math.min(n, r:size()) do out[i] = r:candidate(i) end
    return out
  end
  local ORDERS = { { "step_time_s", "peak_bytes" }, { "peak_bytes", "step_time_s" }, { "-peak_bytes" },
                   { "peak_bytes" } } -- the last ties often: the nest's order decides
  for _, case in ipairs(CASES) do
    local label, m, run, o = case[1], case[2], case[3], case[4]
    it("keeps what a full sort puts first: " .. label, function()
      local whole = core.search(m, run, space(m, { devices = o.devices, batch = o.batch, budget = o.budget,
                                                   threads = 1 }))
      local fitting = whole:counts().fitting
      for _, keys in ipairs(ORDERS) do
        local expected = first(whole, keys, 40)
        for _, threads in ipairs { 1, 3 } do
          for _, top in ipairs { 1, 10, 40 } do
            local sp = space(m, { devices = o.devices, batch = o.batch, budget = o.budget, threads = threads })
            sp.top, sp.top_keys = top, keys
            local bounded = core.search(m, run, sp)
            assert.are.equal(top, bounded:size())
            assert.are.equal(fitting, bounded:counts().fitting)
            assert.are.same({ table.unpack(expected, 1, top) }, first(bounded, keys, top))
          end
        end
      end
    end)
  end

  it("refuses a top without its keys, and keys it cannot rank by as it prices", function()
    local sp = space(llama, { devices = 8, batch = 8, budget = 1e15, threads = 1 })
    sp.top = 5
    local ok, err = pcall(core.search, llama, nd.run {}, sp)
    assert.is_false(ok)
    assert.are.equal("space.top needs top_keys: the order its top is kept by", err.message)
    sp.top_keys = { "mfu" }
    ok, err = pcall(core.search, llama, nd.run {}, sp)
    assert.is_false(ok)
    assert.matches("space.top_keys[1] must be one of step_time_s, peak_bytes (- descending)", err.message, 1, true)
  end)
end)

describe("the early stop of a dropped candidate", function()
  -- With room for a million examples every dropped candidate is priced to
  -- its last stage (the stop waits until the examples are full); with none,
  -- a candidate stops at the first stage past both the budget and the
  -- lightest peak so far. The lightest and every count must not move.
  for _, case in ipairs(CASES) do
    local label, m, run, o = case[1], case[2], case[3], case[4]
    it("leaves the lightest and the counts as full pricing finds them: " .. label, function()
      local whole = core.search(m, run, space(m, { devices = o.devices, batch = o.batch, budget = o.budget,
                                                   keep_dropped = 1000000, threads = 1 }))
      local early = core.search(m, run, space(m, { devices = o.devices, batch = o.batch, budget = o.budget,
                                                   keep_dropped = 0, threads = 1 }))
      local a, b = snapshot(whole), snapshot(early)
      assert.are.same(a.counts, b.counts)
      assert.are.same(a.fit, b.fit)
      assert.are.same(a.lightest, b.lightest)
      -- the lightest is the lowest of every dropped peak, each priced whole
      local lowest = math.huge
      for _, c in ipairs(a.dropped) do lowest = math.min(lowest, c.peak_bytes) end
      assert.are.equal(lowest, b.lightest.peak_bytes)
      assert.are.equal(a.counts.dropped, #a.dropped)
      -- a dropped candidate carries no step time: only its memory was priced
      assert.are.equal(0, a.dropped[1].step_time_s)
      assert.are.equal(0, b.lightest.step_time_s)
    end)
  end
end)

describe("the reference score", function()
  it("is each candidate's nd.step_time score, computed when read", function()
    local r = core.search(llama, nd.run {}, space(llama, { devices = 64, batch = 128, budget = 40 * 2 ^ 30,
                                                          threads = 1 }))
    local profile = hardware.core(A3)
    for _, i in ipairs { 1, math.floor(r:size() / 2), r:size() } do
      local c = r:candidate(i)
      local t = core.step_time(llama, nd.candidate_run(nd.run {}, c), profile)
      assert.are.equal(t.nd_score, c.nd_score)
      assert.is_true(c.nd_score > 0)
    end
  end)

  it("orders a sort by nd_score", function()
    local r = core.search(llama, nd.run {}, space(llama, { devices = 64, batch = 128, budget = 40 * 2 ^ 30 }))
    r:sort { "nd_score" }
    local last = -math.huge
    for i = 1, r:size() do
      local s = r:candidate(i).nd_score
      assert.is_true(s >= last)
      last = s
    end
  end)
end)
