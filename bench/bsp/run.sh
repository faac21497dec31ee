#!/bin/sh
# run.sh: runs the BSPlib benchmark at p = 2 on both backends and prints medians and ratios.
# usage: bench/bsp/run.sh [BUILD_DIR]   (default: build)
build=${1:-build}
p=${BENCH_P:-2}
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
"$build/bsprun" --backend=threads -n "$p" "$build/bspbench" >>"$out" || exit 1
if [ -x "$build/bspbench-mpi" ]; then
    "$build/bsprun" --backend=mpi -n "$p" "$build/bspbench-mpi" >>"$out" || exit 1
fi
awk -v p="$p" '
    $1 == "bench" { t[$2 " " $3] = $4 }
    function row(ours, base,   r) {
        if (!((ours) in t) || !((base) in t)) return
        r = t[base] > 0 ? t[ours] / t[base] : 0
        printf "%-34s %12.3g s %-26s %12.3g s %8.2f\n", ours, t[ours], base, t[base], r
    }
    END {
        printf "p = %d, medians; ratio = ours / baseline\n", p
        printf "%-34s %14s %-26s %14s %8s\n", "ours", "", "baseline", "", "ratio"
        row("threads bsp_sync", "threads pthread_barrier_wait")
        row("mpi bsp_sync", "mpi MPI_Barrier")
        row("mpi MPI_Alltoall(56B)", "mpi MPI_Win_fence")
        row("threads bsp_put/word", "threads memcpy/word")
        row("threads bsp_hpput/word", "threads memcpy/word")
        row("mpi bsp_put/word", "mpi memcpy/word")
        row("mpi bsp_hpput/word", "mpi memcpy/word")
    }' "$out"
# memcpy by relative alignment: glibc's default, then as bsprun runs it.
if [ -x "$build/copybench" ]; then
    echo
    env -u GLIBC_TUNABLES "$build/copybench"
    "$build/bsprun" -n 1 "$build/copybench"
fi
