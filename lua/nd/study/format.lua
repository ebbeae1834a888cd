--- Text tables with units, for nd.study.print_table and nd.print_table.
-- A column is a key of the rows, or a table `{key, title, unit, digits,
-- format}` (`digits` after the point; `format(value, row)` -> the text).
-- The unit comes from the column, else from the key's name, as ndlua names
-- its numbers (`peak_bytes`, `step_time_s`):
--
--   bytes    `*_bytes`, `bytes`    printed in MiB or GiB, with the unit: one
--                                  unit per column, GiB when its largest
--                                  value reaches 1 GiB
--   GiB, MiB                       always that unit
--   s        `*_s`, `seconds`      seconds, "2.718 s"
--   %        `mfu`, `*_share`      a fraction printed as a percentage
--   tokens/s `*_per_s*`            a rate, "12059 tokens/s"
--   params   `params`, `*_params`  a count in billions or millions, "8.19 B"
--   row                            each row's own `unit` field (compare's
--                                  tables, one metric a row; bytes in the
--                                  unit of the row's `largest` value)
--
-- A key may be dotted ("parts.tp_s") to reach into a row's tables. Other
-- values print as they are: integers plainly, floats to 4 significant
-- digits, booleans as yes / no, nil as "-".
-- @module nd.study.format

local units = require "nd.units"

local format = {}

--- The unit a key's name implies, or nil.
function format.unit_of(key)
  key = tostring(key):match("([^.]*)$")
  if key == "bytes" or key:match("_bytes$") then return "bytes" end
  if key == "seconds" or key:match("_s$") then return "s" end
  if key == "mfu" or key:match("_share$") then return "%" end
  if key:match("_per_s") then return "tokens/s" end
  if key == "params" or key:match("_params$") then return "params" end
  return nil
end

--- The value at a (dotted) key of a row.
function format.get(row, key)
  if type(key) ~= "string" or not key:find(".", 1, true) then return row[key] end
  local v = row
  for part in key:gmatch("[^.]+") do
    if type(v) ~= "table" then return nil end
    v = v[part]
  end
  return v
end

-- The default title of a column: its key without the unit's suffix.
local function title_of(key)
  local t = tostring(key):gsub("_bytes$", ""):gsub("_s$", "")
  return t
end

--- Columns as tables `{key, title, unit, format}`.
-- @tparam[opt] table columns keys or column tables (nil: the rows' keys, sorted)
-- @tparam table rows the rows (for the default)
function format.columns(columns, rows)
  if columns == nil then
    local seen, keys = {}, {}
    for _, row in ipairs(rows) do
      for k, v in pairs(row) do
        if type(k) == "string" and type(v) ~= "table" and not seen[k] then
          seen[k] = true
          keys[#keys + 1] = k
        end
      end
    end
    table.sort(keys)
    columns = keys
  end
  local out = {}
  for i, c in ipairs(columns) do
    local col = type(c) == "table" and c or { key = c }
    local key = col.key or col[1]
    out[i] = { key = key, title = col.title or title_of(key), unit = col.unit or format.unit_of(key),
               format = col.format, digits = col.digits }
  end
  return out
end

local count_text = units.count

-- The unit bytes print in: GiB from 1 GiB up, else MiB.
local function byte_unit(largest)
  return largest >= 2 ^ 30 and "GiB" or "MiB"
end

--- A number in a unit, with the unit's name.
-- @tparam number v the value
-- @tparam string unit bytes (with `largest`, the column's), GiB, MiB, s, %, tokens/s, params
-- @tparam[opt] number largest the largest value beside it (for bytes)
-- @tparam[opt] integer digits after the point (GiB, MiB, s and %; default
--   2, 1, units.seconds' and 1)
function format.value(v, unit, largest, digits)
  if type(v) ~= "number" then return format.plain(v) end
  if unit == "bytes" then unit = byte_unit(largest or math.abs(v)) end
  if unit == "GiB" then return units.gib(v, digits) end
  if unit == "MiB" then return units.mib(v, digits) end
  if unit == "s" then return digits and string.format("%." .. digits .. "f s", v) or units.seconds(v) end
  if unit == "%" then return string.format("%." .. (digits or 1) .. "f %%", 100 * v) end
  if unit == "tokens/s" then return string.format("%.0f tokens/s", v) end
  if unit == "params" then return count_text(v) end
  local text = format.plain(v)
  if unit and unit ~= "" then text = text .. " " .. unit end
  return text
end

--- A value with no unit: integers as they are, floats to 4 significant
-- digits, booleans as yes / no, nil as "-".
function format.plain(v)
  if v == nil then return "-" end
  if type(v) == "boolean" then return v and "yes" or "no" end
  if math.type(v) == "float" then
    if v == math.floor(v) and math.abs(v) < 1e15 then return string.format("%d", v) end
    return string.format("%.4g", v)
  end
  return tostring(v)
end

-- The largest absolute number of a column (for its byte unit).
local function largest(rows, key)
  local most = 0
  for _, row in ipairs(rows) do
    local v = format.get(row, key)
    if type(v) == "number" then most = math.max(most, math.abs(v)) end
  end
  return most
end

-- The text of one cell.
local function cell(row, col, most)
  local v = format.get(row, col.key)
  if col.format then return tostring(col.format(v, row)) end
  if v == nil then return "-" end
  if col.unit == "row" then
    return format.value(v, row.unit, row.unit == "bytes" and row.largest or nil)
  end
  return format.value(v, col.unit, most, col.digits)
end

--- The lines of a table: a header, then one line a row, two spaces
-- between columns; a column holding numbers right aligned, one of text
-- alone left aligned.
-- @tparam table rows a list of tables
-- @tparam[opt] table columns keys or column tables (see the module)
-- @treturn table the lines
function format.lines(rows, columns)
  local cols = format.columns(columns, rows)
  local cells, widths, right, most = {}, {}, {}, {}
  for j, col in ipairs(cols) do
    widths[j] = #col.title
    right[j] = false
    most[j] = col.unit == "bytes" and largest(rows, col.key) or nil
  end
  for i, row in ipairs(rows) do
    cells[i] = {}
    for j, col in ipairs(cols) do
      local text = cell(row, col, most[j])
      cells[i][j] = text
      widths[j] = math.max(widths[j], utf8.len(text) or #text)
      if type(format.get(row, col.key)) == "number" then right[j] = true end
    end
  end
  local function line(texts)
    local parts = {}
    for j, t in ipairs(texts) do
      local pad = string.rep(" ", widths[j] - (utf8.len(t) or #t))
      parts[j] = right[j] and (pad .. t) or (t .. pad)
    end
    return (table.concat(parts, "  "):gsub("%s+$", ""))
  end
  local titles = {}
  for j, col in ipairs(cols) do titles[j] = col.title end
  local lines = { line(titles) }
  for i = 1, #rows do lines[#lines + 1] = line(cells[i]) end
  return lines
end

return format
