compare.lua (issue 33 item 1): ndlua's estimate held against what a run
measured, per pipeline stage, in every measured form it reads; and a
calibration fitted on one run, laid on later estimates with -c.

The measured files are spec/fixtures/compare/, each in its tool's own
output format. Their figures: megatron-pr482-dp8.log holds Megatron-LM PR
#482's measured B1 peak (69.1 GB, max_memory_allocated) as Megatron's
report_memory prints it; torchtitan-h200-4l-b1.log is this project's H200
run of torchtitan's Llama step (spec/validation/data/
h200-torchtitan-expandable.json, runs[1], every step) as torchtitan's
metrics line prints it; the others (memory_stats_rank*.json,
megatron-pp2.log, worker_*.log, llama70b-real.csv) are made up for these
tests, in the formats of torch.cuda.memory_stats(), Megatron-LM,
MindSpore/MindFormers and the reference's trace_classify.

Options come from one table, which also writes --help:

  $ ndlua compare.lua --help
  usage: ndlua compare.lua TRAIN_YAML|MODEL MEASURED... [-d N] [-A NAME] [--runtime NAME] [--metric M] [--json] [--svg FILE]
                            [--write-calibration FILE] [-c FILE] [--case ID [--cases DIR]] [--section.key=value ...]
  
  Holds ndlua's estimate of a run against what the run measured: per pipeline stage the estimated and
  the measured peak, the difference in GiB and %, and which parts of the estimate would explain it
  alone (the ratio each would need); the step time beside the measured one. MEASURED files, in any of
  these forms (found from the text):
    pytorch     JSON of torch.cuda.memory_stats() (allocated_bytes.all.peak, reserved_bytes.all.peak), or
                {max_memory_allocated, max_memory_reserved[, rank][, step_time_s]}; a list of them, one a rank
    megatron    Megatron-LM logs: '[Rank R] (after N iterations) memory (MB) | allocated: .. | max allocated:
                .. | reserved: .. | max reserved: ..' and 'elapsed time per iteration (ms): T'
    mindspore   MindSpore/HyperParallel device logs: 'Used peak memory usage (without fragments): NM',
                'Actual peak memory usage (with fragments): NM', 'per_step_time: Tms' (rank from the file
                name: rank_3, worker_3, device_3)
    torchtitan  torchtitan's metrics lines '[rank3]:... step: N ... memory: XGiB(Y%) tps: T ...'
    csv         the reference planner's classified CSV (its --real_csv): dimensions, time, comp and the
                waits in ms; the row whose degrees are the run's
  A rank's stage: rank // (devices / pp) (the pipeline outermost, as Megatron-LM, torchtitan and
  HyperParallel order their ranks); a stage's peak is its busiest rank's. A file without ranks is
  stage 0 of a run without a pipeline. --write-calibration fits the ratios of measured over estimated
  per part (parameters, gradients, optimizer, activations, communication, overhead; and each time
  part) that make the estimate the measurement; -c FILE here, on estimate.lua and on search.lua lays
  them on, and the header says so.
  
  options:
    -d, --devices N               devices in the run, when the yaml states no context.device_num
    -M, --device-memory SIZE      device memory (the capacity shown), as estimate.lua
    -A, --device-type NAME        hardware profile the step time is priced on (default the case's, else A2 as search.lua's)
    -b, --global-batch B          global batch in sequences (training.global_batch_size)
        --tp N                    tensor-parallel degree (accelerator.tp_size)
        --pp N                    pipeline stages (accelerator.pp_size)
        --cp N                    context-parallel degree (accelerator.cp_size)
        --ep N                    expert-parallel degree (accelerator.ep_size)
        --seq TOKENS              training sequence (dataset.data_transform.max_seq_len; 4096 for a model id)
        --zero STAGE              ZeRO stage as HyperParallel's FSDP states it: 3 shards the weights over every data-parallel rank, 2 keeps them gathered from forward to backward, 0 shards nothing (default 3 for a model id)
        --print-yaml              print the train.yaml read (built from a model id, or the file with the options applied) and exit
        --runtime NAME            the training runtime priced (default hyperparallel)
        --metric M                allocated or reserved: which peak is compared (default: the one the runtime's logs call the peak, if the files state it)
        --run N                   which run of a file holding several (the H200 traces' runs) is compared
        --case ID                 compare a validation case's run (spec/validation) instead of a TRAIN_YAML; without MEASURED files, against the case's own figure
        --cases DIR               where --case looks (default spec/validation)
    -c, --calibration FILE        lay a calibration file's ratios on the estimate
        --write-calibration FILE  fit the ratios that make the estimate the measurement and write them to FILE (JSON)
        --json                    print one JSON document (bytes and seconds) instead of the tables
        --svg FILE                also write a chart of the estimated and measured peak per stage to FILE
    -h, --help                    print this help and exit

The files, copied here so that the paths printed are the same in every
checkout:

  $ cp -r $ROOT/spec/fixtures/compare f && cp -r $ROOT/spec/validation cases
  $ cp $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml llama.yaml && cp $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml qwen.yaml

The repository's measured runs, as validation cases (the model and run the
case states, spec/validation): Megatron-LM PR #482's DP 8 layout, its peak
read from Megatron's own log line:

  $ ndlua compare.lua --case megatron-pr482-dp8 --cases cases f/megatron-pr482-dp8.log
  compare   llama, Llama-2-7B, DP 8 (distributed optimizer), micro-batch 2, seq 2048, bf16, flash attention
  run       8 devices = dp 8 x tp 1 x pp 1 x cp 1; ep 1, vpp 1; batch 128 = 2 x dp 8 x 8 micro-batches; sequence 2048; runtime megatron
  measured  f/megatron-pr482-dp8.log (megatron)
  
  peak allocated per device by pipeline stage (GiB; estimate - measured; % of measured)
   stage      ranks   estimated   measured       diff   diff %  would explain it alone
       0          0       65.45      64.35      +1.09    +1.7%  gradients x0.96, activations x0.94, parameters x0.91

Its PP 2 layout against the case's own figure (no file: the busiest rank's
peak, the first stage):

  $ ndlua compare.lua --case megatron-pr482-pp2 --cases cases
  compare   llama, Llama-2-7B, PP 2 x DP 4 (distributed optimizer, 1F1B), micro-batch 2, seq 2048, bf16, flash attention
  run       8 devices = dp 4 x tp 1 x pp 2 x cp 1; ep 1, vpp 1; batch 64 = 2 x dp 4 x 8 micro-batches; sequence 2048; runtime megatron
  measured  cases/megatron_pr482.lua (validation case)
  
  peak allocated per device by pipeline stage (GiB; estimate - measured; % of measured)
   stage      ranks   estimated   measured       diff   diff %  would explain it alone
       0          -       45.87      46.38      -0.51    -1.1%  activations x1.03, gradients x1.04, optimizer x1.05
       1          -       38.07          -          -        -

A Megatron-LM log of a pipeline: rank 0 is stage 0 and rank 4 stage 1
(8 devices, pp 2: rank // 4); the step the median of the iterations after
the first:

  $ ndlua compare.lua --case megatron-pr482-pp2 --cases cases f/megatron-pp2.log -A H800
  compare   llama, Llama-2-7B, PP 2 x DP 4 (distributed optimizer, 1F1B), micro-batch 2, seq 2048, bf16, flash attention
  run       8 devices = dp 4 x tp 1 x pp 2 x cp 1; ep 1, vpp 1; batch 64 = 2 x dp 4 x 8 micro-batches; sequence 2048; runtime megatron
  measured  f/megatron-pp2.log (megatron)
  
  peak allocated per device by pipeline stage (GiB; estimate - measured; % of measured)
   stage      ranks   estimated   measured       diff   diff %  would explain it alone
       0          0       45.87      46.38      -0.51    -1.1%  activations x1.03, gradients x1.04, optimizer x1.05
       1          4       38.07      38.87      -0.80    -2.1%  gradients x1.06, optimizer x1.08, activations x1.09
  
  step time on H800: estimated 1.47 s, measured 1.52 s, -0.050 s (-3.3 %)
    would explain it alone: COMPUTE x1.04, BUBBLE x1.35, DP_COMM x1.40

The H200 torchtitan traces: the reserved peak torchtitan's metrics line
logs, and the step from its tokens a second (8192 tokens / tps):

  $ ndlua compare.lua --case h200-torchtitan-4l-b1-none-reserved --cases cases f/torchtitan-h200-4l-b1.log -A H200
  compare   llama, Llama 3.1 8B shapes, 4 layers, FSDP2 on 1 rank, micro-batch 1, seq 8192, 1 micro-batch a step, activation checkpointing none, eager
  run       1 device = dp 1 x tp 1 x pp 1 x cp 1; ep 1, vpp 1; batch 1 = 1 x dp 1 x 1 micro-batches; sequence 8192; runtime torchtitan
  measured  f/torchtitan-h200-4l-b1.log (torchtitan)
  
  peak reserved per device by pipeline stage (GiB; estimate - measured; % of measured)
   stage      ranks   estimated   measured       diff   diff %  would explain it alone
       0          0       49.95      50.55      -0.60    -1.2%  optimizer x1.04, overhead x1.05, activations x1.06
  
  step time on H200: estimated 0.172 s, measured 0.175 s, -0.003 s (-1.7 %)
    would explain it alone: COMPUTE x1.02, DP_COMM x1.20

The same run's allocated peak from the trace file itself (a PyTorch JSON;
it holds eight runs, --run picks one):

  $ ndlua compare.lua --case h200-torchtitan-4l-b1-none-allocated --cases cases cases/data/h200-torchtitan-expandable.json -A H200
  cases/data/h200-torchtitan-expandable.json: holds 8 runs; --run N chooses one; 1: layers 4, batch 1, seq 8192, ac none, compile false; 2: layers 2, batch 1, seq 8192, ac none, compile false; 3: layers 4, batch 1, seq 8192, ac full, compile false; 4: layers 2, batch 1, seq 8192, ac full, compile false; 5: layers 4, batch 1, seq 8192, ac op, compile false; 6: layers 2, batch 1, seq 8192, ac op, compile false; 7: layers 4, batch 2, seq 8192, ac none, compile false; 8: layers 4, batch 1, seq 8192, ac op, compile true
  [2]
  $ ndlua compare.lua --case h200-torchtitan-4l-b1-none-allocated --cases cases cases/data/h200-torchtitan-expandable.json --run 1 -A H200
  compare   llama, Llama 3.1 8B shapes, 4 layers, FSDP2 on 1 rank, micro-batch 1, seq 8192, 1 micro-batch a step, activation checkpointing none, eager
  run       1 device = dp 1 x tp 1 x pp 1 x cp 1; ep 1, vpp 1; batch 1 = 1 x dp 1 x 1 micro-batches; sequence 8192; runtime torchtitan
  measured  cases/data/h200-torchtitan-expandable.json (pytorch)
  
  peak allocated per device by pipeline stage (GiB; estimate - measured; % of measured)
   stage      ranks   estimated   measured       diff   diff %  would explain it alone
       0          -       38.87      39.34      -0.47    -1.2%  optimizer x1.03, activations x1.05, overhead x1.06
  
  step time on H200: estimated 0.172 s, measured 0.175 s, -0.003 s (-1.7 %)
    would explain it alone: COMPUTE x1.02, DP_COMM x1.20

A train.yaml and PyTorch's torch.cuda.memory_stats() of the first rank of
each stage (64 devices, pp 4: rank // 16), with the parts that would
explain each difference alone:

  $ ndlua compare.lua llama.yaml f/memory_stats_rank0.json f/memory_stats_rank16.json f/memory_stats_rank32.json f/memory_stats_rank48.json
  compare   llama, llama.yaml
  run       64 devices = dp 2 x tp 8 x pp 4 x cp 1; ep 1, vpp 1; batch 64 = 1 x dp 2 x 32 micro-batches; sequence 8192; runtime hyperparallel
  measured  f/memory_stats_rank0.json (pytorch)
  measured  f/memory_stats_rank16.json (pytorch)
  measured  f/memory_stats_rank32.json (pytorch)
  measured  f/memory_stats_rank48.json (pytorch)
  
  peak allocated per device by pipeline stage (GiB; estimate - measured; % of measured)
   stage      ranks   estimated   measured       diff   diff %  would explain it alone
       0          0       39.49      41.39      -1.90    -4.6%  activations x1.09, optimizer x1.15, parameters x1.90
       1         16       33.13      34.66      -1.53    -4.4%  activations x1.10, optimizer x1.13, parameters x1.77
       2         32       27.88      29.05      -1.16    -4.0%  optimizer x1.10, activations x1.11, parameters x1.58
       3         48       25.16      26.42      -1.26    -4.8%  optimizer x1.10, activations x1.22, parameters x1.60

A calibration fitted on that run (the least change of the ratios that
makes every stage its measurement):

  $ ndlua compare.lua llama.yaml f/memory_stats_rank0.json f/memory_stats_rank16.json f/memory_stats_rank32.json f/memory_stats_rank48.json --write-calibration cal.json
  compare   llama, llama.yaml
  run       64 devices = dp 2 x tp 8 x pp 4 x cp 1; ep 1, vpp 1; batch 64 = 1 x dp 2 x 32 micro-batches; sequence 8192; runtime hyperparallel
  measured  f/memory_stats_rank0.json (pytorch)
  measured  f/memory_stats_rank16.json (pytorch)
  measured  f/memory_stats_rank32.json (pytorch)
  measured  f/memory_stats_rank48.json (pytorch)
  
  peak allocated per device by pipeline stage (GiB; estimate - measured; % of measured)
   stage      ranks   estimated   measured       diff   diff %  would explain it alone
       0          0       39.49      41.39      -1.90    -4.6%  activations x1.09, optimizer x1.15, parameters x1.90
       1         16       33.13      34.66      -1.53    -4.4%  activations x1.10, optimizer x1.13, parameters x1.77
       2         32       27.88      29.05      -1.16    -4.0%  optimizer x1.10, activations x1.11, parameters x1.58
       3         48       25.16      26.42      -1.26    -4.8%  optimizer x1.10, activations x1.22, parameters x1.60
  
  calibration written to cal.json
    memory (allocated): parameters x1.000, gradients x1.000, optimizer x1.000, activations x1.070, communication x1.000, overhead x1.500
  $ ndlua -e 'local c = require("nd").json.load("cal.json"); for _, k in ipairs { "parameters", "gradients", "optimizer", "activations", "communication", "overhead" } do print(k, string.format("%.3f", c.memory[k])) end; print(c.memory.metric, c.fitted_on.stages, c.fitted_on.measured[1])'
  parameters	1.000
  gradients	1.000
  optimizer	1.000
  activations	1.070
  communication	1.000
  overhead	1.500
  allocated	4	f/memory_stats_rank0.json

Laid on the same run with -c, every stage is within 1 % of its
measurement, and the header says the estimate is calibrated:

  $ ndlua compare.lua llama.yaml f/memory_stats_rank0.json f/memory_stats_rank16.json f/memory_stats_rank32.json f/memory_stats_rank48.json -c cal.json
  compare   llama, llama.yaml
  run       64 devices = dp 2 x tp 8 x pp 4 x cp 1; ep 1, vpp 1; batch 64 = 1 x dp 2 x 32 micro-batches; sequence 8192; runtime hyperparallel
  measured  f/memory_stats_rank0.json (pytorch)
  measured  f/memory_stats_rank16.json (pytorch)
  measured  f/memory_stats_rank32.json (pytorch)
  measured  f/memory_stats_rank48.json (pytorch)
  CALIBRATED by cal.json (measured/estimated per part, not a raw estimate): memory (allocated) parameters x1.000, gradients x1.000, optimizer x1.000, activations x1.070, communication x1.000, overhead x1.500
  
  peak allocated per device by pipeline stage (GiB; estimate - measured; % of measured)
   stage      ranks   estimated   measured       diff   diff %  would explain it alone
       0          0       41.39      41.39      +0.00    +0.0%  within 1 %
       1         16       34.66      34.66      +0.00    +0.0%  within 1 %
       2         32       29.05      29.05      +0.00    +0.0%  within 1 %
       3         48       26.42      26.42      +0.00    +0.0%  within 1 %
  $ ndlua estimate.lua llama.yaml -c cal.json
  CALIBRATED by cal.json (measured/estimated per part, not a raw estimate): memory (allocated) parameters x1.000, gradients x1.000, optimizer x1.000, activations x1.070, communication x1.000, overhead x1.500
  model     llama (arch llama), built-in catalog meta-llama/Llama-3.1-70B
            70.55 B parameters (70.55 B active); 80 layers: 80×decoder
  run       64 devices = dp 2 x tp 8 x pp 4 x cp 1 (dp from context.device_num); ep 1, etp 0, vpp 1
            batch 64 = micro-batch 1 x dp 2 x 32 micro-batches; sequence 8192 tokens
            recompute selective (activation_checkpoint.mode); schedule 1f1b; sequence parallel on; automodels schema
            runtime hyperparallel (lua/nd/runtimes/hyperparallel.lua; its logs call max_memory_allocated the peak)
            optimizer adamw (2 states of 4 B, sharded over 2, fp32 main params); params 2 B, grads 2 B, compute 2 B
  
  memory per device by pipeline stage (GiB; * marks the peak)
    stage layers      params       grads   optimizer        main activations        comm    overhead     reserve       total
  *     0     20        2.11        2.11        8.46        4.23       22.44        0.73        1.29        1.00       42.39
        1     20        1.99        1.99        7.97        3.98       16.83        0.60        1.29        1.00       35.66
        2     20        1.99        1.99        7.97        3.98       11.22        0.60        1.29        1.00       30.05
        3     20        2.11        2.11        8.46        4.23        6.20        0.73        2.57        1.00       27.42
  
  step time 39.521 s on A2 (the default profile; -A names another): MFU 29.7%, 207.3 tokens/s a device
            fwd 23.1%, bwd 46.2%, rec 1.1%, tp 15.2%, cp 0.0%, ep 0.0%, pp 1.1%, dp 5.5%, bubble 7.8%, opt 0.0%
  
  allocated 41.39 GiB, reserved 41.39 GiB on stage 0 (the reserve, 1.00 GiB, is for what no allocator counts)
  device capacity 64.00 GiB (context.max_device_memory 64GB, GB read as GiB, 2^30 bytes): fits: peak 42.39 GiB on stage 0, 21.61 GiB to spare

and on a search, which ranks and keeps by the calibrated estimates:

  $ ndlua search.lua llama.yaml -A H100 -t 3 -c cal.json
  search: llama on 64 devices (H100), a global batch of 64, 64.00 GiB a device (context.max_device_memory 64GB, GB read as GiB, 2^30 bytes); recompute selective (activation_checkpoint.mode); ranked by throughput (calibrated)
  bounds: PP up to 8 (the machine's 8, 80 layers over VPP 1, a batch of 64); EP up to 1 (a dense model); TP up to 8 (the model's KV heads)
  CALIBRATED by cal.json (measured/estimated per part, not a raw estimate): memory (allocated) parameters x1.000, gradients x1.000, optimizer x1.000, activations x1.070, communication x1.000, overhead x1.500
  2448 candidates tested: 894 refused (a degree out of bounds 894), 1554 priced for memory
  23 fitting the budget of 64.00 GiB, 1531 dropped over it; searched in * s (glob)
  16 of them kept by the policy's rules
  
  top 3 by throughput (calibrated) (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1    8   8   1   1   1    1    8  on     8   1 selective     50.61      8.348  44.6%  26.4%  52.3%   1.3%  10.0%   0.0%   0.0%   0.0%   9.9%   0.0%   0.2%
     ~2    2   8   4   3   1    1    1  on    32   1 selective     63.27      8.372  44.4%  27.4%  54.4%   1.3%  10.0%   0.0%   0.0%   3.4%   0.1%   3.0%   0.3%
     ~3    2   8   4   4   1    1    1  on    32   1 selective     62.42      8.397  44.3%  27.3%  54.3%   1.3%   9.9%   0.0%   0.0%   4.5%   0.1%   2.2%   0.3%
  ~ 2 rows within 18.5 % of #1's step (8.348 s), the time model's mean error on the 23 validation cases (make validate): as close to #1 as the model can tell
  what separates the next rows from #1 (the step parts that differ most, by 0.5 % of its step or more):
    #2 +0.024 s (+0.3 %): dp -0.813 s, pp +0.286 s, bubble +0.252 s, bwd +0.191 s; peak +12.65 GiB
    #3 +0.050 s (+0.6 %): dp -0.813 s, pp +0.382 s, bwd +0.191 s, bubble +0.183 s; peak +11.81 GiB
  
  resolved strategy written to ./resolved.yaml (context left out; train it on 64 devices)

MindSpore/HyperParallel device logs (the device from the file name; its
allocated and its fragmented peak; MindFormers' per_step_time):

  $ ndlua compare.lua qwen.yaml f/worker_0.log f/worker_5.log -A 910B
  warning: context.device_num: AutoModels config carries no context.device_num; assuming dp_replicate=1 (d = dp_shard_size = 8). Pass -d/--devices for HSDP runs.
  compare   qwen3_moe, qwen.yaml
  run       8 devices = dp 8 x tp 1 x pp 1 x cp 1; ep 1, vpp 1; batch 8 = 1 x dp 8 x 1 micro-batches; sequence 4096; runtime hyperparallel
  measured  f/worker_0.log (mindspore)
  measured  f/worker_5.log (mindspore)
  
  peak allocated per device by pipeline stage (GiB; estimate - measured; % of measured)
   stage      ranks   estimated   measured       diff   diff %  would explain it alone
       0        0,5       34.46      35.36      -0.90    -2.5%  optimizer x1.12, gradients x1.13, parameters x1.13
  
  step time on 910B: estimated 0.964 s, measured 1.05 s, -0.085 s (-8.1 %)
    would explain it alone: COMPUTE x1.10, DP_COMM x2.04
  $ ndlua compare.lua qwen.yaml f/worker_0.log f/worker_5.log -A 910B --metric reserved
  warning: context.device_num: AutoModels config carries no context.device_num; assuming dp_replicate=1 (d = dp_shard_size = 8). Pass -d/--devices for HSDP runs.
  compare   qwen3_moe, qwen.yaml
  run       8 devices = dp 8 x tp 1 x pp 1 x cp 1; ep 1, vpp 1; batch 8 = 1 x dp 8 x 1 micro-batches; sequence 4096; runtime hyperparallel
  measured  f/worker_0.log (mindspore)
  measured  f/worker_5.log (mindspore)
  
  peak reserved per device by pipeline stage (GiB; estimate - measured; % of measured)
   stage      ranks   estimated   measured       diff   diff %  would explain it alone
       0        0,5       34.46      37.61      -3.15    -8.4%  optimizer x1.43, gradients x1.44, parameters x1.44
  
  step time on 910B: estimated 0.964 s, measured 1.05 s, -0.085 s (-8.1 %)
    would explain it alone: COMPUTE x1.10, DP_COMM x2.04

The reference's classified CSV (its --real_csv): the row of the run's own
layout, the step by part, and the time ratios fitted as the reference's
--write_ratios fits them:

  $ ndlua compare.lua llama.yaml f/llama70b-real.csv -A H100 --write-calibration time.json
  compare   llama, llama.yaml
  run       64 devices = dp 2 x tp 8 x pp 4 x cp 1; ep 1, vpp 1; batch 64 = 1 x dp 2 x 32 micro-batches; sequence 8192; runtime hyperparallel
  measured  f/llama70b-real.csv (csv)
  
  step time on H100: estimated 9.09 s, measured 9.42 s, -0.325 s (-3.5 %)
    part      estimated   measured
    COMPUTE      6.974s     6.905s
    DP_COMM      0.484s     0.420s
    MP_COMM      0.835s     0.973s
    EP_COMM      0.000s     0.000s
    CP_COMM      0.000s     0.000s
    PP_COMM      0.800s     0.813s
    (PP_COMM holds the bubble; idle, 0.308 s of the measured step, is priced by no part)
  
  calibration written to time.json
    time: COMPUTE x0.990, DP_COMM x0.867, DP_REDUCE x0.867, MP_COMM x1.166, EP_COMM x0.990, CP_COMM x0.990, PP_COMM x1.016, BUBBLE x1.016
  $ ndlua compare.lua llama.yaml f/llama70b-real.csv -A H100 -c time.json
  compare   llama, llama.yaml
  run       64 devices = dp 2 x tp 8 x pp 4 x cp 1; ep 1, vpp 1; batch 64 = 1 x dp 2 x 32 micro-batches; sequence 8192; runtime hyperparallel
  measured  f/llama70b-real.csv (csv)
  CALIBRATED by time.json (measured/estimated per part, not a raw estimate): time COMPUTE x0.990, DP_COMM x0.867, DP_REDUCE x0.867, MP_COMM x1.166, EP_COMM x0.990, CP_COMM x0.990, PP_COMM x1.016, BUBBLE x1.016
  
  step time on H100: estimated 9.11 s, measured 9.42 s, -0.308 s (-3.3 %)
    part      estimated   measured
    COMPUTE      6.905s     6.905s
    DP_COMM      0.420s     0.420s
    MP_COMM      0.973s     0.973s
    EP_COMM      0.000s     0.000s
    CP_COMM      0.000s     0.000s
    PP_COMM      0.813s     0.813s
    (PP_COMM holds the bubble; idle, 0.308 s of the measured step, is priced by no part)

--json and --svg:

  $ ndlua compare.lua --case megatron-pr482-pp2 --cases cases f/megatron-pp2.log -A H800 --json --svg pp2.svg > pp2.json
  $ grep -c '<rect' pp2.svg
  7
  $ ndlua -e 'local d = require("nd").json.load("pp2.json"); for _, s in ipairs(d.stages) do print(s.stage, s.estimated_bytes, s.measured_bytes, s.explained_by[1].part) end; print(d.metric, d.step.measured_s)'
  0	49251844096	49800236032	activations
  1	40878428160	41734897664	gradients
  allocated	1.5238

Refusals:

  $ ndlua compare.lua llama.yaml
  compare.lua takes a TRAIN_YAML (or MODEL) and at least one MEASURED file, got 1 arguments; ndlua compare.lua --help
  [2]
  $ ndlua compare.lua llama.yaml f/llama70b-real.csv --metric peak
  --metric: 'peak' is no peak ndlua compares; allocated or reserved
  [2]
  $ ndlua compare.lua --case no-such-case --cases cases
  --case: 'no-such-case' is no case in cases; an id of ndlua's validation cases (make validate lists them)
  [2]
  $ ndlua compare.lua llama.yaml f/megatron-pr482-dp8.log
  compare   llama, llama.yaml
  run       64 devices = dp 2 x tp 8 x pp 4 x cp 1; ep 1, vpp 1; batch 64 = 1 x dp 2 x 32 micro-batches; sequence 8192; runtime hyperparallel
  measured  f/megatron-pr482-dp8.log (megatron)
  
  peak allocated per device by pipeline stage (GiB; estimate - measured; % of measured)
   stage      ranks   estimated   measured       diff   diff %  would explain it alone
       0          0       39.49      64.35     -24.87   -38.6%  activations x2.19, optimizer x2.96
       1          -       33.13          -          -        -
       2          -       27.88          -          -        -
       3          -       25.16          -          -        -
  $ ndlua compare.lua qwen.yaml f/worker_0.log -c f/worker_0.log
  f/worker_0.log:1:2: JSON syntax error at 'W'
  [2]
