--- The search policy: which candidates exist and within what bounds. The
-- C core (nd.core.search) runs the loop nest, the validity rules and the
-- pricing; this module declares the space it runs over, as the reference
-- planner declares it (reference/search-ranking-cli.md §b):
--
--   * the dimensions (§b.1): DP, EP, TP (the reference's MP), CP, PP, VPP,
--     MB, MBS, SP, OP; a dimension not searched keeps the train.yaml's
--     value; MB is always searched;
--   * the bounds (§b.2): PP up to min(the machine's pipeline bound,
--     L // vpp0, B), EP up to the experts, TP up to the KV heads;
--   * the candidate lists a search config gives (values outside them are
--     refused as "filtered out");
--   * the recompute modes, each candidate priced under each.
--
-- A team that wants another bound or a narrower space edits this file.
--
--   local search = require "nd.search"
--   local space, bounds = search.space { model = spec, hardware = profile, devices = 64,
--     global_batch = 128, budget_bytes = 58 * 2^30, searched = {DP = true, TP = true},
--     pinned = {...}, recompute = {"full"} }
--   local result = nd.core.search(model, run, space)
-- @module nd.search

local core = require "nd.core"
local errors = require "nd.errors"
local hardware = require "nd.hardware"

local search = {}

--- The search dimensions, stated once in the C core (src/search/search_space.h
-- SEARCH_DIMS) and read here: each {name, key, alias, config_key, listed,
-- config_at}, in the reference's ALL_DIMS order.
search.DIM_DESCS = core.search_dims

--- The dimensions in the reference's ALL_DIMS order, by the C core's names
-- (TP inside ndlua; the reference planner calls it MP); the names -l takes
-- for each (any case); how each is shown to users; its lower-case key (a
-- candidate's field); and the dimensions in the order help and messages
-- list them.
search.DIMS, search.DIM_NAMES, search.SHOWN, search.KEYS, search.LISTED = {}, {}, {}, {}, {}
for i, d in ipairs(search.DIM_DESCS) do
  search.DIMS[i], search.DIM_NAMES[d.name], search.SHOWN[d.name], search.KEYS[d.name] = d.name, d.name, d.name, d.key
  if d.alias then search.DIM_NAMES[d.alias] = d.name end
  search.LISTED[d.listed] = d
end

--- The values t states for each dimension by its key (t.tp for TP, ...),
-- by dimension name: a run's degrees or a yaml's accelerator section; the
-- dimensions `except` names are left out.
function search.by_dim(t, except)
  local out = {}
  for _, d in ipairs(search.DIM_DESCS) do
    if not (except and except[d.name]) then out[d.name] = t[d.key] end
  end
  return out
end

--- The dimensions as help and messages list them, joined by sep; with
-- aliases ("TP (or MP)") unless bare.
function search.listed_text(sep, bare)
  local out = {}
  for i, d in ipairs(search.LISTED) do
    out[i] = (d.alias and not bare) and string.format("%s (or %s)", d.name, d.alias) or d.name
  end
  return table.concat(out, sep)
end

--- The optimizer (FSDP) shard that stands for "the whole data-parallel
-- domain, whatever the candidate's DP": a power of two no device count
-- reaches, which the C core's derive replaces by the domain (an optimizer
-- shard that does not divide the domain shards over all of it,
-- src/core/derive.c). A yaml sharding over all its data-parallel ranks keeps
-- doing so in every candidate when OP is not searched. It is the devices
-- limit (src/core/nd_limits.h): no domain is larger, and a run takes no larger
-- shard; at a domain of exactly that many devices it divides the domain,
-- which is the same shard.
search.FULL_SHARD = core.limits.devices

--- The shard a candidate's OP comes to: OP when it divides the domain (DP,
-- or DP x CP when the shard spans CP), else the domain (src/core/derive.c).
function search.effective_op(c, spans_cp)
  local domain = c.dp * (spans_cp and c.cp or 1)
  if c.op > 1 and domain % c.op ~= 0 then return domain end
  return c.op
end

--- A fitting candidate of a result, as reports and policies see it: its OP
-- the shard it comes to (search.effective_op; `op_priced` keeps the value
-- the C core priced).
-- @tparam userdata result nd.core.search's result
-- @tparam integer i its place (1 = first)
-- @tparam[opt] userdata model for its per-stage bytes (stage_bytes)
-- @tparam boolean spans_cp the run's shard spans CP (AutoModels)
function search.candidate(result, i, model, spans_cp)
  return search.shown(result:candidate(i, model), spans_cp)
end

--- Any candidate table of a result (candidate, lightest, dropped) with
-- its OP the shard it comes to and `op_priced` the C core's.
function search.shown(c, spans_cp)
  c.op_priced = c.op
  c.op = search.effective_op(c, spans_cp)
  return c
end

--- The most threads a search runs on (the C core's bound on space.threads,
-- stated in src/core/nd_limits.h).
search.MAX_THREADS = core.limits.threads

--- The recompute modes, in the order a search prices them (the core's
-- registry, src/core/run.c RECOMPUTE_MODES), and as a set.
search.MODES = table.move(core.types.run.choices.recompute, 1, #core.types.run.choices.recompute, 1, {})
search.MODE_SET = core.types.run.choices.recompute.canonical

-- The modes as messages list them ("off, selective, full"), and how many auto stands for.
local MODES_TEXT = core.types.run.choices.recompute.accepted
local ALL_MODES = ({ "one", "two", "three", "four", "five" })[#search.MODES] or tostring(#search.MODES)

--- The dimensions a list names, as a set of C names. MB and DP are always
-- in it: a dimension not named keeps the run's value, and DP fills what
-- the others leave of the devices (N / (TP x CP x PP)), as the reference
-- planner derives it in its loop nest; pinning it too would leave only
-- the yaml's own TP x CP x PP.
-- @tparam table list names as typed (nil: all ten)
-- @treturn table|nil the set; nil and the first name that is no dimension
-- @treturn string
function search.dims_set(list)
  local set = {}
  for _, name in ipairs(list or search.DIMS) do
    local d = type(name) == "string" and search.DIM_NAMES[name:upper()]
    if not d then return nil, name end
    set[d] = true
  end
  set.MB, set.DP = true, true
  return set
end

--- The dimensions `-l` names (see dims_set); a name that is no dimension
-- is a bad-input error naming -l.
function search.parse_dims(list)
  local set, bad = search.dims_set(list)
  if not set then
    errors.raise { path = "-l", message = "'" .. tostring(bad) .. "' is no dimension",
                   accepted = search.listed_text(", ") }
  end
  return set
end

--- Recompute modes from --recompute or context.recompute: a name or a
-- list of names; `auto` is all three, `none` and YAML's false (an unquoted
-- `off`) are off; case is ignored, repeats dropped. Returns the modes in
-- the order given, or raises with `where` (a function(message, accepted)).
function search.parse_recompute(value, where)
  local accepted = string.format("%s (one or several), or auto for all %s", MODES_TEXT, ALL_MODES)
  local list = type(value) == "table" and value or { value }
  if #list == 0 then where("names no recompute mode", accepted) end
  local out, seen = {}, {}
  for _, v in ipairs(list) do
    local name = v == false and "off" or (type(v) == "string" and v:lower() or nil)
    if name == "none" then name = "off" end
    local names
    if name == "auto" then
      names = search.MODES
    elseif search.MODE_SET[name] then
      names = { name }
    else
      where("'" .. tostring(v) .. "' is no recompute mode", accepted)
    end
    for _, n in ipairs(names) do
      if not seen[n] then
        seen[n] = true
        out[#out + 1] = n
      end
    end
  end
  return out
end

-- The largest power of two dividing n.
local function pow2_divisor(n)
  local p = 1
  while n % (p * 2) == 0 do p = p * 2 end
  return p
end

--- The layers the pipeline splits (body and MTP layers the run builds).
function search.layers(spec)
  return spec.num_hidden_layers + (spec.mtp_depth or 0)
end

--- Schedules that run at most two chunks a stage (the C core's run refuses
-- more): zero_bubble_v and its aliases in the core's registry of schedules.
search.TWO_CHUNK_SCHEDULES = {}
for name, canonical in pairs(core.types.run.choices.pp_schedule.canonical) do
  if canonical == "zero_bubble_v" then search.TWO_CHUNK_SCHEDULES[name] = true end
end

-- A table keyed by dimension, with the reference's MP read as TP.
local function tp_keyed(t)
  if type(t) ~= "table" or t.MP == nil then return t end
  local out = {}
  for k, v in pairs(t) do out[k] = v end
  if out.TP == nil then out.TP = t.MP end
  out.MP = nil
  return out
end

--- The options of search.space and search.bounds with `searched`,
-- `pinned` and `allowed` keyed by TP where a caller wrote the reference's
-- MP (a new table when any is).
function search.with_tp_keys(o)
  local searched, pinned, allowed = tp_keyed(o.searched), tp_keyed(o.pinned), tp_keyed(o.allowed)
  if searched == o.searched and pinned == o.pinned and allowed == o.allowed then return o end
  local out = {}
  for k, v in pairs(o) do out[k] = v end
  out.searched, out.pinned, out.allowed = searched, pinned, allowed
  return out
end

--- The bounds of the searched dimensions (§b.2), each with the reason for it;
-- and VPP's under a schedule of two chunks, which the reference has not.
-- @treturn table `{PP = {value, why}, EP = {...}, TP = {...}}`, searched dims only
function search.bounds(o)
  o = search.with_tp_keys(o)
  local spec, out = o.model, {}
  if o.searched.PP then
    local machine = hardware.pipeline_bound(o.hardware, o.devices)
    local vpp0 = o.searched.VPP and 1 or (o.pinned.VPP or 1)
    local layers = search.layers(spec)
    out.PP = { value = math.max(1, math.min(machine, layers // vpp0, o.global_batch)),
               why = string.format("the machine's %d, %d layers over VPP %d, a batch of %d", machine, layers, vpp0,
                                   o.global_batch) }
  end
  if o.searched.VPP and search.TWO_CHUNK_SCHEDULES[o.schedule or ""] then
    out.VPP = { value = 2, why = "DualPipeV runs two chunks a stage" }
  end
  if o.searched.EP then
    local experts = spec.num_experts or 1
    out.EP = { value = math.max(1, experts),
               why = experts > 1 and "the model's experts" or "a dense model" }
  end
  if o.searched.TP then
    if spec.num_key_value_heads then
      out.TP = { value = spec.num_key_value_heads, why = "the model's KV heads" }
    else
      out.TP = { value = pow2_divisor(spec.num_attention_heads), why = "the attention heads' largest power of two" }
    end
  end
  return out
end

--- The bounds line (§a.4 item 1) in ndlua's words; nil when no bound applies.
function search.bounds_text(bounds)
  local parts = {}
  for _, d in ipairs({ "PP", "VPP", "EP", "TP" }) do
    local b = bounds[d]
    if b then parts[#parts + 1] = string.format("%s up to %d (%s)", search.SHOWN[d], b.value, b.why) end
  end
  if #parts == 0 then return nil end
  return "bounds: " .. table.concat(parts, "; ")
end

--- The space nd.core.search runs over.
-- @tparam table o `model` (settled spec), `hardware` (a profile),
--   `devices`, `global_batch`, `budget_bytes`, `searched` (set of C dim
--   names), `pinned` (values of the others), `allowed` (candidate lists
--   by dim, optional), `recompute` (modes), `keep_dropped`, `schedule`
--   (the run's pp_schedule), `threads` (default 1; 0: every online core),
--   `no_pipeline` (true: PP only 1, for a run its runtime refuses to
--   pipeline, nd.runtimes.pipeline_refusal)
-- @treturn table the space
-- @treturn table the bounds (search.bounds)
function search.space(o)
  o = search.with_tp_keys(o)
  local bounds = search.bounds(o)
  local dims = {}
  for _, d in ipairs(search.DIMS) do
    local entry = { searched = o.searched[d] == true }
    if not entry.searched then
      local v = o.pinned[d]
      if d == "SP" then v = (v == true or v == 1) and 1 or 0 end
      if d == "OP" and v == "full" then v = search.FULL_SHARD end
      entry.pinned = v or 1
    end
    if bounds[d] then entry.bound = bounds[d].value end
    if o.allowed and o.allowed[d] then entry.allowed = o.allowed[d] end
    if d == "PP" and o.no_pipeline and entry.searched then entry.allowed = { 1 } end
    dims[d] = entry
  end
  local space = {
    devices = o.devices, global_batch = o.global_batch, budget_bytes = o.budget_bytes, dims = dims,
    recompute = o.recompute, hardware = hardware.core(o.hardware, o.runtime, o.overlapped_grad_reduce),
    keep_dropped = o.keep_dropped or 100, threads = o.threads or 1,
  }
  return space, bounds
end

--- The divisors of n ascending, at most `bound`: trial up to sqrt(n), each
-- small divisor x giving its partner n // x, so the work is O(sqrt(n)) as
-- in the C core's space_of (a batch of 2^30 is 32768 trials).
function search.divisors(n, bound)
  bound = bound or n
  local small, large = {}, {}
  local x = 1
  while x <= n // x do
    if n % x == 0 then
      if x > bound then break end
      small[#small + 1] = x
      local partner = n // x
      if partner ~= x and partner <= bound then large[#large + 1] = partner end
    end
    x = x + 1
  end
  for i = #large, 1, -1 do small[#small + 1] = large[i] end
  return small
end

-- space(dim, n) of the loop nest (§b.3): the divisors of n within the
-- bound when searched, else the pinned value.
local function values_of(entry, n)
  if not entry.searched then return { entry.pinned } end
  return search.divisors(n, entry.bound)
end

--- The most candidates a search tests (each recompute mode counted): past
-- it a search would run for minutes (about 30 million a second are tested
-- and priced on one core; 808 million, 720720 devices of every dimension,
-- took 25 s), so it is refused before it starts with how to narrow it.
-- Raise it here for a machine that can wait.
search.MAX_TESTED = 100000000

--- The largest global batch a search takes, in sequences (the C core's
-- bound on space.global_batch, stated in src/core/nd_limits.h): 2^30.
search.MAX_GLOBAL_BATCH = core.limits.global_batch

--- Refuses a space of more than search.MAX_TESTED candidates, counted by
-- the C core without pricing any (nd.core.search_count).
-- @tparam table hints the names of the options that narrow it: `dims`,
--   `batch`, `recompute` (the command line's, or nd.search's options)
function search.check_size(model, space, hints)
  local n = core.search_count(model, space)
  if n <= search.MAX_TESTED then return n end
  errors.raise { message = string.format("the search space holds %d candidates, more than the %d a search tests "
    .. "(search.MAX_TESTED in lua/nd/search.lua)", n, search.MAX_TESTED),
    accepted = string.format("narrow it: fewer dimensions searched (%s), fewer recompute modes (%s), a global batch "
      .. "with fewer divisors (%s), or fewer devices", hints.dims, hints.recompute, hints.batch) }
end

--- The DP x MBS products the nest builds (§b.3 down to MBS), sorted, and
-- whether one of them makes the global batch a whole number of
-- micro-batches. `accumulates`: the run accumulates gradients (else one
-- micro-batch makes the batch without PP).
function search.batch_products(space, accumulates)
  local dims, n, b = space.dims, space.devices, space.global_batch
  local products, seen, makes = {}, {}, false
  for _, tp in ipairs(values_of(dims.TP, n)) do
    for _, pp in ipairs(values_of(dims.PP, n // tp)) do
      for _, cp in ipairs(values_of(dims.CP, n // tp // pp)) do
        local dp = n // tp // cp // pp
        if dp < 1 then break end
        if dims.DP.searched or dp == dims.DP.pinned then
          for _, mbs in ipairs(values_of(dims.MBS, b // pp // dp)) do
            local x = dp * mbs
            if not seen[x] then
              seen[x] = true
              products[#products + 1] = x
            end
            if (pp > 1 or accumulates) and b % x == 0 or x == b then makes = true end
          end
        end
      end
    end
  end
  table.sort(products)
  return products, makes
end

--- The message when no candidate can make the global batch (§a.4 item 2),
-- or nil when one can. `hints` (optional) names what relaxes it in the
-- invocation: `batch` (default -b) and `shrink` (default naming PP, CP or
-- TP in -l).
function search.batch_problem(space, accumulates, stated_batch, hints)
  hints = hints or {}
  local batch_hint = hints.batch or "-b"
  local shrink = hints.shrink or "let DP shrink by naming PP, CP or TP in -l"
  local products, makes = search.batch_products(space, accumulates)
  if makes then return nil end
  local b = space.global_batch
  local stated = stated_batch and stated_batch ~= b and string.format(" (the yaml states %d)", stated_batch) or ""
  if #products == 0 then
    return string.format("no candidate makes a global batch of %d%s: every candidate the search builds has more "
      .. "data-parallel ranks x pipeline stages than the batch has sequences; state a larger %s", b, stated,
      batch_hint)
  end
  local shown = {}
  for i, x in ipairs(products) do
    if i > 12 then
      shown[#shown + 1] = "..."
      break
    end
    shown[i] = tostring(x)
  end
  return string.format("no candidate makes a global batch of %d%s: the candidates the search builds have "
    .. "DP x MBS of %s, and %d is no whole number of micro-batches of any; state %s as a multiple of one of "
    .. "them, or %s", b, stated, table.concat(shown, ", "), b, batch_hint, shrink)
end

return search
