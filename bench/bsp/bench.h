/* bench.h: what the BSPlib benchmark shares with its per-backend baselines. */
#ifndef BSP_BENCH_H
#define BSP_BENCH_H

/* Words each process sends in a bulk exchange (split over the others). */
enum { BENCH_WORDS = 1 << 16 };

/* One measurement: a sample is a call by every process of the SPMD
 * section at once, returning this process's seconds per unit. */
struct bench_measure {
    const char *name; /* as printed, e.g. "bsp_sync" */
    const char *unit; /* what one unit is, e.g. "sync", "word" */
    double (*sample)(void);
};

/* This process's send and receive areas of BENCH_WORDS doubles. */
extern _Thread_local double *bench_src, *bench_dst;

/* The baselines of the backend the benchmark is linked with
 * (base_threads.c, base_mpi.c), ended by a measure without a name. */
extern const struct bench_measure bench_baselines[];

/* Prepares the baselines in the SPMD section, before any sample. */
void bench_baselines_start(void);

/* What is measured and on how many processors, as a JSON member. */
const char *bench_backend(void);

#endif
