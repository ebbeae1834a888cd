--strict on every script (issue 33, item 5), and estimate.lua's step
time and --recompute. Without --strict a run prints its answer and its
warnings and exits 0; with it, the same answer is printed and the run exits
2 when the layout does not fit, a key is unknown (no rule reads it) or
unpriced (read by the trainer, not by ndlua), or a candidate list was
widened (nd.strict, one helper every script takes it from).

estimate.lua prints the step of the layout it prices, by search.lua's time
model on the hardware -A names. Qwen3-8B on 8 H100s, TP 2 (dp 4), a batch
of 64 (16 micro-batches of one sequence), recompute off: the same layout
is search.lua's only candidate when the search holds TP at 2 and prices
recompute off alone, and its row states the same step (4.257 s), MFU
(38.2 %), peak (40.80 GiB) and shares of the step (fwd 31.8 %, bwd 63.6 %,
tp 2.5 %, dp 1.9 %, opt 0.2 %):

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 -b 64 -A H100 --recompute off | tail -5
  step time 4.257 s on H100 (-A): MFU 38.2%, 7697.1 tokens/s a device
            fwd 31.8%, bwd 63.6%, rec 0.0%, tp 2.5%, cp 0.0%, ep 0.0%, pp 0.0%, dp 1.9%, bubble 0.0%, opt 0.2%
  
  allocated 39.80 GiB, reserved 39.80 GiB on stage 0 (the reserve, 1.00 GiB, is for what no allocator counts)
  device capacity 79.65 GiB (H100's memory 81559MiB): fits: peak 40.80 GiB on stage 0, 38.85 GiB to spare
  $ ndlua search.lua Qwen/Qwen3-8B -d 8 --accelerator.tp_size=2 -b 64 -A H100 -l MB --recompute off -v 0 | tail -1
      1    4   2   1   1   1    1    4 off    16   1 off           40.80      4.257  38.2%  31.8%  63.6%   0.0%   2.5%   0.0%   0.0%   0.0%   1.9%   0.0%   0.2%

7697.1 tokens a second a device: 64 sequences of 4096 tokens over 8
devices in 4.257 s is 262144 / 8 / 4.257 = 7697 (the step rounded).
--recompute full recomputes every layer (the search's full row: 5.545 s):

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 -b 64 -A H100 --recompute full | grep "step time"
  step time 5.545 s on H100 (-A): MFU 29.3%, 5909.1 tokens/s a device
  $ ndlua search.lua Qwen/Qwen3-8B -d 8 --accelerator.tp_size=2 -b 64 -A H100 -l MB --recompute full -v 0 | tail -1
      1    4   2   1   1   1    1    4 off    16   1 full          22.07      5.545  29.3%  24.4%  48.8%  22.3%   2.9%   0.0%   0.0%   0.0%   1.5%   0.0%   0.1%
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --recompute auto
  --recompute: 'auto' is no activation checkpoint mode; off, selective or full (one mode a run trains with; search.lua searches them)
  [2]

In the yaml, --recompute is activation_checkpoint.mode:

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml --recompute selective --print-yaml | grep -A1 "^activation_checkpoint:"
  activation_checkpoint:
    mode: selective

A layout that does not fit: the recipe's 35.46 GiB peak (as estimate.t
shows it) over a 20 GiB device. Without --strict the verdict says so and
the run exits 0; with it, the answer is printed and the run exits 2:

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 8 -M 20GiB | tail -1
  device capacity 20.00 GiB (-M 20GiB): does NOT fit: peak 35.46 GiB on stage 0 exceeds it by 15.46 GiB
  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 8 -M 20GiB --strict > out.txt
  --strict: 1 problem:
    does not fit: peak 35.46 GiB on stage 0 exceeds the 20.00 GiB a device by 15.46 GiB
  [2]
  $ tail -1 out.txt
  device capacity 20.00 GiB (-M 20GiB): does NOT fit: peak 35.46 GiB on stage 0 exceeds it by 15.46 GiB
  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 8 -M 20GiB --strict --json > out.json
  --strict: 1 problem:
    does not fit: peak 35.46 GiB on stage 0 exceeds the 20.00 GiB a device by 15.46 GiB
  [2]
  $ ndlua -e 'local t = require("nd").json.decode(io.open("out.json"):read("a")); print(t.fits, t.step.hardware, t.step.step_time_s > 0)'
  false	A2	true
  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 8 -M 40GiB --strict | tail -1
  device capacity 40.00 GiB (-M 40GiB): fits: peak 35.46 GiB on stage 0, 4.54 GiB to spare

A misspelled key: every script warns, and under --strict exits 2 after
its answer.

  $ cp $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml typo.yaml && printf 'trainning:\n  steps: 10\n' >> typo.yaml
  $ ndlua verify.lua typo.yaml -d 8 >/dev/null
  warning: trainning: no rule reads this key (typo.yaml:*:3), so its value is not used; did you mean training? (glob)
  $ ndlua verify.lua typo.yaml -d 8 --strict >/dev/null
  warning: trainning: no rule reads this key (typo.yaml:*:3), so its value is not used; did you mean training? (glob)
  --strict: 1 problem:
    unknown key: trainning: no rule reads this key (typo.yaml:*:3), so its value is not used; did you mean training? (glob)
  [2]
  $ ndlua estimate.lua typo.yaml -d 8 --strict >/dev/null
  warning: trainning: no rule reads this key (typo.yaml:*:3), so its value is not used; did you mean training? (glob)
  --strict: 1 problem:
    unknown key: trainning: no rule reads this key (typo.yaml:*:3), so its value is not used; did you mean training? (glob)
  [2]
  $ ndlua search.lua typo.yaml -d 8 -A A3 --strict -v 0 >/dev/null
  --strict: 1 problem:
    unknown key: trainning: no rule reads this key (typo.yaml:*:3), so its value is not used; did you mean training? (glob)
  [2]

A key the trainer reads and ndlua does not price, stated with another
value than ndlua assumes, is an unpriced key:

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 8 --fsdp_config.forward_prefetch_depth=2 --strict >/dev/null
  warning: fsdp_config.forward_prefetch_depth: is 2 (set by the command line's --fsdp_config.forward_prefetch_depth=2), which the trainer reads but ndlua does not price: ndlua prices one layer gathered ahead (depth 1); the estimate is for 1
  --strict: 1 problem:
    unpriced key: fsdp_config.forward_prefetch_depth: is 2 (set by the command line's --fsdp_config.forward_prefetch_depth=2), which the trainer reads but ndlua does not price: ndlua prices one layer gathered ahead (depth 1); the estimate is for 1
  [2]
