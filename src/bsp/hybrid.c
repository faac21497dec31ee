/* hybrid.c: the hybrid backend: MPI ranks, each running its processes as threads (team.c); a sync is the rank's barriers around one MPI exchange between the ranks. */
#define _GNU_SOURCE /* cpu_set_t */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bsp_group.h"
#include "bsp_limits.h"
#include "mpi_link.h"
#include "team.h"

const char bsp_backend_name[] = "hybrid";
/* Every hpput is direct: within a rank its receiver copies it from its
 * source; to another rank the rank's first thread copies it onto the wire
 * during the sync, while its source is still the sender's. */
const size_t bsp_backend_direct_hp_from = 0;

/* Found by bsprun in the binary to choose the backend. */
const char bsp_backend_marker[] = "vecbsp-bsp-backend=hybrid";

/* Only each rank's first thread calls MPI (the one that called bsp_begin). */
static const int HYB_THREAD_LEVEL = MPI_THREAD_FUNNELED;

enum { TAG_WIRE = 1, TAG_REPLY };

/* What one process sends one process of another rank in a sync, as the
 * wire gives it before their bytes: its puts (hpputs as puts after them),
 * messages and get requests. */
struct hyb_sizes {
    uint64_t puts, msgs, gets;
};

/* This rank. The wire from rank q to rank r is: its length (8 bytes), the
 * headers of q's processes, a hyb_sizes for each pair (s of q, d of r) in
 * that order, s first, and the pairs' bytes in the same order. */
static struct {
    struct bsp_mpi_link link;      /* the ranks of the section, and transfers in flight */
    int rank, ranks;               /* this rank and how many take part */
    int per_rank;                  /* processes of each rank (the last may have fewer) */
    struct bsp_buf *tx, *rx;       /* per rank: the wire to it and from it */
    struct bsp_buf *reply_out;     /* per rank: values read for its processes' gets */
    struct bsp_buf *reply_in;      /* per rank: values it read for ours */
    struct bsp_header *headers;    /* per pid: everybody's header of this sync */
    struct bsp_outbox *inbox;      /* per (remote pid, local process): views into rx */
    const char **replies;          /* per (remote pid, local process): into reply_in */
} hyb;

static int rank_first(int q)
{
    return q * hyb.per_rank;
}

static int rank_count(int q)
{
    int left = thr_team->nprocs - rank_first(q);
    return left < hyb.per_rank ? left : hyb.per_rank;
}

static size_t pair(int remote, int local)
{
    return (size_t)remote * (size_t)thr_team->nlocal + (size_t)(local - thr_team->first);
}

static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static void wire_put(struct bsp_buf *w, const void *data, size_t n)
{
    if (n)
        memcpy(bsp_buf_append(w, n), data, n);
}

/* The hpputs of box as put records, read from their sources now. */
static uint64_t wire_hps(struct bsp_buf *w, const struct bsp_buf *hps)
{
    const struct bsp_hp_req *req = (const struct bsp_hp_req *)hps->data;
    uint64_t bytes = 0;
    for (size_t i = 0; i < hps->len / sizeof *req; i++) {
        struct bsp_put_rec rec = {req[i].offset, (uint32_t)req[i].slot, (uint32_t)req[i].nbytes};
        wire_put(w, &rec, sizeof rec);
        char *data = bsp_buf_append(w, pad8((size_t)req[i].nbytes));
        memcpy(data, req[i].src, (size_t)req[i].nbytes);
        bytes += sizeof rec + pad8((size_t)req[i].nbytes);
    }
    return bytes;
}

static void build_wire(int q, int par)
{
    struct thr_team *team = thr_team;
    struct bsp_buf *w = &hyb.tx[q];
    w->len = 0;
    bsp_buf_append(w, sizeof(uint64_t));
    for (int k = 0; k < team->nlocal; k++)
        wire_put(w, &team->procs[k].lines[par].header, sizeof(struct bsp_header));
    size_t sizes_at = w->len, npairs = (size_t)team->nlocal * (size_t)rank_count(q);
    bsp_buf_append(w, npairs * sizeof(struct hyb_sizes));
    size_t i = 0;
    for (int k = 0; k < team->nlocal; k++) {
        const struct bsp_outbox *boxes = team->procs[k].boxes[par];
        for (int d = rank_first(q); d < rank_first(q) + rank_count(q); d++, i++) {
            const struct bsp_outbox *box = &boxes[d];
            struct hyb_sizes sz = {box->puts.len, box->msgs.len, box->gets.len};
            wire_put(w, box->puts.data, box->puts.len);
            sz.puts += wire_hps(w, &box->hps);
            wire_put(w, box->msgs.data, box->msgs.len);
            wire_put(w, box->gets.data, box->gets.len);
            ((struct hyb_sizes *)(w->data + sizes_at))[i] = sz;
        }
    }
    *(uint64_t *)w->data = w->len;
}

/* A wire's first piece, received into room posted beforehand: an empty
 * sync's wire (a header a process, 40 bytes) fits, and so does a small
 * superstep's; its first 8 bytes tell how much more follows. */
enum { HYB_FIRST_PIECE = 4096 };

static size_t first_piece(uint64_t total)
{
    size_t first = HYB_FIRST_PIECE < hyb.link.max_message ? HYB_FIRST_PIECE : hyb.link.max_message;
    return total < first ? (size_t)total : first;
}

/* The first pieces of the wires to and from rank q. */
static void post_first_pieces(int q)
{
    struct bsp_buf *in = &hyb.rx[q], *out = &hyb.tx[q];
    in->len = 0;
    bsp_buf_reserve(in, HYB_FIRST_PIECE);
    bsp_mpi_post(&hyb.link, false, in->data, first_piece(UINT64_MAX), q, TAG_WIRE);
    bsp_mpi_post(&hyb.link, true, out->data, first_piece(out->len), q, TAG_WIRE);
}

/* The rest of the wires, once the first pieces are in (a large one waits
 * for its receiver to post room: not before, or both would wait). */
static void post_rests(int q)
{
    struct bsp_buf *in = &hyb.rx[q], *out = &hyb.tx[q];
    uint64_t total = *(const uint64_t *)in->data;
    size_t first = first_piece(total);
    in->len = first;
    bsp_buf_reserve(in, (size_t)total);
    bsp_mpi_post(&hyb.link, false, in->data + first, total - first, q, TAG_WIRE);
    in->len = (size_t)total;
    first = first_piece(out->len);
    bsp_mpi_post(&hyb.link, true, out->data + first, out->len - first, q, TAG_WIRE);
}

static struct bsp_buf view(const char **at, uint64_t nbytes)
{
    struct bsp_buf b = {(char *)*at, (size_t)nbytes, 0};
    *at += nbytes;
    return b;
}

/* Reads the wire from rank q into the inboxes of this rank's processes,
 * and the values its gets ask for into reply_out[q], before anybody here
 * writes (every thread of the rank is between the sync's barriers). */
static void open_wire(int q)
{
    struct thr_team *team = thr_team;
    const char *at = hyb.rx[q].data + sizeof(uint64_t) + (size_t)rank_count(q) * sizeof(struct bsp_header);
    const struct hyb_sizes *sz = (const struct hyb_sizes *)at;
    at += (size_t)rank_count(q) * (size_t)team->nlocal * sizeof *sz;
    struct bsp_buf *reply = &hyb.reply_out[q];
    reply->len = 0;
    for (int s = rank_first(q); s < rank_first(q) + rank_count(q); s++) {
        for (int k = 0; k < team->nlocal; k++, sz++) {
            struct bsp_outbox *box = &hyb.inbox[pair(s, team->first + k)];
            box->puts = view(&at, sz->puts);
            box->msgs = view(&at, sz->msgs);
            box->gets = view(&at, sz->gets);
            const struct bsp_get_req *req = (const struct bsp_get_req *)box->gets.data;
            for (size_t i = 0; i < box->gets.len / sizeof *req; i++) {
                const char *src = bsp_step_resolve(&team->procs[k].base, "bsp_get", s, req[i].slot,
                                                   req[i].offset, req[i].nbytes);
                wire_put(reply, src, (size_t)req[i].nbytes);
            }
        }
    }
}

/* Where the replies from rank q to each of this rank's processes start. */
static void place_replies(int q, int par)
{
    struct thr_team *team = thr_team;
    const char *at = hyb.reply_in[q].data;
    for (int k = 0; k < team->nlocal; k++)
        for (int d = rank_first(q); d < rank_first(q) + rank_count(q); d++) {
            hyb.replies[pair(d, team->first + k)] = at;
            at += bsp_get_bytes(&team->procs[k].boxes[par][d].gets);
        }
}

static uint64_t reply_bytes(int q, int par)
{
    uint64_t n = 0;
    for (int k = 0; k < thr_team->nlocal; k++)
        for (int d = rank_first(q); d < rank_first(q) + rank_count(q); d++)
            n += bsp_get_bytes(&thr_team->procs[k].boxes[par][d].gets);
    return n;
}

/* The headers of everybody, from the wires and from here, against
 * process 0's: the rank of process 0 reports a disagreement, the others
 * wait to be ended by it. */
static void check_headers(int par)
{
    struct thr_team *team = thr_team;
    for (int q = 0; q < hyb.ranks; q++)
        if (q != hyb.rank)
            memcpy(&hyb.headers[rank_first(q)], hyb.rx[q].data + sizeof(uint64_t),
                   (size_t)rank_count(q) * sizeof(struct bsp_header));
    for (int k = 0; k < team->nlocal; k++)
        hyb.headers[team->first + k] = team->procs[k].lines[par].header;
    for (int j = 0; j < team->nprocs; j++)
        bsp_step_check(&team->procs[0].base, &hyb.headers[0], &hyb.headers[j], j);
}

/* By the rank's first thread between the first two barriers of a sync:
 * one wire to every other rank and one from it, then the gets' replies. */
static void hyb_exchange(int par)
{
    for (int q = 0; q < hyb.ranks; q++)
        if (q != hyb.rank) {
            build_wire(q, par);
            post_first_pieces(q);
        }
    bsp_mpi_wait_all(&hyb.link);
    for (int q = 0; q < hyb.ranks; q++)
        if (q != hyb.rank)
            post_rests(q);
    bsp_mpi_wait_all(&hyb.link);
    check_headers(par);
    for (int q = 0; q < hyb.ranks; q++) {
        if (q == hyb.rank)
            continue;
        open_wire(q);
        bsp_mpi_post_recv(&hyb.link, &hyb.reply_in[q], reply_bytes(q, par), q, TAG_REPLY);
        bsp_mpi_post_send(&hyb.link, &hyb.reply_out[q], q, TAG_REPLY);
    }
    bsp_mpi_wait_all(&hyb.link);
    for (int q = 0; q < hyb.ranks; q++)
        if (q != hyb.rank)
            place_replies(q, par);
}

static const struct bsp_outbox *hyb_inbox(int src, int dst)
{
    return &hyb.inbox[pair(src, dst)];
}

static const char *hyb_replies(int src, int dst)
{
    return hyb.replies[pair(src, dst)];
}

static const struct thr_world hyb_world = {hyb_exchange, hyb_inbox, hyb_replies};

/* With more processes than the node's CPUs (bsprun's BSP_NPROCS on one
 * host), a rank's first thread waiting in MPI would spin on a CPU that its
 * own threads or another rank's need: Open MPI is told to yield, as it does
 * by itself for ranks past the slots it knows. Measured at 2 ranks x 2
 * threads on 2 CPUs: an empty sync 83-87 us spinning, 21-24 us yielding
 * (the MPI backend at p = 4: 15-19 us). Before MPI starts; the user's
 * setting wins. */
static void hyb_tune_open_mpi(void)
{
    if (bsp_env_nprocs() > sysconf(_SC_NPROCESSORS_ONLN))
        setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
}

static void hyb_start(const char *call)
{
    hyb_tune_open_mpi();
    bsp_mpi_start(call, HYB_THREAD_LEVEL);
}

void bsp_init(void (*spmd)(void), int argc, char **argv)
{
    thr_set_spmd(spmd, argc, argv);
    hyb_tune_open_mpi();
    bsp_mpi_init(spmd, argc, argv, HYB_THREAD_LEVEL);
}

/* Inside a section its size; before and after it BSP_NPROCS (set by
 * bsprun: the ranks times their threads), else one process a rank. */
bsp_nprocs_t bsp_nprocs(void)
{
    if (bsp_self)
        return bsp_self->nprocs;
    if (!bsp_mpi_world)
        hyb_start("bsp_nprocs");
    int n = bsp_env_nprocs();
    return n ? n : bsp_mpi_world;
}

/* Which CPUs this rank's threads take: pinned one a CPU, after the
 * threads of the ranks before it on the same node, when the node's
 * threads fit its CPUs and the rank may use them all (mpirun
 * --bind-to none, as bsprun runs it); else pinned within the CPUs it is
 * bound to, when they suffice. */
static void place_threads(int nlocal, int *pin_from, bool *oversubscribed)
{
    MPI_Comm node;
    MPI_Comm_split_type(hyb.link.comm, MPI_COMM_TYPE_SHARED, hyb.rank, MPI_INFO_NULL, &node);
    int before = 0, on_node = 0;
    MPI_Exscan(&nlocal, &before, 1, MPI_INT, MPI_SUM, node);
    MPI_Allreduce(&nlocal, &on_node, 1, MPI_INT, MPI_SUM, node);
    int node_rank;
    MPI_Comm_rank(node, &node_rank);
    if (node_rank == 0)
        before = 0; /* MPI_Exscan leaves the first rank's undefined */
    MPI_Comm_free(&node);
    cpu_set_t allowed;
    int cpus = thr_cpus(&allowed);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    bool whole_node = cpus == online;
    *pin_from = whole_node ? before : 0;
    *oversubscribed = (whole_node ? on_node : nlocal) > cpus;
    if (whole_node && on_node > cpus)
        *pin_from = -1;
}

static void hyb_alloc(int p, int nlocal)
{
    size_t r = (size_t)hyb.ranks, pairs = (size_t)p * (size_t)nlocal;
    hyb.tx = bsp_xcalloc(r, sizeof *hyb.tx);
    hyb.rx = bsp_xcalloc(r, sizeof *hyb.rx);
    hyb.reply_out = bsp_xcalloc(r, sizeof *hyb.reply_out);
    hyb.reply_in = bsp_xcalloc(r, sizeof *hyb.reply_in);
    hyb.headers = bsp_xcalloc((size_t)p, sizeof *hyb.headers);
    hyb.inbox = bsp_xcalloc(pairs, sizeof *hyb.inbox);
    hyb.replies = bsp_xcalloc(pairs, sizeof *hyb.replies);
}

static void hyb_free(void)
{
    for (int q = 0; q < hyb.ranks; q++) {
        bsp_buf_free(&hyb.tx[q]);
        bsp_buf_free(&hyb.rx[q]);
        bsp_buf_free(&hyb.reply_out[q]);
        bsp_buf_free(&hyb.reply_in[q]);
    }
    free(hyb.tx);
    free(hyb.rx);
    free(hyb.reply_out);
    free(hyb.reply_in);
    free(hyb.headers);
    free(hyb.inbox); /* views into rx, which own their bytes */
    free(hyb.replies);
    bsp_buf_free(&hyb.link.requests);
}

/* Process pid is thread pid % T of rank pid / T, T = ceil(P / ranks):
 * rank-major, as a machine's levels number their workers. */
void bsp_begin(bsp_nprocs_t maxprocs)
{
    if (thr_begin_spawned())
        return;
    if (bsp_self || thr_team)
        bsp_fail(NULL, "bsp_begin called twice");
    hyb_start("bsp_begin");
    int world = bsp_mpi_world;
    MPI_Comm_rank(MPI_COMM_WORLD, &hyb.rank);
    /* Process 0's argument decides: the others may have started in the SPMD
     * function before process 0 read how many processes to use. */
    MPI_Bcast(&maxprocs, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (maxprocs < 1 || maxprocs / world > BSP_THREADS_MAX_PROCS)
        bsp_fail(NULL, "bsp_begin: %d processes requested; the hybrid backend runs 1 to %d "
                 "threads on each of its %d ranks", maxprocs, BSP_THREADS_MAX_PROCS, world);
    hyb.per_rank = (maxprocs + world - 1) / world;
    hyb.ranks = (maxprocs + hyb.per_rank - 1) / hyb.per_rank;
    bsp_mpi_link_open(&hyb.link, hyb.rank, hyb.ranks);
    if (hyb.link.max_message < sizeof(uint64_t) + sizeof(struct bsp_header))
        hyb.link.max_message = sizeof(uint64_t) + sizeof(struct bsp_header); /* a wire's first piece holds its length */
    int first = rank_first(hyb.rank), nlocal = maxprocs - first < hyb.per_rank ? maxprocs - first : hyb.per_rank;
    int pin_from;
    bool oversubscribed;
    place_threads(nlocal, &pin_from, &oversubscribed);
    hyb_alloc(maxprocs, nlocal);
    thr_team_start(maxprocs, first, nlocal, pin_from, oversubscribed, hyb.ranks > 1 ? &hyb_world : NULL);
}

void bsp_sync(void)
{
    thr_sync((struct thr_proc *)bsp_need_self("bsp_sync"), BSP_KIND_SYNC, false);
}

static int rank_of(int pid)
{
    return pid / hyb.per_rank;
}

/* Within each rank, when every group lies in one; else a sync of all. */
void bsp_group_sync(const int *group)
{
    struct thr_proc *me = (struct thr_proc *)bsp_need_self("bsp_group_sync");
    if (!group)
        bsp_fail(&me->base, "bsp_group_sync: NULL instead of the processes' groups");
    bool within = true;
    for (int k = 0; k < me->base.nprocs && within; k++) {
        if (group[k] < 0 || group[k] > k)
            bsp_fail(&me->base, "bsp_group_sync: process %d's group starts at %d, not in 0..%d", k, group[k], k);
        within = rank_of(group[k]) == rank_of(k);
    }
    thr_sync(me, BSP_KIND_SYNC, within);
}

/* Rank 0 gathers every process's counters and writes the profile. */
static void write_profile(size_t nsteps)
{
    struct thr_team *team = thr_team;
    size_t step_bytes = nsteps * sizeof(struct bsp_prof_step);
    const struct bsp_prof_step **mine = thr_team_steps();
    struct bsp_buf local = {0};
    for (int k = 0; k < team->nlocal; k++)
        wire_put(&local, mine[k], step_bytes);
    free(mine);
    int p = team->nprocs, *counts = NULL, *displs = NULL;
    struct bsp_prof_step *all = NULL;
    if (hyb.rank == 0) {
        all = bsp_xmalloc(step_bytes * (size_t)p);
        counts = bsp_xcalloc((size_t)hyb.ranks, sizeof *counts);
        displs = bsp_xcalloc((size_t)hyb.ranks, sizeof *displs);
        for (int q = 0; q < hyb.ranks; q++) {
            counts[q] = (int)(step_bytes * (size_t)rank_count(q));
            displs[q] = (int)(step_bytes * (size_t)rank_first(q));
        }
    }
    MPI_Gatherv(local.data, (int)local.len, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, hyb.link.comm);
    bsp_buf_free(&local);
    if (hyb.rank == 0) {
        const struct bsp_prof_step **steps = bsp_xcalloc((size_t)p, sizeof *steps);
        for (int i = 0; i < p; i++)
            steps[i] = all + (size_t)i * nsteps;
        bsp_profile_write(p, nsteps, steps);
        free(steps);
    }
    free(all);
    free(counts);
    free(displs);
}

/* As with threads and MPI, only process 0 continues after bsp_end. */
void bsp_end(void)
{
    struct thr_proc *me = (struct thr_proc *)bsp_need_self("bsp_end");
    thr_sync(me, BSP_KIND_END, false);
    thr_team_leave(me);
    int pid = me->base.pid;
    if (bsp_profile_enabled)
        write_profile((size_t)me->base.superstep);
    thr_team_free();
    hyb_free();
    MPI_Comm_free(&hyb.link.comm);
    if (!bsp_mpi_own)
        return;
    MPI_Finalize();
    if (pid != 0)
        exit(0);
}
