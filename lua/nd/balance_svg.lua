-- nd.balance_svg: the picture of a balanced pipeline: its timeline (forward,
-- recompute and backward blocks per stage and micro-batch, the bubble left
-- white) and each stage's memory against the limit.

local svg = require "nd.svg"

local M = {}

-- Per stage: forward, recompute and backward time of one micro-batch (all
-- of the stage's chunks together), from the plan's cells.
local function stage_times(p, plan)
  local base = p.layer.time.off
  if base == nil then
    for _, t in pairs(p.layer.time) do base = base and math.min(base, t) or t end
  end
  local out = {}
  for s = 1, p.stages do
    local f, r, b = 0, 0, 0
    for v = 1, p.chunks do
      for name, x in pairs(plan.cells[s][v]) do
        local t = p.layer.time[name]
        f = f + x * (p.layer.fwd or 0)
        r = r + x * math.max(0, t - base)
        b = b + x * (math.min(t, base) - (p.layer.fwd or 0))
      end
      if p.head and v == 1 and s == 1 then f, b = f + p.head.fwd, b + p.head.time - p.head.fwd end
      if p.tail and v == p.chunks and s == (p.tail_stage or p.stages) then
        f, b = f + p.tail.fwd, b + p.tail.time - p.tail.fwd
      end
    end
    out[s] = { f = f, r = r, b = b }
  end
  return out
end

-- The 1F1B order of each stage's operations and their start times: a
-- forward waits for the stage before, a backward for the stage after.
-- t: per stage {f, r, b}, the forward, recompute and backward time of one
-- micro-batch (the stage's chunks together).
local function timeline_of(t, S, m)
  local ops = {}
  for s = 1, S do
    local warm = math.min(S - s, m)
    local list = {}
    for j = 1, warm do list[#list + 1] = { "F", j } end
    for i = 1, m - warm do
      list[#list + 1] = { "F", warm + i }
      list[#list + 1] = { "B", i }
    end
    for j = m - warm + 1, m do list[#list + 1] = { "B", j } end
    ops[s] = list
  end
  local done_f, done_b, at, clock = {}, {}, {}, {}
  for s = 1, S do done_f[s], done_b[s], at[s], clock[s] = {}, {}, 1, 0 end
  local blocks, left = {}, 0
  for s = 1, S do left = left + #ops[s] end
  while left > 0 do
    local progress = false
    for s = 1, S do
      local op = ops[s][at[s]]
      if op then
        local kind, j = op[1], op[2]
        local ready
        if kind == "F" then
          ready = s == 1 and 0 or done_f[s - 1][j]
        else
          ready = s == S and done_f[s][j] or done_b[s + 1][j]
        end
        if ready then
          local start = math.max(ready, clock[s])
          local len = kind == "F" and t[s].f or t[s].r + t[s].b
          blocks[#blocks + 1] = { stage = s, kind = kind, mb = j, start = start, len = len, rec = kind == "B" and t[s].r or 0 }
          clock[s] = start + len
          if kind == "F" then done_f[s][j] = clock[s] else done_b[s][j] = clock[s] end
          at[s], left, progress = at[s] + 1, left - 1, true
        end
      end
    end
    if not progress then break end
  end
  local span = 0
  for s = 1, S do span = math.max(span, clock[s]) end
  return blocks, span
end

--- A layer file's plan in 1F1B order: its blocks and the span they take.
function M.timeline(p, plan)
  return timeline_of(stage_times(p, plan), p.stages, p.micro)
end

--- A picture from its parts. o: `title`; `stages`, `micro`; `times` (per
-- stage {f, r, b}: forward, recompute and backward time of one micro-batch);
-- `caption(span)` the line under the title; `when(len, start)` a block's
-- times in its tooltip; `memory` the memory chart (an SVG document's text),
-- drawn under the timeline.
function M.draw(o)
  local blocks, span = timeline_of(o.times, o.stages, o.micro)
  local S = o.stages
  local left, top, row, width = 70, 50, 22, 900
  local h1 = top + S * row + 50
  local scale = span > 0 and width / span or 1
  local mem = o.memory
  local mw, mh = tonumber(mem:match('width="(%d+)"')), tonumber(mem:match('height="(%d+)"'))
  local doc = svg.document(math.max(left + width + 20, mw), h1 + mh)
  doc:text(left, 22, o.title, { ["font-size"] = 15, ["font-weight"] = "bold" })
  doc:text(left, 40, o.caption(span))
  local colors = { F = svg.PALETTE[1], R = svg.PALETTE[2], B = svg.PALETTE[3] }
  for s = 1, S do
    local y = top + (s - 1) * row
    doc:text(8, y + row * 0.7, "stage " .. (s - 1))
    doc:rect(left, y, width, row - 4, { fill = "#f4f4f4" })
  end
  for _, b in ipairs(blocks) do
    local y = top + (b.stage - 1) * row
    local x = left + b.start * scale
    doc:open_group(("stage %d %s micro-batch %d: %s"):format(b.stage - 1,
      b.kind == "F" and "forward" or "backward", b.mb, o.when(b.len, b.start)))
    if b.kind == "F" then
      doc:rect(x, y, b.len * scale, row - 4, { fill = colors.F, stroke = "#ffffff", ["stroke-width"] = 0.5 })
    else
      doc:rect(x, y, b.rec * scale, row - 4, { fill = colors.R, stroke = "#ffffff", ["stroke-width"] = 0.5 })
      doc:rect(x + b.rec * scale, y, (b.len - b.rec) * scale, row - 4,
        { fill = colors.B, stroke = "#ffffff", ["stroke-width"] = 0.5 })
    end
    doc:close_group()
  end
  local ly = top + S * row + 16
  for i, item in ipairs { { "forward", colors.F }, { "recompute", colors.R }, { "backward", colors.B } } do
    local x = left + (i - 1) * 120
    doc:rect(x, ly, 12, 12, { fill = item[2] })
    doc:text(x + 18, ly + 10, item[1])
  end
  doc.parts[#doc.parts + 1] = ('<g transform="translate(0,%d)">'):format(h1)
  doc.parts[#doc.parts + 1] = (mem:gsub("^<%?xml[^\n]*\n", ""))
  doc.parts[#doc.parts + 1] = "</g>"
  return doc:render()
end

-- The whole picture of a layer file's plan as SVG text.
function M.render(p, plan, title)
  return M.draw {
    title = title, stages = p.stages, micro = p.micro, times = stage_times(p, plan),
    caption = function(span)
      return ("1F1B order, the chunks of a stage drawn together; step %.2f in the layer file's unit; "
        .. "white is the bubble"):format(span)
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
    local held = 0
    for v = 1, p.chunks do
      for _, x in pairs(plan.cells[s][v]) do held = held + x end
    end
    local fixed = held * p.layer.stat
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
