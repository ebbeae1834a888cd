--- The study library's plots, drawn with nd.svg: lines over rows (memory
-- against sequence length, step time against devices), grouped or stacked
-- bars over rows, and the memory of each pipeline stage of an estimate.
-- Each returns the SVG text; nd.svg.write (or nd.write_svg) saves it.
-- @module nd.study.charts

local svg = require "nd.svg"
local format = require "nd.study.format"
local table_report = require "nd.report.table"

local charts = {}

-- The byte components of a stage, in the order estimate.lua's table and
-- chart show them (nd.report.table.MEMORY), each with its colour: the
-- index in svg.PALETTE of each, in that order, or a colour of its own
-- (the pipeline's receive buffers: the palette's ten are taken).
local COLOURS = { 1, 2, 3, 9, 4, 5, 6, "#44AA99", 7, 10, 8 }
charts.COMPONENTS = {}
for i, c in ipairs(table_report.MEMORY) do
  local colour = COLOURS[i]
  charts.COMPONENTS[i] = { c[1], c[2], type(colour) == "string" and colour or svg.PALETTE[colour] }
end

-- The axis scale of a unit: what values are divided by, and its name.
local function scale(unit, largest)
  if unit == "bytes" then
    if largest >= 2 ^ 30 then return 2 ^ 30, "GiB" end
    return 2 ^ 20, "MiB"
  end
  if unit == "GiB" then return 2 ^ 30, "GiB" end
  if unit == "MiB" then return 2 ^ 20, "MiB" end
  if unit == "s" then return 1, "s" end
  if unit == "%" then return 0.01, "%" end
  if unit == "params" then return 1e9, "B params" end
  return 1, unit or ""
end

local function title_of(o, key)
  if o.names and o.names[key] then return o.names[key] end
  return (tostring(key):gsub("_bytes$", ""):gsub("_s$", ""):gsub("_", " "))
end

-- The y keys, their unit, the axis scale and the label.
local function y_axis(o)
  local ys = o.ys or { o.y }
  local unit = o.unit or format.unit_of(ys[1])
  local most = 0
  for _, row in ipairs(o.rows) do
    for _, y in ipairs(ys) do
      local v = format.get(row, y)
      if type(v) == "number" then most = math.max(most, math.abs(v)) end
    end
  end
  for _, l in ipairs(o.lines or {}) do most = math.max(most, l.value) end
  local divisor, name = scale(unit, most)
  local label = o.ylabel or (#ys == 1 and (title_of(o, ys[1]) .. (name ~= "" and " (" .. name .. ")" or "")) or name)
  return ys, divisor, name, label
end

-- The values of `key` across the rows, each once, in the rows' order.
local function distinct(rows, key)
  local out, seen = {}, {}
  for _, row in ipairs(rows) do
    local v = format.get(row, key)
    if v ~= nil and not seen[v] then
      seen[v] = true
      out[#out + 1] = v
    end
  end
  return out
end

-- The series of a plot: one per value of `o.series` (rows grouped by it),
-- else one per y key. Each is {name, rows, y}.
local function groups(o, ys)
  local out = {}
  if o.series then
    for _, g in ipairs(distinct(o.rows, o.series)) do
      for _, y in ipairs(ys) do
        local rows = {}
        for _, row in ipairs(o.rows) do
          if format.get(row, o.series) == g then rows[#rows + 1] = row end
        end
        local name = tostring(g) .. (#ys > 1 and (" " .. title_of(o, y)) or "")
        out[#out + 1] = { name = name, rows = rows, y = y }
      end
    end
  else
    for _, y in ipairs(ys) do out[#out + 1] = { name = title_of(o, y), rows = o.rows, y = y } end
  end
  return out
end

--- Lines over rows: x from one key, y from another (or several).
-- @tparam table o `rows`; `x` (the key on the x axis); `y` (the key
--   plotted) or `ys` (several keys, a line each); `series` (a key whose
--   values split the rows into lines, e.g. "recompute"); `unit` (default
--   from the y key's name: bytes in GiB or MiB, seconds, %); `names`
--   (legend names by y key); `lines` ({value, label} horizontal lines in
--   the y key's own unit, e.g. the capacity in bytes); `y_max` (the
--   axis top, in the y key's unit: what lies above is cut off); `log_x`,
--   `log_y` (log scales: log2 for x, log10 for y);
--   `x_format` (function(x) -> tick text, e.g. study.k); `title`,
--   `subtitle`, `xlabel`, `ylabel`, `legend_title`, `width`, `height`.
--   A row whose y is nil breaks its line (e.g. a point that does not fit).
-- @treturn string the SVG text
function charts.lines(o)
  local ys, divisor, name, label = y_axis(o)
  local series = {}
  for i, g in ipairs(groups(o, ys)) do
    local points = {}
    for _, row in ipairs(g.rows) do
      local x, y = format.get(row, o.x), format.get(row, g.y)
      if type(x) == "number" then
        points[#points + 1] = { x, type(y) == "number" and y or nil }
      end
    end
    series[i] = { name = g.name, points = points, color = o.colors and o.colors[i] or nil,
                  dash = o.dashes and o.dashes[i] or nil }
  end
  return svg.line_chart {
    title = o.title, subtitle = o.subtitle, xlabel = o.xlabel or o.x, ylabel = label, unit = divisor,
    unit_name = name, series = series, lines = o.lines, log_x = o.log_x, x_format = o.x_format,
    y_max = o.y_max, log_y = o.log_y,
    legend_title = o.legend_title or o.series, width = o.width, height = o.height,
  }
end

--- Bars over rows: a category per value of `x`, a bar per series.
-- @tparam table o as charts.lines, less `log_x` and `y_max` (the
--   categories print with `x_format`), and `stacked` (stack the `ys` keys
--   in one bar per category, as memory components stack)
-- @treturn string the SVG text
function charts.bars(o)
  local ys, divisor, name, label = y_axis(o)
  local cats = distinct(o.rows, o.x)
  local fmt = o.x_format or format.plain
  local categories = {}
  for i, c in ipairs(cats) do categories[i] = fmt(c) end
  local series = {}
  for k, g in ipairs(groups(o, ys)) do
    local values = {}
    for _, row in ipairs(g.rows) do
      local x = format.get(row, o.x)
      for i, c in ipairs(cats) do
        if c == x then values[i] = format.get(row, g.y) end
      end
    end
    series[k] = { name = g.name, values = values, color = o.colors and o.colors[k] or nil }
  end
  local c = {
    title = o.title, subtitle = o.subtitle, xlabel = o.xlabel or o.x, ylabel = label, unit = divisor,
    unit_name = name, categories = categories, series = series, lines = o.lines,
    legend_title = o.legend_title or o.series, width = o.width, height = o.height,
  }
  if o.stacked then return svg.stacked_bars(c) end
  return svg.grouped_bars(c)
end

--- The memory of each pipeline stage of an estimate, stacked by component
-- (the chart estimate.lua --svg draws), with the capacity as a line.
-- @tparam table est what nd.estimate returns
-- @tparam[opt] table o `title`, `subtitle`, `layers` (layers a stage, for
--   the labels under the bars), `width`, `height`, `host` ({name, values}:
--   bytes a stage keeps on the host, drawn outlined over its bar and not in
--   its total, the totals then to 0.01 GiB as balance.lua's table)
-- @treturn string the SVG text
function charts.stages(est, o)
  o = o or {}
  local categories, series = {}, {}
  for i, s in ipairs(est.stages) do categories[i] = tostring(s.stage) end
  for _, comp in ipairs(charts.COMPONENTS) do
    local values, any = {}, false
    for i, s in ipairs(est.stages) do
      values[i] = s[comp[1]] or 0 -- fragmentation: only where a runtime states it
      any = any or values[i] > 0
    end
    if any then series[#series + 1] = { name = comp[2], values = values, color = comp[3] } end
  end
  if o.host then
    series[#series + 1] = { name = o.host.name, values = o.host.values, color = "#6b6b6b", outside = true }
  end
  local sublabels
  if o.layers and #categories <= 10 then
    sublabels = {}
    for i, n in ipairs(o.layers) do sublabels[i] = n .. (n == 1 and " layer" or " layers") end
  end
  return svg.stacked_bars {
    title = o.title or "Memory per device", subtitle = o.subtitle, categories = categories,
    sublabels = sublabels, series = series, unit = 2 ^ 30, unit_name = "GiB",
    xlabel = "pipeline stage (the peak stage in bold)", marked = est.peak_stage + 1,
    lines = { { value = est.capacity_bytes, label = string.format("capacity %.2f GiB", est.capacity_bytes / 2 ^ 30) } },
    width = o.width, height = o.height, total_format = o.host and "%.2f" or nil,
  }
end

return charts
