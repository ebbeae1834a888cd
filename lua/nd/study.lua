--- nd.study: a small library for what-if studies over the nd API. A study
-- runs a function over a list of values (a sweep), puts the results side
-- by side, prints them with their units, and draws them.
--
--   local nd = require "nd"
--   local study = nd.study                 -- or require "nd.study"
--   local model, run = nd.load("train.yaml", {devices = 64})
--   local rows = study.sweep("seq_length", {4096, 8192, 16384}, function(seq)
--     local e = nd.estimate(model, run:with{seq_length = seq})
--     return {peak_bytes = e.peak_bytes, fits = e.fits}
--   end)
--   study.print_table(rows, {"seq_length", "peak_bytes", "fits"})
--   nd.write_svg("memory.svg", study.svg_lines{rows = rows, x = "seq_length", y = "peak_bytes"})
--
-- Rows are plain tables; numbers keep ndlua's units in their names
-- (`*_bytes`, `*_s`), and print_table and the charts print them in MiB or
-- GiB and seconds accordingly (nd.study.format).
-- @module nd.study

local check = require "nd.api.check"
-- nd.study.format loads at the first table or value formatted, and
-- nd.study.charts (and nd.svg with it) at the first chart drawn: nd holds
-- nd.study, and estimate.lua and most scripts use neither.
local function format() return require "nd.study.format" end
local function charts() return require "nd.study.charts" end

local study = {}

--- Runs `fn` for each value and collects a row for each.
-- @tparam string dimension the name of what varies (a key of each row)
-- @tparam table values the values, in order
-- @tparam function fn `fn(value)` -> a table of results (or nil for none)
-- @treturn table the rows: `fn`'s fields, with `row[dimension] = value`
-- @usage study.sweep("tp", {1, 2, 4, 8}, function(tp) return {peak_bytes = ...} end)
function study.sweep(dimension, values, fn)
  check.arg("study.sweep", 1, "dimension", dimension, "string")
  check.arg("study.sweep", 2, "values", values, "list")
  check.arg("study.sweep", 3, "fn", fn, "function")
  local rows = {}
  for i, v in ipairs(values) do
    local r = fn(v)
    if r ~= nil and type(r) ~= "table" then
      error(string.format("study.sweep: fn returned %s for %s = %s; it returns a table of results (or nil)",
                          type(r), dimension, tostring(v)), 2)
    end
    local row = {}
    for k, x in pairs(r or {}) do row[k] = x end
    if row[dimension] == nil then row[dimension] = v end
    rows[i] = row
  end
  return rows
end

--- The largest of sorted values for which `test` holds, by bisection: the
-- test must hold up to some value and fail beyond it (as "fits in memory"
-- does for growing sequence lengths).
-- @tparam table values ascending values
-- @tparam function test `test(value)` -> truthy when it holds, and any
--   second result (kept for the answer)
-- @return the largest value that passes, or nil when none does
-- @return the second result of `test` for it
-- @treturn integer the tests run
function study.largest(values, test)
  check.arg("study.largest", 1, "values", values, "list")
  check.arg("study.largest", 2, "test", test, "function")
  local lo, hi, best, extra, calls = 1, #values, nil, nil, 0
  while lo <= hi do
    local mid = (lo + hi) // 2
    local ok, data = test(values[mid])
    calls = calls + 1
    if ok then
      best, extra, lo = mid, data, mid + 1
    else
      hi = mid - 1
    end
  end
  return best and values[best], extra, calls
end

--- Puts results side by side: one row per field, one column per item.
-- @tparam table items `{{label, values}, ...}`: each a name and a table
-- @tparam[opt] table fields the keys to show (or `{key, title, unit}`
--   tables), in order; nil: the first item's keys, sorted
-- @treturn table rows `{field = title, unit = unit, [label] = value, ...}`
-- @treturn table the columns for print_table
-- @usage study.print_table(study.compare({{"A", a}, {"B", b}}, {"peak_bytes", "step_time_s"}))
function study.compare(items, fields)
  check.arg("study.compare", 1, "items", items, "list")
  check.arg("study.compare", 2, "fields", fields, "table", true)
  for i, item in ipairs(items) do
    if type(item) ~= "table" or item[1] == nil or type(item[2]) ~= "table" then
      error(string.format("study.compare: items[%d] must be {label, values}, a name and a table of results", i), 2)
    end
  end
  local fmt = format()
  local cols = fmt.columns(fields, { items[1][2] })
  local columns = { { key = "field", title = "" } }
  for i, item in ipairs(items) do columns[i + 1] = { key = tostring(item[1]), unit = "row" } end
  local rows = {}
  for r, col in ipairs(cols) do
    local row = { field = col.title, unit = col.unit, largest = 0 }
    for _, item in ipairs(items) do
      local v = fmt.get(item[2], col.key)
      if col.format then v = col.format(v, item[2]) end
      row[tostring(item[1])] = v
      if type(v) == "number" then row.largest = math.max(row.largest, math.abs(v)) end
    end
    rows[r] = row
  end
  return rows, columns
end

--- The lines of a table with units (see nd.study.format for columns).
-- @tparam table rows a list of tables
-- @tparam[opt] table columns keys (units from their names) or
--   `{key, title, unit, format}` tables; nil: every key, sorted
-- @treturn table the lines
function study.format_table(rows, columns)
  check.arg("study.format_table", 1, "rows", rows, "table")
  check.arg("study.format_table", 2, "columns", columns, "table", true)
  return format().lines(rows, columns)
end

--- Prints a table with units: bytes in MiB or GiB, seconds as "s".
-- @tparam table rows a list of tables
-- @tparam[opt] table columns as format_table
-- @tparam[opt] table opts `title` (a line above), `out` (a file; default io.stdout)
function study.print_table(rows, columns, opts)
  check.arg("study.print_table", 1, "rows", rows, "table")
  check.arg("study.print_table", 2, "columns", columns, "table", true)
  opts = check.options("study.print_table", 3, opts, { title = "string", out = "any" })
  local out = opts.out or io.stdout
  if opts.title then out:write(opts.title, "\n") end
  for _, line in ipairs(format().lines(rows, columns)) do out:write(line, "\n") end
end

local function chart_opts(fname, o)
  check.arg(fname, 1, "o", o, "table", false, 1)
  check.arg(fname, "o.rows", "rows", o.rows, "list", false, 1)
  check.arg(fname, "o.x", "x", o.x, "string", false, 1)
  if o.y == nil and o.ys == nil then
    error(fname .. ": o.y (the key plotted) or o.ys (several keys) must be given", 3)
  end
  check.arg(fname, "o.y", "y", o.y, "string", true, 1)
  check.arg(fname, "o.ys", "ys", o.ys, "list", true, 1)
end

--- A line chart of rows (memory against sequence length, step time
-- against devices); see nd.study.charts.lines for the options.
-- @treturn string the SVG text
function study.svg_lines(o)
  chart_opts("study.svg_lines", o)
  return charts().lines(o)
end

--- A bar chart of rows, grouped (or `stacked = true`); see
-- nd.study.charts.bars for the options.
-- @treturn string the SVG text
function study.svg_bars(o)
  chart_opts("study.svg_bars", o)
  return charts().bars(o)
end

--- The memory of each pipeline stage of an nd.estimate result, stacked by
-- component, against the capacity.
-- @tparam table est nd.estimate's result
-- @tparam[opt] table o `title`, `subtitle`, `layers` (a count a stage)
-- @treturn string the SVG text
function study.svg_stages(est, o)
  if type(est) ~= "table" or type(est.stages) ~= "table" then
    check.fail("study.svg_stages", 1, "est", "what nd.estimate returns", est)
  end
  check.arg("study.svg_stages", 2, "o", o, "table", true)
  return charts().stages(est, o)
end

--- A token count in units of 1024 ("32K" for 32768), else as it is: tick
-- labels of sequence lengths.
function study.k(n)
  if math.type(n) == "integer" and n >= 1024 and n % 1024 == 0 then return (n // 1024) .. "K" end
  return format().plain(n)
end

--- The unit a key's name implies (bytes, s, %, tokens/s, params), or nil.
function study.unit_of(...)
  return format().unit_of(...)
end
--- A number in a unit, with the unit: `study.value(3 * 2^30, "bytes")` is "3.00 GiB".
function study.value(...)
  return format().value(...)
end

return study
