-- balance_search_spec.lua: search.lua --balance (issue 32 item 4; lua/nd/balance_search.lua).
--
-- Where the expected values come from:
-- * The Llama-3.1-70B example on 64 A3 devices at 40 GiB: evenly split, the
--   layout dp 2, tp 8, pp 4 keeps 4 micro-batches on stage 0 and does not fit
--   at off or selective (49.98 and 40.49 GiB on stage 0, estimate.lua); the
--   search's answer must be a balanced one that fits, and estimate.lua,
--   reading the resolved.yaml the search writes, must give the same
--   per-stage totals and step as the search reports for it (the bar: "the
--   plan written to resolved.yaml is read back by estimate.lua to the same
--   per-stage peaks").
-- * DeepSeek-V3 at 1024 devices: the top candidate's balanced step is no
--   slower than its even split's (the bar), by the search's own numbers.
-- * Bounds (balance_search's rank_by_bounds): the reference is balancing
--   every pipelined candidate (opts.every, no bound); the pruned top k must be
--   the same rows (even-split rank, step, peak, recompute), every floor
--   (result:bound) at most its candidate's even step and its ranked step;
--   on a layout without recompute or CP the pipeline's floor is
--   pipeline_step of every stage at the mean of nd.core.stage_seconds'
--   stage times (timing.c's pipeline_floor_seconds: all its parts then sum
--   over stages), and DP's floor under the HyperParallel runtime (no FSDP
--   prefetch: DP's seconds are the traffic of the stage with the most
--   weights over one bandwidth, linear in its weights) the even split's DP
--   seconds times the stages' mean weights over the most (the estimate's
--   per-stage parameter bytes, bf16 weights: proportional to them); on
--   DeepSeek-V3 at pp 16 the largest stage's floor is the even split's
--   stage of 4 MoE layers (ceil(58 / 16), the pigeonhole) and no table.
package.path = "spec/?.lua;" .. package.path
local nd = require "nd"
local core = require "nd.core"

local NDLUA = os.getenv("NDLUA") or "./ndlua"
local command = require "nd.search.command"
local warnings = require "nd.warnings"
local policies = require "nd.policies"
local outcome = require "nd.search.outcome"
local search = require "nd.search"
local api = require "nd.api"
local balance_search = require "nd.balance_search"
local balance_run = require "nd.balance_run"
local LLAMA = "examples/llama-3.1-70b-tp-pp-sp/train.yaml"
local GIB = 2 ^ 30

local function tmpdir()
  local dir = os.tmpname()
  os.remove(dir)
  assert(core.mkdir_p(dir))
  return dir
end

local function run_json(cmd)
  local h = io.popen(cmd .. " 2>/dev/null")
  local text = h:read("a")
  h:close()
  return nd.json.decode(text)
end

local function sh(cmd)
  local h = io.popen(cmd .. " 2>&1; echo \"rc=$?\"")
  local text = h:read("a")
  h:close()
  return text, tonumber(text:match("rc=(%d+)%s*$"))
end

local LLAMA_ARGS = " -d 64 -b 64 -M 40GB -A A3 --recompute auto -j 1 -v 0"

describe("search.lua --balance", function()
  it("ranks balanced candidates that fit, and resolved.yaml reads back to their stages", function()
    local dir = tmpdir()
    local doc = run_json(NDLUA .. " search.lua " .. LLAMA .. LLAMA_ARGS .. " --balance --json -o " .. dir)
    local top = doc.candidates[1]
    assert.is_truthy(top.balance, "the top candidate is balanced")
    assert.are.same({ 2, 8, 4, 1 }, { top.dp, top.tp, top.pp, top.vpp })
    assert.is_true(top.peak_bytes <= 40 * GIB)
    -- its even split does not fit (stage 0 keeps 4 micro-batches of 80/4 layers)
    assert.is_false(top.balance.even_fits)
    assert.is_true(top.balance.even_peak_bytes > 40 * GIB)
    assert.is_truthy(doc.search.balance)
    assert.is_true(doc.search.balance.balanced >= 1)
    -- every listed candidate fits; the list is in step order
    for i, c in ipairs(doc.candidates) do
      assert.is_true(c.peak_bytes <= 40 * GIB)
      if i > 1 then assert.is_true(c.step_time_s >= doc.candidates[i - 1].step_time_s) end
    end
    local est = run_json(NDLUA .. " estimate.lua " .. dir .. "/resolved.yaml -d 64 -M 40GB -A A3 --json")
    for s = 1, 4 do assert.are.equal(top.balance.stage_bytes[s], est.stages[s].bytes.total) end
    assert.are.equal(top.peak_bytes, est.peak_bytes)
    assert.is_true(math.abs(est.step.step_time_s - top.step_time_s) <= 1e-9 * top.step_time_s)
    os.remove(dir .. "/resolved.yaml")
    os.remove(dir)
  end)

  it("reads balance from a search config and from context.balance", function()
    local dir = tmpdir()
    local cli = run_json(NDLUA .. " search.lua " .. LLAMA .. LLAMA_ARGS .. " --balance --json -o " .. dir)
    local f = assert(io.open(dir .. "/search.yaml", "w"))
    f:write("train_yaml: " .. os.getenv("PWD") .. "/" .. LLAMA .. "\nbalance: true\n")
    f:close()
    local cfg = run_json(NDLUA .. " search.lua -s " .. dir .. "/search.yaml" .. LLAMA_ARGS .. " --json -o " .. dir)
    local ctx = run_json(NDLUA .. " search.lua " .. LLAMA .. LLAMA_ARGS .. " --context.balance=true --json -o " .. dir)
    -- context.balance: the same search; a search config without parallelism
    -- fixes the yaml's degrees, whose layout is the command line's top
    assert.are.equal(#cli.candidates, #ctx.candidates)
    for i, c in ipairs(cli.candidates) do
      assert.are.equal(c.step_time_s, ctx.candidates[i].step_time_s)
      assert.are.equal(c.peak_bytes, ctx.candidates[i].peak_bytes)
    end
    assert.are.equal(cli.candidates[1].step_time_s, cfg.candidates[1].step_time_s)
    assert.are.same(cli.candidates[1].balance, cfg.candidates[1].balance)
    assert.are.equal("the search config's balance", cfg.search.balance.source)
    assert.are.equal("context.balance", ctx.search.balance.source)
    os.remove(dir .. "/search.yaml")
    os.remove(dir .. "/resolved.yaml")
    os.remove(dir)
  end)

  it("writes a ranked candidate's plan with -k", function()
    local dir = tmpdir()
    local out, rc = sh(NDLUA .. " search.lua " .. LLAMA .. LLAMA_ARGS .. " --balance -k 1 -o " .. dir)
    assert.are.equal(0, rc, out)
    local plan = nd.json.load(dir .. "/plan-1.json")
    assert.are.equal(1, plan.rank)
    assert.are.equal(4, plan.problem.stages)
    assert.are.equal(80, plan.problem.body)
    -- every degree the reports show (the search-dimension registry, nd.core.search_columns: dp tp pp
    -- vpp cp ep etp op sp mb mbs) is in the plan, as in --json's candidates, sp and mbs too
    for _, col in ipairs(require("nd.core").search_columns) do
      assert.is_not_nil(plan[col.key], col.key)
    end
    -- the offsets move no layer in or out: they add up to zero
    local sum = 0
    for _, o in ipairs(plan.balance.offset) do sum = sum + o end
    assert.are.equal(0, sum)
    os.remove(dir .. "/plan-1.json")
    os.remove(dir .. "/resolved.yaml")
    os.remove(dir)
  end)

  it("refuses -k without --balance", function()
    local out, rc = sh(NDLUA .. " search.lua " .. LLAMA .. LLAMA_ARGS .. " -k 1 -o /nonexistent")
    assert.are.equal(2, rc)
    assert.matches("search balances none", out, 1, true)
  end)

  it("DeepSeek-V3 on 1024 devices: the top candidate's balanced step is no slower than its even split", function()
    local dir = tmpdir()
    local doc = run_json(NDLUA .. " search.lua examples/deepseek-v3-256/train.yaml -d 1024 -b 2048 -A A3 -M 58GB "
      .. "--recompute auto -j 1 -v 0 --balance --json -o " .. dir)
    local top = doc.candidates[1]
    assert.is_truthy(top.balance)
    -- its even split need not fit: the top, dp 4 x tp 16 x pp 16 x ep 16 (EP past DP), needs 58.84 GiB
    -- evenly split and 57.90 GiB balanced; its even step is priced all the same
    assert.is_boolean(top.balance.even_fits)
    assert.is_true(top.step_time_s <= top.balance.even_step_s)
    -- a gain is stated against an even split that fits
    assert.is_true(top.balance.gain == nil or top.balance.gain >= 1)
    assert.is_true(top.peak_bytes <= 58 * GIB)
    os.remove(dir .. "/resolved.yaml")
    os.remove(dir)
  end)

  -- a search as search.lua runs it (command.prepare, the C search, the
  -- policy's sort), for balance_search.rank
  local function searched(argv)
    local opts = command.read_options(argv)
    local s = command.prepare(opts, warnings.new { echo = false })
    local result = core.search(s.base.model, s.base.run, s.space)
    local function get(i) return search.candidate(result, i, nil, s.spans_cp) end
    policies.apply(result, s.policy, outcome.policy_context(s.base.devices, s.profile, s.budget, s.gbs), get)
    return s, result, get
  end

  local SEARCHES = {
    { top = 3, argv = { LLAMA, "-d", "64", "-b", "64", "-M", "40GB", "-A", "A3" } },
    { top = 5, argv = { "examples/qwen3-30b-a3b-fsdp8/train.yaml", "-d", "16", "-b", "64", "-M", "32GB", "-A", "A3" } },
    { top = 5, argv = { "examples/deepseek-v3-256/train.yaml", "-d", "256", "-b", "512", "-M", "58GB", "-A", "A3",
                        "-l", "DP", "TP", "SP", "PP", "CP", "EP", "OP", "MB", "MBS" } },
  }
  for _, case in ipairs(SEARCHES) do
    it("by bounds: the top " .. case.top .. " of balancing every candidate (" .. case.argv[1] .. " -d "
       .. case.argv[3] .. ")", function()
      local argv = { "--recompute", "auto", "-j", "1", "--balance" }
      for i, a in ipairs(case.argv) do table.insert(argv, i, a) end
      local s, result, get = searched(argv)
      local pruned, info = balance_search.rank(s, result, get, { top = case.top })
      local all = balance_search.rank(s, result, get, { top = math.huge, every = true })
      assert.is_true(info.exact)
      assert.is_true(info.pruned > 0, "the bound prunes some")
      assert.are.equal(0, info.unbalanced)
      assert.are.equal(math.min(case.top, #all), #pruned)
      for i, c in ipairs(pruned) do
        local want = all[i]
        assert.are.same({ want.even_rank, want.step_time_s, want.peak_bytes, want.recompute },
                        { c.even_rank, c.step_time_s, c.peak_bytes, c.recompute }, "row " .. i)
      end
      -- (a bound met exactly, as the largest stage's at an even split of
      -- whole stages, may round a unit in the last place above the step)
      for i = 1, result:size() do
        local floor, step, _, _, pipelined, held = result:bound(i)
        assert.is_true(floor <= step * (1 + 1e-12), "floor of candidate " .. i)
        assert.are.equal(math.max(pipelined, held), floor)
      end
      local hw = balance_run.hardware(s.profile, s.base.run)
      local memory_bound = 0
      for _, c in ipairs(all) do
        local floor, _, _, _, pipelined, held = result:bound(c.even_rank)
        assert.is_true(floor <= c.step_time_s * (1 + 1e-12), "floor of a ranked candidate")
        local r = c.balance_result
        if r then -- a balanced row: its recompute is at least the count's least (balance_run.least_recompute)
          local even = setmetatable({ recompute = c.recompute_priced }, { __index = c })
          local run = api.candidate_run(s.base.run, even)
          local ones = {}
          for k = 1, c.pp do ones[k] = 1 end
          local y = balance_run.least_recompute(r.problem)
          local rerun = core.rerun_seconds(s.base.model, run, hw)[r.family[2]]
          local bound = math.max(pipelined + core.pipeline_step(run, ones) / c.pp * y * rerun, held)
          assert.is_true(bound <= c.step_time_s * (1 + 1e-12), ("bound %.6f s, step %.6f s"):format(bound, c.step_time_s))
          if y > 0 then memory_bound = memory_bound + 1 end
        end
      end
      assert.is_true(memory_bound > 0, "some balanced row must recompute")
    end)
  end

  it("the floor of a layout without recompute or CP: every stage at the mean stage time and weights", function()
    local s, result = searched { LLAMA, "-d", "64", "-b", "64", "-M", "40GB", "-A", "A3", "--recompute", "auto",
                                 "-j", "1", "--balance" }
    local hw = balance_run.hardware(s.profile, s.base.run)
    local checked, below, with_dp = 0, 0, 0
    for i = 1, result:size() do
      local c = result:candidate(i)
      if c.pp > 1 and c.cp == 1 and checked < 12 then
        local run = api.candidate_run(s.base.run, c)
        local x = core.stage_seconds(s.base.model, run, hw)
        local sum = 0
        for _, t in ipairs(x) do sum = sum + t end
        local mean = {}
        for k = 1, #x do mean[k] = sum / #x end
        local e = api.estimate(s.base.model, run)
        local params, most = 0, 0
        for _, st in ipairs(e.stages) do
          params, most = params + st.params, math.max(most, st.params)
        end
        local dp_floor = c.parts.dp_s * params / #e.stages / most
        local want = core.pipeline_step(run, mean) + dp_floor
        local floor, _, _, _, pipelined = result:bound(i)
        -- the estimate's parameter bytes and the time model's weights are
        -- counted apart and differ by small tensors (the last stage's 4096
        -- more bytes at pp 16 tp 2, the final norm beside the head, of its
        -- 2.66e9): within 1e-5 of DP's seconds
        if c.recompute == "off" then
          assert.is_true(math.abs(pipelined - want) <= 1e-12 * want + 1e-5 * c.parts.dp_s,
                         ("candidate %d: %.17g vs %.17g"):format(i, pipelined, want))
          -- 80 layers of one kind split evenly: no stage's floor above the mean
          assert.are.equal(pipelined, floor)
          checked = checked + 1
          if dp_floor > 0 then with_dp = with_dp + 1 end
        else -- the recompute's seconds are not in the floor
          assert.is_true(pipelined < want)
          below = below + 1
        end
      end
    end
    assert.is_true(checked > 0 and below > 0 and with_dp > 0)
  end)

  it("the largest stage's floor: DeepSeek-V3's 58 MoE layers on 16 stages put 4 on one", function()
    -- 61 layers over 16 stages evenly: stages 2-13 hold 4 MoE layers and no
    -- table; any split puts ceil(58 / 16) = 4 MoE layers on some stage, which
    -- takes at least what such a stage takes with no recompute (its parts
    -- grow with its layers): the pipeline step with one stage at that and the
    -- rest sharing the stage times' sum is below every split's step, with
    -- DP's floor added (the pipelined floor less the one at the mean stage)
    local s, result = searched { "examples/deepseek-v3-256/train.yaml", "-d", "1024", "-b", "2048", "-M", "58GB",
                                 "-A", "A3", "--recompute", "auto", "-j", "1", "--balance" }
    local hw = balance_run.hardware(s.profile, s.base.run)
    local checked = 0
    for i = 1, result:size() do
      local c = result:candidate(i)
      if c.pp == 16 and c.vpp == 1 and c.cp == 1 and c.recompute == "off" and checked < 4 then
        local run = api.candidate_run(s.base.run, c)
        local e = api.estimate(s.base.model, run)
        local x = core.stage_seconds(s.base.model, run, hw)
        local sum, four = 0, nil
        for k, st in ipairs(e.stages) do
          sum = sum + x[k]
          local moe, other = 0, 0
          for _, row in ipairs(st.rows) do
            if row.kind:match("moe") then moe = moe + row.count else other = other + 1 end
          end
          if moe == 4 and other == 0 then four = x[k] end
        end
        local one, mean = { four }, {}
        for k = 2, 16 do one[k] = (sum - four) / 15 end
        for k = 1, 16 do mean[k] = sum / 16 end
        local floor, step, _, _, pipelined, held = result:bound(i)
        local dp = pipelined - core.pipeline_step(run, mean)
        local want = core.pipeline_step(run, one) + dp
        assert.is_true(math.abs(held - want) <= 1e-12 * want, ("candidate %d: %.17g vs %.17g"):format(i, held, want))
        assert.is_true(held > pipelined, "above the mean's floor")
        assert.are.equal(held, floor)
        assert.is_true(floor <= step * (1 + 1e-12))
        checked = checked + 1
      end
    end
    assert.are.equal(4, checked)
  end)

  it("FSDP's prefetch (torchtitan): DP's floor held against the pipeline's, below every step", function()
    local s, result = searched { "examples/deepseek-v3-256/train.yaml", "-d", "256", "-b", "512", "-M", "58GB",
                                 "-A", "A3", "--recompute", "auto", "-j", "1", "--runtime", "torchtitan" }
    local held = 0
    for i = 1, result:size() do
      local floor, step, _, _, pipelined, dp = result:bound(i)
      assert.is_true(floor <= step * (1 + 1e-12), "floor of candidate " .. i)
      if dp > pipelined then held = held + 1 end
    end
    assert.is_true(held > 0, "DP's gathers hold some candidates' floor")
  end)

  -- The policies other than throughput (balance_search's rank_by_peaks and
  -- rank_first with fixed keys). The reference is again balancing every
  -- pipelined candidate (opts.every).
  -- * memory (peak first): a candidate's ranked peak is its even split's or
  --   its balanced plan's, and no split with any recompute peaks below its
  --   floor (balance_search.peak_floor). Derivation of the floor, checked by
  --   hand below from nd.estimate's rows (not from result:least_bytes): a
  --   stage's total is at least (1 + fragmentation) x its static bytes and
  --   its activations (each layer's static bytes plus its activation bytes
  --   times the micro-batches its chunk keeps) plus the reserve where it
  --   keeps activations; a layer keeps at least the least of its
  --   activation bytes at off, selective and full, over at least the fewest
  --   micro-batches its stage keeps. For Llama's 80 layers of one kind on
  --   pp 4 (1F1B: 4, 3, 2, 1 micro-batches in flight) with c_s = stat +
  --   act x in_flight_s, any split has a stage of at least 80 / sum_s (1 /
  --   c_s) bytes (the weighted mean with weights 1 / c_s), and one of at
  --   least ceil(80 / 4) x (stat + act x 1) (the pigeonhole), the larger
  --   taken; that stage holds a layer, so its communication buffers (at
  --   least the least layer's) and, on 1F1B with one chunk, its backward's
  --   overhead (its last layer's working set and buffers, overhead_1f1b)
  --   come on top. On the Qwen3-30B 16-device search at 32 GiB, balancing
  --   only the first 64 by rank misses the 5th row (a candidate past #64 by
  --   the even split's rank at 21.06 GiB: balancing every candidate gives it;
  --   that is where a candidate's row takes its plan even when heavier: as
  --   the lighter of its even split and its plan, the even ranks 1-6 are on
  --   top there).
  -- * nd: the ranked key nd_score is the even split's (balance_one sets the
  --   step's and the peak's fields alone), so balancing in rank order until
  --   k rows are kept gives the top of balancing every candidate.
  local function same_top(pruned, all, top)
    assert.are.equal(math.min(top, #all), #pruned)
    for i, c in ipairs(pruned) do
      local want = all[i]
      assert.are.same({ want.even_rank, want.step_time_s, want.peak_bytes, want.recompute },
                      { c.even_rank, c.step_time_s, c.peak_bytes, c.recompute }, "row " .. i)
    end
  end
  -- The search of args under the policy, its top 5 ranked as --balance
  -- ranks it, and every pipelined candidate balanced (the reference).
  local function ranked_both(args, policy)
    local argv = { "--recompute", "auto", "-j", "1", "--balance", "--policy", policy }
    for i, a in ipairs(args) do table.insert(argv, i, a) end
    local s, result, get = searched(argv)
    local pruned, info = balance_search.rank(s, result, get, { top = 5 })
    local all = balance_search.rank(s, result, get, { top = math.huge, every = true })
    return s, result, get, pruned, info, all
  end
  local POLICY_SEARCHES = {
    { LLAMA, "-d", "64", "-b", "64", "-M", "40GB", "-A", "A3" },
    { "examples/qwen3-30b-a3b-fsdp8/train.yaml", "-d", "16", "-b", "64", "-M", "32GB", "-A", "A3" },
    -- --offload: a plan's offloaded layers keep a share of their activations
    -- (balance_run's with_offload), so the floor counts the static bytes alone
    { LLAMA, "-d", "64", "-b", "64", "-M", "40GB", "-A", "A3", "--offload" },
  }
  for _, args in ipairs(POLICY_SEARCHES) do
    it("memory: by peak floors the top 5 of balancing every candidate (" .. table.concat(args, " ") .. ")", function()
      local s, result, get, pruned, info, all = ranked_both(args, "memory")
      assert.is_true(info.exact)
      assert.are.equal("peak", info.by)
      assert.is_true(info.pruned > 0, "the floor prunes some")
      assert.are.equal(0, info.unbalanced)
      same_top(pruned, all, 5)
      -- every pipelined candidate's floor is at most its even split's peak
      -- (one split of its layout), and every balanced row's peak
      local floors = {}
      for i = 1, result:size() do
        local _, _, peak, pp = result:bound(i)
        if pp > 1 then
          floors[i] = balance_search.peak_floor(s.base.model, result, i, get(i), s.balance.link)
          assert.is_true(floors[i] <= peak, ("candidate %d: floor %.0f above its even peak %.0f"):format(i, floors[i], peak))
          assert.is_true(floors[i] > 0)
        end
      end
      local balanced = 0
      for _, c in ipairs(all) do
        if c.balance then
          balanced = balanced + 1
          assert.is_true(floors[c.even_rank] <= c.peak_bytes, "floor of balanced row " .. c.even_rank)
        end
      end
      assert.is_true(balanced > 0)
    end)

    it("nd: in rank order to the top 5, the top of balancing every candidate (" .. table.concat(args, " ") .. ")",
       function()
      local _, _, get, pruned, info, all = ranked_both(args, "nd")
      assert.is_true(info.exact)
      assert.are.equal("order", info.by)
      same_top(pruned, all, 5)
      for _, c in ipairs(all) do -- the key is the even split's, balanced or not
        assert.are.equal(get(c.even_rank).nd_score, c.nd_score)
      end
    end)
  end

  it("memory: the peak floor of Llama's dp 2 tp 8 pp 4 layout, by hand from nd.estimate's rows", function()
    local s, result, get = searched { LLAMA, "-d", "64", "-b", "64", "-M", "40GB", "-A", "A3", "--recompute", "auto",
                                      "-j", "1", "--balance", "--policy", "memory" }
    local at
    for i = 1, result:size() do
      local c = get(i)
      if c.dp == 2 and c.tp == 8 and c.pp == 4 and c.vpp == 1 and c.mbs == 1 and c.recompute == "full" then
        at = i
        break
      end
    end
    assert.is_truthy(at, "the layout is in the search")
    local c = get(at)
    local stat, act, comm, over, inflight, layers, reserve = nil, math.huge, math.huge, math.huge, {}, 0, 0
    for _, mode in ipairs { "off", "selective", "full" } do
      local e = api.estimate(s.base.model, api.candidate_run(s.base.run, setmetatable({ recompute = mode },
                                                                                       { __index = c })))
      layers = 0
      for k, st in ipairs(e.stages) do
        reserve = math.max(reserve, st.reserve)
        for _, row in ipairs(st.rows) do
          if row.kind ~= "embedding" and row.kind ~= "output" then
            stat = row.static_bytes_per_layer
            act = math.min(act, row.activation_bytes_per_layer)
            comm = math.min(comm, row.comm_bytes_per_layer)
            inflight[k] = row.in_flight
            layers = layers + row.count
          end
        end
      end
      -- a middle stage's backward overhead: its last layer's working set and
      -- buffers again (estimate.c overhead_1f1b), the least over the modes
      over = math.min(over, e.stages[2].backward_overhead)
    end
    assert.are.same({ 4, 3, 2, 1 }, inflight) -- 1F1B on 4 stages, 32 micro-batches
    assert.are.equal(80, layers)
    local h = 0
    for k = 1, 4 do h = h + 1 / (stat + act * inflight[k]) end
    local most = math.max(80 / h, 20 * (stat + act * 1))
    -- the stage at that bound holds a layer: its buffers (the least layer's)
    -- and its backward's overhead (a middle stage's least here: the floor
    -- takes the lesser of it and the head's working set, which is larger)
    local want = (1 + (s.base.run:spec().fragmentation or 0)) * (most + comm + over) + reserve
    local floor = balance_search.peak_floor(s.base.model, result, at, c)
    -- the estimate's rows are rounded to a byte a layer; the floor takes 16 B and 1e-12 off
    assert.is_true(math.abs(floor - want) <= 64 + 1e-11 * want, ("floor %.1f, by hand %.1f"):format(floor, want))
    assert.is_true(floor <= c.peak_bytes)
  end)

  -- One row a (layout, plan). On the Qwen3-30B 16-device search at 32 GiB
  -- the layouts below balance (balance_run.solve, asked here directly) to
  -- their even split with no recompute: the plan's offsets are the even
  -- split's (problem.run.offset) and it writes no recompute list. That is
  -- the search's own candidate of those degrees at recompute off, so the
  -- balanced row (taken by the layout's selective or full candidate, slower
  -- at its even split) and that even row list the same layers and
  -- recompute, at the same peak and step. Listing both would put dp 2 tp 4
  -- pp 2 vpp 2 op 2 as #15 (even) and #16 (balanced) of the throughput top
  -- 16, both 26.70 GiB and 2.997 s: the even row alone is listed. (Under
  -- memory it would put dp 1 tp 4 pp 4 vpp 2 op 1 as #45 and #46 of the top
  -- 50 at 24.58 GiB, but a fitting candidate's row is there the lighter of
  -- its even split and its plan, so the selective and full candidates,
  -- lighter evenly split than that plan, keep their split: no such row.)
  local QWEN16 = { "examples/qwen3-30b-a3b-fsdp8/train.yaml", "-d", "16", "-b", "64", "-M", "32GB", "-A", "A3",
                   "--recompute", "auto", "-j", "1", "--balance", "--policy" }
  local function degrees(c)
    return ("dp %d tp %d pp %d vpp %d cp %d ep %d op %d mb %d mbs %d sp %s"):format(c.dp, c.tp, c.pp, c.vpp, c.cp, c.ep,
      c.op, c.mb, c.mbs, tostring(c.sp))
  end
  local DUPLICATES = {
    { policy = "throughput", top = 16, layout = "dp 2 tp 4 pp 2 vpp 2 cp 1 ep 1 op 2 mb 32 mbs 1 sp true" },
  }
  for _, case in ipairs(DUPLICATES) do
    it("one row a (layout, plan): " .. case.layout .. " balances to its even split at off, listed once, as the "
       .. "even row (" .. case.policy .. ")", function()
      local argv = { table.unpack(QWEN16) }
      argv[#argv + 1] = case.policy
      local s, result, get = searched(argv)
      -- the search's candidate of those degrees at recompute off
      local off
      for i = 1, result:size() do
        local c = get(i)
        if degrees(c) == case.layout and c.recompute == "off" then off = c end
      end
      assert.is_truthy(off, "the even candidate at off")
      -- its layout's balanced plan is that split: even offsets, no recompute
      local hw = balance_run.hardware(s.profile, s.base.run)
      local run = api.candidate_run(s.base.run, off):with { device_memory = s.budget }
      local r = balance_run.solve(s.base.model, run, hw)
      assert.is_true(r.feasible)
      assert.are.equal("off", r.changes.recompute)
      assert.are.same(r.problem.run.offset, r.changes.offset)
      assert.are.equal(off.peak_bytes, r.priced.peak)
      assert.is_true(math.abs(r.priced.step - off.step_time_s) <= 1e-9 * off.step_time_s)
      -- listed once, the even row, in the pruned top and balancing every one
      local pruned = balance_search.rank(s, result, get, { top = case.top })
      local all = balance_search.rank(s, result, get, { top = math.huge, every = true })
      for _, list in ipairs { pruned, all } do
        local rows = {}
        for i, c in ipairs(list) do
          if degrees(c) == case.layout and c.recompute == "off" then -- (a balanced row of this plan: "off" too)
            rows[#rows + 1] = { i, c }
          end
        end
        assert.are.equal(1, #rows, case.layout .. " listed once")
        local c = rows[1][2]
        assert.is_nil(c.balance)
        assert.are.equal("off", c.recompute)
        assert.are.equal(off.peak_bytes, c.peak_bytes)
      end
      assert.are.equal(case.top, #pruned)
    end)
  end

  -- The recompute column and the JSON's per-stage counts say what the plan
  -- writes. DeepSeek-V3's first 3 layers are dense (first_k_dense_replace =
  -- 3, the model's config.json); where the even split holds them all on
  -- stage 0 the balancer pins them there and they recompute at the plan's
  -- mode (balance_run.changes adds them to stage 0's list), so a plan none
  -- of whose MoE layers recompute still writes sel_rec [3, 0, ...]: its row
  -- is off+sel, not off, and its balance.recompute (search.lua --json) is
  -- that list, 3 on stage 0, as resolved.yaml writes it (on the DeepSeek-V3
  -- 256-device memory search, dp 1 tp 128 pp 2 vpp 2 at 31.72 GiB writes
  -- selective_recompute [[3, 0], [0, 0]]: off+sel).
  it("a balanced row's recompute is off only where its plan writes no recompute list, and its JSON counts are the "
     .. "written list (DeepSeek-V3's dense layers)", function()
    local s, result, get = searched { "examples/deepseek-v3-256/train.yaml", "-d", "256", "-b", "512", "-M", "58GB",
                                      "-A", "A3", "-l", "DP", "TP", "SP", "PP", "CP", "EP", "OP", "MB", "MBS",
                                      "--recompute", "auto", "-j", "1", "--balance", "--policy", "memory" }
    local all = balance_search.rank(s, result, get, { top = math.huge, every = true })
    local dense_only, seen = 0, false
    for _, c in ipairs(all) do
      if c.balance then
        local ch, r = c.balance_result.changes, c.balance_result
        assert.are.equal(ch.recompute == "off", c.recompute == "off", "row of even rank " .. c.even_rank)
        local written = ch.selective_recompute ~= core.null and ch.selective_recompute or ch.full_recompute
        -- the MoE layers' cells at the plan's mode (the dense prefix is in none)
        local cells, zeros = 0, {}
        for s_ = 1, r.problem.stages do
          for v = 1, r.problem.chunks do cells = cells + (r.plan.cells[s_][v][c.balance.recompute_mode] or 0) end
          zeros[s_] = 0
        end
        if r.problem.chunks > 1 then
          local z = zeros
          zeros = {}
          for v = 1, r.problem.chunks do zeros[v] = z end
        end
        assert.are.same(ch.recompute == "off" and zeros or written, c.balance.recompute,
                        "JSON counts of the row of even rank " .. c.even_rank)
        if ch.recompute ~= "off" and cells == 0 then
          dense_only = dense_only + 1
          local stage0 = type(written[1]) == "table" and written[1][1] or written[1]
          assert.are.equal(3, stage0)
          assert.are.equal(c.balance.recompute_mode == "full" and "off+full" or "off+sel", c.recompute)
        end
        if c.dp == 1 and c.tp == 128 and c.pp == 2 and c.vpp == 2 and ("%.2f"):format(c.peak_bytes / 2 ^ 30) == "31.72"
        then
          seen = true
          assert.are.same({ { 3, 0 }, { 0, 0 } }, c.balance.recompute)
        end
      end
    end
    assert.is_true(dense_only > 0, "some plan recomputes the dense layers alone")
    assert.is_true(seen, "dp 1 tp 128 pp 2 vpp 2 at 31.72 GiB is balanced")
  end)

  -- Balancing never makes a row rank worse under the policy: a candidate
  -- whose even split fits is listed at the better of its even split and
  -- its balanced plan by the policy's order. The balancer minimises the
  -- step, so on the Qwen3-30B 16-device search at 32 GiB the layout dp 1 tp
  -- 4 pp 4 (its candidate at full recompute the search's lightest, 19.06
  -- GiB and 4.139 s evenly split) balances to a plan of 22.77 GiB and 2.714
  -- s (balance_run.solve, asked here): under memory (peak first) the row is
  -- the even split, min(19.06, 22.77) GiB, and it is #1 (were the plan to
  -- take it, it would be #25 of balancing every candidate); under
  -- throughput the plan (2.714 < 4.139 s).
  it("memory: a fitting candidate's row is the lighter of its even split and its plan (dp 1 tp 4 pp 4 full)",
     function()
    local layout = "dp 1 tp 4 pp 4 vpp 1 cp 1 ep 1 op 1 mb 64 mbs 1 sp true"
    local argv = { table.unpack(QWEN16) }
    argv[#argv + 1] = "memory"
    local s, result, get = searched(argv)
    local even, at
    for i = 1, result:size() do
      local c = get(i)
      if degrees(c) == layout and c.recompute == "full" then even, at = c, i end
    end
    assert.are.equal(1, at, "the search's lightest candidate")
    local hw = balance_run.hardware(s.profile, s.base.run)
    local r = balance_run.solve(s.base.model, api.candidate_run(s.base.run, even):with { device_memory = s.budget }, hw)
    assert.is_true(r.feasible)
    assert.is_true(even.peak_bytes <= s.budget)
    assert.is_true(r.priced.peak > even.peak_bytes, "the plan is heavier")
    assert.is_true(r.priced.step < even.step_time_s, "and faster")
    local top = balance_search.rank(s, result, get, { top = 5 })
    assert.are.equal(at, top[1].even_rank)
    assert.is_nil(top[1].balance)
    assert.are.equal(math.min(even.peak_bytes, r.priced.peak), top[1].peak_bytes)
    assert.are.equal(even.step_time_s, top[1].step_time_s)
    -- no fitting candidate's balanced row peaks above its even split
    -- (balancing every one)
    local all = balance_search.rank(s, result, get, { top = math.huge, every = true })
    for _, c in ipairs(all) do
      if c.balance and c.balance.even_fits then
        local b = c.balance
        assert.is_true(c.peak_bytes < b.even_peak_bytes
                       or c.peak_bytes == b.even_peak_bytes and c.step_time_s < b.even_step_s,
                       "row of even rank " .. c.even_rank)
      end
    end
    -- under throughput the same candidate takes its plan, the faster
    argv[#argv] = "throughput"
    s, result, get = searched(argv)
    local fast = balance_search.rank(s, result, get, { top = math.huge, every = true })
    local found = false
    for _, c in ipairs(fast) do
      if degrees(c) == layout and c.balance then
        found = true
        assert.are.equal(r.priced.peak, c.peak_bytes)
      end
    end
    assert.is_true(found)
  end)

  it("a score function: the first 64 by rank, ranked by the score, and the reason no bound orders them", function()
    local dir = tmpdir()
    local path = dir .. "/by_pp.lua"
    local f = assert(io.open(path, "w"))
    -- a score no order key gives: the step times the pipeline's stages
    f:write("return { score = function(c) return c.step_time_s * c.pp end }\n")
    f:close()
    local s, result, get = searched { LLAMA, "-d", "64", "-b", "64", "-M", "40GB", "-A", "A3", "--recompute", "auto",
                                      "-j", "1", "--balance", "--policy", path }
    local list, info = balance_search.rank(s, result, get, { top = 10 })
    os.remove(path)
    os.remove(dir)
    assert.is_nil(info.exact)
    assert.are.equal(64, info.tried)
    assert.is_truthy(info.why:find("score function", 1, true))
    for i = 2, #list do
      assert.is_true(list[i - 1].score <= list[i].score, "ranked by the score at row " .. i)
    end
    -- the step alone orders them otherwise somewhere in the ten
    local by_step = true
    for i = 2, #list do by_step = by_step and list[i - 1].step_time_s <= list[i].step_time_s end
    assert.is_false(by_step)
  end)
end)
