#!/usr/bin/env bash
# blocks.sh VECBSP BSPRUN DRIVER: the prelude reads every kind of input
# (inputs.vec: ints, floats, bools, pairs, matrices, a scalar, empty rows, a
# 3-d array) from text files, .npy files, .csv files (vectors on a line and
# one value a line, matrices, a scalar; Python's csv module writes them),
# literals and --random as python
# (npytool.py) and vecbsp eval say, and rt_input_block of every block tried
# equals the slice of rt_input_words, at p = 1 and 3, on small inputs and on
# files larger than the reader's 64 KB chunks.
set -u
vecbsp=$1 bsprun=$2 driver=$3
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
inputs="x f b pr M F B s q E T"

# vecbsp eval's value of input $1 under the arguments that follow.
eval_input() {
  local name=$1
  shift
  sed "s/^main = .*/main = $name/" "$here/inputs.vec" >"$dir/$name.vec"
  "$vecbsp" eval "$dir/$name.vec" "$@"
}

# check_source WHAT EXPECT ARGS...: the driver prints each input as EXPECT
# says (files: npytool's NAME.expect in the directory $fx; eval: eval's
# value), and its blocks agree with its whole inputs.
check_source() {
  local what=$1 expect=$2 out got want p k
  shift 2
  out=$("$bsprun" -n 1 "$driver" print -- "$@" 2>&1) || fail "$what: print: ${out:0:300}"
  for k in $inputs; do
    got=$(printf '%s\n' "$out" | sed -n "s/^$k=//p")
    if [ "$expect" = files ]; then want=$(cat "$fx/$k.expect"); else want=$(eval_input "$k" "$@"); fi
    [ "$got" = "$want" ] || fail "$what: input $k: the prelude reads ${got:0:200}, expected ${want:0:200}"
  done
  for p in 1 3; do
    out=$("$bsprun" -n $p "$driver" blocks -- "$@" 2>&1) || fail "$what: blocks at p=$p: ${out:0:300}"
    printf '%s\n' "$out" | grep -q '^blocks: ok' || fail "$what: blocks at p=$p: ${out:0:300}"
  done
}

for size in "7 4 3" "20000 700 9"; do
  read -r n m c <<<"$size"
  fx=$dir/fx-$n
  mkdir -p "$fx"
  python3 "$here/npytool.py" fixtures "$fx" "$n" "$m" "$c" || fail "npytool fixtures"
  params=(-D "n=$n" -D "m=$m" -D "c=$c")
  text=() npy=() csv=()
  for k in $inputs; do
    text+=(--input "$k=$fx/$k.txt")
    if [ -e "$fx/$k.npy" ]; then npy+=(--input "$k=$fx/$k.npy"); else npy+=(--input "$k=$fx/$k.txt"); fi
    if [ -e "$fx/$k.csv" ]; then csv+=(--input "$k=$fx/$k.csv"); else csv+=(--input "$k=$fx/$k.txt"); fi
  done
  check_source "text files, n=$n" files "${params[@]}" "${text[@]}"
  check_source ".npy files, n=$n" files "${params[@]}" "${npy[@]}"
  check_source ".csv files, n=$n" files "${params[@]}" "${csv[@]}"
  check_source "--random, n=$n" eval "${params[@]}" --random 7
  # eval reads the files as the prelude does
  for k in $inputs; do
    for args in text npy csv; do
      case $args in text) set -- "${text[@]}" ;; npy) set -- "${npy[@]}" ;; csv) set -- "${csv[@]}" ;; esac
      got=$(eval_input "$k" "${params[@]}" "$@" 2>&1) || fail "eval, $args files, n=$n: ${got:0:300}"
      [ "$got" = "$(cat "$fx/$k.expect")" ] || fail "eval, $args files, n=$n, input $k: ${got:0:200}"
    done
  done
done

# Literals, cut into blocks; the inputs not given are random.
check_source literals eval -D n=7 -D m=4 -D c=3 --input 'x=[5,-6,7,8,9,10,-11]' \
  --input 'pr=[(1,2.5),(2,-0.5),(3,0),(4,1e3),(5,-7),(6,1),(-7,2)]' --input 'M=[[1,2,3],[4,5,6],[7,8,9],[10,11,12]]' \
  --input 's=-3' --input 'q=(9,false)' --input 'B=[[true,false,true],[false,false,false],[true,true,true],[false,true,false]]' \
  --input 'T=[[[1,2,3],[4,5,6]],[[7,8,9],[1,2,3]],[[4,5,6],[7,8,9]],[[0,0,0],[-1,-2,-3]]]' --random 3
# Empty vectors: every block of nothing.
check_source "n = 0" eval -D n=0 -D m=0 -D c=0 --random 5
echo ok
