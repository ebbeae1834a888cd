Keys no rule reads (issue 13, item 1). A misspelled key must not leave its
value unused without a word (`accelerator.tp_szie: 4` pricing tp 1): every
key of the sections ndlua reads is checked against what its rules
read and what the trainer's schema states (lua/nd/train_yaml/keys.lua);
one that is neither is warned about, with where it is and the closest
known key.

  $ cat > train.yaml <<'EOF'
  > model:
  >   pretrained_model_name_or_path: Qwen/Qwen3-8B
  > accelerator:
  >   tp_szie: 4
  > training:
  >   global_batch_size: 8
  >   micro_bach_size: 1
  > dataset:
  >   data_transform:
  >     max_seq_len: 4096
  > optimizer:
  >   _target_: adamw
  > EOF
  $ ndlua estimate.lua train.yaml -d 8 2>&1 >/dev/null
  warning: accelerator.tp_szie: no rule reads this key (train.yaml:4:12), so its value is not used; did you mean accelerator.tp_size?
  warning: training.micro_bach_size: no rule reads this key (train.yaml:7:20), so its value is not used; did you mean training.micro_batch_size?

The degree is unchanged (tp 1), as the warning says:

  $ ndlua estimate.lua train.yaml -d 8 2>/dev/null | grep '^run'
  run       8 devices = dp 8 x tp 1 x pp 1 x cp 1 (dp from -d); ep 1, etp 0, vpp 1

On the command line the same, naming the option; a misspelled section
too:

  $ ndlua estimate.lua train.yaml -d 8 --acclerator.tp_size=4 --accelerator.tp_size=2 --accelerator.tp_szie=2 2>&1 >/dev/null | grep -v micro_bach
  warning: accelerator.tp_szie: no rule reads this key (set by the command line's --accelerator.tp_szie=2), so its value is not used; did you mean accelerator.tp_size?
  warning: acclerator: no rule reads this key (set by the command line's --acclerator.tp_size=4), so its value is not used; did you mean accelerator?

A key far from every known one gets no guess:

  $ ndlua estimate.lua train.yaml -d 8 --accelerator.frobnicate=1 2>&1 >/dev/null | grep frob
  warning: accelerator.frobnicate: no rule reads this key (set by the command line's --accelerator.frobnicate=1), so its value is not used; the keys read here are listed in README.md, "Reading train.yaml"

Keys the trainer reads that change memory or time but that ndlua does not
price are warned about apart, when stated with another value than the
one ndlua assumes:

  $ ndlua estimate.lua train.yaml -d 8 --fsdp_config.forward_prefetch_depth=2 --compile.enabled=true 2>&1 >/dev/null | grep -v 'rule reads'
  warning: fsdp_config.forward_prefetch_depth: is 2 (set by the command line's --fsdp_config.forward_prefetch_depth=2), which the trainer reads but ndlua does not price: ndlua prices one layer gathered ahead (depth 1); the estimate is for 1

compile.enabled is priced (issue 12): torch.compile fuses each norm and
the SwiGLU product, whose kernels keep their inputs and fp32 statistics:

  $ ndlua estimate.lua train.yaml -d 8 --compile.enabled=true --json 2>/dev/null | ndlua -e 'local t = require("nd").json.decode(io.read("a")); print(t.run.fused_norm, t.run.fused_swiglu)'
  true	true

The bundled examples and the upstream recipes state no key outside the
lists:

  $ for f in $ROOT/examples/*/train.yaml; do ndlua estimate.lua $f -d 64 2>&1 >/dev/null; done | grep -c 'rule reads\|not price'
  0
  [1]
