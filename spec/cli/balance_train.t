balance.lua over a train.yaml (issue 32 item 3): ndlua prices the layers
itself (lua/nd/balance_run.lua). The example's Llama-3.1-70B run (tp 8, FSDP
over 2, pp 4, 32 micro-batches, 1F1B) at 40 GiB: evenly split, only full
recompute fits (off and selective need 49.98 and 40.49 GiB on stage 0, by
estimate.lua), at 51.79 s a step; the balancer keeps stage 0 at 17 selective
layers and 2 plain ones and gives the last stages their layers plain.

  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 40GiB --yaml balanced.yaml
  */examples/llama-3.1-70b-tp-pp-sp/train.yaml: llama, 80 body layers (decoder), 4 stages x 1 chunks, 32 micro-batches, 40.00 GiB a device, A2 (glob)
  stage  chunk   layers       off  selective      full     peak GiB    limit GiB     time s
  0      0           19         2         17         0       39.70        40.00     0.9728
  1      0           20        16          4         0       39.87        40.00     1.0139
  2      0           21        21          0         0       35.24        40.00     1.0611
  3      0           20        20          0         0       28.50        40.00     1.0573
  step 39.18 s (the balanced layout priced by the estimate; peak 39.87 GiB on stage 1); the count model's plan is proved optimal
  even split, one mode (full): 51.79 s; balanced is 1.322x faster
  solved in * s (glob)
  plan: balanced.yaml (model.config_overrides.offset and sel_rec; estimate.lua reads it back)

The plan in the train.yaml's own keys, and estimate.lua reading it back to
the same per-stage peaks (39.70, 39.87, 35.24, 28.50 GiB) and step:

  $ grep -A 10 config_overrides balanced.yaml
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
  $ ndlua estimate.lua balanced.yaml | grep -E '^[ *]+[0-3] |^step time'
        0     19        2.01        2.01        8.06        4.03       20.87        0.73        0.98        1.00       39.70
  *     1     20        1.99        1.99        7.97        3.98       21.36        0.60        0.98        1.00       39.87
        2     21        2.09        2.09        8.37        4.18       15.93        0.60        0.98        1.00       35.24
        3     20        2.11        2.11        8.46        4.23        8.14        0.73        1.71        1.00       28.50
  step time 39.180 s on A2 (the default profile; -A names another): MFU 30.0%, 209.1 tokens/s a device

--svg draws the balanced layout (issue 32 item 5): its 1F1B timeline, a
forward and a backward block per stage and micro-batch (4 x 32 = 128 each),
from the time model's seconds a micro-batch of each stage; and the estimate's
memory components of each stage against the device's 40 GiB. The timeline's
span is, by hand from the table's time column above, the 1F1B pipeline's
sum + (m - 1) x max: 0.9728 + 1.0139 + 1.0611 + 1.0573 + 31 x 1.0611 =
37.00 s; the step beside it (39.18 s) adds the data-parallel and optimizer
seconds. Stage 3's first forward starts when stages 0-2 have done theirs.
With one chunk a stage the drawing is in 1F1B's order; a run whose
schedule has no order here (DualPipeV with one chunk below, GPipe,
seq-pipe) is drawn in it too, and the caption names the schedule the step
is priced by (its 1F1B-ordered span is not its step).
The bars carry the same activations (20.87, 21.36, 15.93, 8.14 GiB) as
estimate.lua's table reading balanced.yaml back above:

  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 40GiB --svg plan.svg | tail -1
  chart: plan.svg
  $ grep -o 'it spans [0-9.]* s; the step is [0-9.]* s by the time model (schedule [a-z0-9_]*' plan.svg
  it spans 37.00 s; the step is 39.18 s by the time model (schedule 1f1b
  $ grep -c '<title>stage [0-3] forward micro-batch' plan.svg
  128
  $ grep -c '<title>stage [0-3] backward micro-batch' plan.svg
  128
  $ grep -o '<title>stage [0-3] forward micro-batch 1: [^<]*' plan.svg
  <title>stage 0 forward micro-batch 1: 0.2565 s from 0.0000 s
  <title>stage 1 forward micro-batch 1: 0.2700 s from 0.2565 s
  <title>stage 2 forward micro-batch 1: 0.2835 s from 0.5264 s
  <title>stage 3 forward micro-batch 1: 0.2853 s from 0.8099 s
  $ grep -o '<title>[0-3], activations: [^<]*' plan.svg
  <title>0, activations: 20.87 GiB
  <title>1, activations: 21.36 GiB
  <title>2, activations: 15.93 GiB
  <title>3, activations: 8.14 GiB
  $ grep -o 'capacity [0-9.]* GiB\|peak [0-9.]* GiB on stage [0-9]' plan.svg
  peak 39.87 GiB on stage 1
  capacity 40.00 GiB
  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 40GiB -s 8 --schedule dualpipev --svg v.svg > /dev/null
  $ grep -o '(schedule [a-z0-9_]*' v.svg
  (schedule zero_bubble_v

With two chunks a stage the timeline follows the run's schedule
(lua/nd/pipeline_timeline.lua, whose spec derives small timelines by hand):
under 1F1B with vpp 2, Megatron's interleaved order, one colour a chunk, each
stage's seconds split over its chunks as the balancer prices the layers
each holds. Every stage runs 2 x m x I = 2 x 32 x 2 = 128 blocks. Stage 0
runs chunk 0 of micro-batches 1-4, then chunk 1 of micro-batch 1 once it has
crossed chunk 0 of all four stages: from 0.4252 + 0.1636 = 0.5888 s, where
stage 3's chunk 0 forward ends. The count model's plan puts 1 layer in each
chunk 0 and 18-21 in chunk 1 (chunk 0 keeps more micro-batches in flight,
and its objective, the closed form sum X / I + (m I - 1) max X / I, prices
only a stage's total); the interleaved order stalls on so lopsided a split:
its step, the order's span over the time model's chunk seconds
(src/core/timing.c), is 58.12 s, not the closed form's 41.49 s. So the
balancer deals each stage's layers evenly over its chunks (9-11 a chunk,
nd.balance_resplit) and recomputes the fewest that fit, on chunk 0 (most in
flight), and keeps that plan: 43.46 s, a 0.196 s stall, faster than the even
split's 50.17 s; its span is 41.03 s, the step adding DP and optimizer
seconds:

  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 40GiB -i 2 --svg i2.svg | grep -E '^[0-3] +[01] ' | cut -c1-21
  0      0            9
  0      1           10
  1      0            9
  1      1           10
  2      0           10
  2      1           10
  3      0           11
  3      1           11
  $ grep -o 'Megatron-LM&#39;s interleaved 1F1B order\|it spans [0-9.]* s; the step is [0-9.]* s by the time model (schedule [a-z0-9_]*' i2.svg
  Megatron-LM&#39;s interleaved 1F1B order
  it spans 41.03 s; the step is 43.46 s by the time model (schedule 1f1b
  $ for s in 0 1 2 3; do grep -c "<title>stage $s chunk [01] [a-z]* micro-batch" i2.svg; done
  128
  128
  128
  128
  $ grep -o '<title>stage [0-3] chunk 0 forward micro-batch 1: [^<]*\|<title>stage 0 chunk 1 forward micro-batch 1: [^<]*' i2.svg
  <title>stage 0 chunk 0 forward micro-batch 1: 0.1395 s from 0.0000 s
  <title>stage 1 chunk 0 forward micro-batch 1: 0.1375 s from 0.1395 s
  <title>stage 2 chunk 0 forward micro-batch 1: 0.1483 s from 0.2769 s
  <title>stage 3 chunk 0 forward micro-batch 1: 0.1636 s from 0.4252 s
  <title>stage 0 chunk 1 forward micro-batch 1: 0.1170 s from 0.5888 s

DualPipeV with two chunks (-s 8 -i 2): dualpipev.py's V, chunk 0 down the
stages and chunk 1 back up, so stage 0's chunk 1 forward of micro-batch 1
starts when stage 1's ends, after stages 3, 2 and 1 ran theirs in turn:
0.5955 + 3 x 0.1215 = 0.9600 s (0.9599 s from the unrounded seconds). Its
span (21.48 s) is not the time model's step (21.58 s, timing.c's DualPipeV
form m max X + (S - 1) max X / 2 plus the data-parallel and optimizer
seconds):

  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 40GiB -s 8 -i 2 --schedule dualpipev --svg v2.svg | tail -1
  chart: v2.svg
  $ grep -o 'DualPipeV&#39;s order\|it spans [0-9.]* s; the step is [0-9.]* s by the time model (schedule [a-z0-9_]*' v2.svg
  DualPipeV&#39;s order
  it spans 21.48 s; the step is 21.58 s by the time model (schedule zero_bubble_v
  $ for s in 0 7; do grep -c "<title>stage $s chunk [01] [a-z]* micro-batch" v2.svg; done
  128
  128
  $ grep -o '<title>stage [0-3] chunk 1 forward micro-batch 1: [^<]*' v2.svg
  <title>stage 3 chunk 1 forward micro-batch 1: 0.1215 s from 0.5955 s
  <title>stage 2 chunk 1 forward micro-batch 1: 0.1215 s from 0.7170 s
  <title>stage 1 chunk 1 forward micro-batch 1: 0.1215 s from 0.8384 s
  <title>stage 0 chunk 1 forward micro-batch 1: 0.1353 s from 0.9599 s

The JSON form: the offset and the recompute list under the reference's names
(step_s 39.18 s, even_step_s 51.79 s, the solver's objective and solve_s left out
here as floats).

  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 40GiB --json | grep -v -e solve_s -e step_s -e objective | head -20
  {
    "even_mode": "full",
    "feasible": true,
    "hardware": "A2",
    "offset": [
      -1,
      0,
      1,
      0
    ],
    "optimal": true,
    "peak_bytes": 42810441728,
    "recompute": {
      "select_recompute": [
        17,
        4,
        0,
        0
      ]
    },

The JSON's recompute counts are the lists --yaml writes. DeepSeek-V3's first
3 layers are dense (first_k_dense_replace = 3, the model's config.json); the
balancer's table counts the 58 MoE layers only, and the layout holds the dense
ones first on stage 0, recomputed at the plan's mode. The example's run (8
stages x 2 chunks, A2, 64 GiB): stage 0's first chunk holds 3 MoE layers, all
full, and the 3 dense ones, so it recomputes 3 + 3 = 6 layers (its offset 3 over
floor(61 / 16) = 3 layers a chunk: 6 layers held, all recomputed); every other
chunk's count is its MoE layers at full in the table.

  $ ndlua balance.lua $ROOT/examples/deepseek-v3-256/train.yaml 2>/dev/null | grep -E '^0 +0 |^stage 0 also'
  0      0            3         0          0         3       35.06        64.00     2.4089
  stage 0 also holds the first 3 layers (dense), before its chunk 0's, all at full: the recompute lists (--json, --yaml) count them there
  $ ndlua balance.lua $ROOT/examples/deepseek-v3-256/train.yaml --json 2>/dev/null > d.json
  $ ndlua -e 'local c = require "nd.core"; print(c.json.encode(c.json.load("d.json").recompute))'
  {"recompute":[[6,3,3,3,3,3,4,4],[4,4,4,4,4,3,3,1]]}
  $ ndlua balance.lua $ROOT/examples/deepseek-v3-256/train.yaml --yaml d.yaml > /dev/null 2>&1
  $ ndlua -e 'local c = require "nd.core"; print(c.json.encode(c.yaml.load("d.yaml").model.config_overrides.full_rec))'
  [[6,3,3,3,3,3,4,4],[4,4,4,4,4,3,3,1]]

No plan at 16 GiB, proved: 80 layers of full recompute do not fit in four
stages (the even split of full recompute needs 20.88 GiB on stage 0):

  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --memory 16GiB
  */train.yaml: llama, 80 body layers (decoder), 4 stages x 1 chunks, 32 micro-batches, 16.00 GiB a device, A2 (glob)
  no plan: the stages hold at most 58 of the body layers; proved
  [1]

A run without a pipeline is not balanced; --yaml with a changed run is refused:

  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -s 1
  balance.lua: this run is not balanced: no pipeline (pp = 1)
  [2]
  $ ndlua balance.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml -s 8 --yaml x.yaml
  --yaml writes the plan into the train.yaml's own run; -s, -m, -i and --schedule change that run; state them in the train.yaml, or leave --yaml out
  [2]
