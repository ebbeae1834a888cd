--- SVG charts, written as text with no dependency: a small document builder
-- and the charts ndlua draws with it (a stacked bar chart of memory per
-- pipeline stage; a line chart and a grouped bar chart for the study
-- library's plots; the search and nd.study reuse them).
--
--   local svg = require "nd.svg"
--   local text = svg.stacked_bars {
--     title = "Memory per device", categories = {"stage 0", "stage 1"},
--     series = {{name = "params", values = {1e9, 2e9}}, ...},
--     lines = {{value = 64 * 2^30, label = "capacity 64 GiB"}},
--     unit = 2^30, unit_name = "GiB",
--   }
--   svg.write("memory.svg", text)
-- @module nd.svg

local svg = {}

--- A colour per series, in order (colour-blind-safe, after Okabe and Ito).
svg.PALETTE = { "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999",
                "#332288", "#882255" }

--- Escapes text for XML content and attribute values.
function svg.escape(s)
  return (tostring(s):gsub("[&<>\"']", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;",
                                          ["'"] = "&#39;" }))
end

local function num(x)
  if math.type(x) == "integer" then return tostring(x) end
  local s = string.format("%.2f", x):gsub("0+$", ""):gsub("%.$", "")
  return s
end

local function attrs(a)
  local keys = {}
  for k in pairs(a) do keys[#keys + 1] = k end
  table.sort(keys)
  local out = {}
  for _, k in ipairs(keys) do
    local v = a[k]
    if type(v) == "number" then v = num(v) end
    out[#out + 1] = string.format('%s="%s"', k:gsub("_", "-"), svg.escape(v))
  end
  return table.concat(out, " ")
end

local Doc = {}
Doc.__index = Doc

--- A new document of `width` x `height` pixels.
function svg.document(width, height)
  return setmetatable({ width = width, height = height, parts = {} }, Doc)
end

--- Adds an element: `doc:add("rect", {x = 0, ...})`, with optional text content.
function Doc:add(name, a, content)
  if content == nil then
    self.parts[#self.parts + 1] = string.format("<%s %s/>", name, attrs(a))
  else
    self.parts[#self.parts + 1] = string.format("<%s %s>%s</%s>", name, attrs(a), svg.escape(content), name)
  end
  return self
end

function Doc:rect(x, y, w, h, a)
  a = a or {}
  a.x, a.y, a.width, a.height = x, y, w, h
  return self:add("rect", a)
end

function Doc:line(x1, y1, x2, y2, a)
  a = a or {}
  a.x1, a.y1, a.x2, a.y2 = x1, y1, x2, y2
  return self:add("line", a)
end

function Doc:text(x, y, content, a)
  a = a or {}
  a.x, a.y = x, y
  return self:add("text", a, content)
end

--- Adds a `<title>` tooltip group around the next elements: opens a group.
function Doc:open_group(title)
  self.parts[#self.parts + 1] = "<g>"
  if title then self.parts[#self.parts + 1] = "<title>" .. svg.escape(title) .. "</title>" end
  return self
end

function Doc:close_group()
  self.parts[#self.parts + 1] = "</g>"
  return self
end

--- The document as text.
function Doc:render()
  local head = string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
    .. 'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">', self.width, self.height,
    self.width, self.height)
  local bg = string.format('<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>', self.width, self.height)
  return '<?xml version="1.0" encoding="UTF-8"?>\n' .. head .. "\n" .. bg .. "\n"
    .. table.concat(self.parts, "\n") .. "\n</svg>\n"
end

-- A "nice" axis step (1, 2, 2.5 or 5 times a power of ten) giving about `ticks` ticks up to `top`.
local function nice_step(top, ticks)
  local raw = top / ticks
  local p = 10 ^ math.floor(math.log(raw, 10))
  for _, m in ipairs({ 1, 2, 2.5, 5, 10 }) do
    if m * p >= raw then return m * p end
  end
  return 10 * p
end
svg.nice_step = nice_step

local function color_of(series, k)
  return series[k].color or svg.PALETTE[(k - 1) % #svg.PALETTE + 1]
end

-- The value axis of a line or grouped-bar chart: from 0 to a nice top above
-- the largest value (and the reference lines), in `unit`s; or up to
-- `y_max` exactly, what lies above it cut off.
local function value_scale(g, max_v, lines, y_max)
  for _, l in ipairs(lines or {}) do max_v = math.max(max_v, l.value) end
  local top_v = (y_max or max_v) / g.unit
  if top_v <= 0 then top_v = 1 end
  local room = y_max and 1 or 1.05
  g.step = nice_step(top_v * room, 6)
  g.axis_top = y_max and top_v or math.ceil(top_v * room / g.step) * g.step
  function g.y_of(v) return g.top + g.plot_h - (v / g.unit) / g.axis_top * g.plot_h end
end

local function heading(doc, g, c)
  if c.title then doc:text(g.left, 24, c.title, { font_size = 16, font_weight = "bold" }) end
  if c.subtitle then doc:text(g.left, 42, c.subtitle, { fill = "#444444" }) end
end

-- The chart's geometry: plot area, totals, the axis scale, y of a value.
local function layout(c)
  local g = { unit = c.unit or 1, n = #c.categories }
  g.width = c.width or math.min(980, math.max(640, 260 + g.n * 64))
  g.height = c.height or 460
  g.left, g.top = 70, 56
  g.plot_w, g.plot_h = g.width - g.left - 150, g.height - g.top - 64
  g.totals = {}
  local max_v = 0
  for i = 1, g.n do
    local t, apart = 0, 0
    for _, s in ipairs(c.series) do
      if s.outside then apart = apart + math.max(0, s.values[i] or 0) else t = t + math.max(0, s.values[i] or 0) end
    end
    g.totals[i] = t
    max_v = math.max(max_v, t + apart)
  end
  value_scale(g, max_v, c.lines)
  g.slot = g.plot_w / math.max(1, g.n)
  return g
end

-- The ticks of the value axis, in units: from 0 by the step, or the
-- layout's own list (a log axis).
local function ticks_of(g)
  if g.ticks then return g.ticks end
  local out, tick = {}, 0
  while tick <= g.axis_top + g.step / 1000 do
    out[#out + 1] = tick
    tick = tick + g.step
  end
  return out
end

local function draw_axis(doc, g, c)
  for i, tick in ipairs(ticks_of(g)) do
    local y = g.y_of(tick * g.unit)
    doc:line(g.left, y, g.left + g.plot_w, y, { stroke = i == 1 and "#333333" or "#dddddd", stroke_width = 1 })
    doc:text(g.left - 8, y + 4, num(tick), { text_anchor = "end", fill = "#333333" })
  end
  doc:line(g.left, g.top, g.left, g.top + g.plot_h, { stroke = "#333333", stroke_width = 1 })
  local mid = g.top + g.plot_h / 2
  doc:text(18, mid, c.ylabel or c.unit_name or "", { text_anchor = "middle", fill = "#333333",
           transform = string.format("rotate(-90 18 %s)", num(mid)) })
  if c.xlabel then
    doc:text(g.left + g.plot_w / 2, g.height - 12, c.xlabel, { text_anchor = "middle", fill = "#333333" })
  end
end

-- One bar: its stacked parts (each with a tooltip), its label and total.
local function draw_bar(doc, g, c, i)
  local bar_w = math.min(60, g.slot * 0.7)
  local cx = g.left + (i - 0.5) * g.slot
  local base = 0
  for k, s in ipairs(c.series) do
    local v = math.max(0, s.values[i] or 0)
    if v > 0 then
      local y0, y1 = g.y_of(base), g.y_of(base + v)
      doc:open_group(string.format("%s, %s: %.2f %s", c.categories[i], s.name, v / g.unit, c.unit_name or ""))
      if s.outside then
        -- not in the bar's total: outlined, dashed, over the stack
        doc:rect(cx - bar_w / 2, y1, bar_w, y0 - y1, { fill = "none", stroke = color_of(c.series, k),
                                                       stroke_width = 1.5, stroke_dasharray = "4 3" })
        doc:text(cx, y1 - 5, string.format("%.2f", v / g.unit), { text_anchor = "middle", font_size = 10,
                                                                 fill = color_of(c.series, k) })
      else
        doc:rect(cx - bar_w / 2, y1, bar_w, y0 - y1, { fill = color_of(c.series, k), stroke = "#ffffff",
                                                       stroke_width = 0.5 })
      end
      doc:close_group()
      base = base + v
    end
  end
  local marked = c.marked == i
  local label_y = g.top + g.plot_h + 16
  doc:text(cx, label_y, c.categories[i], { text_anchor = "middle", font_weight = marked and "bold" or "normal" })
  if c.sublabels then
    doc:text(cx, label_y + 13, c.sublabels[i], { text_anchor = "middle", font_size = 10, fill = "#555555" })
  end
  if g.slot >= 28 then
    doc:text(cx, g.y_of(g.totals[i]) - 5, string.format(c.total_format or "%.1f", g.totals[i] / g.unit),
             { text_anchor = "middle", font_size = 10, fill = marked and "#D55E00" or "#333333",
               font_weight = marked and "bold" or "normal" })
  end
end

-- Horizontal lines (the capacity), labelled inside the plot at the right
-- (or at the left: `at = "left"`).
local function draw_lines(doc, g, c)
  for _, l in ipairs(c.lines or {}) do
    local y = g.y_of(l.value)
    local color = l.color or "#222222"
    doc:line(g.left, y, g.left + g.plot_w, y, { stroke = color, stroke_width = 2, stroke_dasharray = "6 4" })
    local left = l.at == "left"
    doc:text(left and g.left + 4 or g.left + g.plot_w - 4, y - 6, l.label or "", { fill = color, font_size = 11,
             text_anchor = left and "start" or "end", font_weight = "bold" })
  end
end

-- The legend at the right, the top series first as the stack reads (or in
-- the series' order, `forward`).
local function draw_legend(doc, g, c)
  local x, y = g.left + g.plot_w + 6, g.top + 40
  doc:text(x, y - 14, c.legend_title or "component", { font_weight = "bold" })
  local first, last, step = #c.series, 1, -1
  if c.forward then first, last, step = 1, #c.series, 1 end
  for k = first, last, step do
    if c.series[k].outside then
      doc:rect(x, y - 10, 12, 12, { fill = "none", stroke = color_of(c.series, k), stroke_width = 1.5,
                                    stroke_dasharray = "4 3" })
    else
      doc:rect(x, y - 10, 12, 12, { fill = color_of(c.series, k) })
    end
    doc:text(x + 18, y, c.series[k].name)
    y = y + 18
  end
end

--- A stacked bar chart.
-- @tparam table c `categories` (bar labels), `series` ({name, values, color?,
--   outside? (drawn outlined over the stack with its value above, and not
--   counted in the bar's total: bytes the device does not hold)}),
--   `lines` (horizontal lines {value, label, color?, at = "left"?}), `unit` (values are
--   divided by it for the axis, default 1), `unit_name` (axis label unit),
--   `sublabels` (a second, smaller line under each bar label), `xlabel`
--   (the axis title under the bars), `title`, `subtitle`, `marked` (index
--   of a bar to draw in bold, e.g. the peak), `legend_title`, `width`, `height`,
--   `total_format` (of the totals over the bars, default "%.1f")
-- @treturn string the SVG text
function svg.stacked_bars(c)
  local g = layout(c)
  local doc = svg.document(g.width, g.height)
  heading(doc, g, c)
  draw_axis(doc, g, c)
  for i = 1, g.n do draw_bar(doc, g, c, i) end
  draw_lines(doc, g, c)
  draw_legend(doc, g, c)
  return doc:render()
end

-- A log10 value axis from the power of ten below the smallest value to
-- the one above the largest, ticks at 1, 2 and 5 times each power.
local function log_scale(g, min_v, max_v)
  local lo = math.floor(math.log(min_v / g.unit, 10) + 1e-9)
  local hi = math.ceil(math.log(max_v / g.unit, 10) - 1e-9)
  if hi <= lo then hi = lo + 1 end
  g.ticks = {}
  for p = lo, hi do
    for _, m in ipairs({ 1, 2, 5 }) do
      local t = m * 10 ^ p
      if t <= 10 ^ hi * 1.0001 then g.ticks[#g.ticks + 1] = p >= 0 and math.floor(t + 0.5) or t end
    end
  end
  function g.y_of(v)
    return g.top + g.plot_h - (math.log(v / g.unit, 10) - lo) / (hi - lo) * g.plot_h
  end
end

local function frame(c, n)
  local g = { unit = c.unit or 1, n = n }
  g.width = c.width or 800
  g.height = c.height or 460
  g.left, g.top = 70, 56
  g.plot_w, g.plot_h = g.width - g.left - 170, g.height - g.top - 64
  return g
end

-- The x positions of a line chart: linear, or log2 when `log_x` (devices,
-- sequence lengths), with ticks at the points' distinct x values when
-- there are few of them.
local function x_scale(g, c)
  local xs, seen = {}, {}
  for _, s in ipairs(c.series) do
    for _, p in ipairs(s.points) do
      if not seen[p[1]] then
        seen[p[1]] = true
        xs[#xs + 1] = p[1]
      end
    end
  end
  table.sort(xs)
  local f = c.log_x and function(x) return math.log(x, 2) end or function(x) return x end
  local lo, hi = f(xs[1] or 0), f(xs[#xs] or 1)
  if hi == lo then lo, hi = lo - 1, hi + 1 end
  local pad = (hi - lo) * 0.04
  function g.x_of(x) return g.left + (f(x) - lo + pad) / (hi - lo + 2 * pad) * g.plot_w end
  g.xs = xs
end

local function draw_x_ticks(doc, g, c)
  local fmt = c.x_format or num
  local every = math.max(1, math.ceil(#g.xs / 12))
  for i = 1, #g.xs, every do
    local x = g.x_of(g.xs[i])
    doc:line(x, g.top + g.plot_h, x, g.top + g.plot_h + 4, { stroke = "#333333", stroke_width = 1 })
    doc:text(x, g.top + g.plot_h + 17, fmt(g.xs[i]), { text_anchor = "middle", fill = "#333333" })
  end
end

-- One series: its segments (a point without y breaks the line), its points
-- with their tooltips.
local function draw_series(doc, g, c, k)
  local s, color = c.series[k], color_of(c.series, k)
  local run = {}
  local function flush()
    if #run > 1 then
      doc:add("polyline", { points = table.concat(run, " "), fill = "none", stroke = color, stroke_width = 2.5,
                            stroke_dasharray = s.dash })
    end
    run = {}
  end
  local function drawn(y) return y ~= nil and (not g.ticks or y > 0) end
  for _, p in ipairs(s.points) do
    if not drawn(p[2]) then flush() else run[#run + 1] = num(g.x_of(p[1])) .. "," .. num(g.y_of(p[2])) end
  end
  flush()
  local fmt = c.x_format or num
  for _, p in ipairs(s.points) do
    if drawn(p[2]) then
      doc:open_group(string.format("%s at %s: %s", s.name, fmt(p[1]), p.label
        or string.format("%.2f %s", p[2] / g.unit, c.unit_name or "")))
      doc:add("circle", { cx = g.x_of(p[1]), cy = g.y_of(p[2]), r = 3.5, fill = color })
      doc:close_group()
    end
  end
end

--- A line chart: one line per series over a numeric x axis.
-- @tparam table c `series` ({name, points = {{x, y}, ...}, color?, dash?};
--   a point {x, nil} breaks the line, `label` on a point replaces its
--   tooltip's value), `lines` (horizontal lines {value, label, color?, at = "left"?}),
--   `unit` and `unit_name` (y values are divided by the unit for the axis;
--   the name labels the axis and the tooltips), `ylabel` (the axis label
--   instead of the unit's name), `y_max` (the top of the axis, in the
--   values' own unit: lines above it leave the plot at its top edge),
--   `log_x` (x on a log2 scale), `log_y` (y on a log10 scale, ticks at 1,
--   2 and 5 times the powers of ten; points at 0 or below are not drawn),
--   `x_format` (function(x) -> tick text), `xlabel`, `title`, `subtitle`,
--   `legend_title`, `width`, `height`
-- @treturn string the SVG text
function svg.line_chart(c)
  local g = frame(c, 0)
  local max_v, min_v = 0, math.huge
  for _, s in ipairs(c.series) do
    for _, p in ipairs(s.points) do
      if p[2] and p[2] > 0 then max_v, min_v = math.max(max_v, p[2]), math.min(min_v, p[2]) end
    end
  end
  if c.log_y and max_v > 0 then
    log_scale(g, min_v, max_v)
  else
    value_scale(g, max_v, c.lines, c.y_max)
  end
  x_scale(g, c)
  local doc = svg.document(g.width, g.height)
  heading(doc, g, c)
  draw_axis(doc, g, c)
  draw_x_ticks(doc, g, c)
  draw_lines(doc, g, c)
  -- the series drawn inside the plot area only (y_max cuts them off)
  doc.parts[#doc.parts + 1] = string.format('<clipPath id="plot-area"><rect x="%s" y="%s" width="%s" '
    .. 'height="%s"/></clipPath>', num(g.left), num(g.top - 4), num(g.plot_w + 4), num(g.plot_h + 8))
  doc.parts[#doc.parts + 1] = '<g clip-path="url(#plot-area)">'
  for k = 1, #c.series do draw_series(doc, g, c, k) end
  doc:close_group()
  draw_legend(doc, g, { series = c.series, legend_title = c.legend_title or "series", forward = true })
  return doc:render()
end

--- A grouped bar chart: for each category, one bar per series side by side.
-- @tparam table c `categories`, `series` ({name, values, color?}; a nil
--   value draws no bar), `lines`, `unit`, `unit_name`, `ylabel`, `xlabel`, `title`,
--   `subtitle`, `legend_title`, `width`, `height`, `value_format`
--   (function(v) -> the label above a bar; default the value in units, one
--   decimal)
-- @treturn string the SVG text
function svg.grouped_bars(c)
  local g = frame(c, #c.categories)
  local max_v = 0
  for _, s in ipairs(c.series) do
    for i = 1, g.n do max_v = math.max(max_v, s.values[i] or 0) end
  end
  value_scale(g, max_v, c.lines)
  g.slot = g.plot_w / math.max(1, g.n)
  local doc = svg.document(g.width, g.height)
  heading(doc, g, c)
  draw_axis(doc, g, c)
  local k_n = #c.series
  local bar_w = math.min(40, g.slot * 0.8 / math.max(1, k_n))
  local fmt = c.value_format or function(v) return string.format("%.1f", v / g.unit) end
  for i = 1, g.n do
    local x0 = g.left + (i - 0.5) * g.slot - bar_w * k_n / 2
    for k, s in ipairs(c.series) do
      local v = s.values[i]
      if v then
        local x, y = x0 + (k - 1) * bar_w, g.y_of(math.max(0, v))
        doc:open_group(string.format("%s, %s: %.2f %s", c.categories[i], s.name, v / g.unit, c.unit_name or ""))
        doc:rect(x, y, bar_w - 1, g.top + g.plot_h - y, { fill = color_of(c.series, k) })
        doc:close_group()
        if bar_w >= 22 then
          doc:text(x + bar_w / 2, y - 4, fmt(v), { text_anchor = "middle", font_size = 10, fill = "#333333" })
        end
      end
    end
    doc:text(g.left + (i - 0.5) * g.slot, g.top + g.plot_h + 16, c.categories[i], { text_anchor = "middle" })
  end
  draw_lines(doc, g, c)
  draw_legend(doc, g, { series = c.series, legend_title = c.legend_title or "series", forward = true })
  return doc:render()
end

--- Writes text to a file; raises a bad-input error when it cannot.
function svg.write(path, text)
  require("nd.files").write(path, text, "the chart")
end

return svg
