#!/usr/bin/env bash
# levels.sh VECBSP COMPARE: plans that follow a machine's levels
# (docs/hierarchical.md) run on the hybrid backend, 2 MPI ranks x 2 threads
# on the 2 x 2 machine of levels-2x2.json (and once on 1 rank of 4
# threads, where every group sync is within the rank): run prints eval's
# result, and the exact model's supersteps equal the ones run --profile
# counts, every count of every superstep (COMPARE is tests/gen/compare.py);
# and `vecbsp compile --backend hybrid` emits the same plan as a standalone
# program that bspcc and bsprun build and run (bspcc, bsprun beside VECBSP).
set -u
vecbsp=$1 compare=$2
here=$(cd "$(dirname "$0")" && pwd)
machine=$here/levels-2x2.json
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cases=0
# case FILE PLAN NODES NAME=VALUE...: the model, a profiled run and eval, queued.
case_() {
  local f=$1 plan=$2 nodes=$3
  shift 3
  local defs=() kv
  for kv in "$@"; do defs+=(-D "$kv"); done
  cases=$((cases + 1))
  local c=$dir/$cases
  "$vecbsp" cost --model exact --machine "$machine" --plan "$plan" -p 4 --json "$f" "${defs[@]}" >"$c.model" 2>&1
  "$vecbsp" run --backend hybrid --nodes "$nodes" --machine "$machine" --plan "$plan" -p 4 --profile --json \
    --random 7 "$f" "${defs[@]}" >"$c.counted" 2>&1
  "$vecbsp" eval "$f" "${defs[@]}" --random 7 >"$c.eval" 2>&1
  printf '%s\t%s\t%s\t%s\tfalse\t%s\n' "$(basename "$f") nodes=$nodes $plan $*" "$c.model" "$c.counted" "$c.eval" \
    "vecbsp run --backend hybrid --nodes $nodes --machine $machine --plan $plan -p 4 --profile --random 7 $f ${defs[*]}" \
    >>"$dir/manifest"
}
follow=best,levels=follow,regions=parallel
for n in 3 10; do
  for plan in $follow $follow,inputs=root $follow,prefix=recompute; do case_ "$here/levels.vec" "$plan" 2 n=$n; done
done
case_ "$here/levels.vec" $follow,inputs=root 1 n=10
for n in 4 16; do case_ "$here/exact-dh.vec" $follow 2 n=$n; done
python3 "$compare" "$dir/manifest" || exit 1
bin=$(dirname "$vecbsp")
"$vecbsp" compile --backend hybrid --machine "$machine" --plan $follow -p 4 "$here/levels.vec" -o "$dir/prog.c" &&
  grep -q bsp_group_sync "$dir/prog.c" && "$bin/bspcc" --backend=hybrid -O0 -Wall -Werror "$dir/prog.c" -o "$dir/prog" ||
  { echo "FAIL: compile --backend hybrid: no standalone program by levels"; exit 1; }
want=$("$vecbsp" eval "$here/levels.vec" -D n=10 --random 7)
got=$("$bin/bsprun" --backend=hybrid --nodes 2 -n 4 "$dir/prog" -D n=10 --random 7)
[ "$got" = "$want" ] || { echo "FAIL: the standalone program by levels printed '$got', eval '$want'"; exit 1; }
echo "$cases cases: run prints eval's result, the model equals the counts"
