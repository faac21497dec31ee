/* bsp_internal.h: state and helpers shared by the BSPlib front end and its backends. */
#ifndef BSP_INTERNAL_H
#define BSP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bsp.h"
#include "bsp_profile.h"

/* A growable byte array; typed arrays of records are stored in it too. */
struct bsp_buf {
    char *data; /* heap storage, or NULL while empty */
    size_t len; /* bytes in use */
    size_t cap; /* bytes allocated */
};

void bsp_buf_reserve(struct bsp_buf *b, size_t n);

/* n more bytes at the end of b; inline, since every put takes this path. */
static inline void *bsp_buf_append(struct bsp_buf *b, size_t n)
{
    if (b->cap - b->len < n)
        bsp_buf_reserve(b, b->len + n);
    void *p = b->data + b->len;
    b->len += n;
    return p;
}

/* memcpy, with the sizes of single values copied inline: a one-word put
 * copies twice, and a call to memcpy would be much of its cost. */
static inline void bsp_copy(void *dst, const void *src, size_t n)
{
    switch (n) {
    case 0: break;
    case 4: __builtin_memcpy(dst, src, 4); break;
    case 8: __builtin_memcpy(dst, src, 8); break;
    case 16: __builtin_memcpy(dst, src, 16); break;
    default: __builtin_memcpy(dst, src, n);
    }
}
void bsp_buf_free(struct bsp_buf *b);
void *bsp_xmalloc(size_t n);
void *bsp_xcalloc(size_t count, size_t n);
void *bsp_xcalloc_lines(size_t count, size_t n);

/* One registration, identified across processes by its index in the table. */
struct bsp_slot {
    char *addr;   /* local address given to bsp_push_reg */
    size_t size;  /* registered size in bytes */
    bool active;  /* false once the pop has taken effect */
    bool popping; /* popped this superstep; still usable until the sync */
};

/* A registration change waiting for the next sync. */
struct bsp_regop {
    const void *addr; /* address pushed, or NULL for a pop */
    size_t size;      /* size pushed */
    size_t slot;      /* slot popped (pops only) */
    bool push;        /* a push rather than a pop */
    bool popped;      /* a push that a later pop of this superstep takes back */
};

/* Stream records, all multiples of 8 bytes so payloads stay aligned. */
struct bsp_put_rec {
    uint64_t offset; /* byte offset inside the registration */
    uint32_t slot;   /* destination registration */
    uint32_t nbytes; /* payload bytes that follow, padded to 8 (a bsp_size_t) */
};

struct bsp_msg_rec {
    uint64_t tagsize; /* tag bytes that follow */
    uint64_t nbytes;  /* payload bytes after the tag; both padded to 8 */
};

struct bsp_get_req {
    uint64_t slot;   /* source registration on the remote process */
    uint64_t offset; /* byte offset inside it */
    uint64_t nbytes; /* bytes to read */
    uint64_t dst;    /* requester's destination address, echoed back */
};

/* The bytes a buffer of get requests asks for: the size of their reply. */
static inline uint64_t bsp_get_bytes(const struct bsp_buf *gets)
{
    const struct bsp_get_req *req = (const struct bsp_get_req *)gets->data;
    uint64_t n = 0;
    for (size_t i = 0; i < gets->len / sizeof *req; i++)
        n += req[i].nbytes;
    return n;
}

/* An unbuffered put: its data goes straight from src to the destination
 * at the sync (src is the sender's, meaningless to another process). */
struct bsp_hp_req {
    uint64_t slot;   /* destination registration */
    uint64_t offset; /* byte offset inside it */
    uint64_t nbytes; /* bytes to copy */
    const char *src; /* sender's source, which must stay unchanged */
};

/* Everything one process sends to one other process in a superstep. */
struct bsp_outbox {
    struct bsp_buf puts; /* bsp_put_rec records with their payloads */
    struct bsp_buf msgs; /* bsp_msg_rec records with tags and payloads */
    struct bsp_buf gets; /* array of bsp_get_req */
    struct bsp_buf hps;  /* array of bsp_hp_req: direct hpputs */
};

void bsp_outbox_clear(struct bsp_outbox *box);
void bsp_outbox_free(struct bsp_outbox *box);

enum { BSP_KIND_SYNC = 1, BSP_KIND_END = 2 };
enum { BSP_HAS_GETS = 1, BSP_HAS_HPS = 2 };

/* What each process declares at a sync; all must agree on everything but
 * the flags, which say whether the sync needs its extra phases. */
struct bsp_header {
    uint32_t kind;    /* BSP_KIND_SYNC or BSP_KIND_END */
    uint32_t flags;   /* BSP_HAS_GETS | BSP_HAS_HPS issued by this process */
    uint32_t pushes;  /* bsp_push_reg calls this superstep */
    uint32_t pops;    /* bsp_pop_reg calls this superstep */
    uint64_t popsig;  /* hash of the popped slot numbers, in order */
    uint64_t tagsize; /* tag size in force after this sync */
    uint64_t tagsize_calls; /* bsp_set_tagsize calls this superstep */
};

/* Profile counters of one process in one superstep. */
struct bsp_prof_step {
    double seconds;          /* wall time of the superstep on this process */
    double work;             /* of which before it reached bsp_sync: its own work, not the wait */
    uint64_t ops;            /* bsp_profile_ops total */
    uint64_t bytes_sent;     /* payload bytes leaving this process */
    uint64_t bytes_received; /* payload bytes arriving here */
    uint64_t words_sent;     /* the same in 8-byte words, rounded up per transfer */
    uint64_t words_received; /* ditto */
    uint64_t messages;       /* puts, gets and sends this process issued */
};

/* One BSP process: what the front end and the shared sync code use. */
struct bsp_proc {
    int pid;                     /* this process's number */
    int nprocs;                  /* processes in the SPMD section */
    uint64_t superstep;          /* syncs completed so far */
    double start;                /* clock at bsp_begin, for bsp_time */
    struct bsp_outbox *out;      /* outboxes of this superstep, one per pid */
    uint32_t flags;              /* BSP_HAS_* issued this superstep */
    struct bsp_buf slots;        /* array of bsp_slot: the registrations */
    struct bsp_buf regops;       /* array of bsp_regop for the next sync */
    size_t last_slot;            /* the slot a put or get named last: likely the next one's */
    size_t tagsize;              /* tag size of this superstep's sends */
    size_t tagsize_next;         /* tag size after the next sync */
    uint64_t tagsize_calls;      /* bsp_set_tagsize calls this superstep */
    struct bsp_buf queue;        /* array of bsp_msg_rec pointers received */
    size_t qhead;                /* first unread message in queue */
    struct bsp_prof_step prof;   /* counters of the current superstep */
    struct bsp_buf prof_steps;   /* array of finished bsp_prof_step */
    double prof_mark;            /* clock at the start of this superstep */
};

/* The calling thread's process; NULL outside bsp_begin .. bsp_end. */
extern _Thread_local struct bsp_proc *bsp_self;

/* Name of the backend, written into profiles. */
extern const char bsp_backend_name[];

void bsp_proc_init(struct bsp_proc *proc, int pid, int nprocs);
void bsp_proc_free(struct bsp_proc *proc);
struct bsp_proc *bsp_need_self(const char *call);
double bsp_clock(void);
int bsp_env_nprocs(void);
/* Buffers past a size take a 2 MB huge page at least (core.c): the
 * backend's default size, or BSP_HUGE_FROM; once, in bsp_begin. */
enum { BSP_HUGE_PAGE = 2 << 20 };
void bsp_buf_start(size_t backend_default);

/* Errors: print "bsp: error: pid N: ..." and end every process. */
_Noreturn void bsp_fail(const struct bsp_proc *proc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Backend hooks called by the shared code. */
_Noreturn void bsp_backend_halt(void);
_Noreturn void bsp_await_halt(void);
/* hpputs of this many bytes and more are direct (not buffered as puts). */
extern const size_t bsp_backend_direct_hp_from;

/* The shared phases of a sync, in the order backends call them (after
 * bsp_step_start, once, in bsp_begin). */
void bsp_step_start(void);
void bsp_step_header(struct bsp_proc *me, uint32_t kind, struct bsp_header *h);
uint64_t bsp_step_signature(const struct bsp_header *h);
void bsp_step_disagree(const struct bsp_proc *me, const struct bsp_header *root,
                       const struct bsp_header *other, int other_pid);

/* Compares another process's header with process 0's (all but the
 * flags); inline, as it runs for every process at every sync. */
static inline void bsp_step_check(const struct bsp_proc *me, const struct bsp_header *root,
                                  const struct bsp_header *other, int other_pid)
{
    if (other->kind != root->kind || other->pushes != root->pushes || other->pops != root->pops ||
        other->popsig != root->popsig || other->tagsize != root->tagsize ||
        other->tagsize_calls != root->tagsize_calls)
        bsp_step_disagree(me, root, other, other_pid);
}
char *bsp_step_resolve(const struct bsp_proc *owner, const char *call,
                       int caller, uint64_t slot, uint64_t offset,
                       uint64_t nbytes);
void bsp_step_count_served(struct bsp_proc *me, int requester,
                           const struct bsp_buf *gets);
void bsp_step_begin_delivery(struct bsp_proc *me);
void bsp_step_apply_puts(struct bsp_proc *me, int src, const struct bsp_buf *puts);
void bsp_step_apply_hps(struct bsp_proc *me, int src, const struct bsp_buf *hps);
void bsp_step_count_hps(struct bsp_proc *me, int src, const struct bsp_buf *hps);
void bsp_step_queue_msgs(struct bsp_proc *me, int src, const struct bsp_buf *msgs);
void bsp_step_finish(struct bsp_proc *me);

/* Profiling. */
uint64_t bsp_words(uint64_t nbytes);
void bsp_profile_start(void);
void bsp_profile_arrive(struct bsp_proc *me);
void bsp_profile_record(struct bsp_proc *me);
void bsp_profile_write(int nprocs, size_t nsteps,
                       const struct bsp_prof_step *const *steps);

#endif
