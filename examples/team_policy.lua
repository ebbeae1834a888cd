-- team_policy.lua: a team's own ranking policy beside the default one.
--
--   ndlua examples/team_policy.lua
--
-- Qwen3-30B-A3B with the recipe of examples/qwen3-30b-a3b-fsdp8/train.yaml,
-- on 64 H100s (80 GiB, 8 a node), a global batch of 512 sequences of 4096
-- tokens, every dimension and recompute mode searched. The candidates are
-- ranked twice: by the default policy (throughput: the fastest estimated
-- step first) and by examples/policies/team.lua, whose rules say what the
-- team has learnt on its cluster, in its comments:
--
--   * TP x CP stays inside a node: their collectives run every layer, and
--     across the shared network they stall the step at busy hours;
--   * EP above 8 pays 5 % a doubling: its all-to-all crosses nodes and
--     varies with the routing's imbalance, which the time model (balanced
--     routing) does not see;
--   * 8 % of the budget stays free: the estimate leaves out the
--     allocator's fragmentation.
--
-- The first table shows the throughput policy's top candidates and
-- whether the team's rules keep each; the second, the team's own top. (No
-- candidate near the top uses EP above 8 here, so the team's scores are
-- the steps; its keep() rules make the difference.)

local nd = require "nd"
local study = nd.study

local here = arg and arg[0] and arg[0]:match("^(.*)/") or "."
local POLICY = here .. "/policies/team.lua"
local DEVICES, BATCH, MEMORY, HARDWARE, TOP = 64, 512, "80GB", "H100", 8
local model, run, extras = nd.load(here .. "/qwen3-30b-a3b-fsdp8/train.yaml",
                                  { devices = DEVICES, overrides = { ["training.global_batch_size"] = BATCH } })
local name = extras.source.id or model:spec().name
local budget = nd.units.parse_bytes(MEMORY)
local node = nd.hardware(HARDWARE).levels[1].devices

local function ranked(policy)
  return nd.search(model, run, { global_batch = BATCH, memory = MEMORY, hardware = HARDWARE, recompute = "auto",
                                 policy = policy, top = TOP })
end
local fastest, by_speed = ranked("throughput")
local chosen, by_team = ranked(POLICY)

-- Why the team's rules set a candidate aside (team.lua's keep), or nil.
local function refusal(c)
  if c.tp * c.cp > node then return string.format("TP x CP %d > a node's %d", c.tp * c.cp, node) end
  if c.peak_bytes > 0.92 * budget then
    return string.format("peak over %s (92 %%)", nd.units.gib(0.92 * budget))
  end
  return nil
end

-- The team's rank of a candidate, found by its degrees and recompute.
local function team_rank(c)
  for _, t in ipairs(chosen) do
    if t.dp == c.dp and t.tp == c.tp and t.pp == c.pp and t.vpp == c.vpp and t.cp == c.cp and t.ep == c.ep
      and t.op == c.op and t.sp == c.sp and t.mbs == c.mbs and t.recompute == c.recompute then
      return t.rank
    end
  end
  return nil
end

local function with_text(list)
  for _, c in ipairs(list) do
    c.strategy = string.format("dp %d tp %d pp %d vpp %d cp %d ep %d op %d sp %s mbs %d %s", c.dp, c.tp, c.pp, c.vpp,
                               c.cp, c.ep, c.op, c.sp and "on" or "off", c.mbs, c.recompute)
    c.team = refusal(c) or ("kept, team rank " .. (team_rank(c) or string.format("below %d", TOP)))
  end
  return list
end

print(string.format("%s on %d %s devices (%s each, %d a node), a global batch of %d x %d tokens", name, DEVICES,
                    HARDWARE, nd.units.gib(budget), node, BATCH, run.seq_length))
print(string.format("%d strategies fit; the team's rules keep %d of them", by_speed.counts.fitting, by_team.kept))
print()
print(string.format("top %d by throughput, and what the team's rules say of each:", TOP))
study.print_table(with_text(fastest), { "rank", "strategy", { key = "peak_bytes", title = "peak" },
                                        { key = "step_time_s", title = "step", digits = 3 }, "team" })
print()
print(string.format("top %d by the team's policy (score: the step, 5 %% more per doubling of EP above 8):", TOP))
study.print_table(with_text(chosen), { "rank", "strategy", { key = "peak_bytes", title = "peak" },
                                       { key = "step_time_s", title = "step", digits = 3 },
                                       { key = "score", title = "score", unit = "s", digits = 3 } })
