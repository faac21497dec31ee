/* threads.c: the POSIX threads backend: one address space, so a sync is barriers plus copies. */
#define _GNU_SOURCE /* pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "barrier.h"
#include "bsp_internal.h"
#include "bsp_limits.h"

const char bsp_backend_name[] = "threads";
/* Every hpput is copied by its receiver straight from its source. */
const size_t bsp_backend_direct_hp_from = 0;

/* Found by bsprun in the binary to choose the backend. */
const char bsp_backend_marker[] = "vecbsp-bsp-backend=threads";

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
    struct bsp_outbox *boxes[2];   /* per parity, one outbox per destination */
    pthread_t thread;              /* the thread running it (pid > 0) */
    struct bsp_buf got;            /* values read by this superstep's gets */
    struct thr_line lines[2];      /* per parity */
};

/* The SPMD section in progress. */
struct thr_team {
    int nprocs;                  /* team size */
    struct thr_proc *procs;      /* the processes, by pid, each on cache lines of its own */
    struct bsp_barrier barrier[2]; /* per parity, over the processes' lines of that parity */
    cpu_set_t allowed;           /* the CPUs the caller could run on, restored at bsp_end */
    bool pinned;                 /* one process per CPU of allowed */
};

static struct thr_team *thr_team;

/* What bsp_init recorded: the SPMD function and the program's arguments. */
static void (*thr_spmd)(void);
static int thr_argc;
static char **thr_argv;

/* Set in a spawned thread until its SPMD function calls bsp_begin. */
static _Thread_local struct thr_proc *thr_pending;

extern int main(int argc, char **argv);

void bsp_backend_halt(void)
{
    fflush(NULL);
    _exit(1);
}

void bsp_init(void (*spmd)(void), int argc, char **argv)
{
    thr_spmd = spmd;
    thr_argc = argc;
    thr_argv = argv;
}

bsp_nprocs_t bsp_nprocs(void)
{
    if (bsp_self)
        return bsp_self->nprocs;
    int n = bsp_env_nprocs();
    if (n)
        return n;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (bsp_nprocs_t)cores : 1;
}

/* Without bsp_init the SPMD function is main, which the standard requires
 * to begin with bsp_begin; it gets the program's own arguments, read back
 * from /proc since nobody handed them to us. */
static void load_cmdline(void)
{
    static struct bsp_buf text, args;
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (f) {
        char chunk[4096];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
            memcpy(bsp_buf_append(&text, n), chunk, n);
        fclose(f);
    }
    *(char *)bsp_buf_append(&text, 1) = '\0';
    for (size_t at = 0; at + 1 < text.len; at += strlen(text.data + at) + 1)
        *(char **)bsp_buf_append(&args, sizeof(char *)) = text.data + at;
    thr_argc = (int)(args.len / sizeof(char *));
    *(char **)bsp_buf_append(&args, sizeof(char *)) = NULL;
    thr_argv = (char **)args.data;
}

static void *thr_run(void *arg)
{
    thr_pending = arg;
    if (thr_spmd)
        thr_spmd();
    else
        main(thr_argc, thr_argv);
    bsp_fail(&((struct thr_proc *)arg)->base,
             "the SPMD function returned without calling bsp_end");
}

static void thr_proc_init(struct thr_proc *tp, int pid, int nprocs)
{
    bsp_proc_init(&tp->base, pid, nprocs);
    for (int par = 0; par < 2; par++)
        tp->boxes[par] = bsp_xcalloc((size_t)nprocs, sizeof(struct bsp_outbox));
    tp->base.out = tp->boxes[0];
}

static void thr_proc_free(struct thr_proc *tp)
{
    for (int par = 0; par < 2; par++) {
        for (int j = 0; j < tp->base.nprocs; j++)
            bsp_outbox_free(&tp->boxes[par][j]);
        free(tp->boxes[par]);
    }
    bsp_buf_free(&tp->got);
    bsp_proc_free(&tp->base);
}

/* With no more processes than CPUs, process pid runs on the pid-th CPU it
 * may use: the scheduler cannot then put two on one core, or move one
 * away from its cache, which makes run times steadier. */
static void pin(struct thr_team *team, pthread_t thread, int pid)
{
    if (!team->pinned)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int cpu = 0, k = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &team->allowed) && k++ == pid) {
            CPU_SET(cpu, &one);
            pthread_setaffinity_np(thread, sizeof one, &one);
            return;
        }
}

/* The CPUs this thread may run on (team->allowed, empty if unknown),
 * or the machine's when that cannot be told. */
static int thr_cpus(struct thr_team *team)
{
    if (pthread_getaffinity_np(pthread_self(), sizeof team->allowed, &team->allowed) == 0)
        return CPU_COUNT(&team->allowed);
    CPU_ZERO(&team->allowed);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

/* The program ending (exit, or process 0 returning from main) while the
 * processes still run would end them all with the program's status, as if
 * nothing had happened. */
static void thr_check_ended(void)
{
    if (thr_team)
        bsp_fail(NULL, "the program ended (exit, or a return from main) before bsp_end");
}

/* A program built with -fsanitize=address over this uninstrumented library
 * would see the stack pthread_exit leaves as overflowed: ASan is told. */
extern void __asan_handle_no_return(void) __attribute__((weak));

void bsp_begin(bsp_nprocs_t maxprocs)
{
    if (thr_pending) {
        bsp_self = &thr_pending->base;
        thr_pending = NULL;
        return;
    }
    if (bsp_self || thr_team)
        bsp_fail(NULL, "bsp_begin called twice");
    if (maxprocs < 1 || maxprocs > BSP_THREADS_MAX_PROCS)
        bsp_fail(NULL, "bsp_begin: %d processes requested; the threads backend runs 1 to %d",
                 maxprocs, BSP_THREADS_MAX_PROCS);
    if (!thr_spmd && !thr_argv)
        load_cmdline();
    bsp_profile_start();
    bsp_step_start();
    bsp_buf_start(BSP_HUGE_PAGE); /* one address space: nothing rounded up */
    struct thr_team *team = bsp_xcalloc(1, sizeof *team);
    team->nprocs = maxprocs;
    team->procs = bsp_xcalloc_lines((size_t)maxprocs, sizeof *team->procs);
    for (int pid = 0; pid < maxprocs; pid++)
        thr_proc_init(&team->procs[pid], pid, maxprocs);
    int cpus = thr_cpus(team);
    team->pinned = maxprocs <= cpus && CPU_COUNT(&team->allowed) > 0;
    for (int par = 0; par < 2; par++)
        bsp_barrier_init(&team->barrier[par], (unsigned)maxprocs, &team->procs[0].lines[par].arrivals,
                         sizeof *team->procs, maxprocs > cpus);
    thr_team = team;
    static bool checked;
    if (!checked)
        checked = atexit(thr_check_ended) == 0;
    for (int pid = 1; pid < maxprocs; pid++) {
        if (pthread_create(&team->procs[pid].thread, NULL, thr_run, &team->procs[pid]))
            bsp_fail(NULL, "bsp_begin: cannot start thread %d", pid);
        pin(team, team->procs[pid].thread, pid);
    }
    pin(team, pthread_self(), 0);
    bsp_self = &team->procs[0].base;
}

/* In this address space a get is the requester's own copy. Every get reads
 * before any get writes (a get's destination may be another's source), so
 * the values are staged in `got` before the barrier and stored after it. */
static void thr_read_gets(struct thr_proc *me, int par)
{
    me->got.len = 0;
    for (int j = 0; j < me->base.nprocs; j++) {
        const struct bsp_buf *gets = &me->boxes[par][j].gets;
        const struct bsp_get_req *req = (const struct bsp_get_req *)gets->data;
        for (size_t i = 0; i < gets->len / sizeof *req; i++) {
            const char *src = bsp_step_resolve(&thr_team->procs[j].base, "bsp_get",
                                               me->base.pid, req[i].slot,
                                               req[i].offset, req[i].nbytes);
            if (req[i].nbytes)
                memcpy(bsp_buf_append(&me->got, (size_t)req[i].nbytes), src, (size_t)req[i].nbytes);
        }
    }
}

static void thr_store_gets(struct thr_proc *me, int par)
{
    const char *val = me->got.data;
    for (int j = 0; j < me->base.nprocs; j++) {
        const struct bsp_buf *gets = &me->boxes[par][j].gets;
        const struct bsp_get_req *req = (const struct bsp_get_req *)gets->data;
        for (size_t i = 0; i < gets->len / sizeof *req; i++) {
            if (req[i].nbytes)
                memcpy((void *)(uintptr_t)req[i].dst, val, (size_t)req[i].nbytes);
            val += req[i].nbytes;
        }
    }
}

/* A process's bit in sent_to; past 64 processes, pids j and j + 64 share
 * one, and a receiver may look into an outbox that turns out empty. */
static uint64_t thr_pid_bit(int pid)
{
    return (uint64_t)1 << (pid % 64);
}

static uint64_t thr_sent_to(const struct thr_proc *me, int par)
{
    uint64_t sent = 0;
    for (int j = 0; j < me->base.nprocs; j++) {
        const struct bsp_outbox *box = &me->boxes[par][j];
        if (box->puts.len || box->msgs.len || box->gets.len || box->hps.len)
            sent |= thr_pid_bit(j);
    }
    return sent;
}

/* Everything addressed to me this superstep, read from the senders'
 * buffers in pid order; the others' lines say which to read. */
static void thr_deliver(struct thr_proc *me, int par)
{
    bsp_step_begin_delivery(&me->base);
    for (int j = 0; j < me->base.nprocs; j++) {
        if (!(thr_team->procs[j].lines[par].sent_to & thr_pid_bit(me->base.pid)))
            continue;
        const struct bsp_outbox *box = &thr_team->procs[j].boxes[par][me->base.pid];
        bsp_step_count_served(&me->base, j, &box->gets);
        bsp_step_apply_puts(&me->base, j, &box->puts);
        bsp_step_apply_hps(&me->base, j, &box->hps);
        bsp_step_queue_msgs(&me->base, j, &box->msgs);
    }
}

/* The outboxes of the previous superstep, which everybody has read once
 * all have reached this sync. */
static void thr_clear_previous(struct thr_proc *me, int par)
{
    uint64_t sent = me->lines[!par].sent_to;
    for (int j = 0; sent && j < me->base.nprocs; j++)
        if (sent & thr_pid_bit(j))
            bsp_outbox_clear(&me->boxes[!par][j]);
    me->base.out = me->boxes[!par];
}

static void thr_barrier(struct thr_proc *me, int par)
{
    struct thr_line *line = &me->lines[par];
    uint64_t n = atomic_load_explicit(&line->arrivals, memory_order_relaxed) + 1;
    bsp_barrier_wait(&thr_team->barrier[par], &line->arrivals, n);
}

static void thr_sync(struct thr_proc *me, uint32_t kind)
{
    struct thr_team *team = thr_team;
    int par = (int)(me->base.superstep & 1);
    bsp_step_header(&me->base, kind, &me->lines[par].header);
    me->lines[par].sent_to = thr_sent_to(me, par);
    thr_barrier(me, par);

    uint32_t flags = 0;
    for (int j = 0; j < team->nprocs; j++) {
        const struct bsp_header *other = &team->procs[j].lines[par].header;
        bsp_step_check(&me->base, &team->procs[0].lines[par].header, other, j);
        flags |= other->flags;
    }
    if (flags & BSP_HAS_GETS) {
        thr_read_gets(me, par);
        thr_barrier(me, par);
        thr_store_gets(me, par);
    }
    thr_clear_previous(me, par);
    thr_deliver(me, par);
    /* hpput sources belong to their senders again once the sync returns. */
    if (flags & BSP_HAS_HPS)
        thr_barrier(me, par);
    bsp_step_finish(&me->base);
}

void bsp_sync(void)
{
    thr_sync((struct thr_proc *)bsp_need_self("bsp_sync"), BSP_KIND_SYNC);
}

/* Process 0 continues after bsp_end, alone; the others end here. */
void bsp_end(void)
{
    struct thr_proc *me = (struct thr_proc *)bsp_need_self("bsp_end");
    thr_sync(me, BSP_KIND_END);
    bsp_self = NULL;
    if (me->base.pid != 0) {
        if (__asan_handle_no_return)
            __asan_handle_no_return();
        pthread_exit(NULL);
    }
    struct thr_team *team = thr_team;
    for (int pid = 1; pid < team->nprocs; pid++)
        pthread_join(team->procs[pid].thread, NULL);
    if (team->pinned)
        pthread_setaffinity_np(pthread_self(), sizeof team->allowed, &team->allowed);
    if (bsp_profile_enabled) {
        const struct bsp_prof_step **steps = bsp_xcalloc((size_t)team->nprocs, sizeof *steps);
        for (int pid = 0; pid < team->nprocs; pid++)
            steps[pid] = (const struct bsp_prof_step *)team->procs[pid].base.prof_steps.data;
        bsp_profile_write(team->nprocs, me->base.superstep, steps);
        free(steps);
    }
    for (int pid = 0; pid < team->nprocs; pid++)
        thr_proc_free(&team->procs[pid]);
    for (int par = 0; par < 2; par++)
        bsp_barrier_destroy(&team->barrier[par]);
    free(team->procs);
    free(team);
    thr_team = NULL;
}
