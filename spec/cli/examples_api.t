The nd API in a user's own script and at the interactive prompt (issue 8;
the reference is examples/README.md). Values pinned here follow from the
files by hand: tp 8 and 64 devices = dp 2 x tp 8 x pp 4 from
examples/llama-3.1-70b-tp-pp-sp/train.yaml, 989 TFLOP/s from
lua/nd/hardware/H100.lua.

The README's first script: a run changed three ways, each estimated (the
peaks follow from formulas still being refined: globs; the recompute modes
fit in the order full keeps least):

  $ cat > study.lua <<'LUA'
  > local nd = require "nd"
  > local model, run = nd.load(os.getenv("ROOT") .. "/examples/llama-3.1-70b-tp-pp-sp/train.yaml", { quiet = true })
  > print(run)
  > for _, mode in ipairs({ "off", "selective", "full" }) do
  >   local e = nd.estimate(model, run:with { recompute = mode, seq_length = 32768 })
  >   print(mode, nd.units.gib(e.peak_bytes), e.fits)
  > end
  > print(run)
  > LUA
  $ ndlua study.lua
  nd.run: dp 2 tp 8 pp 4 vpp 1 cp 1 ep 1, micro-batch 1 x 32, sequence 8192
  off	* GiB	false (glob)
  selective	* GiB	false (glob)
  full	* GiB	* (glob)
  nd.run: dp 2 tp 8 pp 4 vpp 1 cp 1 ep 1, micro-batch 1 x 32, sequence 8192

A wrong argument is named, at the script's line, and ends the script with
status 1 (a mistake in the script, not bad input):

  $ printf 'local nd = require "nd"\nlocal m = nd.model("Qwen/Qwen3-8B")\nnd.estimate(m, {})\n' > wrong.lua
  $ ndlua wrong.lua
  ndlua: wrong.lua:3: nd.estimate: argument 2 (run) must be an nd.run, got table
  [1]
  $ ndlua -e 'require("nd").search(nil)'
  ndlua: (command line):1: nd.search: argument 1 (model) must be an nd.model, got nil
  [1]

Bad data is bad input (status 2), naming what was read:

  $ ndlua -e 'require("nd").hardware("X9")'
  nd.hardware: 'X9' is no hardware profile ndlua knows; one of 910B, 910C, A100-80GB, A2, A3, B200, GB200, H100, H20, H200, H800, MI300X (or add nd/hardware/X9.lua to a directory on NDLUA_PATH)
  [2]

At the interactive prompt (spec/support/pty_session.py gives ndlua a
terminal and types each line once the prompt is shown; the terminal's echo
of the input is mixed into the session, so only whole result lines are
picked out), `nd` is loaded and the API at hand:

  $ printf 'model, run = nd.load(os.getenv("ROOT") .. "/examples/llama-3.1-70b-tp-pp-sp/train.yaml", {quiet = true})\nrun.tp\nnd.hardware("H100").peak_tflops\nnd.estimate(model, {})\nos.exit(0)\n' > input
  $ TERM=dumb python3 $ROOT/spec/support/pty_session.py ndlua < input > session; tr -d '\r' < session | grep -xE '8|989|ndlua: nd.estimate: .*'
  8
  989
  ndlua: nd.estimate: argument 2 (run) must be an nd.run, got table
