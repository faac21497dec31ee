#!/usr/bin/env bash
# refit.sh VECBSP: `vecbsp probe --refit` on a recorded probe
# (machine-refit.json, the runs of a real one at p = 2): the fit is
# linear in the times, so doubling every recorded time must double every
# unit and leave r^2 as it was (its errors are in cli.sh).
set -u
vecbsp=$1
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# units FILE: "name value" for each unit of the calibration, and r2.
units() {
  awk '/^  "calibration": \{/ { on = 1; next } on && /^  \}/ { on = 0 }
       on { gsub(/[",]/, ""); sub(/:/, ""); print $1, $2 }
       /^  "calibration_r2":/ { gsub(/,/, ""); print "r2", $2 }' "$1"
}

"$vecbsp" probe --refit "$here/machine-refit.json" -o "$tmp/once.json" || fail "refit failed"
awk '/"seconds":/ { sub(/[0-9.eE+-]+$/, sprintf("%.17g", 2 * $2)) } { print }' "$here/machine-refit.json" >"$tmp/twice-runs.json"
"$vecbsp" probe --refit "$tmp/twice-runs.json" -o "$tmp/twice.json" || fail "refit of doubled times failed"
units "$tmp/once.json" >"$tmp/once.txt"
units "$tmp/twice.json" >"$tmp/twice.txt"
grep -q '^r2 ' "$tmp/once.txt" && [ "$(wc -l <"$tmp/once.txt")" -ge 19 ] || fail "expected 18 units or more and r2, got: $(cat "$tmp/once.txt")"
awk '$1 == "elem" && !($2 > 0) { exit 1 }' "$tmp/once.txt" || fail "no time per element"
# Each recorded time goes with its own program and size: the fit explains
# them (r^2 0.85 with memory units bound by their twins in cache, 0.91
# without; 0.61 without, with each time given to the next size).
awk '$1 == "r2" && !($2 > 0.8) { exit 1 }' "$tmp/once.txt" || fail "r^2 $(grep r2 "$tmp/once.txt"): runs mismatched?"
paste "$tmp/once.txt" "$tmp/twice.txt" | awk '
  { want = $1 == "r2" ? $2 : 2 * $2
    if ($1 != $3 || (want == 0 ? $4 != 0 : ($4 / want - 1) ^ 2 > 1e-18)) { print "  " $0; bad = 1 } }
  END { exit bad }' || fail "doubled times did not give doubled units and the same r2"
grep -q '"calibration_runs"' "$tmp/once.json" || fail "the refitted file lists no runs"

# The probe's steadiness, kept in the machine file: described in the table,
# warned about on stderr when the file is written and more than 5% of the
# timings were slow (an older file has none: no line, no warning).
steady() {  # SHARE: machine-refit.json with a steadiness of that share
  awk -v share="$1" 'NR == 1 { print; print "  \"steadiness\": {\"seconds\": 0.5, \"slow_factor\": 1.25, " \
    "\"samples\": 1000, \"canary_seconds\": 1e-05, \"slow_share\": " share ", \"slowdown\": 2.0}," ; next } { print }' \
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

[ $failed -eq 0 ] && echo "refit: ok"
exit $failed
