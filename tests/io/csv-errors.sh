#!/bin/sh
# csv-errors.sh VECBSP BSPRUN DRIVER: a malformed .csv input is an error at
# its line and column, the same from eval and from a compiled program at
# p = 2 (which checks the file on process 0 and reads it by blocks).
set -u
vecbsp=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$dir" || exit 1
cat >m.vec <<'VEC'
param m n
input M : [m][n]int
input v : [n]float
input q : [n](int, int)
main = (M, v)
VEC
# check FILE INPUT 'FIRST LINE OF THE ERROR' CONTENTS [N]
check() {
  printf "$4" >"$1"
  for cmd in eval run; do
    "$vecbsp" $cmd m.vec -D m=2 -D "n=${5:-3}" --input "$2=$1" --random 1 -p 2 >out 2>err && fail "$cmd accepted $1"
    [ "$(head -1 err)" = "$3" ] || fail "$cmd $1: '$(head -1 err)', want '$3'"
    [ "$cmd" = eval ] && cp err eval.err
  done
  cmp err eval.err >/dev/null || fail "$1: run's error differs from eval's: $(cmp err eval.err)"
}
check short.csv M "short.csv:2:2: error: input 'M': line 2 has 1 values; the declared shape [2][3]int needs 3 a line" '1,2,3\n4\n5,6\n'
check long.csv M "long.csv:1:7: error: input 'M': line 1 has more than 3 values; the declared shape [2][3]int needs 3 a line" '1,2,3,4\n5,6\n'
check empty.csv M "empty.csv:2:3: error: input 'M': an empty value (two commas, or a comma ending a line)" '1,2,3\n4,,6\n'
check trailing.csv M "trailing.csv:2:7: error: input 'M': an empty value (two commas, or a comma ending a line)" '1,2,3\n4,5,6,\n'
check word.csv M "word.csv:2:4: error: input 'M': expected an int, found 'x'" '1,2,3\n4, x ,6\n'
check ends.csv M "ends.csv:2:4: error: input 'M': the file ends after 5 values; the declared shape [2][3]int needs more" '1,2,3\n4,5\n'
check extra.csv M "extra.csv:3:1: error: input 'M': extra value '7' after the 6 values of the declared shape [2][3]int" '1,2,3\n4,5,6\n7\n'
check column.csv v "column.csv:2:5: error: input 'v': line 2 has more than 1 values; the declared shape [3]float needs 1 a line" '1.5\n2.5,3\n'
check row.csv v "row.csv:1:4: error: input 'v': line 1 has 2 values; the declared shape [3]float needs 3 a line" '1,2\n3\n'
check pairs.csv q "vecbsp: error: input 'q': a .csv file holds a vector or a matrix of int, float or bool, not [3](int, int)" '1,2\n'
echo "csv-errors: ok"
