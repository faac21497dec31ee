#!/usr/bin/env python3
"""speedup.py [BUILD] [--rounds R] [--repeat K] [--backends threads,mpi] [--quick]

The speed-up of the generated programs from p = 1 to p = 2, beside the same
algorithms written by hand (BSPlib) and with OpenMP: mss (5) at n = 1e7 and
2e7, a sum and a dot product at n = 1e7, matvec (1) and (2) at 3000 x 3000.

Measured interleaved: every round runs each configuration once, in turn,
each run timing K repetitions and keeping their median (the programs' own
clocks, input loading excluded). For each configuration: the minimum and the
median over the rounds, and the spread of the rounds, (max - min) / min.
Speed-ups are ratios of minima and of medians taken in the same rounds.
Before each round bspprobe --steadiness measures whether the cores kept
their speed; rounds in a slow spell are marked and reported.
"""
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def args():
    a = {"build": os.path.join(ROOT, "build"), "rounds": 7, "repeat": 5, "backends": ["threads"], "quick": False}
    rest = sys.argv[1:]
    while rest:
        x = rest.pop(0)
        if x == "--rounds":
            a["rounds"] = int(rest.pop(0))
        elif x == "--repeat":
            a["repeat"] = int(rest.pop(0))
        elif x == "--backends":
            a["backends"] = rest.pop(0).split(",")
        elif x == "--quick":
            a["quick"] = True
        elif x in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        elif x.startswith("-"):
            sys.exit(f"speedup.py: unknown option {x}\n{__doc__}")
        else:
            a["build"] = os.path.abspath(x)
    return a


sys.path.insert(0, os.path.join(ROOT, "scripts"))
from measuring import Workspace, spread, steady  # noqa: E402

A = args()
BUILD = A["build"]
VECBSP = os.path.join(BUILD, "vecbsp")
WS = Workspace(BUILD, "vecbsp-speedup.")
WORK = WS.dir
sh = WS.run


def build_hand():
    for prog in ("matvec_bsp", "mss_bsp"):
        sh([os.path.join(BUILD, "bspcc"), "-O2", os.path.join(HERE, prog + ".c"), "-o", os.path.join(WORK, prog)])
    sh(["cc", "-O2", "-fopenmp", os.path.join(HERE, "mss_omp.c"), "-o", os.path.join(WORK, "mss_omp")])


def vecbsp(program, defs, p, backend):
    """A run of the generated program: the median of its repetitions, in seconds."""
    def run():
        cmd = [VECBSP, "run", program, "--random", "1", "-p", str(p), "--backend", backend, "--repeat", str(A["repeat"]),
               "--json"]
        for d in defs:
            cmd += ["-D", d]
        return json.loads(sh(cmd))["seconds_median"]
    return run


def hand(prog, p, *argv):
    def run():
        out = sh([os.path.join(BUILD, "bsprun"), "-n", str(p), os.path.join(WORK, prog)] + [str(x) for x in argv] +
                 [str(A["repeat"])])
        return float(out.split()[1])
    return run


def omp(n, threads):
    def run():
        return float(sh([os.path.join(WORK, "mss_omp"), str(n), "1", str(A["repeat"]), str(threads)]).split()[1])
    return run


def benchmarks():
    ex = lambda f: os.path.join(ROOT, "examples", f)
    pr = lambda f: os.path.join(HERE, "programs", f)
    sizes = [10000000] if A["quick"] else [10000000, 20000000]
    for backend in A["backends"]:
        for n in sizes:
            rows = [("vecbsp p=1", vecbsp(ex("mss5.vec"), ["n=%d" % n], 1, backend)),
                    ("vecbsp p=2", vecbsp(ex("mss5.vec"), ["n=%d" % n], 2, backend))]
            if backend == "threads":
                rows += [("hand p=1", hand("mss_bsp", 1, n, 1)), ("hand p=2", hand("mss_bsp", 2, n, 1)),
                         ("omp 1", omp(n, 1)), ("omp 2", omp(n, 2))]
            yield "mss5 n=%d %s" % (n, backend), rows
        for name in ("sum", "dot"):
            yield "%s n=10000000 %s" % (name, backend), [
                ("vecbsp p=%d" % p, vecbsp(pr(name + ".vec"), ["n=10000000"], p, backend)) for p in (1, 2)]
        for k in (1, 2):
            rows = [("vecbsp p=%d" % p, vecbsp(ex("matvec%d.vec" % k), ["m=3000", "n=3000"], p, backend)) for p in (1, 2)]
            if backend == "threads":
                rows += [("hand p=%d" % p, hand("matvec_bsp", p, k, 3000, 3000, 1)) for p in (1, 2)]
            yield "matvec%d 3000x3000 %s" % (k, backend), rows


def measure(rows):
    """Every configuration once per round, in turn; the rounds' medians."""
    times = {name: [] for name, _ in rows}
    unsteady = 0
    for _ in range(A["rounds"]):
        unsteady += not steady(WS.slow_share())
        for name, run in rows:
            times[name].append(run())
    return times, unsteady


def report(title, times, unsteady):
    print("\n%s (%d rounds%s)" % (title, A["rounds"], ", %d not steady" % unsteady if unsteady else ""))
    print("  %-12s %12s %12s %8s" % ("", "min s", "median s", "spread"))
    for name, ts in times.items():
        print("  %-12s %12.6f %12.6f %7.0f%%" % (name, min(ts), statistics.median(ts), 100 * spread(ts)))
    for a, b in (("vecbsp p=1", "vecbsp p=2"), ("hand p=1", "hand p=2"), ("omp 1", "omp 2"), ("vecbsp p=2", "omp 2")):
        if a in times and b in times:
            print("  %s / %s: %.2f (minima), %.2f (medians)" % (a, b, min(times[a]) / min(times[b]),
                                                           statistics.median(times[a]) / statistics.median(times[b])))


def main():
    build_hand()
    for title, rows in benchmarks():
        times, unsteady = measure(rows)
        report(title, times, unsteady)


if __name__ == "__main__":
    main()
