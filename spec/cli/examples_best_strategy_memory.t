examples/best_strategy_memory.lua (issue 8): the memory of every pipeline
stage of the best strategy for DeepSeek-V3 on 512 H100s. The strategy and its
numbers follow from the memory and time formulas, still being refined, so they
are globs here (as in estimate_examples.t), and are checked against the two
commands a user would run for the same question: search.lua, which writes the
best strategy into resolved.yaml, and estimate.lua on that resolved.yaml.
Pinned by hand: 512 devices, a batch of 1024 of 4096 tokens (the yaml's
sequence), 80 GiB; a table row for each of the best strategy's stages.

  $ ndlua "$ROOT/examples/best_strategy_memory.lua" > out 2> err; cat err; head -7 out; echo ...; tail -2 out
  warning: model: the model states 1 MTP layer, which the AutoModels trainer does not build: ndlua prices none
  deepseek-ai/DeepSeek-V3 on 512 H100 devices, a global batch of 1024 x 4096 tokens: of * strategies that fit 80.00 GiB, the fastest is (glob)
    dp * x tp * x pp * x cp *, ep *, vpp *, sp *, op *, micro-batch * x *, recompute * (glob)
    step * s, MFU * %, peak * GiB on stage * (glob)
  
  memory a device by pipeline stage (* the peak):
  * stage * layers * params * grads * optimizer * activations * comm * overhead * reserve * total (glob)
  *      0 * layers * GiB * GiB * GiB * GiB * GiB * GiB * GiB * GiB (glob)
  ...
  
  chart: ./best_strategy_memory.svg

The check: search.lua's best candidate is the example's strategy, with its
step, MFU and peak; estimate.lua on the resolved.yaml search.lua writes (the
devices and the memory given again: resolved.yaml leaves out the context)
prices each stage as the example's table does, component by component.

  $ ndlua search.lua "$ROOT/examples/deepseek-v3-256/train.yaml" -d 512 -b 1024 -M 80GB -A H100 --recompute auto -t 1 -o best --json > search.json 2>/dev/null
  $ ndlua estimate.lua best/resolved.yaml -d 512 -M 80GB --json > estimate.json 2>/dev/null
  $ cat > check.lua <<'LUA'
  > local nd = require "nd"
  > local s, e = nd.json.load("search.json"), nd.json.load("estimate.json")
  > local c = s.candidates[1]
  > local function gib(bytes) return string.format("%.2f GiB", bytes / 2 ^ 30) end
  > local out = assert(io.open("out")):read("a")
  > local strategy = string.format("dp %d x tp %d x pp %d x cp %d, ep %d, vpp %d, sp %s, op %d, micro-batch %d x %d, "
  >   .. "recompute %s", c.dp, c.tp, c.pp, c.cp, c.ep, c.vpp, c.sp and "on" or "off", c.op, c.mbs, c.mb, c.recompute)
  > local summary = string.format("step %.2f s, MFU %.1f %%, peak %s on stage %d", c.step_time_s, 100 * c.mfu,
  >   gib(c.peak_bytes), c.peak_stage)
  > print("strategy: " .. (out:find("  " .. strategy .. "\n", 1, true) and "search.lua agrees" or strategy))
  > print("step, MFU, peak: " .. (out:find("  " .. summary .. "\n", 1, true) and "search.lua agrees" or summary))
  > print("fitting: " .. (out:find("of " .. s.fitting .. " strategies", 1, true) and "search.lua agrees" or s.fitting))
  > local keys = { "params", "grads", "optimizer", "activations", "comm", "backward_overhead", "reserve", "total" }
  > local rows = 0
  > for i, st in ipairs(e.stages) do
  >   local layers = 0
  >   for _, chunk in ipairs(st.layout) do layers = layers + chunk.count end
  >   local cells = { (st.stage == e.peak_stage and "*" or " "), string.format("%d", st.stage), layers .. " layers" }
  >   for _, k in ipairs(keys) do cells[#cells + 1] = gib(st.bytes[k]) end
  >   local pattern = "\n" .. table.concat(cells, "%s+"):gsub("%*", "%%*"):gsub("%.", "%%.") .. "\n"
  >   if out:find(pattern) then rows = rows + 1 else print("stage " .. st.stage .. ": " .. table.concat(cells, " ")) end
  > end
  > local _, printed = out:gsub(" layers [^\n]* GiB\n", "")
  > print("every stage: " .. (rows == #e.stages and printed == #e.stages and "estimate.lua agrees"
  >   or string.format("%d rows printed, %d agree, estimate.lua prices %d", printed, rows, #e.stages)))
  > print("peak: " .. (e.peak_bytes == c.peak_bytes and e.peak_stage == c.peak_stage and "estimate.lua agrees" or "differs"))
  > local _, bars = assert(io.open("best_strategy_memory.svg")):read("a"):gsub("<title>%d+, params: ", "")
  > print("chart: " .. (bars == #e.stages and "a params part for each stage" or (bars .. " params parts")))
  > LUA
  $ ndlua check.lua
  strategy: search.lua agrees
  step, MFU, peak: search.lua agrees
  fitting: search.lua agrees
  every stage: estimate.lua agrees
  peak: estimate.lua agrees
  chart: a params part for each stage

The chart stacks each stage's components against the capacity:

  $ grep -c '>capacity 80.00 GiB</text>' best_strategy_memory.svg
  1
