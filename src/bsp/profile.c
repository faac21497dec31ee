/* profile.c: per-superstep counters and the JSON profile written at bsp_end when BSP_PROFILE is set. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "bsp_internal.h"

int bsp_profile_enabled;

uint64_t bsp_words(uint64_t nbytes)
{
    return (nbytes + 7) / 8;
}

/* Called by bsp_begin before any process runs, so the flag never changes
 * while the SPMD section reads it. */
void bsp_profile_start(void)
{
    const char *path = getenv("BSP_PROFILE");
    bsp_profile_enabled = path && *path;
}

void bsp_profile_add_ops(unsigned long long ops)
{
    if (bsp_self)
        bsp_self->prof.ops += ops;
}

/* Called as the process enters a sync, before it waits for the others. */
void bsp_profile_arrive(struct bsp_proc *me)
{
    if (bsp_profile_enabled)
        me->prof.work = bsp_clock() - me->prof_mark;
}

void bsp_profile_record(struct bsp_proc *me)
{
    double now = bsp_clock();
    me->prof.seconds = now - me->prof_mark;
    me->prof_mark = now;
    struct bsp_prof_step *step = bsp_buf_append(&me->prof_steps, sizeof *step);
    *step = me->prof;
    me->prof = (struct bsp_prof_step){0};
}

static json_t *proc_json(const struct bsp_prof_step *s)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:f}",
                     "ops", (json_int_t)s->ops,
                     "words_sent", (json_int_t)s->words_sent,
                     "words_received", (json_int_t)s->words_received,
                     "bytes_sent", (json_int_t)s->bytes_sent,
                     "bytes_received", (json_int_t)s->bytes_received,
                     "messages", (json_int_t)s->messages,
                     "work_seconds", s->work);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* One superstep: process 0's wall time and the h-relation over all. */
static json_t *step_json(int nprocs, size_t k, const struct bsp_prof_step *const *steps)
{
    json_t *procs = json_array();
    uint64_t h_words = 0, h_bytes = 0;
    for (int i = 0; i < nprocs; i++) {
        const struct bsp_prof_step *s = &steps[i][k];
        h_words = max_u64(h_words, max_u64(s->words_sent, s->words_received));
        h_bytes = max_u64(h_bytes, max_u64(s->bytes_sent, s->bytes_received));
        json_array_append_new(procs, proc_json(s));
    }
    return json_pack("{s:f, s:I, s:I, s:o}", "seconds", steps[0][k].seconds,
                     "h_words", (json_int_t)h_words, "h_bytes", (json_int_t)h_bytes,
                     "procs", procs);
}

/* The table bsprun --profile shows, on stderr to keep stdout the program's. */
static void print_table(int nprocs, size_t nsteps, const struct bsp_prof_step *const *steps)
{
    fprintf(stderr, "bsp profile: p = %d, backend %s\n", nprocs, bsp_backend_name);
    fprintf(stderr, "%9s %12s %12s %7s %14s %10s %10s %10s\n", "superstep", "seconds", "max work",
            "of pid", "max ops", "h words", "h bytes", "messages");
    for (size_t k = 0; k < nsteps; k++) {
        uint64_t ops = 0, h_words = 0, h_bytes = 0, messages = 0;
        int busiest = 0;
        for (int i = 0; i < nprocs; i++) {
            const struct bsp_prof_step *s = &steps[i][k];
            busiest = s->work > steps[busiest][k].work ? i : busiest;
            ops = max_u64(ops, s->ops);
            h_words = max_u64(h_words, max_u64(s->words_sent, s->words_received));
            h_bytes = max_u64(h_bytes, max_u64(s->bytes_sent, s->bytes_received));
            messages += s->messages;
        }
        fprintf(stderr, "%9zu %12.6f %12.6f %7d %14llu %10llu %10llu %10llu\n", k + 1, steps[0][k].seconds,
                steps[busiest][k].work, busiest, (unsigned long long)ops, (unsigned long long)h_words,
                (unsigned long long)h_bytes, (unsigned long long)messages);
    }
}

/* steps[i] holds process i's nsteps records. */
void bsp_profile_write(int nprocs, size_t nsteps, const struct bsp_prof_step *const *steps)
{
    const char *path = getenv("BSP_PROFILE");
    json_t *list = json_array();
    for (size_t k = 0; k < nsteps; k++)
        json_array_append_new(list, step_json(nprocs, k, steps));
    json_t *root = json_pack("{s:i, s:s, s:o}", "p", nprocs, "backend", bsp_backend_name,
                             "supersteps", list);
    if (json_dump_file(root, path, JSON_INDENT(1)) != 0)
        fprintf(stderr, "bsp: error: cannot write the profile to %s\n", path);
    json_decref(root);
    const char *print = getenv("BSP_PROFILE_PRINT");
    if (print && *print)
        print_table(nprocs, nsteps, steps);
}
