#!/bin/sh
# expect_fail.sh: passes when COMMAND exits non-zero and its stderr matches REGEX.
# usage: expect_fail.sh REGEX COMMAND [ARGS...]
regex=$1
shift
err=$(mktemp) || exit 2
trap 'rm -f "$err"' EXIT
"$@" 2>"$err" >/dev/null
status=$?
cat "$err" >&2
if [ $status -eq 0 ]; then
    echo "expect_fail: '$*' exited with status 0" >&2
    exit 1
fi
if ! grep -Eq -- "$regex" "$err"; then
    echo "expect_fail: stderr of '$*' does not match: $regex" >&2
    exit 1
fi
echo "expect_fail: status $status and the expected message"
