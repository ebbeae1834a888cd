balance.lua: the pipeline balancer (issue 32), on SAPP-PPB's own layer files
(copied into spec/fixtures/sapp-ppb/ from ../shared/reference/sapp-ppb/). Options come from one table, which also
writes --help:

  $ ndlua balance.lua --help
  usage: ndlua balance.lua LAYER_JSON -s S -m M [-i I] --memory SIZE [--schedule NAME] [--objective step|sapp]
                            [--sapp-level 0|1|2] [--json] [--yaml FILE] [--svg FILE]
         ndlua balance.lua TRAIN_YAML [-s S] [-m M] [-i I] [--memory SIZE] [-A NAME] [--json] [--yaml FILE] [--svg FILE]
                            [--offload [--host-link-gibps G] [--host-link-overlap F] [--host-link-cost MS]]
  
  Balances a pipeline: per stage and chunk the layers and how many use each recompute option
  (off, selective, comm, both, full), every stage within --memory, the step least. The answer is
  exact: proved optimal, or proved infeasible with the stage that cannot fit. LAYER_JSON is a
  SAPP-PPB layer file (its times are in its own unit; its memory in MB). --objective step prices
  the step as ndlua's timing does (sum + bubble of the slowest stage); --objective sapp reproduces
  SAPP-PPB's objective and memory rule (its -O level: --sapp-level).
  A TRAIN_YAML (.yaml, .yml) is priced by ndlua itself: each layer's bytes and seconds per recompute
  mode (off, selective, full) from the estimate and the time model, the run's stages, chunks,
  micro-batches, schedule and device memory unless -s, -m, -i, --schedule, --memory change them;
  the plan is priced again by the estimate, and --yaml writes the train.yaml with it
  (model.config_overrides.offset and full_rec or sel_rec), which estimate.lua reads back.
  --offload (-ao, the reference's): a TRAIN_YAML's plain layers may also offload their activations to the
  host, copied out in the forward and back before the backward over the profile's host link; the copy
  seconds past --host-link-overlap of the layer's forward, and --host-link-cost ms a GiB copied, add
  to its time; kept only where the step is less.
  
  options:
    -s,  --stages S             pipeline stages
    -m,  --micro-batches M      micro-batches a step
    -i,  --interleave I         virtual chunks per stage (1 or 2 for sapp) (default 1)
         --memory SIZE          memory per device with its unit, e.g. 56000MB (MB as the layer file's MB)
         --schedule NAME        1f1b, interleaved, interleaved-less-memory or dualpipev (in-flight counts as SAPP-PPB's digest) (default 1f1b)
         --objective NAME       step (ndlua's step time) or sapp (the reference's) (default step)
         --sapp-level N         the reference's -O for --objective sapp: 0, 1 or 2 (default 2)
    -A,  --hardware NAME        a TRAIN_YAML's hardware profile for the time model (default A2)
         --json                 print one JSON document instead of the tables
         --yaml FILE            also write the plan as train.yaml keys (offset, recompute lists)
    -ao, --offload              a TRAIN_YAML's plain layers may offload their activations to the host (one chunk a stage)
         --auto-offload         the same as --offload (the reference's name)
         --host-link-gibps G    with --offload: the host link's GiB/s each way (default the profile's)
         --host-link-overlap F  with --offload: the share of a layer's forward its copies may run behind (default 0.8)
         --host-link-cost MS    with --offload: ms each GiB copied costs the step (default the profile's, else 0)
         --svg FILE             also draw the plan: its pipeline timeline in the schedule's order and each stage's memory against the limit
    -h,  --help                 print this help and exit

The reference's example (llama2_70b.json, S = 16, m = 32, I = 2, 56 000 MB,
-O 2): CBC stopped at its 90 s limit with 73 261.06 and a 15 % gap (the
digest); ndlua proves its plan optimal, below that (spec/balance_sapp_spec.lua
checks the plan against the reference's LP files):

  $ ndlua balance.lua $ROOT/spec/fixtures/sapp-ppb/llama2_70b.json -s 16 -m 32 -i 2 --memory 56000MB --objective sapp | tail -3
  objective (sapp -O 2): 71361.06, proved optimal
  even split, one mode (full): 140390.44; balanced is 1.967x faster
  solved in * s (10 bounds tried) (glob)

No plan, proved. By hand, for demo.json at S = 8, m = 16, 30 000 MB: stage s
keeps 8 - s micro-batches; a BODY layer costs 2141 MB + 511 MB (the least
activation, both) per micro-batch kept; stage 0 also holds HEAD (4245) and
TAIL's parameters again (1203, the reference's quirk), stage 7 TAIL (1203):
floor((30000 - 5448) / 6229) = 3, then 5, 5, 6, 7, 8, 9 and
floor((30000 - 1203) / 2652) = 10: 53 layers at most, of 96:

  $ ndlua balance.lua $ROOT/spec/fixtures/sapp-ppb/demo.json -s 8 -m 16 --memory 30000MB --objective sapp | tail -1
  no plan: the stages hold at most 53 of the 96 body layers within 30000 MB; proved
  $ ndlua balance.lua $ROOT/spec/fixtures/sapp-ppb/demo.json -s 8 -m 16 --memory 30000MB --objective sapp > /dev/null
  [1]

A stage that cannot fit is named with its bytes: llama2_70b's embedding
alone (HEAD, 9236 MB) exceeds 9000 MB on stage 0:

  $ ndlua balance.lua $ROOT/spec/fixtures/sapp-ppb/llama2_70b.json -s 2 -m 4 --memory 9000MB --json | grep -v solve_s
  {
    "bad_need_mb": 9236,
    "bad_stage": 0,
    "feasible": false,
    "optimal": true,
  }

--json gives the plan in the reference's names; --yaml writes it as the
train.yaml keys MindFormers/HyperParallel read (offset, and per stage the
layers under each recompute option):

  $ ndlua balance.lua $ROOT/spec/fixtures/sapp-ppb/demo.json -s 8 -m 16 --memory 64000MB --objective sapp --json | grep -v solve_s | sed '/^  "stages": \[/,/^  \],/d'
  {
    "feasible": true,
    "objective": 97362,
    "offset": [
      -3,
      -1,
      0,
      1,
      1,
      2,
      1,
      -1
    ],
    "optimal": true,
    "recompute": {
      "select_comm_recompute": [
        9,
        11,
        12,
        12,
        6,
        2,
        0,
        0
      ],
      "select_recompute": [
        0,
        5,
        2,
        1,
        2,
        0,
        0,
        0
      ]
    },
    "step_s": 97362,
    "time_unit": "the layer file's"
  }
  $ ndlua balance.lua $ROOT/spec/fixtures/sapp-ppb/demo.json -s 8 -m 16 --memory 64000MB --objective sapp --yaml plan.yaml | tail -1
  plan: plan.yaml
  $ grep -A 9 offset plan.yaml
    offset:
    - -3
    - -1
    - 0
    - 1
    - 1
    - 2
    - 1
    - -1
    pipeline_stage_num: 8

--svg draws the plan: the pipeline timeline (forward,
recompute and backward blocks per stage and micro-batch, the bubble left
white) and each stage's memory against the limit. By hand, for two stages of
one layer each (forward 1, backward (1 + 0.5) x 2 = 3 under full recompute,
the only option), two micro-batches: stage 0 keeps 2 micro-batches
(10 + 2 x 1 = 12 MB), stage 1 one (11 MB); the step is sum + (m - 1) max =
8 + 4 = 12, and the 1F1B timeline ends at (m + S - 1) x 4 = 12. Each stage's
time splits into forward 1, backward without recompute 2 x 1 = 2 and the
recompute full adds, 0.5 x 2 x 1 = 1 (the reference's c_full), in the layer
file's unit:

  $ cat > tiny.json <<'JSON'
  > {"layers_description": [{"name": "L", "type": "BODY", "time": 1, "nb_layer": 2,
  >   "memory_parameter": 10, "memory_recompute": 1}]}
  > JSON
  $ ndlua balance.lua tiny.json -s 2 -m 2 --memory 100MB --svg plan.svg
  tiny.json: 2 body layers, 2 stages, 1 chunks, 2 micro-batches, 100MB a device, objective step
  stage  chunk   layers      full   memory MB     limit MB        fwd        bwd     recomp       time
  0      0            1         1          12          100        1.0        2.0        1.0        4.0
  1      0            1         1          11          100        1.0        2.0        1.0        4.0
  (times in the layer file's own unit: SAPP-PPB's files do not state it; time is the stage's time by the objective's rule)
  objective (step): 12.00, proved optimal
  even split, one mode (full): 12.00; balanced is 1.000x faster
  solved in * s (1 bounds tried) (glob)
  chart: plan.svg
  $ grep -o 'step [0-9.]* in' plan.svg
  step 12.00 in
  $ grep -c 'forward micro-batch' plan.svg
  4
  $ grep -c 'limit 100 MB' plan.svg
  1

Under interleaving and DualPipeV the timeline follows the schedule's own
order (lua/nd/pipeline_timeline.lua; its spec derives small timelines by
hand), one colour a chunk. Four layers over 2 stages x 2 chunks hold one a
cell: forward 1, recompute 1, backward 2 a chunk and micro-batch (a backward
block of 3). Megatron's interleaved 1F1B at m = 4: stage 0 runs chunk 0 of
micro-batches 1 and 2 (0-1, 1-2), then chunk 1 of micro-batch 1 once stage
1's chunk 0 has run it (1-2): from 2. Every stage runs 2 x m x I = 16 blocks.
The stages are alike, so the span is timing.c's closed form, which the step
objective prices: sum X / I + (m I - 1) max X / I with X = 2 x (1 + 3) = 8:
16 / 2 + 7 x 8 / 2 = 36:

  $ cat > four.json <<'JSON'
  > {"layers_description": [{"name": "L", "type": "BODY", "time": 1, "nb_layer": 4,
  >   "memory_parameter": 10, "memory_recompute": 1}]}
  > JSON
  $ ndlua balance.lua four.json -s 2 -m 4 -i 2 --memory 100MB --svg i.svg | tail -1
  chart: i.svg
  $ grep -o "Megatron-LM&#39;s interleaved 1F1B order\|it spans [0-9.]* in the layer file&#39;s unit; the plan&#39;s objective (step) is [0-9.]*" i.svg
  Megatron-LM&#39;s interleaved 1F1B order
  it spans 36.00 in the layer file&#39;s unit; the plan&#39;s objective (step) is 36.00
  $ grep -c '<title>stage 0 chunk [01] [a-z]* micro-batch' i.svg
  16
  $ grep -c '<title>stage 1 chunk [01] [a-z]* micro-batch' i.svg
  16
  $ grep -o '<title>stage 0 chunk [01] forward micro-batch [12]: [^<]*' i.svg
  <title>stage 0 chunk 0 forward micro-batch 1: 1.00 from 0.00
  <title>stage 0 chunk 0 forward micro-batch 2: 1.00 from 1.00
  <title>stage 0 chunk 1 forward micro-batch 1: 1.00 from 2.00
  <title>stage 0 chunk 1 forward micro-batch 2: 1.00 from 3.00
  $ grep -o '>[a-z]* chunk [01]<' i.svg
  >forward chunk 0<
  >forward chunk 1<
  >backward chunk 0<
  >backward chunk 1<

DualPipeV (dualpipev.py's order: chunk 0 down the stages, chunk 1 back up)
at the same cells and m = 4. By hand (the order of the spec's unit case,
with backward blocks of 3): stage 0 F0 0-1, F0 1-2, F0 2-3, then chunk 1's
first forward after stage 1 has run chunk 0 and chunk 1 of micro-batch 1
(1-2, 2-3): 3-4, its backward 4-7; ... stage 1's last backward of chunk 0
ends at 35, and stage 0's, after it, 35-38. The span is 38 where timing.c's
DualPipeV form, the objective, gives m max X + (S - 1) max X / 2 = 32 + 4 =
36: the drawing splits no weight gradient off a backward (the time model
prices a backward whole) and a forward-backward pair waits for both inputs,
as dualpipev.py does; the closed form takes half of 1F1B's bubble:

  $ ndlua balance.lua four.json -s 2 -m 4 --schedule dualpipev --memory 100MB --svg v.svg | tail -1
  chart: v.svg
  $ grep -o "DualPipeV&#39;s order\|it spans [0-9.]* in the layer file&#39;s unit; the plan&#39;s objective (step) is [0-9.]*" v.svg
  DualPipeV&#39;s order
  it spans 38.00 in the layer file&#39;s unit; the plan&#39;s objective (step) is 36.00
  $ grep -c '<title>stage 0 chunk [01] [a-z]* micro-batch' v.svg
  16
  $ grep -o '<title>stage 0 chunk [01] [a-z]* micro-batch 1: [^<]*' v.svg
  <title>stage 0 chunk 0 forward micro-batch 1: 1.00 from 0.00
  <title>stage 0 chunk 1 forward micro-batch 1: 1.00 from 3.00
  <title>stage 0 chunk 1 backward micro-batch 1: 3.00 from 4.00
  <title>stage 0 chunk 0 backward micro-batch 1: 3.00 from 15.00
  $ grep -o '<title>stage 0 chunk 0 backward micro-batch 4: [^<]*' v.svg
  <title>stage 0 chunk 0 backward micro-batch 4: 3.00 from 35.00

DualPipeV's order needs at least 2S micro-batches (dualpipev.py asserts
it); the plan is printed, the drawing refused:

  $ ndlua balance.lua four.json -s 2 -m 3 --schedule dualpipev --memory 100MB --svg v.svg > /dev/null
  --svg v.svg: DualPipeV needs at least 2 x 2 = 4 micro-batches (dualpipev.py asserts it), got 3; -m that the schedule's order runs, or no --svg
  [2]

--json gives the same split per stage (and the unit of every time):

  $ ndlua balance.lua tiny.json -s 2 -m 2 --memory 100MB --json | grep -A 8 '"stages"'
    "stages": [
      {
        "backward": 2,
        "forward": 1,
        "memory_mb": 12.0,
        "recompute": 1.0,
        "time": 4.0
      },
      {
  $ ndlua balance.lua tiny.json -s 2 -m 2 --memory 100MB --json | grep time_unit
    "time_unit": "the layer file's"
