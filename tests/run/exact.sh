#!/usr/bin/env bash
# exact.sh VECBSP EXACT_DUMP: the exact model's supersteps (w and h of each)
# equal the ones run --profile counts, for every example at p = 1..8 and
# several sizes.
set -u
vecbsp=$1 dump=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
failed=0
check() {  # check FILE P NAME=VALUE...
  local f=$1 p=$2
  shift 2
  local defs=() kv
  for kv in "$@"; do defs+=(-D "$kv"); done
  local want got
  want=$("$dump" "$f" "$p" "$@")
  got=$("$vecbsp" run -p "$p" --profile --json "$f" "${defs[@]}" --random 7 |
        grep -E '^ *"(w|h)":' | sed 's/[^0-9]//g' | paste -d' ' - -)
  if [ "$got" != "$want" ]; then
    echo "FAIL $f p=$p $*"; echo "  model:   $(echo $want)"; echo "  counted: $(echo $got)"; failed=1
  fi
}
for p in 1 2 3 4 5 6 7 8; do
  for n in 1 5 12; do
    for f in "$root"/examples/mss*.vec; do check "$f" $p n=$n; done
    check "$root/examples/matvec1.vec" $p m=$n n=3
    check "$root/examples/matvec2.vec" $p m=3 n=$n
  done
done
exit $failed
