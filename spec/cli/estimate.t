estimate.lua: the memory per device of the one strategy a train.yaml
states (issue 5). Memory values are pinned only where they follow by hand
from the yaml and the parameter counts of shared/models/PARAMS.md; the
other columns are globs, since the activation, communication and overhead
formulas are still being refined against a PyTorch census.

Options come from one table, which also writes --help:

  $ ndlua estimate.lua --help
  usage: ndlua estimate.lua TRAIN_YAML|MODEL [-d N] [-M SIZE] [-A NAME] [-b B] [--tp N] [--pp N] [--cp N] [--ep N]
                            [--seq TOKENS] [--zero STAGE] [--runtime NAME] [--print-yaml] [--json] [--svg FILE] [--section.key=value ...]
  
  Estimates the memory per device of the strategy a HyperParallel train.yaml states: parameters,
  gradients, optimizer states, activations, communication buffers, backward overhead and reserve,
  for every pipeline stage, against the device's capacity. MODEL (a hub id such as Qwen/Qwen3-8B, or a
  checkpoint directory) stands for the train.yaml the options imply: FSDP over every data-parallel
  rank, full recompute, AdamW, 4096 tokens (see --print-yaml). --section.key=value sets a key of the
  yaml before it is read, as the trainer's own command line does (e.g.
  --model.pretrained_model_name_or_path=Qwen/Qwen3-8B, --accelerator.tp_size=2).
  
  options:
    -d, --devices N           devices in the run, when the yaml states no context.device_num (AutoModels schema)
    -M, --device-memory SIZE  device memory with its unit: 58GB or 64GiB (GB read as GiB); default -A's, else 64GB
    -A, --device-type NAME    hardware profile whose memory is the capacity unless -M or the yaml states one
    -b, --global-batch B      global batch in sequences (training.global_batch_size)
        --tp N                tensor-parallel degree (accelerator.tp_size)
        --pp N                pipeline stages (accelerator.pp_size)
        --cp N                context-parallel degree (accelerator.cp_size)
        --ep N                expert-parallel degree (accelerator.ep_size)
        --seq TOKENS          training sequence (dataset.data_transform.max_seq_len; 4096 for a model id)
        --zero STAGE          ZeRO stage as HyperParallel's FSDP states it: 3 shards the weights over every data-parallel rank, 2 keeps them gathered from forward to backward, 0 shards nothing (default 3 for a model id)
        --print-yaml          print the train.yaml read (built from a model id, or the file with the options applied) and exit
        --runtime NAME        the training runtime whose kernels and allocator are priced (default hyperparallel; see below)
        --recompute MODE      activation checkpointing of every layer: off, selective or full (activation_checkpoint.mode)
        --strict              exit 2 after the answer when the layout does not fit, a key is unknown or unpriced, or a candidate list was widened
        --json                print one JSON document (integers in bytes) instead of the tables
        --svg FILE            also write a stacked bar chart of memory per stage to FILE
    -c, --calibration FILE    lay the per-part ratios of a calibration file (compare.lua --write-calibration) on the estimate; the header says so
    -h, --help                print this help and exit
  
  runtimes (--runtime; nd/runtimes/NAME.lua on NDLUA_PATH adds one):
    deepspeed      DeepSpeed ZeRO 1-3: 16-bit params and grads, fp32 master params and Adam states
    hyperparallel  HyperParallel train.yaml runs (the default, and nd.run's naming none): facts from the yaml and the family
    megatron       Megatron-LM / Megatron-Core: bf16 weights, fp32 main grads and main params, fused TE kernels
    mindspore      MindSpore/MindFormers: fp32 params, bf16 compute, parallel optimizer keeping gathered weights
    none           no runtime: the C core's formula defaults (no sharding, no recompute, the family's widths)
    torchtitan     torchtitan: FSDP2 fp32 sharded params and grads, bf16 gathers, torch.compile

The Qwen3-30B-A3B recipe (an exact copy of HyperParallel's): FSDP over 8
devices (fsdp_config.dp_shard_size: 8, and no context.device_num, hence the
warning), bfloat16 (model.torch_dtype). Its 30,532,122,624 parameters
(PARAMS.md) x 2 bytes / 8 = 7,633,030,656 bytes = 7.11 GiB a device, and
the gradients, kept in the parameters' dtype and sharded as they are, the
same. Muon keeps one state a parameter; global batch 8 = 1 x 8 x 1.

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml
  warning: context.device_num: AutoModels config carries no context.device_num; assuming dp_replicate=1 (d = dp_shard_size = 8). Pass -d/--devices for HSDP runs.
  model     qwen3_moe (arch qwen), built-in catalog Qwen/Qwen3-30B-A3B
            30.53 B parameters (3.35 B active); 48 layers: 48×decoder
  run       8 devices = dp 8 x tp 1 x pp 1 x cp 1 (dp from dp_replicate x dp_shard); ep 1, etp 1, vpp 1
            batch 8 = micro-batch 1 x dp 8 x 1 micro-batches; sequence 4096 tokens
            recompute full (activation_checkpoint.mode); schedule 1f1b; sequence parallel off; automodels schema
            runtime hyperparallel (lua/nd/runtimes/hyperparallel.lua; its logs call max_memory_allocated the peak)
            optimizer muon (1 state of 2 B, sharded over 8); params 2 B, grads 2 B, compute 2 B
  
  memory per device by pipeline stage (GiB; * marks the peak)
    stage layers      params       grads   optimizer activations        comm    overhead     reserve       total
  *     0     48        7.11        7.11 * (glob)
  
  step time * (glob)
            fwd * (glob)
  
  allocated * GiB, reserved * GiB on stage * (the reserve, * GiB, is for what no allocator counts) (glob)
  device capacity 64.00 GiB (the default 64GB, GB read as GiB, 2^30 bytes): fits: peak * GiB on stage 0, * GiB to spare (glob)

The same on 16 devices, as -d gives them (HSDP: dp 16 over shards of 8);
the global batch of 8 is then no multiple of micro-batch 1 x dp 16, so the
batch is set on the command line too, in the trainer's own form:

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 16 2>&1 | head -1
  */examples/qwen3-30b-a3b-fsdp8/train.yaml:24:22: training.global_batch_size: 8 is not a multiple of micro_batch_size x dp = 1 x 16 = 16; a global batch that micro_batch_size x dp divides, or a micro_batch_num (glob)
  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 16 --training.global_batch_size=32 | grep -E '^(run|          batch)'
  run       16 devices = dp 16 x tp 1 x pp 1 x cp 1 (dp from -d); ep 1, etp 1, vpp 1
            batch 32 = micro-batch 1 x dp 16 x 2 micro-batches; sequence 4096 tokens

A device too small: -M gives 8 GiB, and the verdict says by how much the
peak passes it.

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -M 8GiB 2>/dev/null | tail -1
  device capacity 8.00 GiB (-M 8GiB): does NOT fit: peak * GiB on stage 0 exceeds it by * GiB (glob)

--json: one document, integers in bytes, keys sorted, the warnings kept
(they go to stderr too). The byte
components of a stage add up to its total; the capacity is the default
64 GiB = 68,719,476,736 bytes.

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml --json 2>/dev/null > out.json
  $ ndlua -e 'local nd = require "nd"; local t = nd.json.load("out.json")
  > print(table.concat(nd.keys(t), " "))
  > local s = t.stages[1]
  > print(table.concat(nd.keys(s), " "))
  > print(table.concat(nd.keys(s.bytes), " "))
  > print(s.bytes.params, s.bytes.grads, t.capacity_bytes, t.peak_stage, t.fits)
  > local sum = 0
  > for _, k in ipairs({"params", "grads", "optimizer", "main_params", "activations", "comm", "backward_overhead", "reserve"}) do sum = sum + s.bytes[k] end
  > print(sum == s.bytes.total, s.bytes.total == t.peak_bytes)
  > print(t.model.name, t.model.params, t.run.dp, t.run.optimizer, t.run.seq_length, t.config.schema)
  > print(s.layout[1].count, s.rows[2].kind, s.rows[2].count, s.rows[2].recompute)
  > print(#t.warnings, t.warnings[1]:sub(1, 19))'
  capacity_bytes census_kinds census_used config fits model peak_bytes peak_stage run stages step warnings
  bytes layout rows stage
  activations backward_overhead comm grads main_params optimizer params reserve total
  7633030656	7633030656	68719476736	0	true
  true	true
  qwen3_moe	30532122624	8	muon	4096	automodels
  48	decoder	48	full
  1	context.device_num:

--svg: a stacked bar chart of the stages (checked in a browser while it was
written: headless Chromium, a screenshot); here, that it is one SVG
document with a bar part per component and the capacity line.

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml --svg mem.svg 2>/dev/null | tail -1
  chart: mem.svg
  $ head -2 mem.svg
  <?xml version="1.0" encoding="UTF-8"?>
  <svg xmlns="http://www.w3.org/2000/svg" * (glob)
  $ grep -c '<rect' mem.svg
  15
  $ grep -o 'capacity 64.00 GiB' mem.svg
  capacity 64.00 GiB
  $ tail -1 mem.svg
  </svg>

Overrides in the trainer's form set keys before the yaml is read, with the
YAML scalar rules (an unquoted off is false, which is mode off):

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml --activation_checkpoint.mode=off --context.device_num=8 | grep recompute
            recompute off (activation_checkpoint.mode); schedule 1f1b; sequence parallel off; automodels schema

Bad input: exit status 2, a message naming the key (and where it is).

  $ ndlua estimate.lua
  estimate.lua takes one TRAIN_YAML, got 0 arguments; ndlua estimate.lua --help
  [2]

  $ ndlua estimate.lua --frobnicate x.yaml
  --frobnicate: unknown option; see --help
  [2]

  $ ndlua estimate.lua nosuch.yaml
  nosuch.yaml: cannot read: No such file or directory
  [2]

  $ printf 'model: [\n' > broken.yaml
  $ ndlua estimate.lua broken.yaml
  broken.yaml:2:1: YAML syntax error: did not find expected node content (while parsing a flow node at line 2, column 1)
  [2]

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml --accelerator.tp_size
  --accelerator.tp_size: an override needs a value; write --section.key=value, e.g. --model.pretrained_model_name_or_path=Qwen/Qwen3-8B
  [2]

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml --accelerator.tp_size=two
  command line --accelerator.tp_size=two: accelerator.tp_size: must be a whole number, got 'two'; a positive whole number
  [2]

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 12 --accelerator.tp_size=8
  -d: 12 devices are not divisible by tp x pp x cp = 8 x 1 x 1 = 8; a device count that is a multiple of tp x pp x cp
  [2]

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d zero
  -d: takes a whole number above 0, got 'zero'
  [2]

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -M lots
  -M: 'lots' is no memory size; write a number and a unit, such as 58GB, 60GiB or 512MiB
  [2]

  $ cat > tp.yaml <<'YAML'
  > model:
  >   pretrained_model_name_or_path: Qwen/Qwen3-8B
  > accelerator:
  >   tp_size: 2.5
  > YAML
  $ ndlua estimate.lua tp.yaml
  tp.yaml:4:12: accelerator.tp_size: must be a whole number, got 2.5; a positive whole number
  [2]

  $ cat > ac.yaml <<'YAML'
  > model:
  >   pretrained_model_name_or_path: Qwen/Qwen3-8B
  > activation_checkpoint:
  >   mode: auto
  > YAML
  $ ndlua estimate.lua ac.yaml
  ac.yaml:4:9: activation_checkpoint.mode: 'auto' is the search's recompute dimension, not one mode a run trains with; one of off, selective, full
  [2]

  $ cat > dev.yaml <<'YAML'
  > model:
  >   pretrained_model_name_or_path: Qwen/Qwen3-8B
  > accelerator:
  >   tp_size: 8
  > context:
  >   device_num: 12
  > YAML
  $ ndlua estimate.lua dev.yaml
  dev.yaml:6:15: context.device_num: 12 devices are not divisible by tp x pp x cp = 8 x 1 x 1 = 8; a device count that is a multiple of tp x pp x cp
  [2]

  $ cat > moe.yaml <<'YAML'
  > model:
  >   pretrained_model_name_or_path: Qwen/Qwen3-30B-A3B
  > context:
  >   moe_dispatch: -1
  > YAML
  $ ndlua estimate.lua moe.yaml
  moe.yaml:4:17: context.moe_dispatch: takes a cost, not -1; a number >= 0
  [2]

A model found nowhere: the closest catalog ids.

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml --model.pretrained_model_name_or_path=Qwen/Qwen3-31B 2>&1 | grep -E '^(command|closest)'
  command line --model.pretrained_model_name_or_path=Qwen/Qwen3-31B: model.pretrained_model_name_or_path: cannot find the config.json of 'Qwen/Qwen3-31B'; tried:
  closest catalog ids: Qwen/Qwen3-32B, Qwen/Qwen3-8B, Qwen/Qwen3-0.6B; to fix it, put the checkpoint directory (holding config.json) at that path or in the Hugging Face cache, name a catalog id (ndlua verify.lua --list-models), or state the model's fields under model.config_overrides

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml --context.device_num=8 --svg /nonexistent/dir/mem.svg
  /nonexistent/dir/mem.svg: cannot write: No such file or directory; the chart was not written
  [2]

--runtime names the training runtime whose kernels and allocator are
priced (lua/nd/runtimes/); the yaml's own facts (its dtypes, its FSDP)
stay, the runtime fills the rest. Megatron's max_memory_allocated has no
reserve:

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml --runtime Megatron 2>/dev/null | grep -E "runtime|allocated"
            runtime megatron (lua/nd/runtimes/megatron.lua; its logs call max_memory_allocated the peak)
  allocated * GiB, reserved * GiB on stage 0 (the reserve, 0.00 GiB, is for what no allocator counts) (glob)
  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml --runtime jax
  --runtime: 'jax' is no runtime ndlua knows; one of deepspeed, hyperparallel, megatron, mindspore, none, torchtitan (or add nd/runtimes/jax.lua to a directory on NDLUA_PATH)
  [2]

context.deepep (ndlua's own key; also --context.deepep=true) prices the
expert all-to-all on DeepEP's internode kernels: Qwen3-30B-A3B at EP 32
spans 4 nodes of 8 H100s, and a token goes once to each node its 8
experts sit on (about 3.6 of 4) rather than to each remote expert's rank:
the ep share of the step falls.

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 32 -A H100 --accelerator.ep_size=32 --training.global_batch_size=32 2>/dev/null | grep -E "^step time|, ep [0-9]"
  step time 1.034 s on H100 (-A): MFU 9.2%, 3960.9 tokens/s a device
            fwd 8.6%, bwd 17.6%, rec 7.9%, tp 0.0%, cp 0.0%, ep 62.3%, pp 0.0%, dp 3.0%, bubble 0.0%, opt 0.6%
  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 32 -A H100 --accelerator.ep_size=32 --training.global_batch_size=32 --context.deepep=true 2>/dev/null | grep -E "^step time|, ep [0-9]"
  step time 0.682 s on H100 (-A): MFU 14.0%, 6004.9 tokens/s a device
            fwd 13.1%, bwd 26.7%, rec 12.0%, tp 0.0%, cp 0.0%, ep 42.8%, pp 0.0%, dp 4.5%, bubble 0.0%, opt 0.9%
