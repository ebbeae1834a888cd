-- Argument errors of the binding's methods name the method (issue 34 item
-- 6): called through pcall (pcall(run.micro_factor, run, 99)), a method has
-- no name Lua can find (neither a call's own, as in run:micro_factor(99),
-- nor a field of a loaded module, as nd.core.estimate), and
-- luaL_argerror called it '?': "bad argument #2 to '?' (stage out of range
-- ...)". The binding registers each method's name as TYPE.METHOD
-- (src/binding/lnd_aux.c, lnd_name_methods) and its argument errors use it
-- where Lua has none. The texts in brackets are Lua's own (luaL_check*) or
-- the method's (luaL_argcheck), unchanged.
local nd = require "nd"
local core = require "nd.core"
local search = require "nd.search"
local hardware = require "nd.hardware"

local quiet = require("nd.warnings").quiet()

-- The message of the error f raises.
local function message(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

describe("the binding's methods, called through pcall", function()
  local model = nd.model("Qwen/Qwen3-0.6B", { warnings = quiet })
  local run = nd.run { dp = 8, runtime = "none" }

  it("name the model's methods", function()
    assert.are.equal("bad argument #2 to 'nd.model.flops' (number expected, got string)",
                     message(model.flops, model, "x"))
    assert.are.equal("bad argument #2 to 'nd.model.flops' (seq_len must be a positive number of tokens)",
                     message(model.flops, model, 0))
    assert.are.equal("bad argument #1 to 'nd.model.stack' (nd.model expected, got nd.run)",
                     message(model.stack, run))
    assert.are.equal("bad argument #1 to 'nd.model.spec' (nd.model expected, got number)", message(model.spec, 5))
  end)

  it("name the run's methods", function()
    -- dp 8 alone: one stage (pp 1), one chunk (vpp 1), stages count from 0
    assert.are.equal("bad argument #2 to 'nd.run.micro_factor' (stage out of range (stages count from 0))",
                     message(run.micro_factor, run, 99))
    assert.are.equal("bad argument #3 to 'nd.run.micro_factor' (chunk out of range (chunks count from 0))",
                     message(run.micro_factor, run, 0, 1))
    assert.are.equal("bad argument #2 to 'nd.run.derived' (nd.model expected, got nil)",
                     message(run.derived, run, nil))
  end)

  it("name a search result's methods", function()
    local searched = {}
    for _, d in ipairs(search.DIMS) do searched[d] = true end
    local space = search.space { model = model:spec(), hardware = hardware.load("A2"), devices = 8, global_batch = 8,
                                 budget_bytes = 64 * 2 ^ 30, searched = searched, pinned = {},
                                 recompute = { "full" }, keep_dropped = 0, threads = 1 }
    local result = core.search(model, nd.run { seq_length = 4096, runtime = "none" }, space)
    local n = result:size()
    assert.is_true(n >= 1)
    assert.are.equal("bad argument #2 to 'nd.search_result.candidate' (no fitting candidate of that index)",
                     message(result.candidate, result, n + 1))
    assert.are.equal("bad argument #2 to 'nd.search_result.sort' (table expected, got string)",
                     message(result.sort, result, "step_time_s"))
  end)

  it("keep Lua's own names where a call has one", function()
    -- a method call: Lua names the method and counts its arguments after self
    local ok, err = pcall(function() return run:micro_factor(99) end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bad argument #1 to 'micro_factor' (stage out of range", 1, true), err)
    -- a field of a loaded module: nd.core.estimate
    assert.are.equal("bad argument #2 to 'nd.core.estimate' (nd.run expected, got number)",
                     message(core.estimate, model, 5))
  end)
end)
