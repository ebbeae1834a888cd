search.lua: the strategies of a train.yaml's model that fit the device
memory, ranked (issue 6). Small searches whose every candidate is listed
by hand below, with the step time of each worked out from the formulas of
src/core/timing.c (its comments), independently of ndlua.

The options come from one table, which also writes --help; the hardware
profiles and ranking policies are files, listed from where they are found:

  $ ndlua search.lua --help
  usage: ndlua search.lua TRAIN_YAML|MODEL [options] [--section.key=value ...]
  
  Searches the parallel strategies (DP, TP, PP, VPP, CP, EP, OP (FSDP), SP, micro-batches, recompute)
  of the model a HyperParallel train.yaml trains, prices each one's memory per device, drops those over
  the budget, estimates the step time of the rest and ranks them by a policy. Writes the best into
  resolved.yaml. MODEL (a hub id such as deepseek-ai/DeepSeek-V3, or a checkpoint directory) stands for
  the train.yaml -d, -b, --seq and --zero imply (see --print-yaml). --section.key=value sets a key of the
  yaml before it is read.
  
  options:
    -d,   --devices N            devices (default: the yaml's context.device_num)
    -b,   --global-batch B       global batch in sequences (default: the yaml's)
    -M,   --max-memory SIZE      device memory cap with its unit, such as 58GB or 60GiB (GB read as GiB; default: context.max_device_memory, else the device's)
    -mem, --reserve SIZE         memory kept free, taken off the cap (default 0)
    -A,   --device-type NAME     hardware profile (default A2; see below)
    -l,   --dims DIM...          dimensions searched: DP TP (or MP) SP PP VPP CP EP OP MB MBS (default all); the others keep the yaml's, but MB and DP always vary: DP fills the devices the others leave
    -t,   --top N                candidates shown (default 10)
    -j,   --jobs N               threads the search runs on, 0 for every online core; any N gives the same result (default 0)
    -s,   --search-config FILE   a search config (search.yaml)
          --recompute MODES      recompute modes priced: off,selective,full or auto (default: context.recompute, else the yaml's)
          --policy NAME|FILE     ranking policy (default throughput; see below)
    -c,   --calibration FILE     rank and keep by the estimates with a calibration file's per-part ratios laid on (compare.lua --write-calibration); the header says so
          --runtime NAME         the training runtime priced (default hyperparallel; estimate.lua --help lists them)
    -o,   --output-dir DIR       where resolved.yaml goes (default .)
          --json                 print one JSON document instead of the tables
          --csv FILE             write every fitting candidate to FILE
          --csv-limit N          write at most the first N fitting candidates (in rank order) to the --csv FILE
          --svg FILE             write a chart of the top candidates to FILE
          --balance              price pipelined candidates with their balanced plan: per-stage layers and recompute (balance.lua); the memory filter and the ranking see it; a candidate whose even split fits takes the plan only where it ranks before that split by the policy (memory: a lower peak, or equal and a faster step; else a faster step) (default: the search config's balance, else context.balance)
          --balance-limit N      with --balance: the most pipelined candidates balanced (default: every one its bound does not prune, ranking by step, peak or nd_score; 64 in rank order under a policy with a score function, which no bound orders)
    -k,   --plan N               with --balance: write the Nth ranked candidate's plan (layers, recompute lists, the balancer's problem) to plan-N.json in -o
    -ao,  --offload              with --balance: the plans' plain layers may offload their activations to the host (balance.lua --offload; default: the search config's offload, else context.offload)
          --auto-offload         the same as --offload (the reference's name)
          --host-link-gibps G    with --offload: the host link's GiB/s each way (default the profile's)
          --host-link-overlap F  with --offload: the share of a layer's forward its copies may run behind (default 0.8)
          --host-link-cost MS    with --offload: ms each GiB copied costs the step (default the profile's, else 0)
          --strict               exit 2 after the answer when the layout does not fit, a key is unknown or unpriced, or a candidate list was widened
    -v,   --verbosity LEVEL      0 the table only; 1 summary and warnings; 2 also each dropped candidate; 3 also the space (default 1)
          --seq TOKENS           training sequence (dataset.data_transform.max_seq_len; 4096 for a model id)
          --zero STAGE           ZeRO stage as HyperParallel's FSDP states it: 3 shards the weights over every data-parallel rank, 2 keeps them gathered from forward to backward, 0 shards nothing (default 3 for a model id)
          --print-yaml           print the train.yaml read (built from a model id, or the file with the options applied) and exit
    -h,   --help                 print this help and exit
  
  hardware profiles (-A; nd/hardware/NAME.lua on NDLUA_PATH adds one):
    910B       Huawei Ascend 910B (Atlas 800T A2), 8 NPUs a node, the links' own bandwidths (A2: the reference's)
    910C       Huawei Ascend 910C dies (CloudMatrix 384), 768 dies on the Unified Bus, the links' own bandwidths
    A100-80GB  NVIDIA A100 80GB SXM4 (HGX/DGX A100), 8 GPUs a node, HDR InfiniBand
    A2         Huawei Ascend 910B (Atlas 800T A2), 8 NPUs a node
    A3         Huawei Ascend 910C (Atlas 900 A3 SuperPoD), 16 dies a node, 24 nodes a supernode
    B200       NVIDIA B200 (HGX/DGX B200), 8 GPUs a node, 400 Gb/s InfiniBand
    GB200      NVIDIA GB200 NVL72, 72 GPUs an NVLink domain (rack), 400 Gb/s InfiniBand between racks
    H100       NVIDIA H100 SXM5 80GB (HGX/DGX H100), 8 GPUs a node, NDR InfiniBand
    H20        NVIDIA H20 96GB (HGX H20), 8 GPUs a node, 400 Gb/s InfiniBand
    H200       NVIDIA H200 SXM 141GB (HGX H200), 8 GPUs a node, NDR InfiniBand
    H800       NVIDIA H800 SXM5 80GB (HGX H800), 8 GPUs a node on 400 GB/s NVLink, NDR InfiniBand
    MI300X     AMD Instinct MI300X 192GB (MI300X Platform), 8 GPUs a node on Infinity Fabric, 400 Gb/s between
  
  ranking policies (--policy; or a file, see examples/policies/):
    memory     lowest peak memory first, then the fastest step
    nd         the reference planner's relative score (SAPP-ND's order)
    throughput fastest estimated step first, then the lowest peak memory

The machine: a profile the user adds as nd/hardware/flat8.lua in a
directory on the Lua path (here the working directory; a directory on
NDLUA_PATH serves the same), 8 devices on one level at 100 GB/s each way,
100 TFLOP/s sustained and peak, no overlap, so that every second below is
plain arithmetic.

  $ mkdir -p nd/hardware && cat > nd/hardware/flat8.lua <<'EOF'
  > return { name = "flat8", about = "a test machine", memory = "64GiB", peak_tflops = 100, sustained_tflops = 100,
  >          levels = { { devices = 8, gbps = 100 }, { gbps = 10 } },
  >          overlap = { dp = 0, tp = 0, cp = 0, ep = 0, pp = 0 } }
  > EOF

The model: a dense decoder of 4 layers, h = 1024, 8 heads of 128 (8 KV
heads), gated FFN of 4096, vocabulary 32000, bf16; sequences of 2048
tokens, a global batch of 16, full recompute, plain data parallelism (no
FSDP shard), on 8 devices.

  $ cat > train.yaml <<'EOF'
  > model:
  >   torch_dtype: bfloat16
  >   config_overrides:
  >     arch: default
  >     hidden_size: 1024
  >     num_hidden_layers: 4
  >     num_attention_heads: 8
  >     num_key_value_heads: 8
  >     intermediate_size: 4096
  >     vocab_size: 32000
  > training:
  >   global_batch_size: 16
  >   micro_batch_size: 1
  > accelerator:
  >   tp_size: 1
  >   pp_size: 1
  > fsdp_config:
  >   dp_shard_size: 1
  > activation_checkpoint:
  >   mode: full
  > optimizer:
  >   _target_: AdamW
  > dataset:
  >   data_transform:
  >     max_seq_len: 2048
  > context:
  >   device_num: 8
  > EOF

Search 1: -l DP TP. TP runs over the divisors of 8 up to the 8 KV heads;
everything else keeps the yaml's (PP 1, CP 1, EP 1, VPP 1, MBS 1, OP 1, SP
off); DP = 8 / TP and MB = 16 / DP:

  TP 1: DP 8, MB 2     TP 2: DP 4, MB 4     TP 4: DP 2, MB 8     TP 8: DP 1, MB 16

4 tested, none refused (each makes the batch: DP x MB = 16). Their times:
a layer's weights are 4·h² = 4194304 (attention) + 3·h·4096 = 12582912
(MLP) + 2h (norms); its forward 2·4194304 + 2·8·2048·256·0.5 (causal
scores) + 2·12582912 = 37748736 FLOPs a token; the head 2·32000·1024 =
65536000. A micro-batch of 2048 tokens: forward F = 443455373312 FLOPs,
its 4 layers F_L = 309237645312. With m = 2·TP micro-batches of F/TP
each, compute is the same for every TP: m·(3F + F_L)/TP / 1e14 =
0.032792 s (forward 0.008869, backward twice that, recompute 0.006185).
TP's gathers: 4 layers x 8·(t − 1)/t · 2048·1024·2 B, x 1.5 (a fully
recomputed layer gathers again in its second forward), x m, at 100 GB/s:
0 / 0.004027 / 0.012080 / 0.028186 s. DP's all-reduce of a rank's weights
W/t (W = 4 layers + embedding + head = 132653056), 2·(d − 1)/d · W/t · 2 B:
0.004643 / 0.001990 / 0.000663 / 0 s. Steps: 0.037435, 0.038808,
0.045535, 0.060978 s; MFU = 3 · 216530944 FLOPs a token · 16 · 2048 /
(step · 8 · 100 TFLOP/s): 71.1, 68.6, 58.4, 43.6 %.

  $ ndlua search.lua train.yaml -l DP TP -A flat8
  search: custom on 8 devices (flat8), a global batch of 16, 64.00 GiB a device (flat8's memory 64GiB); recompute full (activation_checkpoint.mode); ranked by throughput
  bounds: TP up to 8 (the model's KV heads)
  4 candidates tested: none refused, 4 priced for memory
  4 fitting the budget of 64.00 GiB, 0 dropped over it; searched in * s (glob)
  
  top 4 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1    8   1   1   1   1    1    1 off     2   1 full           2.87      0.037  71.1%  23.7%  47.4%  16.5%   0.0%   0.0%   0.0%   0.0%  12.4%   0.0%   0.0%
     ~2    4   2   1   1   1    1    1 off     4   1 full           2.47      0.039  68.6%  22.9%  45.7%  15.9%  10.4%   0.0%   0.0%   0.0%   5.1%   0.0%   0.0%
      3    2   4   1   1   1    1    1 off     8   1 full           2.27      0.046  58.4%  19.5%  39.0%  13.6%  26.5%   0.0%   0.0%   0.0%   1.5%   0.0%   0.0%
      4    1   8   1   1   1    1    1 off    16   1 full           2.10      0.061  43.6%  14.5%  29.1%  10.1%  46.2%   0.0%   0.0%   0.0%   0.0%   0.0%   0.0%
  ~ 1 row within 18.5 % of #1's step (0.037 s), the time model's mean error on the 23 validation cases (make validate): as close to #1 as the model can tell
  what separates the next rows from #1 (the step parts that differ most, by 0.5 % of its step or more):
    #2 +0.00137 s (+3.7 %): tp +0.00403 s, dp -0.00265 s; peak -0.40 GiB
    #3 +0.0081 s (+21.6 %): tp +0.012 s, dp -0.00398 s; peak -0.60 GiB
    #4 +0.024 s (+62.9 %): tp +0.028 s, dp -0.00464 s; peak -0.77 GiB
  
  resolved strategy written to ./resolved.yaml (context left out; train it on 8 devices)

DP varies whether -l names it or not: it fills what the listed dimensions
leave (8 / TP here), as the reference's loop nest derives it, so -l TP is
the same four candidates, the same times (a yaml written for TP 4 too,
whose DP of 2 would otherwise have pinned the search to TP 4):

  $ ndlua search.lua train.yaml -l TP -A flat8 -v 0 --accelerator.tp_size=4
  top 4 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1    8   1   1   1   1    1    1 off     2   1 full           2.87      0.037  71.1%  23.7%  47.4%  16.5%   0.0%   0.0%   0.0%   0.0%  12.4%   0.0%   0.0%
     ~2    4   2   1   1   1    1    1 off     4   1 full           2.47      0.039  68.6%  22.9%  45.7%  15.9%  10.4%   0.0%   0.0%   0.0%   5.1%   0.0%   0.0%
      3    2   4   1   1   1    1    1 off     8   1 full           2.27      0.046  58.4%  19.5%  39.0%  13.6%  26.5%   0.0%   0.0%   0.0%   1.5%   0.0%   0.0%
      4    1   8   1   1   1    1    1 off    16   1 full           2.10      0.061  43.6%  14.5%  29.1%  10.1%  46.2%   0.0%   0.0%   0.0%   0.0%   0.0%   0.0%

The peaks are the memory model's, the same estimate.lua gives each
strategy written into the yaml. (The output's kept tensors of the micro-batch
in backward count once, among the activations, not again in the backward
overhead, which would add 0.26 GiB to each: the final
RMSNorm's 6·1024 + 4, the head's input 2·1024, the labels 8 and the fp32
log-probabilities 4·32000 bytes a token (this yaml's loss is not
vocabulary-parallel), x 2048 tokens = 278,945,792 B = 0.26 GiB.)

  $ for t in 1 2 4 8; do ndlua estimate.lua train.yaml --accelerator.tp_size=$t | tail -1; done
  device capacity 64.00 GiB (the default 64GB, GB read as GiB, 2^30 bytes): fits: peak 2.87 GiB on stage 0, 61.13 GiB to spare
  device capacity 64.00 GiB (the default 64GB, GB read as GiB, 2^30 bytes): fits: peak 2.47 GiB on stage 0, 61.53 GiB to spare
  device capacity 64.00 GiB (the default 64GB, GB read as GiB, 2^30 bytes): fits: peak 2.27 GiB on stage 0, 61.73 GiB to spare
  device capacity 64.00 GiB (the default 64GB, GB read as GiB, 2^30 bytes): fits: peak 2.10 GiB on stage 0, 61.90 GiB to spare

So a cap of 2.6 GB (binary) drops TP 1; -v 2 says by how much:

  $ ndlua search.lua train.yaml -l DP TP -A flat8 -M 2.6GB -v 2
  search: custom on 8 devices (flat8), a global batch of 16, 2.60 GiB a device (-M 2.6GB, GB read as GiB, 2^30 bytes); recompute full (activation_checkpoint.mode); ranked by throughput
  bounds: TP up to 8 (the model's KV heads)
  4 candidates tested: none refused, 4 priced for memory
  3 fitting the budget of 2.60 GiB, 1 dropped over it; searched in * s (glob)
  dropped: dp 8 tp 1 pp 1 vpp 1 cp 1 ep 1 op 1 sp off mb 2 mbs 1 full: its peak of 2.87 GiB (stage 0) is over the 2.60 GiB budget by 0.27 GiB
  
  top 3 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1    4   2   1   1   1    1    1 off     4   1 full           2.47      0.039  68.6%  22.9%  45.7%  15.9%  10.4%   0.0%   0.0%   0.0%   5.1%   0.0%   0.0%
     ~2    2   4   1   1   1    1    1 off     8   1 full           2.27      0.046  58.4%  19.5%  39.0%  13.6%  26.5%   0.0%   0.0%   0.0%   1.5%   0.0%   0.0%
      3    1   8   1   1   1    1    1 off    16   1 full           2.10      0.061  43.6%  14.5%  29.1%  10.1%  46.2%   0.0%   0.0%   0.0%   0.0%   0.0%   0.0%
  ~ 1 row within 18.5 % of #1's step (0.039 s), the time model's mean error on the 23 validation cases (make validate): as close to #1 as the model can tell
  what separates the next rows from #1 (the step parts that differ most, by 0.5 % of its step or more):
    #2 +0.00673 s (+17.3 %): tp +0.00805 s, dp -0.00133 s; peak -0.20 GiB
    #3 +0.022 s (+57.1 %): tp +0.024 s, dp -0.00199 s; peak -0.37 GiB
  
  resolved strategy written to ./resolved.yaml (context left out; train it on 8 devices)

-mem keeps memory free after the cap: 2.6 GB less 0.2 GB leaves 2.4 GB,
under TP 2's 2.47 GiB too, so TP 4 comes first:

  $ ndlua search.lua train.yaml -l DP TP -A flat8 -M 2.6GB -mem 0.2GB -v 0 -t 1
  top 1 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1    2   4   1   1   1    1    1 off     8   1 full           2.27      0.046  58.4%  19.5%  39.0%  13.6%  26.5%   0.0%   0.0%   0.0%   1.5%   0.0%   0.0%

Offload is priced in memory alone: with fsdp_config.enable_offload the
parameters, their gradients and optimizer states go to the host, and the
search warns that its step times leave out the host-device copies and the
host's optimizer step:

  $ ndlua search.lua train.yaml -l DP TP -A flat8 -t 1 --fsdp_config.enable_offload=true 2>&1 >/dev/null
  warning: fsdp_config.enable_offload: the run offloads the parameters to the host: priced in memory only; the step times leave out the host-device copies and the host's optimizer step, so they are too short

Search 2: -l DP TP PP with a batch of 4. PP runs up to min(the machine's
8, 4 layers, the batch 4) = 4; MB = 4 / DP must be at least PP:

  TP 1: PP 1 (DP 8, MB 0: refused), PP 2 (DP 4, MB 1 < 2: refused), PP 4 (DP 2, MB 2 < 4: refused)
  TP 2: PP 1 (DP 4, MB 1), PP 2 (DP 2, MB 2), PP 4 (DP 1, MB 4)
  TP 4: PP 1 (DP 2, MB 2), PP 2 (DP 1, MB 4)
  TP 8: PP 1 (DP 1, MB 4)

9 tested, 3 refused as out of bounds, 6 priced. With PP, each stage's
micro-batch time X_s is its layers' share of the above (the head on the
last stage, the embedding's weights on the first) plus the activations it
sends, 2 · 2048 · 1024 · 2 B at 100 GB/s; the step is ΣX + (m − 1)·max X
(1F1B) plus DP's all-reduce of the heaviest stage's weights. Worked out:

  TP 2, PP 1: 0.011194 s     TP 4, PP 1: 0.011881     TP 8, PP 1: 0.015244
  TP 2, PP 2: 0.015729 (bubble 0.003680, 23.4 %)     TP 4, PP 2: 0.015952 (bubble 0.002385, 15.0 %)
  TP 2, PP 4: 0.021225 (bubble 0.005645, 26.6 %)

-v 3 also shows the space the search ran over:

  $ ndlua search.lua train.yaml -l DP TP PP -b 4 -A flat8 -v 3
  search: custom on 8 devices (flat8), a global batch of 4, 64.00 GiB a device (flat8's memory 64GiB); recompute full (activation_checkpoint.mode); ranked by throughput
  bounds: PP up to 4 (the machine's 8, 4 layers over VPP 1, a batch of 4); TP up to 8 (the model's KV heads)
  space:
    DP   searched
    EP   fixed 1
    TP   searched up to 8 (the model's KV heads)
    CP   fixed 1
    PP   searched up to 4 (the machine's 8, 4 layers over VPP 1, a batch of 4)
    VPP  fixed 1
    MB   searched
    MBS  fixed 1
    SP   fixed 0
    OP   fixed 1
  9 candidates tested: 3 refused (a degree out of bounds 3), 6 priced for memory
  6 fitting the budget of 64.00 GiB, 0 dropped over it; searched in * s (glob)
  
  top 6 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1    4   2   1   1   1    1    1 off     1   1 full           2.47      0.011  59.4%  19.8%  39.6%  13.8%   9.0%   0.0%   0.0%   0.0%  17.8%   0.0%   0.0%
     ~2    2   4   1   1   1    1    1 off     2   1 full           2.27      0.012  56.0%  18.7%  37.3%  13.0%  25.4%   0.0%   0.0%   0.0%   5.6%   0.0%   0.0%
      3    1   8   1   1   1    1    1 off     4   1 full           2.10      0.015  43.6%  14.5%  29.1%  10.1%  46.2%   0.0%   0.0%   0.0%   0.0%   0.0%   0.0%
      4    2   2   2   1   1    1    1 off     2   1 full           2.06      0.016  42.3%  18.4%  36.7%   9.8%   6.4%   0.0%   0.0%   1.1%   4.2%  23.4%   0.0%
      5    1   4   2   1   1    1    1 off     4   1 full           1.88      0.016  41.7%  18.1%  36.2%   9.7%  18.9%   0.0%   0.0%   2.1%   0.0%  15.0%   0.0%
      6    1   2   4   1   1    1    1 off     4   1 full           1.94      0.021  31.3%  19.9%  39.9%   7.3%   4.7%   0.0%   0.0%   1.6%   0.0%  26.6%   0.0%
  ~ 1 row within 18.5 % of #1's step (0.011 s), the time model's mean error on the 23 validation cases (make validate): as close to #1 as the model can tell
  what separates the next rows from #1 (the step parts that differ most, by 0.5 % of its step or more):
    #2 +0.000687 s (+6.1 %): tp +0.00201 s, dp -0.00133 s; peak -0.20 GiB
    #3 +0.00405 s (+36.2 %): tp +0.00604 s, dp -0.00199 s; peak -0.37 GiB
    #4 +0.00453 s (+40.5 %): bubble +0.00368 s, bwd +0.00134 s, dp -0.00133 s, fwd +0.000671 s; peak -0.41 GiB
    #5 +0.00476 s (+42.5 %): bubble +0.00239 s, tp +0.00201 s, dp -0.00199 s, bwd +0.00134 s; peak -0.59 GiB
  
  resolved strategy written to ./resolved.yaml (context left out; train it on 8 devices)

A team's policy file: the deepest pipeline first, then the widest TP (a
score of -(10·PP + TP)), ties kept in the order the search met them; keep()
sets aside TP 8. Of the 6: PP 4 TP 2 (-42), PP 2 TP 4 (-24), PP 2 TP 2
(-22), PP 1 TP 4 (-14), PP 1 TP 2 (-12); TP 8 PP 1 is not kept.

  $ cat > deep.lua <<'EOF'
  > return {
  >   about = "deepest pipeline first",
  >   keep = function(c, ctx) return c.tp < ctx.node_devices end,
  >   score = function(c) return -(10 * c.pp + c.tp) end,
  > }
  > EOF
  $ ndlua search.lua train.yaml -l DP TP PP -b 4 -A flat8 --policy deep.lua
  search: custom on 8 devices (flat8), a global batch of 4, 64.00 GiB a device (flat8's memory 64GiB); recompute full (activation_checkpoint.mode); ranked by deep.lua
  bounds: PP up to 4 (the machine's 8, 4 layers over VPP 1, a batch of 4); TP up to 8 (the model's KV heads)
  9 candidates tested: 3 refused (a degree out of bounds 3), 6 priced for memory
  6 fitting the budget of 64.00 GiB, 0 dropped over it; searched in * s (glob)
  5 of them kept by the policy's rules
  
  top 5 by deep.lua (deepest pipeline first):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt       score
      1    1   2   4   1   1    1    1 off     4   1 full           1.94      0.021  31.3%  19.9%  39.9%   7.3%   4.7%   0.0%   0.0%   1.6%   0.0%  26.6%   0.0%         -42
      2    1   4   2   1   1    1    1 off     4   1 full           1.88      0.016  41.7%  18.1%  36.2%   9.7%  18.9%   0.0%   0.0%   2.1%   0.0%  15.0%   0.0%         -24
      3    2   2   2   1   1    1    1 off     2   1 full           2.06      0.016  42.3%  18.4%  36.7%   9.8%   6.4%   0.0%   0.0%   1.1%   4.2%  23.4%   0.0%         -22
      4    2   4   1   1   1    1    1 off     2   1 full           2.27      0.012  56.0%  18.7%  37.3%  13.0%  25.4%   0.0%   0.0%   0.0%   5.6%   0.0%   0.0%         -14
      5    4   2   1   1   1    1    1 off     1   1 full           2.47      0.011  59.4%  19.8%  39.6%  13.8%   9.0%   0.0%   0.0%   0.0%  17.8%   0.0%   0.0%         -12
  score: the policy deep.lua's score function, the ranking's first key
  what separates the next rows from #1 (the step parts that differ most, by 0.5 % of its step or more):
    #2 -0.00527 s (-24.8 %): bubble -0.00326 s, bwd -0.00268 s, tp +0.00201 s, fwd -0.00134 s; peak -0.06 GiB
    #3 -0.0055 s (-25.9 %): bwd -0.00268 s, bubble -0.00197 s, fwd -0.00134 s, dp +0.000663 s; peak +0.12 GiB
    #4 -0.00934 s (-44.0 %): bubble -0.00565 s, bwd -0.00403 s, tp +0.00201 s, fwd -0.00201 s; peak +0.33 GiB
    #5 -0.010 s (-47.3 %): bubble -0.00565 s, bwd -0.00403 s, fwd -0.00201 s, dp +0.00199 s; peak +0.53 GiB
  
  resolved strategy written to ./resolved.yaml (context left out; train it on 8 devices)

resolved.yaml is the train.yaml (in its order, without comments) with the
best strategy written in and the context section left out. Fed back to
estimate.lua on the same devices, it costs exactly what the search priced:

  $ ndlua search.lua train.yaml -l DP TP -A flat8 -M 2.6GB -o out -v 0 > /dev/null && cat out/resolved.yaml
  model:
    torch_dtype: bfloat16
    config_overrides:
      arch: default
      hidden_size: 1024
      num_hidden_layers: 4
      num_attention_heads: 8
      num_key_value_heads: 8
      intermediate_size: 4096
      vocab_size: 32000
  training:
    global_batch_size: 16
    micro_batch_size: 1
  accelerator:
    tp_size: 2
    pp_size: 1
    cp_size: 1
    ep_size: 1
  fsdp_config:
    dp_shard_size: 1
  activation_checkpoint:
    mode: full
  optimizer:
    _target_: AdamW
  dataset:
    data_transform:
      max_seq_len: 2048
  $ ndlua search.lua train.yaml -l DP TP -A flat8 -M 2.6GB -o out --json > search.json
  $ ndlua estimate.lua out/resolved.yaml -d 8 --json > estimate.json
  $ ndlua -e 'local nd = require "nd"
  > local s, e = nd.json.load("search.json"), nd.json.load("estimate.json")
  > print(s.candidates[1].peak_bytes, e.peak_bytes, s.candidates[1].peak_bytes == e.peak_bytes)'
  2653762560	2653762560	true

A search config's changes to the run (here its pipeline schedule) are in
resolved.yaml too, as the search priced them:

  $ printf 'pp_config:\n  pipeline_schedule: gpipe\n' > sched.yaml
  $ ndlua search.lua train.yaml -s sched.yaml -A flat8 -M 4GB -o sched -v 0 > /dev/null && grep pipeline sched/resolved.yaml
    pipeline_scheduler: gpipe

The JSON document: the counts, the candidates shown (top -t) with stable
names, the warnings, what was searched, the resolved yaml's path and the
ranking's explanation (the ties with #1 within the time model's 22.0 %
validation error, and each row's variants in FSDP shard or SP):

  $ ndlua -e 'local nd = require "nd"
  > local s = nd.json.load("search.json")
  > print(table.concat(nd.keys(s), " "))
  > print(table.concat(nd.keys(s.candidates[1]), " "))
  > print(table.concat(nd.keys(s.candidates[1].parts), " "))
  > print(s.tested, s.priced, s.fitting, s.dropped, #s.candidates, s.candidates[2].rank, s.resolved_yaml)
  > print(s.ranking.time_error_pct, s.ranking.time_error_cases, table.concat(s.ranking.ties, ","), #s.ranking.variants)'
  candidates dropped elapsed_s fitting priced ranking refused resolved_yaml search tested warnings
  cp dp ep etp kept mb mbs mfu nd_score op parts peak_bytes peak_stage pp rank recompute score sp step_time_s tokens_per_s_per_device tp vpp
  backward_s bubble_s cp_s dp_s ep_s forward_s optimizer_s pp_s recompute_s tp_s
  4	4	3	1	3	2	out/resolved.yaml
  18.5	23	2	0

--csv writes every fitting candidate, best first (etp 0: a dense model has
no expert TP); --svg a chart of the top. Its rectangles: the background, a
bar per stage of each candidate (1 + 1 + 1 + 2 + 2 + 4 = 11), a block per
part of each step that is not zero (fwd, bwd, rec, tp, and dp where DP > 1,
pp and bubble where PP > 1: 5 + 5 + 4 + 7 + 6 + 6 = 33; no optimizer step:
flat8 states no memory_gbps) and the legend's 10 swatches: 55.

  $ ndlua search.lua train.yaml -l DP TP PP -b 4 -A flat8 --csv all.csv --svg top.svg -v 0 > /dev/null
  $ cut -d, -f1-13 all.csv
  rank,dp,tp,pp,vpp,cp,ep,etp,op,sp,mb,mbs,recompute
  1,4,2,1,1,1,1,0,1,false,1,1,full
  2,2,4,1,1,1,1,0,1,false,2,1,full
  3,1,8,1,1,1,1,0,1,false,4,1,full
  4,2,2,2,1,1,1,0,1,false,2,1,full
  5,1,4,2,1,1,1,0,1,false,4,1,full
  6,1,2,4,1,1,1,0,1,false,4,1,full
  $ head -c 38 top.svg; echo; grep -c '<rect' top.svg
  <?xml version="1.0" encoding="UTF-8"?>
  55

Recompute as a dimension: each candidate priced under each mode listed
(here off and full: 8 candidates, TP 1's off first, as the nest meets them):

  $ ndlua search.lua train.yaml -l DP TP -A flat8 --recompute off,full -v 1 -t 2 | head -3
  search: custom on 8 devices (flat8), a global batch of 16, 64.00 GiB a device (flat8's memory 64GiB); recompute off, full (--recompute); ranked by throughput
  bounds: TP up to 8 (the model's KV heads)
  8 candidates tested: none refused, 8 priced for memory

A yaml can name the modes itself, in context.recompute (auto: all three):

  $ ndlua search.lua train.yaml -l DP TP -A flat8 --context.recompute=auto -t 1 | head -3
  search: custom on 8 devices (flat8), a global batch of 16, 64.00 GiB a device (flat8's memory 64GiB); recompute off, selective, full (context.recompute); ranked by throughput
  bounds: TP up to 8 (the model's KV heads)
  12 candidates tested: none refused, 12 priced for memory
