search.lua --balance (issue 32 item 4): every pipelined candidate is
priced with its balanced plan, or pruned by a bound no plan of its layout
beats (lua/nd/balance_search.lua). The Llama-3.1-70B example on 64 A3
devices at 40 GiB: evenly split, dp 2 x tp 8 x pp 4 fits only with full
recompute (stage 0 keeps 4 micro-batches: off 49.98 GiB, selective 40.49 GiB
by estimate.lua); the C search's memory filter is widened to 1.25 x the
budget (50 GiB: 313 candidates fit there, 145 at 40 GiB) so that such a layout
reaches the balancer; balanced, it keeps 17 selective layers on stage 0 and 4 on
stage 1 and fits at 39.87 GiB, the fastest candidate. The recompute column
says what the plan mixes (off+sel: plain and selective layers); the last
column marks balanced rows and their gain over their own even split.
Each pipelined candidate's floor (timing.c's pipeline_floor_seconds: its
layout's stage times summed with no recompute, spread evenly, the largest
stage at least its share of whole layers; dp_floor_seconds: DP's seconds at
the stages' mean weights) is below any step its plan or its even split can
take; the candidates are taken in order of it, and the 119 whose floor is
above the 3rd row's step are pruned. Of those taken, a layout is not solved where the layers any plan
that fits must recompute (balance_run.least_recompute, by counting bytes),
each adding its rerun seconds (nd.core.rerun_seconds) to the floor, step it
past that row; a problem where counting layers shows none fits is not
solved either (spec/balance_search_spec.lua: the same top as balancing all
294).

  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -d 64 -b 64 -M 40GB -A A3 --recompute auto -j 1 -t 3 --balance -k 1 2>/dev/null | grep -v '^ *#\|separates'
  search: llama on 64 devices (A3), a global batch of 64, 40.00 GiB a device (-M 40GB, GB read as GiB, 2^30 bytes); recompute off, selective, full (--recompute); ranked by throughput
  bounds: PP up to 16 (the machine's 16, 80 layers over VPP 1, a batch of 64); EP up to 1 (a dense model); TP up to 8 (the model's KV heads)
  7824 candidates tested: 2802 refused (a degree out of bounds 2802), 5022 priced for memory
  313 fitting the budget of 50.00 GiB, 4709 dropped over it; searched in * s (glob)
  balanced (--balance): 175 of 294 pipelined candidates taken in order of their floor (48 took a balanced plan; 89 layouts not solved: the recompute any plan that fits needs steps them past the top 3's last row; 125 problems solved, 13 alike, 82 proved to have no plan that fits by counting layers; * s), 119 pruned: no split or recompute of their layout steps faster than that row; the memory filter saw up to 50.00 GiB, each kept candidate fits 40.00 GiB (glob)
  
  top 3 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1    2   8   4   1   1    1    2  on    32   1 off+sel       39.87     28.048  34.9%  28.5%  57.0%   0.0%   5.4%   0.0%   0.0%   0.6%   0.4%   8.2%   0.0%  balanced (its even split does not fit)
     ~2    4   8   2   1   1    1    4  on    16   1 selective     40.00     28.100  34.8%  27.7%  55.3%   1.3%   5.3%   0.0%   0.0%   0.3%   4.5%   5.5%   0.0%
     ~3    4   8   2   1   1    1    4  on    16   1 off+sel       39.90     28.318  34.6%  28.1%  56.2%   0.0%   5.4%   0.0%   0.0%   0.3%   4.6%   5.3%   0.0%  balanced (its even split does not fit)
  ~ 2 rows within 18.5 % of #1's step (28.048 s), the time model's mean error on the 23 validation cases (make validate): as close to #1 as the model can tell
  
  resolved strategy written to ./resolved.yaml (context left out; train it on 64 devices)
  plan of #1 written to ./plan-1.json

--balance-limit N caps the candidates balanced, in order of their bound, and
is no silent cap: the summary says how many it left at their even split, and
the top is then not proved (here the capped top misses the balanced dp 2 x
tp 8 x pp 4 row):

  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -d 64 -b 64 -M 40GB -A A3 --recompute auto -j 1 -t 3 --balance --balance-limit 20 -o all 2>/dev/null | grep -E '^ +~?[0-9] |balanced \(|balance-limit'
  balanced (--balance): 20 of 294 pipelined candidates taken in order of their floor (6 took a balanced plan; 0 layouts not solved: the recompute any plan that fits needs steps them past the top 3's last row; 13 problems solved, 0 alike, 34 proved to have no plan that fits by counting layers; * s), 51 pruned: no split or recompute of their layout steps faster than that row; the memory filter saw up to 50.00 GiB, each kept candidate fits 40.00 GiB (glob)
  not balanced (--balance-limit 20): 223 pipelined candidates past it in order of their bound are priced at their even split; the top 3 is that of balancing every candidate only if none of them would rank there balanced (not checked)
      1    4   8   2   1   1    1    4  on    16   1 selective     40.00     28.100  34.8%  27.7%  55.3%   1.3%   5.3%   0.0%   0.0%   0.3%   4.5%   5.5%   0.0%
     ~2   16   4   1   1   1    1   16  on     2   2 full          36.62     32.319  30.3%  23.7%  47.4%  23.4%   3.0%   0.0%   0.0%   0.0%   2.5%   0.0%   0.0%
     ~3   32   2   1   1   1    1   32  on     2   1 full          37.60     32.522  30.1%  23.6%  47.1%  23.2%   1.0%   0.0%   0.0%   0.0%   5.0%   0.0%   0.0%

Under the memory policy a candidate whose even split fits ranks at the
better of its even split and its balanced plan by the policy's order (the
lower peak, then the faster step): the balancer minimises the step, so its
plan may peak above the even split (dp 1 x tp 4 x pp 4 at full recompute,
the search's lightest candidate: 19.06 GiB and 4.139 s evenly split,
22.77 GiB and 2.714 s balanced), and the row is then the even split, #1 here
(were the plan to take it, the table would begin at 19.32 GiB). The
candidates are taken in order of a floor on their peak
(balance_search.peak_floor: no split of the layout's layers with any
recompute peaks below it, so a row's peak, the lesser of its even split's
and its plan's, is at least the lesser of the even peak and the floor; the
proof is in the module, the floor checked by hand in
spec/balance_search_spec.lua), and once that passes the peak of the
table's last row no candidate left can rank there: the table is the one
balancing every candidate gives:

  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 16 -b 64 -M 32GB -A A3 --recompute auto -j 1 -t 5 --balance --policy memory -o memory 2>/dev/null | grep -E '^ +~?[0-9] |balanced \('
  balanced (--balance): 459 of 801 pipelined candidates taken in order of their peak's floor (86 took a balanced plan; 524 problems solved, 258 alike, 271 proved to have no plan that fits by counting layers; * s), 342 pruned: no split or recompute of their layout peaks below the top 5's last row; the memory filter saw up to 40.00 GiB, each kept candidate fits 32.00 GiB (glob)
  not balanced (candidates: why): 4: too few layers a stage to probe
      1    1   4   4   1   1    1    1  on    64   1 full          19.06      4.139  24.3%  23.8%  47.7%  17.7%   7.0%   0.0%   0.0%   0.1%   0.0%   3.7%   0.0%  also #3 (sp off)
     ~2    1   4   4   1   1    4    1  on    64   1 full          19.11      4.746  21.2%  20.8%  41.6%  15.4%   6.1%   0.0%  12.2%   0.1%   0.0%   3.8%   0.0%
     ~4    1   4   4   2   1    1    1  on    64   1 full          19.13      4.068  24.7%  24.3%  48.5%  18.0%   7.1%   0.0%   0.0%   0.3%   0.0%   1.9%   0.0%
     ~5    1   4   4   3   1    1    1  on    64   1 full          19.15      4.049  24.8%  24.4%  48.7%  18.1%   7.2%   0.0%   0.0%   0.4%   0.0%   1.2%   0.0%

Under the nd policy the ranked key, the reference's score (nd_score), is
the even split's, balanced or not: balancing only decides which candidates
fit, so they are balanced in rank order until the table is full, exactly.
A policy with a score function may rank a balanced candidate anywhere (the
function reads any field), so no bound orders them: the first 64 by rank
are balanced and the summary says why the rest is not checked.

resolved.yaml carries the plan (model.config_overrides.offset and sel_rec,
the mode off under them), and estimate.lua reads it back to the search's
peak (39.87 GiB on stage 1) and step (28.048 s):

  $ grep -A 10 config_overrides resolved.yaml
    config_overrides:
      offset:
      - -1
      - 0
      - 1
      - 0
      sel_rec:
      - 17
      - 4
      - 0
      - 0
  $ ndlua estimate.lua resolved.yaml -d 64 -M 40GB -A A3 | grep -E '^\*|^step time'
  *     1     20        1.99        1.99        7.97        3.98       21.36        0.60        0.98        1.00       39.87
  step time 28.048 s on A3 (-A): MFU 34.9%, 292.1 tokens/s a device

The plan of -k 1: the offsets and the recompute list, and the problem the
balancer solved (a layer's static bytes: 855 654 400, by hand in
spec/balance_run_spec.lua):

  $ ndlua -e 'local nd = require "nd"; local p = nd.json.load("plan-1.json"); print(p.rank, p.balance.recompute_mode, table.concat(p.balance.offset, " "), table.concat(p.balance.recompute, " "), p.problem.layer.stat)' | tr '\t' ' '
  1 selective -1 0 1 0 17 4 0 0 855654400

--balance-limit and -k read the balanced plans:

  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -d 64 -b 64 -M 40GB -k 2
  -k: reads the balanced plans, but the search balances none; --balance
  [2]
  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -d 64 -b 64 -M 40GB --balance --csv all.csv
  --csv: writes every candidate at its even split, which --balance re-prices and re-ranks (the C search's filter widened); --csv without --balance
  [2]

The legacy schema (train.*, the upstream Qwen3-72B config): the resolved.yaml
says only `context` was left out (the plan states offset and sel_rec again),
and estimate.lua reads the plan back to the search's peak and step:

  $ ndlua search.lua $ROOT/spec/fixtures/upstream/sapp_nd-hyper_qwen3_72b.yaml -d 64 -b 64 -M 40GB -A A3 --recompute auto -j 1 -t 1 --balance -o legacy 2>/dev/null | grep -E 'resolved strategy|^ +1 '
      1    1   8   2   1   4    1    1 off    64   1 off+sel       40.00     12.872  37.8%  30.1%  60.2%   0.2%   5.8%   1.9%   0.0%   0.3%   0.0%   1.5%   0.0%  balanced (its even split does not fit)
  resolved strategy written to legacy/resolved.yaml (context left out; train it on 64 devices)
  $ ndlua estimate.lua legacy/resolved.yaml -d 64 -M 40GB -A A3 2>/dev/null | grep -E '^\*|^step time'
  *     1     40       16.99        4.25        8.49        8.10        0.02        1.16        1.00       40.00
  step time 12.872 s on A3 (-A): MFU 37.8%, 318.2 tokens/s a device

DeepSeek-V3 on 1024 A3 devices at 58 GB (issue 32's bar case): two body
layer kinds, its 3 dense layers pinned to stage 0's first chunk (vpp 1).
The top candidate, dp 4 x tp 16 x pp 16 at 512 micro-batches (EP past DP:
the experts whole and each rank dispatching its own tokens, src/core/derive.c
ep_token_share), is balanced to 20.724 s against its own even split's
20.794 s (which does not fit 58 GB; no recompute, selective where it
must).
The plan goes to resolved.yaml (offset, and sel_rec: the layers each stage
recomputes selectively), and estimate.lua reads it back to the search's
per-stage bytes on all 16 stages (largest difference 0 B), its peak and its
step:

  $ ndlua search.lua $ROOT/examples/deepseek-v3-256/train.yaml -d 1024 -b 2048 -A A3 -M 58GB --recompute auto -j 1 -t 1 --balance --json -o ds > ds.json 2>/dev/null
  $ ndlua estimate.lua ds/resolved.yaml -d 1024 -M 58GB -A A3 --json > back.json 2>/dev/null
  $ ndlua -e '
  > local nd = require "nd"
  > local s, e = nd.json.load("ds.json"), nd.json.load("back.json")
  > local c = s.candidates[1]
  > local worst = 0
  > for i, st in ipairs(e.stages) do worst = math.max(worst, math.abs(st.bytes.total - c.balance.stage_bytes[i])) end
  > print(c.dp, c.tp, c.pp, c.vpp, c.cp, c.recompute, #e.stages, worst, e.peak_bytes == c.peak_bytes)
  > print(("even %.3f s, balanced %.3f s, read back %.3f s"):format(c.balance.even_step_s, c.step_time_s, e.step.step_time_s))' | tr '\t' ' '
  4 16 16 1 1 off+sel 16 0 true
  even 20.794 s, balanced 20.724 s, read back 20.724 s
  $ grep -A 3 'sel_rec:' ds/resolved.yaml
      sel_rec:
      - 3
      - 0
      - 0

The same search with VPP kept at the example's 2 (-l without VPP): at pp 16
the 3 dense layers span two cells (stage 0's first chunk holds the embedding
and 2 of them, stage 1's the third before an MoE layer), so each candidate
is balanced with both kinds in model order (nd.core.balance kinds and
sequence). The top row, dp 4 x tp 16 x pp 16 at 512 micro-batches, is
balanced to 23.507 s against its even split's 30.068 s (full recompute on
every layer; 1.279x), both priced in the interleaved order's own timeline;
not proved optimal: that order stalls on the count model's unequal chunks
past the closed form it optimizes (src/core/timing.c: 24.862 s), so each
stage's layers are dealt evenly over its chunks, the fewest recomputed that
fit (nd.balance_resplit), which steps less; estimate.lua reads
resolved.yaml back to the search's bytes on all 16 stages (largest
difference 0 B), its peak and its step. The lists (per chunk, then stage)
recompute each cell's first layers: both dense cells recompute all theirs
(stage 1's first chunk: its dense layer, not its MoE one):

  $ ndlua search.lua $ROOT/examples/deepseek-v3-256/train.yaml -d 1024 -b 2048 -A A3 -M 58GB --recompute auto -j 1 -t 1 --balance -l DP TP SP PP CP EP OP MB MBS --json -o ds2 > ds2.json 2>/dev/null
  $ ndlua estimate.lua ds2/resolved.yaml -d 1024 -M 58GB -A A3 --json > back2.json 2>/dev/null
  $ ndlua -e '
  > local nd = require "nd"
  > local s, e = nd.json.load("ds2.json"), nd.json.load("back2.json")
  > local c = s.candidates[1]
  > local worst = 0
  > for i, st in ipairs(e.stages) do worst = math.max(worst, math.abs(st.bytes.total - c.balance.stage_bytes[i])) end
  > print(c.dp, c.tp, c.pp, c.vpp, c.cp, c.recompute, #e.stages, worst, e.peak_bytes == c.peak_bytes, c.balance.optimal)
  > print(("even %.3f s, balanced %.3f s, read back %.3f s"):format(c.balance.even_step_s, c.step_time_s, e.step.step_time_s))
  > local model, run = nd.load("ds2/resolved.yaml", { quiet = true })
  > local l = nd.layout(model, run)
  > for s = 1, 2 do
  >   local t = {}
  >   for _, r in ipairs(l[s].chunks[1].runs) do t[#t + 1] = r.count .. " " .. r.kind .. " " .. r.recompute end
  >   print("stage " .. (s - 1) .. " chunk 0: " .. table.concat(t, ", "))
  > end' | tr '\t' ' '
  4 16 16 2 1 off+full 16 0 true false
  even 30.068 s, balanced 23.507 s, read back 23.507 s
  stage 0 chunk 0: 2 dense full
  stage 1 chunk 0: 1 dense full, 1 moe off
