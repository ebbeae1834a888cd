-- balance_agree.lua: what the balancer specs (balance_spec, balance_kinds_spec,
-- balance_sapp_spec) share when they hold nd.core.balance to an exhaustive
-- enumeration written in the spec: a seeded generator of random problems and
-- the check of one solver answer against the enumeration's least step.
-- Usage: local agree = dofile("spec/support/balance_agree.lua")
local assert = require("luassert")

local agree = {}

--- The recompute options a layer may offer, in the order the reports list them.
agree.OPTIONS = { "off", "selective", "comm", "both", "full" }

--- A deterministic generator (a linear congruential one, glibc's constants),
-- so that a failing random problem replays: r(lo, hi) is an integer in [lo, hi].
function agree.rng(seed)
  local state = seed
  return function(lo, hi)
    state = (state * 1103515245 + 12345) % 2147483648
    return lo + state % (hi - lo + 1)
  end
end

local function binom(n, k)
  local r = 1
  for i = 1, k do r = r * (n - k + i) / i end
  return r
end

--- How many plans an enumeration of the uniform problem p walks (the ways of
-- putting p.body layers into p.stages x p.chunks cells, each cell's layers a
-- multiset of the options p.layer offers), so that a spec keeps its random
-- problems small enough to enumerate.
function agree.space(p)
  local R = 0
  for _, name in ipairs(agree.OPTIONS) do
    if p.layer.act[name] then R = R + 1 end
  end
  local ways = { [0] = 1 }
  for n = 1, p.body do ways[n] = 0 end
  for _ = 1, p.stages * p.chunks do
    local nxt = {}
    for n = 0, p.body do
      local w = 0
      for k = 0, n do w = w + ways[n - k] * binom(k + R - 1, R - 1) end
      nxt[n] = w
    end
    ways = nxt
  end
  return ways[p.body]
end

--- Asserts got equals want to 1e-9 of want (at least 1e-9): the costs are
-- integers, so sums are exact and only the solver's floating order differs.
function agree.near(want, got, where)
  assert.near(want, got, 1e-9 * math.max(1, want), where)
end

--- Checks the solver's answer `got` against the enumeration's least step
-- `want` (nil when no plan fits): the answer is proved optimal; with no plan
-- it says none fits (and, with o.names_why, names the stage or the capacity
-- that refuses); else it fits at the enumeration's step, and o.evaluate(got),
-- when given, re-prices the plan here: it keeps every rule (ok) at that step.
-- Returns whether a plan fits.
function agree.agrees(want, got, where, o)
  o = o or {}
  assert.is_true(got.optimal, where)
  if want == nil then
    assert.is_false(got.feasible, where)
    if o.names_why then assert.is_true(got.bad_stage ~= nil or got.capacity ~= nil, where) end
    return false
  end
  assert.is_true(got.feasible, where .. " (enumeration found " .. want .. ")")
  agree.near(want, got.objective, where)
  if o.evaluate then
    local ok, step = o.evaluate(got)
    assert.is_true(ok, where .. ": the plan breaks a rule")
    agree.near(want, step, where)
  end
  return true
end

--- Marks in seen[name] every option the plan's cells (cells[s][v][name] =
-- layers) choose for at least one layer.
function agree.mark_chosen(seen, cells, stages, chunks)
  for s = 1, stages do
    for v = 1, chunks do
      for name, x in pairs(cells[s][v]) do
        if x > 0 then seen[name] = true end
      end
    end
  end
end

return agree
