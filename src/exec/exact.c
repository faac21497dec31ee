// exact.c: the exact cost model: the supersteps `vecbsp run` executes, with
// each one's w and h, computed from the IR, its plan and the parameters by
// abstract interpretation over concrete shapes, without running anything.
// It mirrors codegen.c rule by rule (docs/compiler.md, "What is counted").
#include "exec/exec.h"
#include "exec/ir.h"

#include <string.h>

// The shape of a value: a scalar (with its value when it is a size), a
// pair, or a vector whose elements share one shape or each have their own.
typedef struct Sh Sh;
struct Sh {
  TypeKind kind;  // T_INT (any scalar), T_PAIR or T_VEC
  bool known;     // scalar: val is known (a size)
  int64_t val;    // scalar: the value when known
  Sh *a, *b;      // pair: components
  int64_t len;    // vector: number of elements
  Sh *elem;       // vector: the shape of every element (NULL if elems is used)
  Sh **elems;     // vector: each element's shape
};

typedef struct Ex {
  IrProgram *ir;     // the program
  Arena *arena;      // shapes and results
  const int64_t *params;
  int p;             // processes
  Sh **env;          // by var id: the shape bound
  int64_t *ops;      // operations of each process in the open superstep
  int64_t *sent;     // words sent by each process in it
  int64_t *recv;     // words received by each process in it
  int64_t *now;      // the counter operations go to (a process's ops)
  PtrVec steps;      // ExactStep *: the closed supersteps
} Ex;

enum { TAG_WORDS = 0 };  // a tag is bookkeeping, not data: the runtime counts payloads

static Sh *ev(Ex *x, Ir *e);

//
// Shapes.
//

static Sh *sh_new(Ex *x, TypeKind kind) {
  Sh *s = arena_alloc(x->arena, sizeof *s);
  s->kind = kind;
  return s;
}

static Sh *scalar(Ex *x) { return sh_new(x, T_INT); }

static Sh *size(Ex *x, int64_t v) {
  Sh *s = sh_new(x, T_INT);
  s->known = true;
  s->val = v;
  return s;
}

static Sh *pair(Ex *x, Sh *a, Sh *b) {
  Sh *s = sh_new(x, T_PAIR);
  s->a = a;
  s->b = b;
  return s;
}

static Sh *uniform(Ex *x, int64_t len, Sh *elem) {
  Sh *s = sh_new(x, T_VEC);
  s->len = len;
  s->elem = elem ? elem : scalar(x);
  return s;
}

static Sh *listed(Ex *x, int64_t len) {
  Sh *s = sh_new(x, T_VEC);
  s->len = len;
  s->elems = arena_calloc(x->arena, (size_t)len + 1, sizeof *s->elems);
  return s;
}

static Sh *at(Sh *v, int64_t i) { return v->elems ? v->elems[i] : v->elem; }

// Elements [lo, hi) of v.
static Sh *slice(Ex *x, Sh *v, int64_t lo, int64_t hi) {
  if (!v->elems) return uniform(x, hi - lo, v->elem);
  Sh *s = listed(x, hi - lo);
  memcpy(s->elems, v->elems + lo, (size_t)(hi - lo) * sizeof *s->elems);
  return s;
}

static Sh *from_input(Ex *x, InputType *t) {
  switch (t->kind) {
  case IT_PAIR: return pair(x, from_input(x, t->a), from_input(x, t->b));
  case IT_VEC: return uniform(x, input_length(x->ir->prog, x->params, t), from_input(x, t->a));
  default: return scalar(x);
  }
}

//
// Words: the packed form (rt/core.c pk_*) and the block form (sb_*).
//

static int64_t words(Sh *s) {
  switch (s->kind) {
  case T_PAIR: return words(s->a) + words(s->b);
  case T_VEC: {
    if (!s->elems) return 1 + s->len * (s->len ? words(s->elem) : 0);
    int64_t n = 1;
    for (int64_t i = 0; i < s->len; i++) n += words(s->elems[i]);
    return n;
  }
  default: return 1;
  }
}

// A block of vector elements: vectors of one common length go without
// their lengths (the stride is in the tag).
static int64_t block_words(Sh *v) {
  int64_t n = 0;
  bool regular = v->len > 0 && at(v, 0)->kind == T_VEC;
  for (int64_t i = 1; regular && i < v->len && v->elems; i++)
    if (v->elems[i]->len != v->elems[0]->len) regular = false;
  if (!v->elems) return v->len ? v->len * (words(v->elem) - regular) : 0;
  for (int64_t i = 0; i < v->len; i++) n += words(v->elems[i]) - regular;
  return n;
}

// A whole value as a message: vectors in block form, the rest packed.
static int64_t field_words(Sh *s) { return s->kind == T_VEC ? block_words(s) : words(s); }

static void message(Ex *x, int from, int to, int64_t payload) {
  if (from == to) return;
  x->sent[from] += TAG_WORDS + payload;
  x->recv[to] += TAG_WORDS + payload;
}

// A barrier: the open superstep's maxima become a step.
static void barrier(Ex *x, Pos where) {
  ExactStep *s = arena_alloc(x->arena, sizeof *s);
  for (int k = 0; k < x->p; k++) {
    if (x->ops[k] > s->w) s->w = x->ops[k];
    if (x->sent[k] > s->h) s->h = x->sent[k];
    if (x->recv[k] > s->h) s->h = x->recv[k];
    x->ops[k] = x->sent[k] = x->recv[k] = 0;
  }
  s->where = where;
  ptrvec_push(x->arena, &x->steps, s);
}

// A region's barrier: at p = 1 nothing is sent, so the region runs as one
// fused pass without any (docs/compiler.md, "Fusion").
static void region_barrier(Ex *x, Pos where) {
  if (x->p > 1) barrier(x, where);
}

//
// Sequential evaluation: shapes, and operations into x->now.
//

static Sh *apply(Ex *x, Ir *e, Sh *a, Sh *b) {
  x->env[e->x->id] = a;
  if (e->y) x->env[e->y->id] = b;
  return ev(x, e->body);
}

static Sh *map_shapes(Ex *x, Ir *e, Sh *v, Sh *w) {
  if (!v->elems && (!w || !w->elems)) {  // equal elements cost the same: one application, counted len times
    if (!v->len) return uniform(x, 0, NULL);
    int64_t before = *x->now;
    Sh *r = apply(x, e, v->elem, w ? w->elem : NULL);
    *x->now += (v->len - 1) * (*x->now - before);
    return uniform(x, v->len, r);
  }
  Sh *r = listed(x, v->len);
  for (int64_t i = 0; i < v->len; i++) r->elems[i] = apply(x, e, at(v, i), w ? at(w, i) : NULL);
  return r;
}

// Folds v[from..] into acc.
static Sh *fold_shapes(Ex *x, Ir *e, Sh *acc, Sh *v, int64_t from) {
  for (int64_t i = from; i < v->len; i++) acc = apply(x, e, acc, at(v, i));
  return acc;
}

static Sh *prefix_shapes(Ex *x, Ir *e, Sh *v) {
  Sh *r = listed(x, v->len);
  for (int64_t i = 0; i < v->len; i++) r->elems[i] = i ? apply(x, e, r->elems[i - 1], at(v, i)) : at(v, 0);
  return r;
}

static Sh *c_prod_shapes(Ex *x, Ir *e, Sh *xs, Sh *ys) {
  Sh *r = listed(x, ys->len);
  for (int64_t j = 0; j < ys->len; j++) r->elems[j] = map_shapes(x, e, xs, uniform(x, xs->len, at(ys, j)));
  return r;
}

// inits or tails of v, whose first element is number offset of the whole.
static Sh *segments(Ex *x, bool inits, Sh *all, int64_t lo, int64_t hi) {
  Sh *r = listed(x, hi - lo);
  int64_t n = all->len;
  for (int64_t j = lo; j < hi; j++) r->elems[j - lo] = inits ? slice(x, all, 0, j + 1) : slice(x, all, n - 1 - j, n);
  return r;
}

static Sh *redconcat(Ex *x, Sh *v) {
  int64_t n = 0;
  for (int64_t i = 0; i < v->len; i++) n += at(v, i)->len;
  Sh *r = listed(x, n);
  for (int64_t i = 0, k = 0; i < v->len; i++)
    for (int64_t j = 0; j < at(v, i)->len; j++) r->elems[k++] = at(at(v, i), j);
  return r;
}

static Sh *binop(Ex *x, Ir *e) {
  Sh *a = ev(x, e->a);
  if (e->lazy && a->known && (a->val != 0) == (e->op == OP_OR)) {
    (*x->now)++;
    return a;
  }
  Sh *b = ev(x, e->b);
  (*x->now)++;
  if (!a->known || !b->known) return scalar(x);
  uint64_t p = (uint64_t)a->val, q = (uint64_t)b->val;
  switch (e->op) {
  case OP_ADD: return size(x, (int64_t)(p + q));
  case OP_SUB: return size(x, (int64_t)(p - q));
  case OP_MUL: return size(x, (int64_t)(p * q));
  case OP_DIV: return size(x, b->val == 0 || b->val == -1 ? (int64_t)(0 - p) : a->val / b->val);
  case OP_MOD: return size(x, b->val == 0 || b->val == -1 ? 0 : a->val % b->val);
  case OP_EQ: return size(x, a->val == b->val);
  case OP_NE: return size(x, a->val != b->val);
  case OP_LT: return size(x, a->val < b->val);
  case OP_LE: return size(x, a->val <= b->val);
  case OP_GT: return size(x, a->val > b->val);
  case OP_GE: return size(x, a->val >= b->val);
  case OP_MAX: return size(x, a->val > b->val ? a->val : b->val);
  case OP_MIN: return size(x, a->val < b->val ? a->val : b->val);
  case OP_AND: return size(x, a->val && b->val);
  case OP_OR: return size(x, a->val || b->val);
  default: return scalar(x);
  }
}

// A data if: the condition, then the dearer branch (or the one taken, when
// the condition is known).
static Sh *cond(Ex *x, Ir *e) {
  Sh *c = ev(x, e->a);
  if (c->known || e->kind == IR_IFS) return ev(x, c->val ? e->b : e->c);
  int64_t *saved = x->now, t = 0, f = 0;
  x->now = &t;
  Sh *r = ev(x, e->b);
  x->now = &f;
  ev(x, e->c);
  x->now = saved;
  *x->now += t > f ? t : f;
  return r;
}

static Sh *region(Ex *x, Ir *e);

static Sh *ev(Ex *x, Ir *e) {
  switch (e->kind) {
  case IR_INT: case IR_BOOL: return size(x, e->ival);
  case IR_FLOAT: return scalar(x);
  case IR_PARAM: return size(x, x->params[e->index]);
  case IR_INPUT: return from_input(x, x->ir->prog->inputs[e->index]->itype);
  case IR_VAR: return x->env[e->var->id];
  case IR_LET: x->env[e->var->id] = ev(x, e->a); return ev(x, e->body);
  case IR_IF: case IR_IFS: return cond(x, e);
  case IR_BINOP: return binop(x, e);
  case IR_UNOP: {
    Sh *a = ev(x, e->a);
    (*x->now)++;
    if (!a->known) return scalar(x);
    return size(x, e->op == OP_NOT ? !a->val : (int64_t)(0 - (uint64_t)a->val));
  }
  case IR_PAIR: {
    Sh *a = ev(x, e->a);
    return pair(x, a, ev(x, e->b));
  }
  case IR_FST: return ev(x, e->a)->a;
  case IR_SND: return ev(x, e->a)->b;
  case IR_VEC: {
    Sh *r = listed(x, e->nelems);
    for (int i = 0; i < e->nelems; i++) r->elems[i] = ev(x, e->elems[i]);
    return r;
  }
  case IR_LENGTH: return size(x, ev(x, e->a)->len);
  case IR_ENTRY: {
    Sh *v = ev(x, e->a), *i = ev(x, e->b);
    return v->len ? at(v, i->known && i->val >= 0 && i->val < v->len ? i->val : 0) : scalar(x);
  }
  case IR_HD: {
    Sh *v = ev(x, e->a);
    return v->len ? at(v, 0) : scalar(x);
  }
  case IR_TL: {
    Sh *v = ev(x, e->a);
    return v->len ? slice(x, v, 1, v->len) : v;
  }
  case IR_INITS: case IR_TAILS:
    if (e->mode == MODE_TOP) return region(x, e);
    else {
      Sh *v = ev(x, e->a);
      return segments(x, e->kind == IR_INITS, v, 0, v->len);
    }
  case IR_REDCONCAT: return redconcat(x, ev(x, e->a));
  case IR_DUMMYVEC: {
    Sh *n = ev(x, e->a);
    return uniform(x, n->val > 0 ? n->val : 0, ev(x, e->b));
  }
  case IR_ITER: {
    Sh *acc = ev(x, e->a), *k = ev(x, e->b);
    for (int64_t i = 0; i < k->val; i++) acc = apply(x, e, acc, NULL);
    return acc;
  }
  default: break;
  }
  if (e->mode == MODE_TOP) return region(x, e);
  Sh *a = ev(x, e->a), *b = e->b ? ev(x, e->b) : NULL;
  switch (e->kind) {
  case IR_MAP: return map_shapes(x, e, a, NULL);
  case IR_PAIR_MAP: return map_shapes(x, e, a, b);
  case IR_C_PROD: return c_prod_shapes(x, e, a, b);
  case IR_FOLD: return a->len ? fold_shapes(x, e, at(a, 0), a, 1) : scalar(x);
  default: return prefix_shapes(x, e, a);  // IR_PREFIX
  }
}

//
// Regions, as codegen.c runs them.
//

static int64_t lo_of(Ex *x, int64_t n, int k) { return plan_block_lo(n, x->p, k); }

static bool empty_block(Ex *x, int64_t n, int k) { return lo_of(x, n, k) == lo_of(x, n, k + 1); }

// fold: partials to process 0, which folds them in pid order.
static Sh *stage_fold(Ex *x, Ir *e, Sh **blk) {
  Sh **part = arena_calloc(x->arena, (size_t)x->p, sizeof *part);
  for (int k = 0; k < x->p; k++) {
    if (!blk[k]->len) continue;
    x->now = &x->ops[k];
    part[k] = fold_shapes(x, e, at(blk[k], 0), blk[k], 1);
    message(x, k, 0, field_words(part[k]));
  }
  region_barrier(x, e->pos);
  x->now = &x->ops[0];
  Sh *acc = NULL;
  for (int k = 0; k < x->p; k++)
    if (part[k]) acc = acc ? apply(x, e, acc, part[k]) : part[k];
  return acc ? acc : scalar(x);
}

// prefix: block totals to the higher processes, combined and applied.
static void stage_prefix(Ex *x, Ir *e, Sh **blk, int64_t n) {
  for (int k = 0; k < x->p; k++) {
    x->now = &x->ops[k];
    blk[k] = prefix_shapes(x, e, blk[k]);
    for (int q = k + 1; q < x->p && blk[k]->len; q++)
      if (!empty_block(x, n, q)) message(x, k, q, field_words(at(blk[k], blk[k]->len - 1)));
  }
  region_barrier(x, e->pos);
  // Downwards, so that the lower blocks still hold their local prefixes.
  for (int k = x->p - 1; k > 0; k--) {
    if (!blk[k]->len) continue;
    x->now = &x->ops[k];
    Sh *acc = NULL;
    for (int q = 0; q < k; q++)
      if (blk[q]->len) acc = acc ? apply(x, e, acc, at(blk[q], blk[q]->len - 1)) : at(blk[q], blk[q]->len - 1);
    if (!acc) continue;
    Sh *r = listed(x, blk[k]->len);
    for (int64_t i = 0; i < blk[k]->len; i++) r->elems[i] = apply(x, e, acc, at(blk[k], i));
    blk[k] = r;
  }
}

// inits/tails: each process fetches the elements its segments need.
static void stage_segments(Ex *x, Ir *e, Sh **blk, int64_t n) {
  bool inits = e->kind == IR_INITS;
  Sh *all = listed(x, n);
  for (int q = 0; q < x->p; q++)
    for (int64_t i = 0; i < blk[q]->len; i++) all->elems[lo_of(x, n, q) + i] = at(blk[q], i);
  for (int q = 0; q < x->p; q++) {  // q sends to k
    int64_t lo = lo_of(x, n, q), hi = lo_of(x, n, q + 1);
    for (int k = 0; k < x->p && hi > lo; k++) {
      int64_t need = inits ? 0 : n - lo_of(x, n, k + 1), from = need > lo ? need : lo;
      if (k != q && !empty_block(x, n, k) && from < hi && (!inits || k > q))
        message(x, q, k, block_words(slice(x, all, from, hi)));
    }
  }
  region_barrier(x, e->pos);
  for (int k = 0; k < x->p; k++) blk[k] = segments(x, inits, all, lo_of(x, n, k), lo_of(x, n, k + 1));
}

static Sh *region(Ex *x, Ir *e) {
  Region *r = e->region;
  x->now = &x->ops[0];
  Sh **operand = arena_calloc(x->arena, (size_t)r->nstages, sizeof *operand);
  for (int s = r->nstages - 1; s >= 0; s--)
    if (r->stages[s]->kind == IR_C_PROD) operand[s] = ev(x, r->stages[s]->a);
  Sh *a = r->first->kind == IR_PAIR_MAP ? ev(x, r->first->a) : ev(x, plan_chain_arg(r->first));
  Sh *b = r->first->kind == IR_PAIR_MAP ? ev(x, r->first->b) : NULL;
  int64_t n = a->len, full = 0;
  for (int i = 0; i < r->ncaptured; i++) full += TAG_WORDS + field_words(x->env[r->captured[i]->id]);
  for (int i = 0; i < r->ninputs; i++) full += TAG_WORDS + field_words(ev(x, r->inputs[i]));
  for (int s = 0; s < r->nstages; s++)
    if (operand[s]) full += TAG_WORDS + field_words(operand[s]);
  // The fetch: data in full and a block of the argument(s) to every worker.
  Sh **blk = arena_calloc(x->arena, (size_t)x->p, sizeof *blk), **blk2 = arena_calloc(x->arena, (size_t)x->p, sizeof *blk2);
  for (int k = 0; k < x->p; k++) {
    blk[k] = slice(x, a, lo_of(x, n, k), lo_of(x, n, k + 1));
    if (b) blk2[k] = slice(x, b, lo_of(x, n, k), lo_of(x, n, k + 1));
    if (k == 0) continue;
    x->sent[0] += full;
    x->recv[k] += full;
    message(x, 0, k, block_words(blk[k]));
    if (b) message(x, 0, k, block_words(blk2[k]));
  }
  region_barrier(x, r->first->pos);
  for (int s = 0; s < r->nstages; s++) {
    Ir *st = r->stages[s];
    switch (st->kind) {
    case IR_FOLD: return stage_fold(x, st, blk);
    case IR_PREFIX: stage_prefix(x, st, blk, n); continue;
    case IR_INITS: case IR_TAILS: stage_segments(x, st, blk, n); continue;
    default: break;
    }
    for (int k = 0; k < x->p; k++) {
      x->now = &x->ops[k];
      blk[k] = st->kind == IR_C_PROD ? c_prod_shapes(x, st, operand[s], blk[k]) : map_shapes(x, st, blk[k], b ? blk2[k] : NULL);
    }
    b = NULL;
  }
  // The gather.
  Sh *res = listed(x, n);
  for (int k = 0; k < x->p; k++) {
    if (k && blk[k]->len) message(x, k, 0, block_words(blk[k]));
    for (int64_t i = 0; i < blk[k]->len; i++) res->elems[lo_of(x, n, k) + i] = at(blk[k], i);
  }
  region_barrier(x, r->root->pos);
  x->now = &x->ops[0];
  return res;
}

int exact_cost(Program *prog, const int64_t *params, int p, ExactResult *out) {
  IrProgram *ir = lower_program(prog);
  Ex x = {.ir = ir, .arena = prog->arena, .params = params, .p = p < 1 ? 1 : p};
  x.env = arena_calloc(x.arena, (size_t)ir->nvars + 1, sizeof *x.env);
  x.ops = arena_calloc(x.arena, (size_t)x.p, sizeof *x.ops);
  x.sent = arena_calloc(x.arena, (size_t)x.p, sizeof *x.sent);
  x.recv = arena_calloc(x.arena, (size_t)x.p, sizeof *x.recv);
  x.now = &x.ops[0];
  ev(&x, ir->main);
  barrier(&x, prog->main->pos);  // the last superstep, ending the program
  *out = (ExactResult){.nsteps = x.steps.len, .S = x.steps.len - 1};
  out->steps = arena_calloc(x.arena, (size_t)x.steps.len, sizeof *out->steps);
  for (int i = 0; i < x.steps.len; i++) {
    out->steps[i] = *(ExactStep *)x.steps.data[i];
    out->W += out->steps[i].w;
    out->H += out->steps[i].h;
  }
  return 0;
}
