make install puts the binary in PREFIX/bin and the Lua library in
PREFIX/share/ndlua; the installed binary finds its library with no
environment variable at all, by its own location.

  $ env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" install PREFIX="$HOME/prefix" > make.log 2>&1 || cat make.log
  $ test -x "$HOME/prefix/bin/ndlua" && test -f "$HOME/prefix/share/ndlua/nd/init.lua" && echo installed
  installed

With the manual page (`man ndlua` when PREFIX/share/man is on MANPATH) and
the bash completion (the scripts, their options, the hardware profiles
after -A, the runtimes after --runtime: the six files of lua/nd/runtimes/,
the ranking policies after --policy, the recompute modes after --recompute
and the dimensions after -l, as the help states the core's registries),
which asks the installed ndlua what it has; the manual names every runtime profile the library ships:

  $ sed -n 's/^\.TH \([A-Z]*\) \([0-9]\).*/\1(\2)/p' "$HOME/prefix/share/man/man1/ndlua.1"
  NDLUA(1)
  $ for f in "$ROOT"/lua/nd/runtimes/*.lua; do n=$(basename "$f" .lua); grep -q "fB$n\\\\fR" "$HOME/prefix/share/man/man1/ndlua.1" || echo "missing $n"; done
  $ PATH="$HOME/prefix/bin:$PATH" bash -c '. "$HOME/prefix/share/bash-completion/completions/ndlua"
  >   COMP_WORDS=(ndlua es); COMP_CWORD=1; _ndlua; echo "${COMPREPLY[*]}"
  >   COMP_WORDS=(ndlua search.lua t.yaml -A MI); COMP_CWORD=4; _ndlua; echo "${COMPREPLY[*]}"
  >   COMP_WORDS=(ndlua estimate.lua --pr); COMP_CWORD=2; _ndlua; echo "${COMPREPLY[*]}"
  >   COMP_WORDS=(ndlua estimate.lua t.yaml --runtime ""); COMP_CWORD=4; _ndlua; echo "${COMPREPLY[*]}"
  >   COMP_WORDS=(ndlua search.lua t.yaml --runtime m); COMP_CWORD=4; _ndlua; echo "${COMPREPLY[*]}"
  >   COMP_WORDS=(ndlua search.lua t.yaml --policy th); COMP_CWORD=4; _ndlua; echo "${COMPREPLY[*]}"
  >   COMP_WORDS=(ndlua search.lua t.yaml --recompute ""); COMP_CWORD=4; _ndlua; echo "${COMPREPLY[*]}"
  >   COMP_WORDS=(ndlua search.lua t.yaml -l M); COMP_CWORD=4; _ndlua; echo "${COMPREPLY[*]}"'
  estimate.lua
  MI300X
  --print-yaml
  deepspeed hyperparallel megatron mindspore none torchtitan
  megatron mindspore
  throughput
  off selective full auto
  MP MB MBS
  $ env -i "$HOME/prefix/bin/ndlua" -e 'print(require("nd").version)'
  * (glob)
  $ env -i "$HOME/prefix/bin/ndlua" -e 'print(require("nd").version)' | grep -cx "$(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile")"
  1
  $ env -i "$HOME/prefix/bin/ndlua" -e 'print(package.searchpath("nd", package.path))' | sed "s|$HOME|HOME|"
  HOME/prefix/share/ndlua/nd/init.lua
  $ env -i "$HOME/prefix/bin/ndlua" -e 'print(require("nd").yaml.decode("a: on").a)'
  true

The installed library runs from the binary's compiled form of it (the
installed files are the bytes it was built from; spec/cli/ndlua_compiled.t):

  $ env -i "$HOME/prefix/bin/ndlua" -e 'local c = require("nd").compiled
  >   print(c(package.searchpath("nd", package.path)), c(package.searchpath("nd.units", package.path)))'
  true	true

Scripts in the share directory are found by name:

  $ echo 'print("shipped script", arg[1])' > "$HOME/prefix/share/ndlua/shipped.lua"
  $ cd / && env -i "$HOME/prefix/bin/ndlua" shipped x
  shipped script	x
  $ env -i "$HOME/prefix/bin/ndlua" nosuch 2>&1 | sed "s|$HOME|HOME|"
  ndlua: cannot find script 'nosuch'; tried:
    nosuch  (as a path)
    HOME/prefix/share/ndlua/nosuch  (installed share directory)
    HOME/prefix/share/ndlua/nosuch.lua  (installed share directory)
  Give a path to the script, or add its directory to NDLUA_PATH.
  $ env -i "$HOME/prefix/bin/ndlua" -h | grep share | sed "s|$HOME|HOME|"
    HOME/prefix/share/ndlua  (installed share directory)

The installed tree can move: the library is found beside the binary.

  $ mv "$HOME/prefix" "$HOME/moved" && env -i "$HOME/moved/bin/ndlua" shipped
  shipped script	nil
  $ ln -s "$HOME/moved/bin/ndlua" "$HOME/link" && env -i "$HOME/link" -e 'print(require("nd").null)'
  null

make uninstall removes them all:

  $ env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" uninstall PREFIX="$HOME/moved" > make.log 2>&1 || cat make.log
  $ ls "$HOME/moved/bin" "$HOME/moved/share"
  /*/moved/bin: (glob)
  
  /*/moved/share: (glob)
