-- run.lua: runs the bad-input corpus (spec/bad/) and reports it as TAP.
-- The format of a case is in spec/bad/README.md; in short, a case is a file
-- (or a directory holding a file named CASE) whose first lines are
--
--   # run: ndlua estimate.lua $CASE -d 8
--   # expect: exit 2, "accelerator.tp_size", "a positive whole number"
--   # needs: estimate.lua            (optional: skipped until it exists)
--   # todo: why it fails today       (optional: a known fault, not counted failed)
--
-- Each case runs in a fresh temporary directory holding a copy of it, which
-- is also $HOME; $CASE is the case file's name there, $ROOT the repository,
-- `ndlua` on $PATH the binary under test (wrapped by $NDLUA_WRAPPER, e.g.
-- valgrind). A case passes when the command exits with the expected status
-- and its output (stdout and stderr) holds every fragment, and holds no
-- traceback and no sanitizer report.
--
-- Usage: ndlua spec/bad/run.lua [DIR]   (default spec/bad)
-- BAD_VERBOSE=1 shows the output of the cases that pass too.

local shell = dofile("spec/support/shell.lua")
local shell_quote, capture, make_bindir = shell.quote, shell.capture, shell.make_bindir
local ROOT = shell.ROOT
local IS_ROOT = capture("id -u") == "0"
-- Root reads files whatever their mode, so a case that needs a user other
-- than root runs, under root, as this one (nobody), through setpriv: the
-- permission cases then run in CI too rather than pass by being skipped.
local OTHER_UID = 65534
local SETPRIV = IS_ROOT and capture("command -v setpriv 2>/dev/null") or ""

-- The cases under dir: files with a "# run:" header, and directories with a CASE file.
local function list_cases(dir)
  local cases = {}
  local p = assert(io.popen("find " .. shell_quote(dir) .. " -mindepth 2 \\( -name CASE -o -type f \\) | sort"))
  for path in p:lines() do
    local parent = path:match("^(.*)/[^/]*$")
    if path:match("/CASE$") then
      cases[#cases + 1] = { name = parent, dir = parent, file = "CASE", header = path }
    elseif not io.open(parent .. "/CASE") then
      local f = io.open(path)
      local first = f and f:read("l")
      if f then f:close() end
      if first and first:match("^[#-]+ run: ") then
        cases[#cases + 1] = { name = path, file = path:match("[^/]*$"), header = path, single = true }
      end
    end
  end
  p:close()
  return cases
end

-- Reads the header: run, expect (status and fragments), needs, todo.
local function read_header(case)
  local spec = { needs = {}, fragments = {} }
  for line in io.lines(case.header) do
    local key, value = line:match("^[#-]+ (%a+): (.*)$")
    if not key then break end
    if key == "run" then
      spec.run = value
    elseif key == "expect" then
      spec.status = tonumber(value:match("^exit (%d+)"))
      for fragment in value:gmatch('"(.-)"') do spec.fragments[#spec.fragments + 1] = fragment end
    elseif key == "needs" then
      for need in value:gmatch("[^,%s]+") do spec.needs[#spec.needs + 1] = need end
    elseif key == "todo" then
      spec.todo = value
    end
  end
  assert(spec.run and spec.status, case.header .. ": a case needs '# run:' and '# expect: exit N'")
  return spec
end

-- Why the case cannot run here, or nil.
local function missing_need(spec)
  for _, need in ipairs(spec.needs) do
    if need == "non-root" then
      spec.as_other_user = IS_ROOT
    elseif not io.open(ROOT .. "/lua/" .. need) then
      return "needs " .. need
    end
  end
  return nil
end

-- Runs the case in a copy; returns its output and exit status. A case that
-- needs a user other than root runs, under root, as OTHER_UID in a copy it
-- owns; without setpriv it fails, saying so.
local function run_case(case, spec, bindir)
  if spec.as_other_user and SETPRIV == "" then
    return "cannot run as a user other than root: no setpriv (util-linux) on this machine", -1
  end
  local tmp = capture("mktemp -d")
  local source = case.single and case.name or (case.dir .. "/.")
  os.execute("cp -R " .. shell_quote(source) .. " " .. shell_quote(tmp .. "/"))
  local prefix
  if spec.as_other_user then
    os.execute(string.format("chown -R %d:%d %s && chmod 755 %s", OTHER_UID, OTHER_UID, shell_quote(tmp),
                             shell_quote(bindir)))
    prefix = string.format("%s --reuid=%d --regid=%d --clear-groups", SETPRIV, OTHER_UID, OTHER_UID)
  end
  local out, status = shell.run(tmp, ".bad-input-command", shell.environment(bindir, tmp, { CASE = case.file }), spec.run,
                                prefix)
  os.execute("chmod -R u+rwX " .. shell_quote(tmp) .. " 2>/dev/null; rm -rf " .. shell_quote(tmp))
  return out, status
end

-- What is wrong with the outcome, or nil.
local function judge(spec, out, status)
  local problems = {}
  if status ~= spec.status then
    problems[#problems + 1] = "expected exit " .. spec.status .. ", got " .. tostring(status)
  end
  for _, fragment in ipairs(spec.fragments) do
    if not out:find(fragment, 1, true) then problems[#problems + 1] = "no \"" .. fragment .. "\" in the output" end
  end
  for _, bad in ipairs({ "stack traceback", "AddressSanitizer", "runtime error:", "LeakSanitizer", "==%d+==" }) do
    if out:find(bad) then problems[#problems + 1] = "the output holds " .. bad end
  end
  return #problems > 0 and problems or nil
end

local function report(n, case, spec, out, problems)
  local title = string.format("%d - %s", n, case.name)
  if spec.todo then title = title .. " # TODO " .. spec.todo end
  if not problems then
    print("ok " .. title)
    if os.getenv("BAD_VERBOSE") then
      for line in out:gmatch("[^\n]+") do print("#   " .. line) end
    end
    return true
  end
  print("not ok " .. title)
  print("# run: " .. spec.run)
  for _, p in ipairs(problems) do print("# " .. p) end
  for line in out:gmatch("[^\n]+") do print("#   " .. line) end
  return spec.todo ~= nil
end

local function main(dir)
  dir = dir or "spec/bad"
  local bindir = make_bindir()
  local cases = list_cases(dir)
  local failed = 0
  for n, case in ipairs(cases) do
    local spec = read_header(case)
    local why = missing_need(spec)
    if why then
      print(string.format("ok %d - %s # SKIP %s", n, case.name, why))
    else
      local out, status = run_case(case, spec, bindir)
      if not report(n, case, spec, out, judge(spec, out, status)) then failed = failed + 1 end
    end
  end
  os.execute("rm -rf " .. shell_quote(bindir))
  print("1.." .. #cases)
  os.exit(failed == 0 and 0 or 1)
end

main(arg[1])
