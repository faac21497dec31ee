#!/usr/bin/env python3
"""margin.py VECBSP: the planner's margin (--plan best,margin=F). A plan on
p processes is chosen only when it is predicted faster than the best
one-process plan by more than the margin (default 10%).

The machine is bare (p = 2, s = 1e9 operations a second, g = 3,
l = 196000, no calibration: a run's time is (W + g H + l S) / s), the
program the sum of squares: sequentially W = 2n - 1; in parallel, its
input by blocks, each process squares and sums its n/2 elements (n
operations), then one barrier and one word: W = n, H = 1, S = 1. At
n = 200000 the parallel plan is 1.0% faster (396003 against 399999
operations), at n = 2000000 45% faster. Those times are checked against
`vecbsp cost` of the two forced plans, and the planner's choice and report
against them."""
import json
import os
import subprocess
import sys
import tempfile

vecbsp = sys.argv[1]
failures = []
S, G, L = 1e9, 3, 196000


def vec(*args, ok=True):
    r = subprocess.run([vecbsp, *args], capture_output=True, text=True)
    if ok and r.returncode != 0:
        failures.append(f"vecbsp {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def near(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


with tempfile.TemporaryDirectory() as tmp:
    os.environ["VECBSP_CACHE"] = os.path.join(tmp, "cache")
    prog = os.path.join(tmp, "squares.vec")
    with open(prog, "w") as f:
        f.write("param n\ninput x : [n]int\nmain = fold (+) (map (\\y -> y * y) x)\n")
    machine = os.path.join(tmp, "box.json")
    with open(machine, "w") as f:
        json.dump({"name": "box", "backend": "threads", "p": 2, "s": S, "g": G, "l": L}, f)
    common = ["-p", "2", "--machine", machine]

    def cost(n, spec):
        r = vec("cost", prog, "-D", f"n={n}", *common, "--plan", spec, "--json")
        return json.loads(r.stdout)["seconds"] if r.returncode == 0 else float("nan")

    def plan(n, spec="best"):
        r = vec("plan", prog, "-D", f"n={n}", *common, "--plan", spec, "--json")
        return json.loads(r.stdout) if r.returncode == 0 else {}

    for n, gain_over_margin in ((200000, False), (2000000, True)):
        sequential, parallel = cost(n, "best,regions=sequential"), cost(n, "best,regions=parallel")
        want_seq, want_par = (2 * n - 1) / S, (n + G + L) / S
        if not near(sequential, want_seq) or not near(parallel, want_par):
            failures.append(f"n={n}: cost says {sequential} s sequential, {parallel} s parallel; "
                            f"by hand {want_seq}, {want_par}")
        if (parallel < sequential * 0.9) != gain_over_margin or parallel >= sequential:
            failures.append(f"n={n}: the parallel gain {1 - parallel / sequential:.3f} is not as the test assumes")
        chosen = plan(n)
        regions = [r["chosen"] for r in chosen.get("regions", [])]
        if gain_over_margin:
            if not near(chosen.get("seconds", 0), parallel) or not regions[0].startswith("parallel") \
                    or chosen.get("set_aside") is not None:
                failures.append(f"n={n}: a gain over the margin, yet the plan is {regions} at {chosen.get('seconds')} s "
                                f"(set aside {chosen.get('set_aside')})")
        else:
            want = {"seconds": parallel, "one_process_seconds": sequential, "margin": 0.1}
            got = chosen.get("set_aside") or {}
            if not near(chosen.get("seconds", 0), sequential) or not regions[0].startswith("sequential") \
                    or sorted(got) != sorted(want) or not all(near(got[k], want[k]) for k in want):
                failures.append(f"n={n}: a gain of 1%, under the margin, yet the plan is {regions} at "
                                f"{chosen.get('seconds')} s, set aside {got}, want {want}")
            # margin=0 is the planner without the margin; a forced parallel or
            # distributed input leaves no one-process plan, so no margin.
            for spec in ("best,margin=0", "best,regions=parallel", "best,inputs=block"):
                other = plan(n, spec)
                if not near(other.get("seconds", 0), parallel) or other.get("set_aside") is not None:
                    failures.append(f"n={n} --plan {spec}: {other.get('seconds')} s, want the parallel {parallel} s")
            # A margin of 0.5 sets the 45% gain aside too.
            if not plan(2000000, "best,margin=0.5").get("set_aside"):
                failures.append("n=2000000 --plan best,margin=0.5: the parallel plan was not set aside")
            text = vec("plan", prog, "-D", f"n={n}", *common).stdout
            if f"set aside: a plan on 2 processes, predicted {parallel:.4g} s, less than the margin (10%)" not in text:
                failures.append(f"n={n}: plan's text does not say what was set aside:\n{text}")
            # run runs the one-process plan on one process.
            run = vec("run", prog, "-D", f"n={n}", *common, "--random", "1", "--json")
            if run.returncode == 0 and json.loads(run.stdout).get("processes") != 1:
                failures.append(f"n={n}: run used {json.loads(run.stdout).get('processes')} processes, want 1")

    for bad in ("1", "-0.1", "x", "0.1x", ""):
        r = vec("plan", prog, "-D", "n=10", *common, "--plan", f"best,margin={bad}", ok=False)
        if r.returncode == 0 or not r.stderr.startswith("vecbsp: error: --plan: margin must be a fraction"):
            failures.append(f"margin={bad}: exit {r.returncode}, stderr {r.stderr.strip()!r}")

for f in failures:
    print("FAIL:", f)
print(f"margin: {len(failures)} failures")
sys.exit(1 if failures else 0)
