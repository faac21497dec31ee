/* team.h: the threads of one address space that run BSP processes, shared by the threads backend and the hybrid backend's ranks. */
#ifndef BSP_TEAM_H
#define BSP_TEAM_H

#include <pthread.h> /* includers define _GNU_SOURCE first, for cpu_set_t */
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "barrier.h"
#include "bsp_internal.h"

/* What a process publishes at the barriers of the syncs of one parity:
 * its arrival counter and, on the same cache line, its header and where
 * it sent something, which every other process reads after the barrier:
 * one transfer per process, and an empty sync reads nothing else. */
struct thr_line {
    _Alignas(64) atomic_uint_least64_t arrivals; /* barriers passed in syncs of this parity */
    struct bsp_header header;                    /* of the latest sync of this parity */
    uint64_t sent_to;                            /* thr_pid_bit of each pid with a non-empty outbox */
};

/* A process of the team. Everything a process writes during superstep s
 * goes to the buffers of parity s % 2, which the others read during the
 * sync and, for messages, during superstep s + 1; the writer clears them
 * at the next sync, after its first barrier. */
struct thr_proc {
    struct bsp_proc base;          /* must stay first: bsp_self points here */
    struct bsp_outbox *boxes[2];   /* per parity, one outbox per destination pid */
    pthread_t thread;              /* the thread running it (all but the team's first) */
    struct bsp_buf got;            /* values read by this superstep's gets */
    struct thr_line lines[2];      /* per parity */
};

/* The processes outside this address space, when there are any (the
 * hybrid backend's other MPI ranks). The team's first thread calls
 * exchange at every sync between the first two barriers, when every
 * thread of the team has published its header and outboxes and nobody
 * writes memory; after the second barrier every thread reads what came. */
struct thr_world {
    void (*exchange)(int par);
    /* What remote process src sent to the team's process dst this sync
     * (its get requests are already served). */
    const struct bsp_outbox *(*inbox)(int src, int dst);
    /* The values of dst's gets from remote process src, in call order. */
    const char *(*replies)(int src, int dst);
};

/* The SPMD section's processes in this address space: pids first ..
 * first + nlocal - 1 of nprocs. */
struct thr_team {
    int nprocs;                    /* processes of the section, everywhere */
    int first;                     /* pid of procs[0] */
    int nlocal;                    /* processes here */
    struct thr_proc *procs;        /* the processes here, by pid - first, each on cache lines of its own */
    struct bsp_barrier barrier[2]; /* per parity, over the processes' lines of that parity */
    cpu_set_t allowed;             /* the CPUs the caller could run on, restored at the end */
    bool pinned;                   /* one process per CPU of allowed */
    const struct thr_world *world; /* NULL: every process is here */
};

extern struct thr_team *thr_team;

/* What bsp_init recorded: the SPMD function, or NULL for main. */
void thr_set_spmd(void (*spmd)(void), int argc, char **argv);
/* In a thread the team started, takes its process and returns true. */
bool thr_begin_spawned(void);
/* The CPUs this thread may use: their number, and *allowed (empty when
 * it cannot be told). */
int thr_cpus(cpu_set_t *allowed);
/* Starts the team: the calling thread becomes process first; the others
 * get threads. pin_from >= 0 pins process first + k to the (pin_from +
 * k)-th allowed CPU; oversubscribed makes the barrier yield at once. */
void thr_team_start(int nprocs, int first, int nlocal, int pin_from, bool oversubscribed,
                    const struct thr_world *world);
/* A sync of every process, or of this address space's only (within:
 * nothing may then cross to another, bsp_group.h). */
void thr_sync(struct thr_proc *me, uint32_t kind, bool within);
/* After the last sync: a thread other than the team's first ends here;
 * the first joins the others and gets its affinity back. */
void thr_team_leave(struct thr_proc *me);
/* Each process's profile steps here, by pid - first (the caller frees the array). */
const struct bsp_prof_step **thr_team_steps(void);
void thr_team_free(void);

#endif
