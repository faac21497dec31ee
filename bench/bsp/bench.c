/* bench.c: the BSPlib runtime against its baselines in one run: first supersteps, empty sync, bulk and one-word puts, memcpy. */
#include <bsp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Samples are taken round-robin over the measures (ours and the
 * baselines interleaved), so that a slow moment of the machine hits
 * them alike; run.py reports minimum, median and paired ratios. Each
 * sample is short (microseconds to tens of them): on a machine shared
 * with other work a longer one is seldom spared a preemption, which
 * costs a BSP program a whole time slice at the next barrier. */
enum { ROUNDS = 201, SYNCS = 20, BULK_STEPS = 1, ONE_WORD_H = 256, ONE_WORD_STEPS = 1, LOPSIDED_STEPS = 4, LOPSIDED_PASSES = 4,
       FIRST_STEPS = 40 };

/* Per process: with threads, a plain global would be shared by all. */
_Thread_local double *bench_src, *bench_dst;

/* Every process waits for the slowest before timing starts. */
static double start(void)
{
    bsp_sync();
    return bsp_time();
}

static double sample_sync(void)
{
    double t0 = start();
    for (int i = 0; i < SYNCS; i++)
        bsp_sync();
    return (bsp_time() - t0) / SYNCS;
}

typedef void (*put_fn)(bsp_pid_t, const void *, void *, bsp_size_t, bsp_size_t);

/* A total exchange: every process sends BENCH_WORDS words in one bulk
 * put to each other process (to itself at p = 1); seconds per word sent,
 * the sync included. */
static double bulk_exchange(put_fn put)
{
    int p = bsp_nprocs(), me = bsp_pid(), peers = p > 1 ? p - 1 : 1;
    int chunk = BENCH_WORDS / peers, bytes = chunk * (int)sizeof(double);
    double t0 = start();
    for (int step = 0; step < BULK_STEPS; step++) {
        for (int k = 0; k < peers; k++) {
            int to = p > 1 ? (me + 1 + k) % p : me;
            int slot = p > 1 ? (me - to + p - 1) % p : 0; /* where `to` keeps my words */
            put(to, bench_src + k * chunk, bench_dst, slot * bytes, bytes);
        }
        bsp_sync();
    }
    return (bsp_time() - t0) / BULK_STEPS / ((double)chunk * peers);
}

static double sample_put(void)
{
    return bulk_exchange(bsp_put);
}

static double sample_hpput(void)
{
    return bulk_exchange(bsp_hpput);
}

/* BSPedupack's bspbench: ONE_WORD_H puts of one word each per superstep,
 * to the other processes in turn; seconds per superstep, its sync
 * included (run.py takes g from this less the empty sync). */
static double sample_one_word_puts(void)
{
    int p = bsp_nprocs(), me = bsp_pid();
    double t0 = start();
    for (int step = 0; step < ONE_WORD_STEPS; step++) {
        for (int i = 0; i < ONE_WORD_H; i++) {
            int to = p > 1 ? (me + 1 + i % (p - 1)) % p : me;
            int index = p > 1 ? me + (i / (p - 1)) * p : i;
            bsp_put(to, bench_src + i, bench_dst, index * (int)sizeof(double), sizeof(double));
        }
        bsp_sync();
    }
    return (bsp_time() - t0) / ONE_WORD_STEPS;
}

/* Process 0's work in a lopsided superstep: LOPSIDED_PASSES prefix sums
 * of its words, some hundred microseconds, longer than a waiter polls
 * before it may change its ways (barrier.c). */
static void lopsided_work(void)
{
    for (int pass = 0; pass < LOPSIDED_PASSES; pass++) {
        double sum = 0;
        for (int i = 0; i < BENCH_WORDS; i++)
            bench_dst[i] = sum += bench_src[i];
        __asm__ volatile("" : : "r"(bench_dst) : "memory");
    }
}

/* Supersteps where process 0 works and the others wait, as when a program
 * runs a part on process 0 alone: seconds per superstep. Against the work
 * alone ("lopsided_work"), what waiting costs the one that works. */
static double sample_lopsided(void)
{
    double t0 = start();
    for (int step = 0; step < LOPSIDED_STEPS; step++) {
        if (bsp_pid() == 0)
            lopsided_work();
        bsp_sync();
    }
    return (bsp_time() - t0) / LOPSIDED_STEPS;
}

static double sample_lopsided_work(void)
{
    double t0 = start();
    for (int step = 0; step < LOPSIDED_STEPS; step++)
        lopsided_work();
    return (bsp_time() - t0) / LOPSIDED_STEPS;
}

/* A program's first supersteps, each one message of a word to the next
 * process, timed one by one: whether the runtime runs at its own pace from
 * the start (Open MPI's shared-memory transport changes its ways after 16
 * messages to a peer, which mpi_link.c does before the program starts). */
static void time_first_steps(double *t)
{
    int to = (bsp_pid() + 1) % bsp_nprocs();
    double word = 1;
    for (int s = 0; s < FIRST_STEPS; s++) {
        double t0 = bsp_time();
        bsp_send(to, NULL, &word, sizeof word);
        bsp_sync();
        t[s] = bsp_time() - t0;
    }
}

/* What copying a process's words costs within its own cache. */
static double sample_memcpy(void)
{
    double t0 = start();
    for (int step = 0; step < BULK_STEPS; step++) {
        memcpy(bench_dst, bench_src, BENCH_WORDS * sizeof(double));
        __asm__ volatile("" : : "r"(bench_dst) : "memory"); /* keep every copy */
    }
    return (bsp_time() - t0) / BULK_STEPS / BENCH_WORDS;
}

static const struct bench_measure ours[] = {
    {"bsp_sync", "sync", sample_sync},
    {"bsp_put", "word", sample_put},
    {"bsp_hpput", "word", sample_hpput},
    {"one_word_puts", "superstep of 256 puts", sample_one_word_puts},
    {"memcpy", "word", sample_memcpy},
    {"lopsided", "superstep", sample_lopsided},
    {"lopsided_work", "superstep", sample_lopsided_work},
    {0},
};

static int count(const struct bench_measure *m)
{
    int n = 0;
    while (m[n].name)
        n++;
    return n;
}

static void print_json(const struct bench_measure *const *all, int n, double (*t)[ROUNDS], const double *first)
{
    printf("{\"backend\": \"%s\", \"p\": %d, \"first_steps\": [", bench_backend(), bsp_nprocs());
    for (int s = 0; s < FIRST_STEPS; s++)
        printf("%s%.6g", s ? ", " : "", first[s]);
    printf("], \"measures\": [");
    for (int m = 0; m < n; m++) {
        printf("%s\n  {\"name\": \"%s\", \"unit\": \"%s\", \"seconds\": [", m ? "," : "",
               all[m]->name, all[m]->unit);
        for (int r = 0; r < ROUNDS; r++)
            printf("%s%.6g", r ? ", " : "", t[m][r]);
        printf("]}");
    }
    printf("]}\n");
    fflush(stdout);
}

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    double first[FIRST_STEPS];
    time_first_steps(first);
    bench_src = calloc(BENCH_WORDS, sizeof *bench_src);
    bench_dst = calloc(BENCH_WORDS, sizeof *bench_dst);
    if (!bench_src || !bench_dst)
        bsp_abort("bench: out of memory");
    bsp_push_reg(bench_dst, BENCH_WORDS * (int)sizeof *bench_dst);
    bench_baselines_start();
    bsp_sync();

    int nours = count(ours), n = nours + count(bench_baselines);
    const struct bench_measure **all = malloc((size_t)n * sizeof *all);
    double (*t)[ROUNDS] = malloc((size_t)n * sizeof *t);
    for (int m = 0; m < n; m++)
        all[m] = m < nours ? &ours[m] : &bench_baselines[m - nours];
    for (int m = 0; m < n; m++) /* warm up: buffers grown, pages touched */
        all[m]->sample();
    for (int r = 0; r < ROUNDS; r++)
        for (int m = 0; m < n; m++)
            t[m][r] = all[m]->sample();
    if (bsp_pid() == 0)
        print_json(all, n, t, first);
    bsp_pop_reg(bench_dst);
    bsp_sync();
    free(t);
    free(all);
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
