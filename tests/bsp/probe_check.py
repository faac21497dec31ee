#!/usr/bin/env python3
"""probe_check.py: runs the probe quickly and checks its machine file: every
BSP parameter a positive finite number, the calibration's units, the
steadiness summaries consistent with each other, and the memory curves.
usage: probe_check.py VECBSP BACKEND P"""
import json, math, os, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cost"))
import curve_check  # noqa: E402

vecbsp, backend, p = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = subprocess.run([vecbsp, "probe", "--quick", "--backend", backend, "-p", str(p), "--json"],
                     stdout=subprocess.PIPE, check=True, text=True).stdout
print(out)
m = json.loads(out)


def need(ok, what):
    if not ok:
        sys.exit("probe_check: " + what)


def positive(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


need(m.get("p") == p, f"p is not {p}")
need(m.get("backend") == backend, f"backend is not {backend}")
need(isinstance(m.get("name"), str) and m["name"].endswith(f"-{backend}-p{p}") and
     len(m["name"]) > len(f"-{backend}-p{p}"), "bad name")
for key in ("s", "g", "l", "g_seconds", "l_seconds", "cache_bytes", "l1_bytes"):
    need(positive(m.get(key)), f"{key} is missing, zero, negative or not finite")
need(m["l1_bytes"] < m["cache_bytes"], "the first-level cache is not the smaller")
# The calibration: a time per unit for each count of the exact model.
cal = m.get("calibration", {})
for key in ("op", "div", "elem", "load", "store"):
    need(isinstance(cal.get(key), (int, float)) and cal[key] >= 0, f"calibration {key} is missing")
# The core's runs (p = 1) are on threads whatever the backend, the
# exchange's (at p) on the backend, and the file says which units that gave.
runs = m.get("calibration_runs", [])
need(runs and all(r.get("backend") == ("threads" if r["p"] == 1 else backend) for r in runs),
     "a calibration run on the wrong backend, or not saying which")
need(any(r["p"] == p for r in runs) == (p > 1), f"no exchange runs at p = {p}")
# The store stream: four words stored for each one loaded, whether from the
# cache or from memory; and inits' segments only in the cache, where the
# model prices their reread loads right.
def words(r, unit):
    return sum(r.get(k, 0) for k in (unit, unit + "_mem", unit + "_mem_shared"))


stores = [r for r in runs if r["program"] in ("stores", "stores in place")]
need(stores and all(abs(words(r, "store") - 4 * words(r, "load")) < 1e-6 * words(r, "store") and words(r, "load") > 0
                    for r in stores), "the store stream's runs do not store four words a load")
need(all(words(r, "load") == r.get("load", 0) for r in runs if r["program"] == "segments"),
     "redconcat (inits v) ran beyond the cache")
fit = m.get("calibration_fit", {})
on_threads = [k for k, v in fit.items() if v.endswith(" on threads")]
need(backend == "threads" and not on_threads or
     backend == "mpi" and "lat_fast" in on_threads and "word" not in on_threads and "barrier" not in on_threads,
     f"the units said to come from threads: {on_threads}")
# A quick probe fits its one attempt, however well.
need(m.get("calibration_attempts") == 1, "a quick probe made more than one attempt")
# The steadiness: one summary per process, the least steady on top; a share
# of slow timings is a fraction of them, and slow ones are over slow_factor
# times the fast time (no slowdown when none is slow).
st = m.get("steadiness")
need(isinstance(st, dict), "the steadiness is missing")
procs = st.get("processes", [])
need(st.get("samples", 0) > 0 and st.get("canary_seconds", 0) > 0 and st.get("slow_factor") == 1.25
     and len(procs) == p, "the steadiness summary is incomplete")
for k, proc in enumerate(procs):
    share, slowdown = proc["slow_share"], proc["slowdown"]
    need(0 <= share <= 1 and proc["samples"] >= 1, f"process {k}: bad share or samples")
    need(slowdown == 0 if share == 0 else slowdown > 1.25, f"process {k}: slowdown {slowdown} at share {share}")
    need(proc["canary_seconds"] == st["canary_seconds"], f"process {k}: another canary")
worst = max(proc["slow_share"] for proc in procs)
need(st["slow_share"] == worst and procs[st["pid"]]["slow_share"] == worst,
     "the top summary is not the least steady process")


# The memory curves: one on one process, one on min(p, cores) when that
# is more, each share recomputed from the kernels' recorded seconds
# (tests/cost/curve_check.py).
for problem in curve_check.problems(m, p):
    need(False, problem)
print("probe_check: ok")
