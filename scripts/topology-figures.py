#!/usr/bin/env python3
"""topology-figures.py [BUILD_DIR]: Rangaswami's experiments (thesis,
section 7.4) planned by vecbsp on the thesis's machine, a hypercube of 16
transputers (examples/meiko-hypercube.json): for each program and size, the
predicted seconds of the plan chosen at p = 1, 2, 4, 8, 16 and of its
alternatives, written to docs/figures/topology-*.csv and drawn with gnuplot
(.svg); then whether each of the thesis's conclusions holds, printed
(docs/topology.md, "The thesis's experiments", quotes them). With --check
nothing is written: the outcomes are only checked against the page (exit
status 1 if one differs from what it says)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARGS = [a for a in sys.argv[1:] if a != "--check"]
CHECK = "--check" in sys.argv
BUILD = ARGS[0] if ARGS else os.path.join(ROOT, "build")
VECBSP = os.path.join(BUILD, "vecbsp")
MACHINE = os.path.join(ROOT, "examples", "meiko-hypercube.json")
OUT = os.path.join(ROOT, "docs", "figures")
PROCESSORS = [1, 2, 4, 8, 16]
# The thesis's data starts on processor 0 and its results may stay distributed.
THESIS_PLAN = "best,inputs=root,result=block"


def plan(program, params, p, spec=THESIS_PLAN):
    args = [VECBSP, "plan", os.path.join(ROOT, "examples", program), "--machine", MACHINE, "--plan", spec,
            "-p", str(p), "--json"]
    for name, value in params.items():
        args += ["-D", f"{name}={value}"]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"topology-figures.py: {' '.join(args)} failed:\n{r.stderr}")
    return json.loads(r.stdout)


def alternative(report, region, implementation):
    """The search's estimate of the program with this implementation of a region."""
    for alt in report["regions"][region]["alternatives"]:
        if alt["implementation"] == implementation and not alt["lanes"]:
            return alt["seconds"]
    sys.exit(f"topology-figures.py: no alternative '{implementation}' in region {region}")


def curves(program, params, series):
    """{label: [seconds at each p]} and the chosen implementations at each p."""
    table = {label: [] for label, _ in series}
    chosen = []
    for p in PROCESSORS:
        report = plan(program, params, p)
        chosen.append([r["chosen"] for r in report["regions"]])
        for label, pick in series:
            table[label].append(pick(report))
    return table, chosen


def write_figure(name, title, table):
    csv = os.path.join(OUT, f"{name}.csv")
    with open(csv, "w") as f:
        labels = list(table)
        f.write("p," + ",".join(labels) + "\n")
        for i, p in enumerate(PROCESSORS):
            f.write(f"{p}," + ",".join(f"{table[label][i]:.9g}" for label in labels) + "\n")
    plots = ", ".join(f"'{csv}' using 1:(${k + 2}*1000) with linespoints title '{label}'"
                      for k, label in enumerate(table))
    script = f"""set terminal svg size 640,420 dynamic font 'sans,11'
set output '{os.path.join(OUT, name + ".svg")}'
set datafile separator ','
set title "{title}"
set xlabel 'processors (hypercube)'
set ylabel 'predicted ms'
set logscale x 2
set xtics (1, 2, 4, 8, 16)
set key center right
plot {plots}
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def optimum(values):
    return PROCESSORS[min(range(len(values)), key=lambda i: values[i])]


def verdict(ok):
    return "holds" if ok else "does not hold"


results = []


def conclude(what, ok, detail, expected=True):
    """A conclusion of the thesis, and whether it holds here as docs/topology.md
    says it does (expected): --check fails when one changes."""
    results.append(ok == expected)
    print(f"{what}: {verdict(ok)} ({detail}){'' if ok == expected else ' -- docs/topology.md says otherwise'}")


# Matrix multiplication (thesis 7.4.1): the best implementation is a
# parallel cross product then a parallel map, for p = 2, 4, 8, 16.
MATMUL = [("parallel c_prod and map (chosen)", lambda r: r["seconds"]),
          ("the same, result gathered", lambda r: alternative(r, 0, "parallel, result on process 0")),
          ("sequential", lambda r: alternative(r, 0, "sequential, on process 0"))]
for name, params in [("topology-matmul-32", dict(m=32, n=32, k=32)), ("topology-matmul-64x32x16", dict(m=64, n=32, k=16))]:
    table, chosen = curves("matmul.vec", params, MATMUL)
    size = f"{params['m']} x {params['n']} by {params['n']} x {params['k']}"
    if not CHECK:
        write_figure(name, f"Matrix multiplication, {size}", table)
    parallel = all(c[0] == "parallel, result left distributed" for c in chosen[1:])
    conclude(f"matrix multiplication {size}: parallel cross product then parallel map at p = 2..16", parallel,
             f"chosen at p = 2..16: {sorted(set(c[0] for c in chosen[1:]))}; best p = {optimum(table[MATMUL[0][0]])}")

# The topologies (thesis, section 6.3): the hypercube the most efficient,
# the torus next, the tree and the linear array inefficient. Matrix
# multiplication 32 x 32 at its best configuration of 16 processors on each
# (the tree: 15), the same K0, K1 and speed.
def on_topology(topology):
    with open(MACHINE) as f:
        machine = json.load(f)
    machine["topology"] = {**topology, **{k: machine["topology"][k] for k in ("K0", "K1", "element_bytes")}}
    tmp = tempfile.mkdtemp(prefix="topology-figures-")
    try:
        path = os.path.join(tmp, "machine.json")
        with open(path, "w") as f:
            json.dump(machine, f)
        args = [VECBSP, "plan", os.path.join(ROOT, "examples", "matmul.vec"), "-D", "m=32", "-D", "n=32", "-D", "k=32",
                "--machine", path, "--plan", THESIS_PLAN, "--json"]
        report = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    finally:
        shutil.rmtree(tmp, True)
    return report["seconds"], report["p"]


TOPOLOGIES = [("hypercube", {"kind": "hypercube", "p": 16}), ("torus", {"kind": "torus", "p1": 4, "p2": 4}),
              ("non-uniform torus", {"kind": "torus-nonuniform", "p1": 4, "p2": 4}),
              ("binary tree", {"kind": "tree", "s": 2, "d": 3}), ("linear array", {"kind": "linear", "p": 16})]
ranking = {name: on_topology(t) for name, t in TOPOLOGIES}
for name, (seconds, p) in ranking.items():
    print(f"  matrix multiplication 32 x 32 on the {name}: {seconds * 1000:.2f} ms at p = {p}")
fast = max(ranking["hypercube"][0], ranking["torus"][0], ranking["non-uniform torus"][0])
conclude("the hypercube and the torus before the tree and the linear array",
         ranking["hypercube"][0] <= ranking["non-uniform torus"][0] and fast < min(ranking["binary tree"][0], ranking["linear array"][0]),
         "matrix multiplication 32 x 32, each at its fastest configuration")

# Merge sort (thesis 7.4.2): the optimum is p = 8 for n = 512 and p = 16 for
# n = 1024.
MERGESORT = [("parallel map and fold by a tree (chosen)", lambda r: r["seconds"]),
             ("fold by gather to process 0", lambda r: alternative(r, 0, "parallel, fold by gather, result on process 0")),
             ("sequential", lambda r: alternative(r, 0, "sequential, on process 0"))]
for n, thesis in [(512, 8), (1024, 16)]:
    table, chosen = curves("mergesort.vec", dict(n=n), MERGESORT)
    if not CHECK:
        write_figure(f"topology-mergesort-{n}", f"Merge sort, n = {n}", table)
    best = optimum(table[MERGESORT[0][0]])
    conclude(f"merge sort n = {n}: optimum p = {thesis}", best == thesis,
             f"optimum here p = {best}, chosen at p = 16: {chosen[-1][0]}", expected=n == 1024)


def fastest_p(n, **topology):
    """The best configuration for merge sort of n on the thesis's machine with
    some of its topology's parameters changed."""
    with open(MACHINE) as f:
        machine = json.load(f)
    machine["topology"].update(topology)
    tmp = tempfile.mkdtemp(prefix="topology-figures-")
    try:
        path = os.path.join(tmp, "machine.json")
        with open(path, "w") as f:
            json.dump(machine, f)
        args = [VECBSP, "plan", os.path.join(ROOT, "examples", "mergesort.vec"), "-D", f"n={n}", "--machine", path,
                "--plan", THESIS_PLAN, "--json"]
        return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)["p"]
    finally:
        shutil.rmtree(tmp, True)


def boundary(n, key, low, high):
    """Where merge sort of n stops being fastest at the p it is at `low` as the
    topology's `key` grows to `high` (bisected to 0.1%)."""
    p = fastest_p(n, **{key: low})
    while high / low > 1.001:
        middle = (low * high) ** 0.5
        low, high = (middle, high) if fastest_p(n, **{key: middle}) == p else (low, middle)
    return (low * high) ** 0.5


def sweep_figure(name, key, values, xlabel, bounds):
    """The fastest configuration at n = 512 and 1024 against one parameter,
    and the range of it where the thesis's two optima hold together: [low,
    high], each bisected between the two samples that bracket it."""
    bands = {n: [fastest_p(n, **{key: v}) for v in values] for n in (512, 1024)}
    csv = os.path.join(OUT, f"{name}.csv")
    with open(csv, "w") as f:
        f.write(f"{key},n = 512,n = 1024\n")
        for i, v in enumerate(values):
            f.write(f"{v},{bands[512][i]},{bands[1024][i]}\n")
    low = boundary(512, key, *bounds[0])   # n = 512 falls from 16 to 8
    high = boundary(1024, key, *bounds[1])  # n = 1024 falls from 16 to 8
    print(f"merge sort: the thesis's optima (8 at n = 512, 16 at n = 1024) hold together for {key} from "
          f"{low:.4g} to {high:.4g}")
    subprocess.run(["gnuplot"], text=True, check=True, input=f"""set terminal svg size 640,420 dynamic font 'sans,11'
set output '{os.path.join(OUT, name + ".svg")}'
set datafile separator ','
set title "Merge sort: the best configuration against {key}"
set xlabel '{xlabel}'
set ylabel 'processors of the fastest plan'
set logscale xy 2
set ytics (1, 2, 4, 8, 16)
set yrange [0.8:20]
set key center left
set arrow from {low},0.8 to {low},20 nohead dashtype 2
set arrow from {high},0.8 to {high},20 nohead dashtype 2
plot '{csv}' using 1:2 with steps title 'n = 512 (thesis: 8)', '' using 1:3 with steps title 'n = 1024 (thesis: 16)'
""")


# Where the thesis's two optima hold together (its formula is ours, the
# test topology.cli checks it): over K0, and over the bytes of an element at
# the thesis's K0 of 100 merge steps (section 7.2.3).
if not CHECK:
    sweep_figure("topology-mergesort-k0", "K0", [round(1e-5 * 10 ** (i / 8), 8) for i in range(0, 25)],
                 "K0 (s), at 1e6 merge steps per second, 1.7e6 bytes per second, 4-byte elements",
                 [(1e-4, 1e-3), (1e-3, 1e-2)])
    sweep_figure("topology-mergesort-bytes", "element_bytes", [round(2 ** (i / 4), 3) for i in range(0, 33)],
                 "bytes of an element, at K0 = 100 merge steps (1e-4 s) and 1.7e6 bytes per second",
                 [(4, 32), (32, 256)])

# Jacobi iteration (thesis 7.4.3), 32 x 32: the best implementation (all
# phases and the test in parallel) still gains at p = 16; the second best
# (the test on processor 0) is fastest at p = 8.
JACOBI = os.path.join(ROOT, "examples", "jacobi.vec")


def test_on_process_0():
    """jacobi.vec with its test under a data if, which makes it sequential:
    the thesis's second best once every other region is forced parallel (the
    grid gathered for the test every iteration). Its path, in a temporary
    directory the caller removes."""
    with open(JACOBI) as f:
        text = f.read()
    written = "in (v, test v u)"
    if written not in text:
        sys.exit(f"topology-figures.py: {JACOBI} no longer says '{written}'")
    tmp = tempfile.mkdtemp(prefix="topology-figures-")
    path = os.path.join(tmp, "jacobi-test-sequential.vec")
    with open(path, "w") as f:
        f.write(text.replace(written, "in (v, if true then test v u else 0.0)"))
    return path


def by_name(report, stages):
    return next(g for g in report["regions"] if g["stages"] == stages)


second_best = test_on_process_0()
try:
    params = dict(n=32, k=10)
    table = {"best plan (chosen)": [], "second best: the test sequential, the rest parallel": [], "sequential": []}
    kept_apart = []
    for p in PROCESSORS:
        report = plan("jacobi.vec", params, p)
        table["best plan (chosen)"].append(report["seconds"])
        table["second best: the test sequential, the rest parallel"].append(
            plan(second_best, params, p, THESIS_PLAN + ",regions=parallel")["seconds"])
        table["sequential"].append(plan("jacobi.vec", params, p, THESIS_PLAN + ",regions=sequential")["seconds"])
        if p > 1:  # the grid by blocks across the iterations, the test folded in parallel
            kept_apart.append(report["iterations"][0]["state"][0] == "block"
                              and by_name(report, "neighbours")["chosen"] == "parallel, result left distributed"
                              and by_name(report, "pair_map, map, fold")["chosen"].startswith("parallel, fold"))
finally:
    shutil.rmtree(os.path.dirname(second_best), True)
if not CHECK:
    write_figure("topology-jacobi-32", "Jacobi iteration, 32 x 32, 10 iterations", table)
for label, values in table.items():
    print(f"  Jacobi 32 x 32, {label}: " + ", ".join(f"{v * 1000:.1f}" for v in values) + " ms at p = 1, 2, 4, 8, 16")
best, second = optimum(table["best plan (chosen)"]), optimum(table["second best: the test sequential, the rest parallel"])
conclude("Jacobi 32 x 32: the best keeps the grid by blocks across the iterations, the test folded in parallel, p = 2..16",
         all(kept_apart), f"at p = 2..16: {kept_apart}")
conclude("Jacobi 32 x 32: the best implementation gains up to p = 16", best == 16, f"optimum here p = {best}", expected=False)
conclude("Jacobi 32 x 32: the second best's optimum p = 8", second == 8, f"optimum here p = {second}", expected=False)

print(f"{sum(results)} of {len(results)} outcomes as docs/topology.md states them")
sys.exit(0 if all(results) else 1)
