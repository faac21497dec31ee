#!/usr/bin/env python3
"""run.py: a reduction and a prefix at n = 1e7 ints, measured flat (threads,
MPI) against hybrid (MPI ranks of threads), beside the exact model's
predictions (docs/hierarchical.md, "The hybrid backend").

usage: bench/hybrid/run.py [BUILD] [--rounds R] [--repeat K] [--n N] [--levels FILE.json]...

Every round runs each configuration once, in turn (A B A B), K timed
repetitions each (the program's median); reported per program and
configuration: the minimum and median of the rounds, their spread
((max - min) / min), the exact model's prediction for the plan the run ran
on the machine it was planned for (`local`, or the levels file: the sum of
`run --profile`'s predicted supersteps, from one profiled run apart) and, with --levels (a file of `vecbsp probe --levels`; several may be
given), on that machine where p is its workers' number: the planner's
best plan there (by levels where it chooses so) and the best flat one
(`levels=flat`); hybrid runs with a levels file whose workers match run
its best plan too (a second row, "lv"), whose choices are printed.
A sequential run (threads, p = 1) is the baseline no parallel one should
lose to.
"""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from measuring import Workspace, spread  # noqa: E402

PROGRAMS = {
    "fold": "param n\ninput x : [n]int\nmain = fold (+) x\n",
    "prefix": "param n\ninput x : [n]int\nmain = prefix (+) x\n",
}
# (label, backend, p, MPI ranks)
CONFIGS = [("sequential p=1", "threads", 1, None), ("threads p=2", "threads", 2, None), ("mpi p=2", "mpi", 2, None),
           ("hybrid 2x1", "hybrid", 2, 2), ("hybrid 1x2", "hybrid", 2, 1), ("hybrid 2x2", "hybrid", 4, 2)]


def args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"), type=os.path.abspath)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--n", type=int, default=10000000)
    parser.add_argument("--levels", action="append", default=[], type=os.path.abspath,
                        help="a machine file of vecbsp probe --levels (repeatable)")
    return vars(parser.parse_args())


A = args()
VECBSP = os.path.join(A["build"], "vecbsp")
WS = Workspace(A["build"], "vecbsp-hybrid.")


def program(name):
    path = os.path.join(WS.dir, name + ".vec")
    with open(path, "w") as f:
        f.write(PROGRAMS[name])
    return path


BEST = "best"


def workers(machine):
    with open(machine) as f:
        m = json.load(f)
    count, level = 1, m["levels"]
    while "children" in level:
        count *= level.get("p", 1)
        level = level["children"]
    return count


def configs():
    """CONFIGS, and each hybrid one again by levels on each machine file of its p."""
    out = [c + ("local", "best") for c in CONFIGS]
    for label, backend, p, nodes in CONFIGS:
        for machine in A["levels"]:
            if backend == "hybrid" and workers(machine) == p and nodes > 1:
                out.append((label + " lv", backend, p, nodes, machine, BEST))
    return out


def measured(prog, name, backend, p, nodes, machine, plan):
    cmd = [VECBSP, "run", prog, "-D", "n=%d" % A["n"], "--random", "1", "--machine", machine, "--plan", plan,
           "--backend", backend, "-p", str(p), "--repeat", str(A["repeat"]), "--json"]
    if nodes:
        cmd += ["--nodes", str(nodes)]
    if name == "prefix":  # the result into a file, not onto the terminal
        cmd += ["-o", os.path.join(WS.dir, "result.npy")]
    return json.loads(WS.run(cmd))["seconds_median"]


def run_prediction(prog, name, backend, p, nodes, machine, plan):
    """The predicted seconds of the plan a run runs, from a profiled run."""
    cmd = [VECBSP, "run", prog, "-D", "n=%d" % A["n"], "--random", "1", "--machine", machine, "--plan", plan,
           "--backend", backend, "-p", str(p), "--profile", "--json"]
    if nodes:
        cmd += ["--nodes", str(nodes)]
    if name == "prefix":
        cmd += ["-o", os.path.join(WS.dir, "result.npy")]
    return sum(step["predicted_seconds"] for step in json.loads(WS.run(cmd))["supersteps"])


def predicted(prog, p, machine, plan="best"):
    """The exact model's seconds; "-" where the machine is for another p."""
    if machine != "local" and workers(machine) != p:
        return "-"
    cmd = [VECBSP, "cost", "--json", prog, "-D", "n=%d" % A["n"], "--machine", machine, "-p", str(p), "--plan", plan]
    return "%.5f" % json.loads(WS.run(cmd))["seconds"]


def main():
    runs = configs()
    for name in PROGRAMS:
        prog = program(name)
        times = {c[0]: [] for c in runs}
        for _ in range(A["rounds"]):
            for label, backend, p, nodes, machine, plan in runs:
                times[label].append(measured(prog, name, backend, p, nodes, machine, plan))
        print("\n%s at n = %d (%d rounds of %d runs, interleaved)" % (PROGRAMS[name].splitlines()[-1], A["n"],
                                                                     A["rounds"], A["repeat"]))
        head = "  %-18s %10s %10s %7s %11s" % ("configuration", "min s", "median s", "spread", "its plan")
        for machine in A["levels"]:
            tag = os.path.splitext(os.path.basename(machine))[0]
            head += " %16s %16s" % (tag + " best", tag + " flat")
        print(head)
        for machine in A["levels"]:
            plan = WS.run([VECBSP, "plan", prog, "-D", "n=%d" % A["n"], "--machine", machine, "-p", str(workers(machine))])
            chosen = [line.split("chosen: ")[1] for line in plan.splitlines() if "chosen: " in line]
            print("  %s chooses: %s" % (os.path.basename(machine), "; ".join(chosen)))
        for label, backend, p, nodes, machine, plan in runs:
            ts = times[label]
            line = "  %-18s %10.5f %10.5f %6.0f%% %11.5f" % (label, min(ts), statistics.median(ts), 100 * spread(ts),
                                                            run_prediction(prog, name, backend, p, nodes, machine, plan))
            for m in A["levels"]:
                line += " %16s %16s" % (predicted(prog, p, m, BEST), predicted(prog, p, m, "best,levels=flat"))
            print(line)


main()
