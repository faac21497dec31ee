/* misuse.c: commits the misuse named by argv[1], which the runtime must report and survive. */
#include <bsp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *what;

static int last(void) { return bsp_nprocs() - 1; }

static void put_unregistered(void)
{
    int64_t x = 1, y = 0;
    bsp_put(0, &x, &y, 0, sizeof x);
}

/* A registration is usable only after the next sync. */
static void put_same_superstep(void)
{
    int64_t x = 1, y = 0;
    bsp_push_reg(&y, sizeof y);
    bsp_put(0, &x, &y, 0, sizeof x);
}

static void put_out_of_bounds(void)
{
    int64_t x[2] = {1, 2}, y = 0;
    bsp_push_reg(&y, sizeof y);
    bsp_sync();
    bsp_put(last(), x, &y, 0, sizeof x);
}

static void get_out_of_bounds(void)
{
    int64_t x[2] = {0, 0}, y = 0;
    bsp_push_reg(&y, sizeof y);
    bsp_sync();
    bsp_get(last(), &y, 4, x, sizeof y);
}

static void reg_count(void)
{
    int64_t a = 0, b = 0;
    bsp_push_reg(&a, sizeof a);
    if (bsp_pid() == last())
        bsp_push_reg(&b, sizeof b);
}

static void pop_unregistered(void)
{
    int64_t a = 0;
    if (bsp_pid() == last())
        bsp_pop_reg(&a);
}

/* A push and a pop of one address in one superstep cancel. */
static void put_cancelled(void)
{
    int64_t x = 1, y = 0;
    bsp_push_reg(&y, sizeof y);
    bsp_pop_reg(&y);
    bsp_sync();
    bsp_put(last(), &x, &y, 0, sizeof x);
}

/* One push, two pops. */
static void pop_twice(void)
{
    int64_t y = 0;
    bsp_push_reg(&y, sizeof y);
    bsp_pop_reg(&y);
    bsp_pop_reg(&y);
}

static void pop_order(void)
{
    int64_t a = 0, b = 0;
    bsp_push_reg(&a, sizeof a);
    bsp_push_reg(&b, sizeof b);
    bsp_sync();
    bsp_pop_reg(bsp_pid() == last() ? (void *)&a : (void *)&b);
}

/* bsp_set_tagsize is collective, even when the size does not change. */
static void tagsize_only_some(void)
{
    bsp_size_t size = 0;
    if (bsp_pid() == last())
        bsp_set_tagsize(&size);
}

static void tagsize_mismatch(void)
{
    bsp_size_t size = bsp_pid() == last() ? 4 : 8;
    bsp_set_tagsize(&size);
}

/* The last process leaves while the others wait for one more superstep. */
static void end_vs_sync(void)
{
    if (bsp_pid() == last())
        bsp_end();
}

static void user_abort(void)
{
    if (bsp_pid() == last())
        bsp_abort("misuse: pid %d gives up with code %d\n", bsp_pid(), 42);
}

static void move_empty(void)
{
    int64_t x;
    bsp_move(&x, sizeof x);
}

static void bad_pid(void)
{
    bsp_send(bsp_nprocs(), NULL, "x", 1);
}

static void push_null(void)
{
    bsp_push_reg(NULL, 8);
}

/* NULL where a message call writes, and a negative size: errors, not crashes. */
static void one_message(void)
{
    bsp_size_t tagsize = 8;
    bsp_set_tagsize(&tagsize);
    bsp_sync();
    int64_t tag = 1, word = 2;
    bsp_send(bsp_pid(), &tag, &word, sizeof word);
    bsp_sync();
}

static void qsize_null(void)
{
    bsp_qsize(NULL, NULL);
}

static void get_tag_null(void)
{
    one_message();
    bsp_get_tag(NULL, NULL);
}

static void move_null(void)
{
    one_message();
    bsp_move(NULL, 8);
}

static void move_negative(void)
{
    one_message();
    int64_t word;
    bsp_move(&word, -8);
}

static void tagsize_null(void)
{
    bsp_set_tagsize(NULL);
}

static void hpmove_null(void)
{
    bsp_hpmove(NULL, NULL);
}

/* Process 0 leaving the program while the others wait at a sync. */
static void exit_early(void)
{
    if (bsp_pid() == 0)
        exit(0);
}

/* Every process leaves the SPMD function without bsp_end (a BSP
 * PageRank on GitHub does), and process 0 goes on to exit. */
static bool skip_end;

static void no_end(void)
{
    skip_end = true;
}

/* A second SPMD section, which MulticoreBSP's examples open: with MPI,
 * MPI has finalized. */
static void after_end(void)
{
    bsp_end();
    bsp_begin(bsp_nprocs());
    printf("after_end: %d\n", bsp_nprocs());
    exit(0);
}

static const struct {
    const char *name;  /* argv[1] */
    void (*run)(void); /* the misuse, followed by a sync */
} cases[] = {
    {"put_unregistered", put_unregistered}, {"put_same_superstep", put_same_superstep},
    {"put_out_of_bounds", put_out_of_bounds}, {"get_out_of_bounds", get_out_of_bounds},
    {"reg_count", reg_count}, {"pop_unregistered", pop_unregistered},
    {"pop_order", pop_order}, {"tagsize_mismatch", tagsize_mismatch},
    {"put_cancelled", put_cancelled}, {"pop_twice", pop_twice}, {"tagsize_only_some", tagsize_only_some},
    {"end_vs_sync", end_vs_sync}, {"abort", user_abort}, {"move_empty", move_empty},
    {"bad_pid", bad_pid}, {"push_null", push_null}, {"exit_early", exit_early}, {"after_end", after_end},
    {"no_end", no_end},
    {"qsize_null", qsize_null}, {"get_tag_null", get_tag_null}, {"move_null", move_null},
    {"move_negative", move_negative}, {"tagsize_null", tagsize_null}, {"hpmove_null", hpmove_null},
};

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(what, cases[i].name) == 0)
            cases[i].run();
    bsp_sync();
    bsp_sync();
    if (!skip_end)
        bsp_end();
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: misuse CASE\n");
        return 2;
    }
    what = argv[1];
    bsp_init(spmd, argc, argv);
    spmd();
    printf("misuse: %s went unnoticed\n", what);
    return 0;
}
