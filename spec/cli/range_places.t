Range errors name where the value came from (issue 34 item 6): the C
core's range checks ("num_hidden_layers must be from 1 to 100000, got
1000000000", "vpp must be from 1 to 64", "space.top must be from 0 to
1073741824", "device_memory must be from 1 to ...") said no key, file or
option. The bounds are the C core's (src/core/nd_limits.h, nd.core.limits:
layers 100000, a device's memory 2^50 bytes, the global batch 2^30; vpp 64
in src/binding/lnd_run.c), now checked where the value is read.

A checkpoint's config.json, at the key's line and column:

  $ mkdir ck && printf '{\n  "model_type": "llama",\n  "hidden_size": 4096,\n  "intermediate_size": 11008,\n  "num_attention_heads": 32,\n  "num_key_value_heads": 32,\n  "num_hidden_layers": 1000000000,\n  "vocab_size": 32000\n}\n' > ck/config.json
  $ ndlua estimate.lua ./ck -d 8
  ./ck/config.json:7:24: num_hidden_layers: must be from 1 to 100000, got 1000000000; the layers ndlua prices (nd.core.limits.layers)
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
