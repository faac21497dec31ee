#!/usr/bin/env python3
"""ab.py OLD_VECBSP NEW_VECBSP [ROUNDS]: the wall time of the cost analysis's
larger jobs (sweeps of the paper model over many sizes, a derivation) under
two builds, interleaved (old, new, old, new, ...) so that the machine's
drift falls on both alike; the minimum and median of each and their ratio.
Run from the project root."""
import statistics
import subprocess
import sys
import time

JOBS = [
    ("sweep mss4, paper model, n = 10..10000 (1000 sizes)",
     ["sweep", "examples/mss4.vec", "--model", "paper", "--vary", "n=10:10000:10", "--csv"]),
    ("sweep mss1-5, paper model, n = 10..2400 (240 sizes)",
     ["sweep"] + [f"examples/mss{i}.vec" for i in range(1, 6)] +
     ["--model", "paper", "--vary", "n=10:2400:10", "--csv"]),
    ("cost mss1, paper model, n = 2400 (the numeric model)",
     ["cost", "examples/mss1.vec", "--model", "paper", "-D", "n=2400"]),
    ("derive mss1, paper model, n = 2400",
     ["derive", "examples/mss1.vec", "--model", "paper", "-D", "n=2400"]),
    ("derive matvec1, paper model, m = n = 1000",
     ["derive", "examples/matvec1.vec", "--model", "paper", "-D", "m=1000", "-D", "n=1000"]),
]


def wall(vecbsp, args):
    start = time.perf_counter()
    subprocess.run([vecbsp] + args, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) == 4 else 5
    print(f"{'job':58} {'old min/median s':>18} {'new min/median s':>18} {'old/new (median)':>17}")
    for name, args in JOBS:
        times = {old: [], new: []}
        for _ in range(rounds):
            for build in (old, new):
                times[build].append(wall(build, args))
        o, n = times[old], times[new]
        print(f"{name:58} {min(o):8.3f} {statistics.median(o):8.3f}  {min(n):8.3f} {statistics.median(n):8.3f}"
              f"  {statistics.median(o) / statistics.median(n):12.1f}x")


if __name__ == "__main__":
    main()
