examples/devices_scaling.lua (issue 8): the best strategy for Llama-3.1-70B at
a global batch of 512, its memory and its step time, from 64 to 8192 H100s.
Which strategy wins and its numbers follow from the memory and time formulas,
still being refined, so they are globs here (as in estimate_examples.t); each
row is then checked against the commands a user would run: search.lua on the
same yaml for each device count, and estimate.lua on the resolved.yaml it
writes. Pinned by hand: the device counts, the batch, 80 GiB, 8192 tokens
(the yaml's); the ideal step is the first step times 64 over the devices.

  $ ndlua "$ROOT/examples/devices_scaling.lua" > out 2> err; cat err out
  meta-llama/Llama-3.1-70B, 8192 tokens a sequence, a global batch of 512 sequences, on H100 (80.00 GiB a device)
  the fastest strategy that fits, searched over every dimension and recompute mode:
  
  * devices * strategy * peak * step * ideal step * MFU * throughput a device (glob)
    64 devices  dp * tp * pp * cp *, sp *, op *, * GiB * s * s * % * tokens/s (glob)
   128 devices  dp * tp * pp * cp *, sp *, op *, * GiB * s * s * % * tokens/s (glob)
   256 devices  dp * tp * pp * cp *, sp *, op *, * GiB * s * s * % * tokens/s (glob)
   512 devices  dp * tp * pp * cp *, sp *, op *, * GiB * s * s * % * tokens/s (glob)
  1024 devices  dp * tp * pp * cp *, sp *, op *, * GiB * s * s * % * tokens/s (glob)
  2048 devices  dp * tp * pp * cp *, sp *, op *, * GiB * s * s * % * tokens/s (glob)
  4096 devices  dp * tp * pp * cp *, sp *, op *, * GiB * s * s * % * tokens/s (glob)
  8192 devices  dp * tp * pp * cp *, sp *, op *, * GiB * s * s * % * tokens/s (glob)
  (ideal step: the step on 64 devices, divided as the devices multiply)
  
  what fills the peak stage:
  * devices * params, main * grads * optimizer * activations * comm, overhead, reserve (glob)
    64 devices * GiB * GiB * GiB * GiB * GiB (glob)
   128 devices * GiB * GiB * GiB * GiB * GiB (glob)
   256 devices * GiB * GiB * GiB * GiB * GiB (glob)
   512 devices * GiB * GiB * GiB * GiB * GiB (glob)
  1024 devices * GiB * GiB * GiB * GiB * GiB (glob)
  2048 devices * GiB * GiB * GiB * GiB * GiB (glob)
  4096 devices * GiB * GiB * GiB * GiB * GiB (glob)
  8192 devices * GiB * GiB * GiB * GiB * GiB (glob)
  
  charts: ./devices_scaling.svg, ./devices_memory.svg

The check: for each device count, search.lua's best candidate is the row's
strategy, peak, step, MFU and throughput; the ideal step is derived again;
estimate.lua on the resolved.yaml of that search (the devices and memory
given again: resolved.yaml leaves out the context) prices the peak stage
with the row's components.

  $ cat > check.lua <<'LUA'
  > local nd = require "nd"
  > local YAML = os.getenv("ROOT") .. "/examples/llama-3.1-70b-tp-pp-sp/train.yaml"
  > local function json(cmd)
  >   local p = io.popen(cmd .. " --json 2>/dev/null")
  >   local doc = nd.json.decode(p:read("a"))
  >   p:close()
  >   return doc
  > end
  > local function gib(bytes) return string.format("%.2f GiB", bytes / 2 ^ 30) end
  > local function sec(t) return nd.units.seconds(t) end
  > local out = assert(io.open("out")):read("a")
  > local first
  > for devices in out:gmatch("\n *(%d+) devices  dp") do
  >   local n = tonumber(devices)
  >   local c = json(string.format("ndlua search.lua %s -d %d -b 512 -M 80GB -A H100 --recompute auto -t 1 -o d%d",
  >     YAML, n, n)).candidates[1]
  >   first = first or c.step_time_s * n
  >   local row = string.format("%d devices  dp %d tp %d pp %d cp %d, sp %s, op %d, %s", n, c.dp, c.tp, c.pp, c.cp,
  >     c.sp and "on" or "off", c.op, c.recompute)
  >   local cells = { gib(c.peak_bytes), sec(c.step_time_s), sec(first / n), string.format("%.1f %%", 100 * c.mfu),
  >     string.format("%.0f tokens/s", c.tokens_per_s_per_device) }
  >   local e = json(string.format("ndlua estimate.lua d%d/resolved.yaml -d %d -M 80GB", n, n))
  >   local s = e.stages[e.peak_stage + 1].bytes
  >   local parts = { gib(s.params + s.main_params), gib(s.grads), gib(s.optimizer), gib(s.activations),
  >     gib(s.comm + s.backward_overhead + s.reserve) }
  >   local flat = ("\n" .. out):gsub("\n +", "\n"):gsub(" +", " ")
  >   local found = flat:find("\n" .. (row:gsub(" +", " ")) .. " " .. table.concat(cells, " ") .. "\n", 1, true)
  >     and flat:find("\n" .. n .. " devices " .. table.concat(parts, " ") .. "\n", 1, true)
  >   print(devices .. " devices: " .. (found and "search.lua and estimate.lua agree"
  >     or (row .. " " .. table.concat(cells, " ") .. " | " .. table.concat(parts, " "))))
  > end
  > LUA
  $ ndlua check.lua
  64 devices: search.lua and estimate.lua agree
  128 devices: search.lua and estimate.lua agree
  256 devices: search.lua and estimate.lua agree
  512 devices: search.lua and estimate.lua agree
  1024 devices: search.lua and estimate.lua agree
  2048 devices: search.lua and estimate.lua agree
  4096 devices: search.lua and estimate.lua agree
  8192 devices: search.lua and estimate.lua agree

The charts: the step time on log-log axes, two lines (the best and the ideal)
of eight points each; the memory of the peak stage, five stacked parts a
device count (params, grads, optimizer, activations, the rest), the budget.

  $ grep -c '<polyline' devices_scaling.svg; grep -c '<circle' devices_scaling.svg
  2
  16
  $ grep -c '<title>[0-9]*, ' devices_memory.svg; grep -c '>budget 80.00 GiB</text>' devices_memory.svg
  40
  1
