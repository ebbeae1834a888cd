Expert parallelism in the ranking (issue 14 item 3): DeepSeek-V3 on 2048
H800s at its published batch (15360 sequences of 4096 tokens; DeepSeek-AI,
arXiv:2412.19437, sections 3.1-3.2 and 4.2), the search over every
dimension and recompute mode. (Two million candidates a search: these
run the binary itself, not under $NDLUA_WRAPPER, where valgrind would take
most of an hour over what the small searches of search.t check already.)

Under DualPipe, the schedule DeepSeek-V3 trained with, one micro-batch's
expert all-to-all runs under another's compute (src/core/timing.c hides 90 % of
it). First come two TP 4 layouts of EP 256 over DP 128: EP past DP
borrows the TP ranks, the experts whole (src/core/derive.c, t_exp 1), so
the EP group is 256 consecutive ranks of the stage's 512 and each rank
dispatches its own quarter of the tokens under SP (ep_rank_stride,
ep_token_share: Megatron-Core's MoE parallel folding). Then come
candidates of no TP and EP 16 to 64 (PP 16 at EP 16 first), the
published layout's shape (PP 16, EP 64, no TP). (The ring's
sends are bounded by the attention that hides them, src/core/timing.c
cp_exposed_seconds: a CP 2 layout of EP 4, half its attention hiding less
than its sends, is not among the nine.) The ep column is what
stays exposed: a rank reaches its 7 peers in the node over NVLink (160
GB/s) and the others over InfiniBand (45 GB/s) at once, so EP 16 sends 8
of its 15 shares over InfiniBand, EP 32 24 of 31 and EP 64 56 of 63, and
their ep share grows with EP:

  $ $NDLUA search.lua deepseek-ai/DeepSeek-V3 -d 2048 -b 15360 -A H800 --recompute auto --accelerator.pipeline_scheduler=dualpipev -o out -t 9
  search: deepseek_v3 on 2048 devices (H800), a global batch of 15360, 79.65 GiB a device (H800's memory 81559MiB); recompute off, selective, full (--recompute); ranked by throughput
  bounds: PP up to 61 (the machine's 256, 61 layers over VPP 1, a batch of 15360); VPP up to 2 (DualPipeV runs two chunks a stage); EP up to 256 (the model's experts); TP up to 128 (the model's KV heads)
  2036820 candidates tested: 1174542 refused (a degree out of bounds 1168944, global batch 5598), 862278 priced for memory
  42251 fitting the budget of 79.65 GiB, 820027 dropped over it; searched in * s (glob)
  
  top 9 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1  128   4   4   2   1  256    1  on   120   1 off           69.28     21.383  36.4%  26.5%  53.3%   0.0%   9.9%   0.0%   7.4%   1.5%   0.1%   1.2%   0.1%
     ~2  128   4   4   2   1  256    1  on   120   1 selective     63.04     21.633  36.0%  26.2%  52.7%   1.1%   9.8%   0.0%   7.3%   1.4%   0.1%   1.2%   0.1%
     ~3  128   1  16   1   1   16    1 off   120   1 full          78.07     22.155  35.1%  21.6%  43.2%  21.6%   0.0%   0.0%   6.8%   0.7%   0.1%   5.9%   0.1%  also #4 (sp on)
     ~5  256   1   8   1   1   32    1 off    60   1 full          69.91     22.836  34.1%  21.0%  42.0%  21.0%   0.0%   0.0%   9.9%   0.3%   0.2%   5.5%   0.2%  also #6 (sp on)
     ~7  128   1  16   1   1   32    1 off   120   1 full          69.56     22.973  33.9%  20.8%  41.7%  20.8%   0.0%   0.0%   9.8%   0.7%   0.1%   5.9%   0.1%  also #8 (sp on)
     ~9  512   1   4   1   1   64    1 off    30   1 full          76.35     22.991  33.8%  21.4%  42.9%  19.5%   0.0%   0.0%  10.7%   0.2%   0.3%   4.7%   0.2%
  3 of the 9 differ from a row above only in the FSDP shard (op) or SP: shown beside it (also #rank)
  ~ 5 rows within 18.5 % of #1's step (21.383 s), the time model's mean error on the 23 validation cases (make validate): as close to #1 as the model can tell
  what separates the next rows from #1 (the step parts that differ most, by 0.5 % of its step or more):
    #2 +0.251 s (+1.2 %): rec +0.248 s; peak -6.24 GiB
    #3 +0.773 s (+3.6 %): rec +4.787 s, tp -2.114 s, bwd -1.843 s, bubble +1.036 s; peak +8.78 GiB
    #5 +1.454 s (+6.8 %): rec +4.787 s, tp -2.114 s, bwd -1.819 s, bubble +0.990 s; peak +0.63 GiB
    #7 +1.590 s (+7.4 %): rec +4.787 s, tp -2.114 s, bwd -1.819 s, bubble +1.085 s; peak +0.28 GiB
  
  resolved strategy written to out/resolved.yaml (context left out; train it on 2048 devices)
  warning: model: the model states 1 MTP layer, which the AutoModels trainer does not build: ndlua prices none

Under 1F1B nothing hides the all-to-all, and without TP and sequence
parallelism a rank keeps 8 times TP 8's activations, so the fastest EP
layouts recompute fully. A train.yaml's loss is not vocabulary-parallel
unless accelerator.loss_parallel says so (the reference's default, false):
every TP rank then holds the logits of all 129280 entries and runs the
loss's passes over them, 48 B an entry (src/core/timing.c), 25 GB a micro-batch
on the last stage, 9.5 ms at H800's 2.68 TB/s. That makes the last stage
a TP layout's straggler, and with one sequence a micro-batch and no EP
each of the 256 experts gets 4096 x 8 / 256 = 128 rows, too few to be
compute bound (src/core/timing.c gemm_roofline_excess: 128 rows through
TP 8's 7168 x 512 gate and up projection do 0.94 GFLOP but move 9.3 MB,
2.4 GFLOP's time at H800's 258 FLOPs a byte): the first TP layout is 12th
(32.3 s, TP 4, PP 32), and an EP layout comes first: EP 8, PP
16, VPP 3, full recompute, its 28.2 s carrying 7.4 s of all-to-all and
4.8 s of recompute:

  $ $NDLUA search.lua deepseek-ai/DeepSeek-V3 -d 2048 -b 15360 -A H800 --recompute auto -o out -t 3 --csv all.csv
  search: deepseek_v3 on 2048 devices (H800), a global batch of 15360, 79.65 GiB a device (H800's memory 81559MiB); recompute off, selective, full (--recompute); ranked by throughput
  bounds: PP up to 61 (the machine's 256, 61 layers over VPP 1, a batch of 15360); EP up to 256 (the model's experts); TP up to 128 (the model's KV heads)
  2036820 candidates tested: 823842 refused (a degree out of bounds 815808, global batch 8034), 1212978 priced for memory
  98788 fitting the budget of 79.65 GiB, 1114190 dropped over it; searched in * s (glob)
  
  top 3 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1   64   1  32   1   1    4    1 off   240   1 full          65.25     29.052  26.8%  16.5%  32.9%  16.5%   0.0%   0.0%  21.8%   1.1%   0.2%  10.9%   0.1%  also #2 (sp on)
     ~3  128   1  16   1   1    8    1 off   120   1 full          63.69     29.955  26.0%  16.0%  31.9%  16.0%   0.0%   0.0%  24.7%   0.5%   0.2%  10.6%   0.1%
  1 of the 3 differs from a row above only in the FSDP shard (op) or SP: shown beside it (also #rank)
  ~ 1 row within 18.5 % of #1's step (29.052 s), the time model's mean error on the 23 validation cases (make validate): as close to #1 as the model can tell
  what separates the next rows from #1 (the step parts that differ most, by 0.5 % of its step or more):
    #3 +0.903 s (+3.1 %): ep +1.057 s, pp -0.157 s; peak -1.56 GiB
  
  resolved strategy written to out/resolved.yaml (context left out; train it on 2048 devices)
  every fitting candidate written to all.csv
  warning: model: the model states 1 MTP layer, which the AutoModels trainer does not build: ndlua prices none
  $ awk -F, 'NR > 1 && $3 > 1 { print "rank " $1 ": dp " $2 " tp " $3 " pp " $4 " ep " $7 " " $13 ", step " $16 " s, forward " $22 " s, tp " $25 " s"; exit }' all.csv
  rank 12: dp 16 tp 4 pp 32 ep 1 full, step 32.32839473064256 s, forward 8.185488931844388 s, tp 1.585446912 s

With a vocabulary-parallel loss each TP rank runs an eighth of those
passes and a TP layout is first again, TP 4 without PP or EP at 15
sequences a micro-batch: its experts get 15 x 4096 x 8 / 256 = 1920 rows
each, enough to be compute bound, where one sequence a micro-batch (TP 8)
leaves them 128, which the GEMMs' roofline prices slower:

  $ $NDLUA search.lua deepseek-ai/DeepSeek-V3 -d 2048 -b 15360 -A H800 --recompute auto -o out -t 3 --accelerator.loss_parallel=true
  search: deepseek_v3 on 2048 devices (H800), a global batch of 15360, 79.65 GiB a device (H800's memory 81559MiB); recompute off, selective, full (--recompute); ranked by throughput
  bounds: PP up to 61 (the machine's 256, 61 layers over VPP 1, a batch of 15360); EP up to 256 (the model's experts); TP up to 128 (the model's KV heads)
  2036820 candidates tested: 823842 refused (a degree out of bounds 815808, global batch 8034), 1212978 priced for memory
  125821 fitting the budget of 79.65 GiB, 1087157 dropped over it; searched in * s (glob)
  
  top 3 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1  512   4   1   1   1    1   64  on     2  15 full          75.80     26.138  29.8%  17.9%  36.1%  17.5%  11.6%   0.0%   0.0%   0.0%  16.9%   0.0%   0.1%  also #2 (op 128), #3 (op 256)
  2 of the 3 differ from a row above only in the FSDP shard (op) or SP: shown beside it (also #rank)
  
  resolved strategy written to out/resolved.yaml (context left out; train it on 2048 devices)
  warning: model: the model states 1 MTP layer, which the AutoModels trainer does not build: ndlua prices none
