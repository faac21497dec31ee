#!/usr/bin/env bash
# run.sh [BUILD]: generated (vecbsp run) vs hand-written BSPlib vs sequential C
# for matvec (1) and (2) and mss (5) at large sizes: times (median of REPEAT runs),
# the ratios, the speed-up from p = 1 to 2 and peak memory (threads backend).
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
repeat=${REPEAT:-5} M=${M:-3000} N=${N:-3000} NMSS=${NMSS:-20000000} seed=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export VECBSP_CACHE=$work/cache
for prog in matvec_bsp mss_bsp; do "$build/bspcc" -O2 "$here/$prog.c" -o "$work/$prog"; done
for prog in matvec_seq mss_seq; do cc -O2 "$here/$prog.c" -o "$work/$prog"; done
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
gen() {  # gen P FILE ARGS...: median seconds of the generated program
  local p=$1; shift
  "$build/vecbsp" run -p "$p" --repeat "$repeat" --json "$@" | sed -n 's/.*"seconds_median": \([0-9.e-]*\).*/\1/p'
}
hand() {  # hand P PROG ARGS...: median seconds of a hand-written BSPlib program (it repeats itself)
  local p=$1 prog=$2; shift 2
  "$build/bsprun" -n "$p" "$work/$prog" "$@" "$repeat" | cut -d' ' -f2
}
seq_time() { local prog=$1; shift; for _ in $(seq "$repeat"); do "$work/$prog" "$@" | cut -d' ' -f2; done | median; }
rss() {  # rss CMD...: peak resident set of a command, in MB
  /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p' | awk '{printf "%.0f", $1/1024}'
}
report() {  # report NAME INPUT_MB G1 G2 H1 H2 S RSS_G RSS_H
  printf '%-8s gen p1 %.4fs p2 %.4fs | hand p1 %.4fs p2 %.4fs | seq %.4fs\n' "$1" "$3" "$4" "$5" "$6" "$7"
  awk -v g1="$3" -v g2="$4" -v h1="$5" -v h2="$6" -v s="$7" 'BEGIN {
    printf "         gen/hand p1 %.2f p2 %.2f | gen p1/seq %.2f | speed-up p1->p2 gen %.2f hand %.2f\n", g1/h1, g2/h2, g1/s, g1/g2, h1/h2 }'
  printf '         peak RSS at p=2: gen %s MB, hand %s MB; input %s MB\n' "$8" "$9" "$2"
}
mv_in=$(( M * N * 8 / 1048576 ))
g1=$(gen 1 "$root/examples/matvec1.vec" -D m=$M -D n=$N --random $seed)
g2=$(gen 2 "$root/examples/matvec1.vec" -D m=$M -D n=$N --random $seed)
h1=$(hand 1 matvec_bsp 1 $M $N $seed); h2=$(hand 2 matvec_bsp 1 $M $N $seed); s=$(seq_time matvec_seq $M $N $seed)
r1=$(rss "$build/vecbsp" run -p 2 "$root/examples/matvec1.vec" -D m=$M -D n=$N --random $seed)
r2=$(rss "$build/bsprun" -n 2 "$work/matvec_bsp" 1 $M $N $seed 1)
report "matvec1 ${M}x${N}" "$mv_in" "$g1" "$g2" "$h1" "$h2" "$s" "$r1" "$r2"
g1=$(gen 1 "$root/examples/matvec2.vec" -D m=$M -D n=$N --random $seed)
g2=$(gen 2 "$root/examples/matvec2.vec" -D m=$M -D n=$N --random $seed)
h1=$(hand 1 matvec_bsp 2 $M $N $seed); h2=$(hand 2 matvec_bsp 2 $M $N $seed)
r1=$(rss "$build/vecbsp" run -p 2 "$root/examples/matvec2.vec" -D m=$M -D n=$N --random $seed)
r2=$(rss "$build/bsprun" -n 2 "$work/matvec_bsp" 2 $M $N $seed 1)
report "matvec2 ${M}x${N}" "$mv_in" "$g1" "$g2" "$h1" "$h2" "$s" "$r1" "$r2"
mss_in=$(( NMSS * 8 / 1048576 ))
g1=$(gen 1 "$root/examples/mss5.vec" -D n=$NMSS --random $seed)
g2=$(gen 2 "$root/examples/mss5.vec" -D n=$NMSS --random $seed)
h1=$(hand 1 mss_bsp $NMSS $seed); h2=$(hand 2 mss_bsp $NMSS $seed); s=$(seq_time mss_seq $NMSS $seed)
r1=$(rss "$build/vecbsp" run -p 2 "$root/examples/mss5.vec" -D n=$NMSS --random $seed)
r2=$(rss "$build/bsprun" -n 2 "$work/mss_bsp" $NMSS $seed 1)
report "mss5 n=$NMSS" "$mss_in" "$g1" "$g2" "$h1" "$h2" "$s" "$r1" "$r2"
