A model id (or a checkpoint directory) where a train.yaml would go: the
scripts build the HyperParallel train.yaml their options imply (issue 14
item 4), print it with --print-yaml, and read it as they read a file.

estimate.lua on Qwen3-8B over 8 devices with TP 2 and a batch of 64: dp =
8 / 2 = 4, FSDP over those 4 ranks (ZeRO-3, the recipes' default), 64 / 4
= 16 micro-batches of one sequence of 4096 tokens:

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 -b 64 --print-yaml
  accelerator:
    cp_size: 1
    ep_size: 1
    pp_size: 1
    tp_size: 2
  activation_checkpoint:
    mode: full
  context:
    device_num: 8
  dataset:
    data_transform:
      max_seq_len: 4096
  fsdp_config:
    dp_shard_size: 4
    reshard_after_forward: true
  model:
    pretrained_model_name_or_path: Qwen/Qwen3-8B
  optimizer:
    _target_: torch.optim.AdamW
  training:
    global_batch_size: 64
    micro_batch_size: 1
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 -b 64 -A H100
  model     qwen3 (arch qwen), built-in catalog Qwen/Qwen3-8B
            8.19 B parameters (8.19 B active); 36 layers: 36×decoder
  run       8 devices = dp 4 x tp 2 x pp 1 x cp 1 (dp from context.device_num); ep 1, etp 0, vpp 1
            batch 64 = micro-batch 1 x dp 4 x 16 micro-batches; sequence 4096 tokens
            recompute full (activation_checkpoint.mode); schedule 1f1b; sequence parallel off; automodels schema
            runtime hyperparallel (lua/nd/runtimes/hyperparallel.lua; its logs call max_memory_allocated the peak)
            optimizer adamw (2 states of 2 B, sharded over 4); params 2 B, grads 2 B, compute 2 B
  
  memory per device by pipeline stage (GiB; * marks the peak)
    stage layers      params       grads   optimizer activations        comm    overhead     reserve       total
  *     0     36        2.05        2.05        4.10        3.01        3.48        6.38        1.00       22.07
  
  step time * (glob)
            fwd * (glob)
  
  allocated 21.07 GiB, reserved 21.07 GiB on stage 0 (the reserve, 1.00 GiB, is for what no allocator counts)
  device capacity 79.65 GiB (H100's memory 81559MiB): fits: peak 22.07 GiB on stage 0, 57.58 GiB to spare

--zero 2 keeps the weights gathered from forward to backward (FSDP's
reshard_after_forward: false); --zero 0 shards nothing, so every rank
holds all its TP shard's optimizer states (4 times ZeRO-3's); ZeRO-1 has
no train.yaml key:

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 -b 64 --zero 2 --print-yaml | grep -A2 fsdp_config
  fsdp_config:
    dp_shard_size: 4
    reshard_after_forward: false
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 -b 64 --zero 0 --json | grep '"optimizer"'
      "optimizer": "adamw",
          "optimizer": 17626130432,
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 -b 64 --zero 3 --json | grep '"optimizer"'
      "optimizer": "adamw",
          "optimizer": 4406532608,
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --zero 1
  --zero: ZeRO-1 (optimizer states alone sharded) has no train.yaml key: HyperParallel's FSDP shards the weights too; --zero 0, 2 or 3
  [2]
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 6 --tp 4
  -d: 6 devices are no multiple of tp x pp x cp = 4 x 1 x 1
  [2]

The same options over a train.yaml file set its keys, as --section.key=value
would:

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml --tp 2 --seq 8192 -b 16 --print-yaml | grep -E 'tp_size|max_seq_len|global_batch_size'
    global_batch_size: 16
    tp_size: 2
      max_seq_len: 8192

search.lua on DeepSeek-V3 over 1024 devices for a batch of 1024 (the
yaml below, then the search over it; -d is required):

  $ ndlua search.lua deepseek-ai/DeepSeek-V3 -d 1024 -b 1024 --print-yaml
  accelerator:
    cp_size: 1
    ep_size: 1
    pp_size: 1
    tp_size: 1
  activation_checkpoint:
    mode: full
  context:
    device_num: 1024
  dataset:
    data_transform:
      max_seq_len: 4096
  fsdp_config:
    dp_shard_size: 1024
    reshard_after_forward: true
  model:
    pretrained_model_name_or_path: deepseek-ai/DeepSeek-V3
  optimizer:
    _target_: torch.optim.AdamW
  training:
    global_batch_size: 1024
    micro_batch_size: 1
  $ ndlua search.lua deepseek-ai/DeepSeek-V3 -d 1024 -b 1024 -o out -t 3
  search: deepseek_v3 on 1024 devices (A2), a global batch of 1024, 64.00 GiB a device (A2's memory 64GB, GB read as GiB, 2^30 bytes); recompute full (activation_checkpoint.mode); ranked by throughput
  bounds: PP up to 61 (the machine's 128, 61 layers over VPP 1, a batch of 1024); EP up to 256 (the model's experts); TP up to 128 (the model's KV heads)
  135968 candidates tested: 50920 refused (a degree out of bounds 50920), 85048 priced for memory
  18990 fitting the budget of 64.00 GiB, 66058 dropped over it; searched in * s (glob)
  
  top 3 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1    4   4  32   1   2    1    1 off   256   1 full          57.20     15.030  21.8%  16.8%  33.6%  16.8%   9.0%   7.2%   0.0%   5.0%   1.1%  10.4%   0.0%
     ~2    8   4  32   1   1    1    1  on   128   1 full          56.11     15.275  21.5%  16.5%  33.1%  16.5%   8.9%   0.0%   0.0%   4.9%   1.3%  18.7%   0.0%  also #3 (sp off)
  1 of the 3 differs from a row above only in the FSDP shard (op) or SP: shown beside it (also #rank)
  ~ 1 row within 18.5 % of #1's step (15.030 s), the time model's mean error on the 23 validation cases (make validate): as close to #1 as the model can tell
  what separates the next rows from #1 (the step parts that differ most, by 0.5 % of its step or more):
    #2 +0.245 s (+1.6 %): bubble +1.306 s, cp -1.090 s; peak -1.08 GiB
  
  resolved strategy written to out/resolved.yaml (context left out; train it on 1024 devices)
  warning: model: the model states 1 MTP layer, which the AutoModels trainer does not build: ndlua prices none
  $ ndlua search.lua deepseek-ai/DeepSeek-V3 -b 1024
  -d: a search from a model id (deepseek-ai/DeepSeek-V3) needs the device count; -d N
  [2]

