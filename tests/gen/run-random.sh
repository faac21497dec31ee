#!/usr/bin/env bash
# run-random.sh VECBSP VECGEN [--count N | --seconds S] [--seed S] [--save DIR] [--long]
# run-random.sh VECBSP VECGEN --file F.vec... [--save DIR]
#
# Random well-typed programs from vecgen (seeds S, S+1, ..., N of them), each
# at a few sizes (n in 0..9, m in 1..4, inputs --random SEED):
#   1. vecbsp check accepts it (a rejection is a bug of vecgen);
#   2. vecbsp run prints exactly what vecbsp eval prints, or both fail and
#      both report an error: line, at p = 1..4 on the threads backend and on
#      MPI for every GEN_MPI_EVERY-th program, under every plan in PLANS;
#   3. the exact model's supersteps (vecbsp cost --model exact --json) are
#      the ones vecbsp run --profile --json counts: as many, every w and h
#      equal, and every process's w, sent and received when both list
#      "procs"; where the program decides on data (an if, or && / || written
#      as operators, which skip their right operand) the model is an upper
#      bound, superstep by superstep.
# Every failure is printed with the seed, the program, the arguments, both
# outputs and a command reproducing it; all are counted; the exit status is
# 1 if there was any. --save DIR (or GEN_SAVE=DIR) writes each failing
# program to DIR/seedN.vec with its arguments in "# args:" comments, which
# --file reads back: --file checks given programs at each "# args:" line.
#
# Environment: GEN_COUNT (programs; default: as many as fit in GEN_SECONDS,
# else --seconds, else 210; --long 3000), GEN_SEED (the first seed; default 1, --long
# 100000), GEN_SAVE, GEN_MPI_EVERY (default 8; 0: no MPI), GEN_JOBS
# (workers; default: the cores). --long exits 77 (skipped) unless GEN_LONG
# is set.
set -u

# The plans run and cost are given (--plan SPEC): the one place to add one.
PLANS="best paper"

usage() { echo "usage: run-random.sh VECBSP VECGEN [--count N | --seconds S] [--seed S] [--save DIR] [--long] [--file F.vec...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
vecbsp=$(realpath "$1") vecgen=$(realpath "$2")
shift 2
if [ ! -x "$vecbsp" ] || [ ! -x "$vecgen" ]; then
  echo "FAIL run-random.sh: $vecbsp or $vecgen is not an executable"; exit 1
fi
count=${GEN_COUNT:-} seconds=${GEN_SECONDS:-} first=${GEN_SEED:-} save=${GEN_SAVE:-} mpi_every=${GEN_MPI_EVERY:-8} long=0 files=()
while [ $# -gt 0 ]; do
  case $1 in
    --count) count=$2; shift 2 ;;
    --seconds) seconds=${seconds:-$2}; shift 2 ;;  # GEN_SECONDS wins
    --seed) first=$2; shift 2 ;;
    --save) save=$2; shift 2 ;;
    --long) long=1; shift ;;
    --file) shift; while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do files+=("$1"); shift; done
            [ ${#files[@]} -gt 0 ] || usage ;;
    *) usage ;;
  esac
done
if [ $long = 1 ]; then
  [ -n "${GEN_LONG:-}" ] || { echo "skipped: set GEN_LONG=1 to run thousands of random programs"; exit 77; }
  count=${count:-3000} first=${first:-100000}
fi
first=${first:-1}
[ -z "$save" ] || mkdir -p "$save" || exit 2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export VECBSP_CACHE=$work/cache
# Correctness, not speed: the generated programs compiled with -O0, five times faster.
export VECBSP_CC_OPT=${VECBSP_CC_OPT:--O0}
# mpirun as root, and more processes than cores (as tests/run does).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
limit=120  # seconds for one command: a run that hangs is a failure, not a hung test

failures=0 failed_programs=() programs=0 compared=0 modelled=0

# outcome BASE CMD...: runs CMD, its stdout in BASE.out, stderr in BASE.err, status in rc.
outcome() {
  local base=$1
  shift
  timeout "$limit" "$@" >"$base.out" 2>"$base.err"
  rc=$?
}

# ---------------------------------------------------------------- what this vecbsp supports

probe=$work/probe.vec
printf 'param n\ninput x : [n]int\nmain = fold (+) x\n' >"$probe"
plan_flag=1
for cmd in "run $probe -p 1" "cost --model exact $probe"; do
  # shellcheck disable=SC2086
  if ! "$vecbsp" $cmd --plan best -D n=2 --random 1 >/dev/null 2>"$work/probe.err"; then
    if grep -q "unknown option '--plan'" "$work/probe.err"; then
      plan_flag=0
    else
      echo "FAIL vecbsp ${cmd%% *} on a trivial program: $(cat "$work/probe.err")"; exit 1
    fi
  fi
done
if [ $plan_flag = 0 ]; then
  echo "note: vecbsp run or cost has no --plan option yet: every program runs once, with the default plan"
  PLANS="default"
fi
if [ "$mpi_every" != 0 ] && ! "$vecbsp" run "$probe" -p 2 --backend mpi -D n=2 --random 1 >/dev/null 2>"$work/probe.err"; then
  echo "note: the MPI backend does not run here, so it is not tested: $(grep -m 1 'error' "$work/probe.err")"
  mpi_every=0
fi

# Without --count, as many programs as the workers check in the seconds
# given: a sanitized or slower vecbsp checks fewer, never times out.
# GEN_JOBS workers (default: one per core) each take every GEN_JOBS-th seed,
# with a work directory and cache of their own (this script again); their
# reports follow one another, and the summary adds theirs up.
jobs=${GEN_JOBS:-$(nproc)} stride=${GEN_STRIDE:-1}
seconds=${seconds:-210}
[ -n "$count" ] || deadline=${GEN_DEADLINE:-$((EPOCHSECONDS + seconds))}
if [ ${#files[@]} = 0 ] && [ -z "${GEN_WORKER:-}" ]; then
  echo "programs from seed $first$([ -n "$count" ] && echo ", $count of them" || echo " for $seconds s") (plans: $PLANS), $jobs worker(s)"
  pids=()
  trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
  for ((j = 0; j < jobs; j++)); do
    GEN_WORKER=1 GEN_STRIDE=$jobs GEN_DEADLINE=${deadline:-} GEN_MPI_EVERY=$mpi_every \
      "$0" "$vecbsp" "$vecgen" --seed $((first + j)) ${count:+--count $((count - j))} \
      ${save:+--save "$save"} >"$work/worker$j.out" 2>&1 &
    pids+=($!)
  done
  status=0 totals=(0 0 0 0)
  for j in "${!pids[@]}"; do
    wait "${pids[$j]}" || status=1
    summary=$(tail -n 1 "$work/worker$j.out")
    head -n -1 "$work/worker$j.out"
    # "P programs: C runs compared with eval, M profiles ...; F failure(s) in ..."
    read -r -a got < <(echo "$summary" | sed -E 's/^([0-9]+) programs: ([0-9]+) runs .*, ([0-9]+) profiles .*; ([0-9]+) failure.*/\1 \2 \3 \4/')
    [ ${#got[@]} = 4 ] || { echo "FAIL worker $j ended without its summary: $summary"; status=1; continue; }
    for k in 0 1 2 3; do totals[k]=$((totals[k] + got[k])); done
  done
  echo "${totals[0]} programs: ${totals[1]} runs compared with eval, ${totals[2]} profiles compared with the model (plans: $PLANS); ${totals[3]} failure(s)"
  [ $status = 0 ] && [ "${totals[3]}" = 0 ]
  exit
fi

plan_args() {  # plan_args SPEC: the option selecting the plan, if vecbsp has it
  [ $plan_flag = 1 ] && printf -- '--plan %s' "$1"
}

# ---------------------------------------------------------------- one program

# A program whose counts depend on data: the model charges the dearer branch
# of an if and both operands of && and || (docs/compiler.md, "What is counted").
decides_on_data() {
  sed 's/#.*//' "$1" | grep -Eq '(^|[^A-Za-z0-9_])if[[:space:]]|[^(](&&|\|\|)'
}

# The argument sets of a random program: n below p, n above p, n = 0 for every
# fifth seed; m in 1..4; the inputs drawn from the seed.
random_arg_sets() {
  local seed=$1 prog=$2 m=""
  grep -q '^param n m' "$prog" && m=" -D m=$((1 + seed / 2 % 4))"
  arg_sets=("-D n=$((1 + seed % 3))$m --random $seed" "-D n=$((4 + seed / 3 % 6))$m --random $seed")
  [ $((seed % 5)) = 0 ] && arg_sets+=("-D n=0$m --random $seed")
}

show() {  # show BASE: a command's outputs, indented and cut short
  echo "      stdout: $(head -c 1500 "$1.out")"
  [ -s "$1.err" ] && echo "      stderr: $(head -c 600 "$1.err" | head -n 4)"
  true
}

fail() {  # fail WHAT EVAL_BASE EVAL_RC GOT_BASE GOT_RC REPRODUCE [GOT_NAME]
  {
    echo "FAIL $who: $1"
    echo "    eval (exit $3):"; show "$2"
    echo "    ${7:-run} (exit $5):"; show "$4"
    echo "    reproduce: $6"
  } >>"$log"
}

# same_outcome A ARC B BRC: the same output, or both failed with an error: line.
same_outcome() {
  if [ "$2" = 0 ] || [ "$4" = 0 ]; then
    [ "$2" = "$4" ] && cmp -s "$1.out" "$3.out"
  else
    [ "$4" != 124 ] && grep -q 'error:' "$1.err" && grep -q 'error:' "$3.err"
  fi
}

# compare_run ARGS P BACKEND PLAN: run against eval (in $ev.*), one case.
compare_run() {
  local args=$1 p=$2 backend=$3 plan=$4 base
  base=$ev-run-$backend-$p-$plan
  # shellcheck disable=SC2046,SC2086
  outcome "$base" "$vecbsp" run "$prog" $args -p "$p" --backend "$backend" $(plan_args "$plan")
  compared=$((compared + 1))
  same_outcome "$ev" "$eval_rc" "$base" "$rc" ||
    fail "run differs from eval: $backend p=$p plan=$plan $args" "$ev" "$eval_rc" "$base" "$rc" \
      "$made$vecbsp eval $shown $args; $vecbsp run $shown $args -p $p --backend $backend $(plan_args "$plan")"
}

# model_case ARGS P BACKEND PLAN: the model and a profiled run, queued for compare.py.
model_case() {
  local args=$1 p=$2 backend=$3 plan=$4 cost run
  cost=$ev-cost-$backend-$p-$plan run=$ev-profile-$backend-$p-$plan
  # shellcheck disable=SC2046,SC2086
  outcome "$cost" "$vecbsp" cost --model exact --json -p "$p" "$prog" $args $(plan_args "$plan")
  local cost_rc=$rc
  # shellcheck disable=SC2046,SC2086
  outcome "$run" "$vecbsp" run -p "$p" --profile --json --backend "$backend" "$prog" $args $(plan_args "$plan")
  local what="model vs counts: $backend p=$p plan=$plan $args" again
  again="$made$vecbsp cost --model exact --json -p $p $shown $args $(plan_args "$plan"); $vecbsp run -p $p --profile --json --backend $backend $shown $args $(plan_args "$plan")"
  if [ $cost_rc != 0 ]; then
    fail "$what: the exact model fails on a program eval runs" "$ev" "$eval_rc" "$cost" "$cost_rc" "$again" cost
  elif [ $rc != 0 ]; then
    fail "$what: the profiled run fails on a program eval runs" "$ev" "$eval_rc" "$run" "$rc" "$again" "run --profile"
  else
    local bound=false
    decides_on_data "$prog" && bound=true
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$who: $what" "$cost.out" "$run.out" "$ev.out" "$bound" "$again" >>"$d/manifest"
    modelled=$((modelled + 1))
  fi
}

# check_arg_set ARGS MPI I: every check of the current program at one size (the I-th).
check_arg_set() {
  local args=$1 mpi=$2 plan p
  ev=$d/eval-$3  # compare.py reads it once every size is done
  # shellcheck disable=SC2086
  outcome "$ev" "$vecbsp" eval "$prog" $args
  eval_rc=$rc
  for plan in $PLANS; do
    for p in 1 2 3 4; do
      # A profiled run prints its result too: compare.py checks it against eval's.
      if [ "$eval_rc" = 0 ]; then model_case "$args" $p threads "$plan"; else compare_run "$args" $p threads "$plan"; fi
    done
    if [ "$mpi" = 1 ]; then
      for p in 2 3 4; do compare_run "$args" $p mpi "$plan"; done
      [ "$eval_rc" = 0 ] && model_case "$args" 3 mpi "$plan"
    fi
  done
}

# save_program: the failing program, with the arguments that fail, for a regression test.
save_program() {
  local out=$save/$name.vec
  {
    echo "# Found by tests/gen/run-random.sh${made:+ (vecgen $seed)}; check it with"
    echo "#   tests/gen/run-random.sh VECBSP VECGEN --file $name.vec"
    sed -n "s/^FAIL $who: /# failed: /p" "$log" | cut -c1-200 | sort -u | head -n 20
    for a in "${arg_sets[@]}"; do echo "# args: $a"; done
    grep -v '^# \(args\|failed\|Found\|  tests/gen\)' "$prog"
  } >"$out"
  echo "saved: $out"
}

# check_program SEED FILE NAME: every check of one program at every argument set
# in arg_sets; on MPI too (at the set mpi_set) for every GEN_MPI_EVERY-th seed.
check_program() {
  seed=$1 prog=$2 name=$3
  who=$([ -n "$made" ] && echo "seed $seed" || echo "$name")
  d=$work/$name log=$work/$name/failures
  mkdir -p "$d"
  : >"$log"
  programs=$((programs + 1))
  "$vecbsp" check "$prog" >"$d/check.out" 2>"$d/check.err"
  rc=$?
  if [ $rc != 0 ] && ! grep -q "^$prog:[0-9]*:[0-9]*: error: " "$d/check.err"; then
    # Not a verdict on the program: vecbsp itself is broken or gone (rebuilt under us?).
    echo "FAIL vecbsp check did not run (exit $rc): $(head -n 3 "$d/check.err")"; exit 1
  elif [ $rc != 0 ]; then
    { echo "FAIL $who: vecbsp check rejects the program (a bug of vecgen):"; sed 's/^/    /' "$d/check.err"; } >>"$log"
  else
    local mpi=0 i
    [ "$mpi_every" != 0 ] && [ $((seed % mpi_every)) = 0 ] && mpi=1
    for i in "${!arg_sets[@]}"; do
      # MPI at one size only: each of its runs costs a third of a second.
      check_arg_set "${arg_sets[$i]}" "$([ "$i" = "$mpi_set" ] && echo $mpi || echo 0)" "$i"
    done
    [ -s "$d/manifest" ] && python3 "$here/compare.py" "$d/manifest" >>"$log"
  fi
  if [ -s "$log" ]; then
    echo "==== $who: $(grep -c '^FAIL' "$log") failure(s); the program ($prog):"
    sed 's/^/    /' "$prog"
    cat "$log"
    failures=$((failures + $(grep -c '^FAIL' "$log")))
    failed_programs+=("$name")
    [ -z "$save" ] || save_program
  fi
  rm -rf "$d" "$VECBSP_CACHE"  # one program's binaries are never reused
}

# ---------------------------------------------------------------- the programs

if [ ${#files[@]} -gt 0 ]; then
  made="" mpi_set=0
  for f in "${files[@]}"; do
    mapfile -t arg_sets < <(sed -n 's/^# args: //p' "$f")
    [ ${#arg_sets[@]} -gt 0 ] || arg_sets=("-D n=4 --random 1")
    shown=$(realpath "$f")
    check_program 0 "$shown" "$(basename "$f" .vec)"  # 0: on MPI too
  done
else
  mpi_set=1  # n above p
  # A worker: seeds first, first + stride, ... below first + count, or until the deadline.
  for ((seed = first; ; seed += stride)); do
    if [ -n "$count" ]; then ((seed < first + count)) || break; else ((EPOCHSECONDS < deadline)) || break; fi
    prog=$work/seed$seed.vec
    # vecgen frees nothing on purpose: under `make asan` its leaks are no failure.
    if ! ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$vecgen" "$seed" >"$prog" 2>"$work/vecgen.err"; then
      echo "FAIL seed $seed: vecgen failed: $(cat "$work/vecgen.err")"
      failures=$((failures + 1)) failed_programs+=("seed$seed")
      continue
    fi
    made="$vecgen $seed > seed$seed.vec; " shown=seed$seed.vec
    random_arg_sets "$seed" "$prog"
    check_program "$seed" "$prog" "seed$seed"
    rm -f "$prog"
  done
fi

echo "$programs programs: $compared runs compared with eval, $modelled profiles compared with the model (plans: $PLANS); $failures failure(s) in ${#failed_programs[@]} program(s)${failed_programs[*]:+: ${failed_programs[*]}}"
[ $failures = 0 ]
