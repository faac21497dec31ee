#!/usr/bin/env python3
"""validate_check.py VECBSP: scripts/validate.py on two programs (threads,
p = 2, a recorded machine file instead of a probe): every row's figures
recomputed here from its rounds and from vecbsp cost run here, and the
summary line of the report equal to the errors recomputed."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
vecbsp = sys.argv[1]
tmp = tempfile.mkdtemp()
failures = []
try:
    machine = os.path.join(tmp, "machine-threads-p2.json")
    shutil.copy(os.path.join(ROOT, "tests", "cost", "machine-refit.json"), machine)
    out = os.path.join(tmp, "validation.md")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "validate.py"), os.path.dirname(vecbsp),
                    "--configs", "threads:2", "--only", "sum-squares,mss5", "--rounds", "2", "--repeat", "2",
                    "--reuse-probes", "--probe-dir", tmp, "--out", out], check=True, capture_output=True)
    [cfg] = json.load(open(os.path.join(tmp, "validation.json")))
    rows = cfg["rows"]
    if sorted({r["name"] for r in rows}) != ["mss5", "sum-squares"] or len(rows) != 4:
        failures.append(f"expected mss5 and sum-squares at two sizes each: {[(r['name'], r['defs']) for r in rows]}")
    for r in rows:
        path = os.path.join(ROOT, "examples" if r["example"] else "tests/validation/corpus", r["name"] + ".vec")
        defs = [x for d in r["defs"].split() for x in ("-D", d)]
        for model in ("exact", "paper"):
            cost = subprocess.run([vecbsp, "cost", path, *defs, "--machine", machine, "-p", "2", "--model", model,
                                   "--json"], env=dict(os.environ, VECBSP_MACHINE=machine), check=True,
                                  capture_output=True, text=True)
            want = json.loads(cost.stdout)["seconds"]
            if r[model] != want:
                failures.append(f"{r['name']} {r['defs']}: {model} {r[model]}, vecbsp cost says {want}")
            err = (want - min(r["rounds"])) / min(r["rounds"])
            if abs(r[model + "_error"] - err) > 1e-12:
                failures.append(f"{r['name']} {r['defs']}: {model} error {r[model + '_error']}, recomputed {err}")
        if len(r["rounds"]) != 2 or r["measured"] != min(r["rounds"]):
            failures.append(f"{r['name']} {r['defs']}: measured {r['measured']} of rounds {r['rounds']}")
    corpus = [abs(r["exact_error"]) for r in rows if not r["example"]]
    want = f"| threads | 2 | corpus | {100 * statistics.median(corpus):.1f}%, {100 * max(corpus):.1f}%, " \
           f"{sum(e > 0.25 for e in corpus)} |"
    if want not in open(out).read():
        failures.append(f"the summary has no line starting {want}")
    if not os.path.exists(os.path.join(tmp, "figures", "validation-threads-p2.svg")) and shutil.which("gnuplot"):
        failures.append("no plot")
finally:
    shutil.rmtree(tmp)
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
