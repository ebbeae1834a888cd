--- nd.pipeline_timeline: the order in which each pipeline stage runs its
-- forward and backward chunks under a schedule, and the timeline that order
-- makes from per-stage, per-chunk seconds (no communication time), each
-- block starting once its stage is free and its input is ready.
--
--   local tl = require "nd.pipeline_timeline"
--   local blocks, span = tl.timeline("interleaved", S, I, m, dur)
--   -- dur[s][v] = {f = forward, r = recompute, b = backward} seconds of one
--   -- micro-batch of chunk v on stage s (both 1-based)
--
-- The schedules:
--   1f1b         one chunk: stage s (0-based) runs min(S - s - 1, m) forwards,
--                then one forward and one backward in turn, then the
--                backwards left (PipeDream-flush, Megatron-LM's
--                forward_backward_pipelining_without_interleaving).
--   interleaved  Megatron-LM's interleaved 1F1B (megatron/core/
--                pipeline_parallel/schedules.py,
--                forward_backward_pipelining_with_interleaving): forwards in
--                get_schedule_table's order, groups of S micro-batches
--                chunk by chunk (chunk 0 of micro-batches 0..S-1, chunk 1 of
--                the same, ..., then the next S); backwards in the same order
--                with the chunks reversed (get_model_chunk_id with forward =
--                false); warm-up (S - s - 1) x 2 + (I - 1) x S forwards
--                (get_pp_rank_microbatches), then one forward and one
--                backward in turn, then the backwards left. Megatron needs m
--                a multiple of S; where it is not, the r = m mod S extra
--                micro-batches open the first group and the warm-up grows by
--                r x (I - 1), as MindFormers' pipeline simulator builds it
--                (toolkit/pipeline_balance/simulator/pipeline_builder.py,
--                build_virtualpipeline). At least S micro-batches.
--   interleaved-less-memory
--                the same order with warm-up I x S - s - 1
--                (pipeline_builder.py build_virtualpipeline2, "virtual
--                pipeline with less memory scheduler"): the last chunk then
--                holds S - s micro-batches at most, the in-flight count
--                SAPP-PPB's digest gives the variant (nd.balance.sapp_inflight).
--                m a multiple of S (with a remainder the builder's order
--                waits on itself: a deadlock).
--   dualpipev    DeepSeek's DualPipeV (deepseek-ai/DualPipe
--                dualpipe/dualpipev.py, DualPipeV.step): two chunks a stage
--                in a V, chunk 0 running down the stages and chunk 1 back up
--                (the last stage passes chunk 0's output to its own chunk 1;
--                the loss is on stage 0's chunk 1); its eight steps: 2(S-s-1)
--                F0; s+1 x (F0 F1); S-s-1 x (B1 W F1); m-2S+s+1 x (F0&B1,
--                F1&B0); S-s-1 x (B1, F1&B0); s+1 x (B1 B0); S-s-1 x (W B0);
--                s+1 x W. A pair X&Y waits for both inputs before it starts
--                (_forward_backward_chunk receives both, then computes). The
--                weight-gradient steps W take no time here: the time model
--                prices a backward whole, so each B carries its W. Needs
--                m >= 2S (dualpipev.py asserts it).
--
-- Dependencies: each (chunk, stage) is a place along the micro-batch's path
-- (chunk by chunk over the stages upward; DualPipeV: chunk 0 down, chunk 1
-- back); a forward waits for the forward of the same micro-batch at the place
-- before, a backward for the backward at the place after, the last place's
-- backward for its own forward.

local M = {}

-- Megatron's forward table (get_schedule_table with groups of S; the
-- remainder first, as MindFormers' builder): a list of {chunk, micro-batch}.
local function forward_table(S, I, m)
  local r, t = m % S, {}
  for g = 0, m // S - 1 do
    for v = 1, I do
      if g == 0 then
        for j = 1, r do t[#t + 1] = { v, j } end
      end
      for j = 1, S do t[#t + 1] = { v, r + g * S + j } end
    end
  end
  return t
end

-- `warm` forwards, then one forward and one backward in turn, then the
-- backwards left (MindFormers' _inter_merge; Megatron's warm-up, steady
-- 1F1B and cool-down).
local function merge(fwd, bwd, warm)
  local list, i, j = {}, 1, 1
  local function F() list[#list + 1] = { kind = "F", chunk = fwd[i][1], mb = fwd[i][2] }; i = i + 1 end
  local function B() list[#list + 1] = { kind = "B", chunk = bwd[j][1], mb = bwd[j][2] }; j = j + 1 end
  while i <= math.min(warm, #fwd) do F() end
  while i <= #fwd do
    F()
    if j <= #bwd then B() end
  end
  while j <= #bwd do B() end
  return list
end

local function one_f_one_b(S, m, s)
  local t = {}
  for j = 1, m do t[j] = { 1, j } end
  return merge(t, t, S - s)
end

local function interleaved(S, I, m, s, less)
  local fwd, bwd = forward_table(S, I, m), {}
  for k, e in ipairs(fwd) do bwd[k] = { I + 1 - e[1], e[2] } end
  local s0, r = s - 1, m % S
  local warm = less and I * S - s0 - 1 or 2 * (S - s0 - 1) + (I - 1) * S + r * (I - 1)
  return merge(fwd, bwd, warm)
end

-- DualPipeV.step's order on stage s (1-based); chunk 1 is its phase 0.
local function dualpipev(S, m, s)
  local r, list, nf, nb = s - 1, {}, { 0, 0 }, { 0, 0 }
  local function F(v, pair)
    nf[v] = nf[v] + 1
    list[#list + 1] = { kind = "F", chunk = v, mb = nf[v], pair = pair or nil }
  end
  local function B(v)
    nb[v] = nb[v] + 1
    list[#list + 1] = { kind = "B", chunk = v, mb = nb[v] }
  end
  for _ = 1, 2 * (S - r - 1) do F(1) end                    -- step 1: nF0
  for _ = 1, r + 1 do F(1); F(2) end                         -- step 2: nF0F1
  for _ = 1, S - r - 1 do B(2); F(2) end                     -- step 3: nB1W1F1
  for i = 1, m - 2 * S + r + 1 do                            -- step 4: nF0B1F1B0
    -- the last stage's first F0 and B1 run one after the other, not paired
    F(1, not (i == 1 and r == S - 1)); B(2)
    F(2, true); B(1)
  end
  for _ = 1, S - r - 1 do B(2); F(2, true); B(1) end         -- step 5: nB1F1B0
  for _ = 1, r + 1 do B(2); B(1) end                         -- step 6: nB1B0
  for _ = 1, S - r - 1 do B(1) end                           -- step 7: nWB0
  return list
end

M.SCHEDULES = { ["1f1b"] = true, interleaved = true, ["interleaved-less-memory"] = true, dualpipev = true }

--- The order of each stage's operations: orders[s] = list of {kind = "F" |
-- "B", chunk, mb, pair} (1-based), or nil and why the schedule cannot run.
function M.orders(schedule, S, I, m)
  if not M.SCHEDULES[schedule] then return nil, ("no order for the schedule %s"):format(tostring(schedule)) end
  if schedule == "1f1b" and I ~= 1 then return nil, "1F1B runs one chunk a stage" end
  if schedule == "dualpipev" and I ~= 2 then return nil, "DualPipeV runs two chunks a stage" end
  if schedule == "dualpipev" and m < 2 * S then
    return nil, ("DualPipeV needs at least 2 x %d = %d micro-batches (dualpipev.py asserts it), got %d"):format(S,
      2 * S, m)
  end
  if schedule:match("^interleaved") and I > 1 and m < S then
    return nil, ("interleaved 1F1B needs at least %d micro-batches (one a stage), got %d"):format(S, m)
  end
  if schedule == "interleaved-less-memory" and I > 1 and m % S ~= 0 then
    -- build_virtualpipeline2 keeps its warm-up whatever m mod S: its order then waits on itself
    return nil, ("the less-memory order needs the micro-batches a multiple of %d, got %d"):format(S, m)
  end
  local orders = {}
  for s = 1, S do
    if schedule == "dualpipev" then
      orders[s] = dualpipev(S, m, s)
    elseif I == 1 then
      orders[s] = one_f_one_b(S, m, s)
    else
      orders[s] = interleaved(S, I, m, s, schedule == "interleaved-less-memory")
    end
  end
  return orders
end

-- place[s][v]: the place of chunk v on stage s along the micro-batch's path;
-- K places in all.
local function places(schedule, S, I)
  local place = {}
  for s = 1, S do
    place[s] = {}
    for v = 1, I do
      if schedule == "dualpipev" then
        place[s][v] = v == 1 and s or 2 * S + 1 - s
      else
        place[s][v] = (v - 1) * S + s
      end
    end
  end
  return place, S * I
end

--- The timeline of the schedule: blocks (a list in the order they were
-- placed: each {stage, kind, chunk, mb, start, len, rec, copy}, len the
-- block's seconds, rec the recompute part of a backward's, copy the host
-- copy part of a forward's: dur[s][v].c where given, after the forward),
-- the span (the last block's end), and per stage its blocks in its order.
-- Or nil and why.
function M.timeline(schedule, S, I, m, dur)
  local orders, why = M.orders(schedule, S, I, m)
  if not orders then return nil, why end
  local place, K = places(schedule, S, I)
  local done_f, done_b = {}, {}
  for k = 1, K do done_f[k], done_b[k] = {}, {} end
  local function ready_of(s, op)
    local k = place[s][op.chunk]
    if op.kind == "F" then return k == 1 and 0 or done_f[k - 1][op.mb] end
    if k == K then return done_f[K][op.mb] end
    return done_b[k + 1][op.mb]
  end
  local at, clock, per_stage, left = {}, {}, {}, 0
  for s = 1, S do at[s], clock[s], per_stage[s], left = 1, 0, {}, left + #orders[s] end
  local blocks = {}
  -- one operation a stage a pass, the stages in turn
  while left > 0 do
    local progress = false
    for s = 1, S do
      local op = orders[s][at[s]]
      if op then
        local ready = ready_of(s, op)
        if ready and op.pair then
          local other = ready_of(s, orders[s][at[s] + 1])
          ready = other and math.max(ready, other)
        end
        if ready then
          local d = dur[s][op.chunk]
          local start = math.max(ready, clock[s])
          local len = op.kind == "F" and (d.c and d.f + d.c or d.f) or d.r + d.b
          local b = { stage = s, kind = op.kind, chunk = op.chunk, mb = op.mb, start = start, len = len,
                      rec = op.kind == "B" and d.r or 0, copy = op.kind == "F" and d.c or 0 }
          blocks[#blocks + 1], per_stage[s][#per_stage[s] + 1] = b, b
          clock[s] = start + len
          local k = place[s][op.chunk]
          if op.kind == "F" then done_f[k][op.mb] = clock[s] else done_b[k][op.mb] = clock[s] end
          at[s], left, progress = at[s] + 1, left - 1, true
        end
      end
    end
    if not progress then return nil, "the order waits on itself (a deadlock): no timeline" end
  end
  local span = 0
  for s = 1, S do span = math.max(span, clock[s]) end
  return blocks, span, per_stage
end

--- Per stage and chunk the most micro-batches whose forward ran and whose
-- backward did not, along the stage's order: peak[s][v].
function M.peak_in_flight(orders, I)
  local peak = {}
  for s, list in ipairs(orders) do
    local n = {}
    peak[s] = {}
    for v = 1, I do n[v], peak[s][v] = 0, 0 end
    for _, op in ipairs(list) do
      n[op.chunk] = n[op.chunk] + (op.kind == "F" and 1 or -1)
      peak[s][op.chunk] = math.max(peak[s][op.chunk], n[op.chunk])
    end
  end
  return peak
end

return M
