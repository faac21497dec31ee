#!/bin/sh
# help_tools.sh BUILD SRC_BSP: bspcc and bsprun answer --help and --version
# themselves (bspcc's --help was gcc's), and their --help lists every
# option their scripts' parsers take (the case labels of bspcc.in and
# bsprun.in); vecbsp --version and its manual page.
set -u
build=$1 src=$2
fail() { echo "FAIL: $*"; exit 1; }
for tool in bspcc bsprun; do
  help=$("$build/$tool" --help) || fail "$tool --help failed"
  echo "$help" | grep -q "^usage: $tool" || fail "$tool --help: $help"
  "$build/$tool" --version | head -1 | grep -q "^$tool (vecbsp) [0-9]" || fail "$tool --version"
  # Every long option the script's parser matches, such as --backend=*) or --profile).
  for opt in $(grep -o '^ *\(--[a-z][a-z-]*\|-n\|-np\)[=*|)]' "$src/$tool.in" | tr -d ' =*|)' | sort -u); do
    echo "$help" | grep -q -- " $opt[ =,]" || fail "$tool --help does not list $opt"
  done
done
"$build/vecbsp" --version | grep -q '^vecbsp [0-9]' || fail "vecbsp --version"
grep -q '^\.TH VECBSP 1' "$build/man/vecbsp.1" || fail "build/man/vecbsp.1 is not a manual page"
for cmd in check eval cost sweep derive compare run compile plan probe; do
  grep -q "^\.SS \"vecbsp $cmd\"" "$build/man/vecbsp.1" || fail "vecbsp.1 has no section for $cmd"
done
echo "help-tools: ok"
