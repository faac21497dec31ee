/* step.c: the phases of a sync that both backends share: agreement checks, delivery, registration. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bsp_internal.h"

static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* BSP_POISON_MESSAGES set (tests): see poison_messages. */
static bool poison;

/* Called by bsp_begin before any process runs, so the flag never changes
 * while the SPMD section reads it. */
void bsp_step_start(void)
{
    const char *s = getenv("BSP_POISON_MESSAGES");
    poison = s && *s;
}

/* The messages a process received end with the superstep that read them
 * (the standard keeps them until the next sync). Poisoned, their tags and
 * payloads are overwritten as the sync begins, so that a program reading
 * one later reads garbage rather than what a backend happens to keep: the
 * threads backend's double buffers keep them a superstep more. Each
 * process overwrites only its own records, before the barrier after which
 * their senders reuse the buffers. */
static void poison_messages(struct bsp_proc *me)
{
    const struct bsp_msg_rec *const *q = (const struct bsp_msg_rec *const *)me->queue.data;
    for (size_t i = 0; i < me->queue.len / sizeof *q; i++) {
        char *data = (char *)(uintptr_t)(q[i] + 1);
        memset(data, 0xa5, pad8((size_t)q[i]->tagsize) + pad8((size_t)q[i]->nbytes));
    }
}

static const char *kind_name(uint32_t kind)
{
    return kind == BSP_KIND_END ? "bsp_end" : "bsp_sync";
}

void bsp_step_header(struct bsp_proc *me, uint32_t kind, struct bsp_header *h)
{
    bsp_profile_arrive(me);
    if (poison)
        poison_messages(me);
    const struct bsp_regop *ops = (const struct bsp_regop *)me->regops.data;
    size_t n = me->regops.len / sizeof *ops;
    *h = (struct bsp_header){.kind = kind, .flags = me->flags, .tagsize = me->tagsize_next,
                             .tagsize_calls = me->tagsize_calls, .popsig = 1469598103934665603u};
    for (size_t i = 0; i < n; i++) {
        if (ops[i].push) {
            h->pushes++;
        } else {
            /* FNV-1a over the slot numbers: equal pops give equal hashes. */
            h->pops++;
            h->popsig = (h->popsig ^ ops[i].slot) * 1099511628211u;
        }
    }
}

/* A hash of what all processes must agree on in a header (not the
 * flags), with the low three bits clear for a backend's own use: equal
 * headers give equal signatures, and different ones different signatures
 * but with odds of 2^-61. */
uint64_t bsp_step_signature(const struct bsp_header *h)
{
    const uint64_t fields[] = {h->kind, h->pushes, h->pops, h->popsig, h->tagsize, h->tagsize_calls};
    uint64_t sig = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        sig = (sig ^ fields[i]) * 0xff51afd7ed558ccdu;
        sig ^= sig >> 32;
    }
    return sig & ~(uint64_t)7;
}

/* Reports a disagreement bsp_step_check found. Only process 0 reports,
 * so that it is printed once; the others wait to be ended by it. */
void bsp_step_disagree(const struct bsp_proc *me, const struct bsp_header *root,
                       const struct bsp_header *other, int other_pid)
{
    const char *what;
    if (other->kind != root->kind)
        what = "reached different calls";
    else if (other->pushes != root->pushes)
        what = "made different numbers of bsp_push_reg calls";
    else if (other->pops != root->pops || other->popsig != root->popsig)
        what = "popped different registrations (bsp_pop_reg must pop matching areas in the same order)";
    else if (other->tagsize != root->tagsize)
        what = "set different tag sizes";
    else
        what = "called bsp_set_tagsize different numbers of times (it is collective: all or none)";
    if (me->pid != 0)
        bsp_await_halt();
    bsp_fail(me, "processes 0 and %d %s in superstep %llu: process 0 is in %s "
             "(%u push, %u pop, tag size %llu set %llu times), "
             "process %d in %s (%u push, %u pop, tag size %llu set %llu times)",
             other_pid, what, (unsigned long long)me->superstep,
             kind_name(root->kind), root->pushes, root->pops, (unsigned long long)root->tagsize,
             (unsigned long long)root->tagsize_calls, other_pid, kind_name(other->kind),
             other->pushes, other->pops, (unsigned long long)other->tagsize,
             (unsigned long long)other->tagsize_calls);
}

/* The bytes [offset, offset + nbytes) of owner's registration slot, or a
 * reported error when they are not all registered. */
char *bsp_step_resolve(const struct bsp_proc *owner, const char *call, int caller,
                       uint64_t slot, uint64_t offset, uint64_t nbytes)
{
    const struct bsp_slot *slots = (const struct bsp_slot *)owner->slots.data;
    size_t nslots = owner->slots.len / sizeof *slots;
    if (slot >= nslots || !slots[slot].active)
        bsp_fail(owner, "%s from pid %d names registration %llu, which pid %d does not have",
                 call, caller, (unsigned long long)slot, owner->pid);
    const struct bsp_slot *s = &slots[slot];
    if (offset > s->size || nbytes > s->size - offset)
        bsp_fail(owner, "%s from pid %d touches bytes %llu..%llu of an area pid %d "
                 "registered with %zu bytes (superstep %llu)",
                 call, caller, (unsigned long long)offset,
                 (unsigned long long)(offset + nbytes), owner->pid, s->size,
                 (unsigned long long)owner->superstep);
    return s->addr + offset;
}

void bsp_step_count_served(struct bsp_proc *me, int requester, const struct bsp_buf *gets)
{
    if (!bsp_profile_enabled || requester == me->pid)
        return;
    const struct bsp_get_req *req = (const struct bsp_get_req *)gets->data;
    for (size_t i = 0; i < gets->len / sizeof *req; i++) {
        me->prof.bytes_sent += req[i].nbytes;
        me->prof.words_sent += bsp_words(req[i].nbytes);
    }
}

static void count_received(struct bsp_proc *me, int src, uint64_t nbytes)
{
    if (bsp_profile_enabled && src != me->pid) {
        me->prof.bytes_received += nbytes;
        me->prof.words_received += bsp_words(nbytes);
    }
}

/* Drops the messages of the previous superstep before new ones arrive. */
void bsp_step_begin_delivery(struct bsp_proc *me)
{
    me->queue.len = 0;
    me->qhead = 0;
}

void bsp_step_apply_puts(struct bsp_proc *me, int src, const struct bsp_buf *puts)
{
    for (size_t at = 0; at < puts->len;) {
        const struct bsp_put_rec *rec = (const struct bsp_put_rec *)(puts->data + at);
        char *dst = bsp_step_resolve(me, "bsp_put", src, rec->slot, rec->offset, rec->nbytes);
        bsp_copy(dst, rec + 1, rec->nbytes); /* a runtime buffer never overlaps a registered area */
        count_received(me, src, rec->nbytes);
        at += sizeof *rec + pad8((size_t)rec->nbytes);
    }
}

void bsp_step_apply_hps(struct bsp_proc *me, int src, const struct bsp_buf *hps)
{
    const struct bsp_hp_req *req = (const struct bsp_hp_req *)hps->data;
    for (size_t i = 0; i < hps->len / sizeof *req; i++) {
        char *dst = bsp_step_resolve(me, "bsp_hpput", src, req[i].slot, req[i].offset,
                                     req[i].nbytes);
        if (req[i].nbytes)
            memmove(dst, req[i].src, (size_t)req[i].nbytes);
    }
    bsp_step_count_hps(me, src, hps);
}

/* For a backend whose hpputs land by other means. */
void bsp_step_count_hps(struct bsp_proc *me, int src, const struct bsp_buf *hps)
{
    const struct bsp_hp_req *req = (const struct bsp_hp_req *)hps->data;
    for (size_t i = 0; bsp_profile_enabled && i < hps->len / sizeof *req; i++)
        count_received(me, src, req[i].nbytes);
}

/* Queues pointers into msgs, which the backend keeps until the next sync. */
void bsp_step_queue_msgs(struct bsp_proc *me, int src, const struct bsp_buf *msgs)
{
    for (size_t at = 0; at < msgs->len;) {
        const struct bsp_msg_rec *rec = (const struct bsp_msg_rec *)(msgs->data + at);
        const struct bsp_msg_rec **slot = bsp_buf_append(&me->queue, sizeof *slot);
        *slot = rec;
        count_received(me, src, rec->nbytes); /* tags are bookkeeping, not data */
        at += sizeof *rec + pad8((size_t)rec->tagsize) + pad8((size_t)rec->nbytes);
    }
}

/* Applies this superstep's registration changes, in call order. */
static void apply_regops(struct bsp_proc *me)
{
    const struct bsp_regop *ops = (const struct bsp_regop *)me->regops.data;
    if (me->regops.len)
        me->last_slot = SIZE_MAX; /* slots come and go */
    for (size_t i = 0; i < me->regops.len / sizeof *ops; i++) {
        if (ops[i].push) {
            struct bsp_slot *s = bsp_buf_append(&me->slots, sizeof *s);
            *s = (struct bsp_slot){(char *)ops[i].addr, ops[i].size, true, false};
        } else {
            ((struct bsp_slot *)me->slots.data)[ops[i].slot].active = false;
        }
    }
    me->regops.len = 0;
    /* Popped slots at the end can go: every process trims the same ones. */
    const struct bsp_slot *slots = (const struct bsp_slot *)me->slots.data;
    while (me->slots.len && !slots[me->slots.len / sizeof *slots - 1].active)
        me->slots.len -= sizeof *slots;
}

void bsp_step_finish(struct bsp_proc *me)
{
    apply_regops(me);
    me->tagsize = me->tagsize_next;
    me->tagsize_calls = 0;
    me->flags = 0;
    if (bsp_profile_enabled)
        bsp_profile_record(me);
    me->superstep++;
}
