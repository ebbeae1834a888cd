The ndlua executable: options, running scripts, and what it prints and returns
when a script fails. (Format: spec/cli/run.lua.)

Version and help. The version is the Makefile's VERSION:

  $ ndlua -v
  ndlua * (Lua 5.4.*) (glob)
  $ ndlua -v | grep -c "^ndlua $(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile") "
  1

$NDLUA is the binary under test itself, by an absolute path (the runner
sets it; `make asan` sets it to ndlua-asan): a case that must run without
$NDLUA_WRAPPER names it, never $ROOT/ndlua, which a fresh clone's
`make asan` has not built. No transcript names $ROOT/ndlua:

  $ case "$NDLUA" in /*) "$NDLUA" -v | sed 's/ .*//' ;; *) echo "relative: $NDLUA" ;; esac
  ndlua
  $ grep -l '^  [$>] .*ROOT[/]ndlua' "$ROOT"/spec/cli/*.t | wc -l
  0

  $ ndlua -h
  usage: ndlua [options] [SCRIPT [args...]]
  
  Runs a Lua script with the nd module (require "nd") loaded.
  
  options:
    -e CODE   run CODE, then the script if one is given
    -v        print the version and exit
    -h        print this help and exit
    --        stop reading options
    -         as SCRIPT: read the script from standard input
  
  With no SCRIPT and a terminal, ndlua starts an interactive prompt.
  
  SCRIPT is taken as a path, else looked up by name (search, search.lua) in:
    */lua  (source tree) (glob)
  
  scripts:
    balance.lua  per pipeline stage and chunk the layers and their recompute options that fit and give the least step, proved optimal
    compare.lua  ndlua's estimate of a run against what the run measured, stage by stage of the pipeline, and a calibration fitted on it (-c)
    estimate.lua the memory every device needs to run the one strategy a train.yaml states, stage by stage of the pipeline
    search.lua   the parallel strategies of a train.yaml's model that fit the device memory, ranked by a policy (default: the fastest estimated step)
    verify.lua   prints the model a train.yaml, a hub id or a checkpoint directory resolves to
  
  environment:
    NDLUA_PATH       extra script and library directories, colon separated
    NDLUA_TRACEBACK  set to 1 to print a traceback with Lua errors
    LUA_PATH         honoured as by lua (;; is the default path)

Bad options exit 2:

  $ ndlua -x
  ndlua: unknown option '-x' (try ndlua -h)
  [2]
  $ ndlua -e
  ndlua: -e needs a chunk of Lua code
  [2]

With no script and no terminal, ndlua prints its usage and exits 2:

  $ ndlua < /dev/null 2>&1 | head -1
  usage: ndlua [options] [SCRIPT [args...]]
  $ ndlua < /dev/null > /dev/null 2>&1
  [2]

-e runs a chunk, with nd available through require:

  $ ndlua -e 'print(1 + 1)'
  2
  $ ndlua -e 'local nd = require "nd"; print(nd.yaml.decode("a: [1, 2.5, on]").a[3])'
  true

- reads the script from standard input:

  $ echo 'print("from stdin", ...)' | ndlua - a b
  from stdin	a	b

The arg table and the script's ... are what lua5.4 gives (each listing skips
the interpreter's own name, which differs):

  $ cat > args.lua <<'EOF'
  > local lo = 0
  > while arg[lo - 1] do lo = lo - 1 end
  > for i = lo + 1, #arg do io.write(i, "=", arg[i], " ") end
  > print("| ...:", select("#", ...), ...)
  > EOF
  $ ndlua args.lua x 'y z' > nd.out; lua5.4 args.lua x 'y z' > lua.out; cmp nd.out lua.out && cat nd.out
  0=args.lua 1=x 2=y z | ...:	2	x	y z
  $ ndlua -e 'n = 1' args.lua -v > nd.out; lua5.4 -e 'n = 1' args.lua -v > lua.out; cmp nd.out lua.out && cat nd.out
  -2=-e -1=n = 1 0=args.lua 1=-v | ...:	1	-v
  $ ndlua -- args.lua > nd.out; lua5.4 -- args.lua > lua.out; cmp nd.out lua.out && cat nd.out
  -1=-- 0=args.lua | ...:	0
  $ ndlua - q < args.lua > nd.out; lua5.4 - q < args.lua > lua.out; cmp nd.out lua.out && cat nd.out
  0=- 1=q | ...:	1	q
  $ ndlua -e 'print(#arg, arg[1], arg[2])' > nd.out; lua5.4 -e 'print(#arg, arg[1], arg[2])' > lua.out
  $ cmp nd.out lua.out && cat nd.out
  2	-e	print(#arg, arg[1], arg[2])

Script lookup: a path first.

  $ mkdir -p dir && echo 'print("hello from", arg[0])' > dir/hello.lua
  $ ndlua dir/hello.lua
  hello from	dir/hello.lua
  $ ndlua "$HOME/dir/hello.lua" | sed "s|$HOME|HOME|"
  hello from	HOME/dir/hello.lua

Then by name, as NAME or NAME.lua, in each NDLUA_PATH directory in turn; arg[0]
is then the path where the script was found:

  $ NDLUA_PATH="$HOME/dir" ndlua hello | sed "s|$HOME|HOME|"
  hello from	HOME/dir/hello.lua
  $ NDLUA_PATH="$HOME/dir" ndlua hello.lua | sed "s|$HOME|HOME|"
  hello from	HOME/dir/hello.lua
  $ mkdir -p first && printf 'print("the first")\n' > first/hello
  $ NDLUA_PATH="$HOME/none::$HOME/first:$HOME/dir" ndlua hello
  the first
  $ NDLUA_PATH="$HOME/dir:$HOME/first" ndlua hello | sed "s|$HOME|HOME|"
  hello from	HOME/dir/hello.lua

A name with a slash is only a path:

  $ NDLUA_PATH="$HOME/dir" ndlua sub/hello
  ndlua: cannot find script 'sub/hello'; tried:
    sub/hello  (as a path)
  Give a path to the script, or add its directory to NDLUA_PATH.
  [2]

A script found nowhere gets one message listing every place tried:

  $ NDLUA_PATH="$HOME/a:$HOME/b" ndlua nosuch 2>&1 | sed "s|$HOME|HOME|"
  ndlua: cannot find script 'nosuch'; tried:
    nosuch  (as a path)
    HOME/a/nosuch  (NDLUA_PATH)
    HOME/a/nosuch.lua  (NDLUA_PATH)
    HOME/b/nosuch  (NDLUA_PATH)
    HOME/b/nosuch.lua  (NDLUA_PATH)
    */lua/nosuch  (source tree) (glob)
    */lua/nosuch.lua  (source tree) (glob)
  Give a path to the script, or add its directory to NDLUA_PATH.
  $ ndlua nosuch.lua 2>/dev/null
  [2]

require finds modules the same way, and LUA_PATH is honoured (;; is the default):

  $ mkdir -p lib lp && echo 'return {x = "from NDLUA_PATH"}' > lib/mymod.lua
  $ echo 'return {x = "from LUA_PATH"}' > lp/lpmod.lua
  $ NDLUA_PATH="$HOME/lib" ndlua -e 'print(require("mymod").x)'
  from NDLUA_PATH
  $ LUA_PATH="$HOME/lp/?.lua;;" ndlua -e 'print(require("lpmod").x, require("nd").version ~= nil)'
  from LUA_PATH	true
  $ ndlua -e 'print(package.searchpath("nd", package.path))'
  */lua/nd/init.lua (glob)

A Lua error exits 1 and names the script and line:

  $ printf 'local function f()\n  local t = nil\n  return t.x\nend\nf()\n' > err.lua
  $ ndlua err.lua
  ndlua: err.lua:3: attempt to index a nil value (local 't')
  [1]
  $ NDLUA_PATH="$HOME" ndlua err 2>&1 | sed "s|$HOME|HOME|"
  ndlua: HOME/err.lua:3: attempt to index a nil value (local 't')
  $ ndlua -e 'print("printed first"); error("boom")'
  printed first
  ndlua: (command line):1: boom
  [1]

NDLUA_TRACEBACK=1 adds the traceback:

  $ NDLUA_TRACEBACK=1 ndlua err.lua
  ndlua: err.lua:3: attempt to index a nil value (local 't')
  stack traceback:
  	err.lua:3: in local 'f'
  	err.lua:5: in main chunk
  [1]

Error values that are not strings print as lua prints them:

  $ ndlua -e 'error({message = "a table with a message"})'
  ndlua: a table with a message
  [1]
  $ ndlua -e 'error(setmetatable({}, {__tostring = function() return "custom" end}))'
  ndlua: custom
  [1]
  $ ndlua -e 'error()'
  ndlua: (error object is a nil value)
  [1]

A script that does not parse exits 1:

  $ printf 'x = = 1\n' > syntax.lua
  $ ndlua syntax.lua
  ndlua: syntax.lua:1: unexpected symbol near '='
  [1]

Bad input exits 2 with the message alone: nd.fail, an error table marked
bad_input, and nd.errors:

  $ ndlua -e 'require("nd").fail("train.yaml: the model is missing")'
  train.yaml: the model is missing
  [2]
  $ ndlua -e 'error({bad_input = true, message = "x.yaml:1:1: wrong"})'
  x.yaml:1:1: wrong
  [2]
  $ ndlua -e 'require("nd.errors").raise{file = "t.yaml", line = 4, col = 3, path = "a.b", message = "bad"}'
  t.yaml:4:3: a.b: bad
  [2]
  $ NDLUA_TRACEBACK=1 ndlua -e 'require("nd").fail("no traceback for bad input")'
  no traceback for bad input
  [2]

os.exit passes its status through:

  $ ndlua -e 'os.exit(3)'
  [3]
  $ ndlua -e 'os.exit(false)'
  [1]
  $ ndlua -e 'io.write("unflushed"); os.exit(true)'
  unflushed

Lua's warn() is as the stand-alone lua's (lauxlib.c's warning functions,
which ndlua's state keeps though it brings its own allocator,
src/program/state_heap.c): silent until warn("@on"), then each warning on
stderr as "Lua warning: " and its pieces, until warn("@off"); a message
starting with "@" is a control message, never printed:

  $ ndlua -e 'warn("hidden"); warn("@on"); warn("one ", "warning"); warn("@other"); warn("@off"); warn("hidden")' 2>&1
  Lua warning: one warning

On a terminal with no script, ndlua starts an interactive prompt that prints
values and errors and goes on (spec/support/pty_session.py gives it a
terminal and types each line only once the prompt is shown, so the session
reads the same however loaded the machine; script(1), used before, passed
the whole input at once, and its echo fell before or after the first
prompt by timing. Only whole result lines are picked out; each session
ends itself with os.exit):

  $ printf 'x = 41\nx + 1\nnd.yaml.decode("a: off").a\nerror("e")\nfor i = 1, 2 do\nprint(i * 10)\nend\nos.exit(0)\n' > input
  $ TERM=dumb python3 $ROOT/spec/support/pty_session.py ndlua < input > session; tr -d '\r' < session | grep -xE '42|false|ndlua: stdin:1: e|10|20|nd> os.exit\(0\)'
  42
  false
  ndlua: stdin:1: e
  10
  20
  nd> os.exit(0)

Tables print laid out by nd.pretty (keys sorted, not `table: 0x...`), and
Tab completes the names of nd and its modules (`nd.ver` to `nd.version`,
`nd.units.gi` to `nd.units.gib`; readline reads the tab from the input):

  $ printf 't = {tp = 2, dims = {"DP", "TP"}}\nt\nnd.ver\t\nnd.units.gi\t(2^30)\nnd.hardware("H800").levels\nos.exit(0)\n' > input
  $ TERM=dumb python3 $ROOT/spec/support/pty_session.py ndlua < input > session; tr -d '\r' < session | grep -E '^\{|^0\.|GiB$'
  {dims = {"DP", "TP"}, tp = 2}
  0.1.0
  1.00 GiB
  {{devices = 8, gbps = 160.0}, {gbps = 45.0}}

nd.svg, nd.census and nd.study load their modules at their first use
(lua/nd/api.lua); the prompt loads them as it starts, so Tab completes their
names too (`nd.svg.nice_s` to `nd.svg.nice_step`, `nd.census.formu` to
`nd.census.formula`, names of the modules behind the checked wrappers;
`nd.study.swe` to `nd.study.sweep`):

  $ printf 'type(nd.svg.nice_s\t)\ntype(nd.census.formu\t)\ntype(nd.study.swe\t)\nos.exit(0)\n' > input
  $ TERM=dumb python3 $ROOT/spec/support/pty_session.py ndlua < input > session; tr -d '\r' < session | grep -xE 'nd> type.*|function'
  nd> type(nd.svg.nice_step)
  function
  nd> type(nd.census.formula)
  function
  nd> type(nd.study.sweep)
  function
