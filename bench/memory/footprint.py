#!/usr/bin/env python3
"""footprint.py BUILD MACHINE.json [-p P] [--rounds R]: the price of memory
by footprint, measured against the exact model.

The probe's own kernels (src/cli/calibrate.c: "sum", a load stream;
"stores", four words stored an element; "scan", bound by its chain) run at
footprints of 0.75 to 8 times the machine file's cache_bytes C (the
model's footprint, of all the processes), interleaved in R rounds
(A B C ... A B C ...), each run the median of 5 repetitions after two
untimed ones (`vecbsp run --repeat 5`). Prints, per kernel and footprint,
the nanoseconds per element: the fastest round, the median of the rounds,
the spread (max - min) / min, and the exact model's prediction with its
error. The model prices a share of the words at the memory's units by a
ramp of the footprint (docs/cost-model.md, "Calibration"); this shows
where the machine's price rises instead."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

KERNELS = {
    "sum": "param n\ninput v : [n]int\nmain = fold (+) v\n",
    "stores": "param n\ninput v : [n]int\nmain = length (map (\\x -> ((x, x + 1), (x + 2, x + 3))) v)\n",
    "scan": "param n\ninput v : [n]int\nmain = fold max (prefix (+) v)\n",
}
FOOTPRINTS = [0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 8.0]

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("build")
ap.add_argument("machine")
ap.add_argument("-p", type=int, default=1)
ap.add_argument("--rounds", type=int, default=3)
A = ap.parse_args()
vecbsp = os.path.join(A.build, "vecbsp")
cache = json.load(open(A.machine))["cache_bytes"]


def cost(path, n):
    out = subprocess.run([vecbsp, "cost", path, "-D", f"n={n}", "-p", str(A.p), "--machine", A.machine, "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


with tempfile.TemporaryDirectory() as work:
    rows = []
    for name, text in KERNELS.items():
        path = os.path.join(work, name + ".vec")
        with open(path, "w") as f:
            f.write(text)
        per_element = cost(path, 10 ** 6)["footprint_bytes"] / 10 ** 6
        for f in FOOTPRINTS:
            n = int(f * cache / per_element)
            rows.append({"kernel": name, "footprint": f, "path": path, "n": n,
                         "predicted": cost(path, n)["seconds"], "rounds": []})
    for _ in range(A.rounds):
        for r in rows:
            out = subprocess.run([vecbsp, "run", r["path"], "-D", f"n={r['n']}", "--random", "1", "-p", str(A.p),
                                  "--repeat", "5", "--json"], check=True, capture_output=True, text=True).stdout
            r["rounds"].append(json.loads(out)["seconds_median"])

print(f"p = {A.p}, C = {cache / 2 ** 20:.0f} MB, {A.rounds} rounds; ns per element")
print(f"{'kernel':8} {'footprint':>9} {'fastest':>8} {'median':>8} {'spread':>7} {'model':>8} {'error':>7}")
for r in rows:
    fastest, ns = min(r["rounds"]), 1e9 / r["n"]
    print(f"{r['kernel']:8} {r['footprint']:>8.2f}C {fastest * ns:8.3f} {statistics.median(r['rounds']) * ns:8.3f} "
          f"{100 * (max(r['rounds']) - fastest) / fastest:6.0f}% {r['predicted'] * ns:8.3f} "
          f"{100 * (r['predicted'] - fastest) / fastest:+6.1f}%")
