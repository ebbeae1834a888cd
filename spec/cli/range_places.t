Range errors name where the value came from (issue 34 item 6): the C
core's range checks ("num_hidden_layers must be from 1 to 100000, got
1000000000", "vpp must be from 1 to 64", "space.top must be from 0 to
1073741824", "device_memory must be from 1 to ...") know no key, file or
option, so the bounds, the C core's (src/core/nd_limits.h, nd.core.limits:
layers 100000, a device's memory 2^50 bytes, the global batch 2^30; vpp 64
in src/binding/lnd_run.c), are checked where the value is read.

Every bound of a model spec's, a census record's and a run's number fields
is the C core's field tables' (src/binding/lnd_model.c, lnd_run.c), handed
to Lua as nd.core.model_bounds() and nd.core.run_bounds() and checked where
the value is read, so that the refusal names the key's file:line or the
option that set it; the core, which knows no place, said the field alone
(each case below said only what follows its place, or less, before).

A checkpoint's config.json, at the key's line and column:

  $ mkdir ck && printf '{\n  "model_type": "llama",\n  "hidden_size": 4096,\n  "intermediate_size": 11008,\n  "num_attention_heads": 32,\n  "num_key_value_heads": 32,\n  "num_hidden_layers": 1000000000,\n  "vocab_size": 32000\n}\n' > ck/config.json
  $ ndlua estimate.lua ./ck -d 8
  ./ck/config.json:7:24: num_hidden_layers: num_hidden_layers must be from 1 to 100000, got 1000000000
  [2]

A train.yaml key, here set by the command line:

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --accelerator.pp_interleave_num=100
  command line --accelerator.pp_interleave_num=100: accelerator.pp_interleave_num: must be at most 64, got 100; a positive whole number
  [2]

The options:

  $ ndlua search.lua Qwen/Qwen3-8B -d 8 -t 1073741825
  -t: shows at most 1073741824 candidates, got 1073741825
  [2]
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 -M 1000000TB
  -M: 1000000TB is past the 1125899906842624 bytes (1 PiB) of a device's memory ndlua prices; a size up to 1PiB
  [2]

Any model field, by the same rule (src/binding/lnd_model.c's model fields:
widths up to 2^24, heads up to 65536, a share from 0 to 1), in a train.yaml's
config_overrides (before: "hidden_size must be from 1 to 16777216, got
100000000"), on the command line, or in a checkpoint's vision_config (the
tower's depth: "vision.num_hidden_layers must be from 1 to 100000"):

  $ printf 'model:\n  pretrained_model_name_or_path: Qwen/Qwen3-8B\n  config_overrides:\n    hidden_size: 100000000\n' > wide.yaml
  $ ndlua estimate.lua wide.yaml -d 8
  wide.yaml:4:18: model.config_overrides.hidden_size: hidden_size must be from 1 to 16777216, got 100000000
  [2]
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --model.config_overrides.partial_rotary_factor=2
  command line --model.config_overrides.partial_rotary_factor=2: model.config_overrides.partial_rotary_factor: partial_rotary_factor must be from 0.0 to 1.0, got 2.0
  [2]
  $ mkdir vl && sed 's/"depth": 32,/"depth": 1000000,/' "$ROOT/lua/nd/catalog/Qwen--Qwen2.5-VL-7B-Instruct/config.json" > vl/config.json && grep -n '"depth"' vl/config.json
  32:    "depth": 1000000,
  $ ndlua estimate.lua ./vl -d 8
  ./vl/config.json:32:14: vision_config.depth: vision.num_hidden_layers must be from 1 to 100000, got 1000000
  [2]

A run's fields (src/binding/lnd_run.c: a global batch and a micro-batch of
at most 2^24 sequences, shards and degrees of at most 2^20 devices) at
their train.yaml keys, where the core said "global_batch_size must be from
1 to 16777216, got 20000000", "expert_shard must be from 1 to 1048576",
"optimizer_shard ...", "etp ...":

  $ printf 'model:\n  pretrained_model_name_or_path: Qwen/Qwen3-8B\ncontext:\n  device_num: 8\ntraining:\n  global_batch_size: 20000000\n' > batch.yaml
  $ ndlua estimate.lua batch.yaml
  batch.yaml:6:22: training.global_batch_size: must be at most 16777216, got 20000000; a positive whole number
  [2]

The options that set a train.yaml's keys (-b, -d, --tp, --pp, --cp, --ep,
--seq) are named as a --section.key=value override is, where a refusal
named the file's line of the value they replaced (here "batch.yaml:6:22",
the line of 20000000) or the key of the yaml a model id implies:

  $ ndlua estimate.lua batch.yaml -b 12
  command line -b 12: training.global_batch_size: 12 is not a multiple of micro_batch_size x dp = 1 x 8 = 8; a global batch that micro_batch_size x dp divides, or a micro_batch_num
  [2]
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --seq 3000000000
  command line --seq 3000000000: dataset.data_transform.max_seq_len: must be at most 2147483648, got 3000000000; a positive whole number
  [2]

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --fsdp_config.edp_shard_size=2000000
  command line --fsdp_config.edp_shard_size=2000000: fsdp_config.edp_shard_size: must be at most 1048576, got 2000000; a positive whole number
  [2]
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --accelerator.optimizer_weight_shard_size=2000000
  command line --accelerator.optimizer_weight_shard_size=2000000: accelerator.optimizer_weight_shard_size: must be at most 1048576, got 2000000; a positive whole number
  [2]
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --accelerator.expert_tensor_parallel_degree=2000000
  command line --accelerator.expert_tensor_parallel_degree=2000000: accelerator.expert_tensor_parallel_degree: must be at most 1048576, got 2000000; a whole number from 0
  [2]
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 1 --training.micro_batch_size=20000000 --training.global_batch_size=0
  command line --training.micro_batch_size=20000000: training.micro_batch_size: must be at most 16777216, got 20000000; a positive whole number
  [2]

A per-stage list's entries, at most the 100000 layers a model holds (before:
"offset must hold whole numbers from -100000 to 100000, got 1000000000"),
and a MoE capacity factor, at most 10^6 (before: "capacity_factor must be
from 1e-06 to 1000000.0, got 1000000000.0"):

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --pp 2 '--model.config_overrides.offset=[1000000000, -1000000000]'
  command line --model.config_overrides.offset=[1000000000, -1000000000]: model.config_overrides.offset: must be at most 100000, got 1000000000; a whole number, a list of one per stage (pp = 2), or vpp = 1 such lists
  [2]
  $ ndlua estimate.lua Qwen/Qwen3-30B-A3B -d 8 --model.config_overrides.capacity_factor=1e9
  command line --model.config_overrides.capacity_factor=1e9: model.config_overrides.capacity_factor: must be at most 1000000, got '1e9'; a capacity factor such as 1.25
  [2]

estimate.lua's -b, a run's global batch (before: "global_batch_size must
be from 1 to 16777216, got 20000000"), and balance.lua's --micro-batches
(before: "micro must be from 1 to 16777216, got 40000000"):

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 -b 20000000
  -b: 20000000 sequences is past the 16777216 ndlua prices; a whole number from 1 to 16777216
  [2]
  $ ndlua balance.lua "$ROOT/spec/fixtures/sapp-ppb/demo.json" -s 2 -m 40000000 --memory 56000MB
  --micro-batches: 40000000 micro-batches is past the 16777216 ndlua prices; a whole number from 1 to 16777216
  [2]

A census record's sizes (src/binding/lnd_model.c's census fields: at most
10^15 bytes a token), at the record in its file (before: the same words
with no file):

  $ printf '{"activations": {"decoder": {"saved": 1e16, "saved_tp": 1, "working": 1, "working_tp": 1, "seq_length": 4096}}}\n' > census.json
  $ printf 'model:\n  pretrained_model_name_or_path: Qwen/Qwen3-0.6B\ncontext:\n  census: census.json\n' > census.yaml
  $ ndlua estimate.lua census.yaml -d 8
  ./census.json: activations.decoder.saved: activations.decoder.saved must be from 0.0 to 1e+15, got 1e+16
  [2]

A search config's cluster: its devices at most 2^20 (before: "context.device_num: must be at most 1048576, got 3000000000", a key
the file does not have, or "dp must be from 1 to 1048576, got 1600000"), a device's memory at most 1 PiB
(before: "space.budget_bytes must be from 0.0 to 1e+18, got
2.147483648e+18"):

  $ printf 'train_yaml: wide.yaml\ncluster:\n  num_nodes: 1\n  cards_per_node: 3000000000\n' > nodes.yaml
  $ ndlua search.lua -s nodes.yaml -A A2 -o out
  nodes.yaml:4:19: cluster.cards_per_node: 3000000000 is past the 1048576 devices ndlua prices
  Search config validation failed with 1 error(s).
  [2]
  $ printf 'train_yaml: wide.yaml\ncluster:\n  num_nodes: 200000\n' > nodes.yaml
  $ ndlua search.lua -s nodes.yaml -A A2 -o out
  nodes.yaml:3:14: cluster.num_nodes: 200000 nodes of 8 devices (A2's node) are 1600000 devices, past the 1048576 ndlua prices
  [2]
  $ printf 'train_yaml: wide.yaml\ncluster:\n  num_nodes: 1\n  device_memory_gb: 2000000000\n' > memory.yaml
  $ ndlua search.lua -s memory.yaml -A A2 -o out
  memory.yaml:4:21: cluster.device_memory_gb: 2000000000 is past the 1048576 GB (1 PiB) ndlua prices
  Search config validation failed with 1 error(s).
  [2]

A hardware profile's links (src/binding/lnd_search.c's level fields: up to
10^9 GB/s and 2^40 devices a level), at the profile's file (before:
"space.hardware.levels[1].gbps must be from 1e-06 to 1000000000.0, got
1000000000000.0"):

  $ mkdir -p hw/nd/hardware && printf 'return { extends = "H100", name = "X", levels = { { devices = 8, gbps = 1e12 }, { gbps = 45 } } }\n' > hw/nd/hardware/X.lua
  $ NDLUA_PATH="$PWD/hw" ndlua search.lua Qwen/Qwen3-8B -d 8 -A X -o out 2>&1 | sed "s#$PWD/##"
  hw/nd/hardware/X.lua: levels[1].gbps must be a bandwidth above 0 and at most 1e9 (GB/s each way a device)
