#!/usr/bin/env bash
# fuzz.sh SECONDS: builds the front-end fuzz target with clang's libFuzzer
# (plus ASan and UBSan) and runs it for SECONDS on the examples as seeds.
# Fails if the fuzzer finds a crash, a leak or a hang.
set -euo pipefail
seconds=${1:-60}
cd "$(dirname "$0")/.."
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DVECBSP_FUZZ=ON >/dev/null
cmake --build build-fuzz -j 2 --target fuzz_front_end >/dev/null
corpus=build-fuzz/corpus
mkdir -p "$corpus"
cp examples/*.vec examples/builtins/*.vec tests/cases/*.vec "$corpus"/
echo "fuzzing the front end for ${seconds}s"
build-fuzz/fuzz_front_end -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix=build-fuzz/ "$corpus" 2>build-fuzz/fuzz.log \
  || { tail -n 40 build-fuzz/fuzz.log; echo "fuzzing found a failure (see build-fuzz/)"; exit 1; }
grep -E "^stat::number_of_executed_units|^#[0-9]+ *DONE" build-fuzz/fuzz.log | tail -n 2
echo "fuzzing: no crashes"
