/* base_threads.c: the threads backend's baseline, pthread_barrier_wait on p threads. */
#include <pthread.h>
#include <time.h>

#include "bench.h"

enum { SAMPLES = 21, WAITS = 2000 };

/* The barrier under test and the one sample slot per round. */
static pthread_barrier_t bench_barrier;
static double bench_samples[SAMPLES];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Thread 0 (arg non-NULL) records the samples. */
static void *waiter(void *arg)
{
    for (int s = 0; s < SAMPLES; s++) {
        pthread_barrier_wait(&bench_barrier);
        double t0 = now();
        for (int i = 0; i < WAITS; i++)
            pthread_barrier_wait(&bench_barrier);
        if (arg)
            bench_samples[s] = (now() - t0) / WAITS;
    }
    return NULL;
}

void bench_baselines(int p)
{
    pthread_t threads[256];
    p = p < 256 ? p : 256;
    pthread_barrier_init(&bench_barrier, NULL, (unsigned)p);
    for (int i = 1; i < p; i++)
        pthread_create(&threads[i], NULL, waiter, NULL);
    waiter(bench_samples);
    for (int i = 1; i < p; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&bench_barrier);
    bench_report("pthread_barrier_wait", bench_median(bench_samples, SAMPLES));
}
