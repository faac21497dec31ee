/* bench.c: times bsp_sync and bulk bsp_put/bsp_hpput per word at the p it runs on, against memcpy. */
#include <bsp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { SAMPLES = 21, SYNCS = 2000, WORDS = 1 << 16, ROUNDS = 20 };

void bench_report(const char *name, double seconds)
{
    printf("bench %s %s %.6g\n", BENCH_BACKEND, name, seconds);
    fflush(stdout);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *samples, int n)
{
    qsort(samples, (size_t)n, sizeof *samples, cmp_double);
    return samples[n / 2];
}

static double sync_seconds(void)
{
    double t[SAMPLES];
    for (int s = 0; s < SAMPLES; s++) {
        bsp_sync();
        double t0 = bsp_time();
        for (int i = 0; i < SYNCS; i++)
            bsp_sync();
        t[s] = (bsp_time() - t0) / SYNCS;
    }
    return bench_median(t, SAMPLES);
}

typedef void (*put_fn)(bsp_pid_t, const void *, void *, bsp_size_t, bsp_size_t);

/* Seconds per word of a total exchange where every process sends WORDS
 * words, split evenly over the others, minus the empty sync. */
static double exchange_seconds_per_word(put_fn put, double *src, double *dst, double sync)
{
    int p = bsp_nprocs(), me = bsp_pid(), peers = p > 1 ? p - 1 : 1;
    int chunk = WORDS / peers;
    double t[SAMPLES];
    for (int s = 0; s < SAMPLES; s++) {
        bsp_sync();
        double t0 = bsp_time();
        for (int r = 0; r < ROUNDS; r++) {
            for (int k = 0; k < peers; k++) {
                int to = p > 1 ? (me + 1 + k) % p : me;
                int slot = p > 1 ? (me - to + p - 1) % p : 0; /* where 'to' keeps my words */
                put(to, src + k * chunk, dst, slot * chunk * (int)sizeof *dst,
                    chunk * (int)sizeof *dst);
            }
            bsp_sync();
        }
        t[s] = ((bsp_time() - t0) / ROUNDS - sync) / (chunk * peers);
    }
    return bench_median(t, SAMPLES);
}

static double memcpy_seconds_per_word(double *src, double *dst)
{
    double t[SAMPLES];
    for (int s = 0; s < SAMPLES; s++) {
        double t0 = bsp_time();
        for (int r = 0; r < ROUNDS; r++) {
            memcpy(dst, src, WORDS * sizeof *dst);
            src[r] += dst[WORDS - 1 - r]; /* keeps the copies observable */
        }
        t[s] = (bsp_time() - t0) / ROUNDS / WORDS;
    }
    return bench_median(t, SAMPLES);
}

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    double *src = calloc(WORDS, sizeof *src), *dst = calloc(WORDS, sizeof *dst);
    bsp_push_reg(dst, WORDS * (int)sizeof *dst);
    bsp_sync();
    double sync = sync_seconds();
    double put = exchange_seconds_per_word(bsp_put, src, dst, sync);
    double hpput = exchange_seconds_per_word(bsp_hpput, src, dst, sync);
    double copy = memcpy_seconds_per_word(src, dst);
    if (bsp_pid() == 0) {
        bench_report("bsp_sync", sync);
        bench_report("bsp_put/word", put);
        bench_report("bsp_hpput/word", hpput);
        bench_report("memcpy/word", copy);
    }
    bsp_pop_reg(dst);
    bsp_sync();
    free(src);
    free(dst);
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(spmd, argc, argv);
    bench_baselines(bsp_nprocs());
    spmd();
    return 0;
}
