--- The JSON document of a search (--json), with stable names:
--   {"tested", "refused": {"<reason>": n}, "priced", "fitting", "dropped",
--    "elapsed_s", "candidates": [{"rank", "dp", "tp", "pp", "vpp", "cp", "ep",
--    "etp", "op", "sp", "mb", "mbs", "recompute", "peak_bytes", "peak_stage",
--    "step_time_s", "mfu", "tokens_per_s_per_device", "nd_score", "score",
--    "kept", "parts": {...}}, ...], "warnings": [...]}
-- plus "search": what was searched (devices, global_batch, budget_bytes,
-- hardware, policy, recompute, dims, bounds), "resolved_yaml" (the path
-- written, or null) and "ranking" (the table's explanation, when given:
-- nd.report.ranking.summary).
-- @module nd.report.json

local core = require "nd.core"

local json = {}

json.CANDIDATE_KEYS = { table.unpack(require("nd.report.csv").COLUMNS) }
json.CANDIDATE_KEYS[#json.CANDIDATE_KEYS + 1] = "parts"

--- A candidate as the document holds it.
function json.candidate(c)
  local out = {}
  for _, k in ipairs(json.CANDIDATE_KEYS) do out[k] = c[k] end
  out.balance = c.balance -- search.lua --balance's plan (absent otherwise)
  return out
end

--- The document.
-- @tparam table counts result:counts()
-- @tparam table list the candidates shown (best first)
-- @tparam table extra `warnings` (strings), `search` (a table), `resolved_yaml`
function json.document(counts, list, extra)
  local cands = {}
  for i, c in ipairs(list) do cands[i] = json.candidate(c) end
  return {
    tested = counts.tested, refused = counts.refused, priced = counts.priced, fitting = counts.fitting,
    dropped = counts.dropped, elapsed_s = counts.elapsed_s, candidates = core.json.array(cands),
    warnings = core.json.array(extra.warnings or {}), search = extra.search,
    resolved_yaml = extra.resolved_yaml or core.null, ranking = extra.ranking,
  }
end

return json
