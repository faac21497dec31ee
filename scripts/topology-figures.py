#!/usr/bin/env python3
"""topology-figures.py [BUILD_DIR]: Rangaswami's experiments (thesis,
section 7.4) planned by vecbsp on the thesis's machine, a hypercube of 16
transputers (examples/meiko-hypercube.json): for each program and size, the
predicted seconds of the plan chosen at p = 1, 2, 4, 8, 16 and of its
alternatives, written to docs/figures/topology-*.csv and drawn with gnuplot
(.svg); then whether each of the thesis's conclusions holds, printed
(docs/topology.md, "The thesis's experiments", quotes them). With --check
nothing is written: the conclusions are only checked (exit status 1 if one
does not hold)."""
import json
import os
import shutil
import subprocess
import sys

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
    return "holds" if ok else "DOES NOT HOLD"


results = []


def conclude(what, ok, detail):
    results.append(ok)
    print(f"{what}: {verdict(ok)} ({detail})")


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

print(f"{sum(results)} of {len(results)} conclusions hold")
sys.exit(0 if all(results) else 1)
