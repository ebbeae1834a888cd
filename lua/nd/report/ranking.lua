--- The ranking search.lua prints, made explainable (issue 33, item 4):
-- layouts that differ only in the FSDP shard (op) or in SP are one row,
-- with their ranks beside it; a policy's score is shown (its column when
-- it scores, else what it orders by); for the top rows, the step parts
-- that separate each from #1; and the rows whose step is within the time
-- model's validation error of #1's are marked as ties ("~").
-- @module nd.report.ranking

local table_report = require "nd.report.table"

local ranking = {}

--- The time model's error on runs it was never fitted to: the mean
-- |error| of ndlua's step time over the validation cases of
-- spec/validation/ (`make validate`, its line "validation time: 23 cases,
-- mean 18.5 %, max 64.9 %"); spec/ranking_spec.lua recomputes it from the
-- cases, so it follows them.
ranking.TIME_ERROR = { pct = 18.5, cases = 23 }

--- How many rows after #1 say what separates them from it.
ranking.EXPLAINED = 4

--- The most parts a row's separation names (the largest differences).
ranking.PARTS_SHOWN = 4

--- A part separates two steps when it differs by this share of #1's step or more.
ranking.PART_SHARE = 0.005

--- The dimensions whose values a row folds (its variants), by key: the
-- FSDP shard and SP; every other dimension makes the layout.
ranking.FOLDED = { op = true, sp = true }

-- What makes a layout, the folded dimensions aside.
local function layout_key(c)
  local parts = {}
  for _, d in ipairs(table_report.DIMS) do
    if not ranking.FOLDED[d.key] then parts[#parts + 1] = table_report.value(d, c[d.key]) end
  end
  parts[#parts + 1] = c.recompute
  return table.concat(parts, "/")
end

--- The candidates grouped by layout, FSDP shard and SP aside, in the order
-- of their best: `{ {lead = c, variants = {c...}}, ... }`.
-- @tparam table list candidates, best first
function ranking.groups(list)
  local groups, at = {}, {}
  for _, c in ipairs(list) do
    local k = layout_key(c)
    local g = at[k]
    if g then
      g.variants[#g.variants + 1] = c
    else
      g = { lead = c, variants = {} }
      at[k], groups[#groups + 1] = g, g
    end
  end
  return groups
end

-- What a variant changes from its group's lead: "op 2", "sp on", "op 4, sp on"
-- (the folded dimensions that differ; the first folded one when none does).
local function variant_text(v, lead)
  local parts, first = {}, nil
  for _, d in ipairs(table_report.DIMS) do
    if ranking.FOLDED[d.key] then
      local text = d.key .. " " .. table_report.value(d, v[d.key])
      first = first or text
      if v[d.key] ~= lead[d.key] then parts[#parts + 1] = text end
    end
  end
  return string.format("#%d (%s)", v.rank, #parts > 0 and table.concat(parts, ", ") or first)
end

-- A signed time: "+0.305 s", "-1.2e-03 s".
local function signed_seconds(x)
  return (x < 0 and "-" or "+") .. table_report.seconds(math.abs(x)) .. " s"
end

-- The parts that separate c's step from first's, largest first.
local function separation(c, first)
  local diffs = {}
  for _, p in ipairs(table_report.listed_parts { c, first }) do
    local d = (c.parts[p[1]] or 0) - (first.parts[p[1]] or 0)
    if math.abs(d) >= ranking.PART_SHARE * first.step_time_s and d ~= 0 then
      diffs[#diffs + 1] = { p[2], d }
    end
  end
  table.sort(diffs, function(a, b)
    if math.abs(a[2]) ~= math.abs(b[2]) then return math.abs(a[2]) > math.abs(b[2]) end
    return a[1] < b[1]
  end)
  local out = {}
  for i = 1, math.min(#diffs, ranking.PARTS_SHOWN) do out[i] = diffs[i][1] .. " " .. signed_seconds(diffs[i][2]) end
  return out
end

--- The ranking's explanation as data (search.lua --json's "ranking"):
-- `time_error_pct` and `time_error_cases` (ranking.TIME_ERROR), `ties`
-- (the ranks of the rows within it of #1's step), and `variants` (each
-- row that has some: `{rank = its rank, ranks = {the variants' ranks}}`).
-- @tparam table list candidates, best first
function ranking.summary(list)
  local core = require "nd.core"
  local ties, variants = {}, {}
  local first = list[1]
  for i, g in ipairs(ranking.groups(list)) do
    if i > 1 and math.abs(g.lead.step_time_s - first.step_time_s)
        <= first.step_time_s * ranking.TIME_ERROR.pct / 100 then
      ties[#ties + 1] = g.lead.rank
    end
    if #g.variants > 0 then
      local ranks = {}
      for j, v in ipairs(g.variants) do ranks[j] = v.rank end
      variants[#variants + 1] = { rank = g.lead.rank, ranks = core.json.array(ranks) }
    end
  end
  return { time_error_pct = ranking.TIME_ERROR.pct, time_error_cases = ranking.TIME_ERROR.cases,
           ties = core.json.array(ties), variants = core.json.array(variants) }
end

--- The ranking's lines: the table of the groups' leads (ties marked,
-- variants beside them, the score column of a scoring policy), then, when
-- `explain`, the notes: the variants folded, the ties, the score, and what
-- separates each of the first rows after #1 from it.
-- @tparam table list candidates, best first (search.candidate's)
-- @tparam table policy the ranking policy (name, order, score)
-- @tparam boolean explain with the notes (search.lua's -v 1 and up)
-- @treturn table the lines
function ranking.lines(list, policy, explain)
  local groups = ranking.groups(list)
  local leads, mark, also = {}, {}, {}
  local first = list[1]
  local band = first and first.step_time_s * ranking.TIME_ERROR.pct / 100
  local ties, folded = 0, 0
  for i, g in ipairs(groups) do
    leads[i] = g.lead
    if i > 1 and math.abs(g.lead.step_time_s - first.step_time_s) <= band then
      mark[i], ties = "~", ties + 1
    end
    if #g.variants > 0 then
      local t = {}
      for j, v in ipairs(g.variants) do t[j] = variant_text(v, g.lead) end
      also[i] = "also " .. table.concat(t, ", ")
      folded = folded + #g.variants
    end
    local b = g.lead.balance -- search.lua --balance: the plan's gain over the even split
    if b then
      local note = b.gain and string.format("balanced %.3fx", b.gain) or "balanced (its even split does not fit)"
      if (b.offloaded_layers or 0) > 0 then -- --offload: the plan's layers whose activations go to the host
        note = note .. string.format(", %d layers offloaded", b.offloaded_layers)
      end
      also[i] = also[i] and (note .. "; " .. also[i]) or note
    end
  end
  local lines = table_report.table(leads, { mark = mark, also = also, score = policy.score ~= nil })
  if not explain or not first then return lines end
  local unit, unit_name = table_report.peak_unit(list)
  if folded > 0 then
    lines[#lines + 1] = string.format("%d of the %d differ%s from a row above only in the FSDP shard (op) or SP: "
      .. "shown beside it (also #rank)", folded, #list, folded == 1 and "s" or "")
  end
  if ties > 0 then
    lines[#lines + 1] = string.format("~ %d row%s within %.1f %% of #1's step (%s s), the time model's mean error on "
      .. "the %d validation cases (make validate): as close to #1 as the model can tell", ties, ties == 1 and "" or "s",
      ranking.TIME_ERROR.pct, table_report.seconds(first.step_time_s), ranking.TIME_ERROR.cases)
  end
  if policy.score then
    lines[#lines + 1] = "score: the policy " .. policy.name .. "'s score function, the ranking's first key"
  end
  local explained = {}
  for i = 2, math.min(#groups, ranking.EXPLAINED + 1) do
    local c = leads[i]
    local parts = separation(c, first)
    local dstep = c.step_time_s - first.step_time_s
    local text = string.format("  #%d %s (%+.1f %%)%s", c.rank, signed_seconds(dstep),
      first.step_time_s > 0 and 100 * dstep / first.step_time_s or 0,
      #parts > 0 and (": " .. table.concat(parts, ", ")) or ": no part differs by 0.5 % of #1's step")
    text = text .. string.format("; peak %+.2f %s", (c.peak_bytes - first.peak_bytes) / unit, unit_name)
    explained[#explained + 1] = text
  end
  if #explained > 0 then
    lines[#lines + 1] = string.format("what separates the next rows from #1 (the step parts that differ most, by %.1f "
      .. "%% of its step or more):", 100 * ranking.PART_SHARE)
    for _, t in ipairs(explained) do lines[#lines + 1] = t end
  end
  return lines
end

return ranking
