The search's work is bounded (issue 13, item 6). Divisors are
enumerated up to sqrt(n), not found by trial up to n (a global batch of
2^30 would take minutes and 2^62 would never end). The Qwen3-30B-A3B
recipe on 64 A3 devices with a batch of 2^30 sequences tests its 83276
candidates at once:

  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 64 -b 1073741824 -M 58GB -A A3 -t 1 2>/dev/null | grep tested
  83276 candidates tested: 22422 refused (a degree out of bounds 22422), 60854 priced for memory

A batch past 2^30 sequences is refused by the option that states it:

  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 64 -b 2147483648
  -b: 2147483648 sequences is past the 1073741824 (2^30) a search takes; a global batch from 1 to 1073741824 sequences
  [2]
  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 64 -b 4611686018427387904
  -b: 4611686018427387904 sequences is past the 1073741824 (2^30) a search takes; a global batch from 1 to 1073741824 sequences
  [2]
  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 64 --training.global_batch_size=2147483648 2>&1 | tail -1
  */train.yaml: training.global_batch_size: 2147483648 sequences is past the 1073741824 (2^30) a search takes; a global batch from 1 to 1073741824 sequences, or -b B (glob)

The space is counted before a search starts (nd.core.search_count, the
outer loops only) and refused past search.MAX_TESTED, 100 million
candidates, with how to narrow it. 720720 devices (2^4 3^2 5 7 11 13, 240
divisors) with every dimension and recompute mode hold 333 million; such
a search would run for tens of seconds without a word.

  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 720720 -b 720720 -M 58GB -A A3 --recompute auto 2>&1 | tail -1
  the search space holds 333423744 candidates, more than the 100000000 a search tests (search.MAX_TESTED in lua/nd/search.lua); narrow it: fewer dimensions searched (-l), fewer recompute modes (--recompute), a global batch with fewer divisors (-b), or fewer devices
  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 720720 -b 720720 -M 58GB -A A3 --recompute auto > /dev/null 2>&1; echo $?
  2

The search runs its outer (TP, PP) pairs on -j threads (0, the default:
every online core) and merges them in the loop nest's order, so every
thread count gives the same candidates, in the same order, to the last
digit of the CSV:

  $ ndlua search.lua $ROOT/examples/deepseek-v3-256/train.yaml -d 256 -b 512 -A A3 -M 58GB --recompute auto -j 1 --csv one.csv -o one > /dev/null 2>&1
  $ ndlua search.lua $ROOT/examples/deepseek-v3-256/train.yaml -d 256 -b 512 -A A3 -M 58GB --recompute auto -j 5 --csv five.csv -o five > /dev/null 2>&1
  $ wc -l < one.csv; cmp one.csv five.csv && cmp one/resolved.yaml five/resolved.yaml && echo same
  2723
  same
  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 64 -j -1
  -j: runs on 0 to 1024 threads, got -1; 0 (every online core) or a thread count
  [2]
  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 64 -j 2000
  -j: runs on 0 to 1024 threads, got 2000; 0 (every online core) or a thread count
  [2]
