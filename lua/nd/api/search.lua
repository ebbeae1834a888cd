--- nd.search(model, run, opts): the strategy search over a model and a
-- run, as search.lua runs it over a train.yaml, returning the ranked
-- candidates as tables. The space is nd.search's (bounds, pinned values,
-- candidate lists), the loop and the pricing nd.core.search's, the ranking
-- a policy's (nd.policies), and what the command line and this share
-- (the policy's context, the FSDP exclusion, the empty-result messages)
-- nd.search.outcome's.
-- @module nd.api.search

local core = require "nd.core"
local runs = require "nd.run"
local check = require "nd.api.check"
local api = require "nd.api"
local search = require "nd.search"
local policies = require "nd.policies"
local outcome = require "nd.search.outcome"
local runtimes = require "nd.runtimes"

local api_search = {}

local OPTIONS = {
  devices = "positive", global_batch = "positive", memory = "size", hardware = "any", dims = "list",
  allowed = "table", recompute = "any", policy = "any", top = "positive", stages = "boolean", progress = "function",
}

-- What an empty search's message points to.
local HINTS = { dims = "opts.dims", batch = "opts.global_batch", memory = "opts.memory",
                recompute = "opts.recompute = \"auto\"", ep = "run's ep (or EP in opts.dims)",
                cp = "run's cp (or CP in opts.dims)", list = function(d) return "opts.allowed." .. d end }

--- nd.run's default device memory in bytes: 64 GiB, stated once in
-- src/core/run.h (ND_DEFAULT_DEVICE_MEMORY, read as nd.core.defaults).
api_search.DEFAULT_DEVICE_MEMORY = core.defaults.device_memory

--- A run's degrees and batch as the C core reads them (src/binding/lnd_run.c):
-- unstated degrees are 1, the micro-batch 1, the micro-batch count and
-- global batch by the batch rule (nd.run's run.batch).
function api_search.degrees(run)
  local s = run:spec()
  local d = { dp = s.dp or 1, tp = s.tp or 1, pp = s.pp or 1, cp = s.cp or 1, ep = s.ep or 1, vpp = s.vpp or 1,
              mbs = s.micro_batch_size or 1, sp = s.sequence_parallel == true }
  d.mb, d.global_batch = runs.batch(d.mbs, d.dp, d.pp, s.global_batch_size, s.micro_batch_num)
  d.op = s.optimizer_parallel and (s.optimizer_shard or d.dp) or 1
  return d
end

--- The one recompute mode of a run (what a search prices without modes):
-- a mode stated for every layer, else off (src/search/search_nest.c own_mode).
function api_search.own_mode(run)
  local s = run:spec()
  if type(s.recompute) == "string" then return s.recompute == "none" and "off" or s.recompute end
  if s.full_recompute == true then return "full" end
  if s.selective_recompute == true then return "selective" end
  return "off"
end

-- The dimensions searched: opts.dims (names as -l takes them), else all;
-- MB always; a dimension with a candidate list (opts.allowed) too.
local function searched_of(opts)
  local set, bad = search.dims_set(opts.dims)
  if not set then
    error(string.format("nd.search: opts.dims: '%s' is no dimension (" .. search.listed_text(", ", true) .. ")",
                        tostring(bad)), 4)
  end
  local allowed = {}
  for name, list in pairs(opts.allowed or {}) do
    local d = type(name) == "string" and search.DIM_NAMES[name:upper()]
    if not d or type(list) ~= "table" or #list == 0 then
      error("nd.search: opts.allowed maps dimensions (DP, TP, ...) to lists of values, got " .. tostring(name), 4)
    end
    set[d], allowed[d] = true, list
  end
  return set, allowed
end

-- The values of the dimensions not searched: the run's; DP what the devices
-- leave over TP x PP x CP; OP "full" when the run shards over all of DP.
local function pinned_of(d, devices)
  local denom = d.tp * d.pp * d.cp
  local dp = devices % denom == 0 and devices // denom or nil
  local op = d.op
  if op > 1 and op % (dp or d.dp) == 0 then op = "full" end
  -- the run's degrees by the dimensions' keys; MB always varies
  local out = search.by_dim(d, { MB = true })
  out.DP, out.SP, out.OP = dp, d.sp and 1 or 0, op
  return out
end

local function modes_of(opts, run)
  if opts.recompute == nil then return { api_search.own_mode(run) } end
  local v = opts.recompute
  if type(v) ~= "string" and type(v) ~= "table" then
    check.fail("nd.search", "opts.recompute", "recompute", "a mode or a list of modes", v, 2)
  end
  local modes = search.parse_recompute(v, function(message, accepted)
    -- raised from here, parse_recompute, modes_of, prepare, api_search.search: at the caller of the last
    error("nd.search: opts.recompute: " .. message .. " (" .. accepted .. ")", 6)
  end)
  return modes
end

local function policy_of(p)
  if p == nil or type(p) == "string" then return policies.load(p, "nd.search: opts.policy") end
  if type(p) ~= "table" or (type(p.score) ~= "function" and type(p.order) ~= "table") then
    check.fail("nd.search", "opts.policy", "policy", "a policy's name, file or table (with order or score)", p, 2)
  end
  local out = {}
  for k, v in pairs(p) do out[k] = v end
  -- its order, score and keep checked as a policy file's (a wrong order
  -- failed inside the ranking: "attempt to index a number value")
  policies.check("opts.policy", out)
  out.name, out.file = out.name or "custom", p.file or "opts.policy"
  return out
end

-- The space of a search and what it was built from.
local function prepare(model, run, opts)
  local d = api_search.degrees(run)
  local profile = api.profile_of("nd.search", "opts.hardware", opts.hardware, 1)
  local devices = opts.devices or d.dp * d.tp * d.pp * d.cp
  local s = { devices = devices, global_batch = opts.global_batch or d.global_batch, profile = profile,
              modes = modes_of(opts, run), policy = policy_of(opts.policy), base = run,
              spans_cp = run:spec().shard_spans_cp == true }
  if opts.memory then
    s.budget = check.bytes("nd.search", "opts.memory", opts.memory, 1)
    s.base = run:with { device_memory = s.budget }
  else
    s.budget = run:spec().device_memory or api_search.DEFAULT_DEVICE_MEMORY
  end
  local searched, allowed = searched_of(opts)
  local pinned = pinned_of(d, devices)
  if not searched.DP and not pinned.DP then
    error(string.format("nd.search: DP is not searched, but the run's tp x pp x cp = %d x %d x %d does not divide "
      .. "the %d devices; name DP in opts.dims", d.tp, d.pp, d.cp, devices), 3)
  end
  s.space, s.bounds = search.space {
    model = model:spec(), hardware = profile, devices = devices, global_batch = s.global_batch,
    budget_bytes = s.budget, searched = searched, pinned = pinned, allowed = allowed, recompute = s.modes,
    keep_dropped = 0, schedule = run:spec().pp_schedule, runtime = run:spec().runtime,
    overlapped_grad_reduce = run:spec().overlapped_grad_reduce == true,
    no_pipeline = runtimes.pipeline_refusal(run:spec()) ~= nil,
  }
  return s
end

local function info_of(s, counts)
  return { devices = s.devices, global_batch = s.global_batch, budget_bytes = s.budget, hardware = s.profile.name,
           policy = s.policy.name, recompute = s.modes, bounds = s.bounds, counts = counts, kept = 0, excluded = 0 }
end

--- The search: see nd.search in lua/nd/init.lua.
function api_search.search(model, run, opts)
  check.arg("nd.search", 1, "model", model, "model")
  check.arg("nd.search", 2, "run", run, "run")
  opts = check.options("nd.search", 3, opts, OPTIONS)
  local s = prepare(model, run, opts)
  local problem = search.batch_problem(s.space, run:derived(model).accumulates_grads, nil,
    { batch = "opts.global_batch", shrink = "let DP shrink by naming PP, CP or TP in opts.dims" })
  if problem then
    local info = info_of(s, nil)
    info.problem = problem
    return {}, info
  end
  search.check_size(model, s.space, { dims = "opts.dims", recompute = "opts.recompute", batch = "opts.global_batch" })
  local result = core.search(model, s.base, s.space, opts.progress)
  local counts = result:counts()
  local info = info_of(s, counts)
  info.problem = outcome.not_found(result, counts, s.budget, s.spans_cp, HINTS,
                                   { space = s.space, model = model, run = s.base })
  if info.problem then return {}, info end
  local function get(i, with_stages)
    return search.candidate(result, i, with_stages and model or nil, s.spans_cp)
  end
  local ctx = outcome.policy_context(s.devices, s.profile, s.budget, s.global_batch)
  info.kept, info.excluded = policies.apply(result, s.policy, ctx, get, nil, outcome.full_shard_exclusion(s.space))
  if info.kept == 0 then
    info.problem = string.format("the policy %s keeps none of the %d fitting candidates", s.policy.name,
                                 counts.fitting)
  end
  local list = {}
  for i = 1, math.min(opts.top or 10, info.kept) do list[i] = get(i, opts.stages) end
  return list, info
end

return api_search
