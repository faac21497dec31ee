#!/usr/bin/env bash
# npy-errors.sh VECBSP BSPRUN DRIVER: every malformed .npy file (npytool.py
# bad) and every bad text file gives the documented message, the same from
# eval, from the prelude's rt_validate_input (prelude_driver validate) and
# from the compiled program (vecbsp run -p 2), with exit status 1 and
# nothing on stdout.
set -u
vecbsp=$1 bsprun=$2 driver=$3
here=$(cd "$(dirname "$0")" && pwd)
cases=$(cd "$here/../cases" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 "$here/npytool.py" bad "$dir" || fail "npytool bad"

# expect WHAT WANT CMD...: CMD fails with status 1, nothing on stdout, and
# WANT on stderr (its first line; all of it when WANT has several lines).
expect() {
  local what=$1 want=$2 status got lines
  shift 2
  "$@" >"$dir/out" 2>"$dir/err"
  status=$?
  lines=$(printf '%s\n' "$want" | wc -l)
  got=$(head -n "$lines" "$dir/err")
  [ $status -eq 1 ] || fail "$what: exit status $status; stderr: $(head -c 300 "$dir/err")"
  [ -s "$dir/out" ] && fail "$what: printed on stdout: $(head -c 300 "$dir/out")"
  [ "$got" = "$want" ] || fail "$what: stderr
$got
expected
$want"
}

# check INPUT FILE MESSAGE: the three readers report MESSAGE for INPUT=FILE.
check() {
  local input=$1 file=$2 want=$3
  local args=(-D n=5 -D m=3 -D c=5 --input "$input=$file" --random 1)
  expect "eval $input=$file" "$want" "$vecbsp" eval "$here/errors.vec" "${args[@]}"
  expect "validate $input=$file" "$want" "$bsprun" -n 2 "$driver" validate -- "${args[@]}"
  expect "run $input=$file" "$want" "$vecbsp" run -p 2 "$here/errors.vec" "${args[@]}"
}

e="vecbsp: error: $dir"
check x "$dir/magic.npy" "$e/magic.npy: not a NumPy .npy file (it does not start with \\x93NUMPY)"
check x "$dir/version3.npy" "$e/version3.npy: .npy format version 3.0 is not supported (1.0 and 2.0 are)"
check x "$dir/short-header.npy" "$e/short-header.npy: malformed .npy header: the file ends inside it"
check x "$dir/header-past-end.npy" "$e/header-past-end.npy: malformed .npy header: the file ends inside it"
check x "$dir/no-shape.npy" "$e/no-shape.npy: malformed .npy header: 'shape' is missing"
check x "$dir/unknown-key.npy" "$e/unknown-key.npy: malformed .npy header: unknown key 'foo'"
check x "$dir/fortran.npy" "$e/fortran.npy: the array is in Fortran order; only C order ('fortran_order': False) is supported"
needs="the input x is [5]int, which needs '<i8' (int: '<i8', float: '<f8', bool: '|b1')"
check x "$dir/i4.npy" "$e/i4.npy: the array's dtype is '<i4'; $needs"
check x "$dir/big-endian.npy" "$e/big-endian.npy: the array's dtype is '>i8'; $needs"
check x "$dir/float-for-int.npy" "$e/float-for-int.npy: the array's dtype is '<f8'; $needs"
check x "$dir/structured.npy" "$e/structured.npy: the array's dtype is '[('a', '<i8')]'; $needs"
check M "$dir/matrix-3x4.npy" "$e/matrix-3x4.npy: the array has shape (3, 4), the input M is [3][5]int"
check x "$dir/matrix-3x4.npy" "$e/matrix-3x4.npy: the array has shape (3, 4), the input x is [5]int"
check x "$dir/cut-short.npy" "$e/cut-short.npy: the file is cut short: the array's data needs 40 bytes, the file has 32 after the header"
check x "$dir/extra.npy" "$e/extra.npy: the file has 8 bytes after the array's data"
check pr "$dir/pairs.npy" "$e/pairs.npy: the input pr is [5](int, float); a .npy file holds only an array of int, float or bool"
check x "$dir/missing.npy" "vecbsp: error: input 'x': cannot read '$dir/missing.npy': No such file or directory"

# Text files: the prelude reads them in chunks and reports as eval does,
# the line shown and the caret included.
printf '1 2 3\n4 5 6\n7\n' >"$dir/extra.txt"
printf '1 2\n 12345678901234567890123456789012345678901234567890123456789012345 4 5\n' >"$dir/long.txt"
printf '1 2 3 4 5 6 7 8 9 10\n11 12 13 14\n' >"$dir/fourteen.txt"
for pair in "x $cases/data/bad-float.txt" "x $cases/data/nul-byte.txt" "M $cases/data/five-ints.txt" \
            "x $dir/extra.txt" "M $dir/extra.txt" "x $dir/long.txt" "M $dir/fourteen.txt" "x $dir/missing.txt"; do
  read -r input file <<<"$pair"
  args=(-D n=5 -D m=3 -D c=5 --input "$input=$file" --random 1)
  want=$("$vecbsp" eval "$here/errors.vec" "${args[@]}" 2>&1 >/dev/null)
  [ -n "$want" ] || fail "eval accepted $input=$file"
  expect "validate $input=$file" "$want" "$bsprun" -n 2 "$driver" validate -- "${args[@]}"
  expect "run $input=$file" "$want" "$vecbsp" run -p 2 "$here/errors.vec" "${args[@]}"
done
echo ok
