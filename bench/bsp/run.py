#!/usr/bin/env python3
"""run.py: runs the BSPlib benchmark on both backends and prints ours against the baselines, for one build or two.

usage: bench/bsp/run.py [-p P]... [--runs N] BUILD [OTHER_BUILD]

Each run starts the benchmark of every build and backend in turn (A B A B),
so that two builds (say main's and a branch's) meet the same machine.
Inside a run the benchmark takes its samples round-robin over ours and the
baselines; a ratio is taken per round (paired) and its median and range are
printed, beside the minimum and median of each measure over all rounds of
all runs. Before all that, each run times its first supersteps one by one
(a word sent in each): each superstep's median over the runs shows how
soon the runtime reaches its pace.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

# (ours, baseline) rows per backend; g1 is one-word puts less the empty sync, per word.
ROWS = {
    "threads": [("bsp_sync", "spin_barrier"), ("bsp_put", "memcpy"), ("bsp_put", "two_copies"),
                ("bsp_hpput", "memcpy"), ("bsp_hpput", "cross_copy"), ("g1", None), ("lopsided", "lopsided_work")],
    "mpi": [("bsp_sync", "MPI_Barrier"), ("bsp_sync", "MPI_Allreduce_96B"), ("bsp_put", "memcpy"),
            ("bsp_put", "MPI_Sendrecv"), ("bsp_hpput", "MPI_Sendrecv"), ("g1", None), ("lopsided", "lopsided_work")],
}
ONE_WORD_H = 256  # bench.c's puts per superstep
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def run_bench(build, backend, p):
    """The samples of each measure, by name, the unit of each, and the times of the first supersteps."""
    binary = os.path.join(build, "bspbench" + ("-mpi" if backend == "mpi" else ""))
    if not os.access(binary, os.X_OK):
        return None, None, None
    cmd = [os.path.join(build, "bsprun"), "--backend=" + backend, "-n", str(p), binary]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env={**os.environ, **MPI_ENV}).stdout
    data = json.loads(out[out.index("{"):])
    return ({m["name"]: m["seconds"] for m in data["measures"]},
            {m["name"]: m["unit"] for m in data["measures"]}, data.get("first_steps"))  # not in older builds


def first_steps_line(runs):
    """The first supersteps of each run (lists of seconds): each step's median over the runs, against the
    median of the second half's, where the runtime has long settled."""
    steps = [statistics.median(times) for times in zip(*runs)]
    settled = statistics.median(steps[len(steps) // 2:])
    slowest = max(range(1, len(steps)), key=lambda k: steps[k])
    return (f"  first {len(steps)} supersteps (a word each, median of {len(runs)} runs): from the second on "
            f"{settled * 1e6:.2f} us settled, the slowest {steps[slowest] * 1e6:.2f} us (superstep {slowest + 1}, "
            f"{steps[slowest] / settled:.1f} times); the first {steps[0] * 1e6:.2f} us")


def fmt_measure(name, values, unit):
    """Nanoseconds a word, microseconds a sync or superstep."""
    k, shown = (1e9, "ns") if unit == "word" else (1e6, "us")
    return f"{name:<18} {min(values) * k:8.3f} {statistics.median(values) * k:8.3f} {shown}"


def one_word_g(rounds):
    """Seconds per word of one-word puts: their superstep less the empty sync (min, median)."""
    words, sync = rounds["one_word_puts"], rounds["bsp_sync"]
    return ((min(words) - min(sync)) / ONE_WORD_H,
            (statistics.median(words) - statistics.median(sync)) / ONE_WORD_H)


def print_table(title, rounds, units, backend):
    print(title)
    print(f"  {'ours':<18} {'min':>8} {'median':>8}    | {'baseline':<18} {'min':>8} {'median':>8}    "
          f"| ratio: median of paired (range)")
    for ours, base in ROWS[backend]:
        if ours == "g1":
            low, mid = one_word_g(rounds)
            print(f"  {'one-word put g':<18} {low * 1e9:8.3f} {mid * 1e9:8.3f} ns (a word: that superstep less an empty sync)")
            continue
        if ours not in rounds or (base and base not in rounds):
            continue
        line = "  " + fmt_measure(ours, rounds[ours], units[ours])
        if base:
            paired = [a / b for a, b in zip(rounds[ours], rounds[base]) if b > 0]
            line += " | " + fmt_measure(base, rounds[base], units[base])
            line += f" | {statistics.median(paired):5.2f} ({min(paired):.2f}-{max(paired):.2f})"
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs="+", metavar="BUILD")
    ap.add_argument("-p", type=int, action="append", help="processes (repeatable; default 2)")
    ap.add_argument("--runs", type=int, default=3, help="runs per build and backend (default 3)")
    args = ap.parse_args()
    if len(args.builds) > 2:
        ap.error("one build, or two to compare")
    procs = args.p or [2]
    pooled, units, first_steps = {}, {}, {}  # (build, backend, p) -> measure -> samples; measure -> unit; -> runs' first steps
    for _ in range(args.runs):
        for p in procs:
            for backend in ("threads", "mpi"):
                for build in args.builds:
                    rounds, unit, steps = run_bench(build, backend, p)
                    units.update(unit or {})
                    if steps:
                        first_steps.setdefault((build, backend, p), []).append(steps)
                    for name, values in (rounds or {}).items():
                        pooled.setdefault((build, backend, p), {}).setdefault(name, []).extend(values)
    for (build, backend, p), rounds in pooled.items():
        n = len(rounds["bsp_sync"])
        print_table(f"{backend} p={p} {build} ({n} rounds in {args.runs} runs)", rounds, units, backend)
        if (build, backend, p) in first_steps:
            print(first_steps_line(first_steps[(build, backend, p)]))
    if len(args.builds) == 2:
        first, second = args.builds
        print(f"\n{second} against {first}: ratio of medians (of minima)")
        for backend in ("threads", "mpi"):
            for p in procs:
                a, b = pooled.get((first, backend, p)), pooled.get((second, backend, p))
                if not a or not b:
                    continue
                cells = []
                for name in ("bsp_sync", "bsp_put", "bsp_hpput", "g1", "lopsided"):
                    if name != "g1" and (name not in a or name not in b):
                        continue
                    if name == "g1":
                        (low_a, med_a), (low_b, med_b) = one_word_g(a), one_word_g(b)
                    else:
                        low_a, med_a = min(a[name]), statistics.median(a[name])
                        low_b, med_b = min(b[name]), statistics.median(b[name])
                    cells.append(f"{name} {med_b / med_a:.2f} ({low_b / low_a:.2f})")
                print(f"  {backend} p={p}: " + ", ".join(cells))


if __name__ == "__main__":
    sys.exit(main())
