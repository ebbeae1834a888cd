#!/bin/sh
# bench.sh: runs ndlua's benchmarks with the given binary (make bench).
set -e
NDLUA=${1:-./ndlua}
echo "ndlua benchmarks on $(uname -m), $(nproc) cores; medians of 5 runs"
"$NDLUA" scripts/bench.lua
