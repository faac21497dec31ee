#!/bin/sh
# output.sh BUILD SOURCE: what vecbsp prints and writes. Tables give 4
# significant digits (checked against Python's '%.4g' of the --json figures,
# which are in full); --plot draws the format its extension names (checked
# by the files' own magic numbers), refuses other extensions and directories
# before any work and without gnuplot's words; a param bound twice and a
# directory given as an input are errors that say so, in eval, run and a
# compiled program alike.
set -u
build=$1 src=$2
vecbsp=$build/vecbsp
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export VECBSP_CACHE="$dir/cache" TMPDIR="$dir/tmp" VECBSP_CC_OPT=-O0
mkdir "$dir/tmp" "$dir/adir"
fail() { echo "FAIL: $*"; exit 1; }
# expect_error WANT CMD...: CMD fails with exactly WANT on stderr and nothing on stdout.
expect_error() {
  want=$1
  shift
  "$@" >"$dir/out" 2>"$dir/err" && fail "succeeded: $*"
  [ "$(cat "$dir/err")" = "$want" ] || fail "$*: stderr '$(cat "$dir/err")', want '$want'"
  [ -s "$dir/out" ] && fail "$*: printed '$(cat "$dir/out")'"
  return 0
}
mss5=$src/examples/mss5.vec

# 4 significant digits in the table, the same figures in full in --json.
args="$mss5 -D n=1000000 --machine sunhpc3500 -g 7.75736496058844"
"$vecbsp" cost $args >"$dir/table" || fail "cost"
"$vecbsp" cost $args --json >"$dir/json" || fail "cost --json"
python3 - "$dir/table" "$dir/json" <<'PY' || fail "the cost table's figures"
import json, sys
table, data = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
assert data["g"] == 7.75736496058844, data["g"]           # in full
assert "g = %.4g," % data["g"] in table, table            # 7.757
ops = data["W"] + data["g"] * data["H"] + data["l"] * data["S"]
assert ops != int(ops)                                     # a figure, not a count
assert "= %.4g operations" % ops in table, (ops, table)
assert "W = %d operations" % data["W"] in table            # counts exactly
PY

# --plot by extension: the files' magic numbers say what gnuplot wrote.
for ext in svg png pdf; do
  "$vecbsp" sweep "$mss5" --vary n=100:400:100 --plot "$dir/plot.$ext" >/dev/null || fail "--plot .$ext"
done
head -c 8 "$dir/plot.png" | od -An -c | grep -q '211   P   N   G  \\r  \\n 032  \\n' || fail "plot.png is not a PNG"
[ "$(head -c 5 "$dir/plot.pdf")" = "%PDF-" ] || fail "plot.pdf is not a PDF"
grep -q '<svg' "$dir/plot.svg" || fail "plot.svg is not an SVG"
expect_error "vecbsp: error: --plot $dir/plot.jpg: the file's extension names the format: .svg, .png or .pdf" \
  "$vecbsp" sweep "$mss5" --vary n=100:400:100 --plot "$dir/plot.jpg"
expect_error "vecbsp: error: --plot $dir/adir: is a directory; give a file" \
  "$vecbsp" sweep "$mss5" --vary n=100:400:100 --plot "$dir/adir"
expect_error "vecbsp: error: --plot $dir/no/x.svg: cannot write it: No such file or directory" \
  "$vecbsp" sweep "$mss5" --vary n=100:400:100 --plot "$dir/no/x.svg"
expect_error "vecbsp: error: --plot x.gif: the file's extension names the format: .svg, .png or .pdf" \
  "$vecbsp" derive "$mss5" -D n=100 --plot x.gif --vary n=100:400:100
expect_error "vecbsp: error: --vary n=100:400:100: n is bound by -D n=5 too" \
  "$vecbsp" sweep "$mss5" -D n=5 --vary n=100:400:100

# A param bound twice, a directory as an input: eval, run and a compiled program.
twice="vecbsp: error: -D n=4: the parameter 'n' is bound twice"
expect_error "$twice" "$vecbsp" eval "$mss5" -D n=3 -D n=4 --random 1
expect_error "$twice" "$vecbsp" run "$mss5" -D n=3 -D n=4 --random 1
expect_error "$twice" "$vecbsp" cost "$mss5" -D n=3 -D n=4
isdir="vecbsp: error: input 'x': '$dir/adir' is a directory, not a data file"
expect_error "$isdir" "$vecbsp" eval "$mss5" -D n=3 --input "x=$dir/adir"
expect_error "$isdir" "$vecbsp" run "$mss5" -D n=3 --input "x=$dir/adir" -p 2
"$vecbsp" compile "$mss5" -o "$dir/mss5.c" && "$build/bspcc" "$dir/mss5.c" -o "$dir/mss5" || fail "compile"
expect_error "$twice" "$build/bsprun" -n 2 "$dir/mss5" -D n=3 -D n=4 --random 1
expect_error "$isdir" "$build/bsprun" -n 2 "$dir/mss5" -D n=3 --input "x=$dir/adir"
[ -z "$(ls "$dir/tmp")" ] || fail "left in TMPDIR: $(ls "$dir/tmp")"
echo "output: ok"
