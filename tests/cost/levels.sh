#!/usr/bin/env bash
# levels.sh VECBSP JSON_CHECK: hierarchical machines from the command line
# (docs/hierarchical.md): machine files with levels and their errors,
# cost, plan and sweep on a tree (sweep --measure on the hybrid backend),
# run planning flat on one, and what a tree cannot do (another p, sweep
# --measure on a flat backend).
set -u
vecbsp=$1 check=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
export VECBSP_CACHE=$tmp/cache

# shellcheck source=tests/cli-lib.sh
. "$(dirname "$0")/../cli-lib.sh"

cat >"$tmp/sum.vec" <<'VEC'
param n
input x : [n]int
main = fold (+) x
VEC
# 2 ranks of 2 threads; the flat parameters come from the tree: s = 1/c =
# 2^30, g = 2^-29 s at s = 2 operations, l = (2^-10 + 2^-12) s = 1310720.
cat >"$tmp/tree.json" <<'JSON'
{ "name": "two-by-two",
  "levels": { "name": "ranks", "p": 2, "g": 1.862645149230957e-09, "l": 0.0009765625,
    "children": { "name": "threads", "p": 2, "g_down": 1e-10, "g_up": 2e-10, "l": 0.000244140625,
      "children": { "name": "core", "c": 9.313225746154785e-10 } } } }
JSON
json cost "$tmp/sum.vec" -D n=1000 --machine "$tmp/tree.json" --plan best,inputs=block,regions=parallel,levels=follow \
  --json -- machine=two-by-two p=4 g=2 l=1310720 s=1073741824 by_levels=true levels="ranks 2 x threads 2 (4 workers)" \
  S=2 "supersteps[0].level_round.round=1" "supersteps[0].level_round.way=up" "supersteps[1].level_round.round=2" \
  "supersteps[0].seconds=number"
"$vecbsp" cost "$tmp/sum.vec" -D n=1000 --machine "$tmp/tree.json" >"$tmp/out" || fail "cost on a tree"
grep -q "machine two-by-two (levels ranks 2 x threads 2 (4 workers); flat p = 4, g = 2, l = 1310720, s = 1073741824)" "$tmp/out" ||
  fail "cost's header on a tree: $(head -n 1 "$tmp/out")"
grep -q "on the machine's levels" "$tmp/out" || fail "cost's time on a tree"
"$vecbsp" plan "$tmp/sum.vec" -D n=1000000 --machine "$tmp/tree.json" >"$tmp/out" || fail "plan on a tree"
grep -q "parallel by levels, result on process 0" "$tmp/out" || fail "plan lists the alternatives by levels"
"$vecbsp" sweep "$tmp/sum.vec" --vary n=1000:3000:1000 --machine "$tmp/tree.json" --csv >"$tmp/out" || fail "sweep on a tree"
[ "$(wc -l <"$tmp/out")" -eq 4 ] || fail "sweep on a tree: $(cat "$tmp/out")"

# run plans flat on a hierarchical machine (its flat parameters), at any p.
[ "$("$vecbsp" run "$tmp/sum.vec" -D n=1000 --random 1 --machine "$tmp/tree.json" -p 2)" = \
  "$("$vecbsp" eval "$tmp/sum.vec" -D n=1000 --random 1)" ] || fail "run with a tree machine"

# sweep --measure runs a tree's plans on the hybrid backend (2 ranks of 2
# threads here): every point measured, and its error against the levels'
# prediction.
json sweep "$tmp/sum.vec" --vary n=1000:2000:1000 --machine "$tmp/tree.json" --measure --backend hybrid --repeat 1 \
  --json -- "rows[0].measured=number" "rows[1].measured=number" "rows[1].error=number" "rows[1].p=4"

expect_error "vecbsp: error: sweep --measure --backend hybrid: give the machine with --machine (vecbsp probe --levels RANKSxTHREADS measures one)" \
  "$vecbsp" sweep "$tmp/sum.vec" --vary n=10:20:10 --measure --backend hybrid

# What a tree cannot do.
expect_error "vecbsp: error: -p 3: machine two-by-two is hierarchical with 4 workers, the processes of its plans" \
  "$vecbsp" cost "$tmp/sum.vec" -D n=10 --machine "$tmp/tree.json" -p 3
expect_error "vecbsp: error: machine two-by-two is hierarchical: its plans are for its 4 workers, so p does not vary" \
  "$vecbsp" plan "$tmp/sum.vec" -D n=10 --machine "$tmp/tree.json" --vary p=1:4
expect_error "vecbsp: error: machine two-by-two is hierarchical: its plans are for its 4 workers, so p does not vary" \
  "$vecbsp" sweep "$tmp/sum.vec" --vary n=10:20:10 --vary p=2:4:2 --machine "$tmp/tree.json"
expect_error "vecbsp: error: sweep --measure: machine two-by-two has levels, whose plans run on --backend hybrid (docs/hierarchical.md)" \
  "$vecbsp" sweep "$tmp/sum.vec" --vary n=10:20:10 --machine "$tmp/tree.json" --measure
expect_error "vecbsp: error: --plan: levels must be flat or follow, got 'up'" \
  "$vecbsp" cost "$tmp/sum.vec" -D n=10 --machine "$tmp/tree.json" --plan best,levels=up

# Bad files: every error names the file.
bad() {  # bad JSON MESSAGE
  printf '%s\n' "$1" >"$tmp/bad.json"
  expect_error "vecbsp: error: $tmp/bad.json: $2" "$vecbsp" cost "$tmp/sum.vec" -D n=10 --machine "$tmp/bad.json"
}
bad '{"levels": {"p": 2, "g": 1e-9, "l": 1e-6, "children": [{"c": 1e-9}, {"c": -1}]}}' \
  'levels.children[1]: "c" must be a positive number of seconds'
bad '{"levels": {"c": 1e-9}}' 'levels: the root must be a master (a level with "children")'
bad '{"p": 3, "levels": {"p": 2, "g": 1e-9, "l": 1e-6, "children": {"c": 1e-9}}}' '"p" must be the number of workers in "levels"'
bad '{"levels": {"p": 2, "g": 1e-9, "l": 1e-6, "children": {"c": 1e-9, "g": 1}}}' \
  'levels.children: a worker (a level without "children") has no "g"'
bad '{"levels": {"p": 2, "g": 1e-9, "l": 1e-6, "kids": {"c": 1e-9}}}' \
  'levels: unknown key "kids" (a level has name, p, c, g or g_down and g_up, l, children)'
# A flat file still needs its parameters.
bad '{"p": 2, "g": 1, "l": 1}' '"s" is missing'

# probe --levels: its options.
expect_error "vecbsp: error: --levels expects RANKSxTHREADS, each from 1 to 1024 (e.g. 2x2), got '2by2'" \
  "$vecbsp" probe --levels 2by2
expect_error "vecbsp: error: --levels 1x1: a machine of one worker has no levels to measure" "$vecbsp" probe --levels 1x1
expect_error "vecbsp: error: --levels measures MPI between the ranks and threads within one: it takes no -p, --backend or --refit" \
  "$vecbsp" probe --levels 2x2 --backend mpi
exit $failed
