#!/usr/bin/env bash
# compile.sh VECBSP BSPCC BSPRUN: vecbsp compile -o OUT.c gives a standalone
# program that builds warning-free under -Wall with plain bspcc and reads its
# inputs (-D, --input, --random) as eval does.
set -u
vecbsp=$1 bspcc=$2 bsprun=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for f in "$root"/examples/matvec1.vec "$root"/examples/mss1.vec "$root"/examples/builtins/dummyvec.vec; do
  "$vecbsp" compile "$f" -o "$dir/prog.c" || fail "compile $f"
  "$bspcc" -O2 -Wall -Wextra -Werror "$dir/prog.c" -o "$dir/prog" || fail "bspcc $f"
done
"$vecbsp" compile "$root/examples/matvec1.vec" -o "$dir/prog.c" && "$bspcc" -O2 "$dir/prog.c" -o "$dir/prog" || fail build
want=$("$vecbsp" eval "$root/examples/matvec1.vec" -D m=3 -D n=2 --input 'M=[[1,2],[3,4],[5,6]]' --random 5)
got=$("$bsprun" -n 2 "$dir/prog" -D m=3 -D n=2 --input 'M=[[1,2],[3,4],[5,6]]' --random 5)
[ "$got" = "$want" ] || fail "standalone result '$got', eval '$want'"
want=$("$vecbsp" eval "$root/examples/matvec1.vec" -D m=3 -D n=2 --input 'M=[[1,2],[3,4]]' --random 5 2>&1)
got=$("$bsprun" -n 2 "$dir/prog" -D m=3 -D n=2 --input 'M=[[1,2],[3,4]]' --random 5 2>&1)
status=$?
[ $status -ne 0 ] || fail "a bad input did not fail"
[ "$got" = "$want" ] || fail "standalone error '$got', eval '$want'"
got=$("$bsprun" -n 2 "$dir/prog" -D m=3 2>&1)
[ "$got" = "$("$vecbsp" eval "$root/examples/matvec1.vec" -D m=3 2>&1)" ] || fail "unbound parameter: '$got'"
# A 2^32 x (2^32 - 1) matrix: its words overflow an int64_t once its row
# lengths are counted; out of memory, not a write past a short buffer.
got=$("$bsprun" -n 1 "$dir/prog" -D m=4294967296 -D n=4294967295 --random 1 2>&1)
status=$?
[ $status -eq 1 ] && [ "$got" = "vecbsp: error: out of memory" ] || fail "a huge input: status $status, '$got'"
echo ok
