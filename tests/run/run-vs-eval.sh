#!/usr/bin/env bash
# run-vs-eval.sh VECBSP BACKEND "P..." [--examples] [--builtins] [--cases] [--random] [--each]:
# vecbsp run prints exactly what vecbsp eval prints, at every P, under every
# plan in $PLANS (--plan; default: best), on $NODES MPI ranks if set (hybrid).
#   --builtins  every examples/builtins/*.vec with its own arguments, but for
#               those named in $SKIP_BUILTINS (basenames)
#   --cases     every tests/cases/*.vec that expects a value, likewise
#   --examples  the papers' examples and Jacobi at sizes not divisible by P,
#               P > n, and two large enough to fill more than the arena's first chunk
#   --random    random inputs of several sizes for every example
#   --each      every examples/*.vec once, at a small size of its own (only
#               those named in $ONLY, basenames, if set)
set -u
# A message read after the barrier that ends its life must show: the
# runtime overwrites each superstep's messages as the next sync begins.
export BSP_POISON_MESSAGES=1
vecbsp=$1 backend=$2 procs=$3
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
failed=0
check() {  # check FILE ARGS...
  local want got p plan
  want=$("$vecbsp" eval "$@" 2>&1)
  for plan in ${PLANS:-best}; do
    for p in $procs; do
      got=$("$vecbsp" run --backend "$backend" ${NODES:+--nodes "$NODES"} --plan "$plan" -p "$p" "$@" 2>&1)
      if [ "$got" != "$want" ]; then
        echo "FAIL --plan $plan p=$p $*"; echo "  eval: ${want:0:300}"; echo "  run:  ${got:0:300}"; failed=1
      fi
    done
  done
}
for what in "$@"; do
  case $what in
    --builtins|--cases)
      files=("$root"/examples/builtins/*.vec)
      [ "$what" = --cases ] && mapfile -t files < <(grep -L '^# error' "$root"/tests/cases/*.vec)
      for f in "${files[@]}"; do
        case " ${SKIP_BUILTINS:-} " in *" $(basename "$f" .vec) "*) continue ;; esac
        # shellcheck disable=SC2046
        check "$f" $(sed -n 's/^# args: //p' "$f" | sed "s|\$DIR|$(dirname "$f")|g")
      done ;;
    --examples)
      for n in 1 3 10; do
        for f in "$root"/examples/mss*.vec; do check "$f" -D n=$n --random $n; done
        check "$root/examples/matvec1.vec" -D m=$n -D n=5 --random $n
        check "$root/examples/matvec2.vec" -D m=4 -D n=$n --random $n
        check "$root/examples/jacobi.vec" -D n=$n -D k=2 --random $n
      done
      # Inputs past the arena's first chunk (1 MB), into chunks on huge pages.
      check "$root/examples/mss5.vec" -D n=300000 --random 7
      check "$root/examples/matvec1.vec" -D m=40000 -D n=9 --random 7 ;;
    --each)
      for f in "$root"/examples/*.vec; do
        [ -n "${ONLY:-}" ] && case " $ONLY " in *" $(basename "$f" .vec) "*) ;; *) continue ;; esac
        case $(basename "$f" .vec) in
          mss*) check "$f" -D n=10 --random 3 ;;
          matvec1) check "$f" -D m=10 -D n=5 --random 3 ;;
          matvec2) check "$f" -D m=4 -D n=10 --random 3 ;;
          matmul) check "$f" -D m=7 -D n=5 -D k=3 --random 4 ;;
          mergesort) check "$f" -D n=13 --random 5 ;;
          jacobi) check "$f" -D n=5 -D k=3 --random 6 ;;
          *) echo "FAIL $f: no size for it in run-vs-eval.sh --each"; failed=1 ;;
        esac
      done ;;
    --random)
      for seed in 11 12; do
        for n in 2 5 13 31; do
          for f in "$root"/examples/mss*.vec; do check "$f" -D n=$n --random $seed; done
          check "$root/examples/matvec1.vec" -D m=$n -D n=$((n % 7 + 1)) --random $seed
          check "$root/examples/matvec2.vec" -D m=$((n % 5 + 1)) -D n=$n --random $seed
        done
      done ;;
  esac
done
exit $failed
