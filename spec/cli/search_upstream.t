The reference planner's own search configs (`auto_parallel-*.yaml`, the
files its users have, copied byte for byte into spec/fixtures/upstream/)
run unchanged with `search.lua -s`: the model under the reference's names
(`n_layers`, `dim`, `inter_dim`, `n_heads`, `n_kv_heads`, `moe_inter_dim`,
`seq_len`, `param_init_type`, `compute_dtype`, ...), schedule names in any
case (`"1F1B"`), the cluster's link bandwidths priced, `etp: 0` as not
stated. A key ndlua cannot price is warned about (an unpriced key:
--strict exits 2). A search that its candidate lists empty widens the
list that did it and says so.

Qwen3 72B (the reference's exp6) on 128 A2 cards: 20 candidates, 15
outside the lists, the 5 left all fit 54 GB; optimizer_weight_shard_size
fixes the FSDP shard at 8. The file's comments list the experiment's eight
strategies (dp16/tp4/pp2/mb8 ...), each dp x micro-batches = 128
sequences, which the global batch of 1024 the file states is not: the
search says it cannot choose them.

  $ ndlua search.lua -s $ROOT/spec/fixtures/upstream/auto_parallel-qwen3_72b_128devices_search.yaml -o out -t 5
  search: qwen3_5 on 128 devices (A2), a global batch of 1024, 54.00 GiB a device (cluster.device_memory_gb, GB read as GiB, 2^30 bytes); recompute full (the search config); ranked by throughput
  search config: dp searched over [1, 2, 4, 8, 16]; fsdp fixed 8 (model.optimizer_weight_shard_size); tp searched over [2, 4, 8]; pp searched over [2, 4, 8, 16]; cp fixed 1 (declared); ep fixed 1 (declared); micro_batch_num searched over [8, 16, 32, 64, 128]
  bounds: PP up to 16 (the machine's 16, 80 layers over VPP 1, a batch of 1024); TP up to 8 (the model's KV heads)
  20 candidates tested: 15 refused (filtered out 15), 5 priced for memory
  5 fitting the budget of 54.00 GiB, 0 dropped over it; searched in * s (glob)
  
  top 5 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1   16   2   4   1   1    1    8 off    64   1 full          35.69    197.895  23.5%  18.4%  36.8%  17.2%   2.6%   0.0%   0.0%   0.2%  21.3%   3.4%   0.0%
     ~2   16   4   2   1   1    1    8 off    64   1 full          30.47    199.028  23.4%  17.7%  35.5%  17.1%   7.8%   0.0%   0.0%   0.2%  20.5%   1.2%   0.0%
     ~3    8   4   4   1   1    1    8 off   128   1 full          21.98    205.507  22.7%  17.7%  35.5%  16.6%   7.5%   0.0%   0.0%   0.4%  20.5%   1.7%   0.0%
     ~4    8   2   8   1   1    1    8 off   128   1 full          27.20    209.199  22.3%  18.5%  37.1%  16.3%   2.5%   0.0%   0.0%   0.4%  21.5%   3.7%   0.0%
     ~5    8   8   2   1   1    1    8 off   128   1 full          19.37    219.002  21.3%  16.1%  32.2%  15.6%  16.5%   0.0%   0.0%   0.4%  18.6%   0.6%   0.0%
  ~ 4 rows within 18.5 % of #1's step (197.895 s), the time model's mean error on the 23 validation cases (make validate): as close to #1 as the model can tell
  what separates the next rows from #1 (the step parts that differ most, by 0.5 % of its step or more):
    #2 +1.133 s (+0.6 %): tp +10.308 s, bubble -4.279 s, bwd -2.333 s, dp -1.397 s; peak -5.22 GiB
    #3 +7.612 s (+3.8 %): tp +10.308 s, bubble -3.078 s; peak -13.71 GiB
    #4 +11.304 s (+5.7 %): bwd +4.665 s, dp +2.743 s, fwd +2.333 s, bubble +1.133 s; peak -8.49 GiB
    #5 +21.107 s (+10.7 %): tp +30.924 s, bubble -5.305 s, bwd -2.333 s, dp -1.442 s; peak -16.32 GiB
  
  resolved strategy written to out/resolved.yaml (context left out; train it on 128 devices)
  warning: optimizer._target_: the config states no optimizer: it is priced as adamw, two states a parameter
  warning: the search config's comments name 8 layouts this search cannot choose; dp x micro_batch_num x local_batch_size is not the global batch 1024: dp16/tp4/pp2/mb8 (16 x 8 x 1 = 128), dp8/tp8/pp2/mb16 (8 x 16 x 1 = 128), dp8/tp4/pp4/mb16 (8 x 16 x 1 = 128), dp4/tp8/pp4/mb32 (4 x 32 x 1 = 128), dp4/tp4/pp8/mb32 (4 x 32 x 1 = 128), dp4/tp2/pp16/mb32 (4 x 32 x 1 = 128), dp2/tp8/pp8/mb64 (2 x 64 x 1 = 128), dp1/tp8/pp16/mb128 (1 x 128 x 1 = 128)

DeepSeek-V3 on 512 A2 cards (58 GB): MLA and MoE fields, MTP priced (62
layers), `etp: 0`; the offset list (one pipeline's layout) is warned
about, not read.

  $ ndlua search.lua -s $ROOT/spec/fixtures/upstream/auto_parallel-deepseek_v3_671b_512devices_search.yaml -o out -t 5
  search: deepseek on 512 devices (A2), a global batch of 1024, 58.00 GiB a device (cluster.device_memory_gb, GB read as GiB, 2^30 bytes); recompute full (the search config); ranked by throughput
  search config: dp searched over [8, 16, 32]; fsdp fixed 4 (model.optimizer_weight_shard_size); tp searched over [2, 4, 8]; pp searched over [4, 8, 16]; cp fixed 1 (declared); ep searched over [4, 8, 16]; micro_batch_num searched over [8, 16, 32, 64, 128]
  bounds: PP up to 62 (the machine's 64, 62 layers over VPP 1, a batch of 1024); EP up to 256 (the model's experts); TP up to 128 (the model's KV heads)
  318 candidates tested: 297 refused (filtered out 297), 21 priced for memory
  18 fitting the budget of 58.00 GiB, 3 dropped over it; searched in * s (glob)
  
  top 5 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1   16   2  16   1   1    8    4 off    64   1 full          55.43     82.928   8.3%   6.1%  12.1%   6.1%   1.1%   0.0%  43.5%   0.5%  15.3%  15.4%   0.0%
     ~2   32   2   8   1   1   16    4 off    32   1 full          54.76     98.239   7.0%   5.1%  10.2%   5.1%   0.9%   0.0%  55.1%   0.2%   7.6%  15.7%   0.0%
      3   16   2  16   1   1   16    4 off    64   1 full          47.45     99.809   6.9%   5.0%  10.1%   5.0%   0.9%   0.0%  54.2%   0.4%   7.6%  16.7%   0.0%
      4   32   4   4   1   1    4    4 off    32   1 full          54.60    127.153   5.4%   4.0%   7.9%   4.0%   2.1%   0.0%  56.7%   0.1%  18.6%   6.5%   0.0%
      5   16   4   8   1   1    4    4 off    64   1 full          51.44    128.728   5.4%   3.9%   7.9%   3.9%   2.1%   0.0%  56.1%   0.3%  18.3%   7.6%   0.0%
  ~ 1 row within 18.5 % of #1's step (82.928 s), the time model's mean error on the 23 validation cases (make validate): as close to #1 as the model can tell
  what separates the next rows from #1 (the step parts that differ most, by 0.5 % of its step or more):
    #2 +15.311 s (+18.5 %): ep +18.039 s, dp -5.194 s, bubble +2.655 s; peak -0.67 GiB
    #3 +16.881 s (+20.4 %): ep +18.039 s, dp -5.033 s, bubble +3.876 s; peak -7.98 GiB
    #4 +44.225 s (+53.3 %): ep +36.078 s, dp +10.988 s, bubble -4.567 s, tp +1.804 s; peak -0.83 GiB
    #5 +45.800 s (+55.2 %): ep +36.078 s, dp +10.866 s, bubble -3.057 s, tp +1.804 s; peak -3.99 GiB
  
  resolved strategy written to out/resolved.yaml (context left out; train it on 512 devices)
  warning: optimizer._target_: the config states no optimizer: it is priced as adamw, two states a parameter
  warning: model.offset: is not read: the search balances each candidate's stages itself (the first layers-mod-pp stages one layer more); an offset states one pipeline's layout

The dense Llama-3-8B example, in the reference's short names and in
Transformers' (the ttachon copy): a batch of 128 over at most 8
data-parallel ranks needs 16 micro-batches or more, and the file's
micro_batch_num list stops at 4; its dp list on 32 devices refuses every
candidate with it. The search still answers, as the reference does: of
the two lists, the one whose removal lets the most candidates fit is
widened (micro_batch_num: 35 fit without it; without dp's list 2 pass the
rules and none fits), searched as auto, and a warning names it, what it
refused and what the answer takes. Exit 0; --strict makes it 2:

  $ ndlua search.lua -s $ROOT/spec/fixtures/upstream/auto_parallel-dense_llm_search.yaml -o out -t 3
  search: llama3-8b-dense on 32 devices (A2 (links 200 GB/s in a node, 100 GB/s between nodes)), a global batch of 128, 60.00 GiB a device (constraint.memory_limit_gb); recompute selective (the search config); ranked by throughput
  search config: dp searched over [1, 2, 4, 8]; fsdp searched over [1, 2]; tp searched over [1, 2, 4, 8]; pp searched over [1, 2, 4]; cp searched over [1, 2]; ep fixed 1 (declared); micro_batch_num searched over [1, 2, 4]
  bounds: PP up to 8 (the machine's 8, 32 layers over VPP 1, a batch of 128); TP up to 8 (the model's KV heads)
  116 candidates tested: 81 refused (filtered out 81), 35 priced for memory
  35 fitting the budget of 60.00 GiB, 0 dropped over it; searched in * s (glob)
  
  top 3 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1    8   2   1   1   2    1    1 off    16   1 selective     35.86     10.583  43.1%  32.2%  64.3%   1.5%   1.6%   0.3%   0.0%   0.0%   0.1%   0.0%   0.0%  also #2 (op 2)
     ~3    8   4   1   1   1    1    1 off    16   1 selective     42.97     10.888  41.9%  31.3%  62.5%   1.4%   4.7%   0.0%   0.0%   0.0%   0.1%   0.0%   0.0%
  1 of the 3 differs from a row above only in the FSDP shard (op) or SP: shown beside it (also #rank)
  ~ 1 row within 18.5 % of #1's step (10.583 s), the time model's mean error on the 23 validation cases (make validate): as close to #1 as the model can tell
  what separates the next rows from #1 (the step parts that differ most, by 0.5 % of its step or more):
    #3 +0.306 s (+2.9 %): tp +0.344 s; peak +7.11 GiB
  
  resolved strategy written to out/resolved.yaml (context left out; train it on 32 devices)
  warning: model.torch_dtype: neither the config nor a checkpoint states the model's dtype: its weights are priced in bfloat16; state model.torch_dtype if they are held in another
  warning: optimizer._target_: the config states no optimizer: it is priced as adamw, two states a parameter
  warning: parallelism.micro_batch_num: [1, 2, 4] refused every candidate (116 of 116 tested, with the other lists); searched as auto, the answer takes MB 16, which the list does not hold; state the list auto or widen it
  $ ndlua search.lua -s $ROOT/spec/fixtures/upstream/auto_parallel-dense_llm_search.ttachon.yaml -o out -v 0 -t 1
  top 1 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1    8   2   1   1   2    1    1 off    16   1 selective     35.86     11.301  40.4%  30.1%  60.2%   1.4%   6.1%   1.1%   0.0%   0.0%   1.0%   0.0%   0.0%
  $ ndlua search.lua -s $ROOT/spec/fixtures/upstream/auto_parallel-dense_llm_search.yaml -o out -v 0 -t 1 --strict >/dev/null
  --strict: 1 problem:
    widened list: parallelism.micro_batch_num: [1, 2, 4] refused every candidate (116 of 116 tested, with the other lists); searched as auto, the answer takes MB 16, which the list does not hold; state the list auto or widen it
  [2]

The Mixtral-8x7B example, likewise (a batch of 256 over dp at most 4 needs
64 micro-batches; without the micro_batch_num list 24 candidates fit,
without the dp list 14):

  $ ndlua search.lua -s $ROOT/spec/fixtures/upstream/auto_parallel-moe_llm_search.yaml -o out -t 3
  search: mixtral-8x7b-moe on 64 devices (A2 (links 200 GB/s in a node, 100 GB/s between nodes)), a global batch of 256, 60.00 GiB a device (constraint.memory_limit_gb); recompute full (the search config); ranked by throughput
  search config: dp searched over [1, 2, 4]; fsdp searched over [1, 2]; tp searched over [1, 2, 4, 8]; pp searched over [1, 2, 4]; cp fixed 1 (declared); ep searched over [1, 2, 4, 8]; micro_batch_num searched over [1, 2, 4, 8]; etp fixed 1 (no dimension)
  bounds: PP up to 8 (the machine's 8, 32 layers over VPP 1, a batch of 256); EP up to 8 (the model's experts); TP up to 8 (the model's KV heads)
  256 candidates tested: 232 refused (filtered out 232), 24 priced for memory
  24 fitting the budget of 60.00 GiB, 0 dropped over it; searched in * s (glob)
  
  top 3 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1    4   8   2   1   1    1    1 off    64   1 full          39.84    137.691  31.1%  23.4%  46.7%  23.0%   5.2%   0.0%   0.0%   0.1%   0.0%   1.5%   0.0%  also #2 (op 2)
     ~3    4   4   4   1   1    1    1 off    64   1 full          39.39    139.005  30.8%  23.5%  47.0%  22.8%   2.2%   0.0%   0.0%   0.1%   0.0%   4.4%   0.0%
  1 of the 3 differs from a row above only in the FSDP shard (op) or SP: shown beside it (also #rank)
  ~ 1 row within 18.5 % of #1's step (137.691 s), the time model's mean error on the 23 validation cases (make validate): as close to #1 as the model can tell
  what separates the next rows from #1 (the step parts that differ most, by 0.5 % of its step or more):
    #3 +1.314 s (+1.0 %): tp -4.123 s, bubble +3.996 s, bwd +0.966 s; peak -0.45 GiB
  
  resolved strategy written to out/resolved.yaml (context left out; train it on 64 devices)
  warning: model.torch_dtype: neither the config nor a checkpoint states the model's dtype: its weights are priced in bfloat16; state model.torch_dtype if they are held in another
  warning: optimizer._target_: the config states no optimizer: it is priced as adamw, two states a parameter
  warning: parallelism.micro_batch_num: [1, 2, 4, 8] refused every candidate (256 of 256 tested, with the other lists); searched as auto, the answer takes MB 64, which the list does not hold; state the list auto or widen it
  $ ndlua search.lua -s $ROOT/spec/fixtures/upstream/auto_parallel-moe_llm_search.ttachon.yaml -o out -v 0 -t 1
  top 1 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1    4   4   4   1   1    1    1 off    64   1 full          39.39    150.415  28.5%  21.7%  43.4%  21.1%   8.2%   0.0%   0.0%   1.1%   0.1%   4.4%   0.0%
  $ ndlua search.lua -s $ROOT/spec/fixtures/upstream/auto_parallel-moe_llm_search.ttachon.yaml -o out -v 0 -t 1 --strict >/dev/null
  --strict: 1 problem:
    widened list: parallelism.micro_batch_num: [1, 2, 4, 8] refused every candidate (256 of 256 tested, with the other lists); searched as auto, the answer takes MB 64, which the list does not hold; state the list auto or widen it
  [2]

When no one list alone lets a candidate through, lists are widened one at
a time until one fits: with dp, tp and pp each at most 2, dp x tp x pp is
at most 8 of the 32 devices, so dp must widen; with dp alone widened, a
batch of 128 in 1, 2 or 4 micro-batches needs dp 32 x mb 4 on tp 1, pp 1,
which is over the 60 GB budget (the 2 candidates the dense example's dp
list alone passed, none within it), so micro_batch_num widens too. The
answer, dp 16 x mb 8 = 128 sequences on 16 x tp x pp = 32 devices:

  $ sed -e 's/  dp: \[1, 2, 4, 8\]/  dp: [1, 2]/' -e 's/  tp: \[1, 2, 4, 8\]/  tp: [1, 2]/' -e 's/  pp: \[1, 2, 4\]/  pp: [1, 2]/' -e 's/  cp: \[1, 2\]/  cp: 1/' $ROOT/spec/fixtures/upstream/auto_parallel-dense_llm_search.yaml > two.yaml
  $ ndlua search.lua -s two.yaml -o out -t 1 2>&1 | tail -3
  warning: optimizer._target_: the config states no optimizer: it is priced as adamw, two states a parameter
  warning: parallelism.dp: [1, 2] refused every candidate (48 of 48 tested, with the other lists; widened with parallelism.micro_batch_num); searched as auto, the answer takes DP 16, which the list does not hold; state the list auto or widen it
  warning: parallelism.micro_batch_num: [1, 2, 4] refused every candidate (48 of 48 tested, with the other lists; widened with parallelism.dp); searched as auto, the answer takes MB 8, which the list does not hold; state the list auto or widen it

The widened answer is the one of the same file with the list stated auto
(the dense example's rows above: 8 2 1 1 2 ... 10.583 s, 43.1 %):

  $ sed 's/micro_batch_num: \[1, 2, 4\]/micro_batch_num: auto/' $ROOT/spec/fixtures/upstream/auto_parallel-dense_llm_search.yaml > dense.yaml
  $ ndlua search.lua -s dense.yaml -o out -t 3
  search: llama3-8b-dense on 32 devices (A2 (links 200 GB/s in a node, 100 GB/s between nodes)), a global batch of 128, 60.00 GiB a device (constraint.memory_limit_gb); recompute selective (the search config); ranked by throughput
  search config: dp searched over [1, 2, 4, 8]; fsdp searched over [1, 2]; tp searched over [1, 2, 4, 8]; pp searched over [1, 2, 4]; cp searched over [1, 2]; ep fixed 1 (declared); micro_batch_num searched (auto)
  bounds: PP up to 8 (the machine's 8, 32 layers over VPP 1, a batch of 128); TP up to 8 (the model's KV heads)
  116 candidates tested: 81 refused (filtered out 81), 35 priced for memory
  35 fitting the budget of 60.00 GiB, 0 dropped over it; searched in * s (glob)
  
  top 3 by throughput (fastest estimated step first, then the lowest peak memory):
   rank   dp  tp  pp vpp  cp   ep   op  sp    mb mbs recompute  peak GiB     step s    MFU    fwd    bwd    rec     tp     cp     ep     pp     dp bubble    opt
      1    8   2   1   1   2    1    1 off    16   1 selective     35.86     10.583  43.1%  32.2%  64.3%   1.5%   1.6%   0.3%   0.0%   0.0%   0.1%   0.0%   0.0%  also #2 (op 2)
     ~3    8   4   1   1   1    1    1 off    16   1 selective     42.97     10.888  41.9%  31.3%  62.5%   1.4%   4.7%   0.0%   0.0%   0.0%   0.1%   0.0%   0.0%
  1 of the 3 differs from a row above only in the FSDP shard (op) or SP: shown beside it (also #rank)
  ~ 1 row within 18.5 % of #1's step (10.583 s), the time model's mean error on the 23 validation cases (make validate): as close to #1 as the model can tell
  what separates the next rows from #1 (the step parts that differ most, by 0.5 % of its step or more):
    #3 +0.306 s (+2.9 %): tp +0.344 s; peak +7.11 GiB
  
  resolved strategy written to out/resolved.yaml (context left out; train it on 32 devices)
  warning: model.torch_dtype: neither the config nor a checkpoint states the model's dtype: its weights are priced in bfloat16; state model.torch_dtype if they are held in another
  warning: optimizer._target_: the config states no optimizer: it is priced as adamw, two states a parameter

Every error of a file in one pass, each with its line; keys the reference
reads that ndlua cannot price are warnings:

  $ cat > bad.yaml <<'EOF2'
  > model:
  >   n_layers: 32
  >   num_hidden_layers: 30
  >   dim: 4096.5
  >   n_heads: 32
  >   vocab_size: 32000
  >   seq_len: 0
  >   moe_enabled: true
  >   use_flash_attention: false
  >   rope_theta: 500000
  > cluster:
  >   num_nodes: 1
  >   cards_per_node: 8
  > parallelism:
  >   tp: [1, 2]
  > pp_config:
  >   pipeline_schedule: "1F1B-sideways"
  > EOF2
  $ ndlua search.lua -s bad.yaml -o out
  warning: model.rope_theta: is no model field ndlua knows under this name or another; it is not priced
  bad.yaml:3:22: model.num_hidden_layers: states num_hidden_layers, which model.n_layers states as 32; keep one
  bad.yaml:4:8: model.dim: must be a whole number, got 4096.5
  bad.yaml:7:12: model.seq_len: must be a number of tokens above 0, got 0
  bad.yaml:8:16: model.moe_enabled: true, but the model states no num_experts above 1
  bad.yaml:17:22: pp_config.pipeline_schedule: '1F1B-sideways' is no pipeline schedule ndlua prices; one of 1f1b, interleaved, gpipe, seqpipe, seqsmartvpp, zero_bubble_v, zbv, dualpipev (in any case)
  Search config validation failed with 5 error(s).
  [2]

With a train_yaml, the model fields under any of their names must be the
yaml's (Qwen3-30B-A3B: 48 layers, hidden 2048), the error at the key as
written:

  $ cat > sc.yaml <<'EOF2'
  > train_yaml: ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml
  > model:
  >   n_layers: 40
  >   dim: 2048
  > cluster: {num_nodes: 1, cards_per_node: 8}
  > EOF2
  $ sed -i "s|ROOT|$ROOT|" sc.yaml && ndlua search.lua -s sc.yaml -o out -d 8
  sc.yaml:3:13: model.n_layers: is 40 here but 48 in the train.yaml's model (num_hidden_layers); the search config contradicts the yaml (drop the field, or change the yaml)
  Search config validation failed with 1 error(s).
  [2]

