/* mpi.c: the MPI backend: a sync is one all-to-all of headers and sizes, then point-to-point transfers. */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsp_group.h"
#include "mpi_link.h"

const char bsp_backend_name[] = "mpi";
/* A smaller hpput is copied into the put stream like a put: a message of
 * its own would cost more than the copy below Open MPI's single-copy
 * transfers (past its 32 KB eager limit, tune_open_mpi). A larger one
 * goes by MPI straight from its source into its destination. */
const size_t bsp_backend_direct_hp_from = 64 << 10;

/* Found by bsprun in the binary to choose the backend. */
const char bsp_backend_marker[] = "vecbsp-bsp-backend=mpi";

/* What a process tells each other process at a sync: one word, and the
 * sizes of its streams to that process when it has any. The word is the
 * signature of the header that all must agree on (bsp_step_signature)
 * with the flags and WIRE_SIZES in its low bits; the full header is
 * gathered only to report a disagreement. Open MPI passes up to 8 bytes
 * in the line its shared-memory transport already moves: at p = 2 a
 * 16-byte or 72-byte exchange took 15-25% longer than an 8-byte one or an
 * MPI_Barrier (0.44-0.46 against 0.38 us, vCPUs far apart). */
struct mpi_header {
    uint64_t word; /* signature | flags | WIRE_SIZES */
    uint64_t puts; /* bytes of put records that follow */
    uint64_t msgs; /* bytes of message records that follow */
    uint64_t gets; /* bytes of get requests that follow */
    uint64_t hps;  /* bytes of direct hpput requests that follow */
};

enum { WIRE_FLAGS = BSP_HAS_GETS | BSP_HAS_HPS, WIRE_SIZES = 4 };

/* MPI tags of the streams of one sync. */
enum { TAG_PUTS = 1, TAG_MSGS, TAG_GETS, TAG_HPS, TAG_REPLY, TAG_HP_DATA, TAG_HEADER };

/* This process of the SPMD section. */
static struct {
    struct bsp_proc base;        /* what the shared code sees */
    struct bsp_mpi_link link;    /* the processes of the section, and transfers in flight */
    struct mpi_header *tx_hdr;   /* header sent to each process */
    struct mpi_header *rx_hdr;   /* header received from each process */
    struct bsp_outbox *rx;       /* what each process sent here; messages are
                                    queued in place until the next sync */
    struct bsp_buf *reply_out;   /* values read for each process's gets */
    struct bsp_buf *reply_in;    /* values each process read for my gets */
} mpi;

void bsp_init(void (*spmd)(void), int argc, char **argv)
{
    bsp_mpi_init(spmd, argc, argv, MPI_THREAD_SINGLE);
}

/* Inside a section its size; before it, and after it (as with threads),
 * BSP_NPROCS capped at the MPI world. */
bsp_nprocs_t bsp_nprocs(void)
{
    if (bsp_self)
        return bsp_self->nprocs;
    if (!bsp_mpi_world)
        bsp_mpi_start("bsp_nprocs", MPI_THREAD_SINGLE);
    int n = bsp_env_nprocs();
    return n && n < bsp_mpi_world ? n : bsp_mpi_world;
}

void bsp_begin(bsp_nprocs_t maxprocs)
{
    if (bsp_self)
        bsp_fail(NULL, "bsp_begin called twice");
    bsp_mpi_start("bsp_begin", MPI_THREAD_SINGLE);
    int world = bsp_mpi_world, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Process 0's argument decides: the others may have started in the SPMD
     * function before process 0 read how many processes to use. */
    MPI_Bcast(&maxprocs, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (maxprocs < 1 || maxprocs > world)
        bsp_fail(NULL, "bsp_begin: %d processes requested, %d available", maxprocs, world);
    bsp_mpi_link_open(&mpi.link, rank, maxprocs);
    bsp_proc_init(&mpi.base, rank, maxprocs);
    size_t p = (size_t)maxprocs;
    mpi.base.out = bsp_xcalloc(p, sizeof *mpi.base.out);
    mpi.rx = bsp_xcalloc(p, sizeof *mpi.rx);
    mpi.reply_out = bsp_xcalloc(p, sizeof *mpi.reply_out);
    mpi.reply_in = bsp_xcalloc(p, sizeof *mpi.reply_in);
    mpi.tx_hdr = bsp_xcalloc(p, sizeof *mpi.tx_hdr);
    mpi.rx_hdr = bsp_xcalloc(p, sizeof *mpi.rx_hdr);
    bsp_self = &mpi.base;
}

static int mpi_count(uint64_t nbytes)
{
    if (nbytes > INT_MAX)
        bsp_fail(&mpi.base, "more than %d bytes in one MPI message", INT_MAX);
    return (int)nbytes;
}

/* Not a flag of a header: set by exchange_headers when this process has
 * streams to send or receive (or gets to serve). */
static const uint32_t MPI_MOVES = UINT32_C(1) << 31;

/* Reports the disagreement the signatures showed: process 0 gathers the
 * full headers and names the first process that differs. */
static _Noreturn void report_disagreement(const struct bsp_header *mine)
{
    int p = mpi.base.nprocs;
    struct bsp_header *all = bsp_xcalloc((size_t)p, sizeof *all);
    MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *all, MPI_BYTE, 0, mpi.link.comm);
    for (int j = 1; mpi.base.pid == 0 && j < p; j++)
        bsp_step_check(&mpi.base, &all[0], &all[j], j);
    bsp_await_halt();
}

/* The header words go all-to-all (at p = 2 by one MPI_Sendrecv, where
 * Open MPI's MPI_Alltoall took 15% longer), with the sizes for those who
 * get streams; the disagreement check needs every word. */
static uint32_t exchange_headers(uint32_t kind)
{
    int p = mpi.base.nprocs;
    struct bsp_header common;
    bsp_step_header(&mpi.base, kind, &common);
    uint64_t word = bsp_step_signature(&common) | common.flags;
    for (int j = 0; j < p; j++) {
        const struct bsp_outbox *box = &mpi.base.out[j];
        struct mpi_header *h = &mpi.tx_hdr[j];
        *h = (struct mpi_header){word, box->puts.len, box->msgs.len, box->gets.len, box->hps.len};
        if (h->puts || h->msgs || h->gets || h->hps)
            h->word |= WIRE_SIZES;
    }
    if (p == 1) {
        mpi.rx_hdr[0] = mpi.tx_hdr[0];
    } else if (p == 2) {
        int me = mpi.base.pid, other = 1 - me;
        const struct mpi_header *out = &mpi.tx_hdr[other];
        mpi.rx_hdr[me] = mpi.tx_hdr[me];
        MPI_Sendrecv(out, out->word & WIRE_SIZES ? (int)sizeof *out : (int)sizeof out->word,
                     MPI_BYTE, other, TAG_HEADER, &mpi.rx_hdr[other], (int)sizeof *mpi.rx_hdr,
                     MPI_BYTE, other, TAG_HEADER, mpi.link.comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Alltoall(mpi.tx_hdr, (int)sizeof *mpi.tx_hdr, MPI_BYTE, mpi.rx_hdr,
                     (int)sizeof *mpi.rx_hdr, MPI_BYTE, mpi.link.comm);
    }
    uint32_t flags = 0;
    for (int j = 0; j < p; j++) {
        struct mpi_header *in = &mpi.rx_hdr[j];
        if ((in->word ^ mpi.rx_hdr[0].word) & ~(uint64_t)(WIRE_FLAGS | WIRE_SIZES))
            report_disagreement(&common);
        if (!(in->word & WIRE_SIZES))
            *in = (struct mpi_header){in->word, 0, 0, 0, 0}; /* only the word came */
        flags |= (uint32_t)(in->word & WIRE_FLAGS);
        if ((in->word | mpi.tx_hdr[j].word) & WIRE_SIZES)
            flags |= MPI_MOVES;
    }
    return flags & (BSP_HAS_GETS | BSP_HAS_HPS) ? flags | MPI_MOVES : flags;
}

/* Moves the streams; what a process sends itself is swapped, not copied. */
static void exchange_streams(void)
{
    int me = mpi.base.pid;
    for (int j = 0; j < mpi.base.nprocs; j++) {
        struct bsp_outbox *in = &mpi.rx[j], *out = &mpi.base.out[j];
        if (j == me) {
            struct bsp_outbox t = *in;
            *in = *out;
            *out = t;
            continue;
        }
        bsp_mpi_post_recv(&mpi.link, &in->puts, mpi.rx_hdr[j].puts, j, TAG_PUTS);
        bsp_mpi_post_recv(&mpi.link, &in->msgs, mpi.rx_hdr[j].msgs, j, TAG_MSGS);
        bsp_mpi_post_recv(&mpi.link, &in->gets, mpi.rx_hdr[j].gets, j, TAG_GETS);
        bsp_mpi_post_recv(&mpi.link, &in->hps, mpi.rx_hdr[j].hps, j, TAG_HPS);
        bsp_mpi_post_send(&mpi.link, &out->puts, j, TAG_PUTS);
        bsp_mpi_post_send(&mpi.link, &out->msgs, j, TAG_MSGS);
        bsp_mpi_post_send(&mpi.link, &out->gets, j, TAG_GETS);
        bsp_mpi_post_send(&mpi.link, &out->hps, j, TAG_HPS);
    }
    bsp_mpi_wait_all(&mpi.link);
}

/* Reads the values asked for by process j's gets into reply_out[j]. */
static void serve_gets(int j)
{
    const struct bsp_buf *gets = &mpi.rx[j].gets;
    const struct bsp_get_req *req = (const struct bsp_get_req *)gets->data;
    struct bsp_buf *reply = &mpi.reply_out[j];
    reply->len = 0;
    for (size_t i = 0; i < gets->len / sizeof *req; i++) {
        const char *src = bsp_step_resolve(&mpi.base, "bsp_get", j, req[i].slot,
                                           req[i].offset, req[i].nbytes);
        if (req[i].nbytes)
            memcpy(bsp_buf_append(reply, (size_t)req[i].nbytes), src, (size_t)req[i].nbytes);
    }
    bsp_step_count_served(&mpi.base, j, gets);
}

/* Copies a reply into the destinations of the gets that asked for it. */
static void scatter_reply(const struct bsp_buf *gets, const struct bsp_buf *reply)
{
    const struct bsp_get_req *req = (const struct bsp_get_req *)gets->data;
    const char *at = reply->data;
    for (size_t i = 0; i < gets->len / sizeof *req; i++) {
        if (req[i].nbytes)
            memcpy((void *)(uintptr_t)req[i].dst, at, (size_t)req[i].nbytes);
        at += req[i].nbytes;
    }
}

/* Posts the transfers of the direct hpputs between me and process j:
 * mine to j from their sources, j's to me into their destinations, both
 * in call order. */
static void post_hps(int j)
{
    const struct bsp_buf *out = &mpi.base.out[j].hps, *in = &mpi.rx[j].hps;
    const struct bsp_hp_req *req = (const struct bsp_hp_req *)out->data;
    for (size_t i = 0; i < out->len / sizeof *req; i++)
        bsp_mpi_post(&mpi.link, true, (char *)(uintptr_t)req[i].src, req[i].nbytes, j, TAG_HP_DATA);
    req = (const struct bsp_hp_req *)in->data;
    for (size_t i = 0; i < in->len / sizeof *req; i++) {
        char *dst = bsp_step_resolve(&mpi.base, "bsp_hpput", j, req[i].slot, req[i].offset,
                                     req[i].nbytes);
        bsp_mpi_post(&mpi.link, false, dst, req[i].nbytes, j, TAG_HP_DATA);
    }
    bsp_step_count_hps(&mpi.base, j, in);
}

/* The second round, when some process issued gets or direct hpputs.
 * Every get is served before anything is written, as the standard wants;
 * then the replies travel and the hpputs land. My own gets and hpputs to
 * myself were swapped into rx[me] with the rest of out[me]. */
static void exchange_gets_and_hps(void)
{
    int me = mpi.base.pid;
    for (int j = 0; j < mpi.base.nprocs; j++)
        serve_gets(j);
    for (int j = 0; j < mpi.base.nprocs; j++) {
        if (j == me) {
            bsp_step_apply_hps(&mpi.base, me, &mpi.rx[me].hps);
            continue;
        }
        bsp_mpi_post_recv(&mpi.link, &mpi.reply_in[j], bsp_get_bytes(&mpi.base.out[j].gets), j, TAG_REPLY);
        bsp_mpi_post_send(&mpi.link, &mpi.reply_out[j], j, TAG_REPLY);
        post_hps(j);
    }
    bsp_mpi_wait_all(&mpi.link);
    for (int j = 0; j < mpi.base.nprocs; j++) {
        if (j == me)
            scatter_reply(&mpi.rx[me].gets, &mpi.reply_out[me]);
        else
            scatter_reply(&mpi.base.out[j].gets, &mpi.reply_in[j]);
    }
}

static void mpi_sync(uint32_t kind)
{
    uint32_t flags = exchange_headers(kind);
    bsp_step_begin_delivery(&mpi.base);
    if (!(flags & MPI_MOVES)) {
        bsp_step_finish(&mpi.base);
        return;
    }
    exchange_streams();
    if (flags & (BSP_HAS_GETS | BSP_HAS_HPS))
        exchange_gets_and_hps();
    for (int j = 0; j < mpi.base.nprocs; j++) {
        bsp_step_apply_puts(&mpi.base, j, &mpi.rx[j].puts);
        bsp_step_queue_msgs(&mpi.base, j, &mpi.rx[j].msgs);
        bsp_outbox_clear(&mpi.base.out[j]);
    }
    bsp_step_finish(&mpi.base);
}

void bsp_sync(void)
{
    bsp_need_self("bsp_sync");
    mpi_sync(BSP_KIND_SYNC);
}

/* Every sync is one exchange among all processes (bsp_group.h). */
void bsp_group_sync(const int *group)
{
    (void)group;
    bsp_sync();
}

/* Process 0 gathers everybody's counters and writes the profile. */
static void write_profile(void)
{
    int p = mpi.base.nprocs;
    size_t nsteps = (size_t)mpi.base.superstep, bytes = mpi.base.prof_steps.len;
    struct bsp_prof_step *all = mpi.base.pid == 0 ? bsp_xmalloc(bytes * (size_t)p) : NULL;
    MPI_Gather(mpi.base.prof_steps.data, mpi_count(bytes), MPI_BYTE, all, mpi_count(bytes),
               MPI_BYTE, 0, mpi.link.comm);
    if (mpi.base.pid != 0)
        return;
    const struct bsp_prof_step **steps = bsp_xcalloc((size_t)p, sizeof *steps);
    for (int i = 0; i < p; i++)
        steps[i] = all + (size_t)i * nsteps;
    bsp_profile_write(p, nsteps, steps);
    free(steps);
    free(all);
}

static void free_state(void)
{
    for (int j = 0; j < mpi.base.nprocs; j++) {
        bsp_outbox_free(&mpi.base.out[j]);
        bsp_outbox_free(&mpi.rx[j]);
        bsp_buf_free(&mpi.reply_out[j]);
        bsp_buf_free(&mpi.reply_in[j]);
    }
    free(mpi.base.out);
    free(mpi.rx);
    free(mpi.reply_out);
    free(mpi.reply_in);
    free(mpi.tx_hdr);
    free(mpi.rx_hdr);
    bsp_buf_free(&mpi.link.requests);
    bsp_proc_free(&mpi.base);
}

/* As with threads, only process 0 continues after bsp_end. */
void bsp_end(void)
{
    bsp_need_self("bsp_end");
    mpi_sync(BSP_KIND_END);
    if (bsp_profile_enabled)
        write_profile();
    int pid = mpi.base.pid;
    MPI_Comm_free(&mpi.link.comm);
    free_state();
    bsp_self = NULL;
    if (!bsp_mpi_own)
        return;
    MPI_Finalize();
    if (pid != 0)
        exit(0);
}
