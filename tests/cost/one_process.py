#!/usr/bin/env python3
"""one_process.py VECBSP: without a margin (--plan best,margin=0), the
planner's plan is never predicted slower than a one-process plan.

Each case's planned time (`vecbsp cost --json` of the plan chosen) is
compared with the cheapest of the one-process plans forced from the
command line: every region sequential, every input on process 0, with one
accumulator or four (a plan that sends nothing, which runs on one process).
The cases are the ones where the search missed the one-process plan: its
costs were taken under the memory shares of plans on p processes, which
touch more memory (mss (2) at n = 800 and scale-matrix at 500 x 800 on the
probe of docs/validation/machine-threads-p2.json at 2c2a61e, kept as
machine-2c2a61e.json without its measurements; scale-matrix on `local`),
and two at p = 3. Seconds are compared to a relative 1e-9."""
import json
import os
import subprocess
import sys
import tempfile

vecbsp = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
old_probe = os.path.join(here, "machine-2c2a61e.json")
CASES = [
    ("examples/mss2.vec", ["n=800"], old_probe, 2),
    ("tests/validation/corpus/scale-matrix.vec", ["m=500", "n=800"], old_probe, 2),
    ("tests/validation/corpus/scale-matrix.vec", ["m=500", "n=800"], "local", 2),
    ("tests/validation/corpus/saxpy.vec", ["n=200000"], "local", 3),
    ("examples/mss5.vec", ["n=400000"], old_probe, 3),
]
ONE_PROCESS = ["best,regions=sequential,inputs=root,lanes=1", "best,regions=sequential,inputs=root,lanes=4"]
failures = []


def vec(*args):
    r = subprocess.run([vecbsp, *args], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"vecbsp {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
        return None
    return json.loads(r.stdout)


with tempfile.TemporaryDirectory() as tmp:
    os.environ["VECBSP_CACHE"] = os.path.join(tmp, "cache")
    for path, defs, machine, p in CASES:
        common = [os.path.join(root, path), *[x for d in defs for x in ("-D", d)], "--machine", machine, "-p", str(p)]
        what = f"{path} {' '.join(defs)} on {os.path.basename(machine)} at p = {p}"
        planned = vec("cost", *common, "--plan", "best,margin=0", "--json")
        alone = [vec("cost", *common, "--plan", spec, "--json") for spec in ONE_PROCESS]
        if planned is None or None in alone:
            continue
        least = min(a["seconds"] for a in alone)
        if planned["seconds"] > least * (1 + 1e-9):
            failures.append(f"{what}: margin=0 plans {planned['seconds']:.6g} s, a one-process plan {least:.6g} s")

for f in failures:
    print("FAIL:", f)
print(f"one_process: {len(failures)} failures")
sys.exit(1 if failures else 0)
