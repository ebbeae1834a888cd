-- nd.study (lua/nd/study.lua, lua/nd/study/format.lua): sweeps, bisection,
-- side-by-side tables and tables with units, and the errors naming a wrong
-- argument. The numbers are written here, so each expected text follows
-- from them by hand.
local study = require "nd.study"
local format = require "nd.study.format"

local GiB, MiB = 2 ^ 30, 2 ^ 20

local function message(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

describe("study.sweep", function()
  it("makes a row of each value: the function's fields and the value under the dimension's name", function()
    local rows = study.sweep("tp", { 1, 2, 4 }, function(tp) return { peak_bytes = 8 * GiB // tp } end)
    assert.are.same({ { tp = 1, peak_bytes = 8 * GiB }, { tp = 2, peak_bytes = 4 * GiB },
                      { tp = 4, peak_bytes = 2 * GiB } }, rows)
  end)

  it("keeps a row for a value the function has no result for", function()
    local rows = study.sweep("seq", { 1, 2 }, function(s) if s == 1 then return { x = 1 } end end)
    assert.are.same({ { seq = 1, x = 1 }, { seq = 2 } }, rows)
  end)

  it("leaves the dimension's value to the function when it sets it", function()
    local rows = study.sweep("mode", { "a" }, function() return { mode = "A" } end)
    assert.are.equal("A", rows[1].mode)
  end)

  it("names a wrong argument, and a result that is no table", function()
    assert.matches("study.sweep: argument 1 (dimension) must be a string, got number",
                   message(study.sweep, 1, {}, print), 1, true)
    assert.matches("study.sweep: argument 2 (values) must be a non-empty list, got table",
                   message(study.sweep, "tp", {}, print), 1, true)
    assert.matches("study.sweep: argument 3 (fn) must be a function, got nil", message(study.sweep, "tp", { 1 }), 1,
                   true)
    assert.matches("study.sweep: fn returned number for tp = 2; it returns a table of results (or nil)",
                   message(study.sweep, "tp", { 2 }, function(v) return v end), 1, true)
  end)
end)

describe("study.largest", function()
  it("finds the largest value that passes a test holding up to a point, by bisection", function()
    local values = {}
    for v = 1, 100 do values[v] = v end
    local tested = {}
    local best, extra, calls = study.largest(values, function(v)
      tested[#tested + 1] = v
      return v <= 37, v * 10
    end)
    assert.are.same({ 37, 370 }, { best, extra })
    -- bisection over 100 values: at most ceil(log2(101)) = 7 tests
    assert.is_true(calls <= 7)
    assert.are.equal(#tested, calls)
  end)

  it("returns nil when no value passes, and the last when all do", function()
    assert.is_nil((study.largest({ 1, 2, 3 }, function() return false end)))
    assert.are.equal(3, (study.largest({ 1, 2, 3 }, function() return true end)))
  end)

  it("names a wrong argument", function()
    assert.matches("study.largest: argument 2 (test) must be a function, got string",
                   message(study.largest, { 1 }, "x"), 1, true)
  end)
end)

describe("the tables", function()
  it("print bytes in GiB from 1 GiB up, else MiB, one unit a column, with the unit", function()
    local lines = study.format_table({ { a_bytes = 3 * GiB, b_bytes = 512 * MiB }, { a_bytes = 512 * MiB,
                                       b_bytes = 1.5 * MiB } }, { "a_bytes", "b_bytes" })
    assert.are.same({ "       a          b", "3.00 GiB  512.0 MiB", "0.50 GiB    1.5 MiB" }, lines)
  end)

  it("print seconds, shares, rates and counts with their units; booleans as yes / no; nil as -", function()
    local lines = study.format_table({
      { step_time_s = 2.5, mfu = 0.413, tokens_per_s_per_device = 1093.4, params = 70.55e9, fits = true },
      { step_time_s = 0.125, mfu = 0.5, tokens_per_s_per_device = 12.6, params = 3e6 },
    }, { "step_time_s", "mfu", "tokens_per_s_per_device", "params", "fits" })
    -- widths: 9 ("step_time"), 6, 23 (the title), 7 ("70.55 B"), 4; "fits" holds no number: left aligned
    assert.are.same({
      "step_time     mfu  tokens_per_s_per_device   params  fits",
      "   2.50 s  41.3 %            1093 tokens/s  70.55 B  yes",
      "  0.125 s  50.0 %              13 tokens/s   3.00 M  -",
    }, lines)
  end)

  it("take titles, units, digits, formats and dotted keys from column tables", function()
    local lines = study.format_table({ { seq = 4096, parts = { dp_s = 0.25 }, peak_bytes = 2 * GiB } }, {
      { key = "seq", title = "sequence", unit = "tokens" }, { key = "parts.dp_s", title = "dp", digits = 1 },
      { key = "peak_bytes", title = "peak", format = function(v) return string.format("%d GiB!", v // GiB) end },
    })
    -- 0.25 s to one digit: printf's round-half-even of the exact binary 0.25 gives 0.2
    assert.are.same({ "   sequence     dp    peak", "4096 tokens  0.2 s  2 GiB!" }, lines)
  end)

  it("print every key, sorted, without columns; a text column left aligned, a number column right", function()
    assert.are.same({ "a     b", "xy  100", "z     2" },
                    study.format_table({ { a = "xy", b = 100 }, { a = "z", b = 2 } }))
  end)

  it("name a wrong argument", function()
    assert.matches("study.format_table: argument 1 (rows) must be a table, got nil", message(study.format_table), 1,
                   true)
    assert.matches("study.print_table: argument 2 (columns) must be a table, got string",
                   message(study.print_table, {}, "a"), 1, true)
    assert.matches("study.print_table: opts.width is no option (options: out, title)",
                   message(study.print_table, {}, nil, { width = 3 }), 1, true)
  end)
end)

describe("study.compare", function()
  local a = { peak_bytes = 3 * GiB, step_time_s = 2.5, strategy = "dp 8" }
  local b = { peak_bytes = 512 * MiB, step_time_s = 0.5, strategy = "dp 2 tp 4" }

  it("puts results side by side, a field a row, each row in its own unit", function()
    local rows, columns = study.compare({ { "A", a }, { "B", b } }, { "peak_bytes", "step_time_s", "strategy" })
    assert.are.same({ "field", "A", "B" }, { columns[1].key, columns[2].key, columns[3].key })
    assert.are.same({ "peak", "bytes", 3 * GiB, 512 * MiB }, { rows[1].field, rows[1].unit, rows[1].A, rows[1].B })
    -- the peak row's largest value is 3 GiB: both in GiB; the columns A and B hold numbers: right aligned
    assert.are.same({ "                  A          B", "peak       3.00 GiB   0.50 GiB",
                      "step_time    2.50 s    0.500 s", "strategy       dp 8  dp 2 tp 4" },
                    study.format_table(rows, columns))
  end)

  it("names a wrong item", function()
    assert.matches("study.compare: items[2] must be {label, values}, a name and a table of results",
                   message(study.compare, { { "A", a }, { "B" } }), 1, true)
    assert.matches("study.compare: argument 1 (items) must be a non-empty list, got nil", message(study.compare), 1,
                   true)
  end)
end)

describe("study.k and the units of keys", function()
  it("writes token counts in units of 1024", function()
    assert.are.same({ "4K", "128K", "1000", "1536" }, { study.k(4096), study.k(131072), study.k(1000), study.k(1536) })
  end)

  it("reads the unit from a key's name", function()
    assert.are.same({ "bytes", "s", "%", "tokens/s", "params", "bytes" },
                    { format.unit_of("peak_bytes"), format.unit_of("step_time_s"), format.unit_of("mfu"),
                      format.unit_of("tokens_per_s_per_device"), format.unit_of("params"),
                      format.unit_of("stages.total_bytes") })
    assert.is_nil(format.unit_of("dp"))
  end)
end)
