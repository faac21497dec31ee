#!/usr/bin/env bash
# cli.sh VECBSP JSON_CHECK: `vecbsp cost` and `vecbsp sweep` from the
# command line: --json as cli.md fixes it, machines and overrides, closed
# forms, errors, sweeps with their crossovers, CSV and plots.
set -u
vecbsp=$1 check=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
here=$(cd "$(dirname "$0")" && pwd)
# sweep --measure predicts for this host's probe, from the cache: a recorded
# one, refitted by this vecbsp (marked as this version's probe, as this
# version's calibration programs timed all its runs), stands in for it
# (none would be probed, a minute or two).
export VECBSP_CACHE=$tmp/cache
mkdir -p "$VECBSP_CACHE"
host_machine=$VECBSP_CACHE/machine-$(hostname)-threads-p2.json
"$vecbsp" probe --refit "$here/machine-refit.json" -o "$host_machine" 2>/dev/null || fail "probe --refit into the cache"

# shellcheck source=tests/cli-lib.sh
. "$(dirname "$0")/../cli-lib.sh"

mv1=examples/matvec1.vec mv2=examples/matvec2.vec

# cost --json: the fields of cli.md, with the paper's formulas for (1):
# W = (2n-1)m/p, H = (mn+m+np)(p-1)/p, S = 2 at m = n = 100, p = 8.
json cost $mv1 -D m=100 -D n=100 --model paper --json -- model=paper p=8 g=1.6 l=67150 s=13000000 \
  supersteps=array "supersteps[0].w=0" "supersteps[0].h=number" "supersteps[0].where=$mv1:9:8" \
  "supersteps[2].h=0" W=2487.5 H=9537.5 S=2 ops=152047.5 seconds=0.011695961538461539 \
  analysis_seconds=number params.m=100
json cost $mv1 -D m=100 -D n=100 --plan paper --json -- model=exact W=number H=number S=2 "supersteps[1].w=2587"
# -p -g -l -s override the machine (W = 199*100/4, H = 10500*3/4).
json cost $mv1 -D m=100 -D n=100 --model paper -p 4 -g 2 -l 10 -s 1000 --json -- p=4 g=2 l=10 s=1000 W=4975 \
  H=7875 ops=20745 seconds=20.745

# Machine files in the probe format.
cat >"$tmp/box.json" <<'JSON'
{ "name": "box-threads-p2", "backend": "threads", "p": 2, "s": 2e9, "g": 3, "l": 400,
  "g_seconds": 1.5e-9, "l_seconds": 2e-7 }
JSON
json cost $mv1 -D m=10 -D n=10 --machine "$tmp/box.json" --json -- machine=box-threads-p2 p=2 g=3 l=400 s=2000000000
# The memory a run touches and the share of its traffic charged at memory
# rates: map over 1000 words reads 1000 and stores 1000 (16000 bytes); with
# a 20000-byte cache that is (16000 - 10000) / 10000 of the way from half
# the cache to all of it.
printf 'param n\ninput v : [n]int\nmain = map (\\x -> x + 1) v\n' >"$tmp/inc.vec"
sed 's/"l_seconds": 2e-7 }/"l_seconds": 2e-7, "cache_bytes": 20000 }/' "$tmp/box.json" >"$tmp/cache.json"
json cost "$tmp/inc.vec" -D n=1000 -p 1 --machine "$tmp/cache.json" --json -- footprint_bytes=16000 memory_share=0.6
json cost "$tmp/inc.vec" -D n=500 -p 1 --machine "$tmp/cache.json" --json -- footprint_bytes=8000 memory_share=0
json cost "$tmp/inc.vec" -D n=5000 -p 1 --machine "$tmp/cache.json" --json -- footprint_bytes=80000 memory_share=1
# At p = 2 the ramp runs from a quarter of the cache to five quarters: over
# 1000 words, the input, the result, the two blocks of 500 (fetched,
# gathered) sent from where they lie and the gathered one unpacked are
# 3500 words, 28000 bytes, all in memory (beyond 25000); over 400 words,
# 11200 bytes, (11200 - 5000) / (25000 - 5000) = 0.31 of the way.
json cost "$tmp/inc.vec" -D n=1000 -p 2 --plan paper --machine "$tmp/cache.json" --json -- footprint_bytes=28000 memory_share=1
json cost "$tmp/inc.vec" -D n=400 -p 2 --plan paper --machine "$tmp/cache.json" --json -- footprint_bytes=11200 memory_share=0.31
# With a measured memory curve (docs/cost-model.md, "The memory curve"),
# each stream's share by it: 16000 bytes are 0.625 of a 25600-byte cache,
# a quarter of the way from 0.5 to 1 cache sizes, where loads go from 0 to
# 0.5 and stores from 0 to 1.
sed 's/"l_seconds": 2e-7 }/"l_seconds": 2e-7, "cache_bytes": 25600, "memory_curves": [{"p": 1, "footprint": [0.5, 1, 2], "loads": [0, 0.5, 1], "stores": [0, 1, 1]}] }/' \
  "$tmp/box.json" >"$tmp/curve.json"
json cost "$tmp/inc.vec" -D n=1000 -p 1 --machine "$tmp/curve.json" --json -- memory_share=0.125 \
  store_memory_share=0.25
# At p = 2 it has no curve: the ramp, from 6400 to 32000 bytes.
json cost "$tmp/inc.vec" -D n=400 -p 2 --plan paper --machine "$tmp/curve.json" --json -- memory_share=0.1875 \
  store_memory_share=0.1875
sed 's/"stores": \[0, 1, 1\]/"stores": [0, 1.5, 1]/' "$tmp/curve.json" >"$tmp/badcurve.json"
expect_error "vecbsp: error: $tmp/badcurve.json: \"stores\" must rise from 0 to 1" \
  "$vecbsp" cost $mv1 -D m=1 -D n=1 --machine "$tmp/badcurve.json"
sed 's/"l_seconds": 2e-7 }/"l_seconds": 2e-7, "l1_bytes": -1 }/' "$tmp/box.json" >"$tmp/badl1.json"
expect_error "vecbsp: error: $tmp/badl1.json: \"l1_bytes\" must not be negative" \
  "$vecbsp" cost $mv1 -D m=1 -D n=1 --machine "$tmp/badl1.json"
echo '{ "p": 2, "l": 400, "s": 1e9 }' >"$tmp/nog.json"
expect_error "vecbsp: error: $tmp/nog.json: \"g\" is missing" "$vecbsp" cost $mv1 -D m=1 -D n=1 --machine "$tmp/nog.json"
echo '{ "p": 0.5, "g": 1, "l": 400, "s": 1e9 }' >"$tmp/badp.json"
expect_error "vecbsp: error: $tmp/badp.json: \"p\" must be an integer in [1, 1048576]" \
  "$vecbsp" cost $mv1 -D m=1 -D n=1 --machine "$tmp/badp.json"
echo '{ "p": 2,' >"$tmp/broken.json"
"$vecbsp" cost $mv1 -D m=1 -D n=1 --machine "$tmp/broken.json" >/dev/null 2>"$tmp/err"
grep -q "^vecbsp: error: $tmp/broken.json: " "$tmp/err" || fail "a broken machine file: $(cat "$tmp/err")"
expect_error "vecbsp: error: unknown machine 'cray': the built-in ones are sunhpc3500 and local; otherwise give a machine file (FILE.json, as vecbsp probe writes)" \
  "$vecbsp" cost $mv1 -D m=1 -D n=1 --machine cray

# Errors: a missing -D, a static shape error, --symbolic with the exact model.
expect_error "$mv1:6:7: error: parameter 'm' is not bound; give it a value with -D m=VALUE" "$vecbsp" cost $mv1 -D n=3
printf 'param n\ninput x : [n]int\nmain = pair_map (+) (x, tl x)\n' >"$tmp/lengths.vec"
expect_error "$tmp/lengths.vec:3:8: error: pair_map on vectors of different lengths (4 and 3)" \
  "$vecbsp" cost "$tmp/lengths.vec" -D n=4
expect_error "vecbsp: error: --symbolic gives closed forms of the paper model only; use --model paper" \
  "$vecbsp" cost $mv1 --symbolic --model exact
# The interpreter's shape faults (tests/cases/fault-*.vec) are found statically,
# with the same message at the same place; faults of data (division by zero) are not.
for file in tests/cases/fault-*.vec; do
  want=$(sed -n 's/^# error: //p' "$file" | head -n 1)
  case "$want" in *"by zero"*) continue ;; esac
  defs=$(sed -n 's/^# args: //p' "$file" | grep -o -- '-D [^ ]*' | tr '\n' ' ')
  # shellcheck disable=SC2086
  expect_error "$file:${want%%: *}: error: ${want#*: }" "$vecbsp" cost "$file" $defs
done

# Closed forms: the papers' hand analysis of (1).
"$vecbsp" cost $mv1 --symbolic >"$tmp/sym.txt" || fail "cost --symbolic"
grep -qx 'W = (2\*m\*n - m)/p' "$tmp/sym.txt" || fail "W of (1): $(cat "$tmp/sym.txt")"
grep -qx 'H = (m\*n + n\*p + m)\*(p - 1)/p' "$tmp/sym.txt" || fail "H of (1)"
grep -qx 'S = 2' "$tmp/sym.txt" || fail "S of (1)"
json cost $mv2 --symbolic --json -- symbolic=true "H_form=(m*n + m*p + n)*(p - 1)/p" S_form=2
json cost $mv1 --symbolic -D n=8 --json -- "W_form=15*m/p" params.n=8
# mss (1): the forms hold for n >= 2, with the cases n = 1 and 0 printed;
# with n given, their value at the machine's p is the analysis's.
json cost examples/mss1.vec --symbolic --json -- "valid_for=n >= 2" "cases[0].params.n=1" "cases[0].S_form=p + 3" \
  "cases[1].params.n=0" cases[1].error=string where=array
numeric=$("$vecbsp" cost examples/mss1.vec --model paper -D n=300 -p 7 --json) || fail "cost mss1 n=300"
for k in W H S; do
  want=$(printf '%s' "$numeric" | sed -n "s/^  \"$k\": \(.*\),\$/\1/p")
  json cost examples/mss1.vec --symbolic -D n=300 -p 7 --json -- "at_p.$k=$want"
done

# sweep: every point of every program, CSV, JSON; --measure runs them.
"$vecbsp" sweep $mv1 $mv2 --model paper -D n=8 --vary m=20000:120000:20000 --csv >"$tmp/sweep.csv" || fail "sweep --csv"
[ "$(wc -l <"$tmp/sweep.csv")" -eq 13 ] || fail "sweep --csv: $(wc -l <"$tmp/sweep.csv") lines"
head -n 1 "$tmp/sweep.csv" | grep -qx 'program,m,p,model,W,H,S,ops,predicted' || fail "sweep --csv header"
json sweep $mv1 $mv2 --vary m=10:30:10 --vary n=10:30:10 --json -- "rows[0].program=matvec1.vec" \
  "rows[0].params.m=10" "rows[0].params.n=10" "rows[5].params.m=30" "rows[0].p=8" "rows[0].predicted=number" \
  crossovers=array
json sweep $mv1 --vary p=1:4:1 -D m=5 -D n=5 --json -- "rows[3].p=4" "rows[3].predicted=number"
json plan $mv1 -D m=5 -D n=5 --vary 'p=1:8:*2' --json -- "rows[1].p=2" "rows[2].p=4" "rows[3].p=8" "best_p=number"
# A STEP of *F: FROM times the powers of F, rounded half up, each value once.
"$vecbsp" sweep $mv1 -D n=4 --vary 'm=1:100:*1.5' --json >"$tmp/geometric.json" || fail "sweep --vary m=1:100:*1.5"
python3 - "$tmp/geometric.json" <<'EOF' || fail "sweep --vary m=1:100:*1.5: not the rounded powers of 1.5"
import json, math, sys
got = [row["params"]["m"] for row in json.load(open(sys.argv[1]))["rows"]]
want, x = [], 1.0
while math.floor(x + 0.5) <= 100:
    if not want or math.floor(x + 0.5) > want[-1]:
        want.append(math.floor(x + 0.5))
    x *= 1.5
if got != want:
    sys.exit(f"got {got}, want {want}")
EOF
json sweep $mv1 $mv2 --vary m=3:4:1 -D n=5 -p 2 --measure --repeat 1 --json -- "rows[3].measured=number" \
  "rows[3].measured_min=number" "rows[3].error=number" "accuracy.median_abs_error=number" \
  "accuracy.pairs_ranked_right=number"
# --rounds: every point measured R times over; measured is the fastest
# round's median (each round's in measured_rounds), and the fastest run of
# all the rounds at most that.
"$vecbsp" sweep $mv1 $mv2 --vary m=3:4:1 -D n=5 -p 2 --measure --repeat 3 --rounds 2 >"$tmp/rounds.txt" ||
  fail "sweep --rounds"
grep -q '(4 runs, median of 3 each, the fastest of 2 rounds)' "$tmp/rounds.txt" || fail "--rounds: $(cat "$tmp/rounds.txt")"
"$vecbsp" sweep $mv1 --vary m=3:4:1 -D n=5 -p 2 --measure --repeat 3 --rounds 3 --csv |
  python3 -c 'import csv, sys
rows = list(csv.DictReader(sys.stdin))
sys.exit(not (len(rows) == 2 and all(0 < float(r["measured_min"]) <= float(r["measured"]) for r in rows)))' ||
  fail "--rounds: measured_min above measured"
"$vecbsp" sweep $mv1 $mv2 --vary m=3:4:1 -D n=5 -p 2 --measure --repeat 3 --rounds 3 --json >"$tmp/rounds.json" ||
  fail "sweep --rounds --json"
python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
sys.exit(not (len(rows) == 4 and all(len(r["measured_rounds"]) == 3 and r["measured"] == min(r["measured_rounds"])
                                     for r in rows)))' "$tmp/rounds.json" ||
  fail "--rounds: measured is not the fastest of measured_rounds"
# The machine's steadiness, checked before every run: 4 samples x 3 rounds,
# their timings added up, the fastest loop's time kept, a share of slow
# timings between 0 and 1; a sample is steady when the check before its
# fastest round had at most 5% of its timings slow and a loop time within
# 1.25 times the fastest of all.
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
st, rows = d["steadiness"], d["rows"]
ms = st["measurements"]
def steady(r):
    c = r["round_checks"][r["measured_rounds"].index(r["measured"])]
    return c["slow_share"] <= 0.05 and c["canary_seconds"] <= 1.25 * st["canary_seconds"]
sys.exit(not (len(ms) == 12 and st["samples"] == sum(m["samples"] for m in ms) and
              st["canary_seconds"] == min(m["canary_seconds"] for m in ms) and 0 <= st["slow_share"] <= 1 and
              st["slow_factor"] == 1.25 and all(len(r["round_checks"]) == 3 for r in rows) and
              sorted(c["slow_share"] for r in rows for c in r["round_checks"]) == sorted(m["slow_share"] for m in ms) and
              all(r["steady"] == steady(r) for r in rows)))' "$tmp/rounds.json" ||
  fail "--measure: the steadiness is not the checks before every run, or a sample marked otherwise"
grep -q '^machine speed, checked before every run: \(not \)\{0,1\}steady: ' "$tmp/rounds.txt" ||
  fail "--measure: no steadiness line: $(cat "$tmp/rounds.txt")"
expect_error "vecbsp: error: --quick and --long exclude each other" "$vecbsp" probe --quick --long
# Figures JSON cannot carry, counts past 2^63, ranges read in part.
expect_error "vecbsp: error: -g expects a finite number, got 'nan'" "$vecbsp" cost $mv1 -D m=4 -D n=4 -g nan --json
expect_error "vecbsp: error: a figure of the result is inf, which JSON cannot carry (see -g, -l, -s and the machine)" \
  "$vecbsp" cost $mv1 -D m=4 -D n=4 -s 1e-308 --json
expect_error "vecbsp: error: the exact model's counts pass 2^63 for these sizes; --model paper predicts them" \
  "$vecbsp" cost $mv1 -D m=1099511627776 -D n=1099511627776
expect_error "vecbsp: error: --vary m=1:10:1:x: expected integers NAME=FROM:TO:STEP (such as n=1000:100000:1000 or n=1e3:1e5:1e3; STEP 1 may be left out), or a factor NAME=FROM:TO:*F (such as n=1e3:1e7:*10)" \
  "$vecbsp" sweep $mv1 -D n=4 --vary m=1:10:1:x
expect_error "vecbsp: error: --vary m=1:10:*1: the factor must be above 1" "$vecbsp" sweep $mv1 -D n=4 --vary 'm=1:10:*1'
expect_error "vecbsp: error: --vary m=0:10:*2: with a factor, FROM must be at least 1" \
  "$vecbsp" sweep $mv1 -D n=4 --vary 'm=0:10:*2'
expect_error "vecbsp: error: --vary m=1:1e18:*1.0000001: more than 1000000 points" \
  "$vecbsp" sweep $mv1 -D n=4 --vary 'm=1:1e18:*1.0000001'
expect_error "vecbsp: error: --vary m=5:6:1: m varies twice" "$vecbsp" sweep $mv1 -D n=4 --vary m=1:2:1 --vary m=5:6:1
expect_error "vecbsp: error: unknown option '--json=no' for 'cost' (vecbsp cost --help lists its options)" "$vecbsp" cost $mv1 --json=no
expect_error "vecbsp: error: no option '--measure' for 'cost' (vecbsp cost --help lists its options)" "$vecbsp" cost $mv1 --measure
expect_error "vecbsp: error: --random expects a non-negative integer seed, got ' -1'" "$vecbsp" eval $mv1 --random ' -1'
expect_error "vecbsp: error: -p is given twice" "$vecbsp" cost $mv1 -p 2 -p 4
expect_error "vecbsp: error: -p 2000: the threads backend runs at most 1024 processes (MPI: --backend mpi)" \
  "$vecbsp" run $mv1 -D m=2 -D n=2 --random 1 -p 2000
expect_error "vecbsp: error: --rounds is an option of --measure" "$vecbsp" sweep $mv1 --vary m=3:4:1 -D n=5 --rounds 2
expect_error "vecbsp: error: --vary m=5:1:1: TO must be at least FROM" "$vecbsp" sweep $mv1 --vary m=5:1:1 -D n=1
expect_error "vecbsp: error: --vary m=1:5:0: STEP must be positive" "$vecbsp" sweep $mv1 --vary m=1:5:0 -D n=1

# A chain of 14000 definitions, each applying the one before: the checks,
# the interpreter and the analysis recurse through it (8 MB of stack
# overflowed); only f0 adds anything.
awk 'BEGIN { print "def f0 x = x + 1"; for (i = 1; i < 14000; i++) printf "def f%d x = f%d x\n", i, i - 1
             print "main = f13999 41" }' >"$tmp/chain.vec"
[ "$("$vecbsp" eval "$tmp/chain.vec")" = 42 ] || fail "a chain of 14000 definitions: eval"
"$vecbsp" cost "$tmp/chain.vec" --json >/dev/null || fail "a chain of 14000 definitions: cost"

# A crossover: a parallel fold beats a sequential one once n pays for two
# barriers (g = 0.1: near n = 2l / (1 - 1/p - g(p-1)/p) = 170540; the
# sweep interpolates between its points).
printf 'param n\ninput x : [n]int\nmain = fold (+) x\n' >"$tmp/parallel.vec"
printf 'param n\ninput x : [n]int\nmain = if true then fold (+) x else 0\n' >"$tmp/sequential.vec"
"$vecbsp" sweep "$tmp/parallel.vec" "$tmp/sequential.vec" --plan paper -g 0.1 --vary n=100000:300000:50000 >"$tmp/cross.txt" ||
  fail "sweep with a crossover"
grep -q 'between n = 150000 and n = 200000: parallel.vec becomes cheaper than sequential.vec from n = 170550 on (equal at n = 170549, linear between the points)' \
  "$tmp/cross.txt" || fail "crossover: $(cat "$tmp/cross.txt")"
# ... the first n at which cost itself says so.
ops() { "$vecbsp" cost "$tmp/$1.vec" --plan paper -g 0.1 -D n="$2" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["ops"])'; }
python3 -c 'import sys; a, b, c, d = map(float, sys.argv[1:]); sys.exit(not (a >= b and c < d))' \
  "$(ops parallel 170549)" "$(ops sequential 170549)" "$(ops parallel 170550)" "$(ops sequential 170550)" ||
  fail "the exact crossover is not at n = 170550"
json sweep "$tmp/parallel.vec" "$tmp/sequential.vec" --plan paper -g 0.1 --vary n=100000:300000:50000 --json -- \
  "crossovers[0].was_cheapest=sequential.vec" "crossovers[0].becomes_cheapest=parallel.vec" \
  "crossovers[0].from.n=150000" "crossovers[0].to.n=200000" "crossovers[0].cheaper_from.n=170550"

# --plot through gnuplot, when it is installed.
# probe --refit: a file that is not a probe's, or with options of its own.
expect_error "vecbsp: error: $tmp/none.json: unable to open $tmp/none.json: No such file or directory" \
  "$vecbsp" probe --refit "$tmp/none.json"
echo '{"backend": "threads", "p": 2, "s": 1}' >"$tmp/bare.json"
expect_error "vecbsp: error: $tmp/bare.json: not a machine file of \`vecbsp probe\` (backend, p and calibration_runs)" \
  "$vecbsp" probe --refit "$tmp/bare.json"
expect_error "vecbsp: error: --refit takes the processes, the backend and the runs from its file" \
  "$vecbsp" probe --refit tests/cost/machine-refit.json -p 2

# No silent wrong machine: measured here, predicted for here; a machine
# probed at another p is used there with a warning.
"$vecbsp" sweep $mv1 --vary m=3:4:1 -D n=5 -p 2 --measure --repeat 1 --json >"$tmp/host.json" 2>"$tmp/host.err" ||
  fail "sweep --measure with this host's probe"
grep -qx "vecbsp: note: predicting for $host_machine, this host's probe (--machine chooses another)" "$tmp/host.err" ||
  fail "sweep --measure did not say which machine: $(cat "$tmp/host.err")"
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["machine"] != "vm-threads-p2")' "$tmp/host.json" ||
  fail "sweep --measure did not predict for this host's probe"
# A cached probe made by other calibration programs (by its mark) is not
# used: it is probed again, and until that ends, the old file stays as it
# was (here the probe is stopped after 3 s). One made by these programs
# but without one of this version's units (an older model's fit: here its
# copy) is fitted again to its recorded runs, and used.
mkdir -p "$tmp/stale"
stale="$tmp/stale/machine-$(hostname)-threads-p2.json"
python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); m["calibration_programs"] = "0123456789abcdef"
json.dump(m, open(sys.argv[2], "w"))' "$host_machine" "$tmp/stale.json"
cp "$tmp/stale.json" "$stale"
VECBSP_CACHE=$tmp/stale timeout 3 "$vecbsp" sweep $mv1 --vary m=3:4:1 -D n=5 -p 2 --measure --repeat 1 >/dev/null 2>"$tmp/stale.err"
grep -q "^vecbsp: note: this host's probe $stale was made by another version's calibration programs: probing it again" \
  "$tmp/stale.err" || fail "a stale probe of this host was not probed again: $(cat "$tmp/stale.err")"
cmp -s "$tmp/stale.json" "$stale" || fail "the stopped probe changed the file"
python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); del m["calibration"]["copy"]
json.dump(m, open(sys.argv[2], "w"))' "$host_machine" "$stale"
VECBSP_CACHE=$tmp/stale "$vecbsp" sweep $mv1 --vary m=3:4:1 -D n=5 -p 2 --measure --repeat 1 >/dev/null 2>"$tmp/stale.err" ||
  fail "sweep --measure with a probe of this host that lacks a unit: $(cat "$tmp/stale.err")"
grep -qx "vecbsp: note: this host's probe $stale lacks this version's unit copy: fitting it again to its recorded runs" \
  "$tmp/stale.err" && grep -qx "vecbsp: note: predicting for $stale, this host's probe (--machine chooses another)" \
  "$tmp/stale.err" || fail "a probe of this host without copy was not refitted and used: $(cat "$tmp/stale.err")"
python3 -c 'import json, sys; u = json.load(open(sys.argv[1]))["calibration"]; w = json.load(open(sys.argv[2]))["calibration"]
sys.exit(not ("copy" in u and abs(u["copy"] - w["copy"]) <= 1e-9 * w["copy"]))' "$stale" "$host_machine" ||
  fail "the refitted probe of this host has not the copy the same runs give"
"$vecbsp" cost $mv1 -D m=4 -D n=5 --machine "$host_machine" -p 4 >/dev/null 2>"$tmp/p.err" || fail "cost at another p"
grep -qx "vecbsp: warning: machine vm-threads-p2 was probed at p = 2: its g, l and calibration are used at p = 4 as they are (probe at p = 4 for predictions there)" \
  "$tmp/p.err" || fail "no warning for a machine probed at another p: $(cat "$tmp/p.err")"
"$vecbsp" cost $mv1 -D m=4 -D n=5 --machine "$host_machine" -p 2 >/dev/null 2>"$tmp/p.err" || fail "cost at the probe's p"
[ -s "$tmp/p.err" ] && fail "a warning at the probe's own p: $(cat "$tmp/p.err")"
"$vecbsp" sweep $mv1 -D m=4 -D n=5 --machine "$host_machine" --vary p=1:4:1 >/dev/null 2>"$tmp/p.err" || fail "sweep over p"
[ "$(grep -c 'was probed at p = 2' "$tmp/p.err")" = 1 ] && grep -q 'used at p = 3' "$tmp/p.err" ||
  fail "a sweep over p should warn once, at p = 3: $(cat "$tmp/p.err")"

if command -v gnuplot >/dev/null 2>&1; then
  "$vecbsp" sweep $mv1 $mv2 -D n=8 --vary m=1000:5000:1000 --plot "$tmp/plot.svg" >/dev/null || fail "sweep --plot"
  grep -q '<svg' "$tmp/plot.svg" 2>/dev/null || fail "sweep --plot wrote no SVG"
fi
exit $failed
