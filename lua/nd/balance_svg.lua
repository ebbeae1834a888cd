-- nd.balance_svg: the picture of a balanced pipeline: its timeline (forward,
-- recompute and backward blocks per stage, chunk and micro-batch, in the
-- order of the plan's schedule (nd.pipeline_timeline), the bubble left
-- white) and each stage's memory against the limit.

local svg = require "nd.svg"
local timeline = require "nd.pipeline_timeline"
local balance = require "nd.balance"
local OPTIONS = balance.OPTIONS

local M = {}

-- A layer's (or kind's) plain time: its time without recompute, else its
-- fastest option's.
local function base_time(l)
  local base = l.time.off
  if base == nil then
    for _, t in pairs(l.time) do base = base and math.min(base, t) or t end
  end
  return base
end

-- Per stage and chunk: forward, recompute and backward time of one
-- micro-batch, from the plan's cells (per kind where the problem has kinds)
-- and the pinned head (stage 1, chunk 1) and tail (its stage, last chunk).
local function cell_times(p, plan)
  local out = {}
  local function add(t, l, name, x)
    local base, fwd = base_time(l), l.fwd or 0
    t.f = t.f + x * fwd
    t.r = t.r + x * math.max(0, l.time[name] - base)
    t.b = t.b + x * (math.min(l.time[name], base) - fwd)
  end
  for s = 1, p.stages do
    out[s] = {}
    for v = 1, p.chunks do
      local t = { f = 0, r = 0, b = 0 }
      -- the options in one order, so the sums come out the same every run
      for _, name in ipairs(OPTIONS) do
        if p.kinds then
          for k, l in ipairs(p.kinds) do
            local x = plan.kind_cells[s][v][k][name]
            if x then add(t, l, name, x) end
          end
        elseif plan.cells[s][v][name] then
          add(t, p.layer, name, plan.cells[s][v][name])
        end
      end
      if p.head and v == 1 and s == 1 then t.f, t.b = t.f + p.head.fwd, t.b + p.head.time - p.head.fwd end
      if p.tail and v == p.chunks and s == (p.tail_stage or p.stages) then
        t.f, t.b = t.f + p.tail.fwd, t.b + p.tail.time - p.tail.fwd
      end
      out[s][v] = t
    end
  end
  return out
end
M.cell_times = cell_times

--- The schedule whose order draws a plan of I chunks: "dualpipev" stays,
-- one chunk is 1F1B, more are Megatron's interleaved 1F1B (as timing.c
-- prices vpp > 1) or its less-memory variant.
function M.drawn_schedule(schedule, I)
  if schedule == "dualpipev" then return "dualpipev" end
  if I == 1 then return "1f1b" end
  if schedule == "interleaved-less-memory" then return schedule end
  return "interleaved"
end

-- What each order is, for the captions.
M.ORDER_NAMES = {
  ["1f1b"] = "1F1B order",
  interleaved = "Megatron-LM's interleaved 1F1B order",
  ["interleaved-less-memory"] = "the interleaved 1F1B order with less memory (MindFormers' build_virtualpipeline2)",
  dualpipev = "DualPipeV's order (each backward whole, the weight gradients not split off)",
}

--- A layer file's plan in its schedule's order: its blocks and the span
-- they take (nil and why where the order cannot run).
function M.timeline(p, plan, schedule)
  local sched = M.drawn_schedule(schedule or "1f1b", p.chunks)
  return timeline.timeline(sched, p.stages, p.chunks, p.micro, cell_times(p, plan))
end

-- Forward and backward colours by chunk (recompute keeps one colour); one
-- chunk keeps the colours of before.
local FORWARD = { 1, 5, 9, 7 }
local BACKWARD = { 3, 4, 10, 8 }
-- The host copies of offloaded layers (nd.host_link's exposed seconds and
-- copy cost), after the forward they follow.
local COPY = "#6b6b6b"
local function chunk_color(list, v) return svg.PALETTE[list[(v - 1) % #list + 1]] end

-- The legend's entries: forward, recompute, backward; by chunk where more.
local function legend_items(I)
  if I == 1 then
    return { { "forward", chunk_color(FORWARD, 1) }, { "recompute", svg.PALETTE[2] },
             { "backward", chunk_color(BACKWARD, 1) } }
  end
  local items = {}
  for v = 1, I do items[#items + 1] = { "forward chunk " .. (v - 1), chunk_color(FORWARD, v) } end
  items[#items + 1] = { "recompute", svg.PALETTE[2] }
  for v = 1, I do items[#items + 1] = { "backward chunk " .. (v - 1), chunk_color(BACKWARD, v) } end
  return items
end

local function block_title(b, I, when)
  local what = b.kind == "F" and "forward" or "backward"
  if I == 1 then return ("stage %d %s micro-batch %d: %s"):format(b.stage - 1, what, b.mb, when(b.len, b.start)) end
  return ("stage %d chunk %d %s micro-batch %d: %s"):format(b.stage - 1, b.chunk - 1, what, b.mb,
    when(b.len, b.start))
end

--- A picture from its parts. o: `title`; `stages`, `micro`; `schedule` and
-- `chunks` with `cells` (per stage and chunk {f, r, b}: forward, recompute
-- and backward time of one micro-batch) to draw the schedule's order, or
-- `times` (per stage {f, r, b}, the chunks together) for 1F1B's;
-- (`c` beside them: a forward's host copy seconds, drawn after it, and
-- `copy_legend` the legend's name for them);
-- `caption(span)` the line under the title; `when(len, start)` a block's
-- times in its tooltip; `memory` the memory chart (an SVG document's text),
-- drawn under the timeline. Returns the SVG text, or nil and why the
-- schedule's order cannot run.
function M.draw(o)
  local I = o.schedule and o.chunks or 1
  local blocks, span
  if o.schedule then
    blocks, span = timeline.timeline(o.schedule, o.stages, I, o.micro, o.cells)
  else
    local cells = {}
    for s, t in ipairs(o.times) do cells[s] = { t } end
    blocks, span = timeline.timeline("1f1b", o.stages, 1, o.micro, cells)
  end
  if not blocks then return nil, span end
  local S = o.stages
  local items = legend_items(I)
  if o.copy_legend then items[#items + 1] = { o.copy_legend, COPY } end
  local per_row = 7
  local legend_rows = (#items + per_row - 1) // per_row
  local left, top, row, width = 70, 50, 22, 900
  local h1 = top + S * row + 50 + (legend_rows - 1) * 20
  local scale = span > 0 and width / span or 1
  local mem = o.memory
  local mw, mh = tonumber(mem:match('width="(%d+)"')), tonumber(mem:match('height="(%d+)"'))
  local doc = svg.document(math.max(left + width + 20, mw), h1 + mh)
  doc:text(left, 22, o.title, { ["font-size"] = 15, ["font-weight"] = "bold" })
  doc:text(left, 40, o.caption(span))
  for s = 1, S do
    local y = top + (s - 1) * row
    doc:text(8, y + row * 0.7, "stage " .. (s - 1))
    doc:rect(left, y, width, row - 4, { fill = "#f4f4f4" })
  end
  for _, b in ipairs(blocks) do
    local y = top + (b.stage - 1) * row
    local x = left + b.start * scale
    doc:open_group(block_title(b, I, o.when)
      .. (b.copy > 0 and "; the host copies " .. o.when(b.copy, b.start + b.len - b.copy) or ""))
    if b.kind == "F" and b.copy > 0 then
      -- the forward, then its layers' exposed host copies and copy cost
      doc:rect(x, y, (b.len - b.copy) * scale, row - 4, { fill = chunk_color(FORWARD, b.chunk), stroke = "#ffffff",
                                                          ["stroke-width"] = 0.5 })
      doc:rect(x + (b.len - b.copy) * scale, y, b.copy * scale, row - 4, { fill = COPY, stroke = "#ffffff",
                                                                          ["stroke-width"] = 0.5 })
    elseif b.kind == "F" then
      doc:rect(x, y, b.len * scale, row - 4, { fill = chunk_color(FORWARD, b.chunk), stroke = "#ffffff",
                                               ["stroke-width"] = 0.5 })
    else
      doc:rect(x, y, b.rec * scale, row - 4, { fill = svg.PALETTE[2], stroke = "#ffffff", ["stroke-width"] = 0.5 })
      doc:rect(x + b.rec * scale, y, (b.len - b.rec) * scale, row - 4,
        { fill = chunk_color(BACKWARD, b.chunk), stroke = "#ffffff", ["stroke-width"] = 0.5 })
    end
    doc:close_group()
  end
  local ly = top + S * row + 16
  for i, item in ipairs(items) do
    local x = left + ((i - 1) % per_row) * (I == 1 and 120 or 128)
    local y = ly + ((i - 1) // per_row) * 20
    doc:rect(x, y, 12, 12, { fill = item[2] })
    doc:text(x + 18, y + 10, item[1])
  end
  doc.parts[#doc.parts + 1] = ('<g transform="translate(0,%d)">'):format(h1)
  doc.parts[#doc.parts + 1] = (mem:gsub("^<%?xml[^\n]*\n", ""))
  doc.parts[#doc.parts + 1] = "</g>"
  return doc:render()
end

-- The whole picture of a layer file's plan as SVG text, in the order of
-- `schedule` (balance.lua's --schedule; M.drawn_schedule), or nil and why.
-- objective: the objective's name for the caption ("step", "sapp -O 2").
function M.render(p, plan, title, schedule, objective)
  local sched = M.drawn_schedule(schedule or "1f1b", p.chunks)
  return M.draw {
    title = title, stages = p.stages, micro = p.micro, schedule = sched, chunks = p.chunks,
    cells = cell_times(p, plan),
    caption = function(span)
      if sched == "1f1b" then
        return ("1F1B order, the chunks of a stage drawn together; step %.2f in the layer file's unit; "
          .. "white is the bubble"):format(span)
      end
      return ("%s, a colour a chunk; it spans %.2f in the layer file's unit; the plan's objective (%s) is %.2f; "
        .. "white is the bubble"):format(M.ORDER_NAMES[sched], span, objective or "step", plan.objective)
    end,
    when = function(len, start) return ("%.2f from %.2f"):format(len, start) end,
    memory = M.memory_chart(p, plan),
  }
end

-- Per stage: the parameters of its layers and the activations it keeps
-- (the rest of its memory), against the limit.
function M.memory_chart(p, plan)
  local cats, stat, act = {}, {}, {}
  for s = 1, p.stages do
    local fixed = balance.layers_in(plan, s, 1, p.chunks) * p.layer.stat
    if p.head and s == 1 then fixed = fixed + p.head.stat end
    if p.tail and s == (p.tail_stage or p.stages) then fixed = fixed + p.tail.stat end
    cats[s] = "stage " .. (s - 1)
    stat[s] = math.min(fixed, plan.stage_mem[s])
    act[s] = plan.stage_mem[s] - stat[s]
  end
  return svg.stacked_bars {
    title = "Memory per device by stage",
    categories = cats,
    series = { { name = "parameters", values = stat }, { name = "activations and the rest", values = act } },
    lines = { { value = p.limit, label = ("limit %.0f MB"):format(p.limit) } },
    unit = 1, unit_name = "MB",
  }
end

return M
