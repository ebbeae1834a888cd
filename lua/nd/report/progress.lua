--- A progress bar on stderr for a long search: drawn only when stderr is a
-- terminal and the search has run half a second, cleared at the end.
-- @module nd.report.progress

local progress = {}

local tty -- whether stderr is a terminal, asked once

--- Whether stderr is a terminal (isatty(2), asked once).
function progress.stderr_is_tty()
  if tty == nil then tty = require("nd.core").isatty(2) end
  return tty
end

--- A progress function for nd.core.search, or nil when stderr is no terminal.
-- @treturn function|nil the function (share done -> nil)
-- @treturn function|nil a function that clears the bar when the search ends
function progress.new(label, stream)
  stream = stream or io.stderr
  if stream == io.stderr and not progress.stderr_is_tty() then return nil, nil end
  local start, shown = os.clock(), false
  local width = 40
  local function update(done)
    if not shown and os.clock() - start < 0.5 then return false end
    shown = true
    local filled = math.floor(done * width + 0.5)
    stream:write(string.format("\r%s [%s%s] %3d%%", label, string.rep("#", filled), string.rep(".", width - filled),
                               math.floor(done * 100 + 0.5)))
    stream:flush()
    return false
  end
  local function finish()
    if shown then
      stream:write("\r\27[K")
      stream:flush()
    end
  end
  return update, finish
end

return progress
