#!/usr/bin/env python3
"""validate_check.py VECBSP: scripts/validate.py on two programs (threads,
p = 2, and hybrid on 2 ranks of 2 threads, recorded machine files instead
of probes): every row's figures recomputed here from its rounds and from
vecbsp cost run here, its mark of steadiness from its checks, and the
summary lines of the report equal to the errors recomputed."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
vecbsp = sys.argv[1]
failures = []

# The steadiness rule by hand, on made-up checks against a fastest loop
# time of 10 us: steady only with at most 5% slow timings and a loop within
# 1.25 times the fastest; no check (it did not run) is not steady.
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from measuring import check_steady  # noqa: E402
for share, canary, want in ((0.0, 10e-6, True), (0.05, 12.5e-6, True), (0.06, 10e-6, False), (0.0, 12.6e-6, False)):
    if check_steady({"slow_share": share, "canary_seconds": canary, "slow_factor": 1.25}, 10e-6) != want:
        failures.append(f"check_steady: {share} slow, a {canary} s loop: not {'steady' if want else 'unsteady'}")
if check_steady(None, 10e-6):
    failures.append("check_steady: a check that did not run is steady")


def check_row(r, machine, p):
    path = os.path.join(ROOT, "examples" if r["example"] else "tests/validation/corpus", r["name"] + ".vec")
    defs = [x for d in r["defs"].split() for x in ("-D", d)]
    for model in ("exact", "paper"):
        cost = subprocess.run([vecbsp, "cost", path, *defs, "--machine", machine, "-p", str(p), "--model", model,
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


def check_config(cfg, machine, report, figures):
    rows = cfg["rows"]
    if sorted({r["name"] for r in rows}) != ["mss5", "sum-squares"] or len(rows) != 4:
        failures.append(f"{cfg['label']}: expected mss5 and sum-squares at two sizes each: "
                        f"{[(r['name'], r['defs']) for r in rows]}")
    for r in rows:
        check_row(r, machine, cfg["p"])
    corpus = [abs(r["exact_error"]) for r in rows if not r["example"]]
    want = f"| {cfg['label']} | corpus | {100 * statistics.median(corpus):.1f}%, {100 * max(corpus):.1f}%, " \
           f"{sum(e > 0.25 for e in corpus)} |"
    if want not in report:
        failures.append(f"the summary has no line starting {want}")
    if not os.path.exists(os.path.join(figures, f"validation-{cfg['tag']}.svg")) and shutil.which("gnuplot"):
        failures.append(f"{cfg['label']}: no plot")


tmp = tempfile.mkdtemp()
try:
    machines = {"threads-p2": os.path.join(tmp, "machine-threads-p2.json"),
                "hybrid-2x2": os.path.join(tmp, "machine-hybrid-2x2.json")}
    # The threads probe saw 20% of its timings slow; the levels file kept none.
    with open(os.path.join(ROOT, "tests", "cost", "machine-refit.json")) as f:
        recorded = json.load(f)
    recorded["steadiness"] = {"slow_share": 0.2}
    with open(machines["threads-p2"], "w") as f:
        json.dump(recorded, f)
    shutil.copy(os.path.join(ROOT, "tests", "run", "levels-2x2.json"), machines["hybrid-2x2"])
    out = os.path.join(tmp, "validation.md")
    done = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "validate.py"), os.path.dirname(vecbsp),
                           "--configs", "threads:2,hybrid:2x2", "--only", "sum-squares,mss5", "--rounds", "2",
                           "--repeat", "1", "--reuse-probes", "--probe-dir", tmp, "--out", out], check=True,
                          capture_output=True, text=True)
    # Each round takes every configuration, the first one rotating.
    rounds = [line.split(" (")[0].strip() for line in done.stderr.splitlines() if ": round " in line]
    if rounds != ["threads, p = 2: round 1 of 2", "hybrid, 2 x 2: round 1 of 2",
                  "hybrid, 2 x 2: round 2 of 2", "threads, p = 2: round 2 of 2"]:
        failures.append(f"rounds measured in the order {rounds}")
    configs = json.load(open(os.path.join(tmp, "validation.json")))
    if [(c["label"], c["p"]) for c in configs] != [("threads, p = 2", 2), ("hybrid, 2 x 2", 4)]:
        failures.append(f"configurations: {[(c['label'], c['p']) for c in configs]}")
    report = open(out).read()
    for words in ("`machine-threads-p2.json`, probed while not steady (20% of its timings slow).",
                  "`machine-hybrid-2x2.json`, probed with no steadiness recorded."):
        if words not in report:
            failures.append(f"the report does not say: {words}")
    for cfg in configs:
        check_config(cfg, machines[cfg["tag"]], report, os.path.join(tmp, "figures"))
    # A steadiness check before every run; a row is not steady when the one
    # before its fastest round saw over 5% of its timings slow, or a loop time
    # over 1.25 times the fastest of every check on as many threads (the
    # configuration's p, at most one a core).
    def threads(cfg):
        return min(cfg["p"], os.cpu_count() or 1)
    checks = [(threads(cfg), c) for cfg in configs for r in cfg["rows"] for c in r["checks"]]
    if len(checks) != 2 * 2 * 4 or not all(c and c["canary_seconds"] > 0 for _, c in checks):
        failures.append(f"{len(checks)} steadiness checks, or one that did not run")
    else:
        for cfg in configs:
            fastest = min(c["canary_seconds"] for k, c in checks if k == threads(cfg))
            for r in cfg["rows"]:
                c = r["checks"][r["rounds"].index(min(r["rounds"]))]
                slow = c["slow_share"] > 0.05 or c["canary_seconds"] > 1.25 * fastest
                if r["unsteady"] != slow:
                    failures.append(f"{cfg['label']} {r['name']} {r['defs']}: marked {r['unsteady']}, its check {c}")
finally:
    shutil.rmtree(tmp)
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
