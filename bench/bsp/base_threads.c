/* base_threads.c: the threads backend's baselines: a C11 spin barrier and a copy of another core's words, between the same threads. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <bsp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { WAITS = 20 }; /* as bench.c's samples */

/* A sense-reversing barrier, the textbook one: arrivals count on one
 * cache line, the last one flips the sense the others poll on another.
 * With more processes than CPUs a waiter yields at every poll, or it
 * would spin away the time slice of the thread it waits for. */
static struct {
    _Alignas(64) atomic_uint arrived;
    _Alignas(64) atomic_uint sense;
    int oversubscribed;
} spin;

static _Thread_local unsigned my_sense;

static void spin_wait(unsigned p)
{
    unsigned s = my_sense ^= 1;
    if (atomic_fetch_add_explicit(&spin.arrived, 1, memory_order_acq_rel) + 1 == p) {
        atomic_store_explicit(&spin.arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&spin.sense, s, memory_order_release);
        return;
    }
    while (atomic_load_explicit(&spin.sense, memory_order_acquire) != s) {
        if (spin.oversubscribed)
            sched_yield();
        else
            __builtin_ia32_pause();
    }
}

static double sample_spin_barrier(void)
{
    unsigned p = (unsigned)bsp_nprocs();
    bsp_sync();
    spin_wait(p);
    double t0 = bsp_time();
    for (int i = 0; i < WAITS; i++)
        spin_wait(p);
    return (bsp_time() - t0) / WAITS;
}

/* Every process's send area and a buffer of its own, so that a process
 * can read its neighbour's. */
static double *src_of[1024], *buffer_of[1024];

/* Seconds per word of a copy from the neighbour's words, timed from the
 * first copy's start, the sync between them untimed. */
static double copy_from_neighbour(double **from)
{
    int p = bsp_nprocs(), me = bsp_pid();
    bsp_sync();
    double t0 = bsp_time();
    memcpy(bench_dst, from[(me + 1) % p], BENCH_WORDS * sizeof *bench_dst);
    __asm__ volatile("" : : "r"(bench_dst) : "memory");
    double seconds = bsp_time() - t0;
    bsp_sync(); /* the neighbour rewrites only after I have read */
    return seconds;
}

/* The least any transfer between cores pays: each process copies the
 * words its neighbour has just written, per word. */
static double sample_cross_copy(void)
{
    memset(bench_src, 1, BENCH_WORDS * sizeof *bench_src); /* dirty in my cache */
    return copy_from_neighbour(src_of) / BENCH_WORDS;
}

/* What a buffered put costs at least, done by hand: the sender copies its
 * words into a buffer of its own (which the receiver read last time), the
 * receiver copies that buffer into its array; both copies timed. */
static double sample_two_copies(void)
{
    int me = bsp_pid();
    bsp_sync();
    double t0 = bsp_time();
    memcpy(buffer_of[me], bench_src, BENCH_WORDS * sizeof *bench_src);
    __asm__ volatile("" : : "r"(buffer_of[me]) : "memory");
    double seconds = bsp_time() - t0;
    return (seconds + copy_from_neighbour(buffer_of)) / BENCH_WORDS;
}

const struct bench_measure bench_baselines[] = {
    {"spin_barrier", "sync", sample_spin_barrier},
    {"cross_copy", "word", sample_cross_copy},
    {"two_copies", "word", sample_two_copies},
    {0},
};

void bench_baselines_start(void)
{
    src_of[bsp_pid()] = bench_src;
    buffer_of[bsp_pid()] = calloc(BENCH_WORDS, sizeof(double));
    if (!buffer_of[bsp_pid()])
        bsp_abort("bench: out of memory");
    if (bsp_pid() == 0) {
        cpu_set_t allowed;
        spin.oversubscribed =
            sched_getaffinity(0, sizeof allowed, &allowed) == 0 && bsp_nprocs() > CPU_COUNT(&allowed);
    }
}

const char *bench_backend(void)
{
    return "threads";
}
