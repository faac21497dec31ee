#!/usr/bin/env python3
"""repredict.py BUILD (--against OLD_BUILD | --ramps) SOURCE...: validations'
measurements predicted again by two versions of the exact model, so that
the measured times are the same and only the model differs.

A SOURCE is a validation report's JSON (docs/validation.json, its machine
files where it names them) or a commit of this repository (its
docs/validation.json and docs/validation/machine-*.json as they were
then). For each configuration (flat ones: not hybrid), the probe's machine
file is refitted by each version (`vecbsp probe --refit`: the recorded
runs and memory curves' times, counted and fitted by that version), and
every corpus row is predicted again by each on its refitted file.

The two versions: BUILD against OLD_BUILD (--against: say, a build of the
commit before a change to the model), or BUILD with the memory curves
against BUILD without them, the fixed ramps (--ramps; docs/cost-model.md,
"The memory curve").

Prints, per configuration and then pooled over all of them: the median
and largest |error|, the rows over 25%, the same over the rows measured
steady, the ranking, the probe's own fit (r^2 of its calibration runs),
and the rows the two plan differently (`vecbsp plan --json`: measured
under one plan only); then the rows whose error moved most."""
import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from measuring import Workspace, summary  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def arguments():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    way = ap.add_mutually_exclusive_group(required=True)
    way.add_argument("--against", metavar="OLD_BUILD")
    way.add_argument("--ramps", action="store_true")
    ap.add_argument("sources", nargs="+", metavar="SOURCE")
    return ap.parse_args()


ARGS = arguments()
WS = Workspace(ARGS.build, "vecbsp-repredict.")
# Each version: its name, its vecbsp, and whether its refit keeps the memory curves.
VERSIONS = [("curves" if ARGS.ramps else "new", os.path.join(ARGS.build, "vecbsp"), True),
            ("ramps" if ARGS.ramps else "old", os.path.join(ARGS.against or ARGS.build, "vecbsp"), not ARGS.ramps)]
NEW, OLD = (name for name, _, _ in VERSIONS)


def source_files(source, k):
    """The validation's configurations, each with the path of its machine file as the source had it."""
    if os.path.exists(source):
        with open(source) as f:
            return json.load(f)
    def show(path):
        return subprocess.run(["git", "-C", ROOT, "show", f"{source}:{path}"], check=True, capture_output=True,
                              text=True).stdout
    configs = json.loads(show("docs/validation.json"))
    for cfg in configs:
        machine = os.path.join(WS.dir, f"{k}-{os.path.basename(cfg['machine'])}")
        with open(machine, "w") as f:
            f.write(show("docs/validation/" + os.path.basename(cfg["machine"])))
        cfg["machine"] = machine
    return configs


def refitted(machine, version):
    """The machine file refitted by version; its r^2."""
    name, vecbsp, curves = version
    with open(machine) as f:
        m = json.load(f)
    if not curves:
        m.pop("memory_curves", None)
    base = os.path.join(WS.dir, f"{os.path.basename(machine)}.{name}")
    with open(base + ".in", "w") as f:
        json.dump(m, f)
    WS.run([vecbsp, "probe", "--refit", base + ".in", "-o", base + ".json"])
    with open(base + ".json") as f:
        return base + ".json", json.load(f)["calibration_r2"]


def program(row):
    return os.path.join(ROOT, "examples" if row["example"] else os.path.join("tests", "validation", "corpus"),
                        row["name"] + ".vec")


def ask(vecbsp, command, row, machine, p):
    defs = [x for d in row["defs"].split() for x in ("-D", d)]
    return json.loads(WS.run([vecbsp, command, program(row), *defs, "-p", str(p), "--machine", machine, "--json"]))


def predict(job):
    """A row's seconds and plan (the inputs' layouts, the regions' choices, any process set aside) by each version."""
    row, machines, p = job
    out = {}
    for (name, vecbsp, _), machine in zip(VERSIONS, machines):
        plan = ask(vecbsp, "plan", row, machine, p)
        out[name] = ask(vecbsp, "cost", row, machine, p)["seconds"]
        out[name + "_plan"] = json.dumps([plan["inputs"], [r["chosen"] for r in plan["regions"]],
                                          plan["set_aside"] is None])
    return out


def line(name, rows, r2):
    s = summary(rows, name)
    on_steady = (f"{100 * s['steady_median']:5.1f}% {100 * s['steady_largest']:5.1f}%"
                 if s["steady_median"] is not None else "  -")
    over25_steady = sum(abs(r[name + "_error"]) > 0.25 for r in rows if not r["unsteady"])
    fit = f"  r^2 {r2:.4f}" if r2 is not None else ""
    return (f"  {name:6} median {100 * s['median']:5.1f}%  largest {100 * s['largest']:5.1f}%  over 25% "
            f"{s['over25']:3}  steady: {on_steady} over 25% {over25_steady:2}  ranking {s['right']}/{s['pairs']}{fit}")


def main():
    pooled = []
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        for k, source in enumerate(ARGS.sources):
            for cfg in source_files(source, k):
                if cfg.get("ranks"):
                    continue
                fits = [refitted(cfg["machine"], v) for v in VERSIONS]
                rows = [r for r in cfg["rows"] if not r["example"] and "exact" in r]
                jobs = [(r, [m for m, _ in fits], cfg["p"]) for r in rows]
                for r, out in zip(rows, pool.map(predict, jobs)):
                    r.update(out)
                    for name, _, _ in VERSIONS:
                        r[name + "_error"] = (r[name] - r["measured"]) / r["measured"]
                    r["where"] = f"{source} {cfg['label']}"
                moved = sum(r[NEW + "_plan"] != r[OLD + "_plan"] for r in rows)
                print(f"{source}, {cfg['label']}: {len(rows)} corpus rows, {sum(not r['unsteady'] for r in rows)} "
                      f"steady, {moved} planned differently")
                for (name, _, _), (_, r2) in zip(VERSIONS, fits):
                    print(line(name, rows, r2))
                pooled += rows
    print(f"pooled: {len(pooled)} rows, {sum(not r['unsteady'] for r in pooled)} steady")
    for name, _, _ in VERSIONS:
        print(line(name, pooled, None))
    print("moved most:")
    for r in sorted(pooled, key=lambda r: -abs(r[NEW + "_error"] - r[OLD + "_error"]))[:8]:
        print(f"  {r['where']}: {r['name']} {r['defs']}: {NEW} {100 * r[NEW + '_error']:+.1f}%, "
              f"{OLD} {100 * r[OLD + '_error']:+.1f}%{'' if not r['unsteady'] else ' (not steady)'}")


main()
