-- The search space (lua/nd/search.lua) and the engine's rules
-- (nd.core.search, search-ranking-cli §b.3-§b.5): each validity rule and
-- each refusal reason on small spaces whose candidates are listed by hand
-- in the comments, the bounds of §b.2, the global-batch check of §a.4, and
-- the parsing of -l and recompute modes.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local core = require "nd.core"
local search = require "nd.search"
local hardware = require "nd.hardware"
local tiny = dofile("spec/support/tiny.lua")

-- One unbounded level: the machine bounds no pipeline below N.
local FLAT = { name = "flat", peak_tflops = 2, sustained_tflops = 1, levels = { { gbps = 1 } },
               overlap = hardware.DEFAULT_OVERLAP, nd_comm_divisor = 1 }

-- A space over a tiny model: `searched` a list of C names; pinned values
-- default to 1 (SP to off); the budget fits everything unless given.
local function space(model, o)
  local set = {}
  for _, d in ipairs(o.searched or {}) do set[d] = true end
  set.MB = true
  return search.space { model = model:spec(), hardware = FLAT, devices = o.devices, global_batch = o.batch,
                        budget_bytes = o.budget or 1e15, searched = set, pinned = o.pinned or {},
                        allowed = o.allowed, recompute = o.recompute or { "off" }, keep_dropped = 10 }
end

local function run_search(model, run, o)
  local sp = space(model, o)
  return core.search(model, nd.run(run or {}), sp), sp
end

-- The fitting candidates in the result's order, as "tp1 pp2 dp4 mb2" strings, or
-- the fields `keys` names ("pp2 vpp1" for {"pp", "vpp"}).
local function listed(result, keys)
  keys = keys or { "tp", "pp", "dp", "mb" }
  local out = {}
  for i = 1, result:size() do
    local c, parts = result:candidate(i), {}
    for k, key in ipairs(keys) do parts[k] = key .. tostring(c[key]) end
    out[i] = table.concat(parts, " ")
  end
  return out
end

describe("the loop nest and the degree rules (§b.3, §b.4 rule 1)", function()
  -- A dense model of 4 layers on 8 devices, a batch of 8, TP and PP searched (and MB, always).
  -- Bounds: TP up to 4 (the KV heads), PP up to min(8 (a flat machine), 4 layers, 8) = 4.
  --   TP 1: PP 1 (DP 8, MB 1), PP 2 (DP 4, MB 2), PP 4 (DP 2, MB 4)
  --   TP 2: PP 1 (DP 4, MB 2: refused, see below), PP 2 (DP 2, MB 4), PP 4 (DP 1, MB 8)
  --   TP 4: PP 1 (DP 2, MB 4: refused), PP 2 (DP 1, MB 8)
  -- 8 tested. A run that accumulates no gradients makes its batch in one micro-batch without PP:
  -- PP 1 with MB > 1 is refused as "a degree out of bounds" (2); 6 priced, in nest order.
  local m = tiny.dense { num_hidden_layers = 4 }

  it("tests every candidate of the nest and refuses MB > 1 without PP or accumulation", function()
    local r, sp = run_search(m, {}, { devices = 8, batch = 8, searched = { "TP", "PP", "DP" } })
    assert.are.equal(4, sp.dims.TP.bound)
    assert.are.equal(4, sp.dims.PP.bound)
    local c = r:counts()
    assert.are.equal(8, c.tested)
    assert.are.same({ ["a degree out of bounds"] = 2 }, c.refused)
    assert.are.equal(6, c.priced)
    assert.are.equal(6, c.fitting)
    assert.are.same({ "tp1 pp1 dp8 mb1", "tp1 pp2 dp4 mb2", "tp1 pp4 dp2 mb4", "tp2 pp2 dp2 mb4", "tp2 pp4 dp1 mb8",
                      "tp4 pp2 dp1 mb8" }, listed(r))
  end)

  it("prices MB > 1 without PP when the run accumulates gradients", function()
    local r = run_search(m, { grad_accumulation = true }, { devices = 8, batch = 8, searched = { "TP", "PP", "DP" } })
    assert.are.equal(8, r:counts().priced)
  end)

  it("refuses MB below PP when PP is searched", function()
    -- batch 4, MBS pinned 1, PP searched up to min(8, 4 layers, 4) = 4:
    --   PP 1 (DP 8, MB 4 // 8 = 0), PP 2 (DP 4, MB 1 < 2), PP 4 (DP 2, MB 2 < 4): all three refused as
    --   out of bounds (MB 0 is below 1, the others below PP)
    local r = run_search(m, { grad_accumulation = true }, { devices = 8, batch = 4, searched = { "PP", "DP" } })
    local c = r:counts()
    assert.are.equal(3, c.tested)
    assert.are.same({ ["a degree out of bounds"] = 3 }, c.refused)
  end)

  it("refuses a TP that is no power of two", function()
    -- 12 devices, batch 12, TP searched (bound 4): TP 1 (DP 12), 2 (DP 6), 3 (DP 4: refused), 4 (DP 3)
    local r = run_search(m, { grad_accumulation = true }, { devices = 12, batch = 12, searched = { "TP", "DP" } })
    local c = r:counts()
    assert.are.equal(4, c.tested)
    assert.are.same({ ["a degree out of bounds"] = 1 }, c.refused)
    assert.are.same({ "tp1 pp1 dp12 mb1", "tp2 pp1 dp6 mb2", "tp4 pp1 dp3 mb4" }, listed(r))
  end)

  it("refuses a DP other than the pinned one when DP is not searched", function()
    -- DP pinned 4: TP 1 (DP 8), TP 2 (DP 4), TP 4 (DP 2): one valid
    local r = run_search(m, { grad_accumulation = true }, { devices = 8, batch = 8, searched = { "TP" },
                                                           pinned = { DP = 4 } })
    assert.are.same({ ["a degree out of bounds"] = 2 }, r:counts().refused)
    assert.are.same({ "tp2 pp1 dp4 mb2" }, listed(r))
  end)

  it("refuses SP with CP above 1 when both are searched", function()
    -- 4 devices, batch 4, CP and SP searched: CP 1, 2, 4 (DP 4, 2, 1) x SP off, on: 6 tested;
    -- CP > 1 with SP on: 2 refused as out of bounds
    local r = run_search(m, { grad_accumulation = true, seq_length = 128 },
                         { devices = 4, batch = 4, searched = { "CP", "SP", "DP" } })
    local c = r:counts()
    assert.are.equal(6, c.tested)
    assert.are.same({ ["a degree out of bounds"] = 2 }, c.refused)
  end)

  it("refuses an OP that is no power of two", function()
    -- 6 devices: DP 6, OP over its divisors 1, 2, 3, 6: 3 and 6 refused
    local r = run_search(m, { grad_accumulation = true }, { devices = 6, batch = 6, searched = { "OP", "DP" } })
    assert.are.same({ ["a degree out of bounds"] = 2 }, r:counts().refused)
  end)

  it("loops VPP from 1 to min(4, PP, L/PP)", function()
    -- 8 devices, PP pinned 2, 4 layers: VPP 1, 2 (min(4, 2, 4 // 2 = 2))
    local r = run_search(m, { grad_accumulation = true }, { devices = 8, batch = 8, searched = { "VPP", "DP" },
                                                           pinned = { PP = 2 } })
    assert.are.equal(2, r:counts().tested)
    assert.are.same({ "pp2 vpp1", "pp2 vpp2" }, listed(r, { "pp", "vpp" }))
  end)
end)

describe("the expert rules (§b.4 rules 2 and 3)", function()
  local moe = tiny.dense { num_experts = 8, num_experts_per_tok = 2, moe_intermediate_size = 128 }

  it("refuses an EP that does not divide the experts", function()
    -- 12 devices, DP 12: EP over the divisors of DP x TP = 12 up to 8 experts: 1, 2, 3, 4, 6;
    -- 3 and 6 do not divide 8
    local r, sp = run_search(moe, { grad_accumulation = true }, { devices = 12, batch = 12, searched = { "EP", "DP" } })
    assert.are.equal(8, sp.dims.EP.bound)
    local c = r:counts()
    assert.are.equal(5, c.tested)
    assert.are.same({ ["EP divisibility"] = 2 }, c.refused)
    assert.are.same({ "ep1", "ep2", "ep4" }, listed(r, { "ep" }))
  end)

  it("refuses an expert width the expert TP does not divide", function()
    -- etp 3: 128 % 3 != 0 for every EP
    local r = run_search(moe, { grad_accumulation = true, etp = 3 }, { devices = 4, batch = 4, searched = { "EP", "DP" } })
    assert.are.same({ ["EP divisibility"] = 3 }, r:counts().refused)
  end)

  it("refuses an EP group the expert shard does not divide (C4)", function()
    -- expert shard 4: DP 8, EP 1, 2, 4, 8: (8/EP) % 4 == 0 for EP 1 and 2 only; EP 1 is exempt
    local r = run_search(moe, { grad_accumulation = true, expert_shard = 4 },
                         { devices = 8, batch = 8, searched = { "EP", "DP" } })
    assert.are.same({ ["EP divisibility"] = 2 }, r:counts().refused)
    assert.are.same({ "ep1", "ep2" }, listed(r, { "ep" }))
  end)

  it("refuses EP over the experts, or any EP on a dense model", function()
    local r = run_search(moe, { grad_accumulation = true }, { devices = 16, batch = 16, searched = { "DP" },
                                                             pinned = { EP = 16 } })
    assert.are.same({ ["EP over the experts or DP x TP"] = 1 }, r:counts().refused)
    r = run_search(tiny.dense(), { grad_accumulation = true }, { devices = 4, batch = 4, searched = { "DP" },
                                                                pinned = { EP = 2 } })
    assert.are.same({ ["EP over the experts or DP x TP"] = 1 }, r:counts().refused)
  end)

  it("refuses EP over DP x TP", function()
    -- 4 devices, DP 4, EP pinned 8 (= the experts): 8 > DP x TP = 4
    local r = run_search(moe, { grad_accumulation = true }, { devices = 4, batch = 4, searched = { "DP" },
                                                             pinned = { EP = 8 } })
    assert.are.same({ ["EP over the experts or DP x TP"] = 1 }, r:counts().refused)
  end)
end)

describe("the CP rules (§b.5)", function()
  local m = tiny.dense()

  it("refuses CP with SP on, a sequence 2·CP does not divide, and Ulysses without the heads", function()
    -- 8 devices, CP searched: 1, 2, 4, 8 (DP 8, 4, 2, 1)
    local base = { grad_accumulation = true, seq_length = 128 }
    local r = run_search(m, base, { devices = 8, batch = 8, searched = { "CP", "DP" }, pinned = { SP = true } })
    assert.are.same({ ["CP constraints"] = 3 }, r:counts().refused)
    -- sequence 24: 24 % 16 != 0 for CP 8
    base.seq_length = 24
    r = run_search(m, base, { devices = 8, batch = 8, searched = { "CP", "DP" } })
    assert.are.same({ ["CP constraints"] = 1 }, r:counts().refused)
    -- Ulysses, 4 KV heads, sequence 128: CP 8 > 4 heads
    r = run_search(m, { grad_accumulation = true, seq_length = 128, cp_algo = "ulysses_cp" },
                   { devices = 8, batch = 8, searched = { "CP", "DP" } })
    assert.are.same({ ["CP constraints"] = 1 }, r:counts().refused)
  end)
end)

describe("the candidate lists of a search config (filtered out) and the global batch (§b.4 rule 5)", function()
  local m = tiny.dense { num_hidden_layers = 4 }

  it("refuses degrees outside the allowed list", function()
    -- TP 1, 2, 4 with only 2 allowed
    local r = run_search(m, { grad_accumulation = true }, { devices = 8, batch = 8, searched = { "TP", "DP" },
                                                           allowed = { TP = { 2 } } })
    assert.are.same({ ["filtered out"] = 2 }, r:counts().refused)
    assert.are.same({ "tp2 pp1 dp4 mb2" }, listed(r))
  end)

  it("refuses a candidate whose DP x MB x MBS is not the batch", function()
    -- 8 devices, batch 12, TP searched: TP 1 (DP 8, MB 12 // 8 = 1: 8), TP 2 (DP 4, MB 3: 12),
    -- TP 4 (DP 2, MB 6: 12): the first makes 8
    local r = run_search(m, { grad_accumulation = true }, { devices = 8, batch = 12, searched = { "TP", "DP" } })
    assert.are.same({ ["global batch"] = 1 }, r:counts().refused)
    assert.are.same({ "tp2 pp1 dp4 mb3", "tp4 pp1 dp2 mb6" }, listed(r))
  end)
end)

describe("pricing against the budget, and the recompute modes", function()
  local m = tiny.dense { num_hidden_layers = 4 }

  it("prices each candidate under each mode, off first", function()
    local r = run_search(m, { grad_accumulation = true }, { devices = 2, batch = 2, searched = { "TP", "DP" },
                                                           recompute = { "off", "selective", "full" } })
    local c = r:counts()
    assert.are.equal(6, c.tested)
    local out = {}
    for i = 1, r:size() do
      local x = r:candidate(i)
      out[i] = "tp" .. x.tp .. " " .. x.recompute
    end
    assert.are.same({ "tp1 off", "tp1 selective", "tp1 full", "tp2 off", "tp2 selective", "tp2 full" }, out)
  end)

  it("drops every candidate over the budget, keeping examples and the lightest", function()
    local r = run_search(m, { grad_accumulation = true }, { devices = 2, batch = 2, searched = { "TP", "DP" },
                                                           budget = 1 })
    local c = r:counts()
    assert.are.equal(2, c.dropped)
    assert.are.equal(0, c.fitting)
    local drops = r:dropped()
    assert.are.equal(2, #drops)
    local lightest = r:lightest()
    assert.are.equal(math.min(drops[1].peak_bytes, drops[2].peak_bytes), lightest.peak_bytes)
    assert.are.equal(lightest.peak_bytes - 1, lightest.overshoot_bytes)
  end)
end)

describe("the bounds (§b.2)", function()
  local ds = nd.model("deepseek-ai/DeepSeek-V3", { warnings = require("nd.warnings").quiet() }):spec()

  it("PP up to min(the machine's, L // vpp0, B); EP up to the experts; TP up to the KV heads", function()
    local all = search.parse_dims(nil)
    -- DeepSeek-V3 (catalog): 61 layers + 1 MTP = 62, 256 routed experts, 128 KV heads
    local b = search.bounds { model = ds, hardware = hardware.load("A3"), devices = 1024, global_batch = 2048,
                              searched = all, pinned = {} }
    assert.are.equal(16, b.PP.value)
    assert.are.equal(256, b.EP.value)
    assert.are.equal(128, b.TP.value)
    -- A2, 1024 devices: the machine's 128, L // 1 = 62: 62
    b = search.bounds { model = ds, hardware = hardware.load("A2"), devices = 1024, global_batch = 2048,
                        searched = all, pinned = {} }
    assert.are.equal(62, b.PP.value)
    assert.are.equal("bounds: PP up to 62 (the machine's 128, 62 layers over VPP 1, a batch of 2048); EP up to 256 "
      .. "(the model's experts); TP up to 128 (the model's KV heads)", search.bounds_text(b))
    -- VPP pinned 2: L // 2 = 31; a batch of 16 bounds it below that
    b = search.bounds { model = ds, hardware = hardware.load("A2"), devices = 1024, global_batch = 16,
                        searched = { PP = true }, pinned = { VPP = 2 } }
    assert.are.equal(16, b.PP.value)
    assert.is_nil(b.EP)
  end)

  it("bounds VPP to 2 under DualPipeV, which runs two chunks a stage", function()
    local b = search.bounds { model = ds, hardware = hardware.load("A2"), devices = 64, global_batch = 64,
                              searched = { VPP = true }, pinned = {}, schedule = "zero_bubble_v" }
    assert.are.equal(2, b.VPP.value)
    assert.is_nil(search.bounds { model = ds, hardware = hardware.load("A2"), devices = 64, global_batch = 64,
                                  searched = { VPP = true }, pinned = {}, schedule = "1f1b" }.VPP)
  end)

  it("bounds a dense model's EP to 1", function()
    local b = search.bounds { model = tiny.dense():spec(), hardware = FLAT, devices = 8, global_batch = 8,
                              searched = { EP = true }, pinned = {} }
    assert.are.equal(1, b.EP.value)
    assert.are.equal("a dense model", b.EP.why)
  end)
end)

describe("the global batch check (§a.4 item 2)", function()
  local m = tiny.dense { num_hidden_layers = 4 }

  it("says which DP x MBS the nest builds when none makes the batch", function()
    -- 8 devices, only DP (8) and MBS pinned 1: DP x MBS = 8; a batch of 12 is no multiple
    local sp = space(m, { devices = 8, batch = 12, searched = { "DP" } })
    local msg = search.batch_problem(sp, true, 16)
    assert.are.equal("no candidate makes a global batch of 12 (the yaml states 16): the candidates the search builds "
      .. "have DP x MBS of 8, and 12 is no whole number of micro-batches of any; state -b as a multiple of one of "
      .. "them, or let DP shrink by naming PP, CP or TP in -l", msg)
    -- with TP searched, DP 4 makes it
    sp = space(m, { devices = 8, batch = 12, searched = { "DP", "TP" } })
    assert.is_nil(search.batch_problem(sp, true))
  end)
end)

describe("-l and the recompute modes", function()
  it("reads a space keyed by the reference's MP as keyed by TP", function()
    local m = tiny.dense { num_hidden_layers = 4 }
    local by_mp = space(m, { devices = 8, batch = 8, searched = { "MP", "DP" }, allowed = { MP = { 2 } } })
    local by_tp = space(m, { devices = 8, batch = 8, searched = { "TP", "DP" }, allowed = { TP = { 2 } } })
    assert.are.same(by_tp, by_mp)
    assert.is_true(by_tp.dims.TP.searched)
    assert.are.same({ 2 }, by_tp.dims.TP.allowed)
    assert.is_nil(by_tp.dims.MP)
  end)

  it("reads dimension names in any case, TP and MP alike, and always adds MB and DP", function()
    assert.are.same({ DP = true, TP = true, MB = true }, search.parse_dims { "dp", "TP" })
    -- DP fills what TP leaves of the devices (issue 14 item 2), named or not
    assert.are.same({ DP = true, TP = true, MB = true }, search.parse_dims { "Mp" })
    local ok, err = pcall(search.parse_dims, { "DP", "XP" })
    assert.is_false(ok)
    assert.matches("-l: 'XP' is no dimension", err.message, 1, true)
  end)

  it("reads modes: auto is all three, none and YAML's false are off, repeats dropped", function()
    local function where(m) error(m, 0) end
    assert.are.same({ "off", "selective", "full" }, search.parse_recompute("auto", where))
    assert.are.same({ "full", "off" }, search.parse_recompute({ "FULL", "none", false }, where))
    local ok, err = pcall(search.parse_recompute, { "half" }, where)
    assert.is_false(ok)
    assert.are.equal("'half' is no recompute mode", err)
  end)
end)
