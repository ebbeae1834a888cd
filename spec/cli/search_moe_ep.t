Expert parallelism in the ranking (issue 14 item 3): DeepSeek-V3 on 2048
H800s at its published batch (15360 sequences of 4096 tokens; DeepSeek-AI,
arXiv:2412.19437, sections 3.1-3.2 and 4.2), the search over every
dimension and recompute mode. (Two million candidates a search: these
run the binary itself, not under $NDLUA_WRAPPER, where valgrind would take
most of an hour over what the small searches of search.t check already.)

Under DualPipe, the schedule DeepSeek-V3 trained with, one micro-batch's
expert all-to-all runs under another's compute (src/timing.c hides 90 % of
it): the top candidates carry no TP and EP 16 to 64 (PP 16 at EP 16
first), the published layout's shape (PP 16, EP 64, no TP), with one CP 2
layout of EP 4 slipping in 0.03 % ahead of EP 64. The ep column is what
stays exposed: a rank reaches its 7 peers in the node over NVLink (160
GB/s) and the others over InfiniBand (45 GB/s) at once, so EP 16 sends 8
of its 15 shares over InfiniBand, EP 32 24 of 31 and EP 64 56 of 63, and
their ep share grows with EP:

  $ $ROOT/ndlua search.lua deepseek-ai/DeepSeek-V3 -d 2048 -b 15360 -A H800 --recompute auto --accelerator.pipeline_scheduler=dualpipev -o out -t 7
  search: deepseek_v3 on 2048 devices (H800), a global batch of 15360, 79.65 GiB a device (H800's memory 81559MiB); recompute off, selective, full (--recompute); ranked by throughput
  bounds: PP up to 61 (the machine's 256, 61 layers over VPP 1, a batch of 15360); VPP up to 2 (DualPipeV runs two chunks a stage); EP up to 256 (the model's experts); TP up to 128 (the model's KV heads)
  2036820 candidates tested: 1174542 refused (a degree out of bounds 1168944, global batch 5598), 862278 priced for memory
  39070 fitting the budget of 79.65 GiB, 823208 dropped over it; searched in * s (glob)
  
  top 7 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1  128   1  16   1   1   16    1 off   120   1 full          78.07     20.789  37.4%  24.0%  47.9%  15.8%   0.0%   0.0%   5.4%   0.8%   0.2%   5.9%   0.1%
      2  128   1  16   1   1   16    1  on   120   1 full          78.07     20.789  37.4%  24.0%  47.9%  15.8%   0.0%   0.0%   5.4%   0.8%   0.2%   5.9%   0.1%
      3  256   1   8   1   1   32    1 off    60   1 full          69.91     21.175  36.7%  22.1%  44.2%  18.1%   0.0%   0.0%   9.3%   0.4%   0.2%   5.5%   0.2%
      4  256   1   8   1   1   32    1  on    60   1 full          69.91     21.175  36.7%  22.1%  44.2%  18.1%   0.0%   0.0%   9.3%   0.4%   0.2%   5.5%   0.2%
      5   32   1  32   1   2    4    1 off   480   1 full          77.29     21.330  36.5%  26.2%  52.3%  10.3%   0.0%   4.7%   1.5%   1.5%   0.2%   3.1%   0.2%
      6  512   1   4   1   1   64    1 off    30   1 full          76.35     21.337  36.5%  21.2%  42.5%  19.2%   0.0%   0.0%  11.6%   0.2%   0.3%   4.7%   0.3%
      7  512   1   4   1   1   64    1  on    30   1 full          76.35     21.337  36.5%  21.2%  42.5%  19.2%   0.0%   0.0%  11.6%   0.2%   0.3%   4.7%   0.3%
  
  resolved strategy written to out/resolved.yaml (context left out; train it on 2048 devices)
  warning: model: the model states 1 MTP layer, which the AutoModels trainer does not build: ndlua prices none

Under 1F1B nothing hides the all-to-all, and without TP and sequence
parallelism a rank keeps 8 times TP 8's activations, so the fastest EP
layouts recompute fully. A train.yaml's loss is not vocabulary-parallel
unless accelerator.loss_parallel says so (the reference's default, false):
every TP rank then holds the logits of all 129280 entries and runs the
loss's passes over them, 48 B an entry (src/timing.c), 25 GB a micro-batch
on the last stage, 9.5 ms at H800's 2.68 TB/s. That makes the last stage
TP 8's straggler (28.4 s, 12th), and an EP layout comes first: EP 8, PP
16, VPP 3, full recompute, its 26.5 s carrying 7.4 s of all-to-all and
4.4 s of recompute:

  $ $ROOT/ndlua search.lua deepseek-ai/DeepSeek-V3 -d 2048 -b 15360 -A H800 --recompute auto -o out -t 3 --csv all.csv
  search: deepseek_v3 on 2048 devices (H800), a global batch of 15360, 79.65 GiB a device (H800's memory 81559MiB); recompute off, selective, full (--recompute); ranked by throughput
  bounds: PP up to 61 (the machine's 256, 61 layers over VPP 1, a batch of 15360); EP up to 256 (the model's experts); TP up to 128 (the model's KV heads)
  2036820 candidates tested: 823842 refused (a degree out of bounds 815808, global batch 8034), 1212978 priced for memory
  89529 fitting the budget of 79.65 GiB, 1123449 dropped over it; searched in * s (glob)
  
  top 3 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1  128   1  16   3   1    8    1 off   120   1 full          64.29     26.495  29.4%  16.5%  33.1%  16.5%   0.0%   0.0%  27.9%   1.8%   0.2%   3.8%   0.2%
      2  128   1  16   3   1    8    1  on   120   1 full          64.29     26.495  29.4%  16.5%  33.1%  16.5%   0.0%   0.0%  27.9%   1.8%   0.2%   3.8%   0.2%
      3  128   1  16   2   1    8    1 off   120   1 full          65.11     26.831  29.0%  16.3%  32.6%  16.3%   0.0%   0.0%  27.6%   1.2%   0.2%   5.6%   0.2%
  
  resolved strategy written to out/resolved.yaml (context left out; train it on 2048 devices)
  every fitting candidate written to all.csv
  warning: model: the model states 1 MTP layer, which the AutoModels trainer does not build: ndlua prices none
  $ awk -F, 'NR > 1 && $3 > 1 { print "rank " $1 ": dp " $2 " tp " $3 " pp " $4 " ep " $7 " " $13 ", step " $16 " s, forward " $22 " s, tp " $25 " s"; exit }' all.csv
  rank 12: dp 16 tp 8 pp 16 ep 1 off, step 28.417713796634658 s, forward 7.694397513590183 s, tp 3.699376128 s

With a vocabulary-parallel loss each TP rank runs an eighth of those
passes and TP 8 with no recompute is first again. ndlua knows nothing of
kernel efficiency by shape (TP 8 cuts each expert's 2048-wide matmuls to
256), which weighs against TP in practice:

  $ $ROOT/ndlua search.lua deepseek-ai/DeepSeek-V3 -d 2048 -b 15360 -A H800 --recompute auto -o out -t 3 --accelerator.loss_parallel=true
  search: deepseek_v3 on 2048 devices (H800), a global batch of 15360, 79.65 GiB a device (H800's memory 81559MiB); recompute off, selective, full (--recompute); ranked by throughput
  bounds: PP up to 61 (the machine's 256, 61 layers over VPP 1, a batch of 15360); EP up to 256 (the model's experts); TP up to 128 (the model's KV heads)
  2036820 candidates tested: 823842 refused (a degree out of bounds 815808, global batch 8034), 1212978 priced for memory
  104932 fitting the budget of 79.65 GiB, 1108046 dropped over it; searched in * s (glob)
  
  top 3 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1   16   8  16   1   1    1    1  on   960   1 off           71.04     20.451  38.0%  24.6%  49.3%   0.0%  18.1%   0.0%   0.0%   6.1%   0.2%   1.4%   0.2%
      2   16   8  16   1   1    1    1  on   960   1 selective     68.06     20.622  37.7%  24.4%  48.9%   0.8%  17.9%   0.0%   0.0%   6.1%   0.2%   1.5%   0.2%
      3   16   8  16   2   1    1    1  on   960   1 selective     76.09     21.734  35.8%  23.2%  46.4%   0.8%  17.0%   0.0%   0.0%  11.5%   0.2%   0.7%   0.2%
  
  resolved strategy written to out/resolved.yaml (context left out; train it on 2048 devices)
  warning: model: the model states 1 MTP layer, which the AutoModels trainer does not build: ndlua prices none
