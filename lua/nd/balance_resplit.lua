--- nd.balance_resplit: a balanced plan's stage totals split as evenly as the
-- layer counts allow over each stage's chunks (issue 32 item 2).
--
-- The count model (nd.core.balance) prices a stage by its total seconds and
-- its chunks as equal shares of them (the closed form sum X/v + (m v - 1)
-- max X/v), so its plans may leave a stage's chunks unequal (Llama 3.1 70B
-- at -i 2: chunks of 1 and 18-21 layers). Megatron-LM's interleaved order
-- waits on each chunk's own seconds and stalls on such chunks past the
-- closed form (src/core/timing.c interleaved_step). These plans keep each
-- stage's layers and its count per option and deal them over the chunks
-- as evenly as they go: floor(n / I) a chunk, the n mod I left over on the
-- last chunks (they hold the fewest micro-batches in flight) or on the
-- first. A chunk's micro-batches in flight differ (the first chunk holds
-- the most under the interleaved order), so the plan's recompute counts do
-- not carry over: each stage recomputes the fewest layers its memory needs,
-- where a layer frees the most. The caller prices the plans by the estimate
-- and ndlua's step; none is proved optimal.
local core = require "nd.core"
local layers_in = require("nd.balance").layers_in

local M = {}

-- n dealt over I chunks: n // I each, the n % I left over one each on the
-- first chunks (first) or on the last.
local function deal(n, I, first)
  local out, q, r = {}, n // I, n % I
  for v = 1, I do
    local extra = first and v <= r or not first and v > I - r
    out[v] = q + (extra and 1 or 0)
  end
  return out
end

-- Per kind {off, mode} of the layers first .. first + count - 1 of the
-- body in model order, the first `recomputed` of them at `mode` (the layout
-- recomputes a chunk's first layers).
local function kind_counts(p, first, count, recomputed, mode)
  local t = {}
  for k = 1, #p.kinds do t[k] = { off = 0, [mode] = 0 } end
  for i = first, first + count - 1 do
    local c = t[p.sequence[i]]
    if i - first < recomputed then c[mode] = c[mode] + 1 else c.off = c.off + 1 end
  end
  return t
end

-- Each stage's layers of the plan dealt over its chunks (left over on the
-- first chunks or the last), none recomputed: cells; nil where that is the
-- plan's own split or leaves the first or last table's chunk without a layer.
local function dealt_cells(p, plan, mode, first)
  local S, I = p.stages, p.chunks
  local cells, same = {}, true
  for s = 1, S do
    local counts = deal(layers_in(plan, s, 1, I), I, first)
    cells[s] = {}
    for v = 1, I do
      cells[s][v] = { off = counts[v], [mode] = 0 }
      same = same and counts[v] == layers_in(plan, s, v, v)
    end
  end
  local function empty(s, v) return cells[s][v].off == 0 end
  if same or empty(1, 1) or empty(p.tail_stage or S, I) then return nil end
  return cells
end

-- The cells as nd.core.balance_evaluate reads the problem's (with kinds: per
-- kind, the layers laid out in model order), and the runs.
local function as_evaluated(p, cells, mode)
  if not p.kinds then return cells end
  local kind_cells, runs, at = {}, {}, 1
  for s = 1, p.stages do kind_cells[s], runs[s] = {}, {} end
  for v = 1, p.chunks do
    for s = 1, p.stages do
      local n = cells[s][v].off + cells[s][v][mode]
      runs[s][v] = { first = at, count = n }
      kind_cells[s][v] = kind_counts(p, at, n, cells[s][v][mode], mode)
      at = at + n
    end
  end
  return kind_cells, runs
end

-- Recomputes, stage by stage, one more layer where the count model's memory
-- (nd.core.balance_evaluate) puts the stage past the limit, on the chunk
-- with the most micro-batches in flight that still has a layer off (a layer
-- recomputed there frees the most); the plan once every stage fits, or nil
-- where a stage past the limit has no layer left to recompute.
local function fit_by_recompute(p, cells, mode)
  local slack = math.abs(p.limit) * 1e-12 -- the solver's own (balance.c fits)
  while true do
    local evaluated, runs = as_evaluated(p, cells, mode)
    local ok, objective, stage_time, stage_mem = core.balance_evaluate(p, evaluated)
    if ok then
      return { feasible = true, optimal = false, dealt = true, cells = cells, solve_s = 0, explored = 0,
               objective = objective, stage_time = stage_time, stage_mem = stage_mem,
               kind_cells = p.kinds and evaluated or nil, runs = runs }
    end
    local moved = false
    for s = 1, p.stages do
      if stage_mem[s] > p.limit + slack then
        local best
        for v = 1, p.chunks do
          if cells[s][v].off > 0 and (not best or p.inflight[s][v] > p.inflight[s][best]) then best = v end
        end
        if not best then return nil end
        cells[s][best].off, cells[s][best][mode] = cells[s][best].off - 1, cells[s][best][mode] + 1
        moved = true
      end
    end
    if not moved then return nil end -- past the limit nowhere: another rule the plan breaks
  end
end

--- The plans whose chunks hold each stage's layers of `plan` as evenly as
-- they go (a list, possibly empty), each as nd.core.balance gives a plan:
-- cells, with kinds kind_cells and runs (body layers in model order: chunk
-- by chunk, each over the stages), the count model's objective, stage_time
-- and stage_mem (nd.core.balance_evaluate); optimal false and dealt = true.
-- Each stage recomputes (at `mode`) the fewest layers the count model's
-- memory lets it (fit_by_recompute). A plan with offloaded layers is left
-- as it is.
function M.plans(p, plan, mode)
  local out = {}
  if not plan.feasible or plan.offload or p.chunks < 2 then return out end
  local odd = false -- a stage whose layers the chunks do not divide: the left over goes last, or first
  for s = 1, p.stages do
    odd = odd or layers_in(plan, s, 1, p.chunks) % p.chunks ~= 0
  end
  for _, first in ipairs(odd and { false, true } or { false }) do
    local cells = dealt_cells(p, plan, mode, first)
    local q = cells and fit_by_recompute(p, cells, mode)
    if q then out[#out + 1] = q end
  end
  return out
end

return M
