--- The study-facing functions of the nd module, behind the documented
-- wrappers in lua/nd/init.lua (see there, and examples/README.md, for the
-- reference): loading a train.yaml, the memory model and the time model
-- with their arguments checked, hardware profiles, census records, a
-- search candidate as a run, and the writers (CSV, JSON, YAML, SVG).
-- Each function checks its arguments first (nd.api.check); the C core
-- and the Lua library behind them do the work.
-- @module nd.api

local core = require "nd.core"
local check = require "nd.api.check"
local train_yaml = require "nd.train_yaml"
local warnings = require "nd.warnings"
local hardware = require "nd.hardware"
local errors = require "nd.errors"
local models = require "nd.model"
local table_report = require "nd.report.table"
local files = require "nd.files"

local api = {}

-- nd.census and nd.svg (and nd.census.record) load at their first use:
-- estimate.lua and most studies read no census and draw no chart.
local function census() return require "nd.census" end

-- A library as a script sees it through nd (nd.svg, nd.census, nd.units):
-- `t`, whose metatable's __index is the module `name` once it is loaded;
-- until then, the first read of a name `t` does not hold loads it. (The
-- prompt's completion walks that __index table: src/program/repl.c loads
-- such a library as the prompt starts.)
local function library(t, name)
  local mt = { __index = package.loaded[name] }
  if mt.__index == nil then
    mt.__index = function(_, key)
      local lib = require(name)
      mt.__index = lib
      return lib[key]
    end
  end
  return setmetatable(t, mt)
end

--- The module `name` as nd holds it when most scripts never use it
-- (nd.study: estimate.lua's start skips its load): the table require(name)
-- gives, empty until a name of it is first read or set or it is walked
-- with pairs, when `load` (the module's require) runs and its names are
-- copied in. package.loaded[name] is this table throughout, so require
-- gives the same table before and after; a module already loaded is
-- returned as it is. (The prompt's completion walks it once filled:
-- src/program/repl.c reads a name of each such table as it starts.)
function api.filled_on_use(name, load)
  if package.loaded[name] ~= nil then return package.loaded[name] end
  local t = {}
  local function fill()
    setmetatable(t, nil)
    package.loaded[name] = nil
    local ok, module = pcall(load)
    package.loaded[name] = t
    if not ok then error(module, 0) end
    for k, v in pairs(module) do t[k] = v end
  end
  package.loaded[name] = setmetatable(t, {
    __index = function(_, key) fill() return t[key] end,
    __newindex = function(_, key, value) fill() t[key] = value end,
    __pairs = function() fill() return next, t, nil end,
  })
  return t
end

local LOAD_OPTIONS = { devices = "positive", device_memory = "size", overrides = "table", quiet = "boolean" }

--- Loads a train.yaml: see nd.load.
function api.load(path, opts)
  check.arg("nd.load", 1, "path", path, "string")
  opts = check.options("nd.load", 2, opts, LOAD_OPTIONS)
  local collector = warnings.new { echo = not opts.quiet }
  local parsed = train_yaml.load(path, { devices = opts.devices, device_memory = opts.device_memory,
                                         overrides = opts.overrides, warnings = collector })
  local model, run = train_yaml.build(parsed)
  local extras = {
    path = path, warnings = collector:all(), source = parsed.source, schema = parsed.schema, spec = parsed.model,
    run_table = parsed.run, device_memory_source = parsed.device_memory_source, parsed = parsed,
  }
  return model, run, extras
end

-- The note of an estimate whose core priced layers of torchtitan's per-op
-- rule by HyperParallel's switches instead (its op_sac_fallback).
local OP_SAC_NOTE = "selective_rule torchtitan: its per-op checkpointing is priced for dense full-attention "
  .. "layers; the MoE, MLA and linear-attention layers here are priced by HyperParallel's selective switches instead"

--- nd.estimate with its arguments checked; the core's fallback flag and its
-- caution about a layout the search refuses (src/core/layout.c) worded as
-- notes, each with the key it is about in `note_keys`.
function api.estimate(model, run)
  check.arg("nd.estimate", 1, "model", model, "model")
  check.arg("nd.estimate", 2, "run", run, "run")
  local e = core.estimate(model, run)
  local notes, keys = {}, {}
  if e.op_sac_fallback then notes[1], keys[1] = OP_SAC_NOTE, "activation_checkpoint.mode" end
  if e.layout_caution then notes[#notes + 1], keys[#keys + 1] = e.layout_caution, "accelerator.sequence_parallel" end
  e.op_sac_fallback, e.layout_caution = nil, nil
  if #notes > 0 then e.notes, e.note_keys = notes, keys end
  return e
end

--- nd.layout with its arguments checked.
function api.layout(model, run)
  check.arg("nd.layout", 1, "model", model, "model")
  check.arg("nd.layout", 2, "run", run, "run")
  return core.layout(model, run)
end

-- A deep copy of plain data.
local function copy(t)
  if type(t) ~= "table" then return t end
  local out = {}
  for k, v in pairs(t) do out[k] = copy(v) end
  return out
end

--- A hardware profile by name: see nd.hardware.
function api.hardware(name)
  check.arg("nd.hardware", 1, "name", name, "string")
  return copy(hardware.load(name, "nd.hardware"))
end

--- The names of the hardware profiles on the Lua path.
function api.hardware_names()
  return hardware.names()
end

--- A profile from a name or a table, for the time model and the search:
-- the profile (as hardware.load returns it) and the C core's table. A
-- table with `levels` and no `name` is taken as the core's table itself.
-- @tparam string fname the calling function, for messages
-- @param n the argument's place, or the option's name
-- @tparam[opt] integer level frames between the checked function and this call
function api.profile_of(fname, n, hw, level)
  if hw == nil then hw = hardware.DEFAULT end
  if type(hw) == "string" then
    local p = hardware.load(hw, type(n) == "number" and fname or (fname .. ": " .. n))
    return p, hardware.core(p)
  end
  if type(hw) ~= "table" or type(hw.levels) ~= "table" then
    check.fail(fname, n, "hardware", "a hardware profile's name (\"H100\") or table (nd.hardware)", hw,
               1 + (level or 0))
  end
  if hw.name then return hw, hardware.core(hw) end
  return { name = "custom", levels = hw.levels }, hw
end

--- The time model of one run: see nd.step_time.
function api.step_time(model, run, hw)
  check.arg("nd.step_time", 1, "model", model, "model")
  check.arg("nd.step_time", 2, "run", run, "run")
  local profile, core_hw = api.profile_of("nd.step_time", 3, hw)
  local spec = run:spec()
  if spec.runtime and profile.levels and profile.peak_tflops then
    core_hw = hardware.core(profile, spec.runtime, spec.overlapped_grad_reduce == true)
  end
  local t = core.step_time(model, run, core_hw)
  t.hardware = profile.name
  return t
end

--- A model priced from census records: see nd.with_census.
function api.with_census(model, records)
  check.arg("nd.with_census", 1, "model", model, "model")
  if type(records) == "string" then
    records = census().load(records)
  elseif type(records) ~= "table" or type(records.activations) ~= "table" then
    check.fail("nd.with_census", 2, "census", "a census file's path or what nd.census.load returns", records)
  end
  return models.new(census().attach(model:spec(), records))
end

--- The run of a search candidate: see nd.candidate_run. The run is the one
-- the search priced (the C core's search_candidate_run, through
-- nd.core.candidate_run).
function api.candidate_run(run, c)
  check.arg("nd.candidate_run", 1, "run", run, "run")
  if type(c) ~= "table" or math.type(c.dp) ~= "integer" or type(c.recompute) ~= "string" then
    check.fail("nd.candidate_run", 2, "candidate", "a candidate of nd.search", c)
  end
  return core.candidate_run(run, c)
end

-- Writes a whole output: "-" to standard output (a failed write there is
-- seen when ndlua closes it at exit: "ndlua: cannot write the standard
-- output", status 2), any other path through nd.files.write, the command
-- line's writer (a temporary file beside it, every step checked, renamed
-- over it only once whole, so a failure leaves the old file as it was and
-- raises a bad-input error naming the file).
local function write_text(path, text, what)
  if path == "-" then return io.stdout:write(text) end
  files.write(path, text, what)
end

--- Whether rows are nd.search's candidates (they print and write as
-- search.lua's do: nd.report.table, nd.report.csv).
function api.are_candidates(rows)
  local c = rows[1]
  return type(c) == "table" and type(c.parts) == "table" and c.rank ~= nil and c.dp ~= nil
end

--- Rows as CSV: see nd.write_csv.
function api.write_csv(path, rows, columns)
  check.arg("nd.write_csv", 1, "path", path, "string")
  check.arg("nd.write_csv", 2, "rows", rows, "table")
  check.arg("nd.write_csv", 3, "columns", columns, "table", true)
  if columns == nil and api.are_candidates(rows) then
    local csv_report = require "nd.report.csv"
    local lines = { csv_report.header() }
    for _, c in ipairs(rows) do lines[#lines + 1] = csv_report.row(c) end
    return write_text(path, table.concat(lines, "\n") .. "\n", "the CSV")
  end
  local csv_cell = require("nd.report.csv").cell
  local format = require "nd.study.format" -- loaded here: nd's start writes no CSV
  local cols = format.columns(columns, rows)
  local lines, head = {}, {}
  for j, col in ipairs(cols) do head[j] = csv_cell(col.key) end
  lines[1] = table.concat(head, ",")
  for i, row in ipairs(rows) do
    local cells = {}
    for j, col in ipairs(cols) do cells[j] = csv_cell(format.get(row, col.key)) end
    lines[i + 1] = table.concat(cells, ",")
  end
  write_text(path, table.concat(lines, "\n") .. "\n", "the CSV")
end

--- A value as JSON: see nd.write_json.
function api.write_json(path, value)
  check.arg("nd.write_json", 1, "path", path, "string")
  write_text(path, core.json.encode(value, { indent = 2 }) .. "\n", "the JSON")
end

--- A value as YAML: see nd.write_yaml.
function api.write_yaml(path, value)
  check.arg("nd.write_yaml", 1, "path", path, "string")
  write_text(path, core.yaml.encode(value), "the YAML")
end

--- SVG text to a file: see nd.write_svg.
function api.write_svg(path, text)
  check.arg("nd.write_svg", 1, "path", path, "string")
  check.arg("nd.write_svg", 2, "svg", text, "string")
  if not text:find("<svg", 1, true) then
    check.fail("nd.write_svg", 2, "svg", "SVG text (from nd.study or nd.svg)", text)
  end
  if path == "-" then return write_text(path, text, "the chart") end
  require("nd.svg").write(path, text)
end

--- Census records as a script sees them (nd.census): nd.census's
-- functions, `attach` with its arguments checked.
api.census = library({
  attach = function(spec, records)
    check.arg("nd.census.attach", 1, "spec", spec, "table")
    check.arg("nd.census.attach", 2, "records", records, "table")
    return census().attach(spec, records)
  end,
}, "nd.census")

--- Rows as a table with units: see nd.print_table.
function api.print_table(rows, columns, opts)
  if columns == nil and type(rows) == "table" and api.are_candidates(rows) then
    local out = type(opts) == "table" and opts.out or io.stdout
    for _, line in ipairs(table_report.table(rows)) do out:write(line, "\n") end
    return
  end
  return require("nd.study").print_table(rows, columns, opts)
end

-- A library module (`name`) as a script sees it: each function named in
-- `signatures` checks its arguments (a wrong one is an error naming it)
-- before the library's own, which the reports call unchecked.
local function checked(name, signatures)
  local t = {}
  for fname, args in pairs(signatures) do
    t[fname] = function(...)
      for i, a in ipairs(args) do
        check.arg(name .. "." .. fname, i, a[1], (select(i, ...)), a[2], a[3])
      end
      return require(name)[fname](...)
    end
  end
  return library(t, name)
end

-- A finite number (not NaN, not an infinity).
local function finite(x)
  return type(x) == "number" and x == x and x > -math.huge and x < math.huge
end

-- What a chart table of nd.svg lacks: the words of what is wanted and the
-- value found, or nil when it is whole. `kind` "line" wants series of
-- {name, points = {{x, y}...}}; "bars" wants categories and series of
-- {name, values}, a value a number (or nil: no bar, grouped bars only).
local function chart_fault(kind, c)
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

local function checked_chart(kind, name)
  return function(c)
    check.arg("nd.svg." .. name, 1, "chart", c, "table")
    local words, v = chart_fault(kind, c)
    if words then check.fail("nd.svg." .. name, 1, "chart", words, v) end
    return require("nd.svg")[name](c)
  end
end

--- nd.svg: SVG documents and charts, checked: every argument, and each
-- chart table's categories, series, points and values, so a wrong one is
-- named rather than failing inside the drawing.
api.svg = checked("nd.svg", {
  escape = { { "text", "string" } }, document = { { "width", "positive" }, { "height", "positive" } },
  write = { { "path", "string" }, { "text", "string" } },
})
api.svg.stacked_bars = checked_chart("stacked", "stacked_bars")
api.svg.grouped_bars = checked_chart("grouped", "grouped_bars")
api.svg.line_chart = checked_chart("line", "line_chart")

--- nd.units: sizes and times as text, checked.
api.units = checked("nd.units", {
  format_bytes = { { "bytes", "number" }, { "decimals", "number", true } },
  gib = { { "bytes", "number" }, { "decimals", "number", true } },
  mib = { { "bytes", "number" }, { "decimals", "number", true } },
  seconds = { { "seconds", "number" } }, count = { { "n", "number" } },
})

return api
