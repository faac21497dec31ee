#!/usr/bin/env bash
# npy-input.sh VECBSP BSPRUN DRIVER: .npy files written by npytool.py (an
# independent writer: struct) give eval and the compiled program (vecbsp
# run at p = 1 and 3) the values of the equivalent text files, whichever
# way the inputs are given (all .npy, all text, mixed), and what npytool
# says they hold.
set -u
vecbsp=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
inputs="x f b pr M F B s q E T"
python3 "$here/npytool.py" fixtures "$dir" 11 5 4 || fail "npytool fixtures"
params=(-D n=11 -D m=5 -D c=4)
text=() npy=() mixed=()
for k in $inputs; do
  text+=(--input "$k=$dir/$k.txt")
  if [ -e "$dir/$k.npy" ]; then npy+=(--input "$k=$dir/$k.npy"); else npy+=(--input "$k=$dir/$k.txt"); fi
  case $k in x|M|s|T) mixed+=(--input "$k=$dir/$k.npy") ;; *) mixed+=(--input "$k=$dir/$k.txt") ;; esac
done
# shellcheck disable=SC2086
want=$(python3 "$here/npytool.py" tuple "$dir" $inputs)
for args in text npy mixed; do
  case $args in text) set -- "${text[@]}" ;; npy) set -- "${npy[@]}" ;; mixed) set -- "${mixed[@]}" ;; esac
  got=$("$vecbsp" eval "$here/inputs.vec" "${params[@]}" "$@" 2>&1) || fail "eval, $args: ${got:0:300}"
  [ "$got" = "$want" ] || fail "eval, $args: ${got:0:300}, expected ${want:0:300}"
  for p in 1 3; do
    got=$("$vecbsp" run -p $p "$here/inputs.vec" "${params[@]}" "$@" 2>&1) || fail "run -p $p, $args: ${got:0:300}"
    [ "$got" = "$want" ] || fail "run -p $p, $args: ${got:0:300}, expected ${want:0:300}"
  done
done
echo ok
