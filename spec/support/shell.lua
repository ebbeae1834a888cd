-- shell.lua: what the transcript runner (spec/cli/run.lua) and the bad-input
-- corpus runner (spec/bad/run.lua) share: quoting, capturing a command's
-- output, and a directory whose `ndlua` runs the binary under test (wrapped
-- by $NDLUA_WRAPPER, e.g. valgrind, when that is set). Run from the root.
local shell = {}

--- `s` as one word for sh.
function shell.quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

--- The output of `cmd`, less its last line break.
function shell.capture(cmd)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  p:close()
  return (out:gsub("\n$", ""))
end

shell.ROOT = shell.capture("pwd")

--- `path` made absolute against the root.
function shell.absolute(path)
  if path:sub(1, 1) == "/" then return path end
  return shell.ROOT .. "/" .. path:gsub("^%./", "")
end

--- The binary under test ($NDLUA, default ./ndlua) and its wrapper.
shell.NDLUA = shell.absolute(os.getenv("NDLUA") or "./ndlua")
shell.WRAPPER = os.getenv("NDLUA_WRAPPER") or ""

--- A fresh directory holding an `ndlua` that runs the binary under test;
-- the caller removes it.
function shell.make_bindir()
  local dir = shell.capture("mktemp -d")
  local f = assert(io.open(dir .. "/ndlua", "w"))
  f:write("#!/bin/sh\nexec ", shell.WRAPPER, " ", shell.quote(shell.NDLUA), ' "$@"\n')
  f:close()
  os.execute("chmod +x " .. shell.quote(dir .. "/ndlua"))
  return dir
end

return shell
