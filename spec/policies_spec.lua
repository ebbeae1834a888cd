-- Ranking policies (lua/nd/policies.lua, lua/nd/policies/*.lua,
-- examples/policies/): loading by name and file, errors naming the file and
-- line, and the order keep/score/order give a small search's candidates.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local core = require "nd.core"
local search = require "nd.search"
local hardware = require "nd.hardware"
local policies = require "nd.policies"
local tiny = dofile("spec/support/tiny.lua")

local FLAT = { name = "flat", peak_tflops = 2, sustained_tflops = 1, levels = { { gbps = 1 } },
               overlap = hardware.DEFAULT_OVERLAP, nd_comm_divisor = 1 }

local function refusal(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected a refusal")
  assert.is_true(type(err) == "table" and err.bad_input, tostring(err))
  return err.message
end

local function policy_file(text)
  local path = os.tmpname() .. ".lua"
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

-- 8 devices, batch 8, TP searched, grad accumulation: TP 1 (DP 8), 2 (DP 4), 4 (DP 2), in that nest order.
local function small_result()
  local m = tiny.dense { num_hidden_layers = 4 }
  local sp = search.space { model = m:spec(), hardware = FLAT, devices = 8, global_batch = 8, budget_bytes = 1e15,
                            searched = { TP = true, DP = true, MB = true }, pinned = {}, recompute = { "off" } }
  return core.search(m, nd.run { grad_accumulation = true }, sp), m
end

local function tps(result)
  local out = {}
  for i = 1, result:size() do out[i] = result:candidate(i).tp end
  return out
end

describe("shipped policies", function()
  it("throughput (the default) sorts by step time, then peak; memory the other way; nd by the reference's score",
    function()
      assert.are.equal("throughput", policies.DEFAULT)
      assert.are.same({ "step_time_s", "peak_bytes" }, policies.load("throughput").order)
      assert.are.same({ "peak_bytes", "step_time_s" }, policies.load("memory").order)
      assert.are.same({ "nd_score" }, policies.load("nd").order)
      assert.are.same({ "memory", "nd", "throughput" }, policies.names())
    end)

  it("orders a result as its keys say", function()
    local r = small_result()
    local kept = policies.apply(r, policies.load("memory"), {})
    assert.are.equal(3, kept)
    for i = 2, r:size() do
      assert.is_true(r:candidate(i - 1).peak_bytes <= r:candidate(i).peak_bytes)
    end
    policies.apply(r, policies.load("throughput"), {})
    for i = 2, r:size() do
      assert.is_true(r:candidate(i - 1).step_time_s <= r:candidate(i).step_time_s)
    end
    policies.apply(r, policies.load("nd"), {})
    for i = 2, r:size() do
      assert.is_true(r:candidate(i - 1).nd_score <= r:candidate(i).nd_score)
    end
  end)

  it("refuses an unknown name, listing the shipped ones", function()
    assert.matches("--policy: 'fastest' is no ranking policy; one of memory, nd, throughput, or a policy file",
                   refusal(policies.load, "fastest"), 1, true)
    assert.matches("no policy file 'missing.lua'", refusal(policies.load, "missing.lua"), 1, true)
  end)
end)

describe("a policy file", function()
  it("scores every candidate in Lua, lower first, ties in nest order", function()
    -- score: 1 for TP 2, 2 for the others: TP 2 first, then TP 1 and TP 4 as the nest met them
    local path = policy_file("return { score = function(c) return c.tp == 2 and 1 or 2 end }")
    local r = small_result()
    local kept = policies.apply(r, policies.load(path), {})
    os.remove(path)
    assert.are.equal(3, kept)
    assert.are.same({ 2, 1, 4 }, tps(r))
    assert.are.equal(1, r:candidate(1).score)
  end)

  it("sets aside what keep refuses, after the kept ones; order breaks score ties", function()
    local path = policy_file([[
return {
  keep = function(c, ctx) return c.tp <= ctx.max_tp end,
  score = function(c) return 1 end,
  order = { "-mfu" },
}]])
    local r = small_result()
    local kept = policies.apply(r, policies.load(path), { max_tp = 2 })
    assert.are.equal(2, kept)
    assert.are.equal(4, r:candidate(3).tp)
    assert.is_false(r:candidate(3).kept)
    assert.is_true(r:candidate(1).mfu >= r:candidate(2).mfu)
    -- the search's own exclusion wins over the policy's keep
    kept = policies.apply(r, policies.load(path), { max_tp = 8 }, nil, nil, function(c) return c.tp == 1 end)
    os.remove(path)
    assert.are.equal(2, kept)
  end)

  it("sees per-stage bytes when it asks for them", function()
    local path = policy_file([[
return { stages = true, score = function(c) assert(#c.stage_bytes == c.pp) return c.stage_bytes[1] end }]])
    local r, m = small_result()
    policies.apply(r, policies.load(path), {}, nil, m)
    os.remove(path)
    assert.are.equal(r:candidate(1).peak_bytes, r:candidate(1).score)
  end)

  it("refuses a syntax error, naming the file and line", function()
    local path = policy_file("return {\n  score = function(c) return c.tp end\n")
    local m = refusal(policies.load, path)
    os.remove(path)
    assert.matches("ranking policy " .. path .. ":3: '}' expected (to close '{' at line 1)", m, 1, true)
  end)

  it("refuses an error while it loads, naming the file and line", function()
    local path = policy_file("local x = nil\nlocal y = x.field\nreturn {}\n")
    local m = refusal(policies.load, path)
    os.remove(path)
    assert.matches(path .. ":2: attempt to index a nil value (local 'x')", m, 1, true)
  end)

  it("refuses an error in score or keep, naming the file, line and candidate", function()
    local path = policy_file("return {\n  score = function(c)\n    return c.missing.x\n  end,\n}\n")
    local m = refusal(policies.apply, small_result(), policies.load(path), {})
    assert.matches("ranking policy " .. path .. ": " .. path .. ":3: attempt to index a nil value (field 'missing') "
      .. "(in score, for candidate dp 8 tp 1 pp 1)", m, 1, true)
    os.remove(path)
    path = policy_file("return { order = {'peak_bytes'}, keep = function(c) error('no keeping') end }")
    m = refusal(policies.apply, small_result(), policies.load(path), {})
    os.remove(path)
    assert.matches(path .. ":1: no keeping (in keep", m, 1, true)
  end)

  it("refuses a score that is no number", function()
    local path = policy_file("return { score = function(c) return 'fast' end }")
    local m = refusal(policies.apply, small_result(), policies.load(path), {})
    os.remove(path)
    assert.matches("score returned fast, not a number", m, 1, true)
  end)

  it("refuses a table that is no policy", function()
    local cases = {
      { "return 42", "a ranking policy returns a table, got number" },
      { "return {}", "gives order = {keys...} or score = function(candidate)" },
      { "return { order = { 'speed' } }", "order: 'speed' is no sort key" },
      { "return { order = { 'peak_bytes' }, keep = true }", "keep must be a function" },
    }
    for _, c in ipairs(cases) do
      local path = policy_file(c[1])
      local m = refusal(policies.load, path)
      os.remove(path)
      assert.matches(c[2], m, 1, true)
    end
  end)
end)

describe("the example team policy (examples/policies/team.lua)", function()
  it("keeps TP x CP within a node and 8 % headroom; scores step time x 1.05 a doubling of EP past 8", function()
    local p = policies.load("examples/policies/team.lua")
    local ctx = { node_devices = 8, budget_bytes = 100 }
    local c = { tp = 8, cp = 1, ep = 32, peak_bytes = 92, step_time_s = 10 }
    assert.is_true(p.keep(c, ctx))
    assert.is_false(p.keep({ tp = 8, cp = 2, peak_bytes = 10 }, ctx))
    assert.is_false(p.keep({ tp = 1, cp = 1, peak_bytes = 93 }, ctx))
    -- EP 32: two doublings past 8
    assert.is_true(math.abs(p.score(c, ctx) - 10 * 1.05 * 1.05) < 1e-12)
    c.ep = 8
    assert.are.equal(10, p.score(c, ctx))
  end)
end)
