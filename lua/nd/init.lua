--- The nd module: ndlua's Lua API.
-- `local nd = require "nd"` gives the C core (YAML and JSON bridges, the
-- model, run and estimate types) and the Lua library built on it.
--
-- This file is the facade and the reference: it defines nothing, it
-- re-exports what the library modules define (nd.model, nd.run, nd.api,
-- nd.api.search, nd.study), each with its documentation; nd.search
-- requires nd.api.search at its first call. No module of the
-- library requires "nd" (spec/require_graph_spec.lua): a module needing
-- a model or a run requires nd.model or nd.run.
-- @module nd

local core = require "nd.core"

local nd = {}
for name, value in pairs(core) do
  nd[name] = value
end

-- BEGIN model resolution (issue 3; lua/nd/model.lua, model/source.lua, model/spec.lua)
-- nd.resolve_model(section_or_id, opts) -> settled spec, source, run keys
-- nd.model(spec | section | id, opts) -> nd.core.model(settled spec)
-- Without opts.warnings, warnings go to one collector printing to stderr.
local model = require "nd.model"

--- Resolves a model: finds its config (a checkpoint directory, the
-- Hugging Face cache, the built-in catalog, or config_overrides), maps it
-- and settles it (lua/nd/README.md).
-- @function nd.resolve_model
-- @param section a hub id ("Qwen/Qwen3-8B") or a train.yaml's model section
-- @tparam[opt] table opts `warnings` (a collector), `visual_seq_len`, `getenv`
-- @treturn table the settled spec
-- @treturn table the source `{kind, path, id, revision, snapshot, description}`
-- @treturn table the run keys of config_overrides
nd.resolve_model = model.resolve

--- A model: the C core's nd.model of a settled spec.
-- @function nd.model
-- @param spec a hub id ("Qwen/Qwen3-8B", from the catalog or the HF
--   cache), a model section ({pretrained_model_name_or_path = ...,
--   config_overrides = {...}}), or a model spec (settled or not)
-- @tparam[opt] table opts as nd.resolve_model's
-- @treturn userdata nd.model: `model:params()`, `model:flops(seq)`,
--   `model:spec()`, `model:stack()`, tostring
-- @usage local m = nd.model("Qwen/Qwen3-8B"); print(m:params().total)
nd.model = model.new
-- END model resolution

-- BEGIN runs and estimates (issue 4; lua/nd/run.lua, src/binding/lnd_run.c, src/binding/lnd_estimate.c)
-- nd.run(table) -> nd.run: the C core's run table, plus sizes as text
-- (device_memory = "58GB", reserve_bytes = "2GiB") and `zero = 1 | 2 | 3`
-- (optimizer states; + gradients; + parameters sharded over DP).
-- run:with(changes) -> a new run with the changes laid over; the original
-- is unchanged (lua/nd/run.lua). nd.estimate(model, run) and
-- nd.layout(model, run) as in C.
local run = require "nd.run"

--- A run: the degrees, batch, sequence, dtypes, optimizer, schedule and
-- recompute of one strategy (the fields of src/binding/lnd_run.c RUN_FIELDS), with
-- sizes as text (`device_memory = "58GB"`) and `zero = 1 | 2 | 3`.
-- @function nd.run
-- A run naming no `runtime` takes hyperparallel's defaults for what it
-- leaves unstated (lua/nd/runtimes/hyperparallel.lua `defaults`): what
-- `estimate.lua MODEL -d N` prices for the same model and devices;
-- `runtime = "none"` leaves every unstated field to the C core's own.
-- @tparam table spec run fields; unstated degrees are 1
-- @treturn userdata nd.run: `run:with(changes)`, `run:derived(model)`,
--   `run:micro_factor(stage, chunk)`, `run:schedules()` (micro-batches a
--   pipeline schedule runs, schedules a step), `run:spec()`, `run.tp` (a
--   field as stated, nil when unstated), tostring
-- @usage local r = nd.run{dp = 8, tp = 2, seq_length = 8192, zero = 1}
nd.run = run.new
-- END runs and estimates


-- BEGIN study API (issue 8; lua/nd/api.lua, lua/nd/api/, lua/nd/study.lua)
-- The functions a what-if script uses, each checking its arguments and
-- raising an error that names the argument (nd.api.check):
--   script.lua:7: nd.estimate: argument 2 (run) must be an nd.run, got table
-- The reference with examples: examples/README.md.
local api = require "nd.api"

--- The C core's functions, for the reference (registered by src/binding/lnd_init.c).
-- @section core

--- Reads a YAML file (YAML 1.1 scalars, as PyYAML reads them); maps keep
-- their key order and each value its line and column (nd.keys, nd.where).
-- @function nd.yaml.load
-- @tparam string path the file
-- @return the document (a table; nd.null for a YAML null)

--- Reads YAML text: `nd.yaml.decode(text [, name])`.
-- @function nd.yaml.decode

--- A value as YAML text (maps in document key order, else sorted).
-- @function nd.yaml.encode

--- Writes a value as YAML: `nd.yaml.dump(value, path)`.
-- @function nd.yaml.dump

--- Reads a JSON file; integers stay integers.
-- @function nd.json.load

--- Reads JSON text: `nd.json.decode(text [, name])`.
-- @function nd.json.decode

--- A value as JSON text: `nd.json.encode(v [, {indent = 2}])`.
-- @function nd.json.encode

--- Marks a table as a sequence (an empty one encodes as []) and returns it.
-- @function nd.json.array

--- The keys of a loaded map in document order, or nil.
-- @function nd.keys

--- File, line and column of a loaded table, of its value at a key, or with
-- "key" as the third argument of the key itself (nd.where(t, key, "key")).
-- @function nd.where

--- Ends the script with a message and exit status 2.
-- @function nd.fail

--- Whether a value is nd.null (a YAML or JSON null).
-- @function nd.isnull

--- Marks a table as a sequence (as nd.json.array).
-- @function nd.array

--- The formula's activation bytes a token of one layer kind, split into
-- the part TP divides and the part it does not (verify.lua and the census
-- cross-check use it): `nd.activation_split(model, run, kind, recompute)`.
-- @function nd.activation_split

--- The bytes one rank moves for one micro-batch of one layer of a kind,
-- forward and backward, {tp, cp, ep}, and dp for a step over `weights`
-- parameters: `nd.layer_traffic(model, run, kind [, weights])`.
-- @function nd.layer_traffic

--- A pipeline's step and bubble seconds from each stage's seconds:
-- `nd.pipeline_step(run, {stage seconds...})`.
-- @function nd.pipeline_step

--- The timeline of Megatron-LM's interleaved 1F1B order ("interleaved") or
-- its less-memory variant ("interleaved-less-memory") from per-stage,
-- per-chunk seconds (src/core/pipeline_sim.c, as nd.pipeline_timeline):
-- `nd.pipeline_timeline(order, S, I, m, dur)` -> span, per stage its
-- operations {kind, chunk, mb, start}; or nil and why.
-- `nd.pipeline_timeline(order, S, I, m, dur, true)` -> the span alone, as the
-- time model takes it (the steady part skipped once it repeats itself).
-- @function nd.pipeline_timeline

--- Each stage's seconds a micro-batch, their forward parts and the step's
-- seconds, as the time model prices the run (the balancer's layer prices,
-- nd.balance_run): `nd.stage_seconds(model, run, hardware)` -> x, forward, step,
-- cells (per stage and chunk {f, r, b}: the seconds the interleaved order is
-- priced from) and the seconds that order's span adds to the closed form.
-- @function nd.stage_seconds

--- A run's stages' allocated bytes with its offset replaced, without a new
-- run or the estimate's table (the balancer's probe of one layer moved):
-- `nd.allocated_with_offset(model, run, offset)` -> {bytes a stage}, as
-- nd.estimate's stages[s].allocated; the run states no offset, offset holds
-- pp x vpp whole numbers, chunk by chunk.
-- @function nd.allocated_with_offset

--- nd.stage_seconds's first two (each stage's seconds a micro-batch, their
-- forward parts) of a run with its offset replaced, without a new run or the
-- step: `nd.stage_seconds_with_offset(model, run, offset, hardware)` -> x,
-- forward (offset as nd.allocated_with_offset's).
-- @function nd.stage_seconds_with_offset

--- A run with no offset and every layer at one recompute mode, derived in C
-- (the balancer's even split of each mode): `nd.run_at_mode(run, mode)`, as
-- run:with{offset = nd.null, recompute = mode} settles it.
-- @function nd.run_at_mode

--- The least seconds a micro-batch one recomputed layer adds to its stage,
-- over the model's layer kinds, at each mode (the pipeline balancer's bound
-- in search.lua --balance): `nd.rerun_seconds(model, run, hardware)` ->
-- {selective = s, full = s}.
-- @function nd.rerun_seconds

--- Seconds `n` estimates take in C (for benchmarks): `nd.time_estimate(model, run, n)`.
-- @function nd.time_estimate

--- The pipeline balancer (src/search/balance.c): per stage and chunk the body
-- layers and their recompute options, every stage within `limit`, the step
-- least; exact (`optimal` true), or proved infeasible naming `bad_stage`.
-- `nd.balance{stages, chunks, micro, body, limit, layer, head, tail, inflight, coef_sum, coef_max}`
-- -> `{feasible, optimal, objective, cells, runs, stage_time, stage_mem, solve_s}`; layers of
-- several kinds in model order: `kinds = {layer, ...}` and `sequence = {kind, ...}` in place of
-- `layer` and `body` (the plan adds `kind_cells[stage][chunk][kind]`); a layer's
-- `offload = {share, time = {option = s}}` lets those options run offloaded (the plan adds `offload`).
-- @function nd.balance

--- The step of stage times T as timing.c prices it is a*sum(T) + b*max(T):
-- `nd.balance_coeffs{pp, vpp, micro, schedule, seq_split}` -> a, b.
-- @function nd.balance_coeffs

--- Whether ndlua runs the Lua file at a path from the compiled form it was
-- built with (the file's bytes are those of a file of lua/ at build time),
-- rather than compiling its source: `nd.compiled(path)`.
-- @function nd.compiled

--- Lua's `loadfile(path, "t", env)`, taking a file ndlua was built with from
-- that compiled form as `require` takes a module: `nd.loadfile(path [, env])`
-- -> the file's function, or nil and loadfile's message. The hardware,
-- runtime and op profiles are read through it (nd.files.run_data).
-- @function nd.loadfile

--- The objective and per-stage memory of a given plan by the problem's rule:
-- `nd.balance_evaluate(problem, cells)` -> ok (keeps every rule and fits),
-- objective, stage_time, stage_mem.
-- @function nd.balance_evaluate

--- Writes a whole file through a temporary file beside it and a rename,
-- every step checked: `nd.write_file(path, text)` -> true, or nil and why.
-- @function nd.write_file

--- Which file a path names: `nd.file_id(path)` -> "DEVICE:INODE" and its
-- kind ("file", "directory", "other"), or nil when there is none.
-- @function nd.file_id

--- The names in a directory, "." and ".." left out, sorted bytewise:
-- `nd.list_dir(path)` -> {name...}, or nil and why (no `ls` child).
-- @function nd.list_dir

--- Makes a directory and its missing parents, as `mkdir -p` does:
-- `nd.mkdir_p(path)` -> true, or nil and why naming the path.
-- @function nd.mkdir_p

--- Whether a file descriptor (0, 1, 2) is a terminal: `nd.isatty(fd)` -> boolean.
-- @function nd.isatty

--- A float as the CSV writes it, the first of printf's %.15g, %.16g and
-- %.17g that reads back as it: `nd.float_text(x)` -> text (`nd.float_text(0.1 + 0.2)` is
-- "0.30000000000000004").
-- @function nd.float_text

--- The candidates a search over `space` would test, counted without
-- pricing any: `nd.search_count(model, space)` (nd.search.check_size).
-- @function nd.search_count

--- Seconds `n` parameter counts take in C (for benchmarks): `nd.time_params(model, n)`.
-- @function nd.time_params

--- The range the C core reads each number field of a model spec in, and of
-- a census record (its `census` table): `nd.model_bounds()` ->
-- {field = {lo, hi}} (hidden_size = {1, 16777216}, ...); the readers of
-- config.json and config_overrides refuse a value past one at its place.
-- @function nd.model_bounds

--- The range the C core reads each number field of a run table in:
-- `nd.run_bounds()` -> {field = {lo, hi}} (global_batch_size = {1, 16777216},
-- ...); the train.yaml reader bounds its keys by them.
-- @function nd.run_bounds

--- A model from a settled spec, a model section or a hub id (see nd.model
-- above); its methods: `model:params()` -> {total, active, by_part},
-- `model:flops(seq)` -> forward FLOPs per token {total, by_part, ...},
-- `model:spec()` -> the settled spec, `model:stack()` -> the layer groups
-- with their kinds; tostring gives a one-line summary.
-- @function nd.model

--- The pipeline partition of a run: for each stage its chunks, their
-- layers and whether they hold the embedding and the output.
-- @function nd.layout
-- @tparam userdata model nd.model
-- @tparam userdata run nd.run
-- @treturn table `{{stage, chunks = {{first, count, embedding, output, runs}}}}`
nd.layout = api.layout

--- The study API.
-- @section study

--- Loads a train.yaml as estimate.lua and search.lua read it.
-- @tparam string path the train.yaml
-- @tparam[opt] table opts `devices` (the run's device count, as -d),
--   `device_memory` (a size, as -M: "80GB" or bytes), `overrides`
--   (`{["accelerator.tp_size"] = 4}`, as --accelerator.tp_size=4),
--   `quiet` (keep the warnings in the extras instead of printing them)
-- @treturn userdata nd.model
-- @treturn userdata nd.run
-- @treturn table extras: `warnings` (texts), `source` (where the model's
--   config came from), `schema`, `spec` (the settled model spec),
--   `run_table` (the fields the run was built from),
--   `device_memory_source`, `parsed` (all nd.train_yaml.parse returns)
-- @usage local model, run = nd.load("train.yaml", {devices = 64})
-- @function nd.load
nd.load = api.load

--- The memory every device of every pipeline stage needs.
-- @tparam userdata model nd.model
-- @tparam userdata run nd.run
-- @treturn table `{stages = {{stage, params, grads, optimizer,
--   main_params, activations, comm, backward_overhead, reserve, total,
--   rows}}, peak_bytes, peak_stage, capacity_bytes, fits, census_used,
--   experts_clamped}` (bytes; stages count from 0)
-- @usage print(nd.estimate(model, run:with{tp = 4}).peak_bytes)
-- @function nd.estimate
nd.estimate = api.estimate

--- The time model of one run on a device: the step time, its parts and
-- the model FLOPs utilisation.
-- @tparam userdata model nd.model
-- @tparam userdata run nd.run
-- @param[opt] hardware a profile's name ("H100"; default A2, as
--   search.lua's), or a table (nd.hardware's, changed as a study likes)
-- @treturn table `{step_time_s, mfu, tokens_per_s_per_device,
--   model_flops, straggler_stage, nd_score, parts = {forward_s,
--   backward_s, recompute_s, tp_s, cp_s, ep_s, pp_s, dp_s, bubble_s,
--   optimizer_s}, hardware}` (seconds; optimizer_s is the optimizer step,
--   priced when the profile states memory_gbps and the device steps it;
--   offload is priced in memory alone: no host-device copies, no host
--   optimizer step, so an offloading run's step is too short)
-- @usage nd.step_time(model, run, "H100").step_time_s
-- @function nd.step_time
nd.step_time = api.step_time

--- A hardware profile (a copy: change it freely).
-- @tparam string name a profile's name or alias, any case (A2, A3,
--   A100-80GB, H100, H200, B200, or nd/hardware/NAME.lua on NDLUA_PATH)
-- @treturn table `{name, about, memory, memory_bytes, peak_tflops,
--   sustained_tflops, levels = {{devices, gbps}}, overlap, nd_comm_divisor}`
-- @usage local h = nd.hardware("H100"); h.sustained_tflops = 500
-- @function nd.hardware
nd.hardware = api.hardware

--- The names of the hardware profiles.
-- @treturn table names, sorted
-- @function nd.hardware_names
nd.hardware_names = api.hardware_names

--- Searches the parallel strategies of a model for the fastest that fit,
-- as search.lua does for a train.yaml; the run gives everything the
-- search does not vary (sequence, dtypes, optimizer, schedule) and the
-- values of the dimensions left out of `opts.dims`.
-- @tparam userdata model nd.model
-- @tparam userdata run nd.run
-- @tparam[opt] table opts `devices` (default the run's dp x tp x pp x cp),
--   `global_batch` (default the run's), `memory` (the budget a device, a
--   size; default the run's device_memory), `hardware` (name or table;
--   default A2), `dims` (the dimensions searched, as -l: {"DP", "TP",
--   "PP", ...}; default all), `allowed` (candidate lists:
--   {TP = {2, 4}}), `recompute` ("off", "selective", "full", a list, or
--   "auto"; default the run's own mode), `policy` (a name, a policy
--   file, or a policy table; default throughput), `top` (candidates
--   returned, default 10), `stages` (true: each candidate's
--   stage_bytes), `progress` (function(done) called while it runs)
-- @treturn table the best candidates, ranked: `{rank, dp, tp, pp, vpp,
--   cp, ep, etp, op, op_priced, sp, mb, mbs, recompute, peak_bytes,
--   peak_stage, step_time_s, mfu, tokens_per_s_per_device, nd_score,
--   score, parts, stage_bytes?}`; empty when nothing can be recommended
-- @treturn table `{devices, global_batch, budget_bytes, hardware, policy,
--   recompute, bounds, counts (tested, priced, fitting, dropped, refused,
--   elapsed_s), kept, excluded, problem}`: `problem` says why the list
--   is empty
-- @usage local best = nd.search(model, run, {devices = 128, hardware = "H100"})[1]
-- @function nd.search
function nd.search(...)
  -- nd.api.search (and the modules nd.search and nd.policies it requires)
  -- is required here, not with nd: estimate.lua and most studies never search.
  -- A tail call, so the errors it raises at its caller's line name that
  -- line; pairs(nd) and the prompt's completion see nd.search as any field.
  return require("nd.api.search").search(...)
end

--- The run of a search candidate: the run with the candidate's degrees,
-- batch, optimizer shard and recompute laid over, as the search priced it
-- (nd.core.candidate_run; nd.estimate of it gives the candidate's peak,
-- nd.core.step_time its step time).
-- @tparam userdata run the run searched
-- @tparam table candidate one of nd.search's
-- @treturn userdata nd.run
-- @function nd.candidate_run
nd.candidate_run = api.candidate_run

--- Census records (nd.census): `nd.census.load(path)` reads a census
-- file scripts/census.py wrote, `nd.census.beside(dir, seq)` finds
-- census-<seq>.json beside a checkpoint, `nd.census.attach(spec,
-- records)` lays records over a model spec.
-- @table nd.census
nd.census = api.census

--- A model priced from census records instead of formulas.
-- @tparam userdata model nd.model
-- @param census a census file's path, or what nd.census.load returns
-- @treturn userdata nd.model
-- @function nd.with_census
nd.with_census = api.with_census

--- Prints rows as a table with units (bytes in MiB or GiB, seconds); see
-- nd.study.print_table. nd.search's candidates without columns print as
-- search.lua's table does (nd.report.table).
-- @tparam table rows a list of tables
-- @tparam[opt] table columns keys or `{key, title, unit, digits, format}`
-- @tparam[opt] table opts `title`, `out` (a file)
-- @function nd.print_table
nd.print_table = api.print_table

--- Writes rows as CSV (numbers at full precision, bytes as bytes).
-- nd.write_csv, nd.write_json and nd.write_yaml write a file as the command
-- line does (nd.write_file: beside it, every step checked, then renamed
-- over it): a failure (a full disk) leaves the old file whole and raises
-- an error naming the file.
-- @tparam string path the file ("-": standard output)
-- @tparam table rows a list of tables (nd.search's candidates, a sweep's rows)
-- @tparam[opt] table columns keys (dotted keys reach in: "parts.dp_s");
--   nil: every key, sorted, or for nd.search's candidates search.lua's
--   --csv columns (nd.report.csv)
-- @function nd.write_csv
nd.write_csv = api.write_csv

--- Writes a value as JSON, indented.
-- @tparam string path the file ("-": standard output)
-- @param value a table (nd.json.array marks empty lists)
-- @function nd.write_json
nd.write_json = api.write_json

--- Writes a value as YAML.
-- @tparam string path the file ("-": standard output)
-- @param value a table
-- @function nd.write_yaml
nd.write_yaml = api.write_yaml

--- Writes SVG text (nd.study's charts, nd.svg's) to a file.
-- @tparam string path the file ("-": standard output)
-- @tparam string svg the SVG text
-- @function nd.write_svg
nd.write_svg = api.write_svg

--- The study library (nd.study): sweep, largest, compare, print_table,
-- svg_lines, svg_bars, svg_stages. Loaded at its first use (nd.api
-- filled_on_use): require "nd.study" is this same table.
nd.study = api.filled_on_use("nd.study", {}, true)

--- SVG documents and charts (nd.svg), each function checking its
-- arguments (a wrong one is an error naming it) before the library's own,
-- which the reports call unchecked.
nd.svg = api.svg
--- Sizes and times as text (nd.units): parse_bytes, format_bytes, gib,
-- mib, seconds; checked as nd.svg's.
nd.units = api.units
-- END study API

return nd
