Every example of examples/ is estimated (issue 5). The model and run lines
are the yaml read back, each value checked against its file; memory values
are pinned only where they follow by hand from the yaml and the parameter
counts of shared/models/PARAMS.md, and are globs elsewhere (the activation,
communication and overhead formulas are still being refined).

The Qwen3-30B-A3B recipe (spec/cli/estimate.t has its numbers): FSDP 8.

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml 2>&1 | grep -E '^(warning|run|\*)'
  warning: context.device_num: AutoModels config carries no context.device_num; assuming dp_replicate=1 (d = dp_shard_size = 8). Pass -d/--devices for HSDP runs.
  run       8 devices = dp 8 x tp 1 x pp 1 x cp 1 (dp from dp_replicate x dp_shard); ep 1, etp 1, vpp 1
  *     0     48        7.11        7.11 * (glob)

DeepSeek-V3 on 256 devices: context.device_num 256 / (tp 2 x pp 8) = dp 16;
global batch 512 = 1 x 16 x 32. VPP 2 leaves the offset to the C core,
which gives the first 61 mod 8 = 5 stages one layer more than 61 // 8 = 7.
The checkpoint's MTP layer (num_nextn_predict_layers 1) is not built.

  $ ndlua estimate.lua $ROOT/examples/deepseek-v3-256/train.yaml
  warning: model: the model states 1 MTP layer, which the AutoModels trainer does not build: ndlua prices none
  model     deepseek_v3 (arch deepseek), built-in catalog deepseek-ai/DeepSeek-V3
            671.03 B parameters (37.55 B active); 61 layers: 3×dense, 58×moe
            1 MTP layer(s) of the checkpoint not built by the AutoModels trainer
  run       256 devices = dp 16 x tp 2 x pp 8 x cp 1 (dp from context.device_num); ep 16, etp 1, vpp 2
            batch 512 = micro-batch 1 x dp 16 x 32 micro-batches; sequence 4096 tokens
            recompute full (activation_checkpoint.mode); schedule 1f1b; sequence parallel on; automodels schema
            runtime hyperparallel (lua/nd/runtimes/hyperparallel.lua; its logs call max_memory_allocated the peak)
            optimizer adamw (2 states of 2 B, sharded over 16); params 2 B, grads 2 B, compute 2 B
  
  memory per device by pipeline stage (GiB; * marks the peak)
    stage layers      params       grads   optimizer activations        comm    overhead     reserve       total
  ?     0      8 * (glob)
  ?     1      8 * (glob)
  ?     2      8 * (glob)
  ?     3      8 * (glob)
  ?     4      8 * (glob)
  ?     5      7 * (glob)
  ?     6      7 * (glob)
  ?     7      7 * (glob)
  
  step time * (glob)
            fwd * (glob)
  
  allocated * GiB, reserved * GiB on stage * (the reserve, * GiB, is for what no allocator counts) (glob)
  device capacity 64.00 GiB (context.max_device_memory 64GB, GB read as GiB, 2^30 bytes): * (glob)

Without VPP, the seed's balanced offset: the same five stages one layer
more.

  $ ndlua estimate.lua $ROOT/examples/deepseek-v3-256/train.yaml --accelerator.pp_interleave_num=1 --json 2>/dev/null > ds.json
  $ ndlua -e 'local t = require("nd").json.load("ds.json"); print(table.concat(t.run.offset, " "), t.run.vpp)'
  1 1 1 1 1 0 0 0	1

Llama-3.1-70B: 64 = dp 2 x tp 8 x pp 4, global batch 64 = 1 x 2 x 32,
fp32 main params (the main column). A middle stage holds 20 layers of
855,654,400 parameters (q and o 8192 x 8192, k and v 8192 x 1024, the MLP
3 x 8192 x 28672, two norms of 8192) in 2 bytes over tp 8 x dp 2:
2,139,136,000 bytes = 1.99 GiB (1.99 too if the norms stay whole on each
TP rank); its gradients the same. The catalog's llama config matches no op
profile, hence the warning.

  $ ndlua estimate.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml
  model     llama (arch llama), built-in catalog meta-llama/Llama-3.1-70B
            70.55 B parameters (70.55 B active); 80 layers: 80×decoder
  run       64 devices = dp 2 x tp 8 x pp 4 x cp 1 (dp from context.device_num); ep 1, etp 0, vpp 1
            batch 64 = micro-batch 1 x dp 2 x 32 micro-batches; sequence 8192 tokens
            recompute selective (activation_checkpoint.mode); schedule 1f1b; sequence parallel on; automodels schema
            runtime hyperparallel (lua/nd/runtimes/hyperparallel.lua; its logs call max_memory_allocated the peak)
            optimizer adamw (2 states of 4 B, sharded over 2, fp32 main params); params 2 B, grads 2 B, compute 2 B
  
  memory per device by pipeline stage (GiB; * marks the peak)
    stage layers      params       grads   optimizer        main activations        comm    overhead     reserve       total
  ?     0     20 * (glob)
  ?     1     20        1.99        1.99 * (glob)
  ?     2     20        1.99        1.99 * (glob)
  ?     3     20 * (glob)
  
  step time * (glob)
            fwd * (glob)
  
  allocated * GiB, reserved * GiB on stage * (the reserve, * GiB, is for what no allocator counts) (glob)
  device capacity 64.00 GiB (context.max_device_memory 64GB, GB read as GiB, 2^30 bytes): * (glob)

Qwen3-VL-30B-A3B: the ImageTextToText class builds the tower; it is
frozen. Every parameter is sharded 16 ways (FSDP over dp 16; the experts
over ep 8 x edp 2): 31,070,754,032 parameters (PARAMS.md, the checkpoint's
safetensors) x 2 bytes / 16 = 3,883,844,254 bytes = 3.62 GiB; gradients
only for the 30,532,122,624 of the language model (PARAMS.md):
3,816,515,328 bytes = 3.55 GiB.

  $ ndlua estimate.lua $ROOT/examples/qwen3-vl-30b-a3b/train.yaml
  model     qwen3_vl_moe (arch qwen), built-in catalog Qwen/Qwen3-VL-30B-A3B-Instruct
            31.07 B parameters (3.35 B active); 48 layers: 48×decoder
            vision tower: 27 layers, 1024 visual tokens, frozen
  run       16 devices = dp 16 x tp 1 x pp 1 x cp 1 (dp from context.device_num); ep 8, etp 1, vpp 1
            batch 32 = micro-batch 1 x dp 16 x 2 micro-batches; sequence 4096 tokens
            recompute full (activation_checkpoint.mode); schedule 1f1b; sequence parallel off; automodels schema
            runtime hyperparallel (lua/nd/runtimes/hyperparallel.lua; its logs call max_memory_allocated the peak)
            optimizer adamw (2 states of 2 B, sharded over 16); params 2 B, grads 2 B, compute 2 B
  
  memory per device by pipeline stage (GiB; * marks the peak)
    stage layers      params       grads   optimizer activations        comm    overhead     reserve       total
  *     0     48        3.62        3.55 * (glob)
  
  step time * (glob)
            fwd * (glob)
  
  allocated * GiB, reserved * GiB on stage * (the reserve, * GiB, is for what no allocator counts) (glob)
  device capacity 64.00 GiB (the default 64GB, GB read as GiB, 2^30 bytes): * (glob)

  $ ndlua estimate.lua $ROOT/examples/qwen3-vl-30b-a3b/train.yaml --json | ndlua -e 'local t = require("nd").json.decode(io.read("a")); print(t.stages[1].bytes.params, t.stages[1].bytes.grads, t.run.freeze_vision, t.run.visual_seq_length)'
  3883844254	3816515328	true	1024

Under torchtitan's runtime the two middle stages of the Llama 3.1 70B
recipe hold no gradient pool and no fragmentation, which the core leaves
out of a stage's table where they are zero, while the first and last
stages hold both: the table shows both columns, and the middle stages'
read 0.00 (stage, fragment, grad pool; the pipelining's receive buffers,
a column of their own before fragment, on every stage):

  $ ndlua estimate.lua $ROOT/examples/llama-3.1-70b-tp-pp-sp/train.yaml --runtime torchtitan 2>/dev/null | grep -E '^[ *] +[0-3] +20 ' | awk '{print $(NF-13), $(NF-3), $(NF-2)}'
  0 * (glob)
  1 0.00 0.00
  2 0.00 0.00
  3 * (glob)
