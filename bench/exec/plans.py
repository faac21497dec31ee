#!/usr/bin/env python3
"""plans.py [BUILD] [--rounds R] [--repeat K] [--procs 1,2,4] [--machine M] [--backend B]

For every example at p = 1, 2 and 4: the plan the planner chooses against
the papers' template, and every distinct alternative forced one setting at
a time (fold, prefix, regions, inputs, lanes), measured interleaved: every
round runs each distinct plan once, in turn (K timed repetitions each, the
program's median). Reports, per example and p:
  - each plan's minimum and median over the rounds and its spread
    ((max - min) / min of the rounds), beside its predicted seconds;
  - best against paper: the ratio of their medians, and whether best was
    measured slower than paper by more than the larger spread of the two;
  - every pair of plans whose medians differ by more than 20%: whether the
    model ranks them the same way.
Before each round bspprobe --steadiness checks the cores kept their speed;
rounds in a slow spell are counted in the heading. Plans are told apart by their generated C: settings that change nothing
are measured once.
"""
import hashlib
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

SETTINGS = ["fold=gather", "fold=tree", "fold=allreduce", "prefix=store", "prefix=recompute",
            "regions=sequential", "regions=parallel", "inputs=root", "inputs=all", "inputs=block", "lanes=1", "lanes=4"]
EXAMPLES = [("mss1.vec", ["n=1000"]), ("mss2.vec", ["n=800"]), ("mss3.vec", ["n=800"]), ("mss4.vec", ["n=10000"]),
            ("mss5.vec", ["n=10000000"]), ("matvec1.vec", ["m=3000", "n=3000"]), ("matvec2.vec", ["m=3000", "n=3000"])]


def args():
    a = {"build": os.path.join(ROOT, "build"), "rounds": 5, "repeat": 7, "procs": [1, 2, 4], "machine": "local",
         "backend": "threads"}
    rest = sys.argv[1:]
    while rest:
        x = rest.pop(0)
        if x in ("--rounds", "--repeat"):
            a[x[2:]] = int(rest.pop(0))
        elif x == "--procs":
            a["procs"] = [int(p) for p in rest.pop(0).split(",")]
        elif x in ("--machine", "--backend"):
            a[x[2:]] = rest.pop(0)
        elif x.startswith("-"):
            if x not in ("-h", "--help"):
                sys.exit(f"plans.py: unknown option {x}\n{__doc__}")
            print(__doc__)
            sys.exit(0)
        else:
            a["build"] = os.path.abspath(x)
    return a


sys.path.insert(0, os.path.join(ROOT, "scripts"))
from measuring import Workspace, spread, steady  # noqa: E402

A = args()
VECBSP = os.path.join(A["build"], "vecbsp")
WS = Workspace(A["build"], "vecbsp-plans.")


def vecbsp(*argv):
    return WS.run([VECBSP] + list(argv))


def common(program, defs, p, plan):
    out = [program, "-p", str(p), "--machine", A["machine"], "--plan", plan]
    for d in defs:
        out += ["-D", d]
    return out


def distinct_plans(program, defs, p):
    """The plans to measure: best, paper and each setting, one per distinct C text."""
    seen, plans = {}, []
    for plan in ["best", "paper"] + ["best," + s for s in SETTINGS]:
        text = vecbsp("compile", *common(program, defs, p, plan))
        key = hashlib.sha256(text.encode()).hexdigest()
        if key not in seen:
            seen[key] = plan
            plans.append(plan)
    return plans


def predicted(program, defs, p, plan):
    return json.loads(vecbsp("cost", "--json", *common(program, defs, p, plan)))["seconds"]


def measured(program, defs, p, plan):
    out = vecbsp("run", "--random", "1", "--backend", A["backend"], "--repeat", str(A["repeat"]), "--json",
                 *common(program, defs, p, plan))
    return json.loads(out)["seconds_median"]


def study(name, defs, p):
    program = os.path.join(ROOT, "examples", name)
    plans = distinct_plans(program, defs, p)
    times = {plan: [] for plan in plans}
    unsteady = 0
    for _ in range(A["rounds"]):
        unsteady += not steady(WS.slow_share(A["backend"]))
        for plan in plans:
            times[plan].append(measured(program, defs, p, plan))
    pred = {plan: predicted(program, defs, p, plan) for plan in plans}
    med = {plan: statistics.median(ts) for plan, ts in times.items()}
    print("\n%s %s p=%d (%d rounds of %d runs, %s%s)" % (name, " ".join(defs), p, A["rounds"], A["repeat"], A["backend"],
                                                     ", %d rounds NOT STEADY" % unsteady if unsteady else ""))
    print("  %-28s %11s %11s %7s %11s" % ("plan", "min s", "median s", "spread", "predicted"))
    for plan in plans:
        print("  %-28s %11.6f %11.6f %6.0f%% %11.6f" % (plan, min(times[plan]), med[plan], 100 * spread(times[plan]),
                                                       pred[plan]))
    if "paper" in med:
        noise = max(spread(times["best"]), spread(times["paper"]))
        slower = med["best"] > med["paper"] * (1 + noise)
        print("  best / paper: %.2f (medians); spread %.0f%%: %s" % (
            med["best"] / med["paper"], 100 * noise, "SLOWER than the template" if slower else "not slower"))
    pairs = right = 0
    for i, a in enumerate(plans):
        for b in plans[i + 1:]:
            lo, hi = sorted((med[a], med[b]))
            if hi > 1.2 * lo:
                pairs += 1
                ok = (pred[a] < pred[b]) == (med[a] < med[b])
                right += ok
                if not ok:
                    print("  ranked wrong: %s %.6f s (predicted %.6f), %s %.6f s (predicted %.6f)" % (
                        a, med[a], pred[a], b, med[b], pred[b]))
    print("  pairs measured more than 20%% apart: %d, ranked right by the model: %d" % (pairs, right))
    return pairs, right


def main():
    total = right = 0
    for name, defs in EXAMPLES:
        for p in A["procs"]:
            n, r = study(name, defs, p)
            total, right = total + n, right + r
    print("\nall: %d pairs measured more than 20%% apart, %d ranked right" % (total, right))


if __name__ == "__main__":
    main()
