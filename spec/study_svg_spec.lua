-- The study library's charts (lua/nd/study/charts.lua) and the charts they
-- draw with in nd.svg (line_chart, grouped_bars): one document each, the
-- elements a series or a bar makes, the axes' units and scales. Each was
-- looked at once in headless Chromium while it was written (the report of
-- issue 8 says what the screenshots showed); here, their structure.
package.path = "spec/?.lua;" .. package.path
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local svg = require "nd.svg"
local study = require "nd.study"
local tiny = require "support.tiny"

local GiB = 2 ^ 30

local function count(text, needle)
  local n, i = 0, 1
  while true do
    local s, e = text:find(needle, i, true)
    if not s then return n end
    n, i = n + 1, e + 1
  end
end

local function message(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

local function is_document(text)
  assert.matches('^<%?xml version="1.0" encoding="UTF%-8"%?>\n<svg xmlns="http://www.w3.org/2000/svg"', text)
  assert.matches("</svg>\n$", text)
  assert.are.equal(count(text, "<g"), count(text, "</g>"))
end

-- The y pixel of each circle, in order.
local function circle_ys(text)
  local ys = {}
  for y in text:gmatch('<circle [^>]*cy="(%-?[%d.]+)"') do ys[#ys + 1] = tonumber(y) end
  return ys
end

describe("nd.svg.line_chart", function()
  local c = {
    title = "Peak <by> length", unit = GiB, unit_name = "GiB",
    series = { { name = "off",
                 points = { { 4096, 10 * GiB }, { 8192, 20 * GiB }, { 16384, nil }, { 32768, 40 * GiB } } },
               { name = "full", points = { { 4096, 5 * GiB }, { 8192, 6 * GiB } }, dash = "6 4" } },
    lines = { { value = 30 * GiB, label = "capacity 30.00 GiB" } }, log_x = true,
  }
  local text = svg.line_chart(c)

  it("is one SVG document, its series inside the plot area's clip", function()
    is_document(text)
    assert.are.equal(1, count(text, '<clipPath id="plot-area">'))
    assert.are.equal(1, count(text, '<g clip-path="url(#plot-area)">'))
  end)

  it("draws a polyline a run of points (a point without y breaks the line) and a circle a point", function()
    -- off: {4096, 8192} then a break, then {32768} alone (no polyline); full: {4096, 8192}
    assert.are.equal(2, count(text, "<polyline"))
    assert.are.equal(5, count(text, "<circle"))
    assert.are.equal(1, count(text, 'stroke-dasharray="6 4" stroke-width="2.5"'))
    assert.is_truthy(text:find("<title>off at 32768: 40.00 GiB</title>", 1, true))
  end)

  it("puts x on a log2 scale: 4096, 8192 and 32768 at 0, 1 and 3 steps of one doubling", function()
    local xs = {}
    for x in text:gmatch('<circle cx="([%d.]+)"') do xs[#xs + 1] = tonumber(x) end
    local step = xs[2] - xs[1]
    assert.are.near(3 * step, xs[3] - xs[1], 0.02)
  end)

  it("draws the value axis from 0, the capacity line and the escaped title", function()
    assert.is_truthy(text:find(">capacity 30.00 GiB</text>", 1, true))
    assert.is_truthy(text:find(">Peak &lt;by&gt; length</text>", 1, true))
    assert.is_truthy(text:find('y="[%d.]+">0</text>'))
  end)

  it("cuts the axis at y_max: the top of the plot is y_max", function()
    local cut = svg.line_chart { unit = GiB, y_max = 20 * GiB, series = { { name = "s", points = { { 1, 20 * GiB },
      { 2, 40 * GiB } } } } }
    -- frame: top 56; the first point at y_max sits on the top edge, the second above it (cut off)
    local ys = circle_ys(cut)
    assert.are.near(56, ys[1], 0.01)
    assert.is_true(ys[2] < 56)
  end)

  it("puts y on a log10 scale with log_y: 1, 10 and 100 s evenly apart, ticks at 1, 2 and 5 times", function()
    local logy = svg.line_chart { log_y = true, unit = 1, unit_name = "s",
                                  series = { { name = "s", points = { { 1, 100 }, { 2, 10 }, { 4, 1 } } } } }
    local ys = circle_ys(logy)
    assert.are.near(ys[3] - ys[2], ys[2] - ys[1], 0.02)
    for _, tick in ipairs({ "1", "2", "5", "10", "20", "50", "100" }) do
      assert.is_truthy(logy:find('y="[%d.]+">' .. tick .. "</text>"), tick)
    end
  end)
end)

describe("nd.svg.grouped_bars", function()
  local text = svg.grouped_bars {
    categories = { "1", "2" }, unit = GiB, unit_name = "GiB",
    series = { { name = "selective", values = { 40 * GiB, 60 * GiB } }, { name = "full", values = { 30 * GiB, nil } } },
    lines = { { value = 64 * GiB, label = "capacity 64.00 GiB", at = "left" } },
  }

  it("draws a bar a value side by side, none for a missing one, with its value above", function()
    is_document(text)
    -- 3 bars + the background + 2 legend keys
    assert.are.equal(3 + 1 + 2, count(text, "<rect"))
    assert.is_truthy(text:find("<title>2, selective: 60.00 GiB</title>", 1, true))
    assert.is_truthy(text:find(">60.0</text>", 1, true))
    assert.is_falsy(text:find("<title>2, full", 1, true))
  end)

  it("labels a line at the left when asked", function()
    -- the plot's left edge is 70: the label starts 4 pixels in
    assert.is_truthy(text:find('text%-anchor="start" x="74" y="[%d.]+">capacity 64.00 GiB</text>'))
  end)
end)

describe("study.svg_lines and study.svg_bars", function()
  local rows = {
    { seq = 4096, recompute = "off", peak_bytes = 10 * GiB }, { seq = 8192, recompute = "off", peak_bytes = 20 * GiB },
    { seq = 4096, recompute = "full", peak_bytes = 5 * GiB }, { seq = 8192, recompute = "full", peak_bytes = 6 * GiB },
  }

  it("draws a line a value of `series`, in GiB from the key's name", function()
    local text = study.svg_lines { rows = rows, x = "seq", y = "peak_bytes", series = "recompute", log_x = true,
                                   x_format = study.k }
    is_document(text)
    assert.are.equal(2, count(text, "<polyline"))
    assert.is_truthy(text:find(">peak (GiB)</text>", 1, true))
    assert.is_truthy(text:find(">8K</text>", 1, true))
    assert.is_truthy(text:find("<title>full at 8K: 6.00 GiB</title>", 1, true))
    assert.is_truthy(text:find(">recompute</text>", 1, true)) -- the legend's title
  end)

  it("draws a line a key of `ys`, named by `names`", function()
    local text = study.svg_lines { rows = { { n = 1, a_s = 1, b_s = 2 }, { n = 2, a_s = 2, b_s = 3 } }, x = "n",
                                   ys = { "a_s", "b_s" }, names = { a_s = "measured" } }
    assert.are.equal(2, count(text, "<polyline"))
    assert.is_truthy(text:find(">measured</text>", 1, true))
    assert.is_truthy(text:find(">b</text>", 1, true))
    assert.is_truthy(text:find(">s</text>", 1, true)) -- several keys: the axis says the unit
  end)

  it("groups bars by category and series, or stacks the keys", function()
    local grouped = study.svg_bars { rows = rows, x = "seq", y = "peak_bytes", series = "recompute" }
    assert.are.equal(4 + 1 + 2, count(grouped, "<rect"))
    local stacked = study.svg_bars { rows = { { n = 1, a_bytes = GiB, b_bytes = 2 * GiB } }, x = "n",
                                     ys = { "a_bytes", "b_bytes" }, stacked = true }
    assert.are.equal(2 + 1 + 2, count(stacked, "<rect"))
    assert.is_truthy(stacked:find(">3.0</text>", 1, true)) -- the bar's total in GiB
  end)

  it("names a wrong argument", function()
    assert.matches("study.svg_lines: argument 1 (o) must be a table, got nil", message(study.svg_lines), 1, true)
    assert.matches("study.svg_lines: o.rows must be a non-empty list, got table",
                   message(study.svg_lines, { rows = {}, x = "a", y = "b" }), 1, true)
    assert.matches("study.svg_bars: o.y (the key plotted) or o.ys (several keys) must be given",
                   message(study.svg_bars, { rows = rows, x = "seq" }), 1, true)
    assert.matches("study.svg_bars: o.x must be a string, got number", message(study.svg_bars, { rows = rows, x = 1 }),
                   1, true)
  end)
end)

describe("study.svg_stages", function()
  it("stacks each stage's components, marks the peak stage and draws the capacity", function()
    local est = nd.estimate(tiny.dense { num_hidden_layers = 4 }, nd.run { pp = 2 })
    local text = study.svg_stages(est, { title = "tiny", layers = { 2, 2 } })
    is_document(text)
    -- a rect for each stage's non-zero component, the background, a legend key for each component
    -- some stage has
    local parts, components = 0, 0
    for _, k in ipairs({ "params", "grads", "optimizer", "main_params", "activations", "comm", "backward_overhead",
                         "reserve" }) do
      local any = false
      for _, s in ipairs(est.stages) do
        if s[k] > 0 then parts, any = parts + 1, true end
      end
      if any then components = components + 1 end
    end
    assert.are.equal(parts + 1 + components, count(text, "<rect"))
    assert.is_truthy(text:find(">capacity 64.00 GiB</text>", 1, true))
    assert.is_truthy(text:find(">2 layers</text>", 1, true))
  end)

  it("names a wrong argument", function()
    assert.matches("study.svg_stages: argument 1 (est) must be what nd.estimate returns, got table",
                   message(study.svg_stages, {}), 1, true)
  end)
end)
