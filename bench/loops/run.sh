#!/usr/bin/env bash
# run.sh [ROUNDS]: bench/loops/loops.c compiled as generated programs are
# (cc -O2 -falign-loops=64 -fira-region=all, src/cli/runner.c), run in
# ROUNDS interleaved rounds (default 7).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -falign-loops=64 -fira-region=all -std=c11 -Wall -Wextra "$here/loops.c" -o "$work/loops"
"$work/loops" "${1:-7}"
