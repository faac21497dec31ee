#!/usr/bin/env bash
# demo.sh BUILD: the main job on the embedded default (threads): measures
# this machine, then predicts and runs the mss derivation and the two
# matrix-vector algorithms at a few sizes, and prints one table: program,
# size, predicted, measured, error, and which formulation is fastest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
v=$build/vecbsp
cd "$root"
p=$(nproc)
[ "$p" -gt 2 ] && p=2
machine=$build/demo-machine.json
echo "== Measuring this machine (vecbsp probe -p $p, threads)"
"$v" probe -p "$p" -o "$machine"
awk -F'[:,]' '/"s":/ { s = $2 } /"g_seconds":/ { g = $2 } /"l_seconds":/ { l = $2 }
  END { printf "   s = %.3g ops/s, g = %.3g s/word, l = %.3g s\n", s, g, l }' "$machine"
echo
# sweep's warnings that the machine's speed was not steady are counted at
# the end; anything else it says goes to stderr as it would.
warnings=$(mktemp)
trap '{ grep -v "speed was not steady" "$warnings" >&2 || true; }; rm -f "$warnings"' EXIT
echo "== Predicted (exact model) and measured (vecbsp run, median of 11), p = $p"
printf '%-24s %-14s %12s %12s %8s  %s\n' "problem" "program" "predicted s" "measured s" "error" "fastest"
# group TITLE SIZE PROGRAMS -- SWEEP_OPTIONS: one block of the table.
groups=0
group() {
  local title=$1 size=$2 files=()
  groups=$((groups + 1))
  shift 2
  while [ "$1" != -- ]; do files+=("examples/$1.vec"); shift; done
  shift
  "$v" sweep "${files[@]}" "$@" -p "$p" --machine "$machine" --measure --repeat 11 --csv 2>>"$warnings" |
    awk -F, -v title="$title" -v size="$size" '
      $1 == "program" { for (i = 1; i <= NF; i++) col[$i] = i; next }
      { n++; prog[n] = $1; pred[n] = $col["predicted"]; meas[n] = $col["measured"]
        if (!bp || pred[n] < pred[bp]) bp = n
        if (!bm || meas[n] < meas[bm]) bm = n }
      END { for (i = 1; i <= n; i++) {
              mark = (i == bm ? "measured" : "") (i == bp ? (i == bm ? " and predicted" : "predicted") : "")
              sub(/\.vec$/, "", prog[i])
              printf "%-24s %-14s %12.4g %12.4g %+7.1f%%  %s\n", (i == 1 ? title " " size : ""), prog[i],
                     pred[i], meas[i], 100 * (pred[i] - meas[i]) / meas[i], mark } }'
}
group "mss derivation" "n=80" mss1 mss2 mss3 mss4 mss5 -- --vary n=80:80:1
group "mss derivation" "n=200" mss1 mss2 mss3 mss4 mss5 -- --vary n=200:200:1
group "mss (4) vs (5)" "n=2400" mss4 mss5 -- --vary n=2400:2400:1
group "matvec m=n" "1000" matvec1 matvec2 -- --vary m=1000:1000:1 -D n=1000
group "matvec n=8" "m=400000" matvec1 matvec2 -- -D n=8 --vary m=400000:400000:1
group "matvec m=8" "n=400000" matvec1 matvec2 -- -D m=8 --vary n=400000:400000:1
unsteady=$(grep -c "speed was not steady" "$warnings" || true)
if [ "$unsteady" -gt 0 ]; then
  echo
  echo "The machine's speed was not steady during $unsteady of these $groups measurements: their errors are"
  echo "the machine's as much as the model's (docs/user-guide.md, \"A machine that is not steady\")."
fi
echo
echo "More: make validate (docs/validation.md), make figures (the papers' predicted figures)."
