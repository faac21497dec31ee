#!/usr/bin/env bash
# validate.sh: scripts/validate.sh holds each experiment to the state the
# machine was probed in. Run on stubs of vecbsp and bsprun whose quick state
# moves after every measurement, it must measure each experiment three
# times, probe again before the third attempt twice at most (keeping the
# replaced machine files), log every attempt, and still finish its report;
# with GUARD=0, probe once and measure each experiment twice.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/build"
echo 0 >"$dir/drift"

# bsprun PROBE --quick: an empty sync of 1e-7 s, or 1e-6 s while the machine
# has drifted (for the next three quick probes after a measurement).
cat >"$dir/build/bsprun" <<EOS
#!/usr/bin/env bash
n=\$(cat "$dir/drift")
sync=1e-7
if [ "\$n" -gt 0 ]; then sync=1e-6; echo \$((n - 1)) >"$dir/drift"; fi
printf '{\n "g_seconds": 1e-10,\n "sync_seconds": %s\n}\n' "\$sync"
EOS
# vecbsp probe / run (a canary) / sweep (a CSV; a measurement with a plot
# makes the machine drift).
cat >"$dir/build/vecbsp" <<EOS
#!/usr/bin/env bash
case \$1 in
probe)
  while [ "\$1" != -o ]; do shift; done
  echo probe >>"$dir/probes"
  printf '{\n  "sync_seconds": 1e-07,\n  "s": 1e9, "g": 1, "l": 100, "g_seconds": 1e-9, "l_seconds": 1e-7\n}\n' >"\$2" ;;
run)
  printf '{\n "seconds_min": 0.001,\n "seconds_median": 0.001\n}\n' ;;
sweep)
  model=exact
  while [ \$# -gt 0 ]; do
    case \$1 in
    --plot) : >"\$2"; echo 3 >"$dir/drift" ;;
    --model) model=\$2 ;;
    esac
    shift
  done
  if [ \$model = paper ]; then
    printf 'program,n,p,model,W,H,S,ops,predicted\na.vec,10,1,paper,0,0,1,0,1.0\n'
  else
    printf 'program,n,p,model,W,H,S,ops,predicted,measured,measured_min,error\na.vec,10,1,exact,0,0,1,0,1.1,1.0,1.0,0.1\n'
  fi ;;
esac
EOS
chmod +x "$dir/build/bsprun" "$dir/build/vecbsp"
touch "$dir/build/bspprobe"

OUT=$dir/out CONFIGS="threads 1 targeted" EXPERIMENTS="mss-1-2 mss-2-3 mss-3-4" SETTLE_SECONDS=0 \
  "$root/scripts/validate.sh" "$dir/build" >"$dir/log" 2>&1 || { cat "$dir/log"; echo "FAIL: validate.sh stopped"; exit 1; }

fail=0
check() {  # WHAT EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "FAIL: $1: expected '$2', got '$3'"; fail=1; fi
}
# Each attempt: experiment, attempt, in state, probe held to.
attempts=$(awk -F, 'NR > 1 { printf "%s %s %s %s;", $1, $2, $18, $19 }' "$dir/out/state-threads-p1.csv")
check "attempts" "mss-1-2 1 no 1;mss-1-2 2 no 1;mss-1-2 3 no 2;mss-2-3 1 no 2;mss-2-3 2 no 2;mss-2-3 3 no 3;mss-3-4 1 no 3;mss-3-4 2 no 3;" "$attempts"
# Each line of the log has its header's fields (five per state).
check "fields per line" "19" "$(awk -F, '{ print NF }' "$dir/out/state-threads-p1.csv" | sort -u | tr '\n' ' ' | sed 's/ $//')"
check "probes made" 3 "$(wc -l <"$dir/probes" | tr -d ' ')"
check "replaced machine files kept" "machine-threads-p1-probe1.json machine-threads-p1-probe2.json" \
  "$(cd "$dir/out" && echo machine-threads-p1-probe*.json)"
again=("$dir"/out/*-again.csv)
check "experiments measured again" 3 "${#again[@]}"
check "report written" yes "$(grep -q '^## Summary' "$dir/out.md" && echo yes || echo no)"
# A misspelt experiment is an error, before anything is probed.
if OUT=$dir/none EXPERIMENTS="mss-1-2 mss-12" "$root/scripts/validate.sh" "$dir/build" >"$dir/log" 2>&1; then
  echo "FAIL: an unknown experiment was accepted"; fail=1
fi
check "unknown experiment named" yes "$(grep -q "no experiment 'mss-12'" "$dir/log" && echo yes || echo no)"
check "nothing probed for it" 3 "$(wc -l <"$dir/probes" | tr -d ' ')"
# GUARD=0: one probe, each experiment measured and measured again, no state log.
OUT=$dir/unguarded CONFIGS="threads 1 targeted" EXPERIMENTS="mss-1-2 mss-2-3" GUARD=0 \
  "$root/scripts/validate.sh" "$dir/build" >"$dir/log" 2>&1 || { cat "$dir/log"; echo "FAIL: GUARD=0 stopped"; exit 1; }
check "unguarded: one probe" 4 "$(wc -l <"$dir/probes" | tr -d ' ')"
check "unguarded: no state log" no "$([ -e "$dir/unguarded/state-threads-p1.csv" ] && echo yes || echo no)"
again=("$dir"/unguarded/*-again.csv)
check "unguarded: experiments measured again" 2 "${#again[@]}"
[ $fail = 0 ] && echo "validate.sh: every attempt held to its probe, report written"
exit $fail
