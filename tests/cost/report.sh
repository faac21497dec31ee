#!/usr/bin/env bash
# report.sh: scripts/validation-report.sh summarises hand-made CSVs whose
# experiments have different size columns (n alone; m and n), and its
# figures match the ones worked out by hand below.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

cat >"$dir/mss-threads-p1-exact.csv" <<'CSV'
program,n,p,model,W,H,S,ops,predicted,measured,measured_min,error
a.vec,10,1,exact,0,0,1,0,1.1,1.0,1.0,0.1
b.vec,10,1,exact,0,0,1,0,2.0,4.0,4.0,-0.5
CSV
cat >"$dir/mss-threads-p1-paper.csv" <<'CSV'
program,n,p,model,W,H,S,ops,predicted
a.vec,10,1,paper,0,0,1,0,3.0
b.vec,10,1,paper,0,0,1,0,1.0
CSV
cat >"$dir/mv-threads-p1-exact.csv" <<'CSV'
program,m,n,p,model,W,H,S,ops,predicted,measured,measured_min,error
c.vec,5,5,1,exact,0,0,1,0,2.4,2.0,2.0,0.2
d.vec,5,5,1,exact,0,0,1,0,6.5,5.0,5.0,0.3
CSV
cat >"$dir/mv-threads-p1-paper.csv" <<'CSV'
program,m,n,p,model,W,H,S,ops,predicted
c.vec,5,5,1,paper,0,0,1,0,2.0
d.vec,5,5,1,paper,0,0,1,0,5.5
CSV
# Measured again: a 1.0 -> 1.2 (20%), b 4.0 -> 3.0 (25%); mv was not.
cat >"$dir/mss-threads-p1-again.csv" <<'CSV'
program,n,p,model,W,H,S,ops,predicted,measured,measured_min,error
a.vec,10,1,exact,0,0,1,0,1.1,1.2,1.2,0
b.vec,10,1,exact,0,0,1,0,2.0,3.0,3.0,0
CSV
# The last probe's steadiness, as vecbsp probe writes it: the worst
# process's on top (12.5% slow, 1.9 times), each process's below.
cat >"$dir/machine-threads-p1.json" <<'JSON'
{
  "s": 1e9,
  "g": 1,
  "l": 100,
  "g_seconds": 1e-9,
  "l_seconds": 1e-7,
  "steadiness": {
    "samples": 800,
    "slow_share": 0.125,
    "slowdown": 1.9,
    "processes": [
      {
        "slow_share": 0.0625,
        "slowdown": 2.5
      }
    ]
  }
}
JSON
# sweep's stderr, kept by validate.sh: mss measured while not steady, mv not.
echo "vecbsp: warning: the machine's speed was not steady during the measurement: a 8.8 us loop took 2.0 times as long in 30% of 6000 timings" \
  >"$dir/mss-threads-p1-exact.err"
: >"$dir/mv-threads-p1-exact.err"

# exact |errors| 10, 50, 20, 30%: median 25%, largest 50%, two over 25%;
# paper 200, 75, 0, 10%: median 42.5%, largest 200%. Ranking: both pairs
# differ by more than 10%; exact orders both right, paper only c < d.
# Repeatability: median 22.5%, largest 25%.
# The machine-state log: the last attempt of each experiment, with the count
# and the probe it was held to (mss: the third attempt, after a second probe).
cat >"$dir/state-threads-p1.csv" <<'CSV'
experiment,attempt,probed_sync,probed_g,probed_canary,probed_memory,probed_short,before_sync,before_g,before_canary,before_memory,before_short,after_sync,after_g,after_canary,after_memory,after_short,same,probe
mss,1,1.2e-07,2.4e-10,2.5e-04,3.1e-03,4.0e-06,1.1e-04,6.2e-10,2.5e-04,3.2e-03,4.1e-06,1.2e-07,2.5e-10,3.4e-04,3.0e-03,4.2e-06,no,1
mss,2,1.2e-07,2.4e-10,2.5e-04,3.1e-03,4.0e-06,5.1e-07,6.5e-10,2.6e-04,3.1e-03,4.1e-06,5.2e-07,6.6e-10,2.5e-04,3.3e-03,4.2e-06,no,1
mss,3,5.0e-07,6.4e-10,2.5e-04,3.1e-03,4.0e-06,5.1e-07,6.5e-10,2.6e-04,3.1e-03,4.1e-06,5.2e-07,6.6e-10,2.5e-04,3.3e-03,4.2e-06,yes,2
mv,1,5.0e-07,6.4e-10,2.5e-04,3.1e-03,4.0e-06,5.1e-07,6.5e-10,2.6e-04,3.1e-03,4.1e-06,5.2e-07,6.6e-10,2.5e-04,3.3e-03,4.2e-06,yes,2
CSV
# A log from before the short canary: its columns read by name all the same.
cat >"$dir/state-mpi-p2.csv" <<'CSV'
experiment,attempt,probed_sync,probed_g,probed_canary,probed_memory,before_sync,before_g,before_canary,before_memory,after_sync,after_g,after_canary,after_memory,same,probe
mv,1,5.0e-07,6.4e-10,2.5e-04,3.1e-03,5.1e-07,6.5e-10,2.6e-04,3.1e-03,5.2e-07,6.6e-10,2.5e-04,3.3e-03,no,1
CSV
# The probe the second replaced, listed before the last one.
cat >"$dir/machine-threads-p1-probe1.json" <<'JSON'
{ "s": 2e9, "g": 3, "l": 200, "g_seconds": 1.5e-9, "l_seconds": 1e-7 }
JSON

report=$("$root/scripts/validation-report.sh" "$dir" "threads 1 targeted")
want='| threads | 1 | targeted | 25.0% | 50.0% | 2 | 42.5% | 200.0% | 4 | 2 of 2 | 1 of 2 | 22.5%, 25.0% | 1 of 2 |'
got=$(grep '^| threads | 1 |' <<<"$report")
if [ "$got" != "$want" ]; then
  printf 'summary row:\n  got  %s\n  want %s\n' "$got" "$want" >&2
  exit 1
fi
# The per-experiment table reads each file's own columns too: c at +20.0%.
grep -qF '| c.vec | 5, 5 | 1 | 2.4 | 2 | 2 | +20.0% | +0.0% |' <<<"$report" ||
  { echo "per-experiment row for c.vec wrong" >&2; exit 1; }
# The state table shows each experiment's last attempt, how many there
# were, and its probe.
grep -qF '| threads, p = 1 | mss | 3 | 5e-07, 6.4e-10, 0.00025, 0.0031, 4e-06 | 5.1e-07, 6.5e-10, 0.00026, 0.0031, 4.1e-06 | 5.2e-07, 6.6e-10, 0.00025, 0.0033, 4.2e-06 | yes | 2 |' <<<"$report" ||
  { echo "machine-state row for mss wrong" >&2; exit 1; }
grep -qF '| mpi, p = 2 | mv | 1 | 5e-07, 6.4e-10, 0.00025, 0.0031, - | 5.1e-07, 6.5e-10, 0.00026, 0.0031, - | 5.2e-07, 6.6e-10, 0.00025, 0.0033, - | no | 1 |' <<<"$report" ||
  { echo "machine-state row of an old log wrong" >&2; exit 1; }
# Machines: the steadiness of the probe that has one, "-" for the other.
grep -qF '| machine-threads-p1.json | 1e+09 | 1 | 100 | 1e-09 | 1e-07 | 12.5%, 1.90 |' <<<"$report" ||
  { echo "machine row with a steadiness wrong" >&2; exit 1; }
grep -qE '^\| machine-threads-p1-probe1.json \| 2e\+09 \|.* \| - \|$' <<<"$report" ||
  { echo "machine row without a steadiness wrong" >&2; exit 1; }
# Machines: the replaced probe (s 2e9, l 200), then the last (s 1e9).
machines=$(grep -E '^\| machine-threads-p1' <<<"$report" | cut -d'|' -f2,3 | tr -d ' ' | tr '\n' ' ')
if [ "$machines" != "machine-threads-p1-probe1.json|2e+09 machine-threads-p1.json|1e+09 " ]; then
  echo "machines listed: $machines" >&2
  exit 1
fi
echo "validation report: summary and rows as worked out by hand"
