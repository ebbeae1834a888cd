-- compare.lua's pieces (issue 33 item 1): the measured-file readers
-- (nd.compare.measured) and the calibration (nd.compare.calibration).
-- Expected values come from the fixture files' own text
-- (spec/fixtures/compare/, each number named by where it is) and from
-- arithmetic done here by hand; MB and M in the logs are 2^20 bytes
-- (Megatron-LM's report_memory divides by 1024 x 1024; MindSpore prints M
-- for MiB).
local measured = require "nd.compare.measured"
local calibration = require "nd.compare.calibration"

local F = "spec/fixtures/compare/"
local MiB, GiB = 2 ^ 20, 2 ^ 30

local function tmpfile(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

describe("nd.compare.measured", function()
  it("reads Megatron-LM's report_memory lines: max allocated and max reserved, in MB", function()
    local recs, format = measured.read(F .. "megatron-pp2.log", {})
    assert.are.equal("megatron", format)
    local by = {}
    for _, r in ipairs(recs) do by[r.rank == nil and "none" or r.rank] = r end
    -- L2: [Rank 0] ... max allocated: 47493.2060546875 | ... max reserved: 50330.0
    assert.are.equal(47493.2060546875 * MiB, by[0].allocated)
    assert.are.equal(50330.0 * MiB, by[0].reserved)
    -- L3: [Rank 4] ... max allocated: 39801.5
    assert.are.equal(39801.5 * MiB, by[4].allocated)
    -- L1, L4-6: 3210.4, 1523.8, 1519.2, 1526.0 ms: the first left out, the median of the rest 1523.8 ms
    assert.is_true(math.abs(by.none.step_s - 1.5238) < 1e-12)
  end)

  it("reads the PR #482 figure written as Megatron prints it: 69.1 GB = 69.1e9 bytes", function()
    local recs = measured.read(F .. "megatron-pr482-dp8.log", {})
    assert.are.equal(1, #recs)
    assert.are.equal(0, recs[1].rank)
    assert.is_true(math.abs(recs[1].allocated - 69.1e9) < 1)
  end)

  it("reads torch.cuda.memory_stats() dumps, the rank from the file name", function()
    local recs, format = measured.read(F .. "memory_stats_rank16.json", {})
    assert.are.equal("pytorch", format)
    assert.are.equal(16, recs[1].rank)
    -- "allocated_bytes.all.peak" and "reserved_bytes.all.peak" of the file
    local doc = require("nd").json.load(F .. "memory_stats_rank16.json")
    assert.are.equal(doc["allocated_bytes.all.peak"], recs[1].allocated)
    assert.are.equal(doc["reserved_bytes.all.peak"], recs[1].reserved)
  end)

  it("reads max_memory_allocated lists with ranks and step times", function()
    local path = tmpfile('[{"rank": 0, "max_memory_allocated": 1073741824, "step_time_s": 1.5},\n'
      .. ' {"rank": 1, "max_memory_allocated": 2147483648, "max_memory_reserved": 3221225472}]\n')
    local recs = measured.read(path, {})
    os.remove(path)
    assert.are.same({ 0, GiB, 1.5 }, { recs[1].rank, recs[1].allocated, recs[1].step_s })
    assert.are.same({ 1, 2 * GiB, 3 * GiB }, { recs[2].rank, recs[2].allocated, recs[2].reserved })
  end)

  it("reads one run of the H200 traces (--run), and refuses to guess among several", function()
    local path = "spec/validation/data/h200-torchtitan-expandable.json"
    local recs = measured.read(path, { run_index = 1 })
    -- runs[1]: peak_allocated 42241745408, peak_reserved 54280585216, step_time_median_s 0.17522716500000257
    assert.are.same({ 42241745408, 54280585216 }, { recs[1].allocated, recs[1].reserved })
    assert.are.equal(0.17522716500000257, recs[1].step_s)
    local ok, err = pcall(measured.read, path, {})
    assert.is_false(ok)
    assert.matches("--run N chooses one", err.message, 1, true)
  end)

  it("reads MindSpore's peak lines and MindFormers' per_step_time, the device from the file name", function()
    local recs, format = measured.read(F .. "worker_5.log", {})
    assert.are.equal("mindspore", format)
    assert.are.equal(5, recs[1].rank)
    -- Used peak memory usage (without fragments): 36188M; Actual ... (with fragments): 38512M
    assert.are.same({ 36188 * MiB, 38512 * MiB }, { recs[1].allocated, recs[1].reserved })
    -- per_step_time 48195, 1052, 1047, 1049 ms: the median after the first, 1049 ms
    assert.is_true(math.abs(recs[1].step_s - 1.049) < 1e-12)
  end)

  it("reads torchtitan's metrics lines: the reserved peak in GiB, the step from tps", function()
    -- one device, one sequence of 8192 tokens a step
    local recs, format = measured.read(F .. "torchtitan-h200-4l-b1.log", { tokens_per_step = 8192, devices = 1 })
    assert.are.equal("torchtitan", format)
    assert.are.equal(0, recs[1].rank)
    assert.are.equal(50.55 * GiB, recs[1].reserved) -- steps 2-6: memory: 50.55GiB
    -- tps of steps 2-6: 39,759 46,867 45,542 46,751 46,822: the median 46,751 -> 8192 / 46751 s
    assert.is_true(math.abs(recs[1].step_s - 8192 / 46751) < 1e-15)
  end)

  it("reads the classified CSV's row of the run's layout, in ms", function()
    local recs, format = measured.read(F .. "llama70b-real.csv", { run = { dp = 2, tp = 8, pp = 4, cp = 1, ep = 1 } })
    assert.are.equal("csv", format)
    assert.are.equal(1, #recs)
    -- L3: DP 2 MP 8 PP 4 ... time 9418.207, comp 6904.516, dp_wait 288.930, mp_wait 973.482, pp_wait 812.604,
    -- op_wait 131.071
    assert.is_true(math.abs(recs[1].step_s - 9.418207) < 1e-12)
    assert.is_true(math.abs(recs[1].parts.comp - 6.904516) < 1e-12)
    assert.is_true(math.abs(recs[1].parts.op_wait - 0.131071) < 1e-12)
    local ok, err = pcall(measured.read, F .. "llama70b-real.csv", { run = { dp = 16, tp = 1, pp = 4 } })
    assert.is_false(ok)
    assert.matches("no row states the layout compared", err.message, 1, true)
  end)

  it("refuses a file in no format it reads, listing the forms", function()
    local path = tmpfile("hello\n")
    local ok, err = pcall(measured.read, path, {})
    os.remove(path)
    assert.is_false(ok)
    assert.matches("is in no measured format ndlua reads", err.message, 1, true)
  end)
end)

describe("nd.compare.calibration", function()
  -- One stage of parts (GiB): 2 + 2 + 12 + 20 + 1 + 1 = 38.
  local function stage(act_ratio, over_ratio)
    local s = { params = 2 * GiB, grads = 2 * GiB, optimizer = 12 * GiB, main_params = 0,
                activations = 20 * GiB, comm = 1 * GiB, backward_overhead = 1 * GiB, reserve = GiB }
    s.allocated = 38 * GiB
    s.reserved, s.total = s.allocated, s.allocated + GiB
    return s, 38 * GiB + (act_ratio - 1) * 20 * GiB + (over_ratio - 1) * GiB
  end

  it("splits a stage into the six parts, which add up to the metric", function()
    local s = stage(1, 1)
    local p, whole = calibration.memory_parts(s, "allocated")
    assert.are.same({ 2 * GiB, 2 * GiB, 12 * GiB, 20 * GiB, GiB, GiB },
                    { p.parameters, p.gradients, p.optimizer, p.activations, p.communication, p.overhead })
    assert.are.equal(38 * GiB, whole)
  end)

  it("fits one stage by the least change: each ratio moves by its part's share of the squares", function()
    -- one row: delta_p = e_p (m - E) / sum(e^2); m - E = 2 GiB; sum of squares 4+4+144+400+1+1 = 554 GiB^2
    local s, m = stage(1.1, 1) -- measured 40 GiB
    local p, whole = calibration.memory_parts(s, "allocated")
    local r, how = calibration.fit_memory { { parts = p, estimate = whole, measured = m } }
    assert.are.equal("exact", how)
    assert.is_true(math.abs(r.activations - (1 + 20 * 2 / 554)) < 1e-12)
    assert.is_true(math.abs(r.optimizer - (1 + 12 * 2 / 554)) < 1e-12)
    assert.is_true(math.abs(r.overhead - (1 + 1 * 2 / 554)) < 1e-12)
  end)

  it("finds the ratios back from stages that differ (the fixture's pipeline: activations x1.07, overhead x1.5)", function()
    -- four stages of examples/llama-3.1-70b-tp-pp-sp at their estimate, measured as if activations took 7 %
    -- and the overhead 50 % more: two directions of change, four stages; the least change is those two
    local rows = {}
    for i, act in ipairs({ 20, 15, 10, 5 }) do
      local parts = { parameters = 2 * GiB, gradients = 2 * GiB, optimizer = 12 * GiB, activations = act * GiB,
                      communication = GiB // 2, overhead = (i == 4 and 2 or 1) * GiB }
      local e = 0
      for _, v in pairs(parts) do e = e + v end
      rows[i] = { parts = parts, estimate = e, measured = e + 0.07 * parts.activations + 0.5 * parts.overhead }
    end
    local r = calibration.fit_memory(rows)
    -- not unique (six parts, four stages): the least change keeps the parts no stage tells apart at 1
    for _, p in ipairs({ "parameters", "gradients", "optimizer", "communication" }) do
      assert.is_true(math.abs(r[p] - 1) < 0.01, p .. " " .. r[p])
    end
    assert.is_true(math.abs(r.activations - 1.07) < 0.01, r.activations)
    assert.is_true(math.abs(r.overhead - 1.5) < 0.05, r.overhead)
    -- and it makes every stage its measurement
    for _, row in ipairs(rows) do
      local v = 0
      for p, x in pairs(row.parts) do v = v + x * r[p] end
      assert.is_true(math.abs(v - row.measured) < 1e-3 * GiB)
    end
  end)

  it("lays ratios on a stage: fields, allocated, reserved and total move by the change", function()
    local s = stage(1, 1)
    local mem = { metric = "allocated", parameters = 1, gradients = 1, optimizer = 1.5, activations = 1.1,
                  communication = 1, overhead = 2 }
    local c = calibration.stage(s, mem)
    -- optimizer 12 -> 18, activations 20 -> 22, overhead 1 -> 2: +9 GiB
    assert.are.same({ 18 * GiB, 22 * GiB, 2 * GiB }, { c.optimizer, c.activations, c.backward_overhead })
    assert.are.same({ 47 * GiB, 47 * GiB, 48 * GiB }, { c.allocated, c.reserved, c.total })
  end)

  it("fits time per part from the classified CSV's columns, as the reference's ratios (comp, waits)", function()
    local parts = { forward_s = 1, backward_s = 2, recompute_s = 0.5, optimizer_s = 0.5, dp_s = 0.4, tp_s = 0.2,
                    cp_s = 0, ep_s = 0, pp_s = 0.1, bubble_s = 0.3 }
    local t = calibration.fit_time(parts, 5, { comp = 4.4, dp_wait = 0.3, op_wait = 0.2, mp_wait = 0.1,
                                               sp_wait = 0.1, ep_wait = 0, cp_wait = 0, pp_wait = 0.6 })
    assert.is_true(math.abs(t.COMPUTE - 4.4 / 4) < 1e-12) -- comp over forward + backward + recompute + optimizer
    assert.is_true(math.abs(t.DP_COMM - 0.5 / 0.4) < 1e-12) -- dp_wait + op_wait over dp
    assert.is_true(math.abs(t.MP_COMM - 0.2 / 0.2) < 1e-12)
    assert.is_true(math.abs(t.PP_COMM - 0.6 / 0.4) < 1e-12) -- pp_wait over pp + bubble
    assert.are.equal(t.PP_COMM, t.BUBBLE)
    assert.are.equal(t.COMPUTE, t.EP_COMM) -- priced at nothing: compute's ratio
    -- the step alone: one ratio, measured over estimated (5 / 5)
    local one = calibration.fit_time(parts, 6, nil)
    assert.is_true(math.abs(one.COMPUTE - 6 / 5) < 1e-12)
    assert.are.equal(one.COMPUTE, one.BUBBLE)
  end)

  it("writes and reads a file; refuses one without ratios", function()
    local path = os.tmpname()
    local cal = { memory = { metric = "reserved", parameters = 1, gradients = 1.1, optimizer = 1, activations = 1.2,
                             communication = 1, overhead = 1 }, fitted_on = { config = "t.yaml" } }
    calibration.write(path, cal)
    local back = calibration.load(path)
    assert.are.same(cal.memory, back.memory)
    assert.is_nil(back.time)
    local f = assert(io.open(path, "w"))
    f:write('{"memory": {"activations": -1}}')
    f:close()
    local ok, err = pcall(calibration.load, path)
    os.remove(path)
    assert.is_false(ok)
    assert.matches("must be a positive number", err.message, 1, true)
  end)
end)
