--- Every fitting candidate of a search as CSV, best first (--csv FILE).
-- Columns: rank, the degrees (dp tp pp vpp cp ep etp op sp mb mbs),
-- recompute, peak_bytes, peak_stage, step_time_s, mfu,
-- tokens_per_s_per_device, nd_score, score, kept, then the time parts in
-- seconds (forward_s ... bubble_s, optimizer_s). Numbers at full precision.
-- @module nd.report.csv

local core = require "nd.core"
local table_report = require "nd.report.table"

local csv = {}

--- The columns before the time parts: rank, the degrees in the reports'
-- order (nd.core.search_columns: the search dimensions and the run's etp),
-- then the candidate's recompute, peak, time and scores.
csv.COLUMNS = { "rank" }
for _, col in ipairs(core.search_columns) do csv.COLUMNS[#csv.COLUMNS + 1] = col.key end
table.move({ "recompute", "peak_bytes", "peak_stage", "step_time_s", "mfu", "tokens_per_s_per_device", "nd_score",
             "score", "kept" }, 1, 9, #csv.COLUMNS + 1, csv.COLUMNS)

--- One CSV cell: nothing for nil or JSON null, numbers at full precision
-- (a float as the first of %.15g, %.16g, %.17g that reads back as it:
-- nd.core.float_text, in C, as a search's CSV formats some 16 floats a row), text
-- quoted when it holds a comma, a quote or a line break.
function csv.cell(v)
  if v == nil or (type(v) == "userdata" and core.isnull(v)) then return "" end
  if type(v) == "boolean" then return v and "true" or "false" end
  local kind = math.type(v)
  if kind == "float" then return core.float_text(v) end
  if kind == "integer" then return tostring(v) end
  local text = tostring(v)
  if text:find('[,"\n]') then text = '"' .. text:gsub('"', '""') .. '"' end
  return text
end
local cell = csv.cell

--- The header line.
function csv.header()
  local cols = {}
  for i, c in ipairs(csv.COLUMNS) do cols[i] = c end
  for _, p in ipairs(table_report.PARTS) do cols[#cols + 1] = p[1] end
  return table.concat(cols, ",")
end

--- One candidate's line.
function csv.row(c)
  local cells = {}
  for i, col in ipairs(csv.COLUMNS) do cells[i] = cell(c[col]) end
  for _, p in ipairs(table_report.PARTS) do cells[#cells + 1] = cell(c.parts[p[1]]) end
  return table.concat(cells, ",")
end

-- Rows a chunk of the file holds: the file is written as it is made, so
-- a search of hundreds of thousands of candidates holds one chunk of text
-- at a time, not the whole file.
local ROWS_A_CHUNK = 1024

--- Writes every fitting candidate of a (sorted) result to `path`.
-- @tparam string path the file
-- @tparam integer n the candidates
-- @tparam function get `get(i)` -> the i-th candidate
function csv.write(path, n, get)
  local done = -1 -- the header is row 0
  local function chunk()
    if done >= n then return nil end
    local lines = {}
    if done < 0 then lines[1], done = csv.header(), 0 end
    while done < n and #lines < ROWS_A_CHUNK do
      done = done + 1
      lines[#lines + 1] = csv.row(get(done))
    end
    lines[#lines + 1] = ""
    return table.concat(lines, "\n")
  end
  require("nd.files").write(path, chunk, "the CSV")
end

--- Writes every fitting candidate of a (sorted) search result to `path`,
-- its lines made in C from the result's records (result:write_csv,
-- src/search/search_csv.c): the same text as `csv.write` of its candidates
-- (search.candidate), some ten times faster on a search of hundreds of
-- thousands of candidates.
-- @tparam string path the file
-- @tparam userdata result nd.core.search's result
-- @tparam boolean spans_cp the run's shard spans CP (search.effective_op)
-- @tparam[opt] integer rows the first rows only (--csv-limit; default all)
function csv.write_result(path, result, spans_cp, rows)
  local ok, err = result:write_csv(path, csv.header() .. "\n", spans_cp and true or false, rows)
  if not ok then
    require("nd.errors").raise { path = path, message = err .. "; the CSV was not written" }
  end
end

return csv
