search.lua --balance --offload (issue 32 item 4: the search's equivalent of
the reference's -ar with -ao): each pipelined candidate's balanced plan may
offload plain layers' activations to the host at the hardware profile's
host-link price (lua/nd/host_link.lua; balance.lua --offload, whose
transcript is balance_offload.t). The example's Llama-3.1-70B on 64 A3
devices at 20 GiB: balanced without offload one candidate fits (pp 8);
with it two more do, and the pp 4 one is the example's own run, whose
plan balance_offload.t prints: stages 0 and 1 offloading 15 and 7 layers,
79.37 s a step, 19.97 GiB at the peak (the same here). What the copies
add to the step is its own part, `copy` (the step with them less the
layout's without them, whose parts the other columns are), listed where a
row offloads, so each row's parts sum to its step: row 2's 10.0 + 20.0 +
10.0 + 3.0 + 0.2 + 0.1 + 3.5 + 53.2 = 100.0 %, row 3's 7.7 + 15.4 + 4.5 +
1.9 + 0.1 + 1.4 + 1.7 + 67.3 = 100.0 %.

  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -d 64 -b 64 -M 20GB -A A3 --recompute auto -j 1 -t 3 --balance 2>/dev/null | grep -E '^ +~?[0-9] |^offload'
      1    1   8   8   1   1    1    1  on    64   1 off+full      19.85     39.254  24.9%  21.2%  42.4%  21.2%   6.3%   0.0%   0.0%   0.1%   0.0%   8.8%   0.0%  balanced (its even split does not fit)
  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -d 64 -b 64 -M 20GB -A A3 --recompute auto -j 1 -t 3 --balance --offload 2>/dev/null | grep -E '^ +~?[0-9] |^offload|^resolved'
  offload (--offload): the plans' plain layers may offload their activations over the host link, 6.92 GiB/s each way (the A3 profile), overlap 0.8 of a layer's forward, 2.8 ms a GiB copied (one chunk a stage: VPP > 1 balanced without it); 2 of the 3 rows shown offload
      1    1   8   8   1   1    1    1  on    64   1 off+full      19.85     39.254  24.9%  21.2%  42.4%  21.2%   6.3%   0.0%   0.0%   0.1%   0.0%   8.8%   0.0%   0.0%  balanced (its even split does not fit)
      2    2   8   4   1   1    1    2  on    32   1 off+full      19.97     79.372  12.3%  10.0%  20.0%  10.0%   3.0%   0.0%   0.0%   0.2%   0.1%   3.5%   0.0%  53.2%  balanced (its even split does not fit), 22 layers offloaded
      3    4   8   2   1   1    1    4  on    16   1 off+full      20.00     96.029  10.2%   7.7%  15.4%   4.5%   1.9%   0.0%   0.0%   0.1%   1.4%   1.7%   0.0%  67.3%  balanced (its even split does not fit), 55 layers offloaded
  resolved strategy written to ./resolved.yaml (context left out; train it on 64 devices)

Row 2's copy part by hand, from balance_offload.t's plan (host_link's rule:
0.1023 s a layer a micro-batch exposed and copy cost; stages 0 and 1 add
1.5349 and 0.7163 s a micro-batch, their seconds 0.8260 + 1.5349 = 2.3609
and 0.9806 + 0.7163 = 1.6969 s): 1F1B's sum + 31 x the slowest stage's
rises from 0.8260 + 0.9806 + 1.0715 + 0.9466 + 31 x 1.0715 to 2.3609 +
1.6969 + 1.0715 + 0.9466 + 31 x 2.3609, by 1.5349 + 0.7163 + 31 x (2.3609
- 1.0715) = 42.22 s, 53.2 % of 79.37 s. The table's header names it, the
ranking's notes separate rows by it, and --json's parts carry it as
host_copy_s (only on the rows that offload), the parts summing to
step_time_s:

  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -d 64 -b 64 -M 20GB -A A3 --recompute auto -j 1 -t 3 --balance --offload -v 1 2>/dev/null | grep -E '^ rank|^  #'
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt   copy
    #2 +40.119 s (+102.2 %): copy +42.222 s, bwd -0.756 s, bubble -0.717 s, fwd -0.378 s; peak +0.12 GiB
    #3 +56.775 s (+144.6 %): copy +64.597 s, rec -3.969 s, bubble -1.852 s, bwd -1.837 s; peak +0.15 GiB
  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -d 64 -b 64 -M 20GB -A A3 --recompute auto -j 1 -t 3 --balance --offload --json -o j 2>/dev/null > s.json
  $ grep -c '"host_copy_s"' s.json
  2
  $ grep -o '"host_copy_s": [0-9.]*' s.json
  "host_copy_s": 42.22238865665541
  "host_copy_s": 64.59713730280629

The --svg chart stacks it on those rows' step bars (its own legend entry):

  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -d 64 -b 64 -M 20GB -A A3 --recompute auto -j 1 -t 3 --balance --offload --svg s.svg -o j 2>/dev/null | tail -1
  chart: s.svg
  $ grep -o '<title>#[0-9] host copy[^<]*</title>' s.svg
  <title>#2 host copy: 42.2 s (53.2%)</title>
  <title>#3 host copy: 64.6 s (67.3%)</title>

The same from a search config's `offload: true` (beside `balance: true`)
and from the train.yaml's context.offload, each named as the source:

  $ printf 'balance: true\noffload: true\n' > s.yaml
  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -s s.yaml -d 64 -b 64 -M 20GB -A A3 --recompute auto -j 1 -t 3 2>/dev/null | grep -E '^offload' | cut -c1-28
  offload (the search config's
  $ sed 's/^context:/context:\n  balance: true\n  offload: true/' $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml > ctx.yaml
  $ ndlua search.lua ctx.yaml -d 64 -b 64 -M 20GB -A A3 --recompute auto -j 1 -t 3 2>/dev/null | grep -E '^offload' | cut -c1-25
  offload (context.offload)

Where the top row's plan offloads (here with copies 200 GiB/s fast, each
layer's hidden behind its forward but for A3's 2.8 ms a GiB copied), no
resolved.yaml is written: HyperParallel's train.yaml has no per-layer
activation offload key (only activation_swap). -k 1 writes the plan as
JSON with the reference's fields (offloaded_layers, offloaded_gib: GiB a
micro-batch all stages move out; offloaded_share: of the 80 layers) and
the offloaded layers of each stage; the layer's offload price (A3's copy
cost: 2 x 0.3794 GiB x 2.8 ms = 2.12 ms, the copy itself hidden):

  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -d 64 -b 64 -M 20GB -A A3 --recompute auto -j 1 -t 1 --balance --offload --host-link-gibps 200 -k 1 -o off 2>/dev/null | grep -E '^resolved|^plan'
  resolved.yaml not written: the top candidate's plan offloads 77 layers' activations to the host, and HyperParallel's train.yaml has no key for a layer's activation offload (only activation_swap); -k 1 writes its plan as JSON
  plan of #1 written to off/plan-1.json
  $ test -e off/resolved.yaml
  [1]
  $ grep -e '"offloaded' off/plan-1.json
      "offloaded_gib": 29.213966369628906,
      "offloaded_layers": 77,
      "offloaded_share": 0.9625,
  $ grep -A 5 '"offload": {' off/plan-1.json
        "offload": {
          "share": 1,
          "time": {
            "off": 0.002124652099609375
          }
        },
  $ grep -A 5 '"stage_offloaded"' off/plan-1.json
      "stage_offloaded": [
        20,
        21,
        20,
        16
      ]

The options' errors (exit 2), as the reference's: -ao without -ar (here
--offload without --balance), a host-link option without --offload, a
profile stating no host link, a search config's offload that is no flag:

  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -d 64 -b 64 -M 20GB --offload
  --offload chooses per layer in the balanced plans, but the search balances none; --balance with it
  [2]
  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -d 64 -b 64 -M 20GB --balance --host-link-cost 1
  --host-link-cost prices activation offload's copies: it needs --offload; --offload --host-link-cost ...
  [2]
  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -d 64 -b 64 -M 20GB --balance -ao -A B200
  --offload: the hardware profile B200 states no host link bandwidth (host_link_gibps); --host-link-gibps G
  [2]
  $ printf 'balance: true\noffload: 3\n' > bad.yaml
  $ ndlua search.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -s bad.yaml -d 64 -b 64 -M 20GB
  bad.yaml:2:10: offload: is 3; offload takes true or false
  Search config validation failed with 1 error(s).
  [2]
