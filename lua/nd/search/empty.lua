--- Why a search priced no candidate, and what relaxes it: the rule that
-- refused the most candidates (the counts by reason of nd.core.search),
-- and the option or key of this invocation that lets candidates through.
-- A candidate list (a search config's parallelism list) is tested by
-- searching again without it: a list whose removal lets candidates pass is
-- named, with the values that pass.
-- @module nd.search.empty

local core = require "nd.core"
local search = require "nd.search"
local table_report = require "nd.report.table"

local empty = {}

--- What the messages name, on the command line without a search config.
empty.CLI_HINTS = {
  dims = "-l", batch = "-b", memory = "-M", recompute = "--recompute auto",
  ep = "--accelerator.ep_size=N (or EP in -l)", cp = "--accelerator.cp_size=N (or CP in -l)",
}

--- What they name with a search config (-s); `fixed_recompute`: the config
-- fixes one recompute mode, which --recompute may not contradict.
function empty.config_hints(fixed_recompute)
  return {
    dims = "the search config's parallelism: a wider list, or auto",
    batch = "-b (or constraint.global_batch_size)", memory = "-M (or constraint.memory_limit_gb)",
    recompute = fixed_recompute and "recompute: auto in the search config" or "--recompute auto",
    ep = "parallelism.ep", cp = "parallelism.cp",
    list = function(dim) return "parallelism." .. (empty.CONFIG_KEYS[dim] or dim:lower()) end,
  }
end

-- The search config's key of each dimension (nd.search.config.DIMS inverted).
empty.CONFIG_KEYS = {}
for _, d in ipairs(search.DIM_DESCS) do empty.CONFIG_KEYS[d.name] = d.config_key end

local LOWER = search.KEYS

local function copy_space(space, without)
  local dims = {}
  for d, e in pairs(space.dims) do
    local c = {}
    for k, v in pairs(e) do c[k] = v end
    if d == without or (type(without) == "table" and without[d]) then c.allowed = nil end
    dims[d] = c
  end
  local out = {}
  for k, v in pairs(space) do out[k] = v end
  out.dims, out.keep_dropped = dims, 0
  out.top, out.top_keys = nil, nil -- every fitting candidate: the values found are read from them
  return out
end

local function list_text(values)
  local t = {}
  for i, v in ipairs(values) do t[i] = tostring(v) end
  return "[" .. table.concat(t, ", ") .. "]"
end

-- The values of dimension d among a result's fitting candidates (at most
-- the first 5000), sorted.
local function values_passing(result, d)
  local seen, out = {}, {}
  for i = 1, math.min(result:size(), 5000) do
    local v = result:candidate(i)[LOWER[d]]
    if not seen[v] then
      seen[v] = true
      out[#out + 1] = v
    end
  end
  table.sort(out)
  return out
end

-- Each candidate list, tested alone: the lists whose removal lets
-- candidates be priced, as message parts.
local function lists_relaxing(o, hints)
  local parts = {}
  for _, d in ipairs(search.DIMS) do
    local e = o.space.dims[d]
    if e.allowed then
      local result = core.search(o.model, o.run, copy_space(o.space, d))
      local counts = result:counts()
      if counts.priced > 0 then
        local name = hints.list and hints.list(d) or (search.SHOWN[d] .. "'s candidate list")
        local passing = values_passing(result, d)
        local text = string.format("  %s %s: without it %d candidate(s) pass the rules", name,
          list_text(e.allowed), counts.priced)
        if #passing > 0 then
          text = text .. string.format(", %d within the budget, with %s %s", counts.fitting, search.SHOWN[d],
            list_text(passing))
        else
          text = text .. ", none within the budget"
        end
        parts[#parts + 1] = text
      end
    end
  end
  return parts
end

-- What relaxes each rule.
local function relax(reason, hints)
  if reason == "global batch" then
    return "the global batch (" .. hints.batch .. ") to a multiple of a candidate's DP x MBS, or " .. hints.dims
  elseif reason == "CP constraints" then
    return "the context-parallel degrees (" .. hints.cp .. "): CP must halve the sequence evenly, not run with SP, "
      .. "and fit the devices"
  elseif reason == "EP over the experts or DP x TP" or reason == "EP divisibility" then
    return "the expert-parallel degrees (" .. hints.ep .. "): EP must divide the experts and not exceed DP x TP"
  end
  return "the dimensions searched (" .. hints.dims .. "): a degree was over its bound, or a pinned one does not "
    .. "fill the devices"
end

--- The candidate lists to widen when they refuse every candidate, as the
-- reference planner still answers: the list whose removal lets the most
-- candidates fit the budget (ties: the first in search.DIMS order); when no
-- one list alone lets one fit, lists are added one at a time, each the one
-- that with those taken lets the most fit (then the most be priced, then
-- the fewest be filtered out), until one fits. nil when the lists are not
-- what refused every candidate (another rule did, or one was priced), or
-- when even every list removed lets none fit.
-- @tparam table o `counts` (of the search as stated), `space`, `model`, `run`
-- @treturn table|nil `{ dims = {d...}, allowed = {d = the list as stated} }`
function empty.widen(o)
  local counts = o.counts
  if counts.priced > 0 or not o.space then return nil end
  local reasons = table_report.refusals(counts.refused)
  if not (reasons[1] and reasons[1][1] == "filtered out") then return nil end
  local lists, allowed = {}, {}
  for _, d in ipairs(search.DIMS) do
    if o.space.dims[d].allowed then lists[#lists + 1], allowed[d] = d, o.space.dims[d].allowed end
  end
  local taken, chosen = {}, {}
  -- how far removing the taken lists and d gets: fitting, priced, -filtered out
  local function reach(d)
    taken[d] = true
    local c = core.search(o.model, o.run, copy_space(o.space, taken)):counts()
    taken[d] = nil
    return { c.fitting, c.priced, -(c.refused["filtered out"] or 0) }
  end
  local function better(a, b)
    for i = 1, 3 do
      if a[i] ~= b[i] then return a[i] > b[i] end
    end
    return false
  end
  while #chosen < #lists do
    local best, best_reach
    for _, d in ipairs(lists) do
      if not taken[d] then
        local r = reach(d)
        if not best or better(r, best_reach) then best, best_reach = d, r end
      end
    end
    taken[best], chosen[#chosen + 1] = true, best
    if best_reach[1] > 0 then
      local out = {}
      for _, d in ipairs(search.DIMS) do
        if taken[d] then out[#out + 1] = d end
      end
      local kept = {}
      for _, d in ipairs(out) do kept[d] = allowed[d] end
      return { dims = out, allowed = kept }
    end
  end
  return nil
end

--- The text of a candidate list ("[1, 2, 4]").
empty.list_text = list_text

-- The degree a dimension can reach: its bound when searched, else its
-- pinned value (nil when neither is known).
local function degree_reach(space, d)
  local e = space.dims and space.dims[d]
  if not e then return nil end
  if e.searched then return e.bound end
  return e.pinned
end

-- When the global batch leaves context parallelism to fill the devices:
-- DP (times MBS) stays within the batch, so each data-parallel rank spans
-- at least devices / batch devices, and when TP and PP at their reach
-- leave more than 1 of them to CP, the CP rule refuses what the batch
-- causes. The text blaming the batch, or nil.
local function batch_leaves_cp(o, hints)
  local sp = o.space
  if not (sp and sp.devices and sp.global_batch) or sp.global_batch >= sp.devices then return nil end
  local tp, pp = degree_reach(sp, "TP"), degree_reach(sp, "PP")
  if not (tp and pp) then return nil end
  local per_rank = sp.devices / sp.global_batch
  if per_rank <= tp * pp then return nil end
  return string.format("the global batch is the cause: a batch of %d sequences gives at most %d data-parallel "
    .. "ranks, so each spans %d / %d = %s devices, of which TP (up to %d) and PP (up to %d) leave a CP of %s or more "
    .. "to fill; raise the global batch (%s) or take fewer devices", sp.global_batch, sp.global_batch, sp.devices,
    sp.global_batch, string.format("%.6g", per_rank), tp, pp, string.format("%.6g", per_rank / (tp * pp)),
    hints.batch)
end

--- The message for a search that priced nothing.
-- @tparam table o `counts`, `budget_bytes`, `space`, `model`, `run` (for
--   testing candidate lists), `hints` (empty.CLI_HINTS or config_hints)
-- @treturn string
function empty.explain(o)
  local hints = o.hints or empty.CLI_HINTS
  local lines = table_report.summary(o.counts, o.budget_bytes)
  local reasons = table_report.refusals(o.counts.refused)
  local top = reasons[1] and reasons[1][1]
  local message = "no candidate passes the search's rules: " .. lines[1]
  if top == "filtered out" and o.space and o.model then
    local parts = lists_relaxing(o, hints)
    if #parts > 0 then
      return message .. "; the candidate lists refuse every one, and these alone:\n" .. table.concat(parts, "\n")
        .. "\nwiden one of them, or state it auto"
    end
    return message .. "; the candidate lists refuse them all, and no one list alone: widen several ("
      .. hints.dims .. ")"
  end
  local batch = top == "CP constraints" and batch_leaves_cp(o, hints)
  if batch then return message .. "; " .. batch end
  if top then
    return message .. string.format("; most were refused by the rule '%s': relax %s", top, relax(top, hints))
  end
  return message .. "; widen the dimensions (" .. hints.dims .. ") or the batch (" .. hints.batch .. ")"
end

return empty
