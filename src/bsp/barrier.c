/* barrier.c: a barrier for threads that polls briefly, then yields, then sleeps. */
#include <sched.h>
#include <unistd.h>

#include "barrier.h"

/* A waiter first polls (a few microseconds: longer than a sync of p <=
 * cores threads), then polls and yields, which hands the core over at
 * once if the awaited thread shares it (oversubscription, or a machine
 * busy with other work), and finally sleeps, so that a long superstep
 * costs the waiters at most a millisecond or so of CPU. */
enum { BARRIER_POLLS = 1 << 12, BARRIER_YIELDS = 256 };

void bsp_barrier_init(struct bsp_barrier *b, unsigned nprocs)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    atomic_init(&b->count, 0);
    atomic_init(&b->round, 0);
    atomic_init(&b->sleepers, 0);
    b->nprocs = nprocs;
    /* Oversubscribed, a spinner steals the core of the thread it waits
     * for: sleep at once instead. */
    b->polls = (cores > 0 && nprocs > (unsigned)cores) ? 0 : BARRIER_POLLS;
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
    for (unsigned i = 0; i < b->polls; i++)
        if (atomic_load_explicit(&b->round, memory_order_acquire) != round)
            return;
    for (unsigned i = 0; i < BARRIER_YIELDS; i++) {
        if (atomic_load_explicit(&b->round, memory_order_acquire) != round)
            return;
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
