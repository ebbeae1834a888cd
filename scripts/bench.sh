#!/bin/sh
# bench.sh: runs ndlua's benchmarks with the given binary (make bench).
set -e
NDLUA=${1:-./ndlua}
echo "ndlua benchmarks on $(uname -m), $(nproc) cores; medians of 5 runs where a line says no other count"
"$NDLUA" scripts/bench.lua
# The start of estimate.lua on a bundled example against ndlua -e 'print(1)'
# (issue 35 item 6: within 2x), medians of 10 runs each.
if command -v python3 >/dev/null; then python3 scripts/startup.py "$NDLUA" 10; fi
# The peak resident memory of one search.lua run (GNU time's maximum RSS),
# one thread, the largest searches of the table above: as it runs by
# default (the top -t kept in a heap) and with --csv (every fitting
# candidate kept).
if [ -x /usr/bin/time ]; then
  echo "peak resident memory of one search.lua run, one thread, A3, 58 GB, a batch of 2 a device:"
  out=${TMPDIR:-/tmp}
  for m in "DeepSeek-V3 examples/deepseek-v3-256/train.yaml" "Qwen3-30B-A3B examples/qwen3-30b-a3b-fsdp8/train.yaml"; do
    set -- $m
    for csv in "" "--csv $out/ndlua-bench.csv"; do
      kib=$(/usr/bin/time -f %M "$NDLUA" search.lua "$2" -d 16384 -b 32768 -A A3 -M 58GB --recompute auto -j 1 \
            -o "$out" $csv 2>&1 >/dev/null | tail -1)
      printf '  %-14s 16384 devices %-7s %8.1f MiB\n' "$1" "${csv:+--csv}" "$(echo "$kib" | awk '{print $1 / 1024}')"
    done
  done
  rm -f "$out/ndlua-bench.csv"
  # The whole --csv run of the largest search above (issue 33 item 6: at
  # most 1.5 s on one thread): its lines are made in C from the result's
  # records (src/search/search_csv.c); wall and CPU (user + system) seconds,
  # medians of 5 runs.
  echo "search.lua --csv, Qwen3-30B-A3B on 16384 A3 devices, one thread (every fitting candidate written):"
  walls="" cpus="" rows=0
  for i in 1 2 3 4 5; do
    t=$(/usr/bin/time -f "%e %U %S" "$NDLUA" search.lua examples/qwen3-30b-a3b-fsdp8/train.yaml -d 16384 -b 32768 \
        -A A3 -M 58GB --recompute auto -j 1 -o "$out" --csv "$out/ndlua-bench.csv" 2>&1 >/dev/null | tail -1)
    walls="$walls $(echo "$t" | awk '{print $1}')"
    cpus="$cpus $(echo "$t" | awk '{print $2 + $3}')"
  done
  rows=$(($(wc -l < "$out/ndlua-bench.csv") - 1))
  # the middle one of an odd number of values
  median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
  printf '  %-14s %d rows %8s s wall %8s s cpu\n' Qwen3-30B-A3B "$rows" "$(median $walls)" "$(median $cpus)"
  rm -f "$out/ndlua-bench.csv"
  # search.lua --balance (issue 32 item 4: the whole search at most 1 s on
  # one thread): DeepSeek-V3 on 1024 A3 devices, every pipelined candidate
  # balanced or pruned by its bound (lua/nd/balance_search.lua), against the
  # same search without it; and under the memory policy, whose bound (a
  # floor on the peak) prunes far fewer; wall and CPU seconds, medians of 5
  # runs, of 3 for the memory policy (its run takes some 11 s: 5 of them
  # were over half of the whole bench's wall time).
  echo "search.lua --balance, DeepSeek-V3 on 1024 A3 devices, 58 GB, a batch of 2048, one thread:"
  for bal in "" "--balance" "--balance --policy memory"; do
    walls="" cpus="" runs=5
    if [ "$bal" = "--balance --policy memory" ]; then runs=3; fi
    for i in $(seq $runs); do
      t=$(/usr/bin/time -f "%e %U %S" "$NDLUA" search.lua examples/deepseek-v3-256/train.yaml -d 1024 -b 2048 \
          -A A3 -M 58GB --recompute auto -j 1 -o "$out" $bal 2>&1 >/dev/null | tail -1)
      walls="$walls $(echo "$t" | awk '{print $1}')"
      cpus="$cpus $(echo "$t" | awk '{print $2 + $3}')"
    done
    printf '  %-26s %8s s wall %8s s cpu  (median of %d runs)\n' "${bal:-even}" "$(median $walls)" "$(median $cpus)" \
      "$runs"
  done
fi
