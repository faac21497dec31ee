#!/usr/bin/env python3
"""repredict.py BUILD VALIDATION.json: a validation's measurements predicted
again by BUILD's exact model with the machines' memory curves and without
them (docs/cost-model.md, "The memory curve").

Each configuration's machine file (as the validation probed it) is refitted
(`vecbsp probe --refit`: the same recorded runs and kernels' times, this
build's rule and fit) with its "memory_curves" and without them (the fixed
ramps); every corpus row is predicted again by the exact model on both.
Prints, per configuration and for both: the median and largest |error|,
the rows over 25%, the same over the rows measured steady, the ranking, and
the probe's own fit (r^2 of its calibration runs). The measured times are
the validation's, so the two differ by the model alone. A row the two plan
differently (`vecbsp plan --json`: the inputs' layouts, the regions'
choices) was measured under one plan only; they are counted."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from measuring import Workspace, summary  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if len(sys.argv) != 3:
    sys.exit(__doc__)
BUILD, VALIDATION = sys.argv[1], sys.argv[2]
WS = Workspace(BUILD, "vecbsp-repredict.")


def vecbsp(*argv):
    return WS.run([os.path.join(BUILD, "vecbsp"), *argv])


def program(row):
    corpus = os.path.join(ROOT, "tests", "validation", "corpus", row["name"] + ".vec")
    return os.path.join(ROOT, "examples", row["name"] + ".vec") if row["example"] else corpus


def args(row, machine, p):
    defs = [x for d in row["defs"].split() for x in ("-D", d)]
    return [program(row), *defs, "-p", str(p), "--machine", machine, "--json"]


def plan_of(row, machine, p):
    """What the planner chose: inputs, regions, and whether it set one process aside."""
    plan = json.loads(vecbsp("plan", *args(row, machine, p)))
    return json.dumps([plan["inputs"], [r["chosen"] for r in plan["regions"]], plan["set_aside"] is None])


def refitted(machine, curves):
    """The machine file refitted, with its memory curves or without."""
    with open(machine) as f:
        m = json.load(f)
    if not curves:
        m.pop("memory_curves", None)
    tag = ".curve" if curves else ".ramp"
    given, out = (os.path.join(WS.dir, os.path.basename(machine) + tag + suffix) for suffix in (".in", ".json"))
    with open(given, "w") as f:
        json.dump(m, f)
    subprocess.run([os.path.join(BUILD, "vecbsp"), "probe", "--refit", given, "-o", out], env=WS.env, check=True,
                   capture_output=True)
    with open(out) as f:
        return out, json.load(f)["calibration_r2"]


def line(label, rows, model):
    s = summary(rows, model)
    on_steady = (f"{100 * s['steady_median']:5.1f}% {100 * s['steady_largest']:5.1f}%"
                 if s["steady_median"] is not None else "  -")
    return (f"  {label:6} median {100 * s['median']:5.1f}%  largest {100 * s['largest']:5.1f}%  over 25% "
            f"{s['over25']:2}  steady: {on_steady}  ranking {s['right']}/{s['pairs']}")


with open(VALIDATION) as f:
    configs = json.load(f)
for cfg in configs:
    if cfg.get("ranks"):
        continue
    (curve, curve_r2), (ramp, ramp_r2) = refitted(cfg["machine"], True), refitted(cfg["machine"], False)
    rows, moved = [r for r in cfg["rows"] if not r["example"] and "exact" in r], 0
    for r in rows:
        for model, machine in (("curve", curve), ("ramp", ramp)):
            r[model] = json.loads(vecbsp("cost", *args(r, machine, cfg["p"])))["seconds"]
            r[model + "_error"] = (r[model] - r["measured"]) / r["measured"]
        moved += plan_of(r, curve, cfg["p"]) != plan_of(r, ramp, cfg["p"])
    print(f"{cfg['label']}: {len(rows)} corpus rows, {sum(not r['unsteady'] for r in rows)} steady, "
          f"{moved} planned differently; the probe's fit r^2 {curve_r2:.4f} with curves, {ramp_r2:.4f} without")
    print(line("curve", rows, "curve"))
    print(line("ramp", rows, "ramp"))
    rows.sort(key=lambda r: -abs(r["curve_error"] - r["ramp_error"]))
    for r in rows[:5]:
        print(f"    {r['name']} {r['defs']}: curve {100 * r['curve_error']:+.1f}%, ramp {100 * r['ramp_error']:+.1f}%"
              f"{'' if not r['unsteady'] else ' (not steady)'}")
