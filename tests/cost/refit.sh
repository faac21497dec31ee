#!/usr/bin/env bash
# refit.sh VECBSP: `vecbsp probe --refit` on a recorded probe
# (machine-refit.json, the runs of a real one at p = 2, by this version's
# calibration programs: re-record it when they change): the fit is
# linear in the times, so doubling every recorded time must double every
# unit and leave r^2 as it was (its errors are in cli.sh).
set -u
vecbsp=$1
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# json PYTHON FILE...: runs PYTHON with the files' JSON as j[0], j[1], ...
json() {
  local code=$1
  shift
  python3 -c "import json, sys; j = [json.load(open(f)) for f in sys.argv[1:]]; $code" "$@"
}

"$vecbsp" probe --refit "$here/machine-refit.json" -o "$tmp/once.json" || fail "refit failed"
json 'm = j[0]; [r.update(seconds=2 * r["seconds"]) for r in m["calibration_runs"]]; print(json.dumps(m))' \
  "$here/machine-refit.json" >"$tmp/twice-runs.json"
"$vecbsp" probe --refit "$tmp/twice-runs.json" -o "$tmp/twice.json" || fail "refit of doubled times failed"
json 'sys.exit(len(j[0]["calibration"]) < 18 or not j[0]["calibration"]["elem"] > 0)' "$tmp/once.json" ||
  fail "expected 18 units or more, elem among them and positive"
# Each recorded time goes with its own program and size: the fit explains
# them (r^2 0.993, as the probe's own fit; -0.29 with each time given to
# the next size of its program).
json 'sys.exit(not j[0]["calibration_r2"] > 0.8)' "$tmp/once.json" || fail "r^2 below 0.8: runs mismatched?"
json 'once, twice = (m["calibration"] for m in j)
bad = [k for k in once if abs(twice[k] - 2 * once[k]) > 1e-9 * abs(2 * once[k])]
bad += ["r2"] * (abs(j[1]["calibration_r2"] - j[0]["calibration_r2"]) > 1e-9)
bad and print(*bad); sys.exit(bool(bad))' "$tmp/once.json" "$tmp/twice.json" ||
  fail "doubled times did not give doubled units and the same r2"
grep -q '"calibration_runs"' "$tmp/once.json" || fail "the refitted file lists no runs"

# The probe's steadiness, kept in the machine file: described in the table,
# warned about on stderr when the file is written and more than 5% of the
# timings were slow (an older file has none: no line, no warning).
steady() {  # SHARE: machine-refit.json with a steadiness of that share
  SHARE=$1 json 'import os; m = j[0]; m["steadiness"] = {"seconds": 0.5, "slow_factor": 1.25, "samples": 1000,
    "canary_seconds": 1e-05, "slow_share": float(os.environ["SHARE"]), "slowdown": 2.0}; print(json.dumps(m))' \
    "$here/machine-refit.json"
}
steady 0.4 >"$tmp/unsteady.json"
steady 0.05 >"$tmp/steady.json"
"$vecbsp" probe --refit "$tmp/unsteady.json" >"$tmp/table.txt" 2>"$tmp/err.txt" || fail "refit of an unsteady probe"
grep -qx 'speed      not steady: a 10 us loop took 2.0 times as long in 40% of 1000 timings; times measured here vary as much, and no prediction can be closer to them' \
  "$tmp/table.txt" || fail "unsteady table: $(grep speed "$tmp/table.txt")"
[ -s "$tmp/err.txt" ] && fail "the table said it, but stderr too: $(cat "$tmp/err.txt")"
"$vecbsp" probe --refit "$tmp/unsteady.json" -o "$tmp/out.json" 2>"$tmp/err.txt" || fail "refit -o of an unsteady probe"
grep -q '^vecbsp: warning: the machine.s speed was not steady during the probe: a 10 us loop took 2.0 times as long in 40% of 1000 timings;' \
  "$tmp/err.txt" || fail "no warning: $(cat "$tmp/err.txt")"
grep -q '"slow_share": 0.4' "$tmp/out.json" || fail "the steadiness was not kept"
"$vecbsp" probe --refit "$tmp/steady.json" >"$tmp/table.txt" || fail "refit of a steady probe"
grep -qx 'speed      steady: 5.0% of 1000 timings of a 10 us loop took over 1.25 times its fastest' "$tmp/table.txt" ||
  fail "steady table: $(grep speed "$tmp/table.txt")"
"$vecbsp" probe --refit "$tmp/steady.json" --json 2>"$tmp/err.txt" >/dev/null || fail "refit --json of a steady probe"
[ -s "$tmp/err.txt" ] && fail "a steady probe warned: $(cat "$tmp/err.txt")"
"$vecbsp" probe --refit "$here/machine-refit.json" >"$tmp/table.txt" 2>"$tmp/err.txt" || fail "refit"
grep -q '^speed' "$tmp/table.txt" && fail "a steadiness line without a steadiness"
[ -s "$tmp/err.txt" ] && fail "a file without steadiness warned: $(cat "$tmp/err.txt")"

# An MPI probe measures the core's units at p = 1 on threads (its rows
# say so): its file says which units that gave, in the table too; the
# units fitted at p = 2 (word, barrier) are the backend's own. An older MPI
# file, whose rows name no backend, measured everything on MPI.
json 'm = j[0]; m["backend"] = "mpi"
[r.update(backend="threads" if r["p"] == 1 else "mpi") for r in m["calibration_runs"]]; print(json.dumps(m))' \
  "$here/machine-refit.json" >"$tmp/mpi-core-on-threads.json"
"$vecbsp" probe --refit "$tmp/mpi-core-on-threads.json" -o "$tmp/mpi.json" || fail "refit of an MPI probe"
json 'f = j[0]["calibration_fit"]
bad = [k for k in ("op", "load", "lat_fast", "exit") if not f[k].endswith(" on threads")]
bad += [k for k in ("word", "barrier", "load_mem_shared") if "threads" in f[k]]
bad and print(*bad, f); sys.exit(bool(bad))' "$tmp/mpi.json" || fail "the core's units not said to be from threads"
"$vecbsp" probe --refit "$tmp/mpi-core-on-threads.json" | grep -Eq '^  lat_fast .* fitted on threads$' ||
  fail "the table does not say lat_fast was fitted on threads"
json 'm = j[0]; m["backend"] = "mpi"; [r.pop("backend") for r in m["calibration_runs"]]; print(json.dumps(m))' \
  "$here/machine-refit.json" >"$tmp/mpi-old.json"
"$vecbsp" probe --refit "$tmp/mpi-old.json" -o "$tmp/mpi-old-out.json" || fail "refit of an older MPI probe"
json 'f = j[0]["calibration_fit"]; sys.exit(any("threads" in v for v in f.values()))' "$tmp/mpi-old-out.json" ||
  fail "an older MPI probe said its units came from threads"

# A refit is marked as this version's probe (calibration_programs, which
# sweep --measure trusts for this host) only when this version's
# calibration programs timed each of its runs: the fixture's were; without
# its "stores" rows, or without its mark, or with another mark, the refit
# says why and is not marked.
"$vecbsp" probe --refit "$here/machine-refit.json" -o "$tmp/marked.json" 2>"$tmp/err.txt" || fail "refit"
json 'sys.exit(j[0]["calibration_programs"] != j[1]["calibration_programs"])' "$tmp/marked.json" \
  "$here/machine-refit.json" || fail "a refit of a whole probe lost its mark"
[ -s "$tmp/err.txt" ] && fail "a whole probe's refit said: $(cat "$tmp/err.txt")"
unmarked() {  # NAME PYTHON NOTE: the fixture changed by PYTHON (its JSON as m) is refitted unmarked, with NOTE
  json "m = j[0]; $2; print(json.dumps(m))" "$here/machine-refit.json" >"$tmp/$1.json"
  "$vecbsp" probe --refit "$tmp/$1.json" -o "$tmp/$1-out.json" 2>"$tmp/err.txt" || fail "refit $1"
  json 'sys.exit("calibration_programs" in j[0])' "$tmp/$1-out.json" || fail "refit $1 was marked"
  grep -qxF "vecbsp: note: $3: refitted, and not marked as this version's probe" "$tmp/err.txt" ||
    fail "refit $1: no note: $(cat "$tmp/err.txt")"
}
unmarked no-stores 'm["calibration_runs"] = [r for r in m["calibration_runs"] if r["program"] != "stores"]' \
  "the recorded runs have no time for 1 of this version's calibration programs (stores)"
unmarked no-mark 'del m["calibration_programs"]' \
  "the file does not say which calibration programs timed its runs"
unmarked other-mark 'm["calibration_programs"] = "0123456789abcdef"' \
  "the recorded runs were timed by another version's calibration programs"

unmarked no-curve-times '[c.pop("seconds_per_element") for c in m["memory_curves"]]' \
  "the file lacks the memory curves' kernel times (\"memory_curves\")"

# The memory curves' shares are made again from their kernels' recorded
# times (tests/cost/curve_check.py recomputes them), each found by its p
# whatever the order of the array; a curve without times keeps its shares.
json 'm = j[0]; m["memory_curves"].reverse()
for c in m["memory_curves"]:
    n = len(c["footprint"]); c["loads"] = c["stores"] = [0] * (n - 1) + [1]
print(json.dumps(m))' "$here/machine-refit.json" >"$tmp/curves.json"
"$vecbsp" probe --refit "$tmp/curves.json" -o "$tmp/curves-out.json" || fail "refit of reordered curves"
"$here/curve_check.py" "$tmp/curves-out.json" 2 || fail "the refitted curves"
json 'times = lambda m: {c["p"]: c["seconds_per_element"] for c in m["memory_curves"]}
sys.exit(times(j[0]) != times(j[1]))' "$tmp/curves-out.json" "$here/machine-refit.json" ||
  fail "a refitted curve has another p's times"
json 'm = j[0]; m["memory_curves"][0]["seconds_per_element"]["stores"][3] = 0; print(json.dumps(m))' \
  "$here/machine-refit.json" >"$tmp/badtimes.json"
"$vecbsp" probe --refit "$tmp/badtimes.json" -o "$tmp/badtimes-out.json" 2>"$tmp/err.txt" &&
  fail "a refit of a curve with a zero time"
grep -qxF "vecbsp: error: the machine file's memory curve on 1 process: \"seconds_per_element\" must have a positive time for each footprint of each stream" \
  "$tmp/err.txt" || fail "a zero time: $(cat "$tmp/err.txt")"
[ -e "$tmp/badtimes-out.json" ] && fail "a refused refit wrote its file"
json 'm = j[0]; c = m["memory_curves"][0]; c.pop("seconds_per_element"); c["loads"] = [0, 0.5, 0.5] + [1] * 7
print(json.dumps(m))' "$here/machine-refit.json" >"$tmp/untimed.json"
"$vecbsp" probe --refit "$tmp/untimed.json" -o "$tmp/untimed-out.json" 2>/dev/null || fail "refit of an untimed curve"
json 'c = [c for c in j[0]["memory_curves"] if c["p"] == 1][0]; sys.exit(c["loads"] != [0, 0.5, 0.5] + [1] * 7)' \
  "$tmp/untimed-out.json" || fail "an untimed curve's shares changed"

[ $failed -eq 0 ] && echo "refit: ok"
exit $failed
