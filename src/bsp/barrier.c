/* barrier.c: a barrier for threads where each arrives on a counter of its own and polls the others', then sleeps. */
#include <sched.h>

#include "barrier.h"
#include "bsp_internal.h"

/* A waiter polls for up to BARRIER_SPIN_SECONDS, and only then sleeps.
 * Waking a sleeper costs tens of microseconds on a virtual machine,
 * unpredictably: paid only after milliseconds of waiting, it is a small
 * part of the superstep, so a superstep costs what the cost model says
 * (docs/runtime.md). A long superstep costs each waiter that much CPU at
 * most. The clock is read only once polling has lasted a while, since
 * reading it would be a good part of a short barrier. */
static const double BARRIER_SPIN_SECONDS = 2e-3;
enum { POLLS_BETWEEN_CLOCKS = 1 << 10 };

void bsp_barrier_init(struct bsp_barrier *b, unsigned nprocs, atomic_uint_least64_t *first,
                      size_t stride, bool oversubscribed)
{
    b->counters = (char *)first;
    b->stride = stride;
    b->nprocs = nprocs;
    b->oversubscribed = oversubscribed;
    atomic_init(&b->sleepers, 0);
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->wake, NULL);
}

void bsp_barrier_destroy(struct bsp_barrier *b)
{
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->wake);
}

/* With a CPU each, a waiter polls with the CPU's pause instruction and
 * never yields: the scheduler (EEVDF, Linux 6.6 on) answers a yield by
 * running another program on this CPU for the rest of its slice, and a
 * waiter that sleeps is not woken ahead of one either, so either way the
 * process, when the last arrives, may be off its CPU for a millisecond or
 * more while the others wait for it at the next barrier. Holding the CPU
 * until the spin bound, it is preempted only when its fair share is used
 * up. (Measured, docs/runtime.md: process 0 working 0.22 ms a superstep
 * while process 1 waits, with one more busy program on the machine, its
 * median superstep 1.04-2.21 ms yielding, 0.23-0.37 ms polling, at p = 1
 * 0.22-0.26 ms.) With more threads than CPUs the one awaited may be
 * waiting for this very CPU: yield at once. */
static void relax(const struct bsp_barrier *b)
{
    if (b->oversubscribed)
        sched_yield();
#if defined(__x86_64__) || defined(__i386__)
    else
        __builtin_ia32_pause();
#endif
}

/* Moves *next past the participants whose counters have reached count;
 * true when all have. A participant once seen there stays there. */
static bool all_reached(struct bsp_barrier *b, unsigned *next, uint64_t count, memory_order order)
{
    while (*next < b->nprocs &&
           atomic_load_explicit((atomic_uint_least64_t *)(b->counters + *next * b->stride), order) >= count)
        ++*next;
    return *next == b->nprocs;
}

static void sleep_until_all(struct bsp_barrier *b, unsigned *next, uint64_t count)
{
    pthread_mutex_lock(&b->lock);
    atomic_fetch_add(&b->sleepers, 1);
    /* Sequentially consistent with an arrival's store and load of
     * sleepers: either I see its counter or it sees me sleeping. */
    while (!all_reached(b, next, count, memory_order_seq_cst))
        pthread_cond_wait(&b->wake, &b->lock);
    atomic_fetch_sub(&b->sleepers, 1);
    pthread_mutex_unlock(&b->lock);
}

void bsp_barrier_wait(struct bsp_barrier *b, atomic_uint_least64_t *mine, uint64_t count)
{
    atomic_store(mine, count);
    if (atomic_load(&b->sleepers) > 0) {
        pthread_mutex_lock(&b->lock);
        pthread_cond_broadcast(&b->wake);
        pthread_mutex_unlock(&b->lock);
    }
    unsigned next = 0;
    double until = 0;
    for (unsigned polls = 1; !all_reached(b, &next, count, memory_order_acquire); polls++) {
        relax(b);
        if (polls % POLLS_BETWEEN_CLOCKS)
            continue;
        double now = bsp_clock();
        if (until == 0) {
            until = now + BARRIER_SPIN_SECONDS;
        } else if (now > until) {
            sleep_until_all(b, &next, count);
            return;
        }
    }
}
