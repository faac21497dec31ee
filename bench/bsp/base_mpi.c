/* base_mpi.c: the MPI backend's baselines: MPI_Barrier, and the two sync designs it was chosen between. */
#include <mpi.h>

#include "bench.h"

enum { SAMPLES = 21, CALLS = 2000, HEADER_BYTES = 56 };

typedef void (*step_fn)(void *ctx);

/* The median over SAMPLES of the time of one step; rank 0's view. */
static double time_steps(step_fn step, void *ctx)
{
    double t[SAMPLES];
    for (int s = 0; s < SAMPLES; s++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < CALLS; i++)
            step(ctx);
        t[s] = (MPI_Wtime() - t0) / CALLS;
    }
    return bench_median(t, SAMPLES);
}

static void barrier(void *ctx)
{
    (void)ctx;
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The two-sided design's fixed cost: an all-to-all of sync headers. */
static void alltoall(void *ctx)
{
    static char tx[64 * HEADER_BYTES], rx[64 * HEADER_BYTES];
    (void)ctx;
    MPI_Alltoall(tx, HEADER_BYTES, MPI_BYTE, rx, HEADER_BYTES, MPI_BYTE, MPI_COMM_WORLD);
}

/* The one-sided design's fixed cost: a fence on a window. */
static void fence(void *ctx)
{
    MPI_Win_fence(0, *(MPI_Win *)ctx);
}

void bench_baselines(int p)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double t_barrier = time_steps(barrier, NULL);
    double t_alltoall = size <= 64 ? time_steps(alltoall, NULL) : 0;
    double t_fence = 0, word = 0;
    MPI_Win win;
    /* Debian's Open MPI cannot create a window for a single process. */
    if (size > 1 && MPI_Win_create(&word, sizeof word, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS) {
        t_fence = time_steps(fence, &win);
        MPI_Win_free(&win);
    }
    if (rank == 0) {
        bench_report("MPI_Barrier", t_barrier);
        bench_report("MPI_Alltoall(56B)", t_alltoall);
        bench_report("MPI_Win_fence", t_fence);
    }
    (void)p;
}
