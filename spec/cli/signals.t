An interrupted run leaves no half file (issue 34 item 2). A file is
written beside itself as FILE.tmp-XXXXXX and renamed over it once whole;
SIGINT, SIGTERM or SIGHUP during the write removes that temporary file
before ndlua dies of the signal (a shell sees 128 + the signal's number:
130 for SIGINT, 143 for SIGTERM), the old file stays as it was, and a
temporary file of someone else's beside it is left alone. The write's
chunks send the signal themselves (a real kill, through a child shell whose
parent is ndlua), after its third chunk, so the temporary file is there
when it comes, whatever the machine's load. (Both cases send their standard
error to /dev/null: the shell's own "Terminated" notice, and, under make
valgrind, valgrind's leak report of a process that died of a signal
before it could free anything. A suite started in the background, `make
test &`, runs with SIGINT ignored, which ndlua keeps ignored, as below; env
--default-signal=INT gives the case SIGINT's default back.) search.lua's --csv, --json and -o files are
written the same way (nd.files.write, nd.write_file):

  $ echo old > out.csv && touch out.csv.tmp-other1
  $ cat > interrupt.lua <<'LUA'
  > local signal, n = ..., 0
  > local ok, err = require("nd").write_file("out.csv", function()
  >   n = n + 1
  >   if n == 3 then assert(io.popen("kill -" .. signal .. " $PPID")):close() end
  >   if n <= 1000 then return string.rep("x", 1000) end
  > end)
  > print("not interrupted", ok, err)
  > LUA
  $ { env --default-signal=INT ndlua interrupt.lua INT; } 2>/dev/null; echo "status $?"; ls; cat out.csv
  status 130
  interrupt.lua
  out.csv
  out.csv.tmp-other1
  old
  $ { ndlua interrupt.lua TERM; } 2>/dev/null; echo "status $?"; ls; cat out.csv
  status 143
  interrupt.lua
  out.csv
  out.csv.tmp-other1
  old

A signal the run was started ignoring (nohup, `trap '' INT`) stays
ignored: the write goes on to its end, and the file is whole.

  $ (trap '' INT; ndlua interrupt.lua INT); echo "status $?"; ls; wc -c < out.csv
  not interrupted	true	nil
  status 0
  interrupt.lua
  out.csv
  out.csv.tmp-other1
  1000000
