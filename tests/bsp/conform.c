/* conform.c: checks the semantics of every BSPlib call at whatever p it runs on (argv[1] = expected p). */
#include <bsp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int expected_p;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond))                                                                   \
            bsp_abort("conform: pid %d: check failed at line %d: %s\n", bsp_pid(),     \
                      __LINE__, #cond);                                                \
    } while (0)

static int right(void) { return (bsp_pid() + 1) % bsp_nprocs(); }
static int left(void) { return (bsp_pid() + bsp_nprocs() - 1) % bsp_nprocs(); }

static void check_enquiry(void)
{
    CHECK(bsp_nprocs() == expected_p);
    CHECK(bsp_pid() >= 0 && bsp_pid() < bsp_nprocs());
    double t0 = bsp_time();
    bsp_sync();
    double t1 = bsp_time();
    CHECK(t0 >= 0 && t1 >= t0);
}

/* bsp_put copies its source when called; every process writes one cell of
 * everybody's array, including its own. */
static void check_put_copies_at_call(void)
{
    int p = bsp_nprocs(), me = bsp_pid();
    int64_t *a = calloc((size_t)p, sizeof *a);
    bsp_push_reg(a, p * (int)sizeof *a);
    bsp_sync();
    int64_t x = me * 10 + 1;
    for (int j = 0; j < p; j++)
        bsp_put(j, &x, a, me * (int)sizeof x, sizeof x);
    x = -5; /* must not be seen by anybody */
    bsp_sync();
    for (int i = 0; i < p; i++)
        CHECK(a[i] == i * 10 + 1);
    bsp_pop_reg(a);
    bsp_sync();
    free(a);
}

/* bsp_get reads the value at the end of the superstep, before the puts of
 * the same superstep land. */
static void check_get_reads_end_value(void)
{
    int me = bsp_pid();
    int64_t v = 0, w = -1;
    bsp_push_reg(&v, sizeof v);
    bsp_sync();
    v = me + 100;
    bsp_get(right(), &v, 0, &w, sizeof w);
    int64_t put_value = 999 + me;
    bsp_put(right(), &put_value, &v, 0, sizeof v);
    v = me + 200; /* the get sees this, not 100 + me */
    bsp_sync();
    CHECK(w == right() + 200);
    CHECK(v == 999 + left());
    bsp_pop_reg(&v);
    bsp_sync();
}

/* Gets read before any get writes: each process gets its right
 * neighbour's array into its own, which is in turn its left neighbour's
 * source, so every value seen must be the one from before the sync. */
static void check_gets_chain(void)
{
    enum { N = 4096 };
    int me = bsp_pid();
    int64_t *a = malloc(N * sizeof *a);
    bsp_push_reg(a, N * (int)sizeof *a);
    bsp_sync();
    for (int i = 0; i < N; i++)
        a[i] = me * 100000 + i;
    bsp_get(right(), a, 0, a, N * (int)sizeof *a);
    bsp_sync();
    for (int i = 0; i < N; i++)
        CHECK(a[i] == right() * 100000 + i);
    bsp_pop_reg(a);
    bsp_sync();
    free(a);
}

/* Registrations match by order, not by address: process i registers its
 * areas at different addresses and with different sizes. */
static void check_registration_order(void)
{
    int p = bsp_nprocs(), me = bsp_pid();
    int64_t *first = calloc((size_t)(me + 1), sizeof *first);
    int64_t *second = calloc((size_t)p, sizeof *second);
    int64_t *only_root = me == 0 ? calloc((size_t)p, sizeof *only_root) : NULL;
    bsp_push_reg(first, (me + 1) * (int)sizeof *first);
    bsp_push_reg(second, p * (int)sizeof *second);
    bsp_push_reg(only_root, me == 0 ? p * (int)sizeof *only_root : 0);
    bsp_sync();
    int64_t x = 1000 + me;
    bsp_put(right(), &x, second, me * (int)sizeof x, sizeof x);
    bsp_put(0, &x, only_root, me * (int)sizeof x, sizeof x);
    bsp_sync();
    for (int i = 0; i <= me; i++)
        CHECK(first[i] == 0);
    for (int i = 0; i < p; i++)
        CHECK(second[i] == (i == left() ? 1000 + left() : 0));
    if (me == 0)
        for (int i = 0; i < p; i++)
            CHECK(only_root[i] == 1000 + i);
    bsp_pop_reg(only_root);
    bsp_pop_reg(second);
    bsp_pop_reg(first);
    bsp_sync();
    free(first);
    free(second);
    free(only_root);
}

/* A pop removes the most recent registration of an address, and popping
 * one in the middle leaves the others matched. */
static void check_pop_reg(void)
{
    int me = bsp_pid();
    int64_t a[2] = {0, 0}, b = 0, c = 0;
    bsp_push_reg(a, sizeof a);
    bsp_push_reg(a, sizeof a[0]);
    bsp_push_reg(&b, sizeof b);
    bsp_sync();
    bsp_pop_reg(a); /* the one-element registration */
    int64_t x = 50 + me;
    bsp_put(right(), &x, a, 0, sizeof x); /* still usable until the sync */
    bsp_sync();
    CHECK(a[0] == 50 + left());
    bsp_push_reg(&c, sizeof c);
    bsp_put(right(), &x, a, sizeof x, sizeof x); /* the two-element one is back */
    bsp_put(right(), &x, &b, 0, sizeof x);
    bsp_sync();
    CHECK(a[1] == 50 + left() && b == 50 + left());
    bsp_pop_reg(a);
    x = 70 + me;
    bsp_put(right(), &x, &c, 0, sizeof x);
    bsp_sync();
    CHECK(c == 70 + left());
    bsp_pop_reg(&b);
    bsp_pop_reg(&c);
    bsp_sync();
}

/* A pop takes the most recent push of its address, one of this very
 * superstep included: the two cancel at the sync, and an older
 * registration stays in effect (docs/runtime.md, "Decisions"). */
static void check_push_pop_same_superstep(void)
{
    int me = bsp_pid();
    int64_t a[2] = {0, 0}, b = 0, x = 30 + me;
    bsp_push_reg(a, sizeof a);
    bsp_push_reg(&b, sizeof b);
    bsp_pop_reg(&b); /* b never becomes registered */
    bsp_sync();
    bsp_push_reg(a, sizeof a[0]);
    bsp_pop_reg(a); /* takes the one-element push back */
    bsp_put(right(), &x, a, sizeof x, sizeof x); /* the second element: only the old one has it */
    bsp_sync();
    CHECK(a[1] == 30 + left());
    bsp_put(right(), &x, a, 0, sizeof x); /* the old registration is still in effect */
    bsp_sync();
    CHECK(a[0] == 30 + left());
    bsp_pop_reg(a);
    bsp_sync();
}

/* The unbuffered variants, with several overlapping-free targets. */
static void check_hp(void)
{
    int p = bsp_nprocs(), me = bsp_pid();
    double *a = calloc((size_t)p, sizeof *a), *g = calloc((size_t)p, sizeof *g);
    bsp_push_reg(a, p * (int)sizeof *a);
    bsp_sync();
    double x = 0.5 + me;
    for (int j = 0; j < p; j++)
        bsp_hpput(j, &x, a, me * (int)sizeof x, sizeof x);
    bsp_sync();
    for (int i = 0; i < p; i++)
        CHECK(a[i] == 0.5 + i);
    for (int j = 0; j < p; j++)
        bsp_hpget(j, a, j * (int)sizeof *a, &g[j], sizeof *g);
    bsp_sync();
    for (int j = 0; j < p; j++)
        CHECK(g[j] == 0.5 + j);
    bsp_pop_reg(a);
    bsp_sync();
    free(a);
    free(g);
}

/* Large hpputs, which MPI sends straight from their sources (past 64 KB):
 * to the right and to oneself, beside a put, while a get reads what they
 * overwrite (gets read first). */
static void check_hp_large(void)
{
    int me = bsp_pid();
    enum { N = 24 * 1024 }; /* 192 KB of int64 */
    int64_t *area = malloc(3 * N * sizeof *area), *src = malloc(N * sizeof *src);
    int64_t *seen = malloc(N * sizeof *seen), x = 90 + me;
    for (int i = 0; i < 3 * N; i++)
        area[i] = -i;
    for (int i = 0; i < N; i++)
        src[i] = (int64_t)me * N + i;
    bsp_push_reg(area, 3 * N * (int)sizeof *area);
    bsp_sync();
    bsp_hpput(right(), src, area, 0, N * (int)sizeof *src);
    bsp_hpput(me, src, area, N * (int)sizeof *src, N * (int)sizeof *src);
    bsp_put(right(), &x, area, 2 * N * (int)sizeof x, sizeof x);
    bsp_get(left(), area, 0, seen, N * (int)sizeof *seen);
    bsp_sync();
    for (int i = 0; i < N; i++) {
        CHECK(area[i] == (int64_t)left() * N + i);
        CHECK(area[N + i] == (int64_t)me * N + i);
        CHECK(seen[i] == -i);
    }
    CHECK(area[2 * N] == 90 + left());
    bsp_pop_reg(area);
    bsp_sync();
    free(area);
    free(src);
    free(seen);
}

/* A megabyte each way, to make buffers grow, plus empty transfers. */
static void check_large_and_empty(void)
{
    int me = bsp_pid();
    enum { N = 1 << 17 };
    int64_t *big = malloc(N * sizeof *big), *src = malloc(N * sizeof *src);
    for (int i = 0; i < N; i++)
        src[i] = (int64_t)i * 3 + me;
    bsp_push_reg(big, N * (int)sizeof *big);
    bsp_sync();
    bsp_put(right(), src, big, 0, N * (int)sizeof *src);
    bsp_put(right(), src, big, 0, 0);
    bsp_get(left(), big, 0, src, 0);
    memset(src, 0, N * sizeof *src);
    bsp_sync();
    for (int i = 0; i < N; i++)
        CHECK(big[i] == (int64_t)i * 3 + left());
    bsp_pop_reg(big);
    bsp_sync();
    free(big);
    free(src);
}

/* Messages: tag size changes at the next sync, queues hold one superstep. */
static void check_messages(void)
{
    int p = bsp_nprocs(), me = bsp_pid();
    bsp_size_t tagsize = 8;
    bsp_set_tagsize(&tagsize);
    CHECK(tagsize == 0);
    int64_t one = 7 + me;
    bsp_send(right(), NULL, &one, sizeof one); /* still with tag size 0 */
    bsp_sync();
    bsp_nprocs_t n;
    bsp_size_t bytes, status;
    bsp_qsize(&n, &bytes);
    CHECK(n == 1 && bytes == sizeof one);
    int64_t tag = -1, got = 0;
    bsp_get_tag(&status, &tag);
    CHECK(status == sizeof one && tag == -1);
    bsp_move(&got, sizeof got);
    CHECK(got == 7 + left());

    /* Tag size 8 now: process i sends i + 1 words to everybody. */
    int64_t payload[64];
    for (int k = 0; k <= me; k++)
        payload[k] = me * 100 + k;
    int64_t mytag = me;
    for (int j = 0; j < p; j++)
        bsp_send(j, &mytag, payload, (me + 1) * (int)sizeof(int64_t));
    bsp_send(me, &mytag, NULL, 0);
    bsp_sync();
    bsp_qsize(&n, &bytes);
    CHECK(n == p + 1 && bytes == (int)sizeof(int64_t) * p * (p + 1) / 2);
    int seen = 0, empty = 0;
    for (int m = 0; m < p + 1; m++) {
        int64_t buf[64] = {0};
        bsp_get_tag(&status, &tag);
        CHECK(status >= 0 && tag >= 0 && tag < p);
        if (status == 0) {
            CHECK(tag == me);
            empty++;
            bsp_move(buf, 0);
            continue;
        }
        CHECK(status == (bsp_size_t)((tag + 1) * sizeof(int64_t)));
        if (m % 2) {
            bsp_move(buf, status);
        } else {
            void *tp, *pp;
            CHECK(bsp_hpmove(&tp, &pp) == status);
            CHECK(*(int64_t *)tp == tag);
            memcpy(buf, pp, (size_t)status);
        }
        for (int k = 0; k <= tag; k++)
            CHECK(buf[k] == tag * 100 + k);
        seen |= 1 << tag;
    }
    CHECK(empty == 1 && seen == (1 << p) - 1);
    bsp_get_tag(&status, &tag);
    CHECK(status == -1);
    void *tp, *pp;
    CHECK(bsp_hpmove(&tp, &pp) == -1);

    /* A short reception buffer truncates; unread messages vanish at the sync. */
    int64_t two[2] = {11, 12}, recv[2] = {0, 0};
    bsp_send(right(), &mytag, two, sizeof two);
    bsp_send(right(), &mytag, two, sizeof two);
    bsp_sync();
    bsp_move(recv, sizeof recv[0]);
    CHECK(recv[0] == 11 && recv[1] == 0);
    bsp_sync();
    bsp_qsize(&n, NULL);
    CHECK(n == 0);
    tagsize = 0;
    bsp_set_tagsize(&tagsize);
    CHECK(tagsize == 8);
    bsp_sync();
}

/* Messages that grow the outbox past 2 MB, where its storage moves to
 * huge-page memory: what was queued before the move arrives intact. */
static void check_messages_past_2mb(void)
{
    int me = bsp_pid();
    enum { PARTS = 5, WORDS = 96 * 1024 }; /* 768 KB each, 3.75 MB in all */
    int64_t *part = malloc(WORDS * sizeof *part);
    for (int k = 0; k < PARTS; k++) {
        for (int i = 0; i < WORDS; i++)
            part[i] = ((int64_t)me * PARTS + k) * WORDS + i;
        bsp_send(right(), NULL, part, WORDS * (int)sizeof *part);
    }
    bsp_sync();
    bsp_nprocs_t n;
    bsp_qsize(&n, NULL);
    CHECK(n == PARTS);
    for (int k = 0; k < PARTS; k++) {
        bsp_move(part, WORDS * (int)sizeof *part);
        for (int i = 0; i < WORDS; i++)
            CHECK(part[i] == ((int64_t)left() * PARTS + k) * WORDS + i);
    }
    bsp_sync();
    free(part);
}

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    check_enquiry();
    check_put_copies_at_call();
    check_get_reads_end_value();
    check_gets_chain();
    check_registration_order();
    check_pop_reg();
    check_push_pop_same_superstep();
    check_hp();
    check_hp_large();
    check_large_and_empty();
    check_messages();
    check_messages_past_2mb();
    bsp_end();
}

int main(int argc, char **argv)
{
    expected_p = argc > 1 ? atoi(argv[1]) : 1;
    bsp_init(spmd, argc, argv);
    spmd();
    /* Only process 0 gets here; bsp_nprocs answers as before bsp_begin. */
    if (bsp_nprocs() != expected_p)
        printf("conform: check failed after bsp_end: bsp_nprocs() = %d\n", bsp_nprocs());
    printf("conform: ok\n");
    return 0;
}
