--- SVG charts, written as text with no dependency: a small document builder
-- and the charts ndlua draws with it (a stacked bar chart of memory per
-- pipeline stage; the search and the study library reuse both).
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
    local t = 0
    for _, s in ipairs(c.series) do t = t + math.max(0, s.values[i] or 0) end
    g.totals[i] = t
    max_v = math.max(max_v, t)
  end
  for _, l in ipairs(c.lines or {}) do max_v = math.max(max_v, l.value) end
  local top_v = max_v / g.unit
  if top_v <= 0 then top_v = 1 end
  g.step = nice_step(top_v * 1.05, 6)
  g.axis_top = math.ceil(top_v * 1.05 / g.step) * g.step
  g.slot = g.plot_w / math.max(1, g.n)
  function g.y_of(v) return g.top + g.plot_h - (v / g.unit) / g.axis_top * g.plot_h end
  return g
end

local function draw_axis(doc, g, c)
  local tick = 0
  while tick <= g.axis_top + g.step / 1000 do
    local y = g.y_of(tick * g.unit)
    doc:line(g.left, y, g.left + g.plot_w, y, { stroke = tick == 0 and "#333333" or "#dddddd", stroke_width = 1 })
    doc:text(g.left - 8, y + 4, num(tick), { text_anchor = "end", fill = "#333333" })
    tick = tick + g.step
  end
  doc:line(g.left, g.top, g.left, g.top + g.plot_h, { stroke = "#333333", stroke_width = 1 })
  local mid = g.top + g.plot_h / 2
  doc:text(18, mid, c.unit_name or "", { text_anchor = "middle", fill = "#333333",
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
      doc:rect(cx - bar_w / 2, y1, bar_w, y0 - y1, { fill = color_of(c.series, k), stroke = "#ffffff",
                                                     stroke_width = 0.5 })
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
    doc:text(cx, g.y_of(g.totals[i]) - 5, string.format("%.1f", g.totals[i] / g.unit),
             { text_anchor = "middle", font_size = 10, fill = marked and "#D55E00" or "#333333",
               font_weight = marked and "bold" or "normal" })
  end
end

-- Horizontal lines (the capacity), labelled inside the plot at the right.
local function draw_lines(doc, g, c)
  for _, l in ipairs(c.lines or {}) do
    local y = g.y_of(l.value)
    local color = l.color or "#222222"
    doc:line(g.left, y, g.left + g.plot_w, y, { stroke = color, stroke_width = 2, stroke_dasharray = "6 4" })
    doc:text(g.left + g.plot_w - 4, y - 6, l.label or "", { fill = color, font_size = 11, text_anchor = "end",
             font_weight = "bold" })
  end
end

-- The legend at the right, the top series first as the stack reads.
local function draw_legend(doc, g, c)
  local x, y = g.left + g.plot_w + 6, g.top + 40
  doc:text(x, y - 14, c.legend_title or "component", { font_weight = "bold" })
  for k = #c.series, 1, -1 do
    doc:rect(x, y - 10, 12, 12, { fill = color_of(c.series, k) })
    doc:text(x + 18, y, c.series[k].name)
    y = y + 18
  end
end

--- A stacked bar chart.
-- @tparam table c `categories` (bar labels), `series` ({name, values, color?}),
--   `lines` (horizontal lines {value, label, color?}), `unit` (values are
--   divided by it for the axis, default 1), `unit_name` (axis label unit),
--   `sublabels` (a second, smaller line under each bar label), `xlabel`
--   (the axis title under the bars), `title`, `subtitle`, `marked` (index
--   of a bar to draw in bold, e.g. the peak), `legend_title`, `width`, `height`
-- @treturn string the SVG text
function svg.stacked_bars(c)
  local g = layout(c)
  local doc = svg.document(g.width, g.height)
  if c.title then doc:text(g.left, 24, c.title, { font_size = 16, font_weight = "bold" }) end
  if c.subtitle then doc:text(g.left, 42, c.subtitle, { fill = "#444444" }) end
  draw_axis(doc, g, c)
  for i = 1, g.n do draw_bar(doc, g, c, i) end
  draw_lines(doc, g, c)
  draw_legend(doc, g, c)
  return doc:render()
end

--- Writes text to a file; raises a bad-input error when it cannot.
function svg.write(path, text)
  local f, err = io.open(path, "w")
  if not f then
    require("nd.errors").raise { path = path, message = "cannot write the chart: " .. tostring(err) }
  end
  f:write(text)
  f:close()
end

return svg
