examples/two_models.lua (issue 8): Qwen3-235B-A22B against DeepSeek-V3 on
512 H100s, side by side. Pinned by hand: the layers and the routed experts
of each checkpoint's config.json (below), the devices, batch and memory the
example states, and the parameter counts estimate.lua prints for the same
models. Which strategy wins and its numbers follow from the memory and time
formulas, still being refined, so they are globs here (as in
estimate_examples.t); each is checked below against search.lua run on the
same yaml with the same model, devices, batch and memory.

  $ grep -hE '"(num_hidden_layers|num_experts|n_routed_experts|num_experts_per_tok)"' $ROOT/lua/nd/catalog/Qwen--Qwen3-235B-A22B/config.json $ROOT/lua/nd/catalog/deepseek-ai--DeepSeek-V3/config.json
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 94,
    "n_routed_experts": 256,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 61,
  $ for m in Qwen/Qwen3-235B-A22B deepseek-ai/DeepSeek-V3; do ndlua estimate.lua $ROOT/examples/deepseek-v3-256/train.yaml --model.pretrained_model_name_or_path=$m 2>/dev/null | grep ' parameters '; done
            235.09 B parameters (22.19 B active); 94 layers: 94×decoder
            671.03 B parameters (37.55 B active); 61 layers: 3×dense, 58×moe

  $ ndlua "$ROOT/examples/two_models.lua" > out 2> err; cat err out
  warning: model: the model states 1 MTP layer, which the AutoModels trainer does not build: ndlua prices none
  512 H100 devices (80.00 GiB each), a global batch of 1024 sequences of 4096 tokens; the fastest strategy that fits:
  
  * Qwen/Qwen3-235B-A22B * deepseek-ai/DeepSeek-V3 (glob)
  parameters * 235.09 B * 671.03 B (glob)
  active a token * 22.19 B * 37.55 B (glob)
  layers * 94 layers * 61 layers (glob)
  routed experts * 128 (top 8) * 256 (top 8) (glob)
  fit the budget * strategies * strategies (glob)
  best strategy * dp * tp * pp * cp * ep * dp * tp * pp * cp * ep * (glob)
  * vpp *, sp *, op *, mbs *, * vpp *, sp *, op *, mbs *, * (glob)
  peak a device * GiB * GiB (glob)
  step * s * s (glob)
  MFU * % * % (glob)
  throughput a device * tokens/s * tokens/s (glob)
  1T tokens take * days * days (glob)

The check: search.lua's best candidate for each model gives the strategy,
its details, the peak, the step and the MFU, and the count of fitting
strategies; the throughput a device is the batch's tokens over the devices
and the step, 1024 x 4096 / (512 x step), and a trillion tokens take
step x 10^12 / (1024 x 4096) seconds, in days.

  $ cat > check.lua <<'LUA'
  > local nd = require "nd"
  > local YAML = os.getenv("ROOT") .. "/examples/deepseek-v3-256/train.yaml"
  > local out = assert(io.open("out")):read("a")
  > -- a table row: its cells, two spaces or more apart; the details row has no title
  > local rows = {}
  > for line in out:gmatch("[^\n]+") do
  >   local cells = {}
  >   for cell in (line:gsub("^ +", "") .. "  "):gmatch("(.-)  +") do cells[#cells + 1] = cell end
  >   if line:match("^ +vpp") then rows.details = cells elseif #cells == 3 then rows[cells[1]] = { cells[2], cells[3] } end
  > end
  > local function gib(bytes) return string.format("%.2f GiB", bytes / 2 ^ 30) end
  > for i, id in ipairs({ "Qwen/Qwen3-235B-A22B", "deepseek-ai/DeepSeek-V3" }) do
  >   local p = io.popen(string.format("ndlua search.lua %s -d 512 -b 1024 -M 80GB -A H100 --recompute auto -t 1 -o s%d "
  >     .. "--json --model.pretrained_model_name_or_path=%s --context.device_num=512 2>/dev/null", YAML, i, id))
  >   local doc = nd.json.decode(p:read("a"))
  >   p:close()
  >   local c = doc.candidates[1]
  >   local want = {
  >     ["fit the budget"] = doc.fitting .. " strategies",
  >     ["best strategy"] = string.format("dp %d tp %d pp %d cp %d ep %d", c.dp, c.tp, c.pp, c.cp, c.ep),
  >     details = string.format("vpp %d, sp %s, op %d, mbs %d, %s", c.vpp, c.sp and "on" or "off", c.op, c.mbs,
  >                             c.recompute),
  >     ["peak a device"] = gib(c.peak_bytes), step = nd.units.seconds(c.step_time_s),
  >     MFU = string.format("%.1f %%", 100 * c.mfu),
  >     ["throughput a device"] = string.format("%.0f tokens/s", 1024 * 4096 / (512 * c.step_time_s)),
  >     ["1T tokens take"] = string.format("%.4g days", c.step_time_s * 1e12 / (1024 * 4096) / 86400),
  >   }
  >   local wrong = {}
  >   for _, k in ipairs({ "fit the budget", "best strategy", "details", "peak a device", "step", "MFU",
  >                        "throughput a device", "1T tokens take" }) do
  >     local mine = (rows[k] or {})[i]
  >     if mine ~= want[k] then wrong[#wrong + 1] = string.format("%s: %s, derived %s", k, tostring(mine), want[k]) end
  >   end
  >   print(id .. ": " .. (#wrong == 0 and "search.lua agrees" or table.concat(wrong, "; ")))
  > end
  > LUA
  $ ndlua check.lua
  Qwen/Qwen3-235B-A22B: search.lua agrees
  deepseek-ai/DeepSeek-V3: search.lua agrees
