#!/usr/bin/env bash
# dh.sh VECBSP BACKEND "P...": dh (+) (-) of [1, ..., 2^k] for k = 0..10, by
# eval and by run at every P on BACKEND (on $NODES ranks if set), equals the definition (Li and
# Hains, after Gorlatch) computed here by its recursion in Python: dh of
# one element is itself; of a list of halves whose dh are u and w,
# [u0 + w0, ..., uh + wh] ++ [u0 - w0, ..., uh - wh]. The eleven are one
# program, so one run covers every k.
set -u
vecbsp=$1 backend=$2 procs=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
parts=()
for k in $(seq 0 10); do parts+=("dh (+) (-) (map (\\i -> i + 1) (iota $((1 << k))))"); done
( IFS=,; echo "main = (${parts[*]})" ) >"$dir/dh.vec"
python3 - "$dir/want" <<'PY'
import sys
def dh(l):
    if len(l) == 1:
        return l
    h = len(l) // 2
    u, w = dh(l[:h]), dh(l[h:])
    return [a + b for a, b in zip(u, w)] + [a - b for a, b in zip(u, w)]
vs = ["[" + ", ".join(map(str, dh(list(range(1, 2 ** k + 1))))) + "]" for k in range(11)]
text = vs[-1]
for v in reversed(vs[:-1]):
    text = "(" + v + ", " + text + ")"
open(sys.argv[1], "w").write(text + "\n")
PY
failed=0
got=$("$vecbsp" eval "$dir/dh.vec" 2>&1)
[ "$got" = "$(cat "$dir/want")" ] || { echo "FAIL eval: ${got:0:300}"; failed=1; }
for p in $procs; do
  got=$("$vecbsp" run --backend "$backend" ${NODES:+--nodes "$NODES"} -p "$p" "$dir/dh.vec" 2>&1)
  [ "$got" = "$(cat "$dir/want")" ] || { echo "FAIL run --backend $backend -p $p: ${got:0:300}"; failed=1; }
done
[ $failed = 0 ] && echo "dh of [1..2^k], k = 0..10: eval and run ($backend, p = $procs) equal the definition"
exit $failed
