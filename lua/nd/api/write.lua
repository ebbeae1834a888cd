--- The writers of the nd API (nd.write_csv, nd.write_json, nd.write_yaml,
-- nd.write_svg) and nd.print_table, each checking its arguments first
-- (nd.api.check). nd.api calls them here at their first use (a tail call,
-- so an argument error names the script's line, as a direct call's would): estimate.lua
-- and most studies print through their own lines and load none of this.
-- The reference is lua/nd/init.lua's.
-- @module nd.api.write

local core = require "nd.core"
local check = require "nd.api.check"
local files = require "nd.files"

local write = {}

-- Writes a whole output: "-" to standard output (a failed write there is
-- seen when ndlua closes it at exit: "ndlua: cannot write the standard
-- output", status 2), any other path through nd.files.write, the command
-- line's writer (a temporary file beside it, every step checked, renamed
-- over it only once whole, so a failure leaves the old file as it was and
-- raises a bad-input error naming the file).
local function write_text(path, text, what)
  if path == "-" then return io.stdout:write(text) end
  files.write(path, text, what)
end

--- Whether rows are nd.search's candidates (they print and write as
-- search.lua's do: nd.report.table, nd.report.csv).
function write.are_candidates(rows)
  local c = rows[1]
  return type(c) == "table" and type(c.parts) == "table" and c.rank ~= nil and c.dp ~= nil
end

--- Rows as CSV: see nd.write_csv.
function write.write_csv(path, rows, columns)
  check.arg("nd.write_csv", 1, "path", path, "string")
  check.arg("nd.write_csv", 2, "rows", rows, "table")
  check.arg("nd.write_csv", 3, "columns", columns, "table", true)
  if columns == nil and write.are_candidates(rows) then
    local csv_report = require "nd.report.csv"
    local lines = { csv_report.header() }
    for _, c in ipairs(rows) do lines[#lines + 1] = csv_report.row(c) end
    return write_text(path, table.concat(lines, "\n") .. "\n", "the CSV")
  end
  local csv_cell = require("nd.report.csv").cell
  local format = require "nd.study.format" -- loaded here: nd's start writes no CSV
  local cols = format.columns(columns, rows)
  local lines, head = {}, {}
  for j, col in ipairs(cols) do head[j] = csv_cell(col.key) end
  lines[1] = table.concat(head, ",")
  for i, row in ipairs(rows) do
    local cells = {}
    for j, col in ipairs(cols) do cells[j] = csv_cell(format.get(row, col.key)) end
    lines[i + 1] = table.concat(cells, ",")
  end
  write_text(path, table.concat(lines, "\n") .. "\n", "the CSV")
end

--- A value as JSON: see nd.write_json.
function write.write_json(path, value)
  check.arg("nd.write_json", 1, "path", path, "string")
  write_text(path, core.json.encode(value, { indent = 2 }) .. "\n", "the JSON")
end

--- A value as YAML: see nd.write_yaml.
function write.write_yaml(path, value)
  check.arg("nd.write_yaml", 1, "path", path, "string")
  write_text(path, core.yaml.encode(value), "the YAML")
end

--- SVG text to a file: see nd.write_svg.
function write.write_svg(path, text)
  check.arg("nd.write_svg", 1, "path", path, "string")
  check.arg("nd.write_svg", 2, "svg", text, "string")
  if not text:find("<svg", 1, true) then
    check.fail("nd.write_svg", 2, "svg", "SVG text (from nd.study or nd.svg)", text)
  end
  if path == "-" then return write_text(path, text, "the chart") end
  require("nd.svg").write(path, text)
end

--- Rows as a table with units: see nd.print_table.
function write.print_table(rows, columns, opts)
  if columns == nil and type(rows) == "table" and write.are_candidates(rows) then
    local out = type(opts) == "table" and opts.out or io.stdout
    for _, line in ipairs(require("nd.report.table").table(rows)) do out:write(line, "\n") end
    return
  end
  return require("nd.study").print_table(rows, columns, opts)
end


return write
