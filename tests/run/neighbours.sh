#!/usr/bin/env bash
# neighbours.sh VECBSP BACKEND "P...": neighbours in parallel regions, run
# at every P on BACKEND under the planner's best plan and with every region
# forced parallel (its halo exchange; $PLANS, if set, instead), prints
# exactly what eval prints, at lengths 0, 1, 2, P - 1, P, P + 1 and 40
# (blocks of length 0 where n < P: the exchange skips them): of an input
# read by blocks (the region's first stage), and of rows of different
# lengths (split) a map made (stored), with ends computed at top level. The
# lengths are a parameter: one program, compiled once for each plan and P.
set -u
# A message read after the barrier that ends its life must show.
export BSP_POISON_MESSAGES=1
vecbsp=$1 backend=$2 procs=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
f=$dir/neighbours.vec
cat >"$f" <<'VEC'
param n
input x : [n]int
main = let e = fold max (map (\v -> v * 3) (iota (n + 1))) in
       (map (\(a, (b, c)) -> a * 100 + b * 10 + c) (neighbours e (0 - 1) x),
        neighbours [e] [0, 1] (map (map (\v -> v * v - e)) (split 2 x)))
VEC
failed=0
for p in $procs; do
  for n in $(printf '%s\n' 0 1 2 $((p - 1)) "$p" $((p + 1)) 40 | sort -nu); do
    want=$("$vecbsp" eval "$f" -D n=$n --random $((n + 1)) 2>&1) || { echo "FAIL eval n=$n: ${want:0:300}"; failed=1; }
    for plan in ${PLANS:-best best,regions=parallel}; do
      got=$("$vecbsp" run --backend "$backend" --plan "$plan" -p "$p" "$f" -D n=$n --random $((n + 1)) 2>&1)
      if [ "$got" != "$want" ]; then
        echo "FAIL --plan $plan p=$p n=$n"; echo "  eval: ${want:0:300}"; echo "  run:  ${got:0:300}"; failed=1
      fi
    done
  done
done
[ $failed = 0 ] && echo "neighbours: run ($backend, p = $procs) equals eval at lengths 0, 1, 2, p - 1, p, p + 1, 40"
exit $failed
