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

local api = {}

-- nd.census and nd.svg (and nd.census.record) load at their first use:
-- estimate.lua and most studies read no census and draw no chart.
local function census() return require "nd.census" end

--- The module `name` as nd holds it, loaded at its first use (nd.study,
-- nd.svg, nd.census, nd.units; estimate.lua's start uses none of the first
-- three): the table `t`, holding what stands before the module's own names
-- (the checked functions of nd.svg, nd.units and nd.census; nothing for
-- nd.study). The first read of a name t does not hold, or a walk with
-- pairs, loads the module, copies in each of its names t does not hold and
-- drops t's metatable (a load that fails leaves it, to load at the next
-- use); a module already loaded is copied in at once. With `is_module`
-- (nd.study) t is package.loaded[name] throughout, so require gives the
-- same table before and after, and a module already loaded is returned as
-- it is. (The prompt's completion walks a table's own names:
-- src/program/repl.c reads a name of each such table as it starts.)
function api.filled_on_use(name, t, is_module)
  local loaded = package.loaded[name]
  if is_module and loaded ~= nil then return loaded end
  local function fill(module)
    for k, v in pairs(module) do
      if rawget(t, k) == nil then t[k] = v end
    end
  end
  if loaded ~= nil then
    fill(loaded)
    return t
  end
  local mt = {}
  local function load() -- (t has no metatable while the module loads; again one if it fails)
    setmetatable(t, nil)
    if is_module then package.loaded[name] = nil end
    local ok, module = pcall(require, name)
    if is_module then package.loaded[name] = t end
    if not ok then
      setmetatable(t, mt)
      error(module, 0)
    end
    fill(module)
  end
  mt.__index = function(_, key) load() return t[key] end
  mt.__pairs = function() load() return next, t, nil end
  if is_module then package.loaded[name] = t end
  return setmetatable(t, mt)
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

-- The writers and nd.print_table are nd.api.write's, loaded at the first
-- call: estimate.lua and most studies print their own lines. A tail call,
-- so an argument error names the calling script's line, as a direct call's would.
local function writer(name)
  return function(...) return require("nd.api.write")[name](...) end
end
api.are_candidates = writer("are_candidates")
api.write_csv = writer("write_csv")
api.write_json = writer("write_json")
api.write_yaml = writer("write_yaml")
api.write_svg = writer("write_svg")
api.print_table = writer("print_table")

--- Census records as a script sees them (nd.census): nd.census's
-- functions, `attach` with its arguments checked.
api.census = api.filled_on_use("nd.census", {
  attach = function(spec, records)
    check.arg("nd.census.attach", 1, "spec", spec, "table")
    check.arg("nd.census.attach", 2, "records", records, "table")
    return census().attach(spec, records)
  end,
})

-- A library module (`name`) as a script sees it: each function named in
-- `signatures` checks its arguments (a wrong one is an error naming it)
-- before the library's own, which the reports call unchecked; `t` may hold
-- more checked functions.
local function checked(name, signatures, t)
  t = t or {}
  for fname, args in pairs(signatures) do
    t[fname] = function(...)
      for i, a in ipairs(args) do
        check.arg(name .. "." .. fname, i, a[1], (select(i, ...)), a[2], a[3])
      end
      return require(name)[fname](...)
    end
  end
  return api.filled_on_use(name, t)
end

local function checked_chart(kind, name)
  return function(c)
    check.arg("nd.svg." .. name, 1, "chart", c, "table")
    local words, v = require("nd.api.chart_check").fault(kind, c)
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
}, {
  stacked_bars = checked_chart("stacked", "stacked_bars"),
  grouped_bars = checked_chart("grouped", "grouped_bars"),
  line_chart = checked_chart("line", "line_chart"),
})

--- nd.units: sizes and times as text, checked.
api.units = checked("nd.units", {
  format_bytes = { { "bytes", "number" }, { "decimals", "number", true } },
  gib = { { "bytes", "number" }, { "decimals", "number", true } },
  mib = { { "bytes", "number" }, { "decimals", "number", true } },
  seconds = { { "seconds", "number" } }, count = { { "n", "number" } },
})

return api
