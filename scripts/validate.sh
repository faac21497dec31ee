#!/usr/bin/env bash
# validate.sh [BUILD]: predicted against measured on this machine, as the
# papers did (docs/validation.md). Probes the machine for each backend and
# p, then runs the papers' experiments with `vecbsp sweep --measure` and
# writes docs/validation/ (CSV and SVG per experiment) and
# docs/validation.md (the summary, computed from the CSVs).
# QUICK=1 runs a reduced set (p = 1 and 2, threads only); CONFIGS="mpi 2
# targeted" one config, EXPERIMENTS="mss-1-2 mv-m8" some experiments, GUARD=0
# no state guard, ROUNDS=R rounds per measurement (3), and
# OUT=DIR writes DIR and DIR.md instead (tests/cost/validate.sh runs it on
# stubs that way). Targeted configs are measured twice, to show how far
# the machine repeats itself.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
vecbsp=$build/vecbsp
out=${OUT:-$root/docs/validation}
mkdir -p "$out"
out=$(cd "$out" && pwd)
repeat=${REPEAT:-11}
# Rounds over all the sizes, the median kept: this VM's memory bandwidth
# changes by up to 2x from one second to the next.
rounds=${ROUNDS:-3}
# Seconds between the two quick states that check a probe settled.
settle=${SETTLE_SECONDS:-10}
# GUARD=0 measures without the state guard below: on a machine whose state
# flips within a second, no quick state holds and the guard probes again
# and again (one validation probed threads p = 1 nine times in ten minutes
# and measured two experiments); the fastest round then does its work.
guard=${GUARD:-1}
cd "$root"
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
known=" ${experiments[*]%%|*} "
for wanted in ${EXPERIMENTS:-}; do  # a misspelt name would measure nothing
  [[ $known == *" $wanted "* ]] || { echo "validate.sh: error: no experiment '$wanted'" >&2; exit 1; }
done
if [ -n "${CONFIGS:-}" ]; then
  configs=("$CONFIGS")
elif [ "${QUICK:-0}" = 1 ]; then
  configs=("threads 1 targeted" "threads 2 targeted")
else
  configs=("threads 1 targeted" "threads 2 targeted" "mpi 1 targeted" "mpi 2 targeted"
           "threads 4 oversubscribed" "threads 8 oversubscribed" "mpi 4 oversubscribed")
fi

# This VM's exchange costs change for minutes at a time (the host moves its
# vCPUs): an empty sync at threads p = 2 takes 0.12 us, then 0.5 or 100 us;
# a word 0.25 ns, then 0.6 ns. And at times the two vCPUs compute as one
# core and a half: mss2 at n = 224 and p = 2 took 0.50 ms, then 0.66-0.68 ms
# for minutes (0.61-0.66 at p = 1 both times), sync and g unchanged. Its
# memory too: matvec at threads p = 2 ran 21-46% slower than predicted on
# square matrices and 24-37% faster with n = 8 for a whole experiment each,
# exchange costs and compute canary unchanged. A prediction can only be
# checked against runs made in the state the machine was probed in, so
# every targeted experiment waits (up to two minutes) for that state (a
# quick probe: sync and g, the canary, mss2 at n = 168 on p processes, and
# the memory canary, matvec1 streaming 80 MB; each the fastest of three,
# as the probe and the measurements keep their fastest round;
# the same within a factor 1.5, 1.5, 1.15 and 1.2, same_state) and is
# measured again if the state changed while it ran.
# state-BACKEND-pP.csv logs it.
median_seconds() {  # BACKEND P RUNS PROGRAM DEFINE...: seconds of PROGRAM, the median of RUNS runs
  local backend=$1 p=$2 runs=$3 program=$4 defines=() d
  shift 4
  for d in "$@"; do defines+=(-D "$d"); done
  "$vecbsp" run "examples/$program.vec" "${defines[@]}" --random 1 -p "$p" --backend "$backend" --repeat "$runs" \
    --json 2>/dev/null | awk -F'[:,]' '/"seconds_median"/ { print $2 + 0 }'
}
# The canaries: mss2 at n = 168; matvec1 at m = 10^6, n = 8 (80 MB
# streamed); mss3 at n = 32 (a few microseconds, 3 barriers).
canaries() {  # BACKEND P: "CANARY MEMORY SHORT" in seconds
  echo "$(median_seconds "$1" "$2" 21 mss2 n=168) $(median_seconds "$1" "$2" 11 matvec1 m=1000000 n=8)" \
    "$(median_seconds "$1" "$2" 101 mss3 n=32)"
}
quick_state() {  # BACKEND P: "SYNC G CANARY MEMORY SHORT" now, in seconds
  local probe=$build/bspprobe
  [ "$1" = mpi ] && probe=$build/bspprobe-mpi
  for _ in 1 2 3; do
    "$build/bsprun" --backend="$1" -n "$2" "$probe" --quick 2>/dev/null |
      awk -F'[:,]' '/"sync_seconds"/ && !s { s = $2 } /"g_seconds"/ && !g { g = $2 } END { printf "%s %s ", s + 0, g + 0 }'
    canaries "$1" "$2"
  done | awk '{ for (i = 1; i <= 5; i++) if (NR == 1 || $i < lo[i]) lo[i] = $i }
    END { for (i = 1; i <= 5; i++) printf "%s%s", lo[i], i < 5 ? " " : "\n" }'  # the fastest of three, as measurements keep
}
within() {  # "F1 F2 ..." A B: each of the first values of A and B within its factor of the other's (the rest unchecked)
  awk -v f="$1" -v a="$2" -v b="$3" 'BEGIN { n = split(f, k, " "); split(a, x, " "); split(b, y, " ")
    for (i = 1; i <= n; i++) if (x[i] > k[i] * y[i] || y[i] > k[i] * x[i]) exit 1 }'
}
# The guard: sync and g within a factor 1.5, the canary within 15%, the
# memory canary within 20% (the memory is the least steady). MPI at p = 2
# has two exchange states, an empty sync of 0.17-0.26 us with g 0.48-0.63
# ns a word and one of 0.49-0.55 us with 1.04-1.38 ns, each for a minute or
# more; mss1 and mss2 at n = 40-160 ran 25-58% slower in the second. Every
# other config stayed within a factor 1.2 of its probed sync and g.
# The short canary is logged, not guarded: mss3 at n = 64 ran at 15.5-16.4
# us in three validations of MPI p = 2 and 11.1-11.4 us on a quiet machine
# after them, every guarded value in its probed state; the log will say
# whether a run of a few microseconds sees that state.
same_state() { within "1.5 1.5 1.15 1.2" "$1" "$2"; }
# A probe made in a passing state predicts every experiment of its config
# from it (one validation probed MPI p = 2 with an empty sync of 0.49 us,
# then ran every experiment at 0.17-0.21 us, within the guard's factor 4
# then: mss at small n were predicted up to 100% high). So the state right
# after the probe is measured again 10 s later, and the machine probed
# again, three times at most, if the two differ (same_state), or if the
# empty sync right after the probe is not within a factor 1.5 of the
# probe's own (another validation's probe measured 0.17 us and the machine
# then stayed at 0.49 us for five experiments). Prints the state it was
# probed in: the mean of the two, as one quick state can be off (one
# validation guarded MPI p = 2 against a canary of 0.297 ms, 10-17% above
# the 0.245-0.280 ms it measured before and after each experiment, and
# measured five of its eight experiments twice for that alone); if no
# probe settles, a quick state in the last probe's own exchange state (one
# validation whose three probes all measured 0.17 us, each followed by a
# quick state of 0.49 us, guarded against the 0.49 us state and ran mss1
# and mss2 in it).
mean_state() {  # A B: the geometric mean of two states, field by field
  awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " ")
    for (i = 1; i <= n; i++) printf "%g%s", sqrt(x[i] * y[i]), i < n ? " " : "\n" }'
}
probe_settled() {  # BACKEND P MACHINE
  local now later own reference=
  for _ in 1 2 3 4; do
    "$vecbsp" probe -p "$2" --backend "$1" -o "$3" >&2
    own=$(awk -F'[:,]' '/^  "sync_seconds"/ { print $2 + 0 }' "$3")
    now=$(quick_state "$1" "$2")
    sleep "$settle"
    later=$(quick_state "$1" "$2")
    if within "1.5" "${now%% *}" "$own"; then
      reference=$now
      same_state "$now" "$later" && reference=$(mean_state "$now" "$later") && break
    elif within "1.5" "${later%% *}" "$own"; then
      reference=$later
    else
      reference=
    fi
    echo "   probed in a passing state (sync $own; then $now; then $later)" >&2
  done
  echo "${reference:-$now}"
}
await_state() {  # BACKEND P REFERENCE: waits up to two minutes for it; prints the state
  local now tries=0
  now=$(quick_state "$1" "$2")
  while ! same_state "$now" "$3" && [ $tries -lt 8 ]; do
    sleep 15
    tries=$((tries + 1))
    now=$(quick_state "$1" "$2")
  done
  echo "$now"
}

# A state that outlasts the wait of two attempts (over four minutes: one
# validation run's threads p = 2 went from an empty sync of 0.12 us and g
# of 0.26 ns to 0.50 us and 0.67 ns during its first experiment and stayed
# there for both, measured 22-67% slower than predicted) is the machine's
# state for now: it is probed again (twice at most per config; the
# machine file it replaces is kept as machine-BACKEND-pP-probeN.json, and
# the state log says which probe each attempt was held to), and the
# experiment measured a third time against that probe.
max_reprobes=2

# sweep warns on stderr when the machine's speed was not steady while it
# measured (a fixed loop slow in more than 5% of its timings); the report
# counts the experiments with a warning in OUT.err.
measure() {  # OUT [OPTION...]: the exact model's CSV of one experiment, measured
  local out=$1 status=0
  shift
  # shellcheck disable=SC2086
  "$vecbsp" sweep "${files[@]}" $sizes -p "$p" --backend "$backend" --machine "$machine" \
    --measure --repeat "$repeat" --rounds "$rounds" --csv "$@" >"$out" 2>"${out%.csv}.err" || status=$?
  cat "${out%.csv}.err" >&2
  return $status
}

measure_in_state() {  # the experiment, held to the probed state (updates probed, probes; logs each attempt)
  local attempt before after same
  for attempt in 1 2 3; do
    if [ "$attempt" = 3 ]; then
      [ "$probes" -le "$max_reprobes" ] || return 0
      echo "   out of its probed state twice: probing again"
      mv "$machine" "${machine%.json}-probe$probes.json"
      probes=$((probes + 1))
      probed=$(probe_settled "$backend" "$p" "$machine")
    fi
    before=$(await_state "$backend" "$p" "$probed")
    measure "$base-exact.csv" --plot "$base.svg"
    after=$(quick_state "$backend" "$p")
    same=yes
    same_state "$before" "$probed" && same_state "$after" "$probed" || same=no
    echo "$name,$attempt,${probed// /,},${before// /,},${after// /,},$same,$probes" >>"$log"
    [ $same = yes ] && return 0
  done
  return 0  # the last attempt's measurement stands, logged as out of state
}

for config in "${configs[@]}"; do
  read -r backend p kind <<<"$config"
  machine=$out/machine-$backend-p$p.json
  echo "== $backend, p = $p: probing"
  rm -f "${machine%.json}"-probe*.json
  guarded=no
  [ "$kind" = targeted ] && [ "$guard" = 1 ] && guarded=yes
  if [ $guarded = yes ]; then
    probed=$(probe_settled "$backend" "$p" "$machine")
    probes=1
    log=$out/state-$backend-p$p.csv
    echo "experiment,attempt,probed_sync,probed_g,probed_canary,probed_memory,probed_short,before_sync,before_g,before_canary,before_memory,before_short,after_sync,after_g,after_canary,after_memory,after_short,same,probe" >"$log"
  else
    "$vecbsp" probe -p "$p" --backend "$backend" -o "$machine"
  fi
  for e in "${experiments[@]}"; do
    IFS='|' read -r name progs sizes <<<"$e"
    [ -z "${EXPERIMENTS:-}" ] || [[ " $EXPERIMENTS " == *" $name "* ]] || continue
    files=()
    for prog in $progs; do files+=("examples/$prog.vec"); done
    base=$out/$name-$backend-p$p
    echo "   $name"
    if [ $guarded = yes ]; then
      measure_in_state
    else
      measure "$base-exact.csv" --plot "$base.svg"
    fi
    # shellcheck disable=SC2086
    "$vecbsp" sweep "${files[@]}" $sizes -p "$p" --machine "$machine" --model paper --csv >"$base-paper.csv"
    # The same measurement again: how far the machine repeats itself.
    if [ "$kind" = targeted ]; then measure "$base-again.csv"; fi
  done
done
"$root/scripts/validation-report.sh" "$out" "${configs[@]}" >"$out.md"
echo "wrote $out.md"
