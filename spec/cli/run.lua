-- run.lua: runs ndlua's CLI transcript tests and reports them as TAP.
--
-- A transcript (spec/cli/*.t) reads like a terminal session, as cram's do:
--
--   Text at the left margin is commentary.
--     $ ndlua -e 'print(1 + 1)'
--     2
--     $ ndlua -e 'nd.fail("no")'
--     no
--     [2]
--
-- A command is an indented line starting with "$ " (continued by "> "
-- lines); the indented lines after it are its expected output, standard
-- output and standard error together, ending with "[N]" when it exits with
-- status N other than 0. An expected line ending in " (glob)" may use * and
-- ?; one ending in " (re)" is a Lua pattern. Each file runs in a fresh
-- temporary directory that is also $HOME, with $ROOT the repository and
-- $TESTDIR the directory of the transcript; `ndlua` on $PATH is the binary
-- under test, wrapped by $NDLUA_WRAPPER (e.g. valgrind) when that is set, and
-- $NDLUA is that binary itself (an absolute path, never $ROOT/ndlua, so that
-- `make asan` runs its sanitized build there too).
--
-- Usage: ndlua spec/cli/run.lua [--update] FILE.t...
-- --update writes each failing block's output back into its transcript as
-- its expected output (an expected line the output still matches, a glob
-- or a pattern, is kept): for a change whose every new number was checked.

local shell = dofile("spec/support/shell.lua")
local shell_quote, capture, make_bindir, absolute = shell.quote, shell.capture, shell.make_bindir, shell.absolute

-- Splits a transcript into blocks {line = n, command = text, expected = {...}}.
local function parse(path)
  local blocks, current = {}, nil
  local n = 0
  for line in io.lines(path) do
    n = n + 1
    local cmd = line:match("^  %$ (.*)$")
    local more = line:match("^  > (.*)$")
    if cmd then
      current = { line = n, command = cmd, expected = {} }
      blocks[#blocks + 1] = current
    elseif more and current and #current.expected == 0 then
      current.command = current.command .. "\n" .. more
    elseif line:match("^  ") and current then
      current.expected[#current.expected + 1] = line:sub(3)
    elseif line == "  " and current then
      current.expected[#current.expected + 1] = ""
    else
      current = nil
    end
  end
  return blocks
end

local function glob_to_pattern(glob)
  local escaped = glob:gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0")
  return "^" .. escaped:gsub("%*", ".*"):gsub("%?", ".") .. "$"
end

local function line_matches(want, got)
  if want == got then return true end
  local glob = want:match("^(.*) %(glob%)$")
  if glob then return got:match(glob_to_pattern(glob)) ~= nil end
  local re = want:match("^(.*) %(re%)$")
  if re then return got:match("^" .. re .. "$") ~= nil end
  return false
end

local function run_block(block, env, tmp)
  local out, status = shell.run(tmp, ".transcript-command", env, block.command)
  local lines = {}
  for l in (out .. (out:sub(-1) == "\n" and "" or "\n")):gmatch("(.-)\n") do
    lines[#lines + 1] = l
  end
  if out == "" then lines = {} end
  if status ~= 0 then lines[#lines + 1] = "[" .. tostring(status) .. "]" end
  return lines
end

local function compare(expected, got)
  if #expected ~= #got then return false end
  for i = 1, #expected do
    if not line_matches(expected[i], got[i]) then return false end
  end
  return true
end

local UPDATE = false

local function rewrite(file, fixes)
  if #fixes == 0 then return end
  local lines = {}
  for line in io.lines(file) do lines[#lines + 1] = line end
  table.sort(fixes, function(a, b) return a.block.line > b.block.line end)
  for _, f in ipairs(fixes) do
    local first = f.block.line + select(2, f.block.command:gsub("\n", "")) + 1
    local n = #f.block.expected
    for _ = 1, n do table.remove(lines, first) end
    for i = #f.got, 1, -1 do
      local want = f.block.expected[i]
      local l = f.got[i]
      if want and line_matches(want, l) then l = want end
      table.insert(lines, first, l == "" and "  " or "  " .. l)
    end
  end
  local out = io.open(file, "w")
  out:write(table.concat(lines, "\n"), "\n")
  out:close()
end

local function main(files)
  local bindir = make_bindir()
  local count, failed = 0, 0
  for _, file in ipairs(files) do
    local tmp = capture("mktemp -d")
    local testdir = absolute(file):match("^(.*)/[^/]*$")
    local env = shell.environment(bindir, tmp, { TESTDIR = testdir })
    local fixes = {}
    for _, block in ipairs(parse(file)) do
      count = count + 1
      local got = run_block(block, env, tmp)
      local title = string.format("%s:%d: %s", file, block.line, block.command:gsub("\n.*", " ..."))
      if compare(block.expected, got) then
        print(string.format("ok %d - %s", count, title))
      else
        failed = failed + 1
        fixes[#fixes + 1] = { block = block, got = got }
        print(string.format("not ok %d - %s", count, title))
        print("# expected:")
        for _, l in ipairs(block.expected) do print("#   " .. l) end
        print("# got:")
        for _, l in ipairs(got) do print("#   " .. l) end
      end
    end
    os.execute("rm -rf " .. shell_quote(tmp))
    if UPDATE then rewrite(file, fixes) end
  end
  os.execute("rm -rf " .. shell_quote(bindir))
  print("1.." .. count)
  os.exit(failed == 0 and 0 or 1)
end

local files = { ... }
if files[1] == "--update" then
  UPDATE = true
  table.remove(files, 1)
end
main(files)
