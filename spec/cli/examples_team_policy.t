examples/team_policy.lua (issue 8): a team's ranking policy
(examples/policies/team.lua) beside the default one, for Qwen3-30B-A3B on 64
H100s. Which candidates lead, and by how much, follows from the memory and
time formulas, still being refined, so those numbers are globs here (as in
estimate_examples.t); every row is then checked against search.lua run with
each policy, and each verdict of the team's rules is derived again from the
candidate by the rules as team.lua's comments state them (TP x CP at most the
8 devices of an H100 node; a peak at most 92 % of the 80 GiB budget, 73.60
GiB). Pinned by hand: the devices, batch, memory, node size and sequence
(the yaml's 4096 tokens).

  $ ndlua "$ROOT/examples/team_policy.lua" > out 2> err; cat err out
  Qwen/Qwen3-30B-A3B on 64 H100 devices (80.00 GiB each, 8 a node), a global batch of 512 x 4096 tokens
  * strategies fit; the team's rules keep * of them (glob)
  
  top 8 by throughput, and what the team's rules say of each:
  rank  strategy * peak * step  team (glob)
     1  dp * GiB * s  * (glob)
     2  dp * GiB * s  * (glob)
     3  dp * GiB * s  * (glob)
     4  dp * GiB * s  * (glob)
     5  dp * GiB * s  * (glob)
     6  dp * GiB * s  * (glob)
     7  dp * GiB * s  * (glob)
     8  dp * GiB * s  * (glob)
  
  top 8 by the team's policy (score: the step, 5 % more per doubling of EP above 8):
  rank  strategy * peak * step * score (glob)
     1  dp * GiB * s * s (glob)
     2  dp * GiB * s * s (glob)
     3  dp * GiB * s * s (glob)
     4  dp * GiB * s * s (glob)
     5  dp * GiB * s * s (glob)
     6  dp * GiB * s * s (glob)
     7  dp * GiB * s * s (glob)
     8  dp * GiB * s * s (glob)

The check: search.lua with the default policy and with team.lua, on the same
yaml, devices, batch and memory; the counts from its summary lines, the rows
from its JSON, and the team column derived from each candidate.

  $ cat > check.lua <<'LUA'
  > local nd = require "nd"
  > local root = os.getenv("ROOT")
  > local YAML = root .. "/examples/qwen3-30b-a3b-fsdp8/train.yaml"
  > local function search(policy, json)
  >   local p = io.popen(string.format("ndlua search.lua %s -d 64 -b 512 -M 80GB -A H100 --recompute auto -t 8 "
  >     .. "--policy %s -o o %s 2>/dev/null", YAML, policy, json and "--json" or ""))
  >   local text = p:read("a")
  >   p:close()
  >   return json and nd.json.decode(text) or text
  > end
  > local fast, team = search("throughput", true), search(root .. "/examples/policies/team.lua", true)
  > local kept = search(root .. "/examples/policies/team.lua"):match("\n(%d+) of them kept by the policy's rules")
  > local out = assert(io.open("out")):read("a")
  > local counts = string.format("%d strategies fit; the team's rules keep %s of them", fast.fitting, kept)
  > print("counts: " .. (out:find(counts, 1, true) and "search.lua agrees" or counts))
  > local function gib(bytes) return string.format("%.2f GiB", bytes / 2 ^ 30) end
  > local function strategy(c)
  >   return string.format("dp %d tp %d pp %d vpp %d cp %d ep %d op %d sp %s mbs %d %s", c.dp, c.tp, c.pp, c.vpp, c.cp,
  >     c.ep, c.op, c.sp and "on" or "off", c.mbs, c.recompute)
  > end
  > local function verdict(c)
  >   if c.tp * c.cp > 8 then return string.format("TP x CP %d > a node's 8", c.tp * c.cp) end
  >   if c.peak_bytes > 0.92 * 80 * 2 ^ 30 then return "peak over 73.60 GiB (92 %)" end
  >   for _, t in ipairs(team.candidates) do
  >     if strategy(t) == strategy(c) then return "kept, team rank " .. t.rank end
  >   end
  >   return "kept, team rank below 8"
  > end
  > local flat = ("\n" .. out):gsub("\n +", "\n"):gsub(" +", " ")
  > local function check(what, list, last)
  >   local n = 0
  >   for _, c in ipairs(list) do
  >     local row = table.concat({ c.rank, strategy(c), gib(c.peak_bytes), string.format("%.3f s", c.step_time_s),
  >                                last(c) }, " ")
  >     if flat:find("\n" .. row .. "\n", 1, true) then n = n + 1 else print(what .. ": search.lua: " .. row) end
  >   end
  >   print(what .. ": " .. (n == 8 and "search.lua agrees on all 8" or (n .. " of 8 agree")))
  > end
  > check("throughput", fast.candidates, verdict)
  > check("team", team.candidates, function(c) return string.format("%.3f s", c.score) end)
  > LUA
  $ ndlua check.lua
  counts: search.lua agrees
  throughput: search.lua agrees on all 8
  team: search.lua agrees on all 8

Every candidate of the team's top 8 keeps its rules, and the team's ranks of
the throughput top 8 that it keeps rise in order (its rules set some aside,
and its score here is the step: no candidate near the top uses EP above 8):

(a team row's fields from the end: score, s, step, s, GiB, the peak)

  $ awk '/^top 8 by the team/ { team = 1 } team && /^ +[0-9] / { if ($(NF-4) != "GiB") print "fields moved"; else if ($(NF-5) + 0 > 73.60) print "over the headroom:", $1 }' out
  $ awk '/kept, team rank/ { print $NF }' out | sort -n -c && echo in order
  in order
