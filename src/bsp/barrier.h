/* barrier.h: a barrier for threads where each arrives on a counter of its own and polls the others', then sleeps. */
#ifndef BSP_BARRIER_H
#define BSP_BARRIER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The counters are the participants' own: each lies at the start of a
 * cache line that also holds what its owner publishes with an arrival,
 * so a waiter gets both in one transfer (threads.c). */
struct bsp_barrier {
    char *counters;          /* participant 0's counter */
    size_t stride;           /* bytes from one participant's counter to the next */
    unsigned nprocs;         /* participants */
    bool oversubscribed;     /* more participants than CPUs: yield at every poll */
    _Alignas(64) atomic_int sleepers; /* waiters blocked on wake */
    pthread_mutex_t lock;    /* guards the sleep on wake */
    pthread_cond_t wake;     /* broadcast by an arrival while somebody sleeps */
};

void bsp_barrier_init(struct bsp_barrier *b, unsigned nprocs, atomic_uint_least64_t *first,
                      size_t stride, bool oversubscribed);
void bsp_barrier_destroy(struct bsp_barrier *b);
/* Sets my counter to count, which makes what I wrote before visible to
 * the others, and returns when every counter has reached count. */
void bsp_barrier_wait(struct bsp_barrier *b, atomic_uint_least64_t *mine, uint64_t count);

#endif
