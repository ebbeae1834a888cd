#!/usr/bin/env python3
"""startup.py: wall time of ndlua's start (make bench; issue 35 item 6).

Runs `ndlua -e 'print(1)'` and `ndlua lua/estimate.lua TRAIN_YAML`, interleaved,
RUNS times each (default 10), and prints the median wall time of each and their
ratio (the goal: estimate.lua within 2x of print(1)). Interleaving spreads the
machine's other load over both commands alike; read medians, single runs move.

usage: scripts/startup.py [NDLUA] [RUNS] [TRAIN_YAML]
"""
import os
import statistics
import subprocess
import sys
import time


def wall(argv):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main():
    ndlua = sys.argv[1] if len(sys.argv) > 1 else "./ndlua"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    yaml = sys.argv[3] if len(sys.argv) > 3 else "examples/qwen3-30b-a3b-fsdp8/train.yaml"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    commands = {
        "print(1)": [ndlua, "-e", "print(1)"],
        "estimate": [ndlua, os.path.join(root, "lua", "estimate.lua"), yaml],
    }
    times = {name: [] for name in commands}
    for name, argv in commands.items():  # one unmeasured run each: the page cache
        wall(argv)
    for _ in range(runs):
        for name, argv in commands.items():
            times[name].append(wall(argv))
    base = statistics.median(times["print(1)"])
    est = statistics.median(times["estimate"])
    print("startup (median wall of %d runs each, interleaved; load average %.2f):" % (runs, os.getloadavg()[0]))
    print("  %-58s %10.2f ms" % ("ndlua -e 'print(1)'", base * 1e3))
    print("  %-58s %10.2f ms" % ("ndlua lua/estimate.lua " + os.path.basename(os.path.dirname(yaml)), est * 1e3))
    print("  %-58s %10.2f x (goal: at most 2)" % ("ratio", est / base))


if __name__ == "__main__":
    main()
