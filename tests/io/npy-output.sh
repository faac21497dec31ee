#!/usr/bin/env bash
# npy-output.sh VECBSP BSPRUN DRIVER [quick]: rt_output_npy at p = 1, 2, 3
# and 5 (more processes than elements) writes files that npytool.py (an
# independent reader: struct and ast) decodes to the values expected;
# irregular results, pairs and unwritable paths fail with the documented
# message and leave neither PATH nor PATH.partial; eval -o writes the same
# format and reads it back. quick (MPI, whose runs take longer): p = 2 and
# 5, fewer results, no eval.
set -u
vecbsp=$1 bsprun=$2 driver=$3 quick=${4:-}
procs="1 2 3 5" kinds="int1 float2 bool2 int3 empty2" sizes="0 1 3 4 10"
[ -n "$quick" ] && procs="2 5" kinds="int1 int3" sizes="0 10"
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
py() { python3 "$here/npytool.py" "$@"; }

# expect_error WHAT PATH WANT CMD...: CMD fails (status 1) with WANT as its
# first line on stderr and leaves neither PATH nor PATH.partial.
expect_error() {
  local what=$1 path=$2 want=$3 status
  shift 3
  "$@" >"$dir/out" 2>"$dir/err"
  status=$?
  [ $status -eq 1 ] || fail "$what: exit status $status; stderr: $(head -c 300 "$dir/err")"
  if [ -n "$quick" ]; then  # mpirun may print before it
    grep -Fxq -- "$want" "$dir/err" || fail "$what: stderr $(head -c 300 "$dir/err"), expected $want"
  else
    [ "$(head -n 1 "$dir/err")" = "$want" ] || fail "$what: stderr $(head -c 300 "$dir/err"), expected $want"
  fi
  [ -e "$path" ] && fail "$what: $path was left behind"
  [ -e "$path.partial" ] && fail "$what: $path.partial was left behind"
  return 0
}

written=()
for p in $procs; do
  for kind in $kinds; do
    for n in $sizes; do
      out=$dir/$kind-$n-$p.npy
      got=$("$bsprun" -n $p "$driver" output $kind "$out" $n 2>&1) || fail "$kind n=$n p=$p: $got"
      [ "$got" = written ] || fail "$kind n=$n p=$p: $got"
      [ -e "$out.partial" ] && fail "$kind n=$n p=$p: $out.partial was left behind"
      written+=("$out" $kind $n)
    done
  done
  # Irregular results (the last element differs: inside one block, or
  # between blocks, depending on p), pairs, a missing directory.
  out=$dir/bad.npy
  expect_error "ragged p=$p" "$out" "vecbsp: error: cannot write $out: the result is not a regular array: along axis 1 it has lengths 2 and 3" \
    "$bsprun" -n $p "$driver" output ragged "$out" 4
  expect_error "ragged3 p=$p" "$out" "vecbsp: error: cannot write $out: the result is not a regular array: along axis 2 it has lengths 2 and 1" \
    "$bsprun" -n $p "$driver" output ragged3 "$out" 4
  expect_error "pairs p=$p" "$out" "vecbsp: error: cannot write $out: a .npy result must be a vector of int, float or bool, or of such vectors; the result is vec (int, float)" \
    "$bsprun" -n $p "$driver" output pairs "$out" 4
  out=$dir/missing/x.npy
  expect_error "missing directory p=$p" "$out" "vecbsp: error: cannot write $out: No such file or directory" \
    "$bsprun" -n $p "$driver" output int3 "$out" 4
done

got=$(py check-output "${written[@]}" 2>&1) || fail "$got"

# A stale, longer PATH.partial (an interrupted run) and an existing PATH are replaced.
out=$dir/again.npy
head -c 100000 /dev/urandom >"$out.partial"
echo old >"$out"
"$bsprun" -n 3 "$driver" output int1 "$out" 10 >/dev/null || fail "over a stale partial file"
py check-output "$out" int1 10 >/dev/null || fail "over a stale partial file: $(py check-output "$out" int1 10)"
[ -e "$out.partial" ] && fail "the stale partial file is still there"

if [ -n "$quick" ]; then
  echo ok
  exit 0
fi

# eval -o: the same format, read back by eval and by npytool.
cat >"$dir/double.vec" <<'VEC'
param m n
input M : [m][n]int
input v : [n]float
main = map (map (\x -> x * 2)) M
VEC
args=(-D m=4 -D n=3 --random 9)
"$vecbsp" eval "$dir/double.vec" "${args[@]}" -o "$dir/double.npy" >"$dir/out" || fail "eval -o"
[ -s "$dir/out" ] && fail "eval -o printed $(cat "$dir/out")"
want=$("$vecbsp" eval "$dir/double.vec" "${args[@]}")
[ "$(py read "$dir/double.npy")" = "$want" ] || fail "eval -o: npytool reads $(py read "$dir/double.npy"), eval printed $want"
sed 's/^main = .*/main = M/' "$dir/double.vec" >"$dir/same.vec"
got=$("$vecbsp" eval "$dir/same.vec" -D m=4 -D n=3 --input "M=$dir/double.npy" --random 9)
[ "$got" = "$want" ] || fail "eval -o then --input: $got, expected $want"
for main in 'map (\x -> x > 0.0) v' 'map (\x -> x / 3.0) v' 'map (\r -> map (\x -> [x, 0 - x]) r) M'; do
  { sed '/^main = /d' "$dir/double.vec"; printf 'main = %s\n' "$main"; } >"$dir/m.vec"
  "$vecbsp" eval "$dir/m.vec" "${args[@]}" -o "$dir/m.npy" || fail "eval -o, main = $main"
  want=$("$vecbsp" eval "$dir/m.vec" "${args[@]}")
  [ "$(py read "$dir/m.npy")" = "$want" ] || fail "eval -o, main = $main: npytool reads $(py read "$dir/m.npy"), eval printed $want"
done
# eval's errors are rt_output_npy's.
printf 'main = [[0, 1], [0, 1], [0, 1], [0, 1, 2]]\n' >"$dir/ragged.vec"
out=$dir/bad.npy
expect_error "eval ragged" "$out" "vecbsp: error: cannot write $out: the result is not a regular array: along axis 1 it has lengths 2 and 3" \
  "$vecbsp" eval "$dir/ragged.vec" -o "$out"
printf 'main = [[[0, 1], [0, 1]], [[0, 1], [0]]]\n' >"$dir/ragged3.vec"
expect_error "eval ragged3" "$out" "vecbsp: error: cannot write $out: the result is not a regular array: along axis 2 it has lengths 2 and 1" \
  "$vecbsp" eval "$dir/ragged3.vec" -o "$out"
printf 'main = [(1, 0.5)]\n' >"$dir/pairs.vec"
expect_error "eval pairs" "$out" "vecbsp: error: cannot write $out: a .npy result must be a vector of int, float or bool, or of such vectors; the result is vec (int, float)" \
  "$vecbsp" eval "$dir/pairs.vec" -o "$out"
printf 'main = 7\n' >"$dir/scalar.vec"
expect_error "eval scalar" "$out" "vecbsp: error: cannot write $out: a .npy result must be a vector of int, float or bool, or of such vectors; the result is int" \
  "$vecbsp" eval "$dir/scalar.vec" -o "$out"
expect_error "eval -o a text file" "$dir/r.txt" "vecbsp: error: -o $dir/r.txt: only .npy files are supported for results" \
  "$vecbsp" eval "$dir/double.vec" "${args[@]}" -o "$dir/r.txt"
out=$dir/missing/x.npy
expect_error "eval into a missing directory" "$out" "vecbsp: error: cannot write $out: No such file or directory" \
  "$vecbsp" eval "$dir/double.vec" "${args[@]}" -o "$out"
echo ok
