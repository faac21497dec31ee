#!/usr/bin/env bash
# Installs the Debian packages vecbsp needs, only those that are missing.
# Usage: scripts/setup-deps.sh [--check]   (--check only reports, never installs)
set -u
need=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_file() { [ -e "$1" ]; }
have_cmd cc        || need+=(gcc)
have_cmd make      || need+=(make)
have_cmd cmake     || need+=(cmake)
have_file /usr/include/jansson.h || need+=(libjansson-dev)
have_cmd mpicc     || need+=(libopenmpi-dev)
have_cmd mpirun    || need+=(openmpi-bin)
have_cmd gnuplot   || need+=(gnuplot-nox)
if [ "${VECBSP_FUZZ:-0}" = 1 ] || [ "${CI:-}" = true ]; then
  have_cmd clang || need+=(clang)
  ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "${1:-}" = --check ]; then
  echo "vecbsp: missing Debian packages: ${need[*]}" >&2; exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "vecbsp: missing Debian packages: ${need[*]}" >&2
  echo "vecbsp: run as root, or: sudo apt-get install ${need[*]}" >&2
  exit 1
fi
echo "vecbsp: installing missing Debian packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null \
  || { echo "vecbsp: apt-get install failed for: ${need[*]}" >&2; exit 1; }
echo "vecbsp: installed ${need[*]}"
