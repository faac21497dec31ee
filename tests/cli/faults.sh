#!/bin/sh
# faults.sh BUILD: the same fault, every time. Two processes fault in one
# superstep (process 1 at the first element of its block, process 0 at the
# last of its, so that process 1 gets there first: before the fault was
# gathered, run reported it 10 times out of 10); eval reports the first in
# the order of the elements, and so must run, 20 times over on threads and
# 5 on MPI (half a second a run). A
# fault on a source line of 9000 characters (the caret past column 8000)
# and a bad value on a data line of 160 KB give eval's message byte for
# byte, from run and from a compiled program run by bsprun.
set -u
build=$1
vecbsp=$build/vecbsp
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export VECBSP_CACHE="$dir/cache" VECBSP_CC_OPT=-O0
fail() { echo "FAIL: $*"; exit 1; }
cd "$dir" || exit 1

cat >race.vec <<'VEC'
param n
input v : [n]int
main = map (\x -> entry v x) v
VEC
python3 -c "
n = 20000
v = [i % 100 for i in range(n)]
v[n // 2 - 1], v[n // 2] = 5000000, 7000000   # the last of block 0, the first of block 1
open('v.txt', 'w').write(' '.join(map(str, v)))"
"$vecbsp" eval race.vec -D n=20000 --input v=v.txt 2>eval.err && fail "eval did not fault"
grep -q "index 5000000 is out of range" eval.err || fail "eval: $(head -1 eval.err)"
runs="threads:20"
[ -x "$build/bspprobe-mpi" ] && runs="threads:20 mpi:5"
for run in $runs; do
  backend=${run%:*}
  for i in $(seq "${run#*:}"); do
    "$vecbsp" run race.vec -D n=20000 --input v=v.txt -p 2 --plan paper --backend $backend 2>run.err &&
      fail "$backend: run did not fault"
    cmp -s run.err eval.err || fail "$backend, run $i: $(head -1 run.err)"
  done
done

# Long lines: the message whole, the caret where eval puts it.
python3 -c "
pad = ', '.join(['1'] * 3000)
line = 'main = let k = length [' + pad + '] in map (\\\\x -> entry v (x + k - 3000)) v'
open('long.vec', 'w').write('input v : [2]int\n' + line + '\n')
open('long.at', 'w').write('long.vec:2:%d' % (line.index('entry') + 1))
open('wide.txt', 'w').write(' '.join(['7'] * 80000) + ' x\n')"
printf 'param n\ninput w : [n]int\nmain = w\n' >wide.vec
"$vecbsp" eval long.vec --input 'v=[0,9]' 2>eval.err && fail "eval long.vec did not fault"
"$vecbsp" run long.vec --input 'v=[0,9]' -p 2 2>run.err && fail "run long.vec did not fault"
[ "$(head -1 eval.err | cut -d: -f1-3)" = "$(cat long.at)" ] || fail "eval: $(head -1 eval.err | cut -c1-80)"
cmp -s run.err eval.err || fail "run's message on a long line differs from eval's: $(cmp run.err eval.err)"
"$vecbsp" compile long.vec -o long.c && "$build/bspcc" long.c -o long || fail "compile long.vec"
"$build/bsprun" -n 2 ./long --input 'v=[0,9]' 2>prog.err && fail "the compiled long.vec did not fault"
cmp -s prog.err eval.err || fail "the compiled program's message differs from eval's: $(cmp prog.err eval.err)"
"$vecbsp" eval wide.vec -D n=80001 --input w=wide.txt 2>eval.err && fail "eval wide.txt"
"$vecbsp" run wide.vec -D n=80001 --input w=wide.txt -p 2 2>run.err && fail "run wide.txt"
[ "$(head -1 eval.err | cut -c1-24)" = "wide.txt:1:160001: error" ] || fail "eval: $(head -1 eval.err | cut -c1-80)"
cmp -s run.err eval.err || fail "run's message on a wide data line differs from eval's: $(cmp run.err eval.err)"
echo "faults: ok"
