#!/usr/bin/env bash
# run.sh [BUILD_DIR] [REPEATS]: times the static cost analysis (the
# analysis_seconds that `vecbsp cost --json` reports: parsing and process
# start excluded) on the papers' programs at the papers' largest sizes, and
# a whole sweep of many sizes (wall time, process included).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
repeats=${2:-7}
vecbsp=$build/vecbsp
[ -x "$vecbsp" ] || { echo "run.sh: $vecbsp is missing; build first" >&2; exit 1; }
cd "$root"

# analysis PROGRAM MODEL PARAMS...: the median and the minimum of REPEATS runs, in ms.
analysis() {
  local prog=$1 model=$2
  shift 2
  local defs=() kv
  for kv in "$@"; do defs+=(-D "$kv"); done
  for _ in $(seq "$repeats"); do
    "$vecbsp" cost "examples/$prog.vec" "${defs[@]}" --model "$model" --json |
      sed -n 's/^ *"analysis_seconds": \([0-9.e+-]*\).*/\1/p'
  done | sort -g | awk -v prog="$prog" -v model="$model" -v params="$*" '
    { t[NR] = $1 * 1000 }
    END { printf "%-8s %-6s %-16s %10.3f %10.3f\n", prog, model, params, t[int((NR + 1) / 2)], t[1] }'
}

printf "%-8s %-6s %-16s %10s %10s\n" program model params "median ms" "min ms"
for model in paper exact; do
  analysis mss1 $model n=160
  analysis mss2 $model n=224
  analysis mss3 $model n=256
  analysis mss4 $model n=2400
  analysis mss5 $model n=400000
  analysis mss5 $model n=4000000000
  analysis matvec1 $model m=100000 n=100000
  analysis matvec2 $model m=100000 n=100000
done

# A sweep of 10000 sizes of two regular programs, and of 1000 sizes of mss4.
start=$(date +%s.%N)
"$vecbsp" sweep examples/matvec1.vec examples/matvec2.vec -D n=1000 --vary m=1000:10000000:1000 --csv >/dev/null
mid=$(date +%s.%N)
"$vecbsp" sweep examples/mss4.vec examples/mss5.vec --vary n=10:10000:10 --csv >/dev/null
end=$(date +%s.%N)
awk -v a="$start" -v b="$mid" -v c="$end" 'BEGIN {
  printf "sweep: matvec1+matvec2 over 10000 sizes of m: %.2f s wall (%.3f ms per prediction)\n", b - a, (b - a) * 1000 / 20000
  printf "sweep: mss4+mss5 over n = 10..10000 (1000 sizes): %.2f s wall (%.3f ms per prediction)\n", c - b, (c - b) * 1000 / 2000 }'
