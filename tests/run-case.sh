#!/usr/bin/env bash
# run-case.sh VECBSP CASE.vec: runs one test program and checks what its
# comments promise. Directives (in comments, anywhere in the file):
#   # cmd: eval | check | cost ...   subcommand (default: eval)
#   # args: ...                      further arguments ($DIR is the case's directory)
#   # expect: TEXT                   stdout, one directive per line of output
#   # error: LINE:COL: MESSAGE       first stderr line is CASE:LINE:COL: error: MESSAGE
#   # error: vecbsp: MESSAGE         first stderr line is vecbsp: error: MESSAGE
#   # error-in: SOURCE:LINE:COL: MESSAGE   the error is located in another source
# A case with an error must exit with status 1 and print nothing on stdout.
set -u
vecbsp=$1 case=$2
dir=$(dirname "$case")
cmd=$(sed -n 's/^# cmd: //p' "$case" | head -n 1)
args=$(sed -n 's/^# args: //p' "$case" | head -n 1 | sed "s|\$DIR|$dir|g")
want_out=$(sed -n 's/^# expect: \{0,1\}//p' "$case")
want_err=$(sed -n 's/^# error: //p' "$case" | head -n 1)
want_err_in=$(sed -n 's/^# error-in: //p' "$case" | head -n 1 | sed "s|\$DIR|$dir|g")
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
# shellcheck disable=SC2086
"$vecbsp" ${cmd:-eval} "$case" $args >"$out" 2>"$err"
status=$?
fail() { echo "FAIL $case: $*"; echo "--- stdout"; head -c 2000 "$out"; echo "--- stderr"; head -c 2000 "$err"; exit 1; }
if [ -n "$want_err" ] || [ -n "$want_err_in" ]; then
  [ $status -eq 1 ] || fail "exit status $status, expected 1"
  [ -s "$out" ] && fail "printed on stdout despite the error"
  first=$(head -n 1 "$err")
  if [ -n "$want_err_in" ]; then
    expected="${want_err_in%%: *}: error: ${want_err_in#*: }"
  else
    case "$want_err" in
      vecbsp:*) expected="vecbsp: error: ${want_err#vecbsp: }" ;;
      *) expected="$case:${want_err%%: *}: error: ${want_err#*: }" ;;
    esac
  fi
  [ "$first" = "$expected" ] || fail "stderr line 1 is
  $first
expected
  $expected"
  if [ -z "$want_err_in" ] && [ "${want_err#vecbsp:}" = "$want_err" ]; then
    # a located error shows the source line and a caret under the column
    col=${want_err#*:}; col=${col%%:*}
    caret=$(sed -n 3p "$err")
    [ "${#caret}" -eq "$col" ] && [ "${caret: -1}" = "^" ] || fail "caret not under column $col"
  fi
  exit 0
fi
[ $status -eq 0 ] || fail "exit status $status"
[ -s "$err" ] && fail "unexpected stderr"
[ "$(cat "$out")" = "$want_out" ] || fail "stdout differs from
$want_out"
exit 0
