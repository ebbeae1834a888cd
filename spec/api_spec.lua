-- The nd API of what-if scripts (issue 8; lua/nd/init.lua's study block,
-- lua/nd/api.lua, lua/nd/api/search.lua): each public function, what it
-- returns, and the error naming the argument when it is given a wrong one.
-- The expected numbers come from the yaml's own values, from hand counts of
-- spec/support/tiny.lua's model, or from search.lua run as a command.
package.path = "spec/?.lua;" .. package.path
local nd = require "nd"
local core = require "nd.core"
local tiny = require "support.tiny"

local LLAMA = "examples/llama-3.1-70b-tp-pp-sp/train.yaml"
local NDLUA = os.getenv("NDLUA") or "./ndlua"

-- The message of a plain Lua error (a mistake in the calling script).
local function message(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  assert.are.equal("string", type(err), tostring(err))
  return err
end

-- The message of a bad-input error (bad data: exit status 2).
local function refusal(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected a refusal")
  assert.is_true(type(err) == "table" and err.bad_input, tostring(err))
  return err.message
end

local function plain(text) return (text:gsub("%p", "%%%0")) end

local function tmpname()
  local path = os.tmpname()
  os.remove(path)
  return path
end

local function read(path)
  local f = assert(io.open(path))
  local text = f:read("a")
  f:close()
  return text
end

local function llama(opts)
  opts = opts or {}
  opts.quiet = true
  return nd.load(LLAMA, opts)
end

describe("nd.load", function()
  it("reads a train.yaml into a model and a run, as the yaml states them", function()
    -- the yaml: meta-llama/Llama-3.1-70B (80 layers), tp 8, pp 4, device_num 64: dp = 64 / (8 x 4) = 2
    local model, run, extras = llama()
    assert.are.equal("nd.model", getmetatable(model).__name)
    assert.are.equal(80, model:spec().num_hidden_layers)
    assert.are.same({ 2, 8, 4 }, { run.dp, run.tp, run.pp })
    assert.are.equal(8192, run.seq_length)
    assert.are.equal("meta-llama/Llama-3.1-70B", extras.source.id)
    assert.are.equal("automodels", extras.schema)
    assert.are.equal("context.max_device_memory", extras.device_memory_source)
  end)

  it("keeps the warnings in the extras when quiet", function()
    -- a misspelled key, set as -- overrides set it, is warned about (issue 13)
    local _, _, extras = llama { overrides = { ["accelerator.tp_szie"] = 4 } }
    assert.are.equal(1, #extras.warnings)
    assert.matches("accelerator.tp_szie: no rule reads this key", extras.warnings[1], 1, true)
    assert.matches("did you mean accelerator.tp_size?", extras.warnings[1], 1, true)
  end)

  it("lays overrides over the yaml and takes the device memory as -M does", function()
    -- tp 4 x pp 4 on the yaml's 64 devices: dp 4
    local _, run, extras = llama { overrides = { ["accelerator.tp_size"] = 4 }, device_memory = "80GB" }
    assert.are.same({ 4, 4, 4 }, { run.dp, run.tp, run.pp })
    assert.are.equal(80 * 2 ^ 30, run.device_memory)
    assert.are.equal("-M", extras.device_memory_source)
  end)

  it("takes the device count when the yaml states none", function()
    -- examples/qwen3-30b-a3b-fsdp8 states no device_num; tp 1 pp 1: dp = devices; batch 8 = 1 x 8 x 1
    local _, run = nd.load("examples/qwen3-30b-a3b-fsdp8/train.yaml", { devices = 8, quiet = true })
    assert.are.equal(8, run.dp)
  end)

  it("names a wrong argument", function()
    assert.matches("nd.load: argument 1 (path) must be a string, got number", message(nd.load, 3), 1, true)
    assert.matches("nd.load: argument 2 (opts) must be a table of options, got string",
                   message(nd.load, LLAMA, "64"), 1, true)
    assert.matches("nd.load: opts.devices must be a whole number above 0, got number",
                   message(nd.load, LLAMA, { devices = 0 }), 1, true)
    assert.matches("nd.load: opts.device is no option (options: device_memory, devices, overrides, quiet)",
                   message(nd.load, LLAMA, { device = 8 }), 1, true)
  end)

  it("raises the train.yaml's own refusals as bad input", function()
    assert.matches("no-such.yaml", refusal(nd.load, "no-such.yaml"), 1, true)
  end)

  it("points at the caller's line", function()
    local line = debug.getinfo(1, "l").currentline + 1
    local ok, err = pcall(function() nd.load(nil) end)
    assert.is_false(ok)
    assert.matches("api_spec.lua:" .. line .. ": nd.load: argument 1 (path)", err, 1, true)
  end)
end)

describe("nd.estimate and nd.layout", function()
  -- tiny.dense: h 64, 2 layers of 4 heads (4 KV), a gated MLP of 256, 1000 words, untied:
  -- embedding 1000 x 64 = 64000; a layer 4 x 64 x 64 + 3 x 64 x 256 + 2 x 64 = 65664;
  -- final norm 64 and output 64000: 64000 + 2 x 65664 + 64 + 64000 = 259392 parameters
  it("prices a model and a run as estimate.lua a model id: bf16 parameters, two bf16 AdamW states, 64 GiB", function()
    -- a run naming no runtime takes hyperparallel's defaults (lua/nd/runtimes/hyperparallel.lua): AdamW's
    -- two states in the stored width (2 B: seed _optimizer_states without fp32_main_params)
    local e = nd.estimate(tiny.dense(), nd.run {})
    assert.are.equal(259392 * 2, e.stages[1].params)
    assert.are.equal(259392 * 2 * 2, e.stages[1].optimizer)
    assert.are.equal(64 * 2 ^ 30, e.capacity_bytes)
    assert.is_true(e.fits)
    -- runtime "none": the core's own defaults, the family's two fp32 states
    e = nd.estimate(tiny.dense(), nd.run { runtime = "none" })
    assert.are.equal(259392 * 2 * 4, e.stages[1].optimizer)
  end)

  it("lays out a pipeline: 2 layers over 2 stages, one each, the embedding first and the output last", function()
    local layout = nd.layout(tiny.dense(), nd.run { pp = 2 })
    assert.are.equal(2, #layout)
    assert.are.same({ 1, true, false }, { layout[1].chunks[1].count, layout[1].chunks[1].embedding,
                                          layout[1].chunks[1].output })
    assert.are.same({ 1, false, true }, { layout[2].chunks[1].count, layout[2].chunks[1].embedding,
                                          layout[2].chunks[1].output })
  end)

  it("names a wrong argument", function()
    local m, r = tiny.dense(), nd.run {}
    assert.matches("nd.estimate: argument 2 (run) must be an nd.run, got table", message(nd.estimate, m, {}), 1, true)
    assert.matches("nd.estimate: argument 1 (model) must be an nd.model, got nd.run",
                   message(nd.estimate, r, r), 1, true)
    assert.matches("nd.layout: argument 1 (model) must be an nd.model, got nil", message(nd.layout, nil, r), 1, true)
    assert.matches("nd.layout: argument 2 (run) must be an nd.run, got string", message(nd.layout, m, "x"), 1, true)
  end)
end)

describe("run:with", function()
  local _, run = llama()

  it("returns a new run and leaves the original as it was", function()
    local r = run:with { tp = 4, dp = 4 }
    assert.are.same({ 4, 4 }, { r.tp, r.dp })
    assert.are.same({ 8, 2 }, { run.tp, run.dp })
  end)

  it("takes a recompute mode over the yaml's selective_recompute", function()
    local r = run:with { recompute = "full" }
    assert.are.equal("full", r.recompute)
    assert.is_nil(r.selective_recompute)
    assert.is_true(run.selective_recompute)
  end)

  it("derives the micro-batches again from the global batch: 64 / (2 x 2) = 16", function()
    local r = run:with { micro_batch_size = 2 }
    assert.is_nil(r.micro_batch_num)
    assert.matches("micro-batch 2 x 16,", tostring(r), 1, true)
  end)

  it("names a wrong argument, as nd.run does", function()
    assert.matches("run:with: argument 1 (changes) must be a table of run fields, got number",
                   message(run.with, run, 4), 1, true)
    assert.matches("nd.run: argument 1 (spec) must be a table of run fields, got string", message(nd.run, "dp 2"), 1,
                   true)
  end)

  it("refuses a micro-batch that does not divide the global batch", function()
    assert.matches("global_batch_size 64 is not a multiple of micro_batch_size x dp = 3 x 2",
                   refusal(run.with, run, { micro_batch_size = 3 }), 1, true)
  end)

  it("drops the yaml's balanced offsets with a new pipeline, and nd.null removes a field", function()
    local r = run:with { pp = 8, dp = 1 }
    assert.is_nil(r.offset)
    assert.matches("dp 1 tp 8 pp 8", tostring(r), 1, true)
    assert.is_nil(run:with { seq_length = nd.null }.seq_length)
    assert.matches("sequence 4096", tostring(run:with { seq_length = nd.null }), 1, true)
  end)
end)

describe("nd.model and nd.resolve_model", function()
  it("name a wrong argument", function()
    assert.matches("nd.model: argument 1 (spec) must be a hub id, a model section or a model spec, got number",
                   message(nd.model, 12), 1, true)
    assert.matches("nd.resolve_model: argument 2 (opts) must be a table of options, got string",
                   message(nd.resolve_model, "Qwen/Qwen3-8B", "x"), 1, true)
  end)
end)

describe("nd.hardware and nd.step_time", function()
  it("reads a profile as its file states it: H100, 81559 MiB, 989 TFLOP/s peak, 8 a node", function()
    local h = nd.hardware("h100")
    assert.are.equal("H100", h.name)
    assert.are.equal(81559 * 2 ^ 20, h.memory_bytes)
    assert.are.equal(989, h.peak_tflops)
    assert.are.equal(8, h.levels[1].devices)
  end)

  it("gives a copy a study may change", function()
    nd.hardware("H100").peak_tflops = 1
    assert.are.equal(989, nd.hardware("H100").peak_tflops)
  end)

  it("lists the shipped profiles", function()
    local names = table.concat(nd.hardware_names(), " ")
    for _, n in ipairs({ "A2", "A3", "A100-80GB", "H100", "H200", "B200" }) do
      assert.is_truthy(names:find(n, 1, true), n)
    end
  end)

  it("times a run on a named profile as the C core does", function()
    local m, r = tiny.dense(), nd.run {}
    local t = nd.step_time(m, r, "H100")
    local hardware = require "nd.hardware"
    local direct = core.step_time(m, r, hardware.core(hardware.load("H100")))
    assert.are.equal(direct.step_time_s, t.step_time_s)
    assert.are.equal("H100", t.hardware)
    assert.is_true(t.step_time_s > 0)
  end)

  it("takes a changed profile: half the sustained rate, twice the forward (FLOPs / sustained FLOP/s)", function()
    local m, r = tiny.dense(), nd.run {}
    local h = nd.hardware("H100")
    h.memory_gbps = nil -- the element-wise ops' time, which the FLOP rate does not scale, left out
    h.attention_tflops = nil -- and the flash kernel's own rate
    local before = nd.step_time(m, r, h).parts.forward_s
    h.sustained_tflops = h.sustained_tflops / 2
    assert.are.near(2 * before, nd.step_time(m, r, h).parts.forward_s, 1e-15)
  end)

  it("names a wrong argument, and refuses an unknown profile listing the known ones", function()
    local m, r = tiny.dense(), nd.run {}
    assert.matches("nd.hardware: argument 1 (name) must be a string, got nil", message(nd.hardware), 1, true)
    assert.matches("nd.step_time: argument 3 (hardware) must be a hardware profile's name (\"H100\") or table "
                   .. "(nd.hardware), got number", message(nd.step_time, m, r, 5), 1, true)
    assert.matches("nd.step_time: argument 2 (run) must be an nd.run, got nil", message(nd.step_time, m), 1, true)
    assert.matches("'X9' is no hardware profile ndlua knows; one of 910B, 910C, A100-80GB, A2, A3, B200, GB200, H100, H20, H200, H800, MI300X",
                   refusal(nd.hardware, "X9"), 1, true)
  end)
end)

-- search.lua's JSON document for the same search, run as a command.
local function cli_search(args)
  local dir = tmpname()
  local p = assert(io.popen(string.format("%s search.lua %s %s -o %s --json 2>/dev/null", NDLUA, LLAMA, args, dir)))
  local doc = nd.json.decode(p:read("a"))
  p:close()
  os.execute("rm -rf " .. dir)
  return doc
end

describe("nd.search", function()
  local model, run = llama()
  local SAME = { "dp", "tp", "pp", "vpp", "cp", "ep", "op", "sp", "mb", "mbs", "recompute", "peak_bytes",
                 "peak_stage", "step_time_s", "mfu" }

  it("ranks the candidates search.lua ranks for the same search", function()
    local list, info = nd.search(model, run, { memory = "80GB", hardware = "H100", global_batch = 64, top = 5,
                                               recompute = "auto" })
    local doc = cli_search("-d 64 -b 64 -M 80GB -A H100 -t 5 --recompute auto")
    assert.are.equal(5, #list)
    for i, c in ipairs(doc.candidates) do
      for _, k in ipairs(SAME) do assert.are.equal(c[k], list[i][k], "candidate " .. i .. " " .. k) end
    end
    assert.are.equal(doc.fitting, info.counts.fitting)
    assert.are.same({ 64, 64, 80 * 2 ^ 30, "H100", "throughput" },
                    { info.devices, info.global_batch, info.budget_bytes, info.hardware, info.policy })
  end)

  it("keeps the run's degrees of the dimensions it does not search", function()
    local list = nd.search(model, run, { dims = { "DP", "MBS" }, memory = "80GB", top = 50 })
    assert.is_true(#list > 0)
    for _, c in ipairs(list) do
      assert.are.same({ 8, 4, 1, 1, 1, true }, { c.tp, c.pp, c.cp, c.vpp, c.ep, c.sp })
      assert.are.equal(64, c.dp * c.tp * c.pp * c.cp)
      assert.are.equal("selective", c.recompute) -- the run's own mode
    end
  end)

  it("searches a dimension's candidate list and each recompute mode named", function()
    local list, info = nd.search(model, run, { allowed = { TP = { 2, 4 } }, recompute = { "off", "full" },
                                               memory = "80GB", top = 200 })
    assert.are.same({ "off", "full" }, info.recompute)
    for _, c in ipairs(list) do
      assert.is_true(c.tp == 2 or c.tp == 4)
      assert.is_true(c.recompute == "off" or c.recompute == "full")
    end
  end)

  it("ranks by a named policy or a policy table", function()
    local by_memory = nd.search(model, run, { policy = "memory", memory = "80GB", top = 20 })
    local by_table = nd.search(model, run, { policy = { order = { "peak_bytes" } }, memory = "80GB", top = 20 })
    for i = 2, #by_memory do assert.is_true(by_memory[i - 1].peak_bytes <= by_memory[i].peak_bytes) end
    for i = 2, #by_table do assert.is_true(by_table[i - 1].peak_bytes <= by_table[i].peak_bytes) end
  end)

  it("gives each candidate's stage bytes on request, their largest the peak", function()
    local c = nd.search(model, run, { memory = "80GB", stages = true, top = 1, dims = { "PP", "DP" } })[1]
    assert.are.equal(c.pp, #c.stage_bytes)
    assert.are.equal(c.peak_bytes, c.stage_bytes[c.peak_stage + 1])
  end)

  it("returns no candidate, and why, when nothing fits or no candidate makes the batch", function()
    local list, info = nd.search(model, run, { memory = "1GB" })
    assert.are.same({}, list)
    assert.matches("^nothing fits the budget of 1.00 GiB: all %d+ priced candidates are over it", info.problem)
    assert.matches("Raise opts.memory, search more dimensions (opts.dims)", info.problem, 1, true)
    -- only DP searched: the run's tp 8 x pp 4 leave dp 2 of the 64 devices, its micro-batch 1:
    -- DP x MBS = 2, and 3 sequences are no whole number of micro-batches of 2
    list, info = nd.search(model, run, { global_batch = 3, dims = { "DP" } })
    assert.are.same({}, list)
    assert.matches("^no candidate makes a global batch of 3", info.problem)
  end)

  it("names a wrong argument or option", function()
    assert.matches("nd.search: argument 1 (model) must be an nd.model, got table", message(nd.search, {}, run), 1, true)
    assert.matches("nd.search: argument 2 (run) must be an nd.run, got nil", message(nd.search, model), 1, true)
    assert.matches("nd.search: opts.top must be a whole number above 0, got number",
                   message(nd.search, model, run, { top = 0 }), 1, true)
    assert.matches("nd.search: opts.dims: 'XP' is no dimension", message(nd.search, model, run, { dims = { "XP" } }),
                   1, true)
    assert.matches("nd.search: opts.recompute: 'most' is no recompute mode",
                   message(nd.search, model, run, { recompute = "most" }), 1, true)
    assert.matches("nd.search: opts.hardware must be a hardware profile's name",
                   message(nd.search, model, run, { hardware = 3 }), 1, true)
    assert.matches("nd.search: opts.policy must be a policy's name, file or table (with order or score), got table",
                   message(nd.search, model, run, { policy = {} }), 1, true)
    assert.matches("nd.search: opts.memory: 'lots' is no memory size",
                   message(nd.search, model, run, { memory = "lots" }), 1, true)
    assert.matches("nd.search: opts.budget is no option", message(nd.search, model, run, { budget = 1 }), 1, true)
    assert.matches("nd.search: opts.policy: 'fastest' is no ranking policy; one of memory, nd, throughput",
                   refusal(nd.search, model, run, { policy = "fastest" }), 1, true)
    assert.matches("nd.search: opts.hardware: 'X9' is no hardware profile ndlua knows",
                   refusal(nd.search, model, run, { hardware = "X9" }), 1, true)
    -- a policy table is checked as a policy file is (issue 34 item 10): a
    -- wrong order or score is named here, not left to fail inside the
    -- ranking ("attempt to index a number value", "sort: unknown key")
    assert.are.equal("opts.policy: order must list sort keys",
                     refusal(nd.search, model, run, { policy = { order = 5, score = function() return 0 end } }))
    assert.matches("^opts%.policy: order: 'x' is no sort key",
                   refusal(nd.search, model, run, { policy = { order = { "x" } } }))
    assert.are.equal("opts.policy: keep must be a function",
                     refusal(nd.search, model, run, { policy = { order = { "peak_bytes" }, keep = true } }))
  end)

  it("points its errors at the caller's line", function()
    for _, opts in ipairs({ { dims = { "XP" } }, { recompute = "most" }, { hardware = 3 }, { policy = {} },
                            { memory = "lots" }, { top = 0 } }) do
      local line = debug.getinfo(1, "l").currentline + 1
      local ok, err = pcall(function() nd.search(model, run, opts) end)
      assert.is_false(ok)
      assert.matches("api_spec.lua:" .. line .. ": nd.search: ", err, 1, true)
    end
  end)

  it("is loaded at its first call: require 'nd' leaves nd.api.search, nd.search and nd.policies unloaded", function()
    -- a fresh ndlua (this process has loaded them); estimate.lua relies on it for its start
    local code = "local nd = require 'nd'; local function loaded() return tostring(package.loaded['nd.api.search'] ~= nil) "
      .. ".. ' ' .. tostring(package.loaded['nd.search'] ~= nil) .. ' ' .. tostring(package.loaded['nd.policies'] ~= nil) end "
      .. "local before = loaded(); local ok = pcall(nd.search, {}, nil); "
      .. "print(before, loaded(), ok, type(nd.search), nd.search ~= nil)"
    local p = assert(io.popen(string.format("%s -e %q 2>&1", NDLUA, code)))
    assert.are.equal("false false false\ttrue true true\tfalse\tfunction\ttrue\n", p:read("a"))
    p:close()
    local names = {}
    for name in pairs(nd) do names[name] = true end
    assert.is_true(names.search, "pairs(nd) lists search")
  end)
end)

describe("what require 'nd' leaves unloaded", function()
  it("nd.report.csv loads at nd.write_csv's first call", function()
    -- a fresh ndlua (this process has loaded it); estimate.lua's start relies on it
    local code = "local nd = require 'nd'; local before = package.loaded['nd.report.csv'] ~= nil; "
      .. "nd.write_csv('/dev/null', { { a = 1 } }); print(before, package.loaded['nd.report.csv'] ~= nil)"
    local p = assert(io.popen(string.format("%s -e %q 2>&1", NDLUA, code)))
    assert.are.equal("false\ttrue\n", p:read("a"))
    p:close()
  end)

  it("nd.api.write, nd.report.table and nd.api.chart_check load at their first use (issue 35 item 6)", function()
    -- a fresh ndlua: require 'nd' loads none of the three; nd.write_json loads the writers (nd.api.write),
    -- nd.print_table of candidates the search's table (nd.report.table), a checked chart nd.api.chart_check
    local code = "local nd = require 'nd'; local function loaded() local t = {} "
      .. "for i, m in ipairs { 'nd.api.write', 'nd.report.table', 'nd.api.chart_check' } do "
      .. "t[i] = package.loaded[m] ~= nil and 'y' or 'n' end return table.concat(t) end "
      .. "local before = loaded(); nd.write_json('/dev/null', {}); local write = loaded(); "
      .. "local ok = pcall(nd.svg.line_chart, {}); print(before, write, ok, loaded())"
    local p = assert(io.popen(string.format("%s -e %q 2>&1", NDLUA, code)))
    assert.are.equal("nnn\tynn\tfalse\tyny\n", p:read("a"))
    p:close()
  end)

  it("nd.svg, nd.study.charts, nd.census, nd.census.record and nd.study.format load at their first use", function()
    -- a fresh ndlua: after require 'nd' none of the five is loaded (estimate.lua's start relies on it); a
    -- name of nd.svg's module that its checked wrapper does not hold (PALETTE) loads nd.svg, drawing a chart
    -- through nd.study loads nd.study.charts (and nd.study.format, which it requires), and a name of
    -- nd.census (beside) loads nd.census
    local code = "local nd = require 'nd'; local function loaded() local t = {} "
      .. "for i, m in ipairs { 'nd.svg', 'nd.study.charts', 'nd.census', 'nd.census.record', 'nd.study.format' } do "
      .. "t[i] = package.loaded[m] ~= nil and 'y' or 'n' end return table.concat(t) end "
      .. "local before = loaded(); local palette = #nd.svg.PALETTE; local svg = loaded(); "
      .. "nd.study.svg_bars { rows = { { x = 'a', y_s = 1 } }, x = 'x', y = 'y_s' }; local charts = loaded(); "
      .. "local beside = type(nd.census.beside); print(before, palette, svg, charts, beside, loaded())"
    local p = assert(io.popen(string.format("%s -e %q 2>&1", NDLUA, code)))
    -- svg.PALETTE holds 10 colours (lua/nd/svg.lua); nd.census requires nd.census.record
    assert.are.equal("nnnnn\t10\tynnnn\tyynny\tfunction\tyyyyy\n", p:read("a"))
    p:close()
  end)

  it("nd.study loads at its first use, and is the table require 'nd.study' gives before and after (issue 35 item 6)",
     function()
    -- a fresh ndlua each: after require 'nd', nd.study holds no name of its own (rawget) and nd.study.format is
    -- unloaded; reading a name loads the module into that same table, which then has no metatable left
    local code = "local nd = require 'nd'; local s = nd.study; local before = rawget(s, 'sweep') == nil; "
      .. "local same = require 'nd.study' == s; local format = package.loaded['nd.study.format'] == nil; "
      .. "print(before, same, format, type(s.sweep), rawget(s, 'sweep') ~= nil, getmetatable(s) == nil, "
      .. "require 'nd.study' == s, nd.study == s)"
    local p = assert(io.popen(string.format("%s -e %q 2>&1", NDLUA, code)))
    assert.are.equal("true\ttrue\ttrue\tfunction\ttrue\ttrue\ttrue\ttrue\n", p:read("a"))
    p:close()
    -- pairs loads it too: lua/nd/study.lua defines 11 functions (sweep, largest, compare, format_table,
    -- print_table, svg_lines, svg_bars, svg_stages, k, unit_of, value), counted by hand
    code = "local nd = require 'nd'; local n = 0; for _, v in pairs(nd.study) do n = n + (type(v) == 'function' "
      .. "and 1 or 0) end; print(n)"
    p = assert(io.popen(string.format("%s -e %q 2>&1", NDLUA, code)))
    assert.are.equal("11\n", p:read("a"))
    p:close()
  end)

  it("nd.svg is filled as nd.study is: pairs loads it and lists its names, the checked ones standing first", function()
    -- a fresh ndlua: nd.svg holds its 6 checked functions (escape, document, write, stacked_bars,
    -- grouped_bars, line_chart; lua/nd/api.lua); pairs loads nd.svg and lists lua/nd/svg.lua's 8 names (those
    -- 6, PALETTE, nice_step), the checked write standing before the module's; no metatable is left
    local code = "local nd = require 'nd'; local s = nd.svg; local before = package.loaded['nd.svg'] == nil; "
      .. "local n = 0; for _ in pairs(s) do n = n + 1 end; local m = require 'nd.svg'; "
      .. "print(before, n, s.write ~= m.write, rawget(s, 'PALETTE') == m.PALETTE, getmetatable(s) == nil)"
    local p = assert(io.popen(string.format("%s -e %q 2>&1", NDLUA, code)))
    assert.are.equal("true\t8\ttrue\ttrue\ttrue\n", p:read("a"))
    p:close()
  end)

  it("estimate.lua loads nd.report.parts, not the search's nd.report.table, whose names they are (issue 35 item 6)",
     function()
    -- the script runs in a fresh ndlua (its standard output to /dev/null); the state is looked at after it
    local code = "arg = { [0] = 'lua/estimate.lua' }; "
      .. "assert(loadfile('lua/estimate.lua'))('" .. LLAMA .. "'); "
      .. "io.stderr:write(tostring(package.loaded['nd.report.table'] ~= nil), ' ', "
      .. "tostring(package.loaded['nd.report.parts'] ~= nil), '\\n')"
    local p = assert(io.popen(string.format("%s -e %q 2>&1 >/dev/null | grep -v '^warning'", NDLUA, code)))
    assert.are.equal("false true\n", p:read("a"))
    p:close()
    -- the search's table shows the same lists and seconds (the same tables and function)
    local report, parts = require "nd.report.table", require "nd.report.parts"
    assert.are.equal(parts.PARTS, report.PARTS)
    assert.are.equal(parts.MEMORY, report.MEMORY)
    assert.are.equal(parts.seconds, report.seconds)
  end)

  it("estimate.lua loads nd.compare.calibration only with -c", function()
    -- the script runs in a fresh ndlua (its standard output to /dev/null); the state is looked at after it
    local code = "arg = { [0] = 'lua/estimate.lua' }; "
      .. "assert(loadfile('lua/estimate.lua'))('" .. LLAMA .. "'); "
      .. "io.stderr:write(tostring(package.loaded['nd.compare.calibration'] ~= nil), '\\n')"
    local p = assert(io.popen(string.format("%s -e %q 2>&1 >/dev/null | grep -v '^warning'", NDLUA, code)))
    assert.are.equal("false\n", p:read("a"))
    p:close()
  end)
end)

describe("nd.candidate_run", function()
  local model, run = llama()

  it("turns a candidate into the run its peak was priced for", function()
    local list = nd.search(model, run, { memory = "80GB", hardware = "H100", top = 5, recompute = "auto" })
    for _, c in ipairs(list) do
      local e = nd.estimate(model, nd.candidate_run(run:with { device_memory = 80 * 2 ^ 30 }, c))
      assert.are.equal(c.peak_bytes, e.peak_bytes)
      assert.are.equal(c.peak_stage, e.peak_stage)
    end
  end)

  it("names a wrong argument", function()
    assert.matches("nd.candidate_run: argument 2 (candidate) must be a candidate of nd.search, got table",
                   message(nd.candidate_run, run, {}), 1, true)
    assert.matches("nd.candidate_run: argument 1 (run) must be an nd.run, got nil",
                   message(nd.candidate_run, nil, {}), 1, true)
  end)
end)

describe("nd.census and nd.with_census", function()
  -- spec/fixtures/census/llama-64.json: decoder saved 1032 + saved_tp 1184 bytes a token (spec/census_spec.lua)
  local FIXTURE = "spec/fixtures/census/llama-64.json"
  local function fixture_model()
    local spec = nd.json.load("spec/census/specs/llama.json")
    spec.kinds, spec.family = nil, nil
    return nd.model(spec, { warnings = require("nd.warnings").quiet() })
  end

  it("prices a model's layers from a census file or its loaded records", function()
    for _, census in ipairs({ FIXTURE, nd.census.load(FIXTURE) }) do
      local e = nd.estimate(nd.with_census(fixture_model(), census), nd.run { seq_length = 4096, recompute = "off" })
      assert.is_true(e.census_used)
      local row = tiny.row(e, 0, "decoder")
      assert.are.equal((1032 + 1184) * 4096, row.activation_bytes_per_layer)
    end
  end)

  it("names a wrong argument", function()
    assert.matches("nd.with_census: argument 2 (census) must be a census file's path or what nd.census.load "
                   .. "returns, got table", message(nd.with_census, fixture_model(), {}), 1, true)
    assert.matches("nd.with_census: argument 1 (model) must be an nd.model, got string",
                   message(nd.with_census, "m", FIXTURE), 1, true)
  end)
end)

describe("the writers", function()
  local rows = {
    { name = "a, b", peak_bytes = 3 * 2 ^ 30, step_time_s = 0.1, parts = { dp_s = 1 / 3 } },
    { name = 'say "x"', peak_bytes = 512, fits = true },
  }

  it("write CSV: numbers at full precision (1/3 reads back from 16 digits), text quoted where it must be, "
     .. "dotted keys reaching in", function()
    local path = tmpname()
    nd.write_csv(path, rows, { "name", "peak_bytes", "step_time_s", "parts.dp_s", "fits" })
    assert.are.equal('name,peak_bytes,step_time_s,parts.dp_s,fits\n'
      .. '"a, b",3221225472,0.1,0.3333333333333333,\n'
      .. '"say ""x""",512,,,true\n', read(path))
    os.remove(path)
  end)

  it("write every key, sorted, without columns", function()
    local path = tmpname()
    nd.write_csv(path, { { b = 2, a = 1 } })
    assert.are.equal("a,b\n1,2\n", read(path))
    os.remove(path)
  end)

  it("write JSON and YAML that read back as the value", function()
    local value = { devices = 64, peak_bytes = 3 * 2 ^ 30, modes = { "off", "full" } }
    local path = tmpname()
    nd.write_json(path, value)
    assert.are.same(value, nd.json.load(path))
    nd.write_yaml(path, value)
    assert.are.same(value, nd.yaml.load(path))
    os.remove(path)
  end)

  it("write SVG text, and only SVG text", function()
    local path = tmpname()
    local text = nd.study.svg_lines { rows = { { x = 1, y_s = 2 } }, x = "x", y = "y_s" }
    nd.write_svg(path, text)
    assert.are.equal(text, read(path))
    os.remove(path)
    assert.matches("nd.write_svg: argument 2 (svg) must be SVG text (from nd.study or nd.svg), got string",
                   message(nd.write_svg, path, "hello"), 1, true)
  end)

  it("print a table with units", function()
    local path = tmpname()
    local f = assert(io.open(path, "w"))
    nd.print_table(rows, { "name", "peak_bytes" }, { out = f, title = "two rows" })
    f:close()
    assert.are.equal("two rows\nname         peak\na, b     3.00 GiB\nsay \"x\"  0.00 GiB\n", read(path))
    os.remove(path)
  end)

  it("write and print nd.search's candidates as search.lua's --csv and table do", function()
    local model, run = llama()
    local list = nd.search(model, run, { memory = "80GB", top = 2 })
    local path = tmpname()
    nd.write_csv(path, list)
    local csv = require "nd.report.csv"
    assert.are.equal(csv.header() .. "\n" .. csv.row(list[1]) .. "\n" .. csv.row(list[2]) .. "\n", read(path))
    local f = assert(io.open(path, "w"))
    nd.print_table(list, nil, { out = f })
    f:close()
    assert.are.equal(table.concat(require("nd.report.table").table(list), "\n") .. "\n", read(path))
    os.remove(path)
  end)

  it("refuse a file they cannot write, naming it", function()
    assert.matches("/no/such/dir/x.csv: cannot write", refusal(nd.write_csv, "/no/such/dir/x.csv", rows), 1, true)
  end)

  -- Every write and the close are checked (issue 34 item 1): a full disk
  -- leaves the old file as it was and fails, naming the file.
  it("refuse a full device (/dev/full: every write fails with ENOSPC), naming the file", function()
    local value = { devices = 64 }
    assert.are.equal("/dev/full: cannot write: No space left on device; the JSON was not written",
                     refusal(nd.write_json, "/dev/full", value))
    assert.are.equal("/dev/full: cannot write: No space left on device; the YAML was not written",
                     refusal(nd.write_yaml, "/dev/full", value))
    assert.are.equal("/dev/full: cannot write: No space left on device; the CSV was not written",
                     refusal(nd.write_csv, "/dev/full", rows, { "name" }))
    assert.are.equal("/dev/full: cannot write: No space left on device; the CSV was not written",
                     refusal(nd.write_csv, "/dev/full", { { a = 1 } }))
  end)

  it("leave the old file whole and no temporary file when a write fails part-way (a file-size limit), "
     .. "and the script fails", function()
    local dir = tmpname()
    assert(os.execute("mkdir " .. dir))
    local old = "old: 1\n"
    for _, w in ipairs { { "write_json", "y.json" }, { "write_yaml", "y.yaml" }, { "write_csv", "y.csv" } } do
      local path = dir .. "/" .. w[2]
      local f = assert(io.open(path, "w"))
      f:write(old)
      f:close()
      -- 20 000 rows of about 20 bytes: 400 kB, over a limit of 8 blocks
      -- (4 KiB in sh's 512-byte blocks, 8 KiB in bash's)
      local code = string.format("local nd = require 'nd'; local rows = {} for i = 1, 20000 do "
        .. "rows[i] = { name = 'row ' .. i, n = i } end; nd.%s(%q, rows)", w[1], path)
      local p = assert(io.popen(string.format("trap '' XFSZ; ulimit -f 8; %s -e %q 2>&1; echo \"[$?]\"", NDLUA, code)))
      local out = p:read("a")
      p:close()
      local what = ({ write_json = "the JSON", write_yaml = "the YAML", write_csv = "the CSV" })[w[1]]
      assert.are.equal(path .. ": cannot write: File too large; " .. what .. " was not written\n[2]\n", out)
      assert.are.equal(old, read(path))
    end
    local p = assert(io.popen("ls -A " .. dir))
    assert.are.equal("y.csv\ny.json\ny.yaml\n", p:read("a"))
    p:close()
    os.execute("rm -r " .. dir)
  end)

  it("write to standard output (\"-\"), ndlua failing at exit when it is a full device", function()
    local p = assert(io.popen(NDLUA .. [[ -e "require('nd').write_json('-', { a = 1 })" 2>&1]]))
    assert.are.equal('{\n  "a": 1\n}\n', p:read("a"))
    p:close()
    p = assert(io.popen(NDLUA .. [[ -e "require('nd').write_json('-', { a = 1 })" 2>&1 >/dev/full; echo "[$?]"]]))
    assert.are.equal("ndlua: cannot write the standard output: a write failed\n[2]\n", p:read("a"))
    p:close()
  end)

  it("name a wrong argument", function()
    assert.matches("nd.write_csv: argument 2 (rows) must be a table, got nil", message(nd.write_csv, "x.csv"), 1, true)
    assert.matches("nd.write_json: argument 1 (path) must be a string, got table", message(nd.write_json, {}), 1, true)
    assert.matches("nd.write_yaml: argument 1 (path) must be a string, got nil", message(nd.write_yaml), 1, true)
    assert.matches("nd.write_svg: argument 2 (svg) must be a string, got nil", message(nd.write_svg, "x"), 1, true)
  end)
end)

describe("the nd module", function()
  it("holds the study library, the SVG builder, units and census records", function()
    assert.are.equal(require "nd.study", nd.study)
    -- nd.svg, nd.units and nd.census are the libraries behind argument
    -- checks (issue 13): every function of the library is reachable
    for _, pair in ipairs({ { "nd.svg", nd.svg }, { "nd.units", nd.units }, { "nd.census", nd.census } }) do
      for name, f in pairs(require(pair[1])) do
        if type(f) == "function" then assert.is_function(pair[2][name], pair[1] .. "." .. name) end
      end
    end
    assert.are.equal(require("nd.units").parse_bytes, nd.units.parse_bytes)
    assert.has_error(function() nd.units.gib("1GB") end, "nd.units.gib: argument 1 (bytes) must be a number, got string")
    assert.are.equal(nd.study, require("nd").study)
  end)

  it("names a wrong nd.svg argument or chart field, where the drawing failed inside (issue 34 item 6)", function()
    -- each is named here, not left to fail inside the drawing ("attempt to get length of a nil value (field
    -- 'categories')", "attempt to index a nil value") or to draw a NaN width
    local cases = {
      { nd.svg.stacked_bars, {}, "nd.svg.stacked_bars: argument 1 (chart) must be a chart with categories, a "
        .. "non-empty list of bar labels, got nil" },
      { nd.svg.line_chart, {}, "nd.svg.line_chart: argument 1 (chart) must be a chart with series, a non-empty "
        .. "list of {name, points}, got nil" },
      { nd.svg.line_chart, { series = { { name = "a", points = { { 1, 0 / 0 } } } } },
        "nd.svg.line_chart: argument 1 (chart) must be a chart whose series[1].points[1] is {x, y}, numbers, got table" },
      { nd.svg.grouped_bars, { categories = { "a" }, series = { { name = "x", values = { "7" } } } },
        "nd.svg.grouped_bars: argument 1 (chart) must be a chart whose series[1].values[1] is a number (one a "
        .. "category), got string" },
      { nd.svg.stacked_bars, { categories = { "a", "b" }, series = { { name = "x", values = { 1 } } } },
        "nd.svg.stacked_bars: argument 1 (chart) must be a chart whose series[1].values[2] is a number (one a "
        .. "category), got nil" },
      { nd.svg.grouped_bars, { categories = { "a" }, series = { { name = "x", values = { 1 } } }, width = -5 },
        "nd.svg.grouped_bars: argument 1 (chart) must be a chart whose width is a number above 0, got number" },
    }
    for _, case in ipairs(cases) do
      local ok, err = pcall(case[1], case[2])
      assert.is_false(ok)
      assert.are.equal(case[3], (tostring(err):gsub("^[^:]*:%d+: ", "")))
    end
    local ok, err = pcall(nd.svg.document, 0 / 0, 10)
    assert.is_false(ok)
    assert.matches("nd.svg.document: argument 1 (width) must be a whole number above 0, got number", err, 1, true)
    -- a whole chart still draws; grouped bars take a missing value (no bar)
    assert.matches("^<%?xml", nd.svg.grouped_bars { categories = { "a", "b" }, series = { { name = "x", values = { 1 } } } })
    assert.matches("^<%?xml", nd.svg.stacked_bars { categories = { "a" }, series = { { name = "x", values = { 1 } } } })
  end)

  it("documents every public function in lua/nd/init.lua: a --- comment block above it, or an @function", function()
    local lines = {}
    for line in io.lines("lua/nd/init.lua") do lines[#lines + 1] = line end
    local documented = {}
    for i, line in ipairs(lines) do
      local name = line:match("^function nd%.([%w_]+)%(") or line:match("^%-%- @function nd%.([%w_]+)$")
      if name and line:match("^function") then
        local j = i - 1
        while j > 1 and lines[j - 1]:match("^%-%-") and not lines[j]:match("^%-%-%-") do j = j - 1 end
        if lines[j] and lines[j]:match("^%-%-%- ") then documented[name] = true end
      elseif name then
        documented[name] = true
      end
    end
    for name, v in pairs(nd) do
      if type(v) == "function" then assert.is_true(documented[name] == true, "nd." .. name .. " has no doc comment") end
    end
  end)
end)
