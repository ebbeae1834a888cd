balance.lua: the pipeline balancer (issue 32), on SAPP-PPB's own layer files
(copied into spec/fixtures/sapp-ppb/ from ../shared/reference/sapp-ppb/). Options come from one table, which also
writes --help:

  $ ndlua balance.lua --help
  usage: ndlua balance.lua LAYER_JSON -s S -m M [-i I] --memory SIZE [--schedule NAME] [--objective step|sapp]
                            [--sapp-level 0|1|2] [--json] [--yaml FILE] [--svg FILE]
         ndlua balance.lua TRAIN_YAML [-s S] [-m M] [-i I] [--memory SIZE] [-A NAME] [--json] [--yaml FILE] [--svg FILE]
  
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
  
  options:
    -s, --stages S         pipeline stages
    -m, --micro-batches M  micro-batches a step
    -i, --interleave I     virtual chunks per stage (1 or 2 for sapp) (default 1)
        --memory SIZE      memory per device with its unit, e.g. 56000MB (MB as the layer file's MB)
        --schedule NAME    1f1b, interleaved, interleaved-less-memory or dualpipev (in-flight counts as SAPP-PPB's digest) (default 1f1b)
        --objective NAME   step (ndlua's step time) or sapp (the reference's) (default step)
        --sapp-level N     the reference's -O for --objective sapp: 0, 1 or 2 (default 2)
    -A, --hardware NAME    a TRAIN_YAML's hardware profile for the time model (default A2)
        --json             print one JSON document instead of the tables
        --yaml FILE        also write the plan as train.yaml keys (offset, recompute lists)
        --svg FILE         also draw the plan: its pipeline timeline (1F1B order) and each stage's memory against the limit
    -h, --help             print this help and exit

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

--svg draws the plan: the pipeline timeline in 1F1B order (forward,
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
