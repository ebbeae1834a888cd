--- The text report of a search: the summary lines, the table of the top
-- candidates, the dropped candidates with their overshoot.
-- @module nd.report.table

local core = require "nd.core"
local units = require "nd.units"
local parts = require "nd.report.parts"

local report = {}

--- The search dimensions in the reports' order (nd.core.search_columns, from
-- src/search/search_space.h SEARCH_DIMS; the run's ETP, a CSV and JSON
-- column only, left out): each the dimension's entry of nd.core.search_dims,
-- with its key, table width, form (count or switch) and chart line.
report.DIMS = {}
for _, col in ipairs(core.search_columns) do
  if col.dim then report.DIMS[#report.DIMS + 1] = col.dim end
end

--- A dimension's value as text shows it: a switch on or off, a count its digits.
function report.value(d, v)
  if d.form == "switch" then return v and "on" or "off" end
  return string.format("%d", v)
end

-- The time parts, the byte components of a stage and seconds as the
-- tables print them are nd.report.parts' (estimate.lua loads that alone).
report.PARTS = parts.PARTS
report.MEMORY = parts.MEMORY
report.seconds = parts.seconds
report.listed_parts = parts.listed

local function count(n, one, many)
  return string.format("%d %s", n, n == 1 and one or (many or one .. "s"))
end

--- The refusal reasons, most common first (ties by name).
function report.refusals(refused)
  local list = {}
  for reason, n in pairs(refused) do list[#list + 1] = { reason, n } end
  table.sort(list, function(a, b)
    if a[2] ~= b[2] then return a[2] > b[2] end
    return a[1] < b[1]
  end)
  return list
end

--- The summary lines (§a.4 items 5-6, 11): tested, refused by reason,
-- priced; fitting, dropped; elapsed seconds.
function report.summary(counts, budget_bytes)
  local reasons = {}
  for _, r in ipairs(report.refusals(counts.refused)) do reasons[#reasons + 1] = r[1] .. " " .. r[2] end
  local refused = counts.refused_total > 0 and string.format("%d refused (%s)", counts.refused_total,
    table.concat(reasons, ", ")) or "none refused"
  return {
    string.format("%s tested: %s, %d priced for memory", count(counts.tested, "candidate"), refused, counts.priced),
    string.format("%d fitting the budget of %s, %d dropped over it; searched in %.2f s", counts.fitting,
                  units.gib(budget_bytes), counts.dropped, counts.elapsed_s),
  }
end

--- A candidate's degrees in one line: "dp 8 tp 1 pp 2 vpp 1 cp 1 ep 4 op 8 sp off mb 4 mbs 1 full".
function report.degrees(c)
  local out = {}
  for i, d in ipairs(report.DIMS) do out[i] = d.key .. " " .. report.value(d, c[d.key]) end
  out[#out + 1] = c.recompute
  return table.concat(out, " ")
end

-- The unit the table shows peaks in: GiB from 1 GiB up, else MiB.
local function peak_unit(list)
  local most = 0
  for _, c in ipairs(list) do most = math.max(most, c.peak_bytes) end
  if most >= 2 ^ 30 then return 2 ^ 30, "GiB" end
  return 2 ^ 20, "MiB"
end

--- The table of candidates (rank, degrees, recompute, peak with its unit,
-- step time, MFU, the time parts as shares of the step).
-- @tparam table list candidates (result:candidate(i)), best first
-- @tparam[opt] table o `mark[i]`: a character before row i's rank ("~");
--   `score`: a column of each candidate's score (a ranking policy's);
--   `also[i]`: text after row i (its variants)
-- @treturn table the lines
function report.table(list, o)
  o = o or {}
  local unit, unit_name = peak_unit(list)
  local head = string.format("%5s", "rank")
  for _, d in ipairs(report.DIMS) do head = head .. string.format(" %" .. d.width .. "s", d.key) end
  head = head .. string.format(" %-9s %9s %10s %6s", "recompute", "peak " .. unit_name, "step s", "MFU")
  local shown = parts.listed(list)
  for _, p in ipairs(shown) do head = head .. string.format(" %6s", p[2]) end
  if o.score then head = head .. string.format(" %11s", "score") end
  local lines = { head }
  for i, c in ipairs(list) do
    local rank = (o.mark and o.mark[i] or "") .. tostring(c.rank)
    local row = string.format("%5s", rank)
    for _, d in ipairs(report.DIMS) do row = row .. string.format(" %" .. d.width .. "s", report.value(d, c[d.key])) end
    row = row .. string.format(" %-9s %9.2f %10s %5.1f%%", c.recompute, c.peak_bytes / unit,
                               report.seconds(c.step_time_s), 100 * c.mfu)
    for _, p in ipairs(shown) do
      local share = c.step_time_s > 0 and 100 * (c.parts[p[1]] or 0) / c.step_time_s or 0
      row = row .. string.format(" %5.1f%%", share)
    end
    if o.score then row = row .. string.format(" %11.5g", c.score) end
    if o.also and o.also[i] then row = row .. "  " .. o.also[i] end
    lines[#lines + 1] = row
  end
  return lines
end

--- The unit the table shows a list's peaks in: its size and name.
report.peak_unit = peak_unit

--- One line per dropped candidate kept as an example (§a.4 item 4).
function report.dropped(list, total, budget_bytes)
  local lines = {}
  for _, c in ipairs(list) do
    lines[#lines + 1] = string.format("dropped: %s: its peak of %s (stage %d) is over the %s budget by %s",
                                      report.degrees(c), units.gib(c.peak_bytes), c.peak_stage,
                                      units.gib(budget_bytes), units.gib(c.overshoot_bytes))
  end
  if total > #list then
    lines[#lines + 1] = string.format("dropped: %d more not listed", total - #list)
  end
  return lines
end

return report
