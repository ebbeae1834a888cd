examples/recompute_tradeoff.lua (issue 8): selective against full recompute
across micro-batch sizes. Its memory and time numbers follow from formulas
still being refined, so they are globs here (as in estimate_examples.t); each
is then checked against the commands a user would run: estimate.lua for the
peaks, and search.lua with every dimension kept at the yaml's (-l MB: only
the micro-batch count varies, and the global batch fixes it) for the step
times. Pinned by hand: 64 devices = dp 2 x tp 8 x pp 4, a batch of 64 of
8192 tokens and 64 GiB from the yaml; micro-batches a step = 64 / (2 x size).

  $ ndlua "$ROOT/examples/recompute_tradeoff.lua" > out 2> err; cat err out
  meta-llama/Llama-3.1-70B on 64 devices (dp 2 x tp 8 x pp 4), a global batch of 64 x 8192 tokens, 64.00 GiB a device, timed on H100
  
  micro-batch  micro-batches a step  selective peak * full peak * full saves * selective step * full step * full costs * costs (share) (glob)
        1 seq                    32 * GiB * GiB * GiB * s * s * s * % (glob)
        2 seq                    16 * GiB * GiB * GiB * s * s * s * % (glob)
        4 seq                     8 * GiB * GiB * GiB * s * s * s * % (glob)
        8 seq                     4 * GiB * GiB * GiB * s * s * s * % (glob)
  
  fits 64.00 GiB: micro-batch 1: * (glob)
  chart: ./recompute_tradeoff.svg

The check: each peak is estimate.lua's at that micro-batch and mode, each
step search.lua's; the saving, the cost and its share are the differences
and the ratio of those, done here again; "fits" is estimate.lua's verdict.

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
  > local function sec(s) return string.format("%.2f s", s) end
  > local out = assert(io.open("out")):read("a")
  > local fits = {}
  > for mbs, row in out:gmatch("\n +(%d) seq +%d+ +([^\n]+)") do
  >   local cells = {}
  >   for cell in row:gmatch("[%d.]+ %S+") do cells[#cells + 1] = cell end
  >   local peak, step, ok = {}, {}, {}
  >   for _, mode in ipairs({ "selective", "full" }) do
  >     local e = json(string.format("ndlua estimate.lua %s --training.micro_batch_size=%s "
  >       .. "--activation_checkpoint.mode=%s", YAML, mbs, mode))
  >     local s = json(string.format("ndlua search.lua %s -d 64 -b 64 -l MB --recompute %s -A H100 -M 1TB -t 1 "
  >       .. "-o o --training.micro_batch_size=%s", YAML, mode, mbs)).candidates[1]
  >     assert(s.dp == 2 and s.tp == 8 and s.pp == 4 and s.mbs == tonumber(mbs), "search.lua priced another run")
  >     peak[mode], step[mode], ok[mode] = e.peak_bytes, s.step_time_s, e.fits
  >   end
  >   local want = { gib(peak.selective), gib(peak.full), gib(peak.selective - peak.full), sec(step.selective),
  >                  sec(step.full), sec(step.full - step.selective),
  >                  string.format("%.1f %%", 100 * (step.full - step.selective) / step.selective) }
  >   local wrong = {}
  >   for i, w in ipairs(want) do
  >     if cells[i] ~= w then wrong[#wrong + 1] = string.format("column %d: %s, derived %s", i + 2, cells[i], w) end
  >   end
  >   print("micro-batch " .. mbs .. ": " .. (#wrong == 0 and "agrees" or table.concat(wrong, "; ")))
  >   local modes = {}
  >   if ok.selective then modes[#modes + 1] = "selective" end
  >   if ok.full then modes[#modes + 1] = "full" end
  >   fits[#fits + 1] = "micro-batch " .. mbs .. ": " .. (#modes > 0 and table.concat(modes, " and ") or "neither")
  > end
  > local line = "fits 64.00 GiB: " .. table.concat(fits, "; ")
  > print(out:find(line, 1, true) and "the fits line agrees" or ("fits: derived " .. line))
  > LUA
  $ ndlua check.lua
  micro-batch 1: agrees
  micro-batch 2: agrees
  micro-batch 4: agrees
  micro-batch 8: agrees
  the fits line agrees

Full recompute saves more the larger the micro-batch (the activations of a
micro-batch grow with its size; the weights do not), and always costs time:

(fields: $8 the saving in GiB, $14 the cost in seconds)

  $ awk '/ seq / { print $8 }' out | sort -n -c && echo increasing
  increasing
  $ awk '/ seq / && $14 + 0 <= 0 { print "free at", $1 }' out

The chart: grouped bars, a bar for each size and mode, the capacity at the
left.

  $ grep -c '<rect' recompute_tradeoff.svg
  11
  $ grep -c 'text-anchor="start" x="74" y="[0-9.]*">capacity 64.00 GiB</text>' recompute_tradeoff.svg
  1
