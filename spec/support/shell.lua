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

--- The lines that set up a command's environment: what would change
-- ndlua's behaviour unset; PATH with `bindir` first, ROOT, HOME, NDLUA (the
-- binary under test itself, absolute, for a command that must not run under
-- the wrapper), a plain locale and terminal, and `extra` ({NAME = value})
-- exported.
function shell.environment(bindir, home, extra)
  local set = { PATH = bindir .. ":" .. (os.getenv("PATH") or "/usr/bin:/bin"), ROOT = shell.ROOT, HOME = home,
                NDLUA = shell.NDLUA,
                LC_ALL = "C", COLUMNS = "100", TERM = "dumb" }
  for k, v in pairs(extra) do set[k] = v end
  local names = {}
  for k in pairs(set) do names[#names + 1] = k end
  table.sort(names)
  local lines = { "unset HF_HOME HF_HUB_CACHE NDLUA_PATH NDLUA_TRACEBACK LUA_PATH LUA_PATH_5_4 NDLUA_WRAPPER "
                  .. "XDG_CACHE_HOME" }
  for _, k in ipairs(names) do lines[#lines + 1] = "export " .. k .. "=" .. shell.quote(set[k]) end
  return table.concat(lines, "\n") .. "\n"
end

--- Runs `command` with sh in `dir` (from a script written there as `name`)
-- after `env`; returns its output (stdout and stderr) and exit status.
-- `prefix` (optional) runs sh through it (setpriv ... to change user).
function shell.run(dir, name, env, command, prefix)
  local script = dir .. "/" .. name
  local f = assert(io.open(script, "w"))
  f:write(env, "cd ", shell.quote(dir), " || exit 99\n", command, "\n")
  f:close()
  local p = assert(io.popen((prefix and (prefix .. " ") or "") .. "sh " .. shell.quote(script) .. " 2>&1"))
  local out = p:read("a")
  local _, _, status = p:close()
  return out, status
end

return shell
