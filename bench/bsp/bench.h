/* bench.h: what the BSPlib benchmark shares with its per-backend baselines. */
#ifndef BSP_BENCH_H
#define BSP_BENCH_H

/* Prints one result line: "bench BACKEND NAME SECONDS". */
void bench_report(const char *name, double seconds);

/* The median of n samples; sorts them. */
double bench_median(double *samples, int n);

/* Times the backend's native barrier (and, for MPI, the alternatives the
 * design was chosen against) on p processes; called before bsp_begin by
 * every process that runs main. */
void bench_baselines(int p);

#endif
