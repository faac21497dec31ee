/* mpi_link.c: the MPI plumbing the mpi and hybrid backends share: starting and ending MPI, and transfers of any size. */
#include <limits.h>
#include <stdlib.h>

#include "mpi_link.h"

int bsp_mpi_world;
bool bsp_mpi_own;
static int mpi_argc;
static char **mpi_argv;
static bool mpi_halting; /* bsp_fail is ending every process */

void bsp_backend_halt(void)
{
    mpi_halting = true;
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* As BSPlib has it (and BSPonMPI does): process 0 goes on with main, whose
 * sequential part may read stdin, which only it has; the others start in
 * the SPMD function at once, and their bsp_begin takes its argument from
 * process 0's. */
void bsp_mpi_init(void (*spmd)(void), int argc, char **argv, int level)
{
    mpi_argc = argc;
    mpi_argv = argv;
    bsp_mpi_start("bsp_init", level);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 || !spmd)
        return;
    spmd();
    if (bsp_self)
        bsp_fail(bsp_self, "the SPMD function returned without calling bsp_end");
    exit(0);
}

/* Open MPI's shared-memory transport sends messages above 4 KB by a
 * rendezvous and a single copy between address spaces: at p = 2 a 7 KB
 * message then costs about 2 us more than one of 4 KB. Up to its fragment
 * size (32 KB) an eager send is cheaper; larger messages keep the single
 * copy. A value the user set (environment or mpirun --mca) wins. */
static void tune_open_mpi(void)
{
    setenv("OMPI_MCA_btl_vader_eager_limit", "32768", 0);
}

/* At exit: inside an SPMD section the program ended before bsp_end, an
 * error (else the other processes would wait forever, or mpirun would print
 * its own banner about exiting improperly); outside one, MPI is finalized
 * if we started it (a program that only asked bsp_nprocs). */
static void mpi_at_exit(void)
{
    int down;
    MPI_Finalized(&down);
    if (down || mpi_halting)
        return;
    if (bsp_self)
        bsp_fail(NULL, "the program ended (exit, or a return from main) before bsp_end");
    if (bsp_mpi_own)
        MPI_Finalize();
}

void bsp_mpi_start(const char *call, int level)
{
    int up, down;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (down)
        bsp_fail(NULL, "%s after bsp_end: with MPI a program has one SPMD section "
                 "(MPI has finalized)", call);
    if (!up) {
        tune_open_mpi();
        int provided;
        if (mpi_argv)
            MPI_Init_thread(&mpi_argc, &mpi_argv, level, &provided);
        else
            MPI_Init_thread(NULL, NULL, level, &provided);
        bsp_mpi_own = true;
        atexit(mpi_at_exit);
        if (provided < level)
            bsp_fail(NULL, "%s: this MPI does not support the threads the backend needs "
                     "(MPI_THREAD_FUNNELED)", call);
    }
    MPI_Comm_size(MPI_COMM_WORLD, &bsp_mpi_world);
}

size_t bsp_mpi_max_message(void)
{
    const char *s = getenv("BSP_MPI_MAX_MESSAGE");
    if (!s || !*s)
        return INT_MAX;
    char *end;
    long n = strtol(s, &end, 10);
    if (*end || n < 1 || n > INT_MAX)
        bsp_fail(NULL, "BSP_MPI_MAX_MESSAGE=%s: expected a number of bytes from 1 to %d", s, INT_MAX);
    return (size_t)n;
}

/* Open MPI's shared-memory transport gives a sender its fast mailbox to a
 * process after 16 messages to it, and the switch slowed the supersteps
 * where it fell: at p = 2, a program's third and fourth repetitions took
 * 1.5-2.5 times as long as the others. So each process sends twice that
 * many (the count is Open MPI's, not ours to read) to every other one on
 * its machine here, before the program starts. A process has at most 32
 * fast mailboxes (btl_vader_fbox_max): with more peers on the machine,
 * Open MPI's own choice, the first 32 that the program talks to, stays. */
enum { WARM_MESSAGES = 32, WARM_PEERS_MAX = 32 };

static void warm_links(MPI_Comm comm)
{
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int me, n;
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &n);
    char out = 0, in;
    int peers = n - 1 <= WARM_PEERS_MAX ? n - 1 : 0;
    for (int k = 0; k < WARM_MESSAGES; k++)
        for (int d = 1; d <= peers; d++)
            MPI_Sendrecv(&out, 1, MPI_BYTE, (me + d) % n, 0, &in, 1, MPI_BYTE, (me - d + n) % n, 0, node,
                         MPI_STATUS_IGNORE);
    MPI_Comm_free(&node);
}

void bsp_mpi_link_open(struct bsp_mpi_link *link, int rank, int members)
{
    MPI_Comm_split(MPI_COMM_WORLD, rank < members ? 0 : MPI_UNDEFINED, rank, &link->comm);
    if (rank >= members) {
        /* Surplus ranks take no part, as in other BSPlib libraries. */
        if (bsp_mpi_own)
            MPI_Finalize();
        exit(0);
    }
    MPI_Comm_set_errhandler(link->comm, MPI_ERRORS_ARE_FATAL);
    warm_links(link->comm);
    bsp_profile_start();
    bsp_step_start();
    bsp_buf_start(64 << 10); /* messages go by Open MPI's single copy, past its 32 KB eager limit */
    link->max_message = bsp_mpi_max_message();
}

/* MPI counts are ints: a transfer past max_message bytes goes in pieces,
 * which arrive in order (MPI does not overtake between one pair with one
 * tag), so a stream of any size, or an hpput of INT_MAX bytes, fits. */
void bsp_mpi_post(struct bsp_mpi_link *link, bool send, char *data, uint64_t nbytes, int peer, int tag)
{
    for (uint64_t done = 0; done < nbytes;) {
        uint64_t left = nbytes - done;
        int n = (int)(left < link->max_message ? left : link->max_message);
        MPI_Request *r = bsp_buf_append(&link->requests, sizeof *r);
        if (send)
            MPI_Isend(data + done, n, MPI_BYTE, peer, tag, link->comm, r);
        else
            MPI_Irecv(data + done, n, MPI_BYTE, peer, tag, link->comm, r);
        done += (uint64_t)n;
    }
}

void bsp_mpi_post_recv(struct bsp_mpi_link *link, struct bsp_buf *b, uint64_t nbytes, int src, int tag)
{
    b->len = 0;
    bsp_mpi_post(link, false, bsp_buf_append(b, (size_t)nbytes), nbytes, src, tag);
}

void bsp_mpi_post_send(struct bsp_mpi_link *link, const struct bsp_buf *b, int dst, int tag)
{
    bsp_mpi_post(link, true, b->data, b->len, dst, tag);
}

void bsp_mpi_wait_all(struct bsp_mpi_link *link)
{
    if (!link->requests.len)
        return;
    MPI_Waitall((int)(link->requests.len / sizeof(MPI_Request)),
                (MPI_Request *)link->requests.data, MPI_STATUSES_IGNORE);
    link->requests.len = 0;
}
