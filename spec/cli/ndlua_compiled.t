Compiled Lua at start (issue 35, item 6). The build compiles every Lua file
of lua/ into the binary (scripts/lua_chunks.lua; src/bridge/chunks.c loads
them), with their lines but without their local-variable and upvalue names
(scripts/dump_names.lua). ndlua runs a file from its compiled form
when the file's bytes are exactly those it was built with (the same length
and 64-bit hash), wherever the file is; any other file, an edited copy among
them, is compiled from its source as Lua does. So the sources stay what
runs: a module is found on the path as require finds it (NDLUA_PATH first), and an
edited one wins. nd.compiled(path) says which form a file runs in.

The library's files and the entry scripts run compiled; other files do not:

  $ ndlua -e 'local c, root = require("nd").compiled, os.getenv("ROOT")
  >   print(c(root .. "/lua/nd/init.lua"), c(root .. "/lua/nd/units.lua"), c(root .. "/lua/estimate.lua"))
  >   print(c(root .. "/examples/demo.lua"), c(root .. "/Makefile"), c("nowhere.lua"))'
  true	true	true
  false	false	false

A compiled module keeps the name of the file it was found at and its
lines: an error inside it names that file and the line, as the source
compiled at start would, but not the local (the source's message ends
"(local 'n')", below). The line is units.gib's body, the line after its
`function`:

  $ ndlua -e 'require("nd.units").gib({})' 2>&1 | sed "s|$ROOT|ROOT|"
  ndlua: ROOT/lua/nd/units.lua:*: attempt to perform arithmetic on a table value (glob)
  $ line=$(grep -n '^function units.gib(' "$ROOT/lua/nd/units.lua" | cut -d: -f1)
  > ndlua -e 'require("nd.units").gib({})' 2>&1 | grep -c "/lua/nd/units.lua:$((line + 1)): "
  1
  $ ndlua -e 'local path = package.searchpath("nd.units", package.path)
  >   print(debug.getinfo(require("nd.units").gib, "S").source == "@" .. path)'
  true

A copy of a module on NDLUA_PATH is found first. An unedited copy runs
compiled, under the copy's own name:

  $ mkdir -p lib/nd && cp "$ROOT/lua/nd/units.lua" lib/nd/units.lua
  $ NDLUA_PATH=$PWD/lib ndlua -e 'print(package.searchpath("nd.units", package.path), require("nd").compiled("lib/nd/units.lua"))' | sed "s|$PWD|HERE|"
  HERE/lib/nd/units.lua	true
  $ NDLUA_PATH=$PWD/lib ndlua -e 'require("nd.units").gib({})' 2>&1 | sed "s|$PWD|HERE|"
  ndlua: HERE/lib/nd/units.lua:*: attempt to perform arithmetic on a table value (glob)

NDLUA_COMPILED=0 has every file compiled from its source, so that messages
name locals and upvalues again and debug.getlocal finds their names:

  $ NDLUA_COMPILED=0 ndlua -e 'print(require("nd").compiled(package.searchpath("nd.units", package.path)))
  >   print(debug.getlocal(require("nd.units").gib, 1))'
  false
  n
  $ ndlua -e 'print(debug.getlocal(require("nd.units").gib, 1))'
  nil
  $ NDLUA_COMPILED=0 ndlua -e 'require("nd.units").gib({})' 2>&1 | sed "s|$ROOT|ROOT|"
  ndlua: ROOT/lua/nd/units.lua:*: attempt to perform arithmetic on a table value (local 'n') (glob)

An edited copy runs from its source: its own code, its own lines (one
line added above gib moves its body down one), its local names:

  $ { echo '-- edited'; sed 's/ GiB"/ GiB, edited"/' "$ROOT/lua/nd/units.lua"; } > lib/nd/units.lua
  $ NDLUA_PATH=$PWD/lib ndlua -e 'print(require("nd").compiled("lib/nd/units.lua"), require("nd.units").gib(2 ^ 30))'
  false	1.00 GiB, edited
  $ line=$(grep -n '^function units.gib(' "$ROOT/lua/nd/units.lua" | cut -d: -f1)
  > NDLUA_PATH=$PWD/lib ndlua -e 'require("nd.units").gib({})' 2>&1 | grep -c "/lib/nd/units.lua:$((line + 2)): .*(local 'n')$"
  1

A copy of the same length with one byte changed runs from its source
wherever the byte is: in each of the four 8-byte words of a 32-byte block
(the hash's four lanes), in the last whole word, in the bytes after it (the
copy's bytes 1, 9, 17, 25, its last 8 and its last; lua/nd/units.lua is no
multiple of 8 bytes long, so its last byte is after its last whole word),
and the unchanged copy stays compiled:

  $ ndlua -e 'local text = assert(io.open(os.getenv("ROOT") .. "/lua/nd/units.lua")):read("a")
  >   local flags = {}
  >   for _, at in ipairs({ 0, 1, 9, 17, 25, #text - 8, #text }) do
  >     local copy = at == 0 and text or text:sub(1, at - 1) .. (text:sub(at, at) == "-" and "+" or "-") .. text:sub(at + 1)
  >     local f = assert(io.open("lib/nd/units.lua", "wb")); f:write(copy); f:close()
  >     flags[#flags + 1] = tostring(require("nd").compiled("lib/nd/units.lua"))
  >   end
  >   print(tostring(#text % 8 ~= 0) .. " " .. table.concat(flags, " "))'
  true true false false false false false false

An edited entry script runs from its source too:

  $ sed 's/^local nd = require "nd"$/local nd = require "nd"; print("edited")/' "$ROOT/lua/estimate.lua" > edited.lua
  $ ndlua -e 'print(require("nd").compiled("edited.lua"))'; ndlua edited.lua -h > help.txt; head -1 help.txt
  false
  edited

The two forms agree: the estimate of a bundled example, and a search's
JSON (less the seconds it took), from the compiled library and from a copy
of lua/ whose every file has one more line at its end (so none of it runs
compiled) are the same bytes:

  $ cp -r "$ROOT/lua" src && find src -name '*.lua' -exec sh -c 'echo >> "$1"' _ {} \;
  $ NDLUA_PATH=$PWD/src ndlua -e 'local c = require("nd").compiled; print(c("src/nd/init.lua"), c("src/estimate.lua"))'
  false	false
  $ Y=$ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml
  > ndlua estimate.lua $Y > compiled.txt 2>&1; NDLUA_PATH=$PWD/src ndlua src/estimate.lua $Y > source.txt 2>&1
  $ cmp compiled.txt source.txt && test -s compiled.txt && echo same
  same
  $ Y=$ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml
  > ndlua search.lua $Y -d 64 -b 128 -M 58GB -A A3 --json 2>&1 | grep -v '"elapsed_s"' > compiled.json
  > NDLUA_PATH=$PWD/src ndlua src/search.lua $Y -d 64 -b 128 -M 58GB -A A3 --json 2>&1 | grep -v '"elapsed_s"' > source.json
  $ cmp compiled.json source.json && test -s compiled.json && echo same
  same
