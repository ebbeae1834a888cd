-- balance_sapp_spec.lua: the balancer under SAPP-PPB's objective and memory
-- rule (src/search/balance_sapp.c). Three independent checks:
--  * the reference's own integer programs (its LP files, as CBC was given
--    them): every plan ndlua returns satisfies every constraint of the LP of
--    its case, with the auxiliary variables at the values ndlua's objective
--    reads, and its objective is the LP's pipeline_total_time;
--  * the bar of issue 32: llama2_70b.json at S = 16, m = 32, I = 2, 56 000 MB
--    (-O 2), proved optimal at or below CBC's 73 261.06 after 90 s (its
--    solve time is measured by make bench, not asserted here);
--  * exhaustive enumeration of small problems with the rule written again
--    here from the digest (../shared/reference/sapp-ppb/README.md).

local core = require("nd.core")
local balance = require("nd.balance")
local agree = dofile("spec/support/balance_agree.lua")

local REF = "spec/fixtures/sapp-ppb/"
local OPT_INDEX = { off = 0, selective = 1, comm = 2, both = 3, full = 4 }

local function have(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end

local function read(path)
  local f = assert(io.open(path))
  local t = f:read("a")
  f:close()
  return t
end

-- The LP's constraints: {terms = {{coef, var}}, op, rhs}.
local function parse_lp(text)
  local body = text:match("Subject To(.-)Bounds")
  local cons = {}
  for chunk in (body .. "\n_C0:"):gmatch("_C%d+:(.-)\n%f[_]") do
    local expr = chunk:gsub("\n", " ")
    local lhs, op, rhs = expr:match("^(.-)%s*([<>=]=?)%s*([-%d%.e]+)%s*$")
    assert(lhs, "unparsed constraint: " .. expr)
    local terms = {}
    local s = " " .. lhs
    for sign, coef, var in s:gmatch("%s*([-+]?)%s*([%d%.e]*)%s*([%a_][%w_]*)") do
      local c = tonumber(coef ~= "" and coef or "1")
      if sign == "-" then c = -c end
      terms[#terms + 1] = { c, var }
    end
    cons[#cons + 1] = { terms = terms, op = op, rhs = tonumber(rhs) }
  end
  return cons
end

-- The values of the LP's variables for ndlua's plan, from the rule's
-- definitions (the digest): counts, then the auxiliaries at their least.
local function lp_values(p, plan, body_name)
  local S, I, m, fwd = p.stages, p.chunks, p.micro, p.layer.fwd
  local val = {}
  local F, Fb, A, W0 = {}, {}, {}, 0
  for s = 1, S do
    F[s], Fb[s], A[s] = {}, {}, {}
    for v = 1, I do
      local c, a = 0, 0
      for name, x in pairs(plan.cells[s][v]) do
        val[("%s_%d_%d_%d"):format(body_name, OPT_INDEX[name], v - 1, s - 1)] = x
        c = c + x
        a = a + x * p.layer.act[name]
        if v == 1 then W0 = W0 + x * p.layer.time[name] end
      end
      Fb[s][v] = c * fwd
      F[s][v] = c * fwd
      if p.head and v == 1 and s == 1 then F[s][v] = F[s][v] + p.head.fwd end
      if p.tail and v == I and s == S then F[s][v] = F[s][v] + p.tail.fwd end
      A[s][v] = a
    end
  end
  if p.head then W0 = W0 + p.head.time end
  local W = 0
  for s = 1, S do W = W + plan.stage_time[s] * 0 end
  local tmax = 0
  for s = 1, S do
    local fm, bm, w = 0, 0, 0
    for v = 1, I do
      local b = 0
      for name, x in pairs(plan.cells[s][v]) do
        b = b + x * (p.layer.time[name] - fwd)
        w = w + x * p.layer.time[name]
      end
      if p.head and v == 1 and s == 1 then b, w = b + p.head.time - p.head.fwd, w + p.head.time end
      if p.tail and v == I and s == S then b, w = b + p.tail.time - p.tail.fwd, w + p.tail.time end
      fm, bm = math.max(fm, F[s][v]), math.max(bm, b)
    end
    W = W + w
    tmax = math.max(tmax, fm + bm)
  end
  val.max_stage_time, val.var_sum_FPi_BPi = tmax, W
  local total = W + (m - 2) * tmax
  if I == 2 then
    val.chunks_sum_0 = W0 / S
    local run, sum = 0, 0
    for s = 1, S do
      run = math.max(run, Fb[s][1])
      val["max_prev_stages_0_" .. (s - 1)] = run
      if s > 1 then
        local d = math.max(0, val["max_prev_stages_0_" .. (s - 2)] - Fb[s][1])
        val["diff_with_prev_stages_0_" .. (s - 1)] = d
        sum = sum + d
      end
    end
    val.prev_diff_0 = m * sum
    total = total + val.chunks_sum_0 + val.prev_diff_0
  end
  local run, sum = 0, 0
  for s = S, 1, -1 do
    run = math.max(run, F[s][I])
    val["max_next_stages_" .. (s - 1)] = run
    if s < S then
      local d = math.max(0, val["max_next_stages_" .. s] - F[s][I])
      val["diff_with_next_stages_" .. (s - 1)] = d
      sum = sum + d
    end
  end
  val.next_diff = m * sum
  total = total + val.next_diff
  for s = 1, S do
    local f = I == 2 and (S - math.abs(S - 2 * (s - 1) - 1)) or 0
    val["memory_overhead_" .. (s - 1)] = I == 2 and math.max(0, f * (A[s][1] - A[s][2])) or 0
  end
  val.pipeline_total_time = total
  return val
end

local function check_lp(cons, val)
  for i, c in ipairs(cons) do
    local lhs = 0
    for _, t in ipairs(c.terms) do
      local v = val[t[2]]
      if v == nil then v = 0 end -- a count the plan leaves at zero
      lhs = lhs + t[1] * v
    end
    local tol = 1e-6 * math.max(1, math.abs(c.rhs))
    if c.op == ">=" then assert(lhs >= c.rhs - tol, ("constraint %d: %s >= %s"):format(i, lhs, c.rhs)) end
    if c.op == "<=" then assert(lhs <= c.rhs + tol, ("constraint %d: %s <= %s"):format(i, lhs, c.rhs)) end
    if c.op == "=" then assert(math.abs(lhs - c.rhs) <= tol, ("constraint %d: %s = %s"):format(i, lhs, c.rhs)) end
  end
end

local function solve_file(file, S, m, I, limit, level)
  local p = balance.from_sapp(core.json.load(REF .. file), { stages = S, micro = m, chunks = I, limit = limit, level = level })
  return p, core.balance(p)
end

local describe_ref = have(REF .. "llama2_70b.json") and describe or pending

describe_ref("balance --objective sapp against the reference's LP files", function()
  for _, case in ipairs {
    { lp = "llama2_70b_s16_m32_i1_56000MB_O2.lp", S = 16, m = 32, I = 1, limit = 56000 },
    { lp = "llama2_70b_s16_m32_i2_40000MB_O2.lp", S = 16, m = 32, I = 2, limit = 40000 },
  } do
    it("satisfies every constraint of " .. case.lp .. " at its objective", function()
      local p, plan = solve_file("llama2_70b.json", case.S, case.m, case.I, case.limit, 2)
      assert.is_true(plan.feasible and plan.optimal)
      local val = lp_values(p, plan, "LLamaDecodeLayer")
      check_lp(parse_lp(read(REF .. case.lp)), val)
      assert.near(val.pipeline_total_time, plan.objective, 1e-6 * plan.objective)
    end)
  end

  it("proves 70B at S=16 m=32 I=2 56000 MB optimal below CBC's 73261.06", function()
    -- CBC's answer after its 90 s limit, from the digest (15 % gap left open).
    local _, plan = solve_file("llama2_70b.json", 16, 32, 2, 56000, 2)
    assert.is_true(plan.feasible and plan.optimal)
    assert.is_true(plan.objective <= 73261.06, tostring(plan.objective))
    -- The bar's "in under 1 s" is measured by make bench (scripts/bench.lua
    -- balance), never here. What the time follows, and what no load moves, is
    -- the number of bounds on the slowest stage the proof tries: 16 when the
    -- solver landed (263eef9); more than 24 means its pruning got worse.
    assert.is_true(plan.explored <= 24, "bounds tried: " .. plan.explored)
  end)

  it("proves 70B at S=4 m=8 I=2 64000 MB trying few bounds on the slowest stage", function()
    -- At m = 8 the (m - 2) * T_max weight is small next to W + C + P + Q, so
    -- many bounds on T_max lie between the least feasible one and the largest
    -- that could still win: going up one by one the proof tried 124 of them
    -- (notes of balance32, 2026-12-07) to reach 68508.25. Halving the range,
    -- and passing over a part whose least W + C + P + Q at its top plus
    -- (m - 2) * its bottom cannot win, reaches the same optimum trying 12.
    local _, plan = solve_file("llama2_70b.json", 4, 8, 2, 64000, 2)
    assert.is_true(plan.feasible and plan.optimal)
    assert.near(68508.25, plan.objective, 1e-9 * 68508.25)
    assert.is_true(plan.explored <= 16, "bounds tried: " .. plan.explored)
  end)

  it("finds no plan for demo.json at S=8 m=16 I=1 under 30000 MB and names the stage", function()
    -- By hand: stage 0 keeps min(8, 16) = 8 micro-batches and holds HEAD
    -- (4245 MB), TAIL's parameters again (1203, the reference's quirk) and at
    -- least one body layer: 2141 + 8 x 511 (both, the least activation)
    -- = 11677; 96 layers over 8 stages cannot fit 30 GB, so some stage fails
    -- or the capacity is short; either way no plan and proved.
    local _, plan = solve_file("demo.json", 8, 16, 1, 30000, 2)
    assert.is_false(plan.feasible)
    assert.is_true(plan.optimal)
    assert.is_true(plan.capacity ~= nil or plan.bad_stage ~= nil)
  end)
end)

-- ---- exhaustive enumeration with the rule written again from the digest ----

local OPTIONS = agree.OPTIONS

-- The digest's objective and memory of one complete plan (cells[s][v][name]).
local function sapp_value(p, cells)
  local S, I, m, fwd = p.stages, p.chunks, p.micro, p.layer.fwd
  local W, C, tmax, Fb, F = 0, 0, 0, {}, {}
  for s = 1, S do
    local mem, fm, bm = 0, 0, 0
    local A = {}
    if p.head and s == 1 then mem = mem + p.head.stat end
    if p.tail and s == S then mem = mem + p.tail.stat end
    if p.tail and s == 1 and S > 1 then mem = mem + p.tail.stat end -- the quirk
    Fb[s], F[s] = {}, {}
    for v = 1, I do
      local n, c, a, b, w = p.inflight[s][v], 0, 0, 0, 0
      for name, x in pairs(cells[s][v]) do
        c, a = c + x, a + x * p.layer.act[name]
        b, w = b + x * (p.layer.time[name] - fwd), w + x * p.layer.time[name]
      end
      local held, f = c, c * fwd
      if p.head and v == 1 and s == 1 then held, f, b, w = held + 1, f + p.head.fwd, b + p.head.time - p.head.fwd, w + p.head.time end
      if p.tail and v == I and s == S then held, f, b, w = held + 1, f + p.tail.fwd, b + p.tail.time - p.tail.fwd, w + p.tail.time end
      if held < 1 then return nil end
      mem = mem + c * p.layer.stat + n * a
      A[v] = a
      Fb[s][v], F[s][v] = c * fwd, f
      fm, bm = math.max(fm, f), math.max(bm, b)
      W = W + w
      if I == 2 and v == 1 then C = C + w / S end
    end
    if I == 2 and m ~= S then mem = mem + (S - math.abs(S - 2 * (s - 1) - 1)) * math.max(0, A[1] - A[2]) end
    if mem > p.limit then return nil end
    tmax = math.max(tmax, fm + bm)
  end
  if p.sapp_level < 2 then return tmax end
  local P, Q = 0, 0
  if I == 2 then
    local run = Fb[1][1]
    for s = 2, S do
      P = P + m * math.max(0, run - Fb[s][1])
      run = math.max(run, Fb[s][1])
    end
  end
  local run = F[S][I]
  for s = S - 1, 1, -1 do
    Q = Q + m * math.max(0, run - F[s][I])
    run = math.max(run, F[s][I])
  end
  return W + C + P + Q + (m - 2) * tmax
end

local function enumerate(p)
  local S, I = p.stages, p.chunks
  local offered = {}
  for _, name in ipairs(OPTIONS) do
    if p.layer.act[name] then offered[#offered + 1] = name end
  end
  local cells = {}
  for s = 1, S do
    cells[s] = {}
    for v = 1, I do cells[s][v] = {} end
  end
  local order = {}
  for v = 1, I do
    for s = 1, S do order[#order + 1] = { s, v } end
  end
  local best
  local function place(ci, left)
    if ci > #order then
      if left ~= 0 then return end
      local val = sapp_value(p, cells)
      if val and (best == nil or val < best) then best = val end
      return
    end
    local s, v = order[ci][1], order[ci][2]
    local cell = cells[s][v]
    for k = 0, left do
      local function opts(j, rest)
        local name = offered[j]
        if j == #offered then
          cell[name] = rest
          place(ci + 1, left - k)
          return
        end
        for x = 0, rest do
          cell[name] = x
          opts(j + 1, rest - x)
        end
      end
      opts(1, k)
    end
    for _, name in ipairs(offered) do cell[name] = nil end
  end
  place(1, p.body)
  return best
end

describe("balance --objective sapp against exhaustive enumeration", function()
  it("agrees on 120 random problems (S <= 4, I 1/2, -O 0/1/2)", function()
    local r = agree.rng(32032)
    local done, feasible = 0, 0
    while done < 120 do
      local S, I = r(1, 4), r(1, 2)
      local R = 0
      local layer = { stat = r(0, 5), fwd = r(1, 4), act = {}, time = {} }
      for _, name in ipairs(OPTIONS) do
        if r(0, 2) == 0 or (name == "full" and R == 0) then
          layer.act[name] = r(0, 9)
          layer.time[name] = layer.fwd + r(1, 8)
          R = R + 1
        end
      end
      local N = r(math.max(0, S * I - 2), S * I + (R <= 2 and 4 or 2))
      local m = r(S, 2 * S + 2)
      if I == 2 and m == S then m = S + 1 end -- the m = S bound is not reproduced
      local p = {
        stages = S, chunks = I, micro = m, body = N, layer = layer,
        head = { stat = r(0, 9), act = 0, fwd = 1, time = 3 },
        tail = { stat = r(0, 9), act = 0, fwd = 2, time = 6 },
        tail_stage = S, inflight = balance.sapp_inflight(S, I, m, "1f1b"),
        objective = "sapp", sapp_level = r(0, 2), limit = r(10, 30 + 10 * N),
      }
      if agree.space(p) <= 20000 then
        done = done + 1
        local want = enumerate(p)
        local got = core.balance(p)
        local where = ("problem %d: S=%d I=%d N=%d m=%d limit=%d -O%d"):format(done, S, I, N, m, p.limit, p.sapp_level)
        if agree.agrees(want, got, where) then
          feasible = feasible + 1
          agree.near(want, sapp_value(p, got.cells), where)
        end
      end
    end
    assert.is_true(feasible >= 40, "feasible " .. feasible)
  end)
end)
