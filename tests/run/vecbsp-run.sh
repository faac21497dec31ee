#!/usr/bin/env bash
# vecbsp-run.sh ARGS...: $VECBSP with eval replaced by `run -p $RUN_P`, so
# that run-case.sh checks the test cases (faults, inputs, values) through
# the compiler.
if [ "${1:-}" = eval ]; then
  shift
  exec "$VECBSP" run -p "${RUN_P:-3}" "$@"
fi
exec "$VECBSP" "$@"
