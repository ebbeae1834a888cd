-- nd.report.ranking (issue 33, item 4): layouts that differ only in the
-- FSDP shard or SP folded into one row, ties within the time model's
-- validation error of #1 marked, a scoring policy's score shown, and the
-- step parts that separate the next rows from #1. The candidates are made
-- here, so every expected number follows from them by hand.
local ranking = require "nd.report.ranking"
local validation = require "nd.validation"

-- A candidate of the given degrees, step parts (seconds) and peak (GiB).
local function cand(rank, o)
  local parts = { forward_s = 1, backward_s = 2, recompute_s = 0, tp_s = o.tp_s or 0, cp_s = 0, ep_s = 0, pp_s = 0,
                  dp_s = o.dp_s or 0, bubble_s = o.bubble_s or 0, optimizer_s = 0 }
  local step = 0
  for _, v in pairs(parts) do step = step + v end
  return { rank = rank, dp = o.dp or 8, tp = o.tp or 1, pp = 1, vpp = 1, cp = 1, ep = 1, op = o.op or 1,
           sp = o.sp or false, mb = o.mb or 4, mbs = 1, recompute = "full", peak_bytes = (o.peak or 40) * 2 ^ 30,
           step_time_s = step, mfu = 0.3, parts = parts, score = o.score or step }
end

describe("the ranking", function()
  it("states the time model's validation error as make validate computes it", function()
    -- the mean |error| of the step-time validation cases of spec/validation/
    local rows = validation.evaluate_all(validation.load("spec/validation"))
    local time
    for _, g in ipairs(validation.by_set(rows)) do
      if g.set == "validation" and g.kind == "time" then time = g end
    end
    assert.are.equal(ranking.TIME_ERROR.cases, time.measured)
    assert.is_true(math.abs(ranking.TIME_ERROR.pct - time.mean_abs_pct) < 0.05,
                   string.format("TIME_ERROR.pct %.1f, the cases give %.2f", ranking.TIME_ERROR.pct, time.mean_abs_pct))
  end)

  it("folds layouts that differ only in the FSDP shard or SP into the best one's row", function()
    local list = { cand(1, {}), cand(2, { op = 2 }), cand(3, { tp = 2, dp = 4 }), cand(4, { sp = true, op = 4 }),
                   cand(5, { mb = 8 }) }
    local groups = ranking.groups(list)
    assert.are.equal(3, #groups)
    assert.are.equal(1, groups[1].lead.rank)
    assert.are.same({ 2, 4 }, { groups[1].variants[1].rank, groups[1].variants[2].rank })
    assert.are.equal(3, groups[2].lead.rank)
    assert.are.equal(5, groups[3].lead.rank) -- another micro-batch count is another layout
    local lines = ranking.lines(list, { name = "throughput" }, true)
    assert.matches("  also #2 %(op 2%), #4 %(op 4, sp on%)$", lines[2])
    assert.matches("\n2 of the 5 differ from a row above only in the FSDP shard %(op%) or SP", "\n" .. lines[5])
  end)

  it("marks the rows within the validation error of #1's step as ties, and says what separates them", function()
    -- #1: 1 + 2 = 3 s. #2: 3 s + 0.3 s of TP = 3.3 s (+10 %, within 18.5 %);
    -- #3: 3 s + 0.9 s of DP - nothing else = 3.9 s (+30 %, no tie), 8 GiB lighter.
    local list = { cand(1, {}), cand(2, { tp = 2, tp_s = 0.3 }), cand(3, { dp = 4, dp_s = 0.9, peak = 32 }) }
    local lines = ranking.lines(list, { name = "throughput" }, true)
    assert.matches("^    1 ", lines[2])
    assert.matches("^   ~2 ", lines[3])
    assert.matches("^    3 ", lines[4])
    local text = table.concat(lines, "\n")
    assert.matches("~ 1 row within 18.5 %% of #1's step %(3.000 s%)", text)
    assert.matches("\n  #2 %+0.300 s %(%+10.0 %%%): tp %+0.300 s; peak %+0.00 GiB", text)
    assert.matches("\n  #3 %+0.900 s %(%+30.0 %%%): dp %+0.900 s; peak %-8.00 GiB", text)
    -- without the notes (search.lua -v 0): the table alone
    assert.are.equal(4, #ranking.lines(list, { name = "throughput" }, false))
  end)

  it("shows a scoring policy's score in its own column", function()
    local list = { cand(1, { score = 0.25 }), cand(2, { tp = 2, score = 0.5 }) }
    local lines = ranking.lines(list, { name = "team", score = function() end }, true)
    assert.matches(" score$", lines[1])
    assert.matches(" 0.25$", lines[2])
    assert.matches(" 0.5$", lines[3])
    assert.matches("score: the policy team's score function", table.concat(lines, "\n"))
    assert.is_nil(ranking.lines(list, { name = "throughput" }, true)[1]:find("score"))
  end)

  it("gives the ties and the variants as data for --json", function()
    -- #1 3 s; #2 its op 2 variant; #3 3.3 s (+10 %: a tie); #4 3.9 s (+30 %)
    local list = { cand(1, {}), cand(2, { op = 2 }), cand(3, { tp = 2, tp_s = 0.3 }), cand(4, { dp = 4, dp_s = 0.9 }) }
    local s = ranking.summary(list)
    assert.are.same({ 3 }, { table.unpack(s.ties) })
    assert.are.equal(1, #s.variants)
    assert.are.equal(1, s.variants[1].rank)
    assert.are.same({ 2 }, { table.unpack(s.variants[1].ranks) })
    assert.are.equal(ranking.TIME_ERROR.pct, s.time_error_pct)
  end)
end)
