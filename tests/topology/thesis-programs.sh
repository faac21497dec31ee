#!/usr/bin/env bash
# thesis-programs.sh VECBSP: the thesis's example programs (docs/topology.md)
# run on both backends at p = 1..4 print exactly what eval prints, under the
# plan this machine's planner makes and (threads, p = 2 and 4) under the one
# made for the thesis's hypercube, whose data starts on process 0.
set -u
vecbsp=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
hypercube=$root/examples/meiko-hypercube.json
failed=0
check() {  # check PROGRAM ARGS...
  local want got backend p machine
  want=$("$vecbsp" eval "$@" 2>&1)
  for backend in threads mpi; do
    for p in 1 2 3 4; do
      for machine in "" "--machine $hypercube --plan best,inputs=root"; do
        [ -n "$machine" ] && { [ $backend = mpi ] || [ $((p % 2)) = 1 ]; } && continue
        # shellcheck disable=SC2086
        got=$("$vecbsp" run --backend $backend -p $p $machine "$@" 2>&1)
        if [ "$got" != "$want" ]; then
          echo "FAIL $backend p=$p $machine $*"; echo "  eval: ${want:0:300}"; echo "  run:  ${got:0:300}"; failed=1
        fi
      done
    done
  done
}
check "$root/examples/matmul.vec" -D m=7 -D n=5 -D k=3 --random 4
check "$root/examples/mergesort.vec" -D n=13 --random 5
check "$root/examples/jacobi.vec" -D n=5 -D k=3 --random 6
exit $failed
