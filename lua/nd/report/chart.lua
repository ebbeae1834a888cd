--- The SVG chart of a search's top candidates (--svg FILE): above, the
-- memory of each pipeline stage of each candidate against the budget;
-- below, each candidate's step time split into its parts. Drawn with
-- nd.svg's document builder; opens in any browser.
-- @module nd.report.chart

local svg = require "nd.svg"
local table_report = require "nd.report.table"

local chart = {}

local function fmt(x)
  if x == math.floor(x) and x < 1e6 then return string.format("%d", x) end
  if x >= 100 then return string.format("%.0f", x) end
  if x >= 10 then return string.format("%.1f", x) end
  if x >= 1 then return string.format("%.2f", x) end
  return string.format("%.3g", x)
end

-- A vertical axis from 0 to a nice top; returns y_of(value) and the top.
local function axis(doc, left, top, width, height, max_v, label)
  if max_v <= 0 then max_v = 1 end
  local step = svg.nice_step(max_v * 1.05, 5)
  local axis_top = math.ceil(max_v * 1.05 / step) * step
  local function y_of(v) return top + height - v / axis_top * height end
  local tick = 0
  while tick <= axis_top + step / 1000 do
    local y = y_of(tick)
    doc:line(left, y, left + width, y, { stroke = tick == 0 and "#333333" or "#e0e0e0", stroke_width = 1 })
    doc:text(left - 6, y + 4, fmt(tick), { text_anchor = "end", fill = "#333333", font_size = 11 })
    tick = tick + step
  end
  doc:line(left, top, left, top + height, { stroke = "#333333", stroke_width = 1 })
  local cy = top + height / 2
  doc:text(16, cy, label, { text_anchor = "middle", fill = "#333333",
                            transform = string.format("rotate(-90 16 %.1f)", cy) })
  return y_of
end

local function memory_panel(doc, list, o, geo)
  local max_v = o.budget_bytes / 2 ^ 30
  for _, c in ipairs(list) do
    for _, b in ipairs(c.stage_bytes or { c.peak_bytes }) do max_v = math.max(max_v, b / 2 ^ 30) end
  end
  local y_of = axis(doc, geo.left, geo.top, geo.width, geo.height, max_v, "GiB a device")
  doc:text(geo.left, geo.top - 10, "Memory of each pipeline stage (the peak stage darker)",
           { font_weight = "bold" })
  for i, c in ipairs(list) do
    local stages = c.stage_bytes or { c.peak_bytes }
    local x0 = geo.left + (i - 1) * geo.slot + geo.slot * 0.1
    local bar = math.min(18, geo.slot * 0.8 / #stages)
    for s, b in ipairs(stages) do
      local v = b / 2 ^ 30
      local peak = s - 1 == c.peak_stage
      doc:open_group(string.format("#%d stage %d: %.2f GiB", c.rank, s - 1, v))
      doc:rect(x0 + (s - 1) * bar, y_of(v), math.max(1, bar - 1), y_of(0) - y_of(v),
               { fill = peak and "#0072B2" or "#7FB8DA" })
      doc:close_group()
    end
  end
  local y = y_of(o.budget_bytes / 2 ^ 30)
  doc:line(geo.left, y, geo.left + geo.width, y, { stroke = "#D55E00", stroke_width = 2, stroke_dasharray = "6 4" })
  doc:text(geo.left + geo.width - 4, y - 6, string.format("budget %.2f GiB", o.budget_bytes / 2 ^ 30),
           { text_anchor = "end", fill = "#D55E00", font_size = 11, font_weight = "bold" })
end

local function time_panel(doc, list, geo)
  local max_v = 0
  for _, c in ipairs(list) do max_v = math.max(max_v, c.step_time_s) end
  local y_of = axis(doc, geo.left, geo.top, geo.width, geo.height, max_v, "seconds a step")
  local shown = table_report.listed_parts(list)
  doc:text(geo.left, geo.top - 10, "Step time by part", { font_weight = "bold" })
  for i, c in ipairs(list) do
    local x = geo.left + (i - 1) * geo.slot + geo.slot * 0.2
    local w = geo.slot * 0.6
    local base = 0
    for k, p in ipairs(shown) do
      local v = c.parts[p[1]] or 0
      if v > 0 then
        doc:open_group(string.format("#%d %s: %s s (%.1f%%)", c.rank, p[3], fmt(v),
                                     100 * v / c.step_time_s))
        doc:rect(x, y_of(base + v), w, y_of(base) - y_of(base + v),
                 { fill = p[4] or svg.PALETTE[k], stroke = "#ffffff", stroke_width = 0.5 })
        doc:close_group()
        base = base + v
      end
    end
    doc:text(x + w / 2, y_of(c.step_time_s) - 4, fmt(c.step_time_s), { text_anchor = "middle", font_size = 10 })
  end
  -- the legend, to the right, top part first as the stack reads
  local lx, ly = geo.left + geo.width + 12, geo.top + 8
  for k = #shown, 1, -1 do
    local p = shown[k]
    doc:rect(lx, ly - 10, 12, 12, { fill = p[4] or svg.PALETTE[k] })
    doc:text(lx + 18, ly, p[3], { font_size = 11 })
    ly = ly + 17
  end
end

-- A candidate's label under the panels: its degrees on the lines their
-- dimensions' chart_line names ("dp8 tp1 pp2", "vpp1 cp1 ep4 op8", "mb4 mbs1"),
-- then its recompute mode.
local function label_lines(c)
  local words = {}
  for _, d in ipairs(table_report.DIMS) do
    if d.chart_line > 0 then
      local line = words[d.chart_line] or {}
      line[#line + 1] = d.key .. table_report.value(d, c[d.key])
      words[d.chart_line] = line
    end
  end
  local lines = {}
  for i, line in ipairs(words) do lines[i] = table.concat(line, " ") end
  lines[#lines + 1] = c.recompute
  return lines
end

--- The chart's SVG text.
-- @tparam table list the candidates (with stage_bytes), best first
-- @tparam table o `title`, `subtitle`, `budget_bytes`
function chart.render(list, o)
  local n = math.max(1, #list)
  local slot = 108
  local left, right = 70, 130
  local width = left + n * slot + right
  local geo_m = { left = left, top = 90, width = n * slot, height = 220, slot = slot }
  local geo_t = { left = left, top = 420, width = n * slot, height = 220, slot = slot }
  local height = geo_t.top + geo_t.height + 80
  local doc = svg.document(math.max(width, 640), height)
  doc:text(left, 26, o.title or "Search", { font_size = 16, font_weight = "bold" })
  if o.subtitle then doc:text(left, 46, o.subtitle, { fill = "#444444" }) end
  memory_panel(doc, list, o, geo_m)
  time_panel(doc, list, geo_t)
  -- the candidates' labels under each panel
  for _, geo in ipairs({ geo_m, geo_t }) do
    for i, c in ipairs(list) do
      local cx = left + (i - 0.5) * slot
      local y = geo.top + geo.height + 16
      doc:text(cx, y, "#" .. c.rank, { text_anchor = "middle", font_weight = "bold", font_size = 11 })
      local lines = label_lines(c)
      for k, text in ipairs(lines) do
        doc:text(cx, y + 1 + 12 * k, text, { text_anchor = "middle", font_size = 10, fill = "#555555" })
      end
    end
  end
  return doc:render()
end

--- Writes the chart to `path`.
function chart.write(path, list, o)
  svg.write(path, chart.render(list, o))
end

return chart
