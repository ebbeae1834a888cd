--- The validation harness: ndlua's estimates against published measured
-- runs (issue 12). A case file (`spec/validation/*.lua`) returns a list of
-- cases, plain tables:
--
--   { id = "megatron-pr482-dp8", set = "calibration", group = "megatron memory", kind = "memory",
--     source = "Megatron-LM PR #482 ...", config = "Llama-2-7B, DP 8, ...",
--     model = "meta-llama/Llama-2-7b-hf",        -- a hub id, or a model spec table
--     run = { dp = 8, ... },                     -- nd.run's fields
--     hardware = "H100",                         -- time cases
--     metric = "allocated", measured = 69.1, unit = "GB", tolerance = 0.03,
--     note = "what is assumed and why",
--     known_gap = "why it is over (optional)",
--     reached = 0.045,                          -- with known_gap: the |error| reached, a fraction
--     ndlua = function(result, model, run, case) ... end }  -- optional
--
-- `set` says what a case is evidence of: "calibration" when its data
-- informed a mechanism or a constant (or was looked at to check one; every
-- run measured in this project), "validation" when it was never looked at
-- while designing one. Only the validation set is evidence of accuracy.
--
-- `validation.evaluate(case)` builds the model and the run, prices them
-- (nd.estimate for memory, nd.step_time for time) and returns a row with
-- the measured value, ndlua's in the same unit, the signed error and
-- whether it is within the tolerance. A case that cannot be built (a model
-- or run nd refuses, a field missing) gives a row with status "error" and
-- the message: it is never skipped.
-- @module nd.validation

local warnings = require "nd.warnings"
local models = require "nd.model"
local runs = require "nd.run"
local api = require "nd.api"

local validation = {}

--- What one unit of each unit is worth in ndlua's base units (bytes for
-- sizes; seconds, percent, TFLOP/s and tokens/s are taken as they are).
validation.UNITS = {
  GB = 1e9, GiB = 2 ^ 30, s = 1, ["%"] = 1, ["TFLOP/s"] = 1, ["tokens/s"] = 1,
}

--- The metrics a case may name: its kind, the units it may be stated in,
-- and ndlua's value of it in base units from an estimate or a step time
-- (`devices` is the run's device count).
validation.METRICS = {
  allocated = { kind = "memory", units = { GB = true, GiB = true },
                value = function(e) return e.allocated_bytes or e.peak_bytes end },
  reserved = { kind = "memory", units = { GB = true, GiB = true },
               value = function(e) return e.reserved_bytes or e.peak_bytes end },
  step_time_s = { kind = "time", units = { s = true }, value = function(t) return t.step_time_s end },
  mfu = { kind = "time", units = { ["%"] = true }, value = function(t) return 100 * t.mfu end },
  tflops_per_gpu = { kind = "time", units = { ["TFLOP/s"] = true },
                     value = function(t, devices) return t.model_flops / (t.step_time_s * devices) / 1e12 end },
  tokens_per_s_per_device = { kind = "time", units = { ["tokens/s"] = true },
                              value = function(t) return t.tokens_per_s_per_device end },
}

--- The two sets a case belongs to, in the order they are reported.
validation.SETS = { "calibration", "validation" }

--- The kinds of case, in the order they are reported.
validation.KINDS = { "memory", "time" }

local REQUIRED = { "id", "set", "group", "kind", "source", "config", "model", "run", "metric", "measured", "unit",
                   "tolerance", "note" }

--- The problems of a case's fields, as one text, or nil when it is whole.
function validation.check_case(case)
  if type(case) ~= "table" then return "a case must be a table, got " .. type(case) end
  local missing = {}
  for _, k in ipairs(REQUIRED) do
    if case[k] == nil then missing[#missing + 1] = k end
  end
  if #missing > 0 then return "missing field(s): " .. table.concat(missing, ", ") end
  if case.set ~= "calibration" and case.set ~= "validation" then
    return "set '" .. tostring(case.set) .. "' is not calibration (its data informed a mechanism or a constant) "
      .. "or validation (never looked at while designing one)"
  end
  local metric = validation.METRICS[case.metric]
  if not metric then
    return "metric '" .. tostring(case.metric) .. "' is not one of allocated, reserved, step_time_s, mfu, "
      .. "tflops_per_gpu, tokens_per_s_per_device"
  end
  if case.kind ~= metric.kind then
    return "kind '" .. tostring(case.kind) .. "' does not match metric " .. case.metric .. " (a " .. metric.kind
      .. " metric)"
  end
  if not metric.units[case.unit] then
    return "unit '" .. tostring(case.unit) .. "' does not fit metric " .. case.metric
  end
  if type(case.measured) ~= "number" or case.measured <= 0 then return "measured must be a positive number" end
  if type(case.tolerance) ~= "number" or case.tolerance <= 0 or case.tolerance >= 1 then
    return "tolerance must be a fraction between 0 and 1 (0.10 is 10 %)"
  end
  if type(case.run) ~= "table" then return "run must be a table of nd.run fields" end
  if type(case.model) ~= "string" and type(case.model) ~= "table" then
    return "model must be a hub id or a model spec table"
  end
  if case.kind == "time" and type(case.hardware) ~= "string" then return "a time case needs hardware (a name)" end
  if case.ndlua ~= nil and type(case.ndlua) ~= "function" then return "ndlua must be a function" end
  if case.known_gap ~= nil and type(case.known_gap) ~= "string" then return "known_gap must be a text" end
  if case.known_gap ~= nil and (type(case.reached) ~= "number" or case.reached <= 0) then
    return "a case with known_gap states reached, the error it reached (a fraction), which make test holds it to"
  end
  return nil
end

--- The signed error of ndlua's value against the measured one, in percent
-- (positive: ndlua says more than was measured).
function validation.error_pct(ndlua_value, measured)
  return 100 * (ndlua_value - measured) / measured
end

--- A value in base units (bytes, seconds, ...) in a case's unit.
function validation.in_unit(value, unit)
  return value / validation.UNITS[unit]
end

--- The devices a run spans: dp x tp x pp x cp of the fields it states.
function validation.devices(run)
  return (run.dp or 1) * (run.tp or 1) * (run.pp or 1) * (run.cp or 1)
end

local by_id = {}

-- The model of a case: hub ids are resolved once (the catalog, quietly).
local function model_of(spec)
  if type(spec) == "string" then
    if not by_id[spec] then by_id[spec] = models.new(spec, { warnings = warnings.quiet() }) end
    return by_id[spec]
  end
  return models.new(spec, { warnings = warnings.quiet() })
end

-- The message of an error value: a bad-input table's text, or a Lua
-- error with its location (a mistake in a case's ndlua function).
local function message_of(e)
  if type(e) == "table" then return tostring(e.message or e[1] or e) end
  return tostring(e)
end

--- The nd.run fields of a case: a case naming no runtime states its run
-- for the formulas (runtime "none": the core's own defaults fill the
-- rest), not for the defaults a run naming no runtime takes.
function validation.run_fields(case)
  if case.run.runtime ~= nil then return case.run end
  local fields = {}
  for k, v in pairs(case.run) do fields[k] = v end
  fields.runtime = "none"
  return fields
end

-- ndlua's value of a case, in the case's unit.
local function price(case)
  local model = model_of(case.model)
  local run = runs.new(validation.run_fields(case))
  local result
  if case.kind == "memory" then
    result = api.estimate(model, run)
  else
    result = api.step_time(model, run, case.hardware)
  end
  if case.ndlua then
    local v = case.ndlua(result, model, run, case)
    if type(v) ~= "number" then error("the case's ndlua function returned " .. type(v) .. ", not a number", 0) end
    return v
  end
  local base = validation.METRICS[case.metric].value(result, validation.devices(case.run))
  return validation.in_unit(base, case.unit)
end

--- One case measured: a row `{id, group, kind, metric, unit, measured,
-- ndlua, error_pct, tolerance_pct, status ("pass" | "over" | "error"),
-- message (for errors), source, config, note, known_gap, file}`.
-- @tparam table case a case as described above
-- @treturn table the row
function validation.evaluate(case)
  local row = {}
  if type(case) == "table" then
    for _, k in ipairs { "id", "set", "group", "kind", "metric", "unit", "measured", "source", "config", "note",
                         "known_gap", "file" } do
      row[k] = case[k]
    end
  end
  row.id = row.id or "(case without an id)"
  row.group = row.group or "(no group)"
  local problem = validation.check_case(case)
  if problem then
    row.status, row.message = "error", problem
    return row
  end
  row.tolerance_pct = 100 * case.tolerance
  local ok, v = pcall(price, case)
  if not ok then
    row.status, row.message = "error", message_of(v)
    return row
  end
  row.ndlua = v
  row.error_pct = validation.error_pct(v, case.measured)
  row.status = math.abs(row.error_pct) <= row.tolerance_pct and "pass" or "over"
  return row
end

--- The cases of a directory: every `*.lua` file in it, in name order, each
-- returning a list of cases. A file that does not load, or does not return
-- a list, gives one error case naming it.
-- @tparam string dir the directory (e.g. "spec/validation")
-- @treturn table the cases, each with `file` set
function validation.load(dir)
  local names = {}
  -- a directory that is not there holds no cases, one there that cannot be
  -- listed raises its listing's error (nd.files.listed); hidden files are
  -- left out; the names come sorted bytewise
  for _, name in ipairs(require("nd.files").listed(dir)) do
    if name:sub(1, 1) ~= "." and name:match("%.lua$") then names[#names + 1] = name end
  end
  local cases = {}
  for _, name in ipairs(names) do
    local path = dir .. "/" .. name
    local chunk, err = loadfile(path, "t", setmetatable({}, { __index = _G }))
    local ok, list = false, err
    if chunk then ok, list = pcall(chunk) end
    if not ok or type(list) ~= "table" then
      cases[#cases + 1] = { id = name, group = "(file)", file = path,
                            load_error = ok and "the file returns " .. type(list) .. ", not a list of cases"
                              or message_of(list) }
    else
      for _, c in ipairs(list) do
        if type(c) == "table" then c.file = path end
        cases[#cases + 1] = c
      end
    end
  end
  return cases
end

--- Every case measured, in order; a case file that failed to load gives an
-- error row.
function validation.evaluate_all(cases)
  local rows = {}
  for _, c in ipairs(cases) do
    if type(c) == "table" and c.load_error then
      rows[#rows + 1] = { id = c.id, group = c.group, file = c.file, status = "error", message = c.load_error }
    else
      rows[#rows + 1] = validation.evaluate(c)
    end
  end
  return rows
end

-- The summary of the rows `key_of` sorts into one bucket, in the order the
-- buckets first appear; `fields(row)` names a new bucket.
local function summarise(rows, key_of, fields)
  local out, by = {}, {}
  for _, r in ipairs(rows) do
    local key = key_of(r)
    local g = by[key]
    if not g then
      g = fields(r)
      g.cases, g.measured, g.sum, g.over, g.errors = 0, 0, 0, 0, 0
      by[key] = g
      out[#out + 1] = g
    end
    g.cases = g.cases + 1
    if r.status == "error" then
      g.errors = g.errors + 1
    else
      local a = math.abs(r.error_pct)
      g.measured = g.measured + 1
      g.sum = g.sum + a
      g.max_abs_pct = math.max(g.max_abs_pct or 0, a)
      if r.status == "over" then g.over = g.over + 1 end
    end
  end
  for _, g in ipairs(out) do
    g.mean_abs_pct = g.measured > 0 and g.sum / g.measured or nil
    g.sum = nil
  end
  return out
end

--- Per group and set, in the order they first appear: `{set, group, cases,
-- measured (rows with a value), mean_abs_pct, max_abs_pct, over, errors}`.
function validation.summary(rows)
  return summarise(rows, function(r) return tostring(r.set) .. "\0" .. r.group end,
                   function(r) return { set = r.set, group = r.group } end)
end

--- Per set and kind, always the four of SETS x KINDS in that order (a pair
-- with no case gives cases = 0): `{set, kind, cases, measured,
-- mean_abs_pct, max_abs_pct, over, errors}`. Rows of no known set or kind
-- (a case that cannot be built) are in no pair; `summary` counts them.
function validation.by_set(rows)
  local known = {}
  for _, r in ipairs(rows) do
    if (r.set == "calibration" or r.set == "validation") and (r.kind == "memory" or r.kind == "time") then
      known[#known + 1] = r
    end
  end
  local found = {}
  for _, g in ipairs(summarise(known, function(r) return r.set .. "\0" .. r.kind end,
                                function(r) return { set = r.set, kind = r.kind } end)) do
    found[g.set .. "\0" .. g.kind] = g
  end
  local out = {}
  for _, set in ipairs(validation.SETS) do
    for _, kind in ipairs(validation.KINDS) do
      out[#out + 1] = found[set .. "\0" .. kind]
        or { set = set, kind = kind, cases = 0, measured = 0, over = 0, errors = 0 }
    end
  end
  return out
end

-- The axis of the chart: ticks in percent, the zero line darker.
local function chart_axis(doc, g)
  local svg = require "nd.svg"
  local step = svg.nice_step(g.limit, 4)
  local tick = -math.floor(g.limit / step) * step
  local bottom = g.top + g.row_h * g.n
  while tick <= g.limit + 1e-9 do
    local x = g.x_of(tick)
    doc:line(x, g.top - 4, x, bottom, { stroke = tick == 0 and "#333333" or "#dddddd", stroke_width = 1 })
    local text = tick == 0 and "0 %" or string.format("%+g %%", tick)
    doc:text(x, bottom + 16, text, { text_anchor = "middle", fill = "#333333", font_size = 11 })
    tick = tick + step
  end
  doc:text(g.left + g.plot_w / 2, g.height - 10, "ndlua - measured, % of measured",
           { text_anchor = "middle", fill = "#333333" })
end

-- One case's row: its id, its tolerance band, its bar (or its error) and
-- the error written at the right.
local function chart_row(doc, g, i, r, color)
  local y = g.top + (i - 1) * g.row_h
  local text_y = y + g.row_h * 0.7
  doc:text(g.left - 8, text_y, r.id, { text_anchor = "end", font_size = 11 })
  if r.tolerance_pct then
    local x0, x1 = g.x_of(-r.tolerance_pct), g.x_of(r.tolerance_pct)
    doc:rect(x0, y + 1, x1 - x0, g.row_h - 2, { fill = "#e8e8e8" })
  end
  if r.status == "error" then
    doc:text(g.x_of(0) + 6, text_y, "error: " .. tostring(r.message):sub(1, 60), { fill = "#D55E00", font_size = 11 })
    return
  end
  local x0, x1 = g.x_of(0), g.x_of(r.error_pct)
  doc:open_group(string.format("%s: measured %.4g %s, ndlua %.4g %s, %+.1f %% (tolerance %.0f %%)", r.id,
                               r.measured, r.unit, r.ndlua, r.unit, r.error_pct, r.tolerance_pct))
  doc:rect(math.min(x0, x1), y + 4, math.max(1, math.abs(x1 - x0)), g.row_h - 8, { fill = color })
  doc:close_group()
  local label = string.format("%+.1f %%", r.error_pct) .. (r.status == "over" and " over" or "")
  doc:text(g.left + g.plot_w + 6, text_y, label,
           { font_size = 10, fill = r.status == "over" and "#D55E00" or "#333333" })
end

--- The error of every case as a chart: one row per case, a bar from 0 to
-- its signed error in percent (coloured by group), its tolerance as a
-- shaded band around 0, cases in error marked as such. Errors past the
-- axis (±`limit`, default the largest tolerance x 4, at least 20 %) are
-- drawn to the edge; the error is written at the right of every row.
-- @tparam table rows validation.evaluate's rows
-- @tparam[opt] table o `title`, `subtitle`, `limit` (percent)
-- @treturn string the SVG text
function validation.chart(rows, o)
  local svg = require "nd.svg"
  o = o or {}
  local limit = o.limit
  if not limit then
    limit = 20
    for _, r in ipairs(rows) do
      if r.tolerance_pct then limit = math.max(limit, 4 * r.tolerance_pct) end
    end
  end
  local g = { limit = limit, n = #rows, row_h = 20, left = 260, top = 60, plot_w = 520 }
  g.width, g.height = g.left + g.plot_w + 260, g.top + g.row_h * g.n + 50
  function g.x_of(pct)
    pct = math.max(-limit, math.min(limit, pct))
    return g.left + (pct + limit) / (2 * limit) * g.plot_w
  end
  local doc = svg.document(g.width, g.height)
  doc:text(g.left, 24, o.title or "ndlua against measured runs", { font_size = 16, font_weight = "bold" })
  doc:text(g.left, 42, o.subtitle or "error of each case in % of the measured value; shaded: its tolerance",
           { fill = "#444444" })
  chart_axis(doc, g)
  local colors, legend = {}, {}
  for i, r in ipairs(rows) do
    if not colors[r.group] then
      legend[#legend + 1] = r.group
      colors[r.group] = svg.PALETTE[(#legend - 1) % #svg.PALETTE + 1]
    end
    chart_row(doc, g, i, r, colors[r.group])
  end
  local lx, ly = g.left + g.plot_w + 90, g.top + 10
  doc:text(lx, ly - 4, "group", { font_weight = "bold" })
  for k, name in ipairs(legend) do
    doc:rect(lx, ly + 18 * k - 14, 12, 12, { fill = colors[name] })
    doc:text(lx + 18, ly + 18 * k - 3, name, { font_size = 11 })
  end
  return doc:render()
end

return validation
