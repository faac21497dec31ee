#!/usr/bin/env bash
# compare-selftest.sh: compare.py, on which gen.random's verdicts rest, passes
# a profile equal to the model and fails each kind of difference it must
# catch (a w, an h, a superstep more, a process's counts, the result), and
# takes the model as an upper bound only where told to.
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
echo 7 >"$work/eval"
model='{"supersteps": [{"w": 1, "h": 2, "where": "a.vec:1:1", "what": "fold: fetch",
  "procs": [{"w": 1, "sent": 2, "received": 0}, {"w": 0, "sent": 0, "received": 2}]},
  {"w": 3, "h": 0, "where": "a.vec:1:1", "what": "end",
  "procs": [{"w": 3, "sent": 0, "received": 0}, {"w": 0, "sent": 0, "received": 0}]}]}'
echo "$model" >"$work/model"

# expect STATUS BOUND NAME PYTHON: compare.py exits STATUS on the model against
# the counts PYTHON makes of it (c is the counted profile, a dict).
expect() {
  python3 - "$work/model" "$work/counted" <<EOF
import json, sys
c = json.load(open(sys.argv[1]))
c["result"] = "7"
$4
json.dump(c, open(sys.argv[2], "w"))
EOF
  printf 'case\t%s\t%s\t%s\t%s\tnone\n' "$work/model" "$work/counted" "$work/eval" "$2" >"$work/manifest"
  python3 "$here/compare.py" "$work/manifest" >"$work/out"
  local status=$?
  if [ $status != "$1" ]; then
    echo "FAIL $3: compare.py exited $status, expected $1"; sed 's/^/    /' "$work/out"; failed=1
  fi
}
expect 0 false "equal counts" "pass"
expect 1 false "a w differs" 'c["supersteps"][1]["w"] = 2'
expect 1 false "an h differs" 'c["supersteps"][0]["h"] = 1'
expect 1 false "a superstep more" 'c["supersteps"].append({"w": 0, "h": 0})'
expect 1 false "a process's count differs" 'c["supersteps"][0]["procs"][1]["received"] = 1'
expect 1 false "another result" 'c["result"] = "8"'
expect 0 true "counts below the bound" 'c["supersteps"][1]["w"] = 2; c["supersteps"][0]["procs"][0]["w"] = 0'
expect 1 true "counts above the bound" 'c["supersteps"][1]["w"] = 4'
expect 1 true "a superstep more, bound or not" 'c["supersteps"].append({"w": 0, "h": 0})'
expect 0 false "no procs in the profile: only w and h compared" \
  'for s in c["supersteps"]: del s["procs"]'
exit $failed
