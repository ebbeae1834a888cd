search.lua refuses what it cannot search with exit status 2 and a message
saying what was read, what is wrong and what would do: bad options and
contradictions between them, a ranking policy that errs (naming its file
and line), a search config that contradicts the train.yaml or fails its
validation, and a space where nothing can be recommended.

The train.yaml: the dense model of search.t, 4 layers, on 8 devices.

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

Options:

  $ ndlua search.lua
  search.lua needs a TRAIN_YAML (or a search config naming one); ndlua search.lua --help
  [2]
  $ ndlua search.lua train.yaml train.yaml
  search.lua takes one TRAIN_YAML, got 2 arguments: train.yaml train.yaml; ndlua search.lua --help
  [2]
  $ ndlua search.lua train.yaml -t 0
  -t: shows at least 1 candidate, got 0
  [2]
  $ ndlua search.lua train.yaml -l DP XP
  -l: 'XP' is no dimension; DP, TP (or MP), SP, PP, VPP, CP, EP, OP, MB, MBS
  [2]
  $ ndlua search.lua train.yaml -A tpu
  -A: 'tpu' is no hardware profile ndlua knows; one of 910B, 910C, A100-80GB, A2, A3, B200, GB200, H100, H20, H200, H800, MI300X (or add nd/hardware/tpu.lua to a directory on NDLUA_PATH)
  [2]
  $ ndlua search.lua train.yaml --recompute sometimes
  --recompute: 'sometimes' is no recompute mode; off, selective, full (one or several), or auto for all three
  [2]
  $ ndlua search.lua train.yaml -M 2GB -mem 3GB
  -mem: keeps 3.00 GiB free of a 2.00 GiB cap: nothing is left
  [2]
  $ ndlua search.lua train.yaml -s search.yaml -l DP
  -l: -l and -s both say which dimensions vary; a search config states them in parallelism; drop -l, or -s
  [2]

The yaml's own statements, where the search needs them:

  $ ndlua search.lua train.yaml --context.device_num=null
  train.yaml: context.device_num: the yaml states no device count, and the search needs one; state it with -d N (or context.device_num)
  [2]
  $ ndlua search.lua train.yaml --training.global_batch_size=null
  train.yaml: training.global_batch_size: the yaml states no global batch; state it with -b B
  [2]
  $ ndlua search.lua train.yaml --context.recompute=sometimes
  command line --context.recompute=sometimes: context.recompute: 'sometimes' is no recompute mode; off, selective, full (one or several), or auto for all three
  [2]

Ranking policies: a name ndlua does not ship, a file with a syntax error, a
file whose function errs on a candidate. Each names the file and line.

  $ ndlua search.lua train.yaml --policy fastest
  --policy: 'fastest' is no ranking policy; one of memory, nd, throughput, or a policy file (FILE.lua)
  [2]
  $ cat > syntax.lua <<'EOF'
  > return {
  >   score = function(c)
  >     return c.tp +
  >   end,
  > }
  > EOF
  $ ndlua search.lua train.yaml -l DP TP --policy syntax.lua
  ranking policy syntax.lua:4: unexpected symbol near 'end'
  [2]
  $ cat > boom.lua <<'EOF'
  > return {
  >   keep = function(c)
  >     return c.cluster.nodes > 1
  >   end,
  >   order = { "step_time_s" },
  > }
  > EOF
  $ ndlua search.lua train.yaml -l DP TP --policy boom.lua -v 0
  ranking policy boom.lua: boom.lua:3: attempt to index a nil value (field 'cluster') (in keep, for candidate dp 8 tp 1 pp 1)
  [2]

Search configs that contradict the train.yaml or the command line:

  $ printf 'train_yaml: other.yaml\n' > s1.yaml && ndlua search.lua train.yaml -s s1.yaml
  s1.yaml: train_yaml: names other.yaml, not the TRAIN_YAML train.yaml the command line gives; pass the same file
  [2]
  $ printf 'recompute: full\n' > s2.yaml && ndlua search.lua train.yaml -s s2.yaml --recompute auto
  s2.yaml: recompute: fixes recompute to full, and --recompute searches off, selective, full; drop --recompute, or the search config's recompute
  [2]
  $ printf 'cluster:\n  num_nodes: 2\n  cards_per_node: 8\n' > s3.yaml && ndlua search.lua train.yaml -s s3.yaml
  s3.yaml: cluster: 2 node(s) x 8 cards = 16 devices, but the train.yaml's context.device_num states 8; the search config contradicts the yaml; state the same count, or -d N to search on N devices
  [2]
  $ printf 'model:\n  hidden_size: 2048\n' > s4.yaml && ndlua search.lua train.yaml -s s4.yaml
  s4.yaml:2:16: model.hidden_size: is 2048 here but 1024 in the train.yaml's model; the search config contradicts the yaml (drop the field, or change the yaml)
  Search config validation failed with 1 error(s).
  [2]

Every error of a config that fails its validation, then their count (8
devices, a hidden size of 1024, 4 layers, a batch of 16):

  $ cat > s5.yaml <<'EOF'
  > parallelism:
  >   tp: [2, 3]
  >   dp: 3
  >   pp: 8
  >   fsdp: 2
  >   zp: 1
  > recompute: auto
  > EOF
  $ ndlua search.lua train.yaml -s s5.yaml
  s5.yaml:6:3: parallelism.zp: unknown key; parallelism takes dp, fsdp, tp, pp, cp, ep, etp, micro_batch_num, recompute
  s5.yaml:2:3: parallelism: the product of the fixed degrees (dp 3 x pp 8) = 24 exceeds the 8 devices
  s5.yaml:2:7: parallelism.tp: tp 3 does not divide hidden_size 1024
  s5.yaml:5:9: parallelism.fsdp: FSDP shards over 2 ranks, which do not divide dp 3 (the HSDP replicas would not be whole)
  s5.yaml:3:7: parallelism.dp: global batch 16 is no multiple of the effective DP 3
  s5.yaml:4:7: parallelism.pp: pp 8 exceeds the model's 4 layers
  Search config validation failed with 6 error(s).
  [2]

Nothing to recommend. With every dimension but DP pinned (DP 8 x MBS 1), a
batch of 12 is no whole number of micro-batches:

  $ ndlua search.lua train.yaml -l DP -b 12
  no candidate makes a global batch of 12 (the yaml states 16): the candidates the search builds have DP x MBS of 8, and 12 is no whole number of micro-batches of any; state -b as a multiple of one of them, or let DP shrink by naming PP, CP or TP in -l
  [2]

A budget below every candidate's peak: the message names the lightest (TP
8's 2.10 GiB, see search.t):

  $ ndlua search.lua train.yaml -l DP TP -M 1GB -v 0
  nothing fits the budget of 1.00 GiB: all 4 priced candidates are over it; the lightest, dp 1 tp 8 pp 1 vpp 1 cp 1 ep 1 op 1 sp off mb 16 mbs 1 full, needs 2.10 GiB (stage 0), 1.10 GiB over. Raise -M, search more dimensions (-l) or recompute (--recompute auto)
  [2]

A policy that keeps nothing:

  $ printf 'return { keep = function(c) return false end, order = { "peak_bytes" } }\n' > none.lua
  $ ndlua search.lua train.yaml -l DP TP --policy none.lua -v 0
  the policy none.lua keeps none of the 4 fitting candidates
  [2]

A global batch too small for the devices (issue 34 item 6): on 1048576
devices a batch of 8 gives at most 8 data-parallel ranks, each spanning
1048576 / 8 = 131072 devices; TP reaches 8 (Qwen3-8B's 8 KV heads) and
PP 8 (the batch of 8), so CP would have to fill 131072 / 64 = 2048 or more.
The CP rule refuses those candidates, but the batch is the cause (the
message blamed the context-parallel degrees before):

  $ ndlua search.lua Qwen/Qwen3-8B -d 1048576 -b 8 -o out 2>&1 | tail -n 1
  no candidate passes the search's rules: 480 candidates tested: 480 refused (CP constraints 240, a degree out of bounds 240), 0 priced for memory; the global batch is the cause: a batch of 8 sequences gives at most 8 data-parallel ranks, so each spans 1048576 / 8 = 131072 devices, of which TP (up to 8) and PP (up to 8) leave a CP of 2048 or more to fill; raise the global batch (-b) or take fewer devices
