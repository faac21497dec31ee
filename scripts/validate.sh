#!/usr/bin/env bash
# validate.sh [BUILD]: predicted against measured on this machine, as the
# papers did (docs/validation.md). Probes the machine for each backend and
# p, then runs the papers' experiments with `vecbsp sweep --measure` and
# writes docs/validation/ (CSV and SVG per experiment) and
# docs/validation.md (the summary, computed from the CSVs).
# QUICK=1 runs a reduced set (p = 1 and 2, threads only). Targeted configs
# are measured twice, to show how far the machine repeats itself.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
vecbsp=$build/vecbsp
out=$root/docs/validation
repeat=${REPEAT:-11}
cd "$root"
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# The experiments: name, programs, sizes (scaled from the papers' ranges so
# that every run is long enough to time).
experiments=(
  "mv-square|matvec1 matvec2|--vary m=400:2400:400 --vary n=400:2400:400"
  "mv-n8|matvec1 matvec2|-D n=8 --vary m=200000:1200000:200000"
  "mv-m8|matvec1 matvec2|-D m=8 --vary n=200000:1200000:200000"
  "mss-1-2|mss1 mss2|--vary n=40:160:40"
  "mss-2-3|mss2 mss3|--vary n=56:224:56"
  "mss-3-4|mss3 mss4|--vary n=64:256:64"
  "mss-4-5|mss4 mss5|--vary n=600:2400:600"
  "mss-5|mss5|--vary n=1000000:4000000:1000000"
)
if [ "${QUICK:-0}" = 1 ]; then
  configs=("threads 1 targeted" "threads 2 targeted")
else
  configs=("threads 1 targeted" "threads 2 targeted" "mpi 1 targeted" "mpi 2 targeted"
           "threads 4 oversubscribed" "threads 8 oversubscribed" "mpi 4 oversubscribed")
fi

for config in "${configs[@]}"; do
  read -r backend p kind <<<"$config"
  machine=$out/machine-$backend-p$p.json
  echo "== $backend, p = $p: probing"
  "$vecbsp" probe -p "$p" --backend "$backend" -o "$machine"
  for e in "${experiments[@]}"; do
    IFS='|' read -r name progs sizes <<<"$e"
    files=()
    for prog in $progs; do files+=("examples/$prog.vec"); done
    base=$out/$name-$backend-p$p
    echo "   $name"
    # shellcheck disable=SC2086
    "$vecbsp" sweep "${files[@]}" $sizes -p "$p" --backend "$backend" --machine "$machine" \
      --measure --repeat "$repeat" --csv --plot "$base.svg" >"$base-exact.csv"
    # shellcheck disable=SC2086
    "$vecbsp" sweep "${files[@]}" $sizes -p "$p" --machine "$machine" --model paper --csv >"$base-paper.csv"
    # The same measurement again: how far the machine repeats itself.
    if [ "$kind" = targeted ]; then
      # shellcheck disable=SC2086
      "$vecbsp" sweep "${files[@]}" $sizes -p "$p" --backend "$backend" --machine "$machine" \
        --measure --repeat "$repeat" --csv >"$base-again.csv"
    fi
  done
done
"$root/scripts/validation-report.sh" "$out" "${configs[@]}" >"$root/docs/validation.md"
echo "wrote docs/validation.md"
