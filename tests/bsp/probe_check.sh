#!/bin/sh
# probe_check.sh: runs the probe quickly and checks that every machine field is a positive finite number.
# usage: probe_check.sh VECBSP BACKEND P
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
"$1" probe --quick --backend "$2" -p "$3" --json >"$out" || exit 1
cat "$out"
grep -Eq "\"p\": $3," "$out" || { echo "probe_check: p is not $3" >&2; exit 1; }
grep -Eq "\"backend\": \"$2\"" "$out" || { echo "probe_check: backend is not $2" >&2; exit 1; }
grep -Eq "\"name\": \"[^\"]+-$2-p$3\"" "$out" || { echo "probe_check: bad name" >&2; exit 1; }
for key in s g l g_seconds l_seconds; do
    # A positive finite number: digits, not all zero, an optional exponent.
    if ! grep -Eq "^  \"$key\": [0-9]*[1-9][0-9]*(\.[0-9]+)?([eE][-+]?[0-9]+)?,|^  \"$key\": 0\.[0-9]*[1-9][0-9]*([eE][-+]?[0-9]+)?," "$out"; then
        echo "probe_check: $key is missing, zero, negative or not finite" >&2
        exit 1
    fi
done
# The calibration: a time per unit for each count of the exact model.
for key in op div elem load store; do
    grep -Eq "^    \"$key\": [0-9.eE+-]+,?$" "$out" || { echo "probe_check: calibration $key is missing" >&2; exit 1; }
done
# The steadiness: one summary per process, the least steady on top; a
# share of slow timings is a fraction of them, and slow ones are over
# slow_factor times the fast time (no slowdown when none is slow).
awk -v p="$3" '
  /^  "steadiness": \{/ { on = 1; next }
  on && /^  \}/ { on = 0 }
  !on { next }
  { gsub(/[",]/, "") }
  /^    [a-z_]+:/ { top[$1] = $2 }
  /^        [a-z_]+:/ { proc[procs + 0, $1] = $2 }
  /^        slowdown:/ { procs++ }
  END {
    if (!(top["samples:"] > 0 && top["canary_seconds:"] > 0 && top["slow_factor:"] == 1.25 && procs == p)) exit 1
    worst = 0
    for (k = 0; k < p; k++) {
      share = proc[k, "slow_share:"]; slowdown = proc[k, "slowdown:"]
      if (share < 0 || share > 1 || proc[k, "samples:"] < 1) exit 1
      if (share == 0 ? slowdown != 0 : slowdown <= 1.25) exit 1
      if (proc[k, "canary_seconds:"] != top["canary_seconds:"]) exit 1
      worst = share > worst ? share : worst
    }
    if (top["slow_share:"] != worst || proc[top["pid:"], "slow_share:"] != worst) exit 1
  }' "$out" || { echo "probe_check: the steadiness is missing or inconsistent" >&2; exit 1; }
echo "probe_check: ok"
