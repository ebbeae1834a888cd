examples/max_seq_len.lua (issue 8): the longest sequence each recompute mode
lets a device hold. Its memory numbers follow from the activation, communication
and overhead formulas, which are still being refined, so they are globs here
(as in estimate_examples.t); every one of them is then checked against
estimate.lua run on the same train.yaml with the mode and the length set on
its command line, as a user would. What is pinned follows by hand: 64 devices
= dp 2 x tp 8 x pp 4 and 64 GiB from the yaml, the 131072-token limit from
the checkpoint's max_position_embeddings, the lengths the example sweeps.

  $ ndlua "$ROOT/examples/max_seq_len.lua" > out 2> err; cat err out
  meta-llama/Llama-3.1-70B on 64 devices (dp 2 x tp 8 x pp 4), micro-batch 1, 64.00 GiB a device
  
  The longest sequence that fits, in steps of 1024 tokens (the model's limit: 131072 tokens):
  recompute * longest * its peak * to spare * peak at 1024 more (glob)
  off * tokens * GiB * GiB * GiB (glob)
  selective * tokens * GiB * GiB * GiB (glob)
  full * 131072 tokens * GiB * GiB * - (glob)
  
  Peak memory a device by sequence length:
  * sequence * off * selective * full (glob)
  * 4096 tokens * GiB * GiB * GiB (glob)
  * 8192 tokens * GiB * GiB * GiB (glob)
  * 16384 tokens * GiB * GiB * GiB (glob)
  * 32768 tokens * GiB * GiB * GiB (glob)
  * 65536 tokens * GiB * GiB * GiB (glob)
  131072 tokens * GiB * GiB * GiB (glob)
  
  chart: ./max_seq_len.svg

The check: for each mode, estimate.lua at the example's longest length must
fit with the example's peak and room to spare, and 1024 tokens more must not,
with the example's next peak; each cell of the second table must be
estimate.lua's peak at that mode and length. (Memory only grows with the
sequence, so fitting at the longest and not one step above it is the whole
claim.) A mode that fits at the model's own limit (full recompute: under
sequence parallelism each layer keeps only its 1/8 of the sequence's input,
issue 12) has no next step; its row must fit there. A disagreement prints
both values.

  $ cat > check.lua <<'LUA'
  > local nd = require "nd"
  > local YAML = os.getenv("ROOT") .. "/examples/llama-3.1-70b-tp-pp-sp/train.yaml"
  > local function estimate(mode, seq)
  >   local p = io.popen(string.format("ndlua estimate.lua %s --activation_checkpoint.mode=%s "
  >     .. "--dataset.data_transform.max_seq_len=%d --json 2>/dev/null", YAML, mode, seq))
  >   local doc = nd.json.decode(p:read("a"))
  >   p:close()
  >   return doc
  > end
  > local function gib(bytes) return string.format("%.2f GiB", bytes / 2 ^ 30) end
  > local out = assert(io.open("out")):read("a")
  > local function agree(what, checks)
  >   local wrong = {}
  >   for _, c in ipairs(checks) do
  >     if c[2] ~= c[3] then
  >       wrong[#wrong + 1] = string.format("%s: %s, estimate.lua %s", c[1], tostring(c[2]), tostring(c[3]))
  >     end
  >   end
  >   print(what .. ": " .. (#wrong == 0 and "estimate.lua agrees" or table.concat(wrong, "; ")))
  > end
  > local n = 0
  > for mode, seq, peak, spare, above in out:gmatch("\n(%a+) +(%d+) tokens +([%d.]+ GiB) +([%d.]+ GiB) +([%d.]+ GiB)") do
  >   seq, n = tonumber(seq), n + 1
  >   local at, over = estimate(mode, seq), estimate(mode, seq + 1024)
  >   agree(mode, { { "a multiple of 1024", true, seq % 1024 == 0 }, { "fits", true, at.fits },
  >     { "its peak", peak, gib(at.peak_bytes) }, { "to spare", spare, gib(at.capacity_bytes - at.peak_bytes) },
  >     { "fits at 1024 more", false, over.fits }, { "peak at 1024 more", above, gib(over.peak_bytes) } })
  > end
  > for mode, seq, peak, spare in out:gmatch("\n(%a+) +(%d+) tokens +([%d.]+ GiB) +([%d.]+ GiB) +%-") do
  >   seq, n = tonumber(seq), n + 1
  >   local at = estimate(mode, seq)
  >   agree(mode .. " at the model's limit", { { "the limit", 131072, seq }, { "fits", true, at.fits },
  >     { "its peak", peak, gib(at.peak_bytes) }, { "to spare", spare, gib(at.capacity_bytes - at.peak_bytes) } })
  > end
  > print(n .. " modes")
  > for seq, off, sel, full in out:gmatch("\n *(%d+) tokens +([%d.]+ GiB) +([%d.]+ GiB) +([%d.]+ GiB)") do
  >   agree(seq .. " tokens", { { "off", off, gib(estimate("off", seq).peak_bytes) },
  >     { "selective", sel, gib(estimate("selective", seq).peak_bytes) },
  >     { "full", full, gib(estimate("full", seq).peak_bytes) } })
  > end
  > LUA
  $ ndlua check.lua
  off: estimate.lua agrees
  selective: estimate.lua agrees
  full at the model's limit: estimate.lua agrees
  3 modes
  4096 tokens: estimate.lua agrees
  8192 tokens: estimate.lua agrees
  16384 tokens: estimate.lua agrees
  32768 tokens: estimate.lua agrees
  65536 tokens: estimate.lua agrees
  131072 tokens: estimate.lua agrees

Full recompute keeps the least a layer, selective more, none the most, so
the longest sequences come in that order:

  $ awk '/^(off|selective|full) / { print $2, $1 }' out | sort -n | cut -d' ' -f2 | tr '\n' ' '; echo
  off selective full 

The chart is one SVG document: a line a mode (three polylines, six points
each), the capacity line and its label.

  $ grep -c '<polyline' max_seq_len.svg; grep -c '<circle' max_seq_len.svg; grep -c '>capacity 64.00 GiB</text>' max_seq_len.svg
  3
  18
  1
  $ tail -1 max_seq_len.svg
  </svg>
