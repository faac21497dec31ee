/* team.c: the threads of one address space running BSP processes: a sync is barriers plus copies (threads backend, and each rank of the hybrid one). */
#define _GNU_SOURCE /* pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "team.h"

struct thr_team *thr_team;

/* What bsp_init recorded: the SPMD function and the program's arguments. */
static void (*thr_spmd)(void);
static int thr_argc;
static char **thr_argv;

/* Set in a spawned thread until its SPMD function calls bsp_begin. */
static _Thread_local struct thr_proc *thr_pending;

extern int main(int argc, char **argv);

void thr_set_spmd(void (*spmd)(void), int argc, char **argv)
{
    thr_spmd = spmd;
    thr_argc = argc;
    thr_argv = argv;
}

bool thr_begin_spawned(void)
{
    if (!thr_pending)
        return false;
    bsp_self = &thr_pending->base;
    thr_pending = NULL;
    return true;
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

/* A pinned process runs on the cpu-th CPU it may use: the scheduler
 * cannot then put two on one core, or move one away from its cache,
 * which makes run times steadier. */
static void pin(struct thr_team *team, pthread_t thread, int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int c = 0, k = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &team->allowed) && k++ == cpu) {
            CPU_SET(c, &one);
            pthread_setaffinity_np(thread, sizeof one, &one);
            return;
        }
}

int thr_cpus(cpu_set_t *allowed)
{
    if (pthread_getaffinity_np(pthread_self(), sizeof *allowed, allowed) == 0)
        return CPU_COUNT(allowed);
    CPU_ZERO(allowed);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

void thr_team_start(int nprocs, int first, int nlocal, int pin_from, bool oversubscribed,
                    const struct thr_world *world)
{
    if (!thr_spmd && !thr_argv)
        load_cmdline();
    struct thr_team *team = bsp_xcalloc(1, sizeof *team);
    *team = (struct thr_team){.nprocs = nprocs, .first = first, .nlocal = nlocal, .world = world};
    team->procs = bsp_xcalloc_lines((size_t)nlocal, sizeof *team->procs);
    for (int k = 0; k < nlocal; k++)
        thr_proc_init(&team->procs[k], first + k, nprocs);
    int cpus = thr_cpus(&team->allowed);
    team->pinned = pin_from >= 0 && pin_from + nlocal <= cpus && CPU_COUNT(&team->allowed) > 0;
    for (int par = 0; par < 2; par++)
        bsp_barrier_init(&team->barrier[par], (unsigned)nlocal, &team->procs[0].lines[par].arrivals,
                         sizeof *team->procs, oversubscribed);
    thr_team = team;
    for (int k = 1; k < nlocal; k++) {
        if (pthread_create(&team->procs[k].thread, NULL, thr_run, &team->procs[k]))
            bsp_fail(NULL, "bsp_begin: cannot start thread %d", k);
        if (team->pinned)
            pin(team, team->procs[k].thread, pin_from + k);
    }
    if (team->pinned)
        pin(team, pthread_self(), pin_from);
    bsp_self = &team->procs[0].base;
}

static bool thr_is_here(const struct thr_team *team, int pid)
{
    return pid >= team->first && pid < team->first + team->nlocal;
}

static struct thr_proc *thr_here(const struct thr_team *team, int pid)
{
    return &team->procs[pid - team->first];
}

/* In this address space a get is the requester's own copy. Every get reads
 * before any get writes (a get's destination may be another's source), so
 * the values are staged in `got` before the barrier and stored after it;
 * another address space's values come from the world's replies. */
static void thr_read_gets(struct thr_proc *me, int par)
{
    me->got.len = 0;
    for (int j = thr_team->first; j < thr_team->first + thr_team->nlocal; j++) {
        const struct bsp_buf *gets = &me->boxes[par][j].gets;
        const struct bsp_get_req *req = (const struct bsp_get_req *)gets->data;
        for (size_t i = 0; i < gets->len / sizeof *req; i++) {
            const char *src = bsp_step_resolve(&thr_here(thr_team, j)->base, "bsp_get",
                                               me->base.pid, req[i].slot,
                                               req[i].offset, req[i].nbytes);
            if (req[i].nbytes)
                memcpy(bsp_buf_append(&me->got, (size_t)req[i].nbytes), src, (size_t)req[i].nbytes);
        }
    }
}

static void thr_store_gets(struct thr_proc *me, int par)
{
    const char *staged = me->got.data;
    for (int j = 0; j < me->base.nprocs; j++) {
        const struct bsp_buf *gets = &me->boxes[par][j].gets;
        const struct bsp_get_req *req = (const struct bsp_get_req *)gets->data;
        if (!gets->len)
            continue;
        bool here = thr_is_here(thr_team, j);
        const char *val = here ? staged : thr_team->world->replies(j, me->base.pid);
        for (size_t i = 0; i < gets->len / sizeof *req; i++) {
            if (req[i].nbytes)
                memcpy((void *)(uintptr_t)req[i].dst, val, (size_t)req[i].nbytes);
            val += req[i].nbytes;
        }
        if (here)
            staged = val;
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

static void thr_deliver_box(struct thr_proc *me, int src, const struct bsp_outbox *box)
{
    bsp_step_count_served(&me->base, src, &box->gets);
    bsp_step_apply_puts(&me->base, src, &box->puts);
    bsp_step_apply_hps(&me->base, src, &box->hps);
    bsp_step_queue_msgs(&me->base, src, &box->msgs);
}

/* Everything addressed to me this superstep, in pid order: from this
 * address space read in the senders' buffers, which their lines say to
 * read; from others in what the world received (nothing at a sync within
 * this address space). */
static void thr_deliver(struct thr_proc *me, int par, bool within)
{
    struct thr_team *team = thr_team;
    bsp_step_begin_delivery(&me->base);
    for (int j = 0; j < me->base.nprocs; j++) {
        if (!thr_is_here(team, j)) {
            if (!within)
                thr_deliver_box(me, j, team->world->inbox(j, me->base.pid));
            continue;
        }
        const struct thr_proc *sender = thr_here(team, j);
        if (sender->lines[par].sent_to & thr_pid_bit(me->base.pid))
            thr_deliver_box(me, j, &sender->boxes[par][me->base.pid]);
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

/* The headers of this address space against its first process's (the
 * world compares that one with process 0's); the flags of all. */
static uint32_t thr_check_headers(struct thr_proc *me, int par)
{
    struct thr_team *team = thr_team;
    uint32_t flags = 0;
    for (int k = 0; k < team->nlocal; k++) {
        const struct bsp_header *other = &team->procs[k].lines[par].header;
        bsp_step_check(&me->base, &team->procs[0].lines[par].header, other, team->first + k);
        flags |= other->flags;
    }
    return flags;
}

/* A sync within this address space may not reach beyond it, nor change
 * what all processes must agree on, which only a sync of all compares. */
static void thr_check_within(struct thr_proc *me, int par)
{
    for (int j = 0; j < me->base.nprocs; j++) {
        const struct bsp_outbox *box = &me->boxes[par][j];
        if (!thr_is_here(thr_team, j) && (box->puts.len || box->msgs.len || box->gets.len || box->hps.len))
            bsp_fail(&me->base, "bsp_group_sync: a put, get or message to pid %d, outside its group "
                     "(superstep %llu)", j, (unsigned long long)me->base.superstep);
    }
    if (me->base.regops.len || me->base.tagsize_calls)
        bsp_fail(&me->base, "bsp_group_sync: registrations and the tag size change only at a bsp_sync "
                 "(superstep %llu)", (unsigned long long)me->base.superstep);
}

void thr_sync(struct thr_proc *me, uint32_t kind, bool within)
{
    struct thr_team *team = thr_team;
    int par = (int)(me->base.superstep & 1);
    if (within && team->world)
        thr_check_within(me, par);
    bsp_step_header(&me->base, kind, &me->lines[par].header);
    me->lines[par].sent_to = thr_sent_to(me, par);
    thr_barrier(me, par);

    bool world = team->world && !within;
    if (world && me == &team->procs[0])
        team->world->exchange(par);
    uint32_t flags = thr_check_headers(me, par);
    if (me->base.flags & BSP_HAS_GETS)
        thr_read_gets(me, par);
    /* The world's exchange is over once everybody has passed this one. */
    if ((flags & BSP_HAS_GETS) || world)
        thr_barrier(me, par);
    if (me->base.flags & BSP_HAS_GETS)
        thr_store_gets(me, par);
    thr_clear_previous(me, par);
    thr_deliver(me, par, !world);
    /* hpput sources belong to their senders again once the sync returns;
     * the world copied those it sent before the second barrier. */
    if (flags & BSP_HAS_HPS)
        thr_barrier(me, par);
    bsp_step_finish(&me->base);
}

/* A program built with -fsanitize=address over this uninstrumented library
 * would see the stack pthread_exit leaves as overflowed: ASan is told. */
extern void __asan_handle_no_return(void) __attribute__((weak));

void thr_team_leave(struct thr_proc *me)
{
    struct thr_team *team = thr_team;
    bsp_self = NULL;
    if (me != &team->procs[0]) {
        if (__asan_handle_no_return)
            __asan_handle_no_return();
        pthread_exit(NULL);
    }
    for (int k = 1; k < team->nlocal; k++)
        pthread_join(team->procs[k].thread, NULL);
    if (team->pinned)
        pthread_setaffinity_np(pthread_self(), sizeof team->allowed, &team->allowed);
}

const struct bsp_prof_step **thr_team_steps(void)
{
    const struct bsp_prof_step **steps = bsp_xcalloc((size_t)thr_team->nlocal, sizeof *steps);
    for (int k = 0; k < thr_team->nlocal; k++)
        steps[k] = (const struct bsp_prof_step *)thr_team->procs[k].base.prof_steps.data;
    return steps;
}

void thr_team_free(void)
{
    struct thr_team *team = thr_team;
    for (int k = 0; k < team->nlocal; k++)
        thr_proc_free(&team->procs[k]);
    for (int par = 0; par < 2; par++)
        bsp_barrier_destroy(&team->barrier[par]);
    free(team->procs);
    free(team);
    thr_team = NULL;
}
