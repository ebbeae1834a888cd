-- search.lua: the parallel strategies of a train.yaml's model that fit the
-- device memory, ranked by a policy (default: the fastest estimated step).
--
--   ndlua search.lua examples/qwen3-30b-a3b-fsdp8/train.yaml -d 64 -b 128 -M 58GB -A A3
--   ndlua search.lua train.yaml -d 8 -l DP TP --recompute auto --json
--   ndlua search.lua train.yaml -s search.yaml --policy examples/policies/team.lua
--
-- What varies and within which bounds is Lua (nd.search, nd.search.config,
-- read from the command line by nd.search.command); the loop nest, the
-- rules and the pricing run in C (nd.core.search); the ranking is a policy
-- (nd.policies); the outputs are nd.report.* and nd.resolved_yaml.

local nd = require "nd"
local core = require "nd.core"
local errors = require "nd.errors"
local units = require "nd.units"
local warnings = require "nd.warnings"
local search = require "nd.search"
local command = require "nd.search.command"
local outcome = require "nd.search.outcome"
local search_config = require "nd.search.config"
local policies = require "nd.policies"
local resolved_yaml = require "nd.resolved_yaml"
local table_report = require "nd.report.table"
local csv_report = require "nd.report.csv"
local json_report = require "nd.report.json"
local chart = require "nd.report.chart"
local progress = require "nd.report.progress"
local strict = require "nd.strict"
local empty = require "nd.search.empty"
local ranking = require "nd.report.ranking"
local calibration = require "nd.compare.calibration"

local full_shard_exclusion, excluded_text = outcome.full_shard_exclusion, outcome.excluded_text

-- Writes a line of the text report (nothing under --json).
local function say(opts, line)
  if not opts.json then io.write(line, "\n") end
end

local function header(opts, s)
  local spec = s.base.spec
  say(opts, string.format("search: %s on %d devices (%s), a global batch of %d, %s a device (%s); recompute %s (%s); "
    .. "ranked by %s", spec.name, s.base.devices, s.profile.name, s.gbs, units.gib(s.budget), s.budget_source,
    table.concat(s.modes, ", "), s.modes_source, s.policy.name))
  if s.cfg then say(opts, "search config: " .. search_config.summary(s.cfg, s.base.path and {
    dp = s.space.dims.DP.pinned, fsdp = s.space.dims.OP.pinned == search.FULL_SHARD and "all of dp"
      or s.space.dims.OP.pinned, tp = s.space.dims.TP.pinned,
    pp = s.space.dims.PP.pinned, cp = s.space.dims.CP.pinned, ep = s.space.dims.EP.pinned })) end
  local bounds = search.bounds_text(s.bounds)
  if bounds then say(opts, bounds) end
  if s.calibration then say(opts, calibration.header(s.calibration)) end
  if opts.verbosity >= 3 then
    say(opts, "space:")
    for _, line in ipairs(command.space_lines(s.space, s.bounds)) do say(opts, line) end
  end
end

local function run_search(s)
  search.check_size(s.base.model, s.space, { dims = "-l", recompute = "--recompute", batch = "-b" })
  local update, finish = progress.new("searching")
  local result = core.search(s.base.model, s.base.run, s.space, update)
  if finish then finish() end
  return result
end

-- The keys a search can keep its top by as it prices, and how many it takes
-- (nd.core.search's space.top_keys, stated in src/binding/lnd_search.c).
local TOP_KEYS, MAX_TOP_KEYS = core.top_keys, core.limits.top_keys

-- Bounds the search to the candidates it shows (-t) when nothing reads the
-- others: no --csv, a policy that ranks by at most two keys the search
-- prices as it goes (no score or keep function), and no candidate set
-- aside. The search then holds those in a heap ranked by the sort's own
-- order, so they are the same candidates, in the same order, as a full sort.
local function bound_to_top(opts, s)
  local order, p = s.policy.order, s.policy
  if s.balance then return end -- the balanced ranking reads candidates past the top
  if opts.csv or p.score or p.keep or full_shard_exclusion(s.space) or not order or #order > MAX_TOP_KEYS then
    return
  end
  for _, k in ipairs(order) do
    if not TOP_KEYS[k] then return end
  end
  s.space.top, s.space.top_keys = opts.top, order
end

-- When the candidate lists (a search config's parallelism lists) refuse
-- every candidate, the search still answers, as the reference planner
-- does: the list that refuses (nd.search.empty.widen picks it) is searched
-- as auto and the search runs again; the report warns, naming the list,
-- what it refused and what the answer takes instead (--strict: exit 2).
local function widen(s, result, counts)
  local plan = empty.widen { counts = counts, space = s.space, model = s.base.model, run = s.base.run }
  if not plan then return result, counts, nil end
  for _, d in ipairs(plan.dims) do s.space.dims[d].allowed = nil end
  local again = run_search(s)
  plan.tested, plan.refused = counts.tested, counts.refused["filtered out"] or 0
  return again, again:counts(), plan
end

-- The field of a candidate table each dimension is in.
local FIELD = search.KEYS

-- The names of the other lists a plan widened, joined.
local function widened_names(plan, hints, but)
  local names = {}
  for _, d in ipairs(plan.dims) do
    if d ~= but then names[#names + 1] = hints.list and hints.list(d) or search.SHOWN[d] end
  end
  return table.concat(names, ", ")
end

-- The warning of each list widened, with the value the answer (best) takes.
local function warn_widened(w, s, plan, best)
  local hints = outcome.hints(s.cfg)
  for _, d in ipairs(plan.dims) do
    local name = hints.list and hints.list(d) or (search.SHOWN[d] .. "'s candidate list")
    local others = #plan.dims > 1 and "with the other lists; widened with " .. widened_names(plan, hints, d)
      or "with the other lists"
    local value, held = best[FIELD[d]], false
    for _, v in ipairs(plan.allowed[d]) do held = held or v == value end
    w:warn(name, string.format("%s refused every candidate (%d of %d tested, %s); searched as auto, the answer "
      .. "takes %s %s%s%s", empty.list_text(plan.allowed[d]), plan.refused, plan.tested, others, search.SHOWN[d],
      tostring(value), held and "" or ", which the list does not hold",
      s.cfg and "; state the list auto or widen it" or ""), "widened")
  end
end

-- The layouts a search config's comments name (the strategies of the
-- experiment it mirrors) that this search cannot choose: a batch they do
-- not make (dp x micro_batch_num x local_batch_size against the global
-- batch) or devices they do not fill; said in one warning.
local function comment_layouts(opts, s, w)
  if not opts.search_config then return end
  local mbs, batch_bad, devices_bad = s.space.dims.MBS.pinned, {}, {}
  for _, l in ipairs(search_config.comment_layouts(opts.search_config)) do
    local batch = l.dp * l.mb * mbs
    local devices = l.dp * (l.tp or 1) * (l.pp or 1) * (l.cp or 1)
    if batch ~= s.gbs then
      batch_bad[#batch_bad + 1] = string.format("%s (%d x %d x %d = %d)", l.text, l.dp, l.mb, mbs, batch)
    elseif devices ~= s.base.devices then
      devices_bad[#devices_bad + 1] = string.format("%s (%d devices)", l.text, devices)
    end
  end
  local parts = {}
  if #batch_bad > 0 then
    parts[#parts + 1] = string.format("dp x micro_batch_num x local_batch_size is not the global batch %d: %s",
                                      s.gbs, table.concat(batch_bad, ", "))
  end
  if #devices_bad > 0 then
    parts[#parts + 1] = string.format("dp x tp x pp x cp is not the %d devices: %s", s.base.devices,
                                      table.concat(devices_bad, ", "))
  end
  if #parts > 0 then
    w:warn(nil, string.format("the search config's comments name %d layout%s this search cannot choose; %s",
      #batch_bad + #devices_bad, #batch_bad + #devices_bad == 1 and "" or "s", table.concat(parts, "; ")))
  end
end

-- Exits with status 2 when no candidate can be recommended.
local function check_found(result, counts, s)
  local problem = outcome.not_found(result, counts, s.budget, s.spans_cp, outcome.hints(s.cfg),
                                    { space = s.space, model = s.base.model, run = s.base.run })
  if problem then errors.raise { message = problem } end
end

local function policy_context(s)
  return outcome.policy_context(s.base.devices, s.profile, s.budget, s.gbs)
end

-- The candidates as reports and policies see them (search.candidate).
local function getter(result, s)
  return function(i, with_stages)
    local c = search.candidate(result, i, with_stages and s.base.model or nil, s.spans_cp)
    if s.calibration then calibration.candidate(c, s.calibration, s.estimate_of) end
    return c
  end
end

local function top_list(get, n, with_stages)
  local list = {}
  for i = 1, n do list[i] = get(i, with_stages) end
  return list
end

-- resolved.yaml in -o: the yaml (as read, with the command line's overrides)
-- with the best strategy written in.
local function write_resolved(opts, s, best)
  if best.balance and (best.balance.offloaded_layers or 0) > 0 then
    -- HyperParallel's train.yaml has no per-layer activation offload key
    -- (only activation_swap): the plan is not written without it
    return nil, nil, string.format("resolved.yaml not written: the top candidate's plan offloads %d layers' "
      .. "activations to the host, and HyperParallel's train.yaml has no key for a layer's activation offload (only "
      .. "activation_swap); -k 1 writes its plan as JSON", best.balance.offloaded_layers)
  end
  local doc = s.base.synthetic or command.source_doc(opts, s.cfg, s.base.path)
  local notes = resolved_yaml.apply(doc, s.base.schema, best)
  if best.balance then
    resolved_yaml.apply_plan(doc, s.base.schema, best.balance.changes, best.vpp)
    -- the plan states them again: not left out
    local kept = {}
    for _, n in ipairs(notes) do
      if not (n:match("%.offset$") or n:match("%.full_rec$") or n:match("%.sel_rec$")) then kept[#kept + 1] = n end
    end
    notes = kept
  end
  local dir = opts.output_dir
  local made, err = core.mkdir_p(dir)
  if not made then errors.raise { message = err .. "; the resolved yaml was not written" } end
  local path = dir .. "/resolved.yaml"
  resolved_yaml.write(path, doc)
  return path, notes
end

local function search_info(s)
  local dims = {}
  for _, d in ipairs(search.DIMS) do
    local e = s.space.dims[d]
    local pinned = e.pinned == search.FULL_SHARD and d == "OP" and "full" or e.pinned
    dims[search.SHOWN[d]] = { searched = e.searched, pinned = pinned, bound = e.bound,
                              allowed = e.allowed and nd.json.array(e.allowed) or nil }
  end
  return { devices = s.base.devices, global_batch = s.gbs, budget_bytes = s.budget, hardware = s.profile.name,
           policy = s.policy.name, recompute = nd.json.array(s.modes), dims = dims }
end

-- A --csv past this says so before it is written.
local CSV_LARGE_BYTES = 2 ^ 30

-- The --csv file: every fitting candidate, or the first --csv-limit of
-- them. Before writing, a file held to the limit, or one of a GiB or more,
-- is announced on the standard error with its rows and its size estimated
-- from the first row's (rows differ by a few digits).
local function write_csv(opts, result, spans_cp, get)
  local fitting = result:size()
  local n = math.min(opts.csv_limit or fitting, fitting)
  local row_bytes = n > 0 and #csv_report.row(get(1)) + 1 or 0
  local bytes = #csv_report.header() + 1 + n * row_bytes
  if n < fitting or bytes >= CSV_LARGE_BYTES then
    local held = n < fitting and string.format("the first %d of %d fitting candidates (--csv-limit %d)", n, fitting,
                                               opts.csv_limit)
      or string.format("%d fitting candidates (--csv-limit N writes fewer)", n)
    io.stderr:write(string.format("search.lua: --csv %s: %s, about %s (%d rows of about %d bytes)\n", opts.csv, held,
                                  bytes >= 2 ^ 30 and units.gib(bytes) or bytes >= 2 ^ 20 and units.mib(bytes)
                                  or string.format("%.1f KiB", bytes / 2 ^ 10), n, row_bytes))
  end
  csv_report.write_result(opts.csv, result, spans_cp, n)
end

-- --balance: the ranked list of balanced candidates (nd.balance_search),
-- their stages' bytes when the chart draws them; -k's plan written.
local function balanced_list(opts, s, result, get)
  local balance_search = require "nd.balance_search"
  local list, info = balance_search.rank(s, result, get, { top = opts.top, limit = s.balance.limit })
  info.shown = #list
  info.offloading = 0
  for _, c in ipairs(list) do
    if c.balance and (c.balance.offloaded_layers or 0) > 0 then info.offloading = info.offloading + 1 end
  end
  if #list == 0 then
    errors.raise { message = string.format("no candidate fits the budget of %s, balanced or not",
                                           units.gib(s.budget)) }
  end
  if opts.svg then
    for _, c in ipairs(list) do
      c.stage_bytes = (c.balance and c.balance.stage_bytes) or result:candidate(c.even_rank, s.base.model).stage_bytes
    end
  end
  if opts.plan then
    local c = list[opts.plan]
    if not c or not c.balance then
      errors.raise { path = "-k", message = string.format("candidate %d of the %d shown is %s", opts.plan, #list,
        c and "not balanced (its even split is as fast)" or "not listed"), accepted = "a balanced row's rank" }
    end
    local made, err = core.mkdir_p(opts.output_dir)
    if not made then errors.raise { message = err .. "; the plan was not written" } end
    info.plan_path = string.format("%s/plan-%d.json", opts.output_dir, opts.plan)
    nd.write_json(info.plan_path, balance_search.plan_document(c, opts.plan))
  end
  return list, info
end

local function balance_lines(s, info)
  local filter = string.format("the memory filter saw up to %s, each kept candidate fits %s",
                               units.gib(s.space.budget_bytes), units.gib(s.budget))
  local lines = {}
  if info.by == "peak" then
    lines[1] = string.format("balanced (%s): %d of %d pipelined candidates taken in order of their peak's floor (%d "
      .. "took a balanced plan; %d problems solved, %d alike, %d proved to have no plan that fits by counting layers; "
      .. "%.3f s), %d pruned: no split or recompute of their layout peaks below the top %d's last row; %s",
      s.balance.source, info.tried, info.pipelined, info.balanced, info.solved, info.memo_hits, info.unfit,
      info.seconds, info.pruned, info.shown, filter)
  elseif info.by == "order" then
    lines[1] = string.format("balanced (%s): %d of the first %d pipelined candidates by the even split's rank took a "
      .. "balanced plan, to the top %d's last row (%d problems solved, %d alike, %d proved to have no plan that fits by "
      .. "counting layers; %.3f s): the policy ranks by keys balancing leaves at the even split's, so it changes only "
      .. "which candidates fit; %s", s.balance.source, info.balanced, info.tried, info.shown, info.solved,
      info.memo_hits, info.unfit, info.seconds, filter)
  elseif info.exact then
    lines[1] = string.format("balanced (%s): %d of %d pipelined candidates taken in order of their floor (%d took "
      .. "a balanced plan; %d layouts not solved: the recompute any plan that fits needs steps them past the top %d's "
      .. "last row; %d problems solved, %d alike, %d proved to have no plan that fits by counting layers; %.3f s), "
      .. "%d pruned: no split or recompute of their layout steps faster than that row; %s",
      s.balance.source, info.tried, info.pipelined, info.balanced, info.above, info.shown, info.solved,
      info.memo_hits, info.unfit, info.seconds, info.pruned, filter)
  else
    lines[1] = string.format("balanced (%s): %d of the first %d pipelined candidates by the even split's rank took a "
      .. "balanced plan (%d problems solved, %d alike, %d proved to have no plan that fits by counting layers; %.3f s); "
      .. "%s", s.balance.source, info.balanced, info.tried, info.solved, info.memo_hits, info.unfit, info.seconds,
      filter)
  end
  if #info.refused > 0 then
    lines[#lines + 1] = "not balanced (candidates: why): " .. table.concat(info.refused, "; ")
  end
  if info.unbalanced > 0 and info.exact then
    lines[#lines + 1] = string.format("not balanced (--balance-limit %d): %d pipelined candidates past it in order "
      .. "of their bound are priced at their even split; the top %d is that of balancing every candidate only if "
      .. "none of them would rank there balanced (not checked)", info.limit, info.unbalanced, info.shown)
  elseif info.unbalanced > 0 then
    -- no silent cap: what the limit left at the even split
    local after, before = info.total - info.looked, info.unbalanced - (info.total - info.looked)
    lines[#lines + 1] = string.format("not balanced (--balance-limit %d): the %d candidates after #%d of %d by the "
      .. "even split's rank%s are priced at their even split; the top %d is that of balancing every candidate only "
      .. "if none of them would rank there balanced (not checked%s)", info.limit, after, info.looked, info.total,
      before > 0 and string.format(" and %d pipelined ones before it", before) or "", info.shown,
      info.why and ": " .. info.why or "")
  end
  local link = s.balance.link
  if link then
    lines[#lines + 1] = string.format("offload (%s): the plans' plain layers may offload their activations over the "
      .. "host link, %g GiB/s each way (%s), overlap %g of a layer's forward, %g ms a GiB copied (one chunk a stage: "
      .. "VPP > 1 balanced without it); %d of the %d rows shown offload", s.balance.offload_source, link.gibps,
      link.from, link.overlap, link.cost, info.offloading, info.shown)
  end
  return lines
end

local function report(opts, s, result, counts, kept, w, excluded, widened)
  local get = getter(result, s)
  local shown = math.min(opts.top, kept)
  local list, binfo
  if s.balance then
    list, binfo = balanced_list(opts, s, result, get)
    shown = #list
  else
    list = top_list(get, shown, opts.svg)
  end
  if widened then warn_widened(w, s, widened, list[1]) end
  if opts.csv then write_csv(opts, result, s.spans_cp, get) end
  if opts.svg then
    chart.write(opts.svg, list, { budget_bytes = s.budget,
      title = string.format("Top %d of %d strategies: %s on %d %s devices", shown, kept, s.base.spec.name,
                             s.base.devices, s.profile.name),
      subtitle = string.format("global batch %d, budget %s a device, ranked by %s", s.gbs, units.gib(s.budget),
                               s.policy.name) })
  end
  local path, notes, unwritten = write_resolved(opts, s, list[1])
  if unwritten and opts.json then w:warn(nil, unwritten) end -- (the tables say it in place of the path)
  if opts.json then
    local info = search_info(s)
    if binfo then
      info.balance = { source = s.balance.source, balanced = binfo.balanced, tried = binfo.tried, limit = binfo.limit,
                       unbalanced = binfo.unbalanced, exact = binfo.exact or false, pruned = binfo.pruned,
                       unfit = binfo.unfit, above = binfo.above,
                       pipelined = binfo.pipelined,
                       solved = binfo.solved, memo_hits = binfo.memo_hits, filter_bytes = s.space.budget_bytes,
                       refused = nd.json.array(binfo.refused),
                       plan = binfo.plan_path }
      if s.balance.link then
        local l = s.balance.link
        info.balance.offload = { source = s.balance.offload_source, gibps = l.gibps, overlap = l.overlap,
                                 cost_ms_per_gib = l.cost, rows_offloading = binfo.offloading }
      end
    end
    io.write(nd.json.encode(json_report.document(counts, list, { warnings = w:all(), search = info,
                                                                   resolved_yaml = path,
                                                                   ranking = ranking.summary(list) }),
                            { indent = 2 }), "\n")
    return
  end
  if opts.verbosity >= 1 then
    -- --balance: the C search's filter is the widened budget
    for _, line in ipairs(table_report.summary(counts, s.balance and s.space.budget_bytes or s.budget)) do
      say(opts, line)
    end
    if excluded > 0 then say(opts, excluded_text(excluded)) end
    if kept + excluded < counts.fitting then
      say(opts, string.format("%d of them kept by the policy's rules", kept))
    end
  end
  if opts.verbosity >= 2 then
    local dropped = result:dropped()
    for _, c in ipairs(dropped) do search.shown(c, s.spans_cp) end
    for _, line in ipairs(table_report.dropped(dropped, counts.dropped, s.budget)) do say(opts, line) end
  end
  if binfo and opts.verbosity >= 1 then
    for _, line in ipairs(balance_lines(s, binfo)) do say(opts, line) end
  end
  if opts.verbosity >= 1 then say(opts, "") end
  local about = s.policy.about and (" (" .. s.policy.about .. ")") or ""
  say(opts, string.format("top %d by %s%s:", shown, s.policy.name, about))
  for _, line in ipairs(ranking.lines(list, s.policy, opts.verbosity >= 1)) do say(opts, line) end
  if opts.verbosity >= 1 then
    say(opts, "")
    if path then
      local removed = #notes > 0 and (", " .. table.concat(notes, ", ")) or ""
      say(opts, string.format("resolved strategy written to %s (context%s left out; train it on %d devices)", path,
                              removed, s.base.devices))
    else
      say(opts, unwritten)
    end
    if opts.csv then say(opts, "every fitting candidate written to " .. opts.csv) end
    if opts.svg then say(opts, "chart: " .. opts.svg) end
    if binfo and binfo.plan_path then say(opts, "plan of #" .. opts.plan .. " written to " .. binfo.plan_path) end
  end
end

local function main(opts, w)
  local s = command.prepare(opts, w)
  if opts.calibration then -- -c: the ranking and the fit read the calibrated estimates
    s.calibration = calibration.load(opts.calibration)
    s.estimate_of = function(c) return nd.estimate(s.base.model, nd.candidate_run(s.base.run, c)) end
    s.policy = calibration.policy(s.policy, s.calibration, s.estimate_of)
  end
  command.check_outputs(opts, s)
  if opts.verbosity >= 1 then header(opts, s) end
  comment_layouts(opts, s, w)
  bound_to_top(opts, s)
  local result = run_search(s)
  local counts = result:counts()
  local widened
  result, counts, widened = widen(s, result, counts)
  check_found(result, counts, s)
  local kept, excluded = policies.apply(result, s.policy, policy_context(s), getter(result, s), nil,
                                        full_shard_exclusion(s.space))
  if kept == 0 then
    local why = excluded > 0 and (" (" .. excluded_text(excluded) .. ")") or ""
    errors.raise { message = string.format("the policy %s keeps none of the %d fitting candidates%s", s.policy.name,
                                           counts.fitting, why) }
  end
  report(opts, s, result, counts, kept, w, excluded, widened)
end

local opts = command.read_options({ ... })
if opts.help then
  io.write(command.help_text())
  return
end
if opts.print_yaml then
  local cfg = opts.search_config and search_config.load(opts.search_config) or nil
  local path = opts.path or (cfg and cfg.train_yaml)
  local doc = command.source_doc(opts, cfg, path, warnings.new())
  io.write(nd.yaml.encode(doc))
  return
end
local w = warnings.new { echo = false }
local ok, err = pcall(main, opts, w)
if opts.verbosity >= 1 or not ok then
  io.stdout:flush() -- the warnings follow what stdout holds
  w:flush()
end
if not ok then error(err, 0) end
strict.finish(opts, w) -- a layout that does not fit has exited 2 already (check_found)
