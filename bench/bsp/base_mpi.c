/* base_mpi.c: the MPI backend's baselines: MPI_Barrier, and the same total exchange by MPI_Sendrecv. */
#include <bsp.h>
#include <mpi.h>

#include "bench.h"

enum { CALLS = 20, STEPS = 1 }; /* as bench.c's samples */

static double sample_barrier(void)
{
    bsp_sync();
    double t0 = MPI_Wtime();
    for (int i = 0; i < CALLS; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    return (MPI_Wtime() - t0) / CALLS;
}

/* A small all-reduce, the fixed cost of a sync that agrees on a summary. */
static double sample_allreduce(void)
{
    unsigned long long in[12] = {0}, out[12];
    bsp_sync();
    double t0 = MPI_Wtime();
    for (int i = 0; i < CALLS; i++)
        MPI_Allreduce(in, out, 12, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    return (MPI_Wtime() - t0) / CALLS;
}

/* The bulk exchange of bench.c done by MPI itself, per word sent. */
static double sample_sendrecv(void)
{
    int p = bsp_nprocs(), me = bsp_pid(), peers = p > 1 ? p - 1 : 1;
    int chunk = BENCH_WORDS / peers;
    bsp_sync();
    double t0 = MPI_Wtime();
    for (int step = 0; step < STEPS; step++)
        for (int k = 0; k < peers; k++) {
            int to = (me + 1 + k) % p, from = (me - 1 - k + 2 * p) % p;
            MPI_Sendrecv(bench_src + k * chunk, chunk, MPI_DOUBLE, to, 0,
                         bench_dst + k * chunk, chunk, MPI_DOUBLE, from, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    return (MPI_Wtime() - t0) / STEPS / ((double)chunk * peers);
}

const struct bench_measure bench_baselines[] = {
    {"MPI_Barrier", "sync", sample_barrier},
    {"MPI_Allreduce_96B", "sync", sample_allreduce},
    {"MPI_Sendrecv", "word", sample_sendrecv},
    {0},
};

void bench_baselines_start(void)
{
}

const char *bench_backend(void)
{
    return "mpi";
}
