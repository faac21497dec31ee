/* barrier.h: a barrier for threads that polls, then yields, then sleeps. */
#ifndef BSP_BARRIER_H
#define BSP_BARRIER_H

#include <pthread.h>
#include <stdatomic.h>

/* Counters on separate cache lines: arrivals hammer count while waiters
 * poll round. */
struct bsp_barrier {
    _Alignas(64) atomic_uint count; /* arrivals in the current round */
    _Alignas(64) atomic_uint round; /* bumped by the last arrival of a round */
    atomic_int sleepers;            /* waiters blocked on wake */
    unsigned nprocs;                /* participants */
    unsigned polls;                 /* polls between yields (1 when oversubscribed) */
    pthread_mutex_t lock;           /* guards the sleep on wake */
    pthread_cond_t wake;            /* signalled when a round completes */
};

void bsp_barrier_init(struct bsp_barrier *b, unsigned nprocs);
void bsp_barrier_destroy(struct bsp_barrier *b);
void bsp_barrier_wait(struct bsp_barrier *b);

#endif
