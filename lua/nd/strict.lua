--- --strict, one meaning for every script: the answer is printed as
-- always, then the run exits with status 2 when anything would make it the
-- wrong answer to act on unattended (CI): the layout does not fit its
-- device, a key of the input is unknown (no rule reads it) or unpriced
-- (read by the trainer, not by ndlua), or a candidate list was widened to
-- find an answer. The warnings that stand for the last three carry a kind
-- (nd.warnings' `warn(path, message, kind)`); a script adds what only it
-- knows (the fit) as extra problems.
--
--   local strict = require "nd.strict"
--   COMMAND.options[#COMMAND.options + 1] = strict.OPTION
--   ... print the answer ...
--   strict.finish(opts, collector, { est.fits and nil or "does not fit: ..." })
-- @module nd.strict

local errors = require "nd.errors"

local strict = {}

--- The option every script declares (nd.cli).
strict.OPTION = { name = "strict", help = "exit 2 after the answer when the layout does not fit, a key is unknown "
  .. "or unpriced, or a candidate list was widened" }

--- The warning kinds --strict refuses, and how each is named.
strict.KINDS = { unknown = "unknown key", unpriced = "unpriced key", widened = "widened list" }

--- The problems --strict refuses: each warning of a refused kind, as
-- "KIND: TEXT", then the extra ones given (strings; nil entries skipped).
-- @tparam table w a warnings collector
-- @tparam[opt] table extra {n = count, ...} or an array
-- @treturn table the problems, in order
function strict.problems(w, extra)
  local out = {}
  for _, k in ipairs(w:all_kinds()) do
    local name = strict.KINDS[k.kind or ""]
    if name then out[#out + 1] = name .. ": " .. k.text end
  end
  extra = extra or {}
  for i = 1, extra.n or #extra do
    if extra[i] then out[#out + 1] = extra[i] end
  end
  return out
end

--- Under --strict, raises a bad-input error (exit status 2) listing the
-- problems, after the answer has been printed; otherwise does nothing.
-- @tparam table opts the script's options (opts.strict)
-- @tparam table w a warnings collector
-- @tparam[opt] table extra more problems (strict.problems)
function strict.finish(opts, w, extra)
  if not opts.strict then return end
  local list = strict.problems(w, extra)
  if #list == 0 then return end
  errors.raise { message = string.format("--strict: %d problem%s:\n  %s", #list, #list == 1 and "" or "s",
                                         table.concat(list, "\n  ")) }
end

return strict
