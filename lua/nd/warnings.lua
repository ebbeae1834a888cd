--- Warnings: each printed once to stderr as `warning: ...` and kept for reports.
-- A collector is made per run of a command; library functions take one and
-- call `warn`. The same text is printed and kept once, however often it is
-- raised.
-- @module nd.warnings

local warnings = {}

local Collector = {}
Collector.__index = Collector

--- A new collector.
-- @tparam[opt] table opts `echo` (default true): print each new warning to
-- stderr as it is raised; `stream`: where to print (default io.stderr)
function warnings.new(opts)
  opts = opts or {}
  local c = setmetatable({ list = {}, kinds = {}, seen = {}, stream = opts.stream or io.stderr }, Collector)
  c.echo = opts.echo ~= false
  return c
end

--- Raises a warning.
-- @tparam[opt] string path the key path it is about (shown first)
-- @tparam string message what the user should know
-- @tparam[opt] string kind what --strict makes of it (nd.strict.KINDS:
-- "unknown" key, "unpriced" key, "widened" list); nil for the others
function Collector:warn(path, message, kind)
  if message == nil then path, message = nil, path end
  local text = path and path ~= "" and (path .. ": " .. message) or message
  if self.seen[text] then return end
  self.seen[text] = true
  self.list[#self.list + 1] = text
  self.kinds[#self.list] = kind
  if self.echo then self:flush() end
end

--- Prints the warnings not printed yet: a quiet collector's, once what it
-- held back may be shown (an echoing collector has printed each already).
function Collector:flush()
  for i = (self.flushed or 0) + 1, #self.list do self.stream:write("warning: ", self.list[i], "\n") end
  self.flushed = #self.list
end

--- The warnings raised so far, in order (a new array of strings).
function Collector:all()
  local out = {}
  for i, w in ipairs(self.list) do out[i] = w end
  return out
end

--- The warnings raised so far with their kinds: `{ {text =, kind =}, ... }`.
function Collector:all_kinds()
  local out = {}
  for i, w in ipairs(self.list) do out[i] = { text = w, kind = self.kinds[i] } end
  return out
end

--- A collector that keeps warnings without printing them (for tests and libraries).
function warnings.quiet()
  return warnings.new { echo = false }
end

return warnings
