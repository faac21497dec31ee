#!/usr/bin/env python3
"""validate.py [BUILD] [--out FILE.md] [--configs threads:1,threads:2,mpi:1,mpi:2,hybrid:2x1,...]
               [--rounds R] [--repeat K] [--only NAME,...] [--probe-dir DIR] [--reuse-probes]

Out-of-sample validation: the programs of tests/validation/corpus and
examples/ (none of them among the probe's calibration programs, in
src/cli/calibrate.c), each at the sizes its "# sizes:" lines give, predicted
by both models for a machine probed for each configuration (backend and p),
and measured. A configuration hybrid:RxT runs the hybrid backend on R MPI
ranks of T threads, planned and predicted for the two-level machine that
`vecbsp probe --levels RxT` measures (docs/hierarchical.md); it is not
among the default configurations.

Measurement, for a machine whose speed changes from one moment to the next:
every configuration is probed and predicted first, then measured in R
rounds (default 3); each round takes every configuration in turn (the
first one rotating from round to round) and runs every program at every
size once, in turn (A B C ... A B C ...), each run the median of K
repetitions (default 5) after two untimed ones (`vecbsp run --repeat`),
just after a check of the cores' steadiness (bspprobe --steadiness, on
threads). A row's measured time is its fastest round's median (as the
probe's calibration takes its own), beside the median of the rounds and
the spread (max - min) / min of the rounds; a row whose fastest round's
check was not steady is marked.

Writes FILE.md (default docs/validation.md) with a table and a plot per
configuration (FILE's directory, figures/FILE-BACKEND-pP.svg), every
row in FILE.json, and the probed machine files in --probe-dir (default
docs/validation/; --reuse-probes takes the ones there, probing only the
configurations that have none).
The error of a prediction is (predicted - measured) / measured.
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import time

from measuring import Progress, Workspace, check_steady, spread, steady, summary

# A row's steadiness check: a fixed loop timed for this long just before it.
# Slow spells of this machine last from milliseconds to minutes; a check a
# round, before rows that take minutes, found rounds steady whose rows ran
# 1.3-1.9 times their time of another round.
CHECK_SECONDS = 0.05

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Config:
    """A configuration: a backend at p processes; for hybrid, on `ranks` MPI ranks of p / ranks threads."""

    def __init__(self, backend, p, ranks=None):
        self.backend, self.p, self.ranks = backend, p, ranks

    @property
    def label(self):
        """As in titles: "threads, p = 2", "hybrid, 2 x 1"."""
        return f"{self.backend}, {self.ranks} x {self.p // self.ranks}" if self.ranks else f"{self.backend}, p = {self.p}"

    @property
    def tag(self):
        """As in file names: "threads-p2", "hybrid-2x1"."""
        return f"{self.backend}-{self.ranks}x{self.p // self.ranks}" if self.ranks else f"{self.backend}-p{self.p}"


def parse_config(text):
    """"threads:2" or "hybrid:2x1" (ranks x threads)."""
    try:
        backend, size = text.split(":")
        if backend == "hybrid":
            ranks, threads = (int(x) for x in size.split("x"))
            return Config(backend, ranks * threads, ranks)
        if backend in ("threads", "mpi"):
            return Config(backend, int(size))
    except ValueError:
        pass
    sys.exit(f"validate.py: --configs: {text} is not BACKEND:P (threads, mpi) or hybrid:RANKSxTHREADS")


def parse_args(argv):
    a = {"build": os.path.join(ROOT, "build"), "out": os.path.join(ROOT, "docs", "validation.md"),
         "configs": [Config("threads", 1), Config("threads", 2), Config("mpi", 1), Config("mpi", 2)],
         "rounds": 3, "repeat": 5,
         "only": None, "probe_dir": os.path.join(ROOT, "docs", "validation"), "reuse_probes": False}
    rest = list(argv)
    while rest:
        x = rest.pop(0)
        if x in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        elif x in ("--rounds", "--repeat"):
            a[x[2:]] = int(rest.pop(0))
        elif x == "--configs":
            a["configs"] = [parse_config(c) for c in rest.pop(0).split(",")]
        elif x == "--reuse-probes":
            a["reuse_probes"] = True
        elif x == "--only":
            a["only"] = rest.pop(0).split(",")
        elif x in ("--out", "--probe-dir"):
            a[x[2:].replace("-", "_")] = os.path.abspath(rest.pop(0))
        elif x.startswith("-"):
            sys.exit(f"validate.py: unknown option {x}\n{__doc__}")
        else:
            a["build"] = os.path.abspath(x)
    return a


A = parse_args(sys.argv[1:])
VECBSP = os.path.join(A["build"], "vecbsp")
WS = Workspace(A["build"], "vecbsp-validate.")
PROGRESS = Progress("validate")


class Refused(Exception):
    """vecbsp refused a program (its error line)."""


def vecbsp(*argv, machine=None):
    """vecbsp's stdout; the plans of cost and run are made for machine."""
    env = dict(WS.env, VECBSP_MACHINE=machine) if machine else WS.env
    done = subprocess.run([VECBSP, *argv], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if ": error: " in line]
        if done.returncode == 1 and errors:
            raise Refused(errors[0].replace(ROOT + "/", ""))
        PROGRESS.end()
        sys.exit(f"validate.py: vecbsp {' '.join(argv)} failed:\n{done.stderr}")
    return done.stdout


# ---------------------------------------------------------------- the corpus

# The examples' sizes (the corpus programs give theirs in "# sizes:" lines):
# in the cache, and beyond it or as large as a quadratic program allows.
EXAMPLE_SIZES = {"mss1": ["n=300", "n=1000"], "mss2": ["n=300", "n=800"], "mss3": ["n=300", "n=800"],
                 "mss4": ["n=3000", "n=10000"], "mss5": ["n=400000", "n=4000000"],
                 "matvec1": ["m=500 n=500", "m=2000 n=2000"], "matvec2": ["m=500 n=500", "m=2000 n=2000"]}


def corpus():
    """(name, path, [defines...]) for every program at each of its sizes."""
    rows = []
    paths = sorted(glob.glob(os.path.join(ROOT, "tests", "validation", "corpus", "*.vec")))
    paths += [os.path.join(ROOT, "examples", name + ".vec") for name in EXAMPLE_SIZES]
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        if A["only"] and name not in A["only"]:
            continue
        if name in EXAMPLE_SIZES:
            sizes = [s.split() for s in EXAMPLE_SIZES[name]]
        else:
            with open(path) as f:
                sizes = [line.split(":", 1)[1].split() for line in f if line.startswith("# sizes:")]
        if not sizes:
            sys.exit(f"validate.py: {path} has no '# sizes:' line")
        rows += [(name, path, defs) for defs in sizes]
    return rows


def define_args(defs):
    return [x for d in defs for x in ("-D", d)]


# ---------------------------------------------------------------- machines

def probe(cfg):
    """The machine file for a configuration: probed once into --probe-dir."""
    os.makedirs(A["probe_dir"], exist_ok=True)
    path = os.path.join(A["probe_dir"], f"machine-{cfg.tag}.json")
    if A["reuse_probes"] and os.path.exists(path):
        return path
    PROGRESS.say(f"probing {cfg.label} into {os.path.relpath(path, ROOT)}")
    PROGRESS.show(f"{cfg.label}: probing")
    if cfg.ranks:
        vecbsp("probe", "--levels", f"{cfg.ranks}x{cfg.p // cfg.ranks}", "-o", path)
    else:
        vecbsp("probe", "-p", str(cfg.p), "--backend", cfg.backend, "-o", path)
    return path


# ---------------------------------------------------------------- one configuration

def predict(row, machine, p, model):
    _, path, defs = row
    out = vecbsp("cost", path, *define_args(defs), "--machine", machine, "-p", str(p), "--model", model, "--json",
                 machine=machine)
    return json.loads(out)["seconds"]


def measure_once(row, machine, cfg):
    _, path, defs = row
    nodes = ["--nodes", str(cfg.ranks)] if cfg.ranks else []
    out = vecbsp("run", path, *define_args(defs), "--random", "1", "-p", str(cfg.p), "--backend", cfg.backend,
                 *nodes, "--repeat", str(A["repeat"]), "--json", machine=machine)
    return json.loads(out)["seconds_median"]


def predicted_row(row, machine, p):
    """A row's predictions, or its refusal by the analysis."""
    res = {"name": row[0], "defs": " ".join(row[2]), "example": row[0] in EXAMPLE_SIZES, "rounds": [],
           "checks": []}
    try:
        res.update(exact=predict(row, machine, p, "exact"), paper=predict(row, machine, p, "paper"))
    except Refused as e:
        res["refused"] = str(e)
    return res


def probe_slow_share(machine):
    """The share of slow timings the probe of a machine file saw, or None if it kept none."""
    with open(machine) as f:
        steadiness = json.load(f).get("steadiness")
    return steadiness.get("slow_share") if isinstance(steadiness, dict) else None


def probe_words(share):
    """How steady a configuration's probe was, for the report."""
    if share is None:
        return "with no steadiness recorded"
    return f"{'steady' if steady(share) else 'while not steady'} ({100 * share:.0f}% of its timings slow)"


def prepare_config(all_rows, cfg):
    """A configuration probed and predicted: its machine file, the rows it runs (their results to come) and
    the rows the analysis refused."""
    clock = time.monotonic()
    machine = probe(cfg)
    seconds = {"probe": time.monotonic() - clock}
    clock = time.monotonic()
    predicted = []
    for i, r in enumerate(all_rows):
        PROGRESS.show(f"{cfg.label}: predicting", i, len(all_rows), f"{r[0]} {' '.join(r[2])}")
        predicted.append(predicted_row(r, machine, cfg.p))
    seconds["predict"] = time.monotonic() - clock
    seconds["measure"] = 0
    return {"cfg": cfg, "machine": machine, "seconds": seconds,
            "rows": [r for r, res in zip(all_rows, predicted) if "refused" not in res],
            "results": [res for res in predicted if "refused" not in res],
            "refused": [res for res in predicted if "refused" in res]}


def check_processes(cfg):
    """The processes of a configuration's steadiness checks: its p, on threads, whatever its backend (the
    cores' steadiness; a launch of mpirun takes half a second), at most one a core."""
    return min(cfg.p, os.cpu_count() or 1)


def measure_round(run, rnd):
    """One round of a configuration: each of its rows once, each just after a check of the cores'
    steadiness."""
    cfg, clock = run["cfg"], time.monotonic()
    for i, (row, res) in enumerate(zip(run["rows"], run["results"])):
        PROGRESS.show(f"{cfg.label}: measuring, round {rnd + 1} of {A['rounds']}", i, len(run["rows"]),
                      f"{row[0]} {' '.join(row[2])}")
        res["checks"].append(WS.steadiness("threads", check_processes(cfg), CHECK_SECONDS))
        res["rounds"].append(measure_once(row, run["machine"], cfg))
    slow = sum(not steady(r["checks"][-1] and r["checks"][-1]["slow_share"]) for r in run["results"])
    PROGRESS.say(f"  {cfg.label}: round {rnd + 1} of {A['rounds']} ({slow} of {len(run['results'])} checks "
                 "with over 5% of their timings slow)")
    run["seconds"]["measure"] += time.monotonic() - clock


def fastest_checks(runs):
    """The fastest loop time of every check, by the checks' processes."""
    fastest = {}
    for run in runs:
        k = check_processes(run["cfg"])
        for res in run["results"]:
            for c in res["checks"]:
                if c:
                    fastest[k] = min(fastest.get(k, c["canary_seconds"]), c["canary_seconds"])
    return fastest


def finish_config(run, fastest):
    """A configuration's report: each row's measured time, spread and errors, and whether its fastest round
    was measured while the machine was steady."""
    cfg, machine = run["cfg"], run["machine"]
    for res in run["results"]:
        res["measured"] = min(res["rounds"])
        best = res["rounds"].index(res["measured"])
        res["unsteady"] = not check_steady(res["checks"][best], fastest.get(check_processes(cfg), 0))
        res["median"] = statistics.median(res["rounds"])
        res["spread"] = spread(res["rounds"])
        for model in ("exact", "paper"):
            res[model + "_error"] = (res[model] - res["measured"]) / res["measured"]
    return {"backend": cfg.backend, "p": cfg.p, "ranks": cfg.ranks, "label": cfg.label, "tag": cfg.tag,
            "machine": machine, "probe_slow_share": probe_slow_share(machine), "rows": run["results"],
            "refused": run["refused"], "seconds": run["seconds"]}


def validate_configs(all_rows, cfgs):
    """Every configuration probed and predicted, then measured in rounds that each run every configuration
    in turn, the first one rotating, so that a slow spell of the machine (minutes long) falls on all of them
    alike: measured one after another, a configuration's rounds all fell within a few minutes."""
    runs = [prepare_config(all_rows, cfg) for cfg in cfgs]
    for rnd in range(A["rounds"]):
        for k in range(len(runs)):
            measure_round(runs[(rnd + k) % len(runs)], rnd)
    fastest = fastest_checks(runs)
    return [finish_config(run, fastest) for run in runs]


# ---------------------------------------------------------------- summaries

def percent(x):
    return f"{100 * x:+.1f}%"


def plot(cfg, svg):
    """Predicted against measured, log-log, both models, with the line of equality."""
    data = os.path.join(WS.dir, f"{cfg['tag']}.dat")
    with open(data, "w") as f:
        for r in cfg["rows"]:
            f.write(f"{r['measured']} {r['exact']} {r['paper']}\n")
    script = f"""set terminal svg size 640,480 dynamic
set output '{svg}'
set logscale xy
set format x '%.0e'; set format y '%.0e'
set xlabel 'measured (s)'; set ylabel 'predicted (s)'
set title '{cfg['label']}: {len(cfg['rows'])} runs of programs no fit has seen'
set key top left
plot '{data}' using 1:2 title 'exact' pt 7 ps 0.6, '{data}' using 1:3 title 'paper' pt 6 ps 0.6, x title 'predicted = measured' lt 0
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def report(configs, started):
    out_dir = os.path.dirname(A["out"])
    fig_dir = os.path.join(out_dir, "figures")
    os.makedirs(fig_dir, exist_ok=True)
    nprograms = len({r["name"] for r in configs[0]["rows"]})
    factor = next((c["slow_factor"] for cfg in configs for r in cfg["rows"] for c in r["checks"] if c), None)
    lines = [
        "# Validation: predicted against measured, out of sample",
        "",
        "Generated by `make validate` (`scripts/validate.py`). The programs are",
        f"the {nprograms} of `tests/validation/corpus/` and `examples/`, each at two sizes",
        "(in the cache and beyond it); none of them is among the probe's calibration",
        "programs (`src/cli/calibrate.c`, `src/cli/memory_curve.c`), so no unit",
        "was fitted to them. The examples are summarised apart: the model's design",
        "(the accumulator and reload rules) was decided on measurements of them. Each",
        "configuration's machine file is probed first (`docs/validation/`); both",
        "models predict for it, and the plans run are made for it.",
        "",
        f"Measured in {A['rounds']} rounds, interleaved: each round takes every configuration in",
        "turn (the first rotating from round to round, so that a slow spell falls on all",
        "alike) and runs every program at every",
        f"size once, in turn, each run the median of {A['repeat']} repetitions after two untimed ones. *measured* is the",
        "fastest round's median (the probe's own rule), *median* the median of the",
        "rounds, *spread* (max - min) / min of the rounds: how far the machine",
        "repeats itself, a floor for any prediction. Every run follows a check of",
        f"the cores' steadiness: a fixed loop timed for {CHECK_SECONDS} s (bspprobe --steadiness, on",
        "threads at the configuration's p, at most one a core). A row is marked * (not steady) when the",
        "check before its fastest round had over 5% of its timings slow (over",
        f"{factor} times the loop's fast time), or a fast time itself over {factor} times the",
        "fastest of all the validation's checks at that p (made wholly in a slow",
        "spell); *steady rows* are the others. error = (predicted - measured) / measured.",
        "Ranking counts the pairs of rows whose measured times differ by more than",
        "10%, and how many the model orders right.",
        "",
        "## Summary",
        "",
        "| configuration | programs | exact: median, largest, over 25% | exact, steady rows: median, largest | paper: median, largest | ranking right (exact) | ranking right (paper) | spread: median, largest | rows not steady |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for which, keep in (("corpus", False), ("examples", True)):
        for cfg in configs:
            rows = [r for r in cfg["rows"] if r["example"] == keep]
            if not rows:
                continue
            e, pa = summary(rows, "exact"), summary(rows, "paper")
            on_steady = (f"{100 * e['steady_median']:.1f}%, {100 * e['steady_largest']:.1f}%"
                         if e["steady_median"] is not None else "none")
            spreads = [r["spread"] for r in rows]
            lines.append(f"| {cfg['label']} | {which} | {100 * e['median']:.1f}%, "
                         f"{100 * e['largest']:.1f}%, {e['over25']} | {on_steady} | {100 * pa['median']:.1f}%, "
                         f"{100 * pa['largest']:.1f}% | {e['right']} of {e['pairs']} | {pa['right']} of {pa['pairs']} | "
                         f"{100 * statistics.median(spreads):.1f}%, {100 * max(spreads):.1f}% | "
                         f"{sum(r['unsteady'] for r in rows)} of {len(rows)} |")
    for cfg in configs:
        svg = os.path.join(fig_dir, f"{os.path.splitext(os.path.basename(A['out']))[0]}-{cfg['tag']}.svg")
        plot(cfg, svg)
        worst = sorted(cfg["rows"], key=lambda r: -abs(r["exact_error"]))[:3]
        lines += ["", f"## {cfg['label']}", "",
                  f"Machine file `{os.path.relpath(cfg['machine'], out_dir)}`, probed "
                  f"{probe_words(cfg['probe_slow_share'])}. Largest exact errors: " +
                  ", ".join(f"{r['name']} {r['defs']} ({percent(r['exact_error'])})" for r in worst) + ".", "",
                  f"![predicted against measured]({os.path.relpath(svg, out_dir)})", "",
                  "| program | sizes | measured (s) | median (s) | spread | exact (s) | error | paper (s) | error |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in cfg["refused"]:
            lines.append(f"| {r['name']} | {r['defs']} | - | - | - | refused: {r['refused']} | | | |")
        for r in cfg["rows"]:
            mark = " *" if r["unsteady"] else ""
            lines.append(f"| {r['name']}{mark} | {r['defs']} | {r['measured']:.4g} | {r['median']:.4g} | "
                         f"{100 * r['spread']:.1f}% | {r['exact']:.4g} | {percent(r['exact_error'])} | "
                         f"{r['paper']:.4g} | {percent(r['paper_error'])} |")
    phases = "; ".join(f"{c['label']}: probe {c['seconds']['probe']:.0f} s, predict {c['seconds']['predict']:.0f} s, "
                       f"measure {c['seconds']['measure']:.0f} s" for c in configs)
    lines += ["", f"Run time: {(time.time() - started) / 60:.1f} minutes ({phases}). Past runs: "
              "[validation-history.md](validation-history.md).", ""]
    write_atomically(A["out"], "\n".join(lines))
    write_atomically(os.path.splitext(A["out"])[0] + ".json", json.dumps(configs, indent=1))


def write_atomically(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    started = time.time()
    rows = corpus()
    configs = validate_configs(rows, A["configs"])
    PROGRESS.end()
    report(configs, started)
    for cfg in configs:
        corpus_rows = [r for r in cfg["rows"] if not r["example"]]
        e = summary(corpus_rows, "exact")
        print(f"{cfg['label']}, corpus: exact median {100 * e['median']:.1f}%, largest "
              f"{100 * e['largest']:.1f}%, ranking {e['right']} of {e['pairs']}, "
              f"{sum(not r['unsteady'] for r in corpus_rows)} of {len(corpus_rows)} rows steady")
    print(f"wrote {os.path.relpath(A['out'])} and its .json")


main()
