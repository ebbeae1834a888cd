-- The SVG writer (lua/nd/svg.lua) estimate.lua draws its chart with: text
-- escaped, a nice axis, one rect per stacked part, the capacity line, and a
-- document a browser renders (checked by hand with headless Chromium while
-- it was written; here its structure).
local svg = require "nd.svg"

local function count(text, needle)
  local n, i = 0, 1
  while true do
    local s, e = text:find(needle, i, true)
    if not s then return n end
    n, i = n + 1, e + 1
  end
end

describe("nd.svg", function()
  it("escapes text for XML", function()
    assert.are.equal("a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;", svg.escape([[a <b> & "c" 'd']]))
  end)

  it("steps an axis by 1, 2, 2.5 or 5 times a power of ten", function()
    assert.are.equal(10, svg.nice_step(60, 6))
    assert.are.equal(2, svg.nice_step(11, 6))
    assert.are.equal(0.25, svg.nice_step(1.4, 6))
    assert.are.equal(500, svg.nice_step(2900, 6))
  end)

  describe("a stacked bar chart", function()
    local text = svg.stacked_bars {
      title = "Memory <per> device", categories = { "0", "1", "2" },
      series = { { name = "params", values = { 2 * 2 ^ 30, 2 * 2 ^ 30, 2 * 2 ^ 30 } },
                 { name = "activations", values = { 10 * 2 ^ 30, 0, 4 * 2 ^ 30 } } },
      lines = { { value = 16 * 2 ^ 30, label = "capacity 16.00 GiB" } },
      unit = 2 ^ 30, unit_name = "GiB", marked = 1,
    }

    it("is one SVG document", function()
      assert.matches('^<%?xml version="1.0" encoding="UTF%-8"%?>\n<svg xmlns="http://www.w3.org/2000/svg"', text)
      assert.matches("</svg>\n$", text)
      assert.are.equal(count(text, "<g>"), count(text, "</g>"))
    end)

    it("draws a rect per non-zero part, plus the background and a legend entry per series", function()
      -- 3 params parts + 2 activations parts (stage 1 has none) + background + 2 legend keys
      assert.are.equal(3 + 2 + 1 + 2, count(text, "<rect"))
      assert.are.equal(5, count(text, "<title>"))
      assert.is_truthy(text:find("<title>2, activations: 4.00 GiB</title>", 1, true))
    end)

    it("draws the capacity as a dashed line with its label, and escapes the title", function()
      assert.is_truthy(text:find('stroke-dasharray="6 4"', 1, true))
      assert.is_truthy(text:find(">capacity 16.00 GiB</text>", 1, true))
      assert.is_truthy(text:find(">Memory &lt;per&gt; device</text>", 1, true))
    end)

    it("labels each bar with its total in the axis unit, the marked one in bold", function()
      assert.is_truthy(text:find('font%-weight="bold" text%-anchor="middle" x="[%d.]+" y="[%d.]+">12.0</text>'))
      assert.is_truthy(text:find(">2.0</text>", 1, true))
      assert.is_truthy(text:find(">6.0</text>", 1, true))
    end)
  end)

  it("writes a file, and refuses a path it cannot write as bad input", function()
    local path = os.tmpname()
    svg.write(path, "<svg/>")
    local f = assert(io.open(path))
    assert.are.equal("<svg/>", f:read("a"))
    f:close()
    os.remove(path)
    local ok, err = pcall(svg.write, "/nonexistent/dir/x.svg", "")
    assert.is_false(ok)
    assert.is_true(err.bad_input)
  end)
end)
