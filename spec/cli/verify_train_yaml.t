verify.lua on a train.yaml (issue 5): the model its trainer builds, and
the run the yaml states, as the run table nd.run takes and the values the
C core derives from it (run:derived), so that every parsing rule can be
seen. Values below are read back from the yaml beside them.

  $ cat > train.yaml <<'YAML'
  > model:
  >   _target_: hyper_parallel.models.HyperAutoModelForCausalLM.from_pretrained
  >   pretrained_model_name_or_path: deepseek-ai/DeepSeek-V3
  >   torch_dtype: bfloat16
  > training:
  >   global_batch_size: 512
  >   micro_batch_size: 1
  > accelerator:
  >   tp_size: 2
  >   ep_size: 16
  >   pp_size: 8
  >   sequence_parallel: true
  > fsdp_config:
  >   dp_shard_size: 16
  >   edp_shard_size: 2
  > activation_checkpoint:
  >   mode: full
  > dataset:
  >   data_transform:
  >     max_seq_len: 4096
  > optimizer:
  >   _target_: hyper_parallel.components.optim.AdamW
  > context:
  >   device_num: 256
  > YAML

The human report ends with the run and the derived values; the warning
(the checkpoint's MTP layer, which the AutoModels trainer does not build)
goes to stderr once.

  $ ndlua verify.lua train.yaml > report.txt
  warning: model: the model states 1 MTP layer, which the AutoModels trainer does not build: ndlua prices none
  $ grep -E '^(model |  layers |run |derived )' report.txt
  model deepseek_v3 (arch deepseek)
    layers                             3×dense, 58×moe
  run (automodels schema; the table nd.run takes)
  derived (run:derived)

256 devices / (tp 2 x pp 8) = dp 16; 512 = 1 x 16 x 32 micro-batches; the
offset is the seed's balanced one, 61 mod 8 = 5 stages one layer more.

  $ grep -E '^  (dp|tp|pp|ep|etp|micro_batch_num|global_batch_size|seq_length|offset|full_recompute|expert_shard|optimizer_shard|optimizer|sequence_parallel) ' report.txt
    dp                                 16
    ep                                 16
    etp                                1
    expert_shard                       2
    full_recompute                     true
    global_batch_size                  512
    micro_batch_num                    32
    offset                             [1,1,1,1,1,0,0,0]
    optimizer                          adamw
    optimizer_shard                    16
    pp                                 8
    seq_length                         4096
    sequence_parallel                  true
    tp                                 2

--json carries run, derived and config beside the model. Derived values
that follow from the yaml: sequence parallelism splits over tp (sp 2); the
optimizer shards over dp_shard_size 16; the expert data-parallel group is
dp x tp x cp / ep = 16 x 2 x 1 / 16 = 2; the tokens of a sequence 4096.

  $ ndlua verify.lua --json train.yaml 2>/dev/null > out.json
  $ ndlua -e 'local nd = require "nd"; local t = nd.json.load("out.json")
  > print(table.concat(nd.keys(t), " "))
  > print(t.derived.sp, t.derived.optimizer_ranks, t.derived.edp_group, t.derived.tokens, t.derived.bytes_p)
  > print(t.config.schema, t.config.mtp_unpriced, t.config.stated_ac_mode, t.config.dp_source, t.config.seq_len_stated)
  > print(t.run.mtp_in_offset, t.model.mtp_depth, #t.warnings)'
  activations_per_token config derived flops_per_token model params run source warnings
  2	16	2	4096	2
  automodels	1	full	context.device_num	true
  false	0	1

Overrides in the trainer's form work here too; for a hub id they are
refused, having no yaml to set keys of.

  $ ndlua verify.lua train.yaml --accelerator.pp_size=4 -d 64 --context.device_num=null 2>/dev/null | grep -E '^  (dp|pp) '
    dp                                 8
    pp                                 4
  $ ndlua verify.lua Qwen/Qwen3-8B --accelerator.tp_size=2
  --accelerator.tp_size=2: sets a key of a train.yaml, and Qwen/Qwen3-8B is none; a TRAIN_YAML (*.yaml, *.yml) to override keys of
  [2]

Warnings raised while the run is built print too: with ep_size 64 the
expert data-parallel group is dp x tp / ep = 16 x 2 / 64 < 1 (etp 1, cp 1),
a layout the trainer cannot make, so the expert degrees are clamped to 1:

  $ ndlua verify.lua train.yaml --accelerator.ep_size=64 2>&1 >/dev/null | grep ep_size
  warning: accelerator.ep_size: expert degrees invalid for dp=16 tp=2 ep=64 etp=1 experts=256; clamping to minimum values

A refusal prints alone, without the warnings gathered before it; it
points at the key it is about, here the file's device count, which the
tp_size the command line set does not divide:

  $ ndlua verify.lua train.yaml --accelerator.tp_size=3
  train.yaml:24:15: context.device_num: 256 devices are not divisible by tp x pp x cp = 3 x 8 x 1 = 24; a device count that is a multiple of tp x pp x cp
  [2]
