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
echo "probe_check: ok"
