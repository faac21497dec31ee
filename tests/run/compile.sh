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
for f in "$root"/examples/matvec1.vec "$root"/examples/mss1.vec "$root"/examples/builtins/dummyvec.vec \
    "$root"/examples/jacobi.vec; do
  "$vecbsp" compile "$f" -o "$dir/prog.c" || fail "compile $f"
  "$bspcc" -O2 -Wall -Wextra -Werror "$dir/prog.c" -o "$dir/prog" || fail "bspcc $f"
done
# Every alternative of the plan generates warning-free code.
for plan in paper best,fold=tree best,fold=allreduce best,prefix=recompute best,regions=sequential \
    best,inputs=block,lanes=4 best,inputs=root,lanes=1; do
  for f in "$root"/examples/mss*.vec; do
    "$vecbsp" compile "$f" -D n=9 -p 3 --plan "$plan" -o "$dir/prog.c" || fail "compile $f --plan $plan"
    "$bspcc" -O2 -Wall -Wextra -Werror "$dir/prog.c" -o "$dir/prog" || fail "bspcc $f --plan $plan"
  done
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
# -o writes through a symbolic link (kept) into the file it points at,
# keeps that file's permissions, writes into a pipe rather than replacing
# it, and leaves no temporary file when it cannot write.
echo old >"$dir/target.c"
chmod 600 "$dir/target.c"
ln -s target.c "$dir/link.c"
"$vecbsp" compile "$root/examples/mss1.vec" -o "$dir/link.c" || fail "compile -o a link"
[ -L "$dir/link.c" ] && grep -q 'bsp.h' "$dir/target.c" && [ "$(stat -c %a "$dir/target.c")" = 600 ] ||
  fail "compile -o through a link: $(ls -l "$dir")"
"$vecbsp" compile "$root/examples/mss1.vec" -o /dev/stdout | grep -q 'bsp.h' || fail "compile -o /dev/stdout"
"$vecbsp" compile "$root/examples/mss1.vec" -o "$dir/missing/x.c" 2>/dev/null && fail "compile -o into a missing directory"
[ -z "$(find "$dir" -name '.vecbsp-*')" ] || fail "a temporary file was left: $(find "$dir" -name '.vecbsp-*')"
# A 2^32 x (2^32 - 1) matrix: its words overflow an int64_t once its row
# lengths are counted; out of memory, not a write past a short buffer.
got=$("$bsprun" -n 1 "$dir/prog" -D m=4294967296 -D n=4294967295 --random 1 2>&1)
status=$?
[ $status -eq 1 ] && [ "$got" = "vecbsp: error: out of memory" ] || fail "a huge input: status $status, '$got'"
echo ok
