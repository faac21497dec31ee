#!/usr/bin/env python3
"""footprint.py BUILD MACHINE.json [MORE.json ...] [-p P] [--rounds R]: the
price of memory by footprint, measured against the exact model.

The probe's own kernels (src/cli/memory_curve.c: "sum", a load stream in
four lanes; "stores", four words stored an element; and "scan", bound by
its chain) run at footprints of 0.25 to 8 times the first machine file's
cache_bytes C (the model's footprint, of all the processes), under the
probe's plans (at p > 1 each process streams its own block), interleaved
in R rounds (A B C ... A B C ...), each run the median of 5 repetitions
after two untimed ones (`vecbsp run --repeat 5`). Prints, per kernel and
footprint, the nanoseconds per element: the fastest round, the median of
the rounds, the spread (max - min) / min, and each machine file's exact
prediction with its error. The model prices a share of the words at the
memory's units by the machine's memory curve, or without one by a ramp
(docs/cost-model.md, "The memory curve"); 1.25 C is between the curve's
points."""
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
FOOTPRINTS = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 8.0]

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("build")
ap.add_argument("machines", nargs="+")
ap.add_argument("-p", type=int, default=1)
ap.add_argument("--rounds", type=int, default=3)
A = ap.parse_args()
vecbsp = os.path.join(A.build, "vecbsp")
cache = json.load(open(A.machines[0]))["cache_bytes"]
plan = "paper,lanes=4,inputs=block" if A.p > 1 else "paper,lanes=4"


def cost(path, n, machine):
    out = subprocess.run([vecbsp, "cost", path, "-D", f"n={n}", "-p", str(A.p), "--plan", plan, "--machine", machine,
                          "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


with tempfile.TemporaryDirectory() as work:
    rows = []
    for name, text in KERNELS.items():
        path = os.path.join(work, name + ".vec")
        with open(path, "w") as f:
            f.write(text)
        per_element = cost(path, 10 ** 6, A.machines[0])["footprint_bytes"] / 10 ** 6
        for f in FOOTPRINTS:
            n = int(f * cache / per_element)
            rows.append({"kernel": name, "footprint": f, "path": path, "n": n,
                         "predicted": [cost(path, n, m)["seconds"] for m in A.machines], "rounds": []})
    for _ in range(A.rounds):
        for r in rows:
            out = subprocess.run([vecbsp, "run", r["path"], "-D", f"n={r['n']}", "--random", "1", "-p", str(A.p),
                                  "--plan", plan, "--repeat", "5", "--json"], check=True, capture_output=True,
                                 text=True).stdout
            r["rounds"].append(json.loads(out)["seconds_median"])

print(f"p = {A.p}, C = {cache / 2 ** 20:.0f} MB, {A.rounds} rounds; ns per element; models: "
      + ", ".join(f"{i + 1} {m}" for i, m in enumerate(A.machines)))
print(f"{'kernel':8} {'footprint':>9} {'fastest':>8} {'median':>8} {'spread':>7}"
      + "".join(f" {'model ' + str(i + 1):>8} {'error':>7}" for i in range(len(A.machines))))
for r in rows:
    fastest, ns = min(r["rounds"]), 1e9 / r["n"]
    print(f"{r['kernel']:8} {r['footprint']:>8.2f}C {fastest * ns:8.3f} {statistics.median(r['rounds']) * ns:8.3f} "
          f"{100 * (max(r['rounds']) - fastest) / fastest:6.0f}%"
          + "".join(f" {t * ns:8.3f} {100 * (t - fastest) / fastest:+6.1f}%" for t in r["predicted"]))
