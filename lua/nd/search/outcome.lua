--- What a search's result means, for the command line (search.lua,
-- nd.search.command) and the API (nd.api.search) alike: the context a
-- ranking policy sees, the candidates the yaml's FSDP cannot state (set
-- aside), and why a search has nothing to recommend (nd.search.empty).
-- @module nd.search.outcome

local units = require "nd.units"
local search = require "nd.search"
local empty = require "nd.search.empty"
local hardware = require "nd.hardware"
local table_report = require "nd.report.table"

local outcome = {}

--- The table a ranking policy's functions see besides the candidate
-- (nd.policies): devices, node_devices, budget_bytes, global_batch and
-- hardware (the profile).
function outcome.policy_context(devices, profile, budget_bytes, global_batch)
  return { devices = devices, node_devices = hardware.node_devices(profile), budget_bytes = budget_bytes,
           global_batch = global_batch, hardware = profile }
end

--- With OP kept at the yaml's shard (above 1) and DP searched, a candidate
-- whose DP (x CP) is 1 is priced with the optimizer shard on over one rank,
-- a strategy the yaml's dp_shard_size cannot state (1 turns FSDP off): set
-- aside, so that every candidate shown is one resolved.yaml reproduces.
-- @treturn function|nil `exclude(c)` for nd.policies.apply, or nil
function outcome.full_shard_exclusion(space)
  local op = space.dims.OP
  if op.searched or op.pinned <= 1 or not space.dims.DP.searched then return nil end
  return function(c) return c.op_priced > 1 and c.op == 1 end
end

--- What the report says of the candidates full_shard_exclusion set aside.
function outcome.excluded_text(n)
  return string.format("%d set aside: DP x CP of 1 leaves the yaml's FSDP one rank to shard over, which its "
    .. "dp_shard_size cannot state; name OP in -l to price them", n)
end

--- The options a message about an empty search points to: the command
-- line's, or those a search config's invocation takes (nd.search.empty).
function outcome.hints(cfg)
  if cfg then return empty.config_hints(cfg.recompute.fixed) end
  return empty.CLI_HINTS
end

--- Why a search result has no candidate to recommend (none priced: the
-- rule that refused them and what relaxes it; none within the budget: the
-- lightest and its overshoot), or nil.
-- @tparam[opt] table hints the names of the options to change: `dims`,
--   `batch`, `memory`, `recompute`, `ep`, `cp`, `list` (default the
--   command line's)
-- @tparam[opt] table probe `space`, `model`, `run`: the search, to test its
--   candidate lists one at a time
function outcome.not_found(result, counts, budget_bytes, spans_cp, hints, probe)
  local h = hints or empty.CLI_HINTS
  if counts.priced == 0 then
    probe = probe or {}
    return empty.explain { counts = counts, budget_bytes = budget_bytes, hints = h, space = probe.space,
                           model = probe.model, run = probe.run }
  end
  if counts.fitting == 0 then
    local c = search.shown(result:lightest(), spans_cp)
    return string.format("nothing fits the budget of %s: all %d priced candidates are over it; the "
      .. "lightest, %s, needs %s (stage %d), %s over. Raise %s, search more dimensions (%s) or recompute "
      .. "(%s)", units.gib(budget_bytes), counts.priced, table_report.degrees(c), units.gib(c.peak_bytes),
      c.peak_stage, units.gib(c.overshoot_bytes), h.memory, h.dims, h.recompute)
  end
  return nil
end

return outcome
