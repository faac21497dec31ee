#!/usr/bin/env bash
# exact.sh VECBSP COMPARE: the exact model's supersteps equal the ones
# run --profile counts, every count of every superstep (w, h, and each
# process's operations and words sent and received), and run prints eval's
# result: for every example under the papers' template and the planner's
# best at p = 1..8 and sizes around p, and under every setting of the
# planner forced one at a time (docs/compiler.md, "Plans"); with a data if
# the model bounds the counts. COMPARE is tests/gen/compare.py. --quick
# (for the sanitizer build, where all of them took 266 s of CI's 20
# minutes, against 106 s without) takes the examples at p = 1, 2, 3 and 8
# and each planner setting at p = 3, n = 12.
set -u
vecbsp=$1 compare=$2
if [ "${3:-}" = --quick ]; then
  example_ps="1 2 3 8" setting_ps=3 setting_sizes=12
else
  example_ps="1 2 3 4 5 6 7 8" setting_ps="2 3" setting_sizes="5 12"
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cases=0
# case FILE PLAN P BOUND NAME=VALUE...: the model, a profiled run and eval, queued.
case_() {
  local f=$1 plan=$2 p=$3 bound=$4
  shift 4
  local defs=() kv
  for kv in "$@"; do defs+=(-D "$kv"); done
  cases=$((cases + 1))
  local c=$dir/$cases
  # Its warning that local was probed at p = 2 goes to stderr, apart from the JSON.
  "$vecbsp" cost --model exact --machine local --plan "$plan" -p "$p" --json "$f" "${defs[@]}" >"$c.model" 2>"$c.model.err" ||
    cat "$c.model.err" >>"$c.model"
  "$vecbsp" run --machine local --plan "$plan" -p "$p" --profile --json --random 7 "$f" "${defs[@]}" >"$c.counted" 2>&1
  "$vecbsp" eval "$f" "${defs[@]}" --random 7 >"$c.eval" 2>&1
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(basename "$f") p=$p $plan $*" "$c.model" "$c.counted" "$c.eval" "$bound" \
    "vecbsp run --plan $plan -p $p --profile --random 7 $f ${defs[*]}" >>"$dir/manifest"
}
# examples PLAN P SIZES...: every example at each size.
examples() {
  local plan=$1 p=$2 n
  shift 2
  for n in "$@"; do
    for f in "$root"/examples/mss*.vec; do case_ "$f" "$plan" "$p" false n="$n"; done
    case_ "$root/examples/matvec1.vec" "$plan" "$p" false m="$n" n=3
    case_ "$root/examples/matvec2.vec" "$plan" "$p" false m=3 n="$n"
    case_ "$root/tests/run/exact-partial.vec" "$plan" "$p" false n="$n"
    case_ "$root/tests/run/exact-dataif.vec" "$plan" "$p" true n="$n"
  done
}
for p in $example_ps; do
  examples paper "$p" 1 5 12
  examples best "$p" 1 5 12
done
# The builtins added since the papers, a branch that would fault, dh
# at lengths that are powers of two (the butterfly where p is one too and
# at most n, the blocks gathered and scattered back elsewhere), and
# neighbours at lengths around p (its halo exchange), at fewer
# points than the examples: compiling each plan is most of the time, and
# each has its sizes.
for p in 1 2 3 4; do
  for plan in paper best; do
    [ $((p % 2)) = 1 ] && case_ "$root/tests/run/exact-untaken.vec" "$plan" "$p" true n=5
    for n in 5 12; do case_ "$root/tests/run/exact-builtins.vec" "$plan" "$p" false n="$n"; done
    for n in 4 16; do case_ "$root/tests/run/exact-dh.vec" "$plan" "$p" false n="$n"; done
  done
  # neighbours at lengths around p: blocks of length 0 (n < p) are skipped
  for n in 1 $((p + 1)) 9; do case_ "$root/tests/run/exact-neighbours.vec" best "$p" false n="$n"; done
  case_ "$root/tests/run/exact-neighbours.vec" paper "$p" false n=$((p + 2))
  if [ "$p" -gt 1 ]; then
    for n in 0 $((p - 1)) 9; do case_ "$root/tests/run/exact-neighbours.vec" best,regions=parallel "$p" false n="$n"; done
  fi
done
# Work hoisted out of loops (src/ir/hoist.c), in a fold's element and in
# a fused map.
for p in 1 2 3; do
  for plan in paper best; do case_ "$root/tests/run/exact-invariant.vec" "$plan" "$p" false n=5; done
done
# Iterations over pairs (docs/compiler.md): Jacobi, its grid by blocks
# across the iterations when the regions are parallel, and the case of
# nested, unwritten and local pairs.
for p in 1 2 3 4; do
  for plan in paper best best,regions=parallel; do case_ "$root/examples/jacobi.vec" "$plan" "$p" false n=6 k=3; done
  case_ "$root/tests/cases/iter-pairs.vec" best "$p" false n=5 k=3
done
for setting in fold=tree fold=allreduce regions=sequential inputs=all inputs=block; do
  case_ "$root/tests/run/exact-builtins.vec" "best,$setting" 3 false n=12
  case_ "$root/tests/run/exact-dh.vec" "best,$setting" 2 false n=8
  case_ "$root/tests/run/exact-neighbours.vec" "best,$setting" 3 false n=5
done
for setting in fold=gather fold=tree fold=allreduce prefix=store prefix=recompute regions=parallel \
    regions=sequential inputs=root inputs=all inputs=block lanes=1 lanes=4; do
  for p in $setting_ps; do examples "best,$setting" "$p" $setting_sizes; done
done
python3 "$compare" "$dir/manifest" || exit 1
echo "$cases cases: the model equals the counts"
