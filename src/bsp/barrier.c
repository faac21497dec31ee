/* barrier.c: a barrier for threads that polls, then yields, then sleeps. */
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "barrier.h"

/* A waiter polls, yielding now and then (which hands the core over at once
 * if the awaited thread shares it: a machine busy with other work), for up
 * to BARRIER_SPIN_NS, and only then sleeps. Waking a sleeper costs tens of
 * microseconds on a virtual machine, unpredictably: paid only after
 * milliseconds of waiting, it is a small part of the superstep, so a
 * superstep costs what the cost model says (docs/runtime.md). A long
 * superstep costs each waiter that much CPU at most. */
enum { BARRIER_SPIN_NS = 2000000, BARRIER_POLLS_PER_YIELD = 1 << 10 };

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void bsp_barrier_init(struct bsp_barrier *b, unsigned nprocs)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    atomic_init(&b->count, 0);
    atomic_init(&b->round, 0);
    atomic_init(&b->sleepers, 0);
    b->nprocs = nprocs;
    /* Oversubscribed, a poller steals the core of the thread it waits
     * for: yield at every poll instead. */
    b->polls = cores > 0 && nprocs > (unsigned)cores ? 1 : BARRIER_POLLS_PER_YIELD;
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->wake, NULL);
}

void bsp_barrier_destroy(struct bsp_barrier *b)
{
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->wake);
}

static void release(struct bsp_barrier *b, unsigned round)
{
    atomic_store_explicit(&b->count, 0, memory_order_relaxed);
    atomic_store(&b->round, round + 1);
    /* Sequentially consistent with the sleeper's increment: either it sees
     * the new round or we see it sleeping. */
    if (atomic_load(&b->sleepers) > 0) {
        pthread_mutex_lock(&b->lock);
        pthread_cond_broadcast(&b->wake);
        pthread_mutex_unlock(&b->lock);
    }
}

static void await(struct bsp_barrier *b, unsigned round)
{
    long long until = now_ns() + BARRIER_SPIN_NS;
    for (;;) {
        for (unsigned i = 0; i < b->polls; i++)
            if (atomic_load_explicit(&b->round, memory_order_acquire) != round)
                return;
        if (now_ns() > until)
            break;
        sched_yield();
    }
    pthread_mutex_lock(&b->lock);
    atomic_fetch_add(&b->sleepers, 1);
    while (atomic_load(&b->round) == round)
        pthread_cond_wait(&b->wake, &b->lock);
    atomic_fetch_sub(&b->sleepers, 1);
    pthread_mutex_unlock(&b->lock);
}

void bsp_barrier_wait(struct bsp_barrier *b)
{
    unsigned round = atomic_load_explicit(&b->round, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) + 1 == b->nprocs)
        release(b, round);
    else
        await(b, round);
}
