--- What a chart table of nd.svg's checked functions lacks (nd.api's
-- api.svg.stacked_bars, grouped_bars, line_chart): loaded at the first
-- chart checked, as nd.svg itself is.
-- @module nd.api.chart_check

local chart_check = {}

-- A finite number (not NaN, not an infinity).
local function finite(x)
  return type(x) == "number" and x == x and x > -math.huge and x < math.huge
end

-- What a chart table of nd.svg lacks: the words of what is wanted and the
-- value found, or nil when it is whole. `kind` "line" wants series of
-- {name, points = {{x, y}...}}; "bars" wants categories and series of
-- {name, values}, a value a number (or nil: no bar, grouped bars only).
function chart_check.fault(kind, c)
  for _, key in ipairs { "width", "height", "unit" } do
    if c[key] ~= nil and not (finite(c[key]) and c[key] > 0) then
      return "a chart whose " .. key .. " is a number above 0", c[key]
    end
  end
  if type(c.lines) == "table" then
    for i, l in ipairs(c.lines) do
      if type(l) ~= "table" or not finite(l.value) then
        return string.format("a chart whose lines[%d] is {value = a number, label}", i), l
      end
    end
  elseif c.lines ~= nil then
    return "a chart whose lines is a list of {value, label}", c.lines
  end
  if kind ~= "line" and (type(c.categories) ~= "table" or #c.categories == 0) then
    return "a chart with categories, a non-empty list of bar labels", c.categories
  end
  if type(c.series) ~= "table" or #c.series == 0 then
    return "a chart with series, a non-empty list of " .. (kind == "line" and "{name, points}" or "{name, values}"),
      c.series
  end
  for i, sr in ipairs(c.series) do
    local list = kind == "line" and "points" or "values"
    if type(sr) ~= "table" or type(sr[list]) ~= "table" then
      return string.format("a chart whose series[%d] has %s, a list", i, list), sr
    end
    if kind == "line" then
      for j, pt in ipairs(sr.points) do
        if type(pt) ~= "table" or not finite(pt[1]) or (pt[2] ~= nil and not finite(pt[2])) then
          return string.format("a chart whose series[%d].points[%d] is {x, y}, numbers", i, j), pt
        end
      end
    else
      for j = 1, #c.categories do
        local v = sr.values[j]
        if not (finite(v) or (v == nil and kind == "grouped")) then
          return string.format("a chart whose series[%d].values[%d] is a number (one a category)", i, j), v
        end
      end
    end
  end
end

return chart_check
