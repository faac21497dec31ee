/* bsp_limits.h: the runtime's bounds that vecbsp checks as well, before it builds a program. */
#ifndef BSP_LIMITS_H
#define BSP_LIMITS_H

/* The threads backend's largest team: each process keeps an outbox for
 * every other, twice, p^2 of them (170 MB at 1024 processes, 2.7 GB at 4096). */
#define BSP_THREADS_MAX_PROCS 1024

#endif
