-- balance.lua: per pipeline stage and chunk the layers and their recompute options that fit and give the least step, proved optimal
--
-- The pipeline balancer: for S stages, I chunks and m micro-batches, how many
-- body layers each stage and chunk holds and how many of them use each
-- recompute option, so that every stage fits its memory and the step is
-- shortest; proved optimal, or proved to have no plan (naming the stage
-- that cannot fit).
--
--   ndlua balance.lua ../shared/reference/sapp-ppb/llama2_70b.json -s 16 -m 32 -i 2 --memory 56000MB --objective sapp
--   ndlua balance.lua layers.json -s 8 -m 16 --memory 40GB --json
--   ndlua balance.lua train.yaml --memory 40GiB --yaml balanced.yaml
--   ndlua balance.lua train.yaml --memory 20GiB -A A3 --offload   # plain layers may offload (nd.host_link)
--
-- The input is a SAPP-PPB layer file (HyperParallel's pipeline balancer's
-- JSON: HEAD, BODY and TAIL layers with per-option activation MB), or a
-- train.yaml, whose layers ndlua prices itself (nd.balance_run; the flow is
-- nd.balance_train's). The solver is nd.core.balance (src/search/balance.c,
-- balance_sapp.c).

local nd = require "nd"
local cli = require "nd.cli"
local errors = require "nd.errors"
local balance = require "nd.balance"
local balance_svg = require "nd.balance_svg"

local COMMAND = {
  usage = "ndlua balance.lua LAYER_JSON -s S -m M [-i I] --memory SIZE [--schedule NAME] [--objective step|sapp]\n"
    .. "                          [--sapp-level 0|1|2] [--json] [--yaml FILE] [--svg FILE]\n"
    .. "       ndlua balance.lua TRAIN_YAML [-s S] [-m M] [-i I] [--memory SIZE] [-A NAME] [--json] [--yaml FILE] [--svg FILE]\n"
    .. "                          [--offload [--host-link-gibps G] [--host-link-overlap F] [--host-link-cost MS]]",
  about = "Balances a pipeline: per stage and chunk the layers and how many use each recompute option\n"
    .. "(off, selective, comm, both, full), every stage within --memory, the step least. The answer is\n"
    .. "exact: proved optimal, or proved infeasible with the stage that cannot fit. LAYER_JSON is a\n"
    .. "SAPP-PPB layer file (its times are in its own unit; its memory in MB). --objective step prices\n"
    .. "the step as ndlua's timing does (sum + bubble of the slowest stage); --objective sapp reproduces\n"
    .. "SAPP-PPB's objective and memory rule (its -O level: --sapp-level).\n"
    .. "A TRAIN_YAML (.yaml, .yml) is priced by ndlua itself: each layer's bytes and seconds per recompute\n"
    .. "mode (off, selective, full) from the estimate and the time model, the run's stages, chunks,\n"
    .. "micro-batches, schedule and device memory unless -s, -m, -i, --schedule, --memory change them;\n"
    .. "the plan is priced again by the estimate, and --yaml writes the train.yaml with it\n"
    .. "(model.config_overrides.offset and full_rec or sel_rec), which estimate.lua reads back.\n"
    .. "--offload (-ao, the reference's): a TRAIN_YAML's plain layers may also offload their activations to the\n"
    .. "host, copied out in the forward and back before the backward over the profile's host link; the copy\n"
    .. "seconds past --host-link-overlap of the layer's forward, and --host-link-cost ms a GiB copied, add\n"
    .. "to its time; kept only where the step is less.",
  options = {
    { name = "stages", short = "s", arg = "S", help = "pipeline stages" },
    { name = "micro-batches", short = "m", arg = "M", help = "micro-batches a step" },
    { name = "interleave", short = "i", arg = "I", default = 1, help = "virtual chunks per stage (1 or 2 for sapp)" },
    { name = "memory", arg = "SIZE", help = "memory per device with its unit, e.g. 56000MB (MB as the layer file's MB)" },
    { name = "schedule", arg = "NAME", default = "1f1b",
      help = "1f1b, interleaved, interleaved-less-memory or dualpipev (in-flight counts as SAPP-PPB's digest)" },
    { name = "objective", arg = "NAME", default = "step", help = "step (ndlua's step time) or sapp (the reference's)" },
    { name = "sapp-level", arg = "N", default = 2, help = "the reference's -O for --objective sapp: 0, 1 or 2" },
    { name = "hardware", short = "A", arg = "NAME", help = "a TRAIN_YAML's hardware profile for the time model (default A2)" },
    { name = "json", help = "print one JSON document instead of the tables" },
    { name = "yaml", arg = "FILE", help = "also write the plan as train.yaml keys (offset, recompute lists)" },
    { name = "offload", short = "ao",
      help = "a TRAIN_YAML's plain layers may offload their activations to the host (one chunk a stage)" },
    { name = "auto-offload", help = "the same as --offload (the reference's name)" },
    { name = "host-link-gibps", arg = "G", help = "with --offload: the host link's GiB/s each way (default the profile's)" },
    { name = "host-link-overlap", arg = "F",
      help = "with --offload: the share of a layer's forward its copies may run behind (default 0.8)" },
    { name = "host-link-cost", arg = "MS",
      help = "with --offload: ms each GiB copied costs the step (default the profile's, else 0)" },
    { name = "svg", arg = "FILE",
      help = "also draw the plan: its pipeline timeline in the schedule's order and each stage's memory against the limit" },
  },
}

local SCHEDULES = { ["1f1b"] = true, interleaved = true, ["interleaved-less-memory"] = true, dualpipev = true }

local function bad(message, accepted)
  errors.raise { message = message, accepted = accepted or "ndlua balance.lua --help" }
end

-- Whether argv states an option (by its long or short name).
local function stated(argv, long, short)
  for _, a in ipairs(argv) do
    if a == "--" .. long or a:sub(1, #long + 3) == "--" .. long .. "=" or (short and a:sub(1, 2) == "-" .. short) then
      return true
    end
  end
  return false
end

-- A TRAIN_YAML's options: each changes the run where stated.
local function train_yaml_options(opts, argv)
  if opts.stages then opts.stages = cli.positive_integer(opts.stages, "--stages", 4096, "stages") end
  if opts.micro_batches then opts.micro_batches = cli.positive_integer(opts.micro_batches, "--micro-batches") end
  opts.interleave_given = stated(argv, "interleave", "i")
  opts.interleave = cli.positive_integer(tostring(opts.interleave), "--interleave", 64, "chunks")
  opts.schedule_given = stated(argv, "schedule")
  if opts.schedule_given and opts.schedule ~= "1f1b" and opts.schedule ~= "dualpipev" then
    bad("--schedule " .. opts.schedule .. " is not a schedule a train.yaml's run takes here", "1f1b, dualpipev")
  end
  if opts.memory then opts.memory_bytes = cli.size(opts.memory, "--memory") end
  if opts.yaml and (opts.stages or opts.micro_batches or opts.interleave_given or opts.schedule_given) then
    bad("--yaml writes the plan into the train.yaml's own run; -s, -m, -i and --schedule change that run",
        "state them in the train.yaml, or leave --yaml out")
  end
  if opts.offload and (opts.interleave > 1 or opts.schedule_given and opts.schedule == "dualpipev") then
    bad("--offload plans one chunk a stage (the reference's -ao, vp = 1)", "-i 1 and --schedule 1f1b with --offload")
  end
  if opts.offload and opts.objective ~= "step" then
    bad("--offload prices ndlua's step: --objective " .. opts.objective .. " has no offload", "--objective step")
  end
  opts.train_yaml = true
  return opts
end

local function read_options(argv)
  local opts, args = cli.parse(COMMAND, argv)
  if opts.help then return opts end
  if #args ~= 1 then bad("balance.lua takes one LAYER_JSON, got " .. #args .. " arguments") end
  opts.path = args[1]
  require("nd.host_link").read_options(opts, bad)
  if opts.path:match("%.ya?ml$") then return train_yaml_options(opts, argv) end
  if opts.offload then
    bad("--offload prices a TRAIN_YAML's layers: a SAPP-PPB layer file states no bytes for a copy to move, and its "
      .. "times are in its own unit", "a TRAIN_YAML with --offload, or no --offload")
  end
  if opts.hardware then bad("-A names the hardware of a TRAIN_YAML; a layer file states its own times") end
  if not opts.stages then bad("balance.lua needs --stages (-s)") end
  if not opts.micro_batches then bad("balance.lua needs --micro-batches (-m)") end
  if not opts.memory then bad("balance.lua needs --memory SIZE (e.g. 56000MB)") end
  opts.stages = cli.positive_integer(opts.stages, "--stages", 4096, "stages")
  -- the balancer counts at most 2^24 micro-batches (nd.core.limits.batch, src/binding/lnd_balance.c)
  opts.micro_batches = cli.positive_integer(opts.micro_batches, "--micro-batches", require("nd.core").limits.batch,
                                            "micro-batches")
  opts.interleave = cli.positive_integer(tostring(opts.interleave), "--interleave", 64, "chunks")
  if not SCHEDULES[opts.schedule] then
    bad("--schedule " .. opts.schedule .. " is not a schedule", "1f1b, interleaved, interleaved-less-memory, dualpipev")
  end
  if opts.schedule == "dualpipev" then opts.interleave = 2 end
  if opts.objective ~= "step" and opts.objective ~= "sapp" then
    bad("--objective " .. opts.objective .. " is not an objective", "step, sapp")
  end
  local level = tonumber(opts.sapp_level)
  if level ~= 0 and level ~= 1 and level ~= 2 then bad("--sapp-level must be 0, 1 or 2") end
  opts.sapp_level = level
  -- The layer file's MB: the limit in the same unit (a size in other units converts).
  local bytes = cli.size(opts.memory, "--memory")
  opts.limit_mb = bytes / (1024 * 1024)
  return opts
end

-- The plan's table: per stage and chunk the layers and the count per option.
local function print_plan(p, plan, even, opts)
  local names = {}
  for _, name in ipairs(balance.OPTIONS) do
    if p.layer.act[name] then names[#names + 1] = name end
  end
  io.write(("%-6s %-6s %7s"):format("stage", "chunk", "layers"))
  for _, name in ipairs(names) do io.write(("%10s"):format(name)) end
  io.write(("%12s %12s %10s %10s %10s %10s\n"):format("memory MB", "limit MB", "fwd", "bwd", "recomp", "time"))
  local secs = balance.stage_seconds(p, plan)
  for s = 1, p.stages do
    for v = 1, p.chunks do
      io.write(("%-6d %-6d %7d"):format(s - 1, v - 1, balance.layers_in(plan, s, v, v)))
      for _, name in ipairs(names) do io.write(("%10d"):format(plan.cells[s][v][name])) end
      if v == 1 then
        local t = secs[s]
        io.write(("%12.0f %12.0f %10.1f %10.1f %10.1f %10.1f"):format(plan.stage_mem[s], p.limit, t.forward, t.backward,
          t.recompute, plan.stage_time[s]))
      end
      io.write("\n")
    end
  end
  print("(times in the layer file's own unit: SAPP-PPB's files do not state it; time is the stage's time by the objective's rule)")
  local label = opts.objective == "sapp" and ("sapp -O " .. opts.sapp_level) or "step"
  print(("objective (%s): %.2f%s"):format(label, plan.objective, plan.optimal and ", proved optimal" or ""))
  if even then
    if even.feasible then
      print(("even split, one mode (%s): %.2f; balanced is %.3fx faster"):format(even.mode, even.objective,
        even.objective / plan.objective))
    else
      print("even split, one mode: no single recompute mode fits every stage")
    end
  end
  print(("solved in %.3f s (%d bounds tried)"):format(plan.solve_s, plan.explored))
end

-- The objective of the even split (body / (S x I) a cell, the remainder on the
-- first cells) with the one uniform mode that fits, the fastest such.
local function even_split(p)
  local S, I, N = p.stages, p.chunks, p.body
  local per, extra = N // (S * I), N % (S * I)
  local best
  for _, name in ipairs(balance.OPTIONS) do
    if p.layer.act[name] then
      local q = {}
      for k, v in pairs(p) do q[k] = v end
      q.layer = { stat = p.layer.stat, fwd = p.layer.fwd, act = { [name] = p.layer.act[name] },
                  time = { [name] = p.layer.time[name] } }
      -- fix the counts: solve with the split given is the evaluation; the
      -- solver has no "fixed" mode, so the even plan is priced through a
      -- one-layer-per-cell problem of the same rule: build the cells here.
      local cells = {}
      local i = 0
      for v = 1, I do
        for s = 1, S do
          cells[s] = cells[s] or {}
          i = i + 1
          cells[s][v] = { [name] = per + ((i <= extra) and 1 or 0) }
        end
      end
      local ok, value = nd.balance_evaluate(q, cells)
      if ok and (best == nil or value < best.objective) then
        best = { feasible = true, objective = value, mode = name }
      end
    end
  end
  return best or { feasible = false }
end

-- The plan in the form MindFormers/HyperParallel yamls take: offset per
-- stage (a list per chunk when I > 1) and per option the layers each stage
-- recomputes that way (likewise per chunk), under the reference's keys.
local function yaml_plan(p, plan)
  local offset, counts = balance.reference_form(p, plan)
  local function shaped(per_chunk) return p.chunks == 1 and per_chunk[1] or per_chunk end
  local rec = {}
  for _, name in ipairs(balance.OPTIONS) do
    for _, key in ipairs(balance.YAML_KEYS[name]) do
      if counts[name] then
        rec[key] = rec[key] or {}
        for v = 1, p.chunks do
          rec[key][v] = rec[key][v] or {}
          for s = 1, p.stages do rec[key][v][s] = (rec[key][v][s] or 0) + counts[name][s][v] end
        end
      end
    end
  end
  for key, per_chunk in pairs(rec) do rec[key] = shaped(per_chunk) end
  for v = 1, p.chunks do
    for s = 1, p.stages do offset[v][s] = math.tointeger(offset[v][s]) or offset[v][s] end
  end
  return { parallel_config = { offset = shaped(offset) }, recompute_config = rec }
end

local function main(...)
  local opts = read_options({ ... })
  if opts.help then
    io.write(cli.help(COMMAND))
    return
  end
  if opts.train_yaml then return require("nd.balance_train").main(opts) end
  local doc = nd.json.load(opts.path)
  local p = balance.from_sapp(doc, {
    stages = opts.stages, micro = opts.micro_batches, chunks = opts.interleave, limit = opts.limit_mb,
    schedule = opts.schedule, objective = opts.objective, level = opts.sapp_level,
  })
  local plan = nd.balance(p)
  local even = plan.feasible and even_split(p) or nil
  if opts.json then
    local out = { feasible = plan.feasible, optimal = plan.optimal, solve_s = plan.solve_s }
    if plan.feasible then
      local y = yaml_plan(p, plan)
      out.objective, out.offset, out.recompute = plan.objective, y.parallel_config.offset, y.recompute_config
      -- the layer file's time unit (SAPP-PPB's files are in their own unit, not seconds)
      out.step_s = plan.objective
      out.time_unit = "the layer file's"
      out.stages = {}
      for s, t in ipairs(balance.stage_seconds(p, plan)) do
        out.stages[s] = { forward = t.forward, backward = t.backward, recompute = t.recompute,
                          time = plan.stage_time[s], memory_mb = plan.stage_mem[s] }
      end
      if even and even.feasible then out.even_objective, out.even_mode = even.objective, even.mode end
    else
      out.bad_stage = plan.bad_stage and plan.bad_stage - 1 or nil
      out.bad_need_mb = plan.bad_need
      out.capacity = plan.capacity
    end
    print(nd.json.encode(out, { indent = 2 }))
    return
  end
  print(("%s: %d body layers, %d stages, %d chunks, %d micro-batches, %s a device, objective %s"):format(
    opts.path, p.body, p.stages, p.chunks, p.micro, opts.memory,
    opts.objective == "sapp" and ("sapp -O " .. opts.sapp_level) or "step"))
  if not plan.feasible then
    if plan.bad_stage then
      print(("no plan: stage %d needs %.0f MB even with its least layers at the least-memory option (limit %.0f MB); proved"):format(
        plan.bad_stage - 1, plan.bad_need, p.limit))
    else
      print(("no plan: the stages hold at most %d of the %d body layers within %.0f MB; proved"):format(
        plan.capacity, p.body, p.limit))
    end
    os.exit(1)
  end
  print_plan(p, plan, even, opts)
  if opts.svg then
    local title = ("%s: %d stages, %d chunks, %d micro-batches, %s"):format(opts.path:match("[^/]*$"), p.stages,
      p.chunks, p.micro, opts.memory)
    local text, why = balance_svg.render(p, plan, title, opts.schedule,
      opts.objective == "sapp" and ("sapp -O " .. opts.sapp_level) or "step")
    if not text then bad("--svg " .. opts.svg .. ": " .. why, "-m that the schedule's order runs, or no --svg") end
    require("nd.svg").write(opts.svg, text)
    print("chart: " .. opts.svg)
  end
  if opts.yaml then
    local y = yaml_plan(p, plan)
    y.parallel_config.pipeline_stage_num, y.parallel_config.micro_batch_num = p.stages, p.micro
    if p.chunks > 1 then y.parallel_config.pp_interleave_num = p.chunks end
    local ok, why = nd.write_file(opts.yaml, nd.yaml.encode(y))
    if not ok then bad("--yaml " .. opts.yaml .. ": " .. tostring(why)) end
    print("plan: " .. opts.yaml)
  end
end

main(...)
