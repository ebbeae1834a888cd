Impossible layouts (issue 34 item 3): estimate.lua refuses, by the rules
the search refuses its candidates with (src/core/layout.c: layout_pp_fits,
layout_vpp_fits, layout_cp_splits, layout_cp_heads_fit; search_nest.c calls
the same functions), rather than price it and exit 0.
Qwen/Qwen3-8B has 36 layers and 8 KV heads (its config.json:
num_hidden_layers 36, num_key_value_heads 8).

A pipeline of 64 stages over 36 layers: 28 stages would hold none (64 -
36); priced before as 64 stages of 0 or 1 layer.

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 64 --pp 64
  pp 64 is more pipeline stages than the model's 36 layers; 28 stages would hold none (the search refuses it too)
  [2]

Ten chunks a stage where a stage of pp 4 holds 36 / 4 = 9 layers:

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --pp 4 --accelerator.pp_interleave_num=10
  vpp 10 is more chunks than a stage's 9 layers (the search refuses it too)
  [2]

Context parallelism splits each sequence into 2 x cp chunks: 16 do not
divide 4 tokens, 4 do not divide 4097 (both exited 0 before):

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --cp 8 --seq 4 2>err; echo "status $?"; grep -v context_parallel_algo err
  status 2
  cp 8 splits each sequence into 2 x 8 chunks, which do not divide the sequence of 4 tokens (the search refuses it too)
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --cp 2 --tp 2 --seq 4097 2>err; echo "status $?"; grep -v context_parallel_algo err
  status 2
  cp 2 splits each sequence into 2 x 2 chunks, which do not divide the sequence of 4097 tokens (the search refuses it too)

Ulysses spreads the 8 KV heads over tp x cp = 16 ranks:

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 16 --cp 16 --accelerator.context_parallel_algo=ulysses_cp
  Ulysses context parallelism spreads the model's 8 KV heads over tp 1 x cp 16 ranks, which do not divide them (the search refuses it too)
  [2]

What keeps the rules is priced: 2 x 2 chunks of 4096 tokens, and
36 stages of one layer each.

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --cp 2 --seq 4096 2>/dev/null | grep -c '^run'
  1
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 36 --pp 36 | grep -c '^run'
  1

The search over the same model never offers the first layout: its bound on
PP is 8 on 64 devices here (the machine's 8 devices a node), under the
36 layers:

  $ ndlua search.lua Qwen/Qwen3-8B -d 64 -b 64 -l PP -v 1 -t 1 -o out | sed -n 2p
  bounds: PP up to 8 (the machine's 8, 36 layers over VPP 1, a batch of 64)

Sequence parallelism beside context parallelism: the search refuses every
such candidate (its CP rule, the reference planner's "CP+SP incompatible";
src/core/layout.c's layout_sp_cp_fits, which search_nest.c calls). The
estimate prices that layout, since Megatron-LM and torchtitan train it
(spec/validation's Llama 3 405B CP 16 runs use it), and warns that the
search refuses it. Here tp 2 x cp 2 on 8 devices:

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 --cp 2 --accelerator.sequence_parallel=true --accelerator.context_parallel_algo=colossalai_cp 2>&1 >/dev/null
  warning: accelerator.sequence_parallel: sequence parallelism beside cp 2 is a layout the search refuses (its CP rule, the reference planner's: sequence and context parallelism together are incompatible), so no search offers it; it is priced as stated, as Megatron-LM and torchtitan train it
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 --cp 2 --accelerator.sequence_parallel=true --accelerator.context_parallel_algo=colossalai_cp --json 2>/dev/null | grep -c 'search refuses'
  1

The search with SP on and CP searched over the 4 devices tp 2 leaves
(cp 1, 2, 4): cp 2 and cp 4 are refused by that rule, cp 1 is priced:

  $ ndlua search.lua Qwen/Qwen3-8B -d 8 -b 8 --accelerator.sequence_parallel=true --accelerator.tp_size=2 -l CP -t 1 -o out | sed -n 2p
  3 candidates tested: 2 refused (CP constraints 2), 1 priced for memory

Without sequence parallelism the same estimate says nothing of it:

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 --cp 2 --accelerator.context_parallel_algo=colossalai_cp 2>&1 >/dev/null | grep -c 'search refuses'
  0
  [1]

That rule is a capability of the training runtime (issue 31): a runtime
profile states whether its runtime trains sequence parallelism beside
context parallelism (lua/nd/runtimes/*.lua, parallelism.sp_with_cp, read by
the same layout_sp_cp_fits). Megatron-LM's profile and torchtitan's say yes
(Megatron-Core's context-parallel guide draws a TP2CP2 layer with SP's
all-gathers and reduce-scatters; torchtitan's parallelize_llama applies its
SequenceParallel TP plan and then CP to the same blocks), so under them the
search keeps the two candidates refused above, where it refused them before:

  $ ndlua search.lua Qwen/Qwen3-8B -d 8 -b 8 --accelerator.sequence_parallel=true --accelerator.tp_size=2 -l CP -t 1 -o out --runtime torchtitan | sed -n 2p
  3 candidates tested: none refused, 3 priced for memory
  $ ndlua search.lua Qwen/Qwen3-8B -d 8 -b 8 --accelerator.sequence_parallel=true --accelerator.tp_size=2 -l CP -t 1 -o out --runtime megatron | sed -n 2p
  3 candidates tested: none refused, 3 priced for memory

The runtimes that follow the reference keep refusing them, HyperParallel
(a train.yaml's own runtime, named or not), MindSpore, DeepSpeed and none:

  $ for rt in hyperparallel mindspore deepspeed none; do ndlua search.lua Qwen/Qwen3-8B -d 8 -b 8 --accelerator.sequence_parallel=true --accelerator.tp_size=2 -l CP -t 1 -o out --runtime $rt | sed -n 2p; done
  3 candidates tested: 2 refused (CP constraints 2), 1 priced for memory
  3 candidates tested: 2 refused (CP constraints 2), 1 priced for memory
  3 candidates tested: 2 refused (CP constraints 2), 1 priced for memory
  3 candidates tested: 2 refused (CP constraints 2), 1 priced for memory

With SP and CP both searched the reference counts the pair among its degree
rules (its §b.4 rule 1): under torchtitan all 6 candidates (cp 1, 2, 4, SP
on and off) are priced, SP on beside cp 2 and cp 4 among the ranked rows
(the columns dp, tp, cp, sp of each row); under HyperParallel SP on beside
cp 2 and cp 4 are refused:

  $ ndlua search.lua Qwen/Qwen3-8B -d 8 -b 8 --accelerator.tp_size=2 -l CP,SP -t 1 -o out --runtime torchtitan --top 6 > ranked
  $ sed -n 2p ranked
  6 candidates tested: none refused, 6 priced for memory
  $ awk '$1 ~ /^~?[0-9]+$/ && $9 == "on" && $6 > 1 {print $2, $3, $6, $9}' ranked | sort
  1 2 4 on
  2 2 2 on
  $ ndlua search.lua Qwen/Qwen3-8B -d 8 -b 8 --accelerator.tp_size=2 -l CP,SP -t 1 -o out --runtime hyperparallel | sed -n 2p
  6 candidates tested: 2 refused (a degree out of bounds 2), 4 priced for memory

The estimate reads the same capability: under torchtitan or Megatron-LM it
prices SP beside CP without a word of the rule; under HyperParallel it
warns as above:

  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 --cp 2 --accelerator.sequence_parallel=true --accelerator.context_parallel_algo=colossalai_cp --runtime torchtitan 2>&1 >/dev/null | grep -c 'search refuses'
  0
  [1]
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 --cp 2 --accelerator.sequence_parallel=true --accelerator.context_parallel_algo=colossalai_cp --runtime megatron 2>&1 >/dev/null | grep -c 'search refuses'
  0
  [1]
  $ ndlua estimate.lua Qwen/Qwen3-8B -d 8 --tp 2 --cp 2 --accelerator.sequence_parallel=true --accelerator.context_parallel_algo=colossalai_cp --runtime hyperparallel 2>&1 >/dev/null
  warning: accelerator.sequence_parallel: sequence parallelism beside cp 2 is a layout the search refuses (its CP rule, the reference planner's: sequence and context parallelism together are incompatible), so no search offers it; it is priced as stated, as Megatron-LM and torchtitan train it
