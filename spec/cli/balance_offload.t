balance.lua --offload (issue 32, the reference planner's -ao): a train.yaml's
plain layers may offload their activations to the host, copied out in the
forward and back before the backward over the hardware profile's host link
(lua/nd/host_link.lua). The example's Llama-3.1-70B run (pp 4, 32
micro-batches, 1F1B) on A3 at 20 GiB: no plan of recompute alone fits (the
stages hold at most 77 of the 80 layers); with offload one does.

  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 20GiB -A A3
  */train.yaml: llama, 80 body layers (decoder), 4 stages x 1 chunks, 32 micro-batches, 20.00 GiB a device, A3 (glob)
  no plan: the stages hold at most 77 of the body layers; proved
  [1]

By hand, a layer keeps 0.379 GiB a micro-batch (407379968 B, the estimate's
activation bytes of a plain layer): copied out and back, 0.759 GiB at A3's
6.92 GiB/s (the reference's measured host link) is 0.1097 s; 0.8 of the
layer's forward runs behind it (0.009 s), 0.1004 s is exposed, and 2.8 ms a
GiB copied (the reference's A3 copy cost) adds 0.0021 s: 0.1023 s a layer a
micro-batch, so stage 0's 15 offloaded layers add 15 x 0.1023 = 1.535 s and
stage 1's 7 add 0.716 s (the copy s column); they move 15 x 0.379 = 5.691
and 7 x 0.379 = 2.656 GiB a micro-batch (host GiB). The first stages, which
keep the most micro-batches in flight, offload; the last ones recompute.

  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 20GiB -A A3 --offload
  */train.yaml: llama, 80 body layers (decoder), 4 stages x 1 chunks, 32 micro-batches, 20.00 GiB a device, A3 (glob)
  stage  chunk   layers       off  selective      full     peak GiB    limit GiB     time s  offload   host GiB     copy s
  0      0           20        15          0         5       19.94        20.00     2.3609       15      5.691     1.5349
  1      0           21         7          0        14       19.97        20.00     1.6969        7      2.656     0.7163
  2      0           21         0          0        21       19.97        20.00     1.0715        0      0.000     0.0000
  3      0           18         1          0        17       19.97        20.00     0.9466        0      0.000     0.0000
  step 79.37 s (the balanced layout priced by the estimate; peak 19.97 GiB on stage 3); the count model's plan is proved optimal
  even split, one mode: no single recompute mode fits every stage
  offload: 22 layers (27.5 % of the body) move 8.347 GiB a micro-batch to the host over the host link: 6.92 GiB/s each way (the A3 profile), overlap 0.8 of a layer's forward, 2.8 ms a GiB copied; a layer copies 0.379 GiB out and back in 0.110 s, 0.009 s of it behind its forward, 0.100 s exposed, 0.002 s copy cost (a micro-batch; the host GiB and copy s columns: each stage's)
  solved in * s (glob)

The peaks by hand: estimate.lua prices the same layout (offsets 0, 1, 1,
-2; 5, 14, 21, 17 layers fully recomputed) with every activation kept on
the device (no fragmentation here: allocated = reserved); stage 0 keeps 4
micro-batches in flight (1F1B: pp - s), so its
15 offloaded layers free 15 x 0.3794 x 4 = 22.76 GiB: 42.70 - 22.76 =
19.94 GiB; stage 1 (3 in flight) 7 x 0.3794 x 3 = 7.97 GiB: 27.93 - 7.97 =
19.96 (19.97 above, from unrounded bytes); stages 2 and 3 offload none
(19.97, 19.97). The step: 1F1B's sum + 31 x the slowest stage's seconds,
0.9466 + 1.0715 + 1.6969 + 2.3609 + 31 x 2.3609 = 79.26 s, and 0.11 s of
data-parallel and optimizer seconds: 79.37 s (estimate.lua's 37.150 s below
less the same sum without the copies, 0.8260 + 0.9806 + 1.0715 + 0.9466 +
31 x 1.0715 = 37.04 s, is that 0.11 s).

  $ ndlua estimate.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -A A3 -M 20GiB --model.config_overrides.offset=[0,1,1,-2] --model.config_overrides.full_rec=[5,14,21,17] | grep -E "^[ *]+[0-3] |^step time"
  *     0     20        2.11        2.11        8.46        4.23       23.08        0.73        0.98        1.00       42.70
        1     21        2.09        2.09        8.37        4.18        8.62        0.60        0.98        1.00       27.93
        2     21        2.09        2.09        8.37        4.18        0.66        0.60        0.98        1.00       19.97
        3     18        1.92        1.92        7.66        3.83        1.20        0.73        1.71        1.00       19.97
  step time 37.150 s on A3 (-A): MFU 26.3%, 220.5 tokens/s a device

Where recompute alone fits (40 GiB, the balance_train.t plan), no offload
is faster, and the plan is the one without it (the same step as without
--offload):

  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 40GiB -A A3 | grep -e '^step'
  step 28.05 s (the balanced layout priced by the estimate; peak 39.87 GiB on stage 1); the count model's plan is proved optimal
  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 40GiB -A A3 -ao | grep -e '^step' -e '^offload'
  step 28.05 s (the balanced layout priced by the estimate; peak 39.87 GiB on stage 1); the count model's plan is proved optimal
  offload: no layer (no plan offloading is faster by more than 1e-9 of its step; the host link: 6.92 GiB/s each way (the A3 profile), overlap 0.8 of a layer's forward, 2.8 ms a GiB copied)

--json gains the reference's offloaded_layers, offloaded_gib (a
micro-batch, all stages: 5.691 + 2.656 = 8.347) and offloaded_share (22 of
80 layers), and per stage the counts, GiB and seconds:

  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 20GiB -A A3 --auto-offload --json > o.json
  $ grep -e '"offloaded' -e '"cost_ms' -e '"gibps' -e '"overlap' o.json
      "cost_ms_per_gib": 2.8,
      "gibps": 6.92,
      "overlap": 0.8
    "offloaded_gib": 8.346847534179688,
    "offloaded_layers": 22,
    "offloaded_share": 0.275,
  $ grep -A 5 '"stage_offloaded"' o.json
    "stage_offloaded": [
      15,
      7,
      0,
      0
    ],

The options' errors (exit 2), as the reference's: a host-link option
without --offload; --offload on a SAPP-PPB layer file (no bytes, its own
time unit); more than one chunk a stage (the reference's -ao is vp = 1);
--objective sapp; a profile without a host link (B200 states none); a
share out of range; and --yaml with a plan that offloads, since
HyperParallel's train.yaml has no per-layer activation offload key (only
activation_swap):

  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --host-link-gibps 10
  --host-link-gibps prices activation offload's copies: it needs --offload; --offload --host-link-gibps ...
  [2]
  $ ndlua balance.lua $ROOT/spec/fixtures/sapp-ppb/demo.json -s 8 -m 16 --memory 64000MB --offload
  --offload prices a TRAIN_YAML's layers: a SAPP-PPB layer file states no bytes for a copy to move, and its times are in its own unit; a TRAIN_YAML with --offload, or no --offload
  [2]
  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -ao -i 2
  --offload plans one chunk a stage (the reference's -ao, vp = 1); -i 1 and --schedule 1f1b with --offload
  [2]
  $ ndlua balance.lua $ROOT/examples/deepseek-v3-256/train.yaml -ao -A A3 2> err.txt
  [2]
  $ grep -v '^warning' err.txt
  --offload plans one chunk a stage (the reference's -ao, vp = 1); the run has 2; a run of one chunk a stage (no pp_interleave_num / vpp), or no --offload
  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -ao --objective sapp
  --offload prices ndlua's step: --objective sapp has no offload; --objective step
  [2]
  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -ao -A B200
  --offload: the hardware profile B200 states no host link bandwidth (host_link_gibps); --host-link-gibps G, or -A a profile stating one
  [2]
  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -ao --host-link-overlap 1.5
  --host-link-overlap must be a number from 0 to 1, got 1.5; ndlua balance.lua --help
  [2]
  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 20GiB -A A3 -ao --yaml x.yaml
  --yaml: the plan offloads 22 layers' activations to the host; HyperParallel's train.yaml has no key for a layer's activation offload (only activation_swap), so no train.yaml would hold this plan; no --yaml with --offload
  [2]
  $ test -e x.yaml
  [1]

--svg draws the offloading plan. The memory bars are the estimate's
components with the offloaded bytes taken off as above (the peak GiB
column: 19.94, 19.97, 19.97, 19.97 over the bars), each stage's offloaded
bytes outlined over its bar, not in its total (22.76 GiB on stage 0, 7.97
on stage 1); stage 0's activations part is its 23.08 GiB less 22.76 =
0.31 GiB, stage 1's 8.62 - 7.97 = 0.66 (from unrounded bytes; 0.65 from
the rounded ones):

  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 20GiB -A A3 -ao --svg x.svg | tail -1
  chart: x.svg
  $ grep -o 'peak [0-9.]* GiB on stage [0-9]' x.svg
  peak 19.97 GiB on stage 3
  $ grep -o '<text[^>]*font-size="10"[^>]*>[0-9.]*</text>' x.svg | sed 's/<[^>]*>//g' | tr '\n' ' '; echo
  22.76 19.94 7.97 19.97 19.97 19.97 
  $ grep -o '<title>[01], [a-z (]*[ao][cn][^<]*</title>' x.svg | grep -e activations -e host
  <title>0, activations: 0.31 GiB</title>
  <title>0, on the host (offloaded activations): 22.76 GiB</title>
  <title>1, activations: 0.66 GiB</title>
  <title>1, on the host (offloaded activations): 7.97 GiB</title>

The timeline draws each offloaded stage's copy seconds a micro-batch (the
copy s column: 15 x 0.1023 = 1.5349 s on stage 0, 7 x 0.1023 = 0.7163 s
on stage 1) as their own grey block after each of its 32 forwards, in the
time model's way (the step adds them to the stage's seconds a micro-batch):
64 blocks, plus one legend entry. Stage 0's forward without them is its
time less its backward and the copies; its first block ends where stage
1's first forward starts (0.2362 + 1.5349 = 1.7712 s). A block's width is
its seconds at 900 px over the 77.49 s the order spans (900 / 77.49 x
0.7163 = 8.32 px, 17.83 px for 1.5349 s):

  $ grep -c '<rect fill="#6b6b6b"' x.svg
  65
  $ grep -o 'host copy (exposed + cost)' x.svg
  host copy (exposed + cost)
  $ grep -o 'the host copies [0-9.]* s' x.svg | sort | uniq -c
       32 the host copies 0.7163 s
       32 the host copies 1.5349 s
  $ grep -o '<title>stage [01] forward micro-batch 1: [^<]*</title>' x.svg
  <title>stage 0 forward micro-batch 1: 1.7712 s from 0.0000 s; the host copies 1.5349 s from 0.2362 s</title>
  <title>stage 1 forward micro-batch 1: 0.9643 s from 1.7712 s; the host copies 0.7163 s from 2.0192 s</title>
  $ grep -o 'it spans [0-9.]* s' x.svg
  it spans 77.49 s
  $ grep -o '<rect fill="#6b6b6b"[^>]*>' x.svg | grep -o ' width="[0-9.]*"' | sort | uniq -c
        1  width="12"
       32  width="17.83"
       32  width="8.32"

(the 12 px one is the legend's square.)
