#!/usr/bin/env bash
# exact.sh VECBSP EXACT_DUMP: the exact model's supersteps (w and h of each)
# equal the ones run --profile counts, for every example at p = 1..8 and
# several sizes; with a data if they bound them; the regression programs
# exact-*.vec give eval's result; and run --profile reports every process's
# work in every superstep.
set -u
vecbsp=$1 dump=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
failed=0
# counted FILE P SEED NAME=VALUE...: "w h" of each superstep run --profile counts.
counted() {
  local f=$1 p=$2 seed=$3
  shift 3
  local defs=() kv
  for kv in "$@"; do defs+=(-D "$kv"); done
  "$vecbsp" run -p "$p" --profile --json "$f" "${defs[@]}" --random "$seed" |
    grep -E '^ *"(w|h)":' | sed 's/[^0-9]//g' | paste -d' ' - -
}
check() {  # check FILE P NAME=VALUE...: the model equals the counts
  local f=$1 p=$2
  shift 2
  local want got
  want=$("$dump" "$f" "$p" "$@")
  got=$(counted "$f" "$p" 7 "$@")
  if [ "$got" != "$want" ]; then
    echo "FAIL $f p=$p $*"; echo "  model:   $(echo $want)"; echo "  counted: $(echo $got)"; failed=1
  fi
}
bound() {  # bound FILE P SEED NAME=VALUE...: the model bounds the counts, superstep by superstep
  local f=$1 p=$2 seed=$3
  shift 3
  local want got
  want=$("$dump" "$f" "$p" "$@")
  got=$(counted "$f" "$p" "$seed" "$@")
  if [ "$(echo "$want" | wc -l)" != "$(echo "$got" | wc -l)" ] ||
     paste -d' ' <(echo "$want") <(echo "$got") | awk '$1 < $3 || $2 < $4 { bad = 1 } END { exit !bad }'; then
    echo "FAIL bound $f p=$p seed=$seed $*"; echo "  model:   $(echo $want)"; echo "  counted: $(echo $got)"; failed=1
  fi
}
same_as_eval() {  # same_as_eval FILE P NAME=VALUE...: run prints eval's result
  local f=$1 p=$2
  shift 2
  local defs=() kv
  for kv in "$@"; do defs+=(-D "$kv"); done
  if [ "$("$vecbsp" run -p "$p" "$f" "${defs[@]}" --random 3)" != "$("$vecbsp" eval "$f" "${defs[@]}" --random 3)" ]; then
    echo "FAIL run differs from eval: $f p=$p $*"; failed=1
  fi
}
work_per_process() {  # work_per_process FILE P NAME=VALUE...: run --profile gives each superstep P work times
  local f=$1 p=$2
  shift 2
  local defs=() kv
  for kv in "$@"; do defs+=(-D "$kv"); done
  "$vecbsp" run -p "$p" --profile --json "$f" "${defs[@]}" --random 1 | awk -v p="$p" '
    /"w":/ { steps++ }
    /"work_seconds": \[/ { inside = 1; lists++; next }
    inside && /\]/ { inside = 0; if (count != p) bad = 1; count = 0; next }
    inside { count++; if ($1 !~ /^[0-9.e+-]+,?$/ || $1 ~ /^-/) bad = 1 }
    END { exit !(steps > 0 && lists == steps && !bad) }' ||
    { echo "FAIL run --profile: not $p non-negative work times per superstep: $f p=$p $*"; failed=1; }
}
for p in 1 2 3; do work_per_process "$root/examples/mss1.vec" $p n=9; done
for p in 1 2 3 4 5 6 7 8; do
  for n in 1 5 12; do
    for f in "$root"/examples/mss*.vec; do check "$f" $p n=$n; done
    check "$root/examples/matvec1.vec" $p m=$n n=3
    check "$root/examples/matvec2.vec" $p m=3 n=$n
    check "$root/tests/run/exact-partial.vec" $p n=$n
    for seed in 1 2 3 4; do bound "$root/tests/run/exact-dataif.vec" $p $seed n=$n; done
  done
  same_as_eval "$root/tests/run/exact-partial.vec" $p n=7
  same_as_eval "$root/tests/run/exact-dataif.vec" $p n=7
done
exit $failed
