/* threads.c: the POSIX threads backend: every process a thread of one address space (team.c). */
#define _GNU_SOURCE /* cpu_set_t */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bsp_group.h"
#include "bsp_limits.h"
#include "team.h"

const char bsp_backend_name[] = "threads";
/* Every hpput is copied by its receiver straight from its source. */
const size_t bsp_backend_direct_hp_from = 0;

/* Found by bsprun in the binary to choose the backend. */
const char bsp_backend_marker[] = "vecbsp-bsp-backend=threads";

void bsp_backend_halt(void)
{
    fflush(NULL);
    _exit(1);
}

void bsp_init(void (*spmd)(void), int argc, char **argv)
{
    thr_set_spmd(spmd, argc, argv);
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

/* The program ending (exit, or process 0 returning from main) while the
 * processes still run would end them all with the program's status, as if
 * nothing had happened. */
static void thr_check_ended(void)
{
    if (thr_team)
        bsp_fail(NULL, "the program ended (exit, or a return from main) before bsp_end");
}

void bsp_begin(bsp_nprocs_t maxprocs)
{
    if (thr_begin_spawned())
        return;
    if (bsp_self || thr_team)
        bsp_fail(NULL, "bsp_begin called twice");
    if (maxprocs < 1 || maxprocs > BSP_THREADS_MAX_PROCS)
        bsp_fail(NULL, "bsp_begin: %d processes requested; the threads backend runs 1 to %d",
                 maxprocs, BSP_THREADS_MAX_PROCS);
    bsp_profile_start();
    bsp_step_start();
    bsp_buf_start(BSP_HUGE_PAGE); /* one address space: nothing rounded up */
    cpu_set_t allowed;
    int cpus = thr_cpus(&allowed);
    static bool checked;
    if (!checked)
        checked = atexit(thr_check_ended) == 0;
    thr_team_start(maxprocs, 0, maxprocs, 0, maxprocs > cpus, NULL);
}

void bsp_sync(void)
{
    thr_sync((struct thr_proc *)bsp_need_self("bsp_sync"), BSP_KIND_SYNC, false);
}

/* One address space: every group syncs with all (bsp_group.h). */
void bsp_group_sync(const int *group)
{
    (void)group;
    bsp_sync();
}

/* Process 0 continues after bsp_end, alone; the others end here. */
void bsp_end(void)
{
    struct thr_proc *me = (struct thr_proc *)bsp_need_self("bsp_end");
    thr_sync(me, BSP_KIND_END, false);
    thr_team_leave(me);
    if (bsp_profile_enabled) {
        const struct bsp_prof_step **steps = thr_team_steps();
        bsp_profile_write(thr_team->nprocs, me->base.superstep, steps);
        free(steps);
    }
    thr_team_free();
}
