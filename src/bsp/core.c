/* core.c: the BSPlib calls that only record work for the next sync, shared by both backends. */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bsp_internal.h"

_Thread_local struct bsp_proc *bsp_self;

/* ---- small utilities ---- */

void *bsp_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("bsp: error: out of memory\n", stderr);
        bsp_backend_halt();
    }
    return p;
}

void *bsp_xcalloc(size_t count, size_t n)
{
    void *p = calloc(count ? count : 1, n ? n : 1);
    if (!p) {
        fputs("bsp: error: out of memory\n", stderr);
        bsp_backend_halt();
    }
    return p;
}

/* count zeroed elements of n bytes starting on a cache line; n is a
 * multiple of 64 (a type with a cache-line-aligned member), so that no
 * two elements share a line. */
void *bsp_xcalloc_lines(size_t count, size_t n)
{
    size_t bytes = (count ? count : 1) * n;
    void *p = aligned_alloc(64, bytes);
    if (!p) {
        fputs("bsp: error: out of memory\n", stderr);
        bsp_backend_halt();
    }
    return memset(p, 0, bytes);
}

/* With MPI, buffers past 64 KB (messages Open MPI sends by its single
 * copy, above the 32 KB eager limit) take 2 MB at least, aligned to 2 MB
 * and backed by huge pages where the kernel has them (THP, "madvise" mode
 * on Debian).
 * Open MPI copies such a message between two processes' buffers by
 * process_vm_readv, pinning the pages one by one: with 4 KB pages mss1 at
 * p = 2 took 2.0 to 2.9 ms at n = 160 (8.6 MB of messages) and 0.15 or
 * 0.25 ms at n = 80 (1.1 MB), depending on the launch; with huge pages
 * 1.1 to 1.3 ms and 0.10 ms. Threads copy within one address space and
 * round nothing up: at p = 8, 100 KB from every process to every other
 * peaked at 238 MB rounded, 20 MB not. BSP_HUGE_FROM=BYTES overrides
 * either (docs/runtime.md, "Memory"). */
static size_t huge_from = BSP_HUGE_PAGE;

/* Called by bsp_begin before any process runs, so huge_from never changes
 * while the SPMD section reads it; backend_default is the backend's. */
void bsp_buf_start(size_t backend_default)
{
    huge_from = backend_default;
    const char *s = getenv("BSP_HUGE_FROM");
    if (!s || !*s)
        return;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(s, &end, 10);
    if (*end || errno || *s == '-')
        bsp_fail(NULL, "BSP_HUGE_FROM=%s: expected a number of bytes", s);
    huge_from = n < SIZE_MAX ? (size_t)n : SIZE_MAX;
}

/* Storage for cap bytes holding len bytes of old; cap is a power of 2. */
static char *buf_storage(char *old, size_t len, size_t cap)
{
    if (cap < BSP_HUGE_PAGE)
        return realloc(old, cap);
    char *data = aligned_alloc(BSP_HUGE_PAGE, cap);
    if (data) {
        madvise(data, cap, MADV_HUGEPAGE); /* best effort: without THP, ordinary pages */
        if (len)
            memcpy(data, old, len);
        free(old);
    }
    return data;
}

void bsp_buf_reserve(struct bsp_buf *b, size_t n)
{
    if (b->cap >= n)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < n)
        cap *= 2;
    if (cap > huge_from && cap < BSP_HUGE_PAGE)
        cap = BSP_HUGE_PAGE;
    char *data = buf_storage(b->data, b->len, cap);
    if (!data) {
        fputs("bsp: error: out of memory\n", stderr);
        bsp_backend_halt();
    }
    b->data = data;
    b->cap = cap;
}

void bsp_buf_free(struct bsp_buf *b)
{
    free(b->data);
    *b = (struct bsp_buf){0};
}

void bsp_outbox_clear(struct bsp_outbox *box)
{
    box->puts.len = box->msgs.len = box->gets.len = box->hps.len = 0;
}

void bsp_outbox_free(struct bsp_outbox *box)
{
    bsp_buf_free(&box->puts);
    bsp_buf_free(&box->msgs);
    bsp_buf_free(&box->gets);
    bsp_buf_free(&box->hps);
}

static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

double bsp_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* BSP_NPROCS as set by bsprun, or 0 when absent or malformed. */
int bsp_env_nprocs(void)
{
    const char *s = getenv("BSP_NPROCS");
    if (!s || !*s)
        return 0;
    char *end;
    long n = strtol(s, &end, 10);
    return (*end || n < 1 || n > 1 << 20) ? 0 : (int)n;
}

void bsp_proc_init(struct bsp_proc *proc, int pid, int nprocs)
{
    *proc = (struct bsp_proc){.pid = pid, .nprocs = nprocs};
    proc->start = proc->prof_mark = bsp_clock();
}

void bsp_proc_free(struct bsp_proc *proc)
{
    bsp_buf_free(&proc->slots);
    bsp_buf_free(&proc->regops);
    bsp_buf_free(&proc->queue);
    bsp_buf_free(&proc->prof_steps);
}

/* ---- errors and halting ---- */

/* Only the first of several simultaneous failures gets to print. */
static atomic_flag bsp_halting = ATOMIC_FLAG_INIT;

/* One write(2) for the whole message: under mpirun the bytes of each write
 * are forwarded as a unit, and Open MPI's MPI_ABORT banner would otherwise
 * land between a prefix and its text. Longer messages are cut short. */
static void write_message(const char *prefix, const char *fmt, va_list ap)
{
    char text[4096];
    size_t len = 0;
    if (prefix)
        len = (size_t)snprintf(text, sizeof text, "%s", prefix);
    int body = vsnprintf(text + len, sizeof text - len, fmt, ap);
    if (body > 0)
        len += (size_t)body;
    if (len > sizeof text - 2)
        len = sizeof text - 2;
    if (prefix)
        text[len++] = '\n';
    for (size_t done = 0; done < len;) {
        ssize_t n = write(STDERR_FILENO, text + done, len - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
}

static _Noreturn void bsp_halt_with(const char *prefix, const char *fmt, va_list ap)
{
    if (atomic_flag_test_and_set(&bsp_halting)) {
        for (;;)
            pause(); /* the winner is ending the program */
    }
    fflush(stdout);
    fflush(stderr);
    write_message(prefix, fmt, ap);
    bsp_backend_halt();
}

void bsp_fail(const struct bsp_proc *proc, const char *fmt, ...)
{
    char prefix[64];
    if (proc)
        snprintf(prefix, sizeof prefix, "bsp: error: pid %d: ", proc->pid);
    else
        snprintf(prefix, sizeof prefix, "bsp: error: ");
    va_list ap;
    va_start(ap, fmt);
    bsp_halt_with(prefix, fmt, ap);
}

void bsp_vabort(const char *format, va_list args)
{
    bsp_halt_with(NULL, format, args);
}

void bsp_abort(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    bsp_vabort(format, ap);
}

/* Lets the process that reports a collective error end everybody; the
 * bound only matters if that process itself is stuck. */
void bsp_await_halt(void)
{
    sleep(30);
    bsp_backend_halt();
}

struct bsp_proc *bsp_need_self(const char *call)
{
    if (!bsp_self)
        bsp_fail(NULL, "%s called outside bsp_begin .. bsp_end", call);
    return bsp_self;
}

/* ---- enquiry ---- */

bsp_pid_t bsp_pid(void)
{
    return bsp_need_self("bsp_pid")->pid;
}

double bsp_time(void)
{
    return bsp_clock() - bsp_need_self("bsp_time")->start;
}

/* ---- registration ---- */

void bsp_push_reg(const void *ident, bsp_size_t size)
{
    struct bsp_proc *me = bsp_need_self("bsp_push_reg");
    if (size < 0)
        bsp_fail(me, "bsp_push_reg: negative size %d", size);
    if (!ident && size > 0)
        bsp_fail(me, "bsp_push_reg: NULL with a size of %d bytes (NULL registers nothing: size 0)", size);
    struct bsp_regop *op = bsp_buf_append(&me->regops, sizeof *op);
    *op = (struct bsp_regop){.addr = ident, .size = (size_t)size, .push = true};
}

/* The most recent registration of addr, skipping those already popped
 * this superstep when skip_popping is set; -1 if none. */
static long find_slot(const struct bsp_proc *me, const void *addr, bool skip_popping)
{
    const struct bsp_slot *slots = (const struct bsp_slot *)me->slots.data;
    for (size_t i = me->slots.len / sizeof *slots; i-- > 0;)
        if (slots[i].active && slots[i].addr == addr && !(skip_popping && slots[i].popping))
            return (long)i;
    return -1;
}

/* The slot the pop of addr takes: the most recent registration of addr
 * not yet popped, counting this superstep's pushes, which the sync gives
 * the next slots in call order; -1 if none. */
static long pop_target(struct bsp_proc *me, const void *addr)
{
    struct bsp_regop *ops = (struct bsp_regop *)me->regops.data;
    size_t nslots = me->slots.len / sizeof(struct bsp_slot), pushes = 0;
    for (size_t i = 0; i < me->regops.len / sizeof *ops; i++)
        pushes += ops[i].push;
    for (size_t i = me->regops.len / sizeof *ops; i-- > 0;) {
        if (!ops[i].push)
            continue;
        pushes--;
        if (ops[i].addr == addr && !ops[i].popped) {
            ops[i].popped = true;
            return (long)(nslots + pushes);
        }
    }
    long slot = find_slot(me, addr, true);
    if (slot >= 0)
        ((struct bsp_slot *)me->slots.data)[slot].popping = true;
    return slot;
}

/* As BSPonMPI, and as the standard's "most recent registration" reads
 * in call order: a push and a pop of one address in one superstep cancel
 * at the sync (docs/runtime.md, "Decisions"). */
void bsp_pop_reg(const void *ident)
{
    struct bsp_proc *me = bsp_need_self("bsp_pop_reg");
    long slot = pop_target(me, ident);
    if (slot < 0)
        bsp_fail(me, "bsp_pop_reg: %p is not registered (superstep %llu)",
                 ident, (unsigned long long)me->superstep);
    struct bsp_regop *op = bsp_buf_append(&me->regops, sizeof *op);
    *op = (struct bsp_regop){.slot = (size_t)slot};
}

/* The registration of addr in effect, for a put or get. The table
 * changes only at a sync, which forgets last_slot. */
static size_t drma_slot(struct bsp_proc *me, const char *call, const void *addr)
{
    const struct bsp_slot *slots = (const struct bsp_slot *)me->slots.data;
    if (me->last_slot < me->slots.len / sizeof *slots && slots[me->last_slot].addr == addr)
        return me->last_slot;
    long slot = find_slot(me, addr, false);
    if (slot < 0)
        bsp_fail(me, "%s: %p is not a registered area (superstep %llu; a "
                 "registration takes effect at the next bsp_sync)",
                 call, addr, (unsigned long long)me->superstep);
    return me->last_slot = (size_t)slot;
}

/* Checks what the caller can check alone and returns the slot of addr;
 * the remote bounds are checked by whoever touches the remote memory. */
static inline uint32_t check_drma(struct bsp_proc *me, const char *call, bsp_pid_t pid,
                                  const void *addr, bsp_size_t offset, bsp_size_t nbytes)
{
    if (pid < 0 || pid >= me->nprocs)
        bsp_fail(me, "%s: pid %d out of range 0..%d", call, pid, me->nprocs - 1);
    if (offset < 0 || nbytes < 0)
        bsp_fail(me, "%s: negative offset %d or size %d", call, offset, nbytes);
    me->prof.messages++;
    return (uint32_t)drma_slot(me, call, addr);
}

static void count_sent(struct bsp_proc *me, bsp_pid_t pid, uint64_t nbytes)
{
    if (bsp_profile_enabled && pid != me->pid) {
        me->prof.bytes_sent += nbytes;
        me->prof.words_sent += bsp_words(nbytes);
    }
}

static void count_received(struct bsp_proc *me, bsp_pid_t pid, uint64_t nbytes)
{
    if (bsp_profile_enabled && pid != me->pid) {
        me->prof.bytes_received += nbytes;
        me->prof.words_received += bsp_words(nbytes);
    }
}

void bsp_put(bsp_pid_t pid, const void *src, void *dst, bsp_size_t offset,
             bsp_size_t nbytes)
{
    struct bsp_proc *me = bsp_need_self("bsp_put");
    uint32_t slot = check_drma(me, "bsp_put", pid, dst, offset, nbytes);
    struct bsp_put_rec *rec =
        bsp_buf_append(&me->out[pid].puts, sizeof *rec + pad8((size_t)nbytes));
    *rec = (struct bsp_put_rec){(uint64_t)offset, slot, (uint32_t)nbytes};
    bsp_copy(rec + 1, src, (size_t)nbytes);
    count_sent(me, pid, (uint64_t)nbytes);
}

void bsp_hpput(bsp_pid_t pid, const void *src, void *dst, bsp_size_t offset,
               bsp_size_t nbytes)
{
    if (nbytes < 0 || (size_t)nbytes < bsp_backend_direct_hp_from) {
        bsp_put(pid, src, dst, offset, nbytes);
        return;
    }
    struct bsp_proc *me = bsp_need_self("bsp_hpput");
    uint32_t slot = check_drma(me, "bsp_hpput", pid, dst, offset, nbytes);
    struct bsp_hp_req *req = bsp_buf_append(&me->out[pid].hps, sizeof *req);
    *req = (struct bsp_hp_req){slot, (uint64_t)offset, (uint64_t)nbytes, src};
    me->flags |= BSP_HAS_HPS;
    count_sent(me, pid, (uint64_t)nbytes);
}

void bsp_get(bsp_pid_t pid, const void *src, bsp_size_t offset, void *dst,
             bsp_size_t nbytes)
{
    struct bsp_proc *me = bsp_need_self("bsp_get");
    uint32_t slot = check_drma(me, "bsp_get", pid, src, offset, nbytes);
    struct bsp_get_req *req = bsp_buf_append(&me->out[pid].gets, sizeof *req);
    *req = (struct bsp_get_req){slot, (uint64_t)offset, (uint64_t)nbytes,
                                (uint64_t)(uintptr_t)dst};
    me->flags |= BSP_HAS_GETS;
    count_received(me, pid, (uint64_t)nbytes);
}

/* Both backends serve gets at the sync already; there is no faster way. */
void bsp_hpget(bsp_pid_t pid, const void *src, bsp_size_t offset, void *dst,
               bsp_size_t nbytes)
{
    bsp_get(pid, src, offset, dst, nbytes);
}

/* ---- BSMP ---- */

void bsp_set_tagsize(bsp_size_t *tag_nbytes)
{
    struct bsp_proc *me = bsp_need_self("bsp_set_tagsize");
    if (!tag_nbytes)
        bsp_fail(me, "bsp_set_tagsize: NULL instead of a pointer to the new tag size");
    if (*tag_nbytes < 0)
        bsp_fail(me, "bsp_set_tagsize: negative size %d", *tag_nbytes);
    bsp_size_t old = (bsp_size_t)me->tagsize_next;
    me->tagsize_next = (size_t)*tag_nbytes;
    me->tagsize_calls++;
    *tag_nbytes = old;
}

void bsp_send(bsp_pid_t pid, const void *tag, const void *payload,
              bsp_size_t payload_nbytes)
{
    struct bsp_proc *me = bsp_need_self("bsp_send");
    if (pid < 0 || pid >= me->nprocs)
        bsp_fail(me, "bsp_send: pid %d out of range 0..%d", pid, me->nprocs - 1);
    if (payload_nbytes < 0)
        bsp_fail(me, "bsp_send: negative size %d", payload_nbytes);
    size_t tagsize = me->tagsize, nbytes = (size_t)payload_nbytes;
    struct bsp_msg_rec *rec =
        bsp_buf_append(&me->out[pid].msgs, sizeof *rec + pad8(tagsize) + pad8(nbytes));
    *rec = (struct bsp_msg_rec){tagsize, nbytes};
    char *body = (char *)(rec + 1);
    if (tagsize)
        memcpy(body, tag, tagsize);
    if (nbytes)
        memcpy(body + pad8(tagsize), payload, nbytes);
    me->prof.messages++;
    count_sent(me, pid, nbytes); /* tags are bookkeeping, not data */
}

static const struct bsp_msg_rec *queue_front(const struct bsp_proc *me)
{
    const struct bsp_msg_rec *const *q = (const struct bsp_msg_rec *const *)me->queue.data;
    return me->qhead < me->queue.len / sizeof *q ? q[me->qhead] : NULL;
}

static const char *msg_tag(const struct bsp_msg_rec *m)
{
    return (const char *)(m + 1);
}

static const char *msg_payload(const struct bsp_msg_rec *m)
{
    return msg_tag(m) + pad8((size_t)m->tagsize);
}

void bsp_qsize(bsp_nprocs_t *nmessages, bsp_size_t *accum_nbytes)
{
    struct bsp_proc *me = bsp_need_self("bsp_qsize");
    if (!nmessages)
        bsp_fail(me, "bsp_qsize: NULL instead of a pointer for the number of messages");
    const struct bsp_msg_rec *const *q = (const struct bsp_msg_rec *const *)me->queue.data;
    size_t n = me->queue.len / sizeof *q, bytes = 0;
    for (size_t i = me->qhead; i < n; i++)
        bytes += (size_t)q[i]->nbytes;
    *nmessages = (bsp_nprocs_t)(n - me->qhead);
    if (accum_nbytes) /* an int in the standard: past 2 GB it says as much as it can */
        *accum_nbytes = bytes > INT_MAX ? INT_MAX : (bsp_size_t)bytes;
}

void bsp_get_tag(bsp_size_t *status, void *tag)
{
    struct bsp_proc *me = bsp_need_self("bsp_get_tag");
    const struct bsp_msg_rec *m = queue_front(me);
    if (!status)
        bsp_fail(me, "bsp_get_tag: NULL instead of a pointer for the status");
    if (m && m->tagsize && !tag)
        bsp_fail(me, "bsp_get_tag: NULL instead of room for a tag of %zu byte%s", (size_t)m->tagsize, m->tagsize == 1 ? "" : "s");
    *status = m ? (bsp_size_t)m->nbytes : -1;
    if (m && m->tagsize)
        memcpy(tag, msg_tag(m), (size_t)m->tagsize);
}

void bsp_move(void *payload, bsp_size_t reception_nbytes)
{
    struct bsp_proc *me = bsp_need_self("bsp_move");
    const struct bsp_msg_rec *m = queue_front(me);
    if (!m)
        bsp_fail(me, "bsp_move: the message queue is empty");
    if (reception_nbytes < 0)
        bsp_fail(me, "bsp_move: negative size %d", reception_nbytes);
    size_t n = (size_t)reception_nbytes;
    if (n > m->nbytes)
        n = (size_t)m->nbytes;
    if (n && !payload)
        bsp_fail(me, "bsp_move: NULL instead of room for %zu bytes", n);
    if (n)
        memcpy(payload, msg_payload(m), n);
    me->qhead++;
}

bsp_size_t bsp_hpmove(void **tag_ptr, void **payload_ptr)
{
    struct bsp_proc *me = bsp_need_self("bsp_hpmove");
    if (!tag_ptr || !payload_ptr)
        bsp_fail(me, "bsp_hpmove: NULL instead of a pointer for the %s", tag_ptr ? "payload" : "tag");
    const struct bsp_msg_rec *m = queue_front(me);
    if (!m)
        return -1;
    /* The queue lives until the next sync, as the standard promises. */
    *tag_ptr = (void *)msg_tag(m);
    *payload_ptr = (void *)msg_payload(m);
    me->qhead++;
    return (bsp_size_t)m->nbytes;
}
