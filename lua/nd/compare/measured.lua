--- Measured peaks and step times, read from the files training runs leave
-- (compare.lua). Each reader turns one file into records
--
--   { rank = 3 or nil, allocated = bytes, reserved = bytes, step_s = s,
--     parts = {comp = s, dp_wait = s, ...} (the classified CSV only),
--     where = "FILE:LINE" }
--
-- (any field but `where` may be absent) and names the format it read:
--
--   pytorch     JSON: torch.cuda.memory_stats() dumped whole
--               ("allocated_bytes.all.peak", "reserved_bytes.all.peak"), or
--               {max_memory_allocated, max_memory_reserved} in bytes; one
--               object, a list of them, or {"ranks": [...]}; each may state
--               "rank" and "step_time_s". The H200 traces of this repository
--               ({"runs": [{peak_allocated, peak_reserved,
--               step_time_median_s}]}) are read too, one run chosen by --run.
--   megatron    Megatron-LM's report_memory lines, "[Rank R] (after N
--               iterations) memory (MB) | allocated: A | max allocated: M |
--               reserved: R | max reserved: X" (MB = 2^20 bytes), and its
--               "elapsed time per iteration (ms): T" lines
--   mindspore   MindSpore's runtime lines "Used peak memory usage (without
--               fragments): NM" (allocated) and "Actual peak memory usage
--               (with fragments): NM" (reserved), M = 2^20 bytes, one log a
--               device (the rank from the file name: rank_3, worker_3,
--               device_3), and MindFormers' "per_step_time: Tms"
--   torchtitan  torchtitan's metrics lines "[rank3]:... step: 10 loss: ...
--               memory: 39.34GiB(41.39%) tps: 7,123 ..." (its memory monitor's
--               max_memory_reserved); the step time from tps (tokens a
--               second a device): global batch x sequence / (devices x tps)
--   csv         the reference planner's classified CSV (--real_csv, written by
--               its trace_classify): dimension columns (DP, MP, PP, CP, EP,
--               VPP, MB, MBS, OP) then time, comp and the waits (dp_wait,
--               mp_wait, ep_wait, cp_wait, pp_wait, op_wait, sp_wait), in
--               milliseconds; a memory_mb column, if any, is a peak in MB
--
-- A value several lines report for one rank (each iteration's max) is the
-- largest; a step time the median of those reported after the first (the
-- first step warms up).
-- @module nd.compare.measured

local core = require "nd.core"
local errors = require "nd.errors"

local measured = {}

local MiB = 2 ^ 20

local function fail(file, message, accepted)
  errors.raise { file = file, message = message, accepted = accepted }
end

local function read_all(path)
  local f, err = io.open(path, "rb")
  if not f then fail(path, "cannot read: " .. tostring(err)) end
  local text = f:read("a")
  f:close()
  return text
end

-- The rank a file's name states (rank3, rank_3, rank-3, worker_3, device_3), or nil.
local function rank_of_name(path)
  local name = path:match("[^/]*$")
  local r = name:match("[Rr]ank[_%-]?(%d+)") or name:match("worker[_%-]?(%d+)") or name:match("device[_%-]?(%d+)")
  return r and math.tointeger(tonumber(r)) or nil
end

local function median(list)
  if #list == 0 then return nil end
  local t = {}
  for i, v in ipairs(list) do t[i] = v end
  table.sort(t)
  local n = #t
  if n % 2 == 1 then return t[(n + 1) // 2] end
  return (t[n // 2] + t[n // 2 + 1]) / 2
end

-- The step times after the first (a warm-up step), their median.
local function steady(list)
  if #list > 1 then
    local rest = {}
    for i = 2, #list do rest[#rest + 1] = list[i] end
    return median(rest)
  end
  return median(list)
end

-- A number of a log line: "1,234.5" -> 1234.5.
local function number(text)
  if not text then return nil end
  return tonumber((text:gsub(",", "")))
end

local function max_into(rec, key, v)
  if v and (rec[key] == nil or v > rec[key]) then rec[key] = v end
end

-- Records by rank (a rank-less file: rank nil, one record).
local function by_rank()
  local list, index = {}, {}
  return function(rank, where)
    local key = rank == nil and "none" or rank
    if not index[key] then
      index[key] = { rank = rank, where = where, steps = {} }
      list[#list + 1] = index[key]
    end
    return index[key]
  end, list
end

local function finish(list)
  for _, r in ipairs(list) do
    if #r.steps > 0 then r.step_s = steady(r.steps) end
    r.steps = nil
  end
  return list
end

-- Megatron-LM: report_memory (training.py) and the iteration line.
local function read_megatron(path, text)
  local get, list = by_rank()
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local rank, rest = line:match("%[Rank (%d+)%]%s*(.-memory %(MB%).*)$")
    if rank then
      local rec = get(math.tointeger(tonumber(rank)), path .. ":" .. n)
      max_into(rec, "allocated", number(rest:match("| max allocated: ([%d%.,]+)")) * MiB)
      local reserved = number(rest:match("| max reserved: ([%d%.,]+)"))
      if reserved then max_into(rec, "reserved", reserved * MiB) end
    end
    local ms = line:match("elapsed time per iteration %(ms%):%s*([%d%.,]+)")
    if ms then
      -- the iteration lines (the last rank prints them) name no rank: a step is the run's
      local rec = get(nil, path .. ":" .. n)
      rec.steps[#rec.steps + 1] = number(ms) / 1e3
    end
  end
  return finish(list)
end

-- MindSpore's memory lines (one log a device) and MindFormers' step time.
local function read_mindspore(path, text)
  local get, list = by_rank()
  local rank = rank_of_name(path)
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local used = line:match("Used peak memory usage %(without fragments%):%s*([%d%.]+)M")
    local actual = line:match("Actual peak memory usage %(with fragments%):%s*([%d%.]+)M")
    local ms = line:match("per_step_time:%s*([%d%.]+)ms")
    if used or actual or ms then
      local rec = get(rank, path .. ":" .. n)
      if used then max_into(rec, "allocated", number(used) * MiB) end
      if actual then max_into(rec, "reserved", number(actual) * MiB) end
      if ms then rec.steps[#rec.steps + 1] = number(ms) / 1e3 end
    end
  end
  return finish(list)
end

local UNIT = { GiB = 2 ^ 30, MiB = MiB, GB = 1e9, MB = 1e6 }

-- torchtitan's metrics lines: the reserved peak and the tokens a second a device.
local function read_torchtitan(path, text, ctx)
  local get, list = by_rank()
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local v, unit = line:match("memory:%s*([%d%.]+)%s*(%a+)%(")
    if v and line:find("step:", 1, true) then
      local rank = line:match("^%[rank(%d+)%]")
      rank = rank and math.tointeger(tonumber(rank)) or rank_of_name(path)
      local rec = get(rank, path .. ":" .. n)
      if not UNIT[unit] then fail(path .. ":" .. n, "memory in '" .. unit .. "', no unit ndlua knows",
                                  "GiB, MiB, GB or MB") end
      max_into(rec, "reserved", number(v) * UNIT[unit])
      local tps = number(line:match("tps:%s*([%d,%.]+)"))
      if tps and tps > 0 and ctx.tokens_per_step and ctx.devices then
        rec.steps[#rec.steps + 1] = ctx.tokens_per_step / (ctx.devices * tps)
      end
    end
  end
  return finish(list)
end

-- The reference's classified CSV: one row a measured strategy.
measured.CSV_WAITS = { "dp_wait", "mp_wait", "ep_wait", "cp_wait", "pp_wait", "op_wait", "sp_wait" }
measured.CSV_DIMS = { DP = "dp", MP = "tp", TP = "tp", PP = "pp", CP = "cp", EP = "ep", VPP = "vpp", MB = "mb",
                      MBS = "mbs", OP = "op" }

local function split_csv(line)
  local cells = {}
  for cell in (line .. ","):gmatch("([^,]*),") do cells[#cells + 1] = cell:match("^%s*(.-)%s*$") end
  return cells
end

local function read_csv(path, text, ctx)
  local lines = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line:gsub("\r$", "") end
  local head = split_csv(lines[1] or "")
  local col = {}
  for i, name in ipairs(head) do col[name] = i end
  if not col.time then fail(path .. ":1", "a classified CSV has a time column (ms a step)",
                            "the header trace_classify writes: dimensions, time, comp, dp_wait, ...") end
  local rows = {}
  for n = 2, #lines do
    if lines[n] ~= "" then
      local cells = split_csv(lines[n])
      local function ms(name)
        local c = col[name]
        if not c or cells[c] == "" then return nil end
        local v = tonumber(cells[c])
        if not v then fail(path .. ":" .. n, name .. " is '" .. tostring(cells[c]) .. "', not a number") end
        return v / 1e3
      end
      local dims = {}
      for name, key in pairs(measured.CSV_DIMS) do
        if col[name] then dims[key] = math.tointeger(tonumber(cells[col[name]])) end
      end
      local parts = { comp = ms("comp") or 0 }
      for _, w in ipairs(measured.CSV_WAITS) do parts[w] = ms(w) or 0 end
      local mem = col.memory_mb and tonumber(cells[col.memory_mb])
      rows[#rows + 1] = { where = path .. ":" .. n, dims = dims, step_s = ms("time"), parts = parts,
                          allocated = mem and mem * MiB or nil }
    end
  end
  if #rows == 0 then fail(path, "holds no measured row") end
  -- the row of the run compared: its degrees match the run's
  local run = ctx.run or {}
  local match, shown = nil, {}
  for _, r in ipairs(rows) do
    local ok = true
    for key, v in pairs(r.dims) do
      if run[key] ~= nil and run[key] ~= v then ok = false end
    end
    local text_dims = {}
    for _, name in ipairs({ "DP", "MP", "PP", "CP", "EP", "VPP", "MB", "MBS", "OP" }) do
      local v = r.dims[measured.CSV_DIMS[name]]
      if v then text_dims[#text_dims + 1] = name .. " " .. v end
    end
    shown[#shown + 1] = r.where .. " (" .. table.concat(text_dims, ", ") .. ")"
    if ok and not match then match = r end
  end
  if not match then
    fail(path, "no row states the layout compared (dp " .. tostring(run.dp) .. ", tp " .. tostring(run.tp)
      .. ", pp " .. tostring(run.pp) .. ", mb " .. tostring(run.mb) .. ")", "one of its rows: "
      .. table.concat(shown, "; "))
  end
  match.dims = nil
  return { match }
end

-- PyTorch's memory dumps (JSON).
local function pytorch_record(path, o, where)
  local rec = { where = where, rank = math.tointeger(o.rank) }
  rec.allocated = o["allocated_bytes.all.peak"] or o.max_memory_allocated or o.peak_allocated
  rec.reserved = o["reserved_bytes.all.peak"] or o.max_memory_reserved or o.peak_reserved
  rec.step_s = o.step_time_s or o.step_time_median_s
  if rec.allocated == nil and rec.reserved == nil and rec.step_s == nil then
    fail(where, "states no peak", "torch.cuda.memory_stats() (allocated_bytes.all.peak), or max_memory_allocated "
      .. "/ max_memory_reserved in bytes")
  end
  if rec.rank == nil then rec.rank = rank_of_name(path) end
  return rec
end

local function read_pytorch(path, doc, ctx)
  if type(doc) ~= "table" then fail(path, "holds no JSON object") end
  if type(doc.runs) == "table" then
    local n = #doc.runs
    local i = ctx.run_index
    if not i then
      if n ~= 1 then
        local shown = {}
        for k, r in ipairs(doc.runs) do
          local desc = {}
          for _, key in ipairs({ "layers", "batch", "seq", "ac", "compile", "micro_batches" }) do
            if r[key] ~= nil then desc[#desc + 1] = key .. " " .. tostring(r[key]) end
          end
          shown[#shown + 1] = k .. ": " .. table.concat(desc, ", ")
        end
        fail(path, string.format("holds %d runs; --run N chooses one", n), table.concat(shown, "; "))
      end
      i = 1
    end
    if i < 1 or i > n then fail(path, string.format("--run %d: it holds runs 1 to %d", i, n)) end
    return { pytorch_record(path, doc.runs[i], path .. " runs[" .. i .. "]") }
  end
  local list = doc.ranks or doc
  if list[1] == nil then list = { doc } end
  local out = {}
  for i, o in ipairs(list) do
    if type(o) ~= "table" then fail(path, "entry " .. i .. " is no object") end
    out[i] = pytorch_record(path, o, #list > 1 and (path .. " [" .. i .. "]") or path)
  end
  return out
end

--- The format of a file, from its text: "pytorch", "megatron",
-- "mindspore", "torchtitan", "csv", or nil.
function measured.format_of(text)
  local first = text:match("^%s*(.)")
  if first == "{" or text:match("^%s*%[%s*[{%]]") then return "pytorch" end
  if text:find("memory (MB) |", 1, true) or text:find("elapsed time per iteration (ms)", 1, true) then
    return "megatron"
  end
  if text:find("peak memory usage", 1, true) or text:find("per_step_time:", 1, true) then return "mindspore" end
  if text:match("step:%s*%d+[^\n]*memory:%s*[%d%.]+%s*%a+%(") then return "torchtitan" end
  local head = text:match("^([^\n]*)")
  if head and head:find(",", 1, true) and head:find("time", 1, true) then return "csv" end
  return nil
end

measured.FORMATS = { "pytorch", "megatron", "mindspore", "torchtitan", "csv" }

--- Reads one file.
-- @tparam string path
-- @tparam table ctx `run` (dp, tp, pp, cp, ep, vpp, mb, mbs: the csv's row),
--   `run_index` (--run), `tokens_per_step` and `devices` (torchtitan's tps)
-- @treturn table records
-- @treturn string the format read
function measured.read(path, ctx)
  local text = read_all(path)
  local format = measured.format_of(text)
  if format == "pytorch" then
    return read_pytorch(path, core.json.decode(text, path), ctx), format
  elseif format == "megatron" then
    return read_megatron(path, text), format
  elseif format == "mindspore" then
    return read_mindspore(path, text), format
  elseif format == "torchtitan" then
    return read_torchtitan(path, text, ctx), format
  elseif format == "csv" then
    return read_csv(path, text, ctx), format
  end
  fail(path, "is in no measured format ndlua reads",
       "a torch.cuda.memory_stats() JSON dump, Megatron-LM's memory (MB) log lines, MindSpore's peak memory log "
         .. "lines, torchtitan's metrics lines, or the reference's classified CSV (see --help)")
end

return measured
