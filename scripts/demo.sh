#!/usr/bin/env bash
# demo.sh BUILD: the main job on the embedded default (threads): checks and
# evaluates the papers' programs, then predicts their BSP cost.
set -euo pipefail
build=${1:-build}
v="$build/vecbsp"
cd "$(dirname "$0")/.."
echo "== The papers' programs (vecbsp check)"
for f in examples/matvec1.vec examples/matvec2.vec examples/mss[1-5].vec; do
  printf '  %-22s %s\n' "$f" "$("$v" check "$f")"
done
echo
echo "== Reference interpreter (vecbsp eval, --random 1)"
printf '  %-22s %s\n' "matvec1 m=3 n=4" "$("$v" eval examples/matvec1.vec -D m=3 -D n=4 --random 1)"
printf '  %-22s %s\n' "matvec2 m=3 n=4" "$("$v" eval examples/matvec2.vec -D m=3 -D n=4 --input L=[[-69,26,-10],[34,-18,-13],[96,-34,-68],[-53,94,-24]] --input v=[47,-71,-65,45])"
for k in 1 2 3 4 5; do
  printf '  %-22s %s\n' "mss$k n=30" "$("$v" eval examples/mss$k.vec -D n=30 --random 3)"
done
start=$(date +%s%N)
r=$("$v" eval examples/mss5.vec -D n=1000000 --random 3)
end=$(date +%s%N)
printf '  %-22s %s  (%s s)\n' "mss5 n=10^6" "$r" "$(awk "BEGIN { printf \"%.2f\", ($end - $start) / 1e9 }")"
if "$v" cost examples/mss5.vec -D n=1000 >/dev/null 2>&1; then
  echo
  echo "== Predicted cost on the paper's machine (vecbsp cost --model paper)"
  for f in examples/matvec1.vec examples/matvec2.vec; do
    echo "  $f, m = n = 1000:"
    "$v" cost "$f" -D m=1000 -D n=1000 --model paper | sed 's/^/    /'
  done
fi
