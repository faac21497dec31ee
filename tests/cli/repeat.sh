#!/bin/sh
# repeat.sh BUILD SOURCE: what `vecbsp run` asks of the program and takes
# from its times. A stand-in bsprun records its arguments and writes the
# times of the repetitions it was asked for (the first two the slowest, as
# a program's first touch of its memory makes them): --repeat K runs K + 2
# and reports the min and median of the last K; one run is timed as it
# comes.
set -u
build=$1 src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export VECBSP_CACHE="$dir/cache" TMPDIR="$dir/tmp" VECBSP_CC_OPT=-O0
mkdir "$dir/tmp" "$dir/bin"
fail() { echo "FAIL: $*"; exit 1; }
cp "$build/vecbsp" "$dir/bin/vecbsp"
ln -s "$build/bspcc" "$dir/bin/bspcc"
cat >"$dir/bin/bsprun" <<'SH'
#!/bin/sh
# Times 9, 8, 5, 1, 4, 2, 3, ... seconds for the repetitions asked for.
echo "$@" >"$TMPDIR/../argv"
for a; do case $a in --repeat=*) n=${a#--repeat=} ;; esac; done
i=0
for t in 9 8 5 1 4 2 3 7 6; do
  [ $i -lt "$n" ] && echo $t
  i=$((i + 1))
done >"$VECBSP_TIMES"
echo 42
SH
chmod +x "$dir/bin/bsprun"
prog=$src/examples/mss5.vec
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$dir/out.json" "$1"; }

"$dir/bin/vecbsp" run "$prog" -D n=10 --random 1 -p 2 --repeat 3 --json >"$dir/out.json" || fail "run --repeat 3"
grep -q -- "--repeat=5" "$dir/argv" || fail "--repeat 3 asked for '$(cat "$dir/argv")', want --repeat=5"
# the last three of 9 8 5 1 4: min 1, median 4
[ "$(field seconds_min)" = 1.0 ] || fail "--repeat 3: min $(field seconds_min), want 1"
[ "$(field seconds_median)" = 4.0 ] || fail "--repeat 3: median $(field seconds_median), want 4"
[ "$(field repeat)" = 3 ] || fail "--repeat 3: $(field repeat) repetitions reported"

"$dir/bin/vecbsp" run "$prog" -D n=10 --random 1 -p 2 --json >"$dir/out.json" || fail "run once"
grep -q -- "--repeat=1" "$dir/argv" || fail "one run asked for '$(cat "$dir/argv")', want --repeat=1"
[ "$(field seconds)" = 9.0 ] || fail "one run: $(field seconds) seconds, want 9"
echo "repeat: ok"
