// exact.c: the exact cost model: the supersteps `vecbsp run` executes, with
// each one's w and h and every process's calibration counts, computed from
// the IR and its plan (what codegen.c reads) by abstract interpretation over
// the hash-consed shapes of src/cost/shape.c, without running anything.
// Applications of skeleton functions are memoised on (function, values of
// its free variables, arguments), all hash-consed pointers, so the time
// grows with the distinct shapes met, not with the data: a regular vector
// of any length is one application counted len times. docs/cost-model.md
// ("The exact model") states every rule implemented here.
#include "cost/shape.h"
#include "cost/cost.h"
#include "eval/eval.h"

#include <string.h>

// Size values are followed exactly through fold and prefix up to this many
// elements, and are data beyond (a bound: a data if then costs its dearer
// branch).
enum { SIMULATE_MAX = 1 << 20 };

typedef ExactCounts Counts;

// A memoised application: fn's body applied to a (and b) with its free
// variables bound to the shapes in env (a tuple), giving r at cost c.
typedef struct MemoEntry {
  Ir *fn;          // the skeleton or iter whose body is applied (NULL: free slot)
  Shape *env;      // its free variables' values, as nested pairs
  Shape *a, *b;    // the arguments (b NULL for one)
  Shape *r;        // the result
  Counts *c;       // what one application costs (apart: probing the table
                   // then touches only the keys)
} MemoEntry;

typedef struct Memo {
  MemoEntry *slot;  // open addressing
  size_t cap;       // a power of two
  size_t count;     // entries stored
} Memo;

// A point of the record, to repeat what followed (iter's steady state).
typedef struct Mark {
  int64_t closed;  // supersteps closed
  int nsteps;      // supersteps listed
  int64_t W, H;    // totals
  Counts *open;    // copy of the open counts, by pid
} Mark;

typedef struct Ex {
  IrProgram *ir;          // the program and its plan
  Shapes sh;              // the shapes built
  const int64_t *params;  // by param index
  int p;                  // processes
  Shape **env;            // by var id: the value bound
  IrVar ***free;          // by node id: free variables of a skeleton's or iter's body
  int *nfree;             // by node id: how many, plus one (0: not found yet)
  int *stamp;             // by var id: scratch marks for finding free variables
  signed char *top;       // by node id: 1 if it holds a parallel application, -1 if not, 0 unknown
  Memo memo;              // applications
  Counts *open;           // by pid: counts of the open superstep
  Counts *next;           // by pid: what a receiver does after the barrier (unpacking)
  int64_t *sent, *recv;   // by pid: words of the open superstep
  Counts *now;            // where counts go: a process's open counts, or a tally
  ExactStep *steps;       // the supersteps listed
  int nsteps, cap;        // listed, allocated
  bool truncated;         // some were not listed
  int64_t closed, W, H;   // supersteps closed, and totals
  int64_t accumulator;    // words of the largest accumulator overwritten in place
  Ir *applying;           // the skeleton or iter whose function is being applied (NULL: none)
  int64_t reload_set;     // words of the largest application that reads an operand again
} Ex;

static Shape *ev(Ex *x, Ir *e);

//
// Counts.
//

// Every count is an int64_t, so the two ways counts combine go over all
// of them at once, field by field in place: a field added to ExactCounts
// needs no edit here.
_Static_assert(sizeof(Counts) % sizeof(int64_t) == 0, "ExactCounts holds int64_t fields only");

// Counts past 2^63 end the analysis: the exact model counts exactly or
// not at all (the paper model's doubles take sizes this large).
static _Noreturn void count_overflow(void) {
  fatal("the exact model's counts pass 2^63 for these sizes; --model paper predicts them");
}

static int64_t mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) count_overflow();
  return r;
}

static int64_t add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) count_overflow();
  return r;
}

static int64_t count_at(const Counts *c, size_t at) {
  int64_t v;
  memcpy(&v, (const char *)c + at, sizeof v);
  return v;
}

static void set_count_at(Counts *c, size_t at, int64_t v) { memcpy((char *)c + at, &v, sizeof v); }

static void counts_add(Counts *restrict to, const Counts *restrict c, int64_t times) {
  for (size_t at = 0; at < sizeof *c; at += sizeof(int64_t))
    set_count_at(to, at, add(count_at(to, at), mul(count_at(c, at), times)));
}

static void counts_max(Counts *restrict to, const Counts *restrict c) {
  for (size_t at = 0; at < sizeof *c; at += sizeof(int64_t))
    if (count_at(c, at) > count_at(to, at)) set_count_at(to, at, count_at(c, at));
}

// A core runs this many steps of a loop's carried dependency while it still
// works on the code before and after the loop (measured:
// docs/cost-model.md, "Carried dependencies").
enum { OVERLAPPED_STEPS = 8 };

// iterations of a loop whose carried dependency is carried (plan.c), less
// the steps the code around the loop hides.
static void count_carried(Counts *c, const int carried[LAT_CLASSES], int64_t iterations) {
  iterations = iterations > OVERLAPPED_STEPS ? iterations - OVERLAPPED_STEPS : 0;
  for (int k = 0; k < LAT_CLASSES && iterations > 0; k++) c->carried[k] = add(c->carried[k], mul(carried[k], iterations));
}

// Counting into a tally c instead, to be added some number of times.
static Counts *tally(Ex *x, Counts *c) {
  Counts *saved = x->now;
  *c = (Counts){0};
  x->now = c;
  return saved;
}

static void untally(Ex *x, Counts *saved, const Counts *c, int64_t times) {
  x->now = saved;
  counts_add(x->now, c, times);
}

// Words a value of type t takes in an array: a vector is a descriptor.
static int64_t slot(Type *t) {
  if (t->kind == T_VEC) return 2;
  return t->kind == T_PAIR ? slot(t->a) + slot(t->b) : 1;
}

// n elements of the vector type t read from (or written to) an array.
static int64_t array_words(Type *t, int64_t n) { return mul(n, slot(t->a)); }

//
// Shapes of values.
//

static Shape *size(Ex *x, int64_t v) { return shape_size(&x->sh, sz_of(v)); }

static bool known(Shape *s) { return s->kind == SH_SIZE; }

static int64_t len(Shape *v) { return v->n.k; }

static Shape *slice(Ex *x, Shape *v, int64_t lo, int64_t hi) {
  if (v->kind == SH_VEC) return shape_vec(&x->sh, sz_of(hi - lo), v->a);
  return shape_vector(&x->sh, v->elems + lo, hi - lo);
}

static Shape *from_input(Ex *x, InputType *t) {
  switch (t->kind) {
  case IT_PAIR: return shape_pair(&x->sh, from_input(x, t->a), from_input(x, t->b));
  case IT_VEC: return shape_vec(&x->sh, sz_of(input_length(x->ir->prog, x->params, t)), from_input(x, t->a));
  default: return shape_unit(&x->sh);
  }
}

//
// Free variables of a function body: the memo key's environment.
//

static void mark_binders(Ex *x, Ir *e, int mark) {
  if (!e) return;
  IrVar *binds[] = {e->kind == IR_LET ? e->var : NULL, e->x, e->y};
  for (int i = 0; i < 3; i++)
    if (binds[i]) x->stamp[binds[i]->id] = mark;
  Ir *kids[] = {e->a, e->b, e->c, e->body};
  for (int i = 0; i < 4; i++) mark_binders(x, kids[i], mark);
  for (int i = 0; i < e->nelems; i++) mark_binders(x, e->elems[i], mark);
}

static void collect_free(Ex *x, Ir *e, int mark, PtrVec *out) {
  if (!e) return;
  if (e->kind == IR_VAR && x->stamp[e->var->id] != mark && x->stamp[e->var->id] != mark + 1) {
    x->stamp[e->var->id] = mark + 1;
    ptrvec_push(x->sh.arena, out, e->var);
  }
  Ir *kids[] = {e->a, e->b, e->c, e->body};
  for (int i = 0; i < 4; i++) collect_free(x, kids[i], mark, out);
  for (int i = 0; i < e->nelems; i++) collect_free(x, e->elems[i], mark, out);
}

// The values of fn's free variables now, as one hash-consed shape.
static Shape *env_key(Ex *x, Ir *fn) {
  if (!x->nfree[fn->id]) {
    int stamp = 2 * fn->id + 1;  // distinct for every function
    PtrVec vars = {0};
    x->stamp[fn->x->id] = stamp;
    if (fn->y) x->stamp[fn->y->id] = stamp;
    mark_binders(x, fn->body, stamp);
    collect_free(x, fn->body, stamp, &vars);
    x->free[fn->id] = (IrVar **)vars.data;
    x->nfree[fn->id] = vars.len + 1;
  }
  Shape *k = shape_unit(&x->sh);
  for (int i = 0; i < x->nfree[fn->id] - 1; i++) k = shape_pair(&x->sh, x->env[x->free[fn->id][i]->id], k);
  return k;
}

//
// Memoised application.
//

static size_t memo_slot(Memo *m, const MemoEntry *e) {
  uint64_t h = (uint64_t)e->fn->id * 0x9e3779b97f4a7c15u;
  h ^= (uint64_t)e->env->hash * 0xc2b2ae3d27d4eb4fu + e->a->hash;
  h = (h ^ (h >> 29)) * 0x632be59bd9b4e019u + (e->b ? e->b->hash : 7);
  return (size_t)(h ^ (h >> 32)) & (m->cap - 1);
}

static MemoEntry *memo_find(Ex *x, const MemoEntry *key) {
  Memo *m = &x->memo;
  if (!m->cap) return NULL;
  for (size_t j = memo_slot(m, key); m->slot[j].fn; j = (j + 1) & (m->cap - 1)) {
    MemoEntry *s = &m->slot[j];
    if (s->fn == key->fn && s->env == key->env && s->a == key->a && s->b == key->b) return s;
  }
  return NULL;
}

static void memo_put(Memo *m, MemoEntry e) {
  size_t j = memo_slot(m, &e);
  while (m->slot[j].fn) j = (j + 1) & (m->cap - 1);
  m->slot[j] = e;
  m->count++;
}

static void memo_add(Ex *x, MemoEntry e) {
  Memo *m = &x->memo;
  if ((m->count + 1) * 2 > m->cap) {
    Memo old = *m;
    *m = (Memo){.cap = old.cap ? old.cap * 2 : 1024};
    m->slot = arena_calloc(x->sh.arena, m->cap, sizeof *m->slot);
    for (size_t i = 0; i < old.cap; i++)
      if (old.slot[i].fn) memo_put(m, old.slot[i]);
  }
  memo_put(m, e);
}

// Adds times applications costing c. An operand the function reads in full
// but does not bind is the same data in every application: read once, then
// read again (docs/cost-model.md, "Reloads").
static void count_applications(Ex *x, const Counts *c, int64_t times) {
  counts_add(x->now, c, times);
  if (!c->invariant || times < 1) return;
  x->now->invariant -= c->invariant * times;
  x->now->loads += c->invariant;
  x->now->reloads += c->invariant * (times - 1);
  int64_t touched = c->loads + c->invariant + c->acc_loads + c->stores;
  if (times > 1 && touched > x->reload_set) x->reload_set = touched;
}

// fn's body applied to a (and b), counted times; env is env_key(fn).
static Shape *apply(Ex *x, Ir *fn, Shape *env, Shape *a, Shape *b, int64_t times) {
  MemoEntry key = {fn, env, a, b, NULL, NULL}, *hit = memo_find(x, &key);
  if (hit) key = *hit;
  else {
    key.c = arena_calloc(x->sh.arena, 1, sizeof *key.c);
    Counts *saved = tally(x, key.c);
    Ir *outer = x->applying;
    x->applying = fn;
    x->env[fn->x->id] = a;
    if (fn->y) x->env[fn->y->id] = b;
    key.r = ev(x, fn->body);
    x->applying = outer;
    x->now = saved;
    memo_add(x, key);
  }
  count_applications(x, key.c, times);
  return key.r;
}

//
// The skeletons' loops, sequential (one process's block, or local).
//

// The branch predictor follows a loop whose trip count changes from one
// run to the next up to this many iterations; a longer one mispredicts its
// exit (measured: docs/cost-model.md, "Loop exits").
enum { PREDICTED_TRIPS = 64 };

// Exits of loops run over each element of v in turn, from from on, loops
// per element: one each where the element is longer than PREDICTED_TRIPS
// and not as long as the element before. Returns whether it counted any.
static bool count_exits(Ex *x, int loops, Shape *v, int64_t from) {
  if (!loops || v->kind == SH_VEC) return false;  // a regular vector's elements are alike
  int64_t before = -1, exits = 0;
  for (int64_t i = from; i < len(v); i++) {
    int64_t k = len(shape_elem(v, i));
    exits += k > PREDICTED_TRIPS && k != before;
    before = k;
  }
  x->now->exits += exits * loops;
  return exits > 0;
}

// f on each element of v (and of w): a regular vector is one application.
// A loop of f over both its arguments at once counts once.
static Shape *map_vec(Ex *x, Ir *f, Shape *env, Shape *v, Shape *w) {
  int64_t n = len(v);
  if (v->kind == SH_VEC && (!w || w->kind == SH_VEC)) {
    if (!n) return v;
    return shape_vec(&x->sh, v->n, apply(x, f, env, v->a, w ? w->a : NULL, n));
  }
  if (!count_exits(x, f->loops_over[0], v, 0) && w) count_exits(x, f->loops_over[1], w, 0);
  Shape **out = arena_calloc(x->sh.arena, (size_t)n, sizeof *out);
  for (int64_t i = 0; i < n; i++) out[i] = apply(x, f, env, shape_elem(v, i), w ? shape_elem(w, i) : NULL, 1);
  return shape_vector(&x->sh, out, n);
}

// Size values are data in a vector too long to follow them.
static Shape *followable(Ex *x, Shape *v) { return len(v) > SIMULATE_MAX ? shape_erase(&x->sh, v) : v; }

// Folds v[from..] into acc. Over equal elements, once an application gives
// back its accumulator the rest repeat it: counted, not followed.
static Shape *fold_vec(Ex *x, Ir *f, Shape *env, Shape *acc, Shape *v, int64_t from) {
  int64_t n = len(v);
  count_exits(x, f->loops_over[1], v, from);
  for (int64_t i = from; i < n; i++) {
    Shape *r = apply(x, f, env, acc, shape_elem(v, i), 1);
    if (r == acc && v->kind == SH_VEC) {
      apply(x, f, env, acc, v->a, n - 1 - i);
      return acc;
    }
    acc = r;
  }
  return acc;
}

// The inclusive prefix of v; over equal elements that the operator keeps
// equal, the result is regular and counted, not followed.
static Shape *prefix_vec(Ex *x, Ir *f, Shape *env, Shape *v) {
  int64_t n = len(v);
  if (!n) return v;
  Shape *first = shape_elem(v, 0), *acc = first, **out = NULL;
  for (int64_t i = 1; i < n; i++) {
    Shape *r = apply(x, f, env, acc, shape_elem(v, i), 1);
    if (!out && r == first && v->kind == SH_VEC) {
      apply(x, f, env, acc, v->a, n - 1 - i);
      return shape_vec(&x->sh, v->n, first);
    }
    if (!out && r != first) {
      out = arena_calloc(x->sh.arena, (size_t)n, sizeof *out);
      for (int64_t j = 0; j < i; j++) out[j] = first;
    }
    if (out) out[i] = r;
    acc = r;
  }
  return out ? shape_vector(&x->sh, out, n) : shape_vec(&x->sh, v->n, first);
}

// One row per element of ys: f on every element of xs and that element.
static Shape *c_prod_vec(Ex *x, Ir *f, Shape *env, Shape *xs, Shape *ys) {
  int64_t n = len(ys);
  x->now->elems = add(x->now->elems, mul(n, len(xs)));
  if (ys->kind == SH_VEC) {
    if (!n) return ys;
    Counts row;
    Counts *saved = tally(x, &row);
    Shape *r = map_vec(x, f, env, xs, shape_vec(&x->sh, xs->n, ys->a));
    untally(x, saved, &row, n);
    return shape_vec(&x->sh, ys->n, r);
  }
  Shape **out = arena_calloc(x->sh.arena, (size_t)n, sizeof *out);
  for (int64_t j = 0; j < n; j++) out[j] = map_vec(x, f, env, xs, shape_vec(&x->sh, xs->n, ys->elems[j]));
  return shape_vector(&x->sh, out, n);
}

// Segments lo..hi-1 of inits or tails of all (views: no element is copied).
static Shape *segments(Ex *x, bool inits, Shape *all, int64_t lo, int64_t hi) {
  int64_t n = len(all);
  Shape **out = arena_calloc(x->sh.arena, (size_t)(hi - lo) + 1, sizeof *out);
  for (int64_t j = lo; j < hi; j++) out[j - lo] = inits ? slice(x, all, 0, j + 1) : slice(x, all, n - 1 - j, n);
  return shape_vector(&x->sh, out, hi - lo);
}

static Shape *redconcat(Ex *x, Shape *v) {
  int64_t n = len(v), total = 0;
  if (v->kind == SH_VEC && v->a->kind == SH_VEC) return shape_vec(&x->sh, sz_of(n * len(v->a)), v->a->a);
  for (int64_t i = 0; i < n; i++) total += len(shape_elem(v, i));
  shape_reserve(&x->sh, total);
  Shape **out = arena_calloc(x->sh.arena, (size_t)total + 1, sizeof *out);
  for (int64_t i = 0, k = 0; i < n; i++)
    for (int64_t j = 0; j < len(shape_elem(v, i)); j++) out[k++] = shape_elem(shape_elem(v, i), j);
  return shape_vector(&x->sh, out, total);
}

//
// Sequential evaluation: shapes, with counts into x->now.
//

static Shape *binop(Ex *x, Ir *e) {
  Shape *a = ev(x, e->a);
  x->now->ops++;
  if (e->lazy && known(a) && (a->n.k != 0) == (e->op == OP_OR)) return a;
  Shape *b = ev(x, e->b);
  x->now->divs += e->op == OP_DIV || e->op == OP_MOD;
  x->now->muls += e->op == OP_MUL && e->a->kind != IR_INT && e->b->kind != IR_INT;
  int64_t v;
  if (known(a) && known(b) && size_arith(e->op, a->n.k, b->n.k, &v)) return size(x, v);
  return shape_unit(&x->sh);
}

// A data if: its condition, then the dearer branch, count by count (the
// branch taken, when the condition is known). Its value is data: the
// branches' sizes are not known to be the same.
static Shape *cond(Ex *x, Ir *e) {
  Shape *c = ev(x, e->a);
  if (known(c) || e->kind == IR_IFS) return ev(x, c->n.k ? e->b : e->c);
  Counts then_c, else_c;
  Counts *saved = tally(x, &then_c);
  Shape *r = ev(x, e->b);
  tally(x, &else_c);
  ev(x, e->c);
  counts_max(&then_c, &else_c);
  untally(x, saved, &then_c, 1);
  return shape_erase(&x->sh, r);
}

// Does e hold a parallel application (so that it must run at top level,
// closing supersteps, rather than be memoised)?
static bool holds_top(Ex *x, Ir *e) {
  if (!e) return false;
  if (x->top[e->id]) return x->top[e->id] > 0;
  bool top = ir_is_skeleton(e->kind) && e->mode == MODE_TOP;
  Ir *kids[] = {e->a, e->b, e->c, e->body};
  for (int i = 0; i < 4 && !top; i++) top = holds_top(x, kids[i]);
  for (int i = 0; i < e->nelems && !top; i++) top = holds_top(x, e->elems[i]);
  x->top[e->id] = top ? 1 : -1;
  return top;
}

static Shape *iter_top(Ex *x, Ir *e, Shape *acc, int64_t k);

static Shape *iter(Ex *x, Ir *e) {
  Shape *acc = ev(x, e->a);
  int64_t k = ev(x, e->b)->n.k;
  if (holds_top(x, e->body)) return iter_top(x, e, acc, k);
  x->now->elems += k;
  count_carried(x->now, e->carried, k);
  Shape *env = env_key(x, e);
  for (int64_t i = 0; i < k; i++) {
    Shape *r = apply(x, e, env, acc, NULL, 1);
    if (r == acc) {
      apply(x, e, env, acc, NULL, k - 1 - i);
      break;
    }
    acc = r;
  }
  return acc;
}

// A fold whose elements are made in its body's loop stores the first one,
// made apart (plan.c, "Folds of vectors").
static void first_element(Ex *x, Ir *fold, Shape *first) {
  if (!fold->fuses_element) return;
  x->now->stores += array_words(fold->ty, len(first));
  x->now->elems += len(first);
}

// Whether operand is bound outside the function being applied (an input,
// or one of the function's free variables): the same in every application.
static bool invariant(Ex *x, Ir *operand) {
  if (!x->applying) return false;
  if (operand->kind == IR_INPUT) return true;
  if (operand->kind != IR_VAR) return false;
  for (int i = 0; i < x->nfree[x->applying->id] - 1; i++)
    if (x->free[x->applying->id][i] == operand->var) return true;
  return false;
}

// Where the loads of operand (1: a, 2: b) of e go: a fold's body reads its
// accumulator in place; an invariant operand is counted apart until its
// application is (count_applications).
static int64_t *loads_of(Ex *x, Counts *c, Ir *e, int operand) {
  if (e->in_place == operand) return &c->acc_loads;
  return invariant(x, operand == 1 ? e->a : e->b) ? &c->invariant : &c->loads;
}

// map, pair_map, c_prod, fold, prefix, inits, tails where they stand: the
// loads of their stored operands and the stores of their stored results.
static Shape *local_skeleton(Ex *x, Ir *e) {
  Shape *a = ev(x, e->a), *b = e->b ? ev(x, e->b) : NULL;
  Counts *c = x->now;
  if (e->kind == IR_C_PROD) {
    c->loads = add(c->loads, mul(len(b), add(slot(e->b->ty->a), array_words(e->a->ty, len(a)))));
    c->stores = add(c->stores, mul(len(b), add(2, array_words(e->ty->a, len(a)))));
    return c_prod_vec(x, e, env_key(x, e), a, b);
  }
  if (!e->a->fused) *loads_of(x, c, e, 1) += array_words(e->a->ty, len(a));
  if (e->kind == IR_PAIR_MAP && !e->b->fused) *loads_of(x, c, e, 2) += array_words(e->b->ty, len(b));
  if (e->kind != IR_FOLD && !e->fused) {  // its result, stored (or written over the accumulator)
    int64_t result = e->kind == IR_INITS || e->kind == IR_TAILS ? 2 * len(a) : array_words(e->ty, len(a));
    if (!e->in_place) c->stores += result;
    else if (result > x->accumulator) x->accumulator = result;
  }
  count_carried(c, e->carried, len(a) - (e->kind == IR_FOLD || e->kind == IR_PREFIX));
  if (!e->fused) c->elems += len(a);  // a fused generator's elements are its consumer's iterations
  switch (e->kind) {
  case IR_MAP: return map_vec(x, e, env_key(x, e), a, NULL);
  case IR_PAIR_MAP: return map_vec(x, e, env_key(x, e), a, b);
  case IR_FOLD:
    a = followable(x, a);
    if (!len(a)) return shape_unit(&x->sh);
    first_element(x, e, shape_elem(a, 0));
    return fold_vec(x, e, env_key(x, e), shape_elem(a, 0), a, 1);
  case IR_PREFIX: return prefix_vec(x, e, env_key(x, e), followable(x, a));
  default: return segments(x, e->kind == IR_INITS, a, 0, len(a));  // IR_INITS, IR_TAILS
  }
}

static Shape *vector_literal(Ex *x, Ir *e) {
  Shape **elems = arena_calloc(x->sh.arena, (size_t)e->nelems + 1, sizeof *elems);
  for (int i = 0; i < e->nelems; i++) elems[i] = ev(x, e->elems[i]);
  x->now->stores += array_words(e->ty, e->nelems);
  return shape_vector(&x->sh, elems, e->nelems);
}

// entry v i: a known index picks its element; any other is data.
static Shape *entry(Ex *x, Ir *e) {
  Shape *v = ev(x, e->a), *i = ev(x, e->b);
  x->now->loads += slot(e->ty);
  if (known(i) && i->n.k >= 0 && i->n.k < len(v)) return shape_elem(v, i->n.k);
  return len(v) ? shape_erase(&x->sh, shape_elem(v, 0)) : shape_unit(&x->sh);
}

static Shape *region(Ex *x, Ir *e);

static Shape *ev(Ex *x, Ir *e) {
  switch (e->kind) {
  case IR_INT: case IR_BOOL: return size(x, e->ival);
  case IR_FLOAT: return shape_unit(&x->sh);
  case IR_PARAM: return size(x, x->params[e->index]);
  case IR_INPUT: return from_input(x, x->ir->prog->inputs[e->index]->itype);
  case IR_VAR: return x->env[e->var->id];
  case IR_LET: x->env[e->var->id] = ev(x, e->a); return ev(x, e->body);
  case IR_IF: case IR_IFS: return cond(x, e);
  case IR_BINOP: return binop(x, e);
  case IR_UNOP: {
    Shape *a = ev(x, e->a);
    int64_t v;
    x->now->ops++;
    return known(a) && size_arith(e->op, a->n.k, 0, &v) ? size(x, v) : shape_unit(&x->sh);
  }
  case IR_PAIR: {
    Shape *a = ev(x, e->a);
    return shape_pair(&x->sh, a, ev(x, e->b));
  }
  case IR_FST: return ev(x, e->a)->a;
  case IR_SND: return ev(x, e->a)->b;
  case IR_VEC: return vector_literal(x, e);
  case IR_LENGTH: return size(x, len(ev(x, e->a)));
  case IR_ENTRY: return entry(x, e);
  case IR_HD: {
    Shape *v = ev(x, e->a);
    x->now->loads += slot(e->ty);
    return len(v) ? shape_elem(v, 0) : shape_unit(&x->sh);
  }
  case IR_TL: {
    Shape *v = ev(x, e->a);
    return len(v) ? slice(x, v, 1, len(v)) : v;
  }
  case IR_REDCONCAT: {
    Shape *r = redconcat(x, ev(x, e->a));
    x->now->loads += array_words(e->ty, len(r));
    x->now->stores += array_words(e->ty, len(r));
    return r;
  }
  case IR_DUMMYVEC: {
    int64_t n = ev(x, e->a)->n.k;
    Shape *elem = shape_erase(&x->sh, ev(x, e->b));
    x->now->stores += array_words(e->ty, n > 0 ? n : 0);
    return shape_vec(&x->sh, sz_of(n > 0 ? n : 0), elem);
  }
  case IR_ITER: return iter(x, e);
  default: return e->mode == MODE_TOP ? region(x, e) : local_skeleton(x, e);
  }
}

//
// Supersteps.
//

static void list_step(Ex *x, ExactStep s) {
  x->closed++;
  x->W = add(x->W, s.w);
  x->H = add(x->H, s.h);
  if (x->nsteps == EXACT_STEPS_LISTED) {
    x->truncated = true;
    return;
  }
  if (x->nsteps == x->cap) {
    x->cap = x->cap ? 2 * x->cap : 16;
    ExactStep *grown = arena_calloc(x->sh.arena, (size_t)x->cap, sizeof *grown);
    if (x->nsteps) memcpy(grown, x->steps, (size_t)x->nsteps * sizeof *grown);
    x->steps = grown;
  }
  x->steps[x->nsteps++] = s;
}

static int64_t *copy_words(Ex *x, int64_t *w) {
  int64_t *c = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *c);
  memcpy(c, w, (size_t)x->p * sizeof *c);
  return c;
}

// A barrier: the open superstep's counts and words become a step.
static void barrier(Ex *x, Pos where, const char *what) {
  ExactStep s = {.where = where, .what = what};
  s.procs = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *s.procs);
  s.sent = copy_words(x, x->sent);
  s.recv = copy_words(x, x->recv);
  for (int k = 0; k < x->p; k++) {
    s.procs[k] = x->open[k];
    counts_max(&s.most, &x->open[k]);
    if (x->sent[k] > s.h) s.h = x->sent[k];
    if (x->recv[k] > s.h) s.h = x->recv[k];
    x->open[k] = x->next[k];
    x->next[k] = (Counts){0};
    x->sent[k] = x->recv[k] = 0;
  }
  s.w = s.most.ops;
  list_step(x, s);
}

// A region's barrier: at p = 1 nothing is sent, so a region runs as one
// fused pass without any (docs/compiler.md, "Fusion").
static void region_barrier(Ex *x, Ir *stage, const char *what) {
  if (x->p > 1) barrier(x, stage->pos, arena_printf(x->sh.arena, "%s: %s", builtin_name(ir_builtin(stage->kind)), what));
}

// Is a value of type t and shape s packed into a buffer before it is sent
// (plan_sent_in_place)? Rows count as lying one after the other when they
// are of one length: only the running code can see whether they do.
static bool packed(Type *t, Shape *s) {
  return !plan_sent_in_place(t) || (!ir_word_flat(t->a) && s->kind != SH_VEC);
}

// A message: the sender packs it (packed) or bsp_send takes it from where
// it lies; the receiver unpacks it after the barrier, or reads it in place
// (in_place).
static void send_words(Ex *x, int from, int to, double words, bool packed, bool in_place) {
  if (from == to) return;
  if (!(words < 0x1p63)) count_overflow();
  int64_t w = (int64_t)words;
  x->sent[from] = add(x->sent[from], w);
  x->recv[to] = add(x->recv[to], w);
  if (packed) x->open[from].stores = add(x->open[from].stores, w);
  if (!in_place) x->next[to].unpacked = add(x->next[to].unpacked, w);
}

// A block of a vector: the receiver reads it where it arrived (in_place,
// plan_block_in_place) or copies it out. Rows of one length go by their
// stride: the sender reads each row's descriptor to find it. Anything else
// but scalars is packed vector by vector. The receiver builds a descriptor
// per row when the rows go by their stride or are read in place (then
// reading each row's length first), and otherwise unpacks vector by vector.
static void block_message(Ex *x, int from, int to, Type *t, Shape *blk, bool in_place) {
  int64_t n = len(blk);
  Shape *elem = n ? shape_elem(blk, 0) : NULL;
  bool scalars = elem && elem->kind != SH_PAIR && !shape_is_vector(elem);
  send_words(x, from, to, shape_message_words(&x->sh, blk, 0, n), packed(t, blk), in_place);
  if (from == to || !elem || scalars) return;
  bool strided = blk->kind == SH_VEC && elem->kind == SH_VEC && !shape_is_vector(elem->a);
  int64_t vectors = strided ? 0 : (int64_t)shape_vectors(blk, 0, n);
  if (strided) {
    x->open[from].elems += n;
    x->open[from].loads += 2 * n;
  } else {
    x->open[from].vectors += vectors;
  }
  if (strided || in_place) {
    x->next[to].elems += n;
    x->next[to].loads += strided ? 0 : n;
    x->next[to].stores += 2 * n;
  } else {
    x->next[to].vectors += vectors;
  }
}

// A whole value of type t: a vector travels as a block of all its elements
// (sf_* is sb_* of the whole) and is read in place or copied out as blocks
// are; anything else is packed and unpacked.
static void value_message(Ex *x, int from, int to, Type *t, Shape *v, bool in_place) {
  if (t->kind == T_VEC)
    block_message(x, from, to, t, v, in_place);
  else
    send_words(x, from, to, shape_value_words(&x->sh, v), true, false);
}

static Mark mark(Ex *x) {
  Mark m = {x->closed, x->nsteps, x->W, x->H, arena_calloc(x->sh.arena, (size_t)x->p, sizeof *m.open)};
  memcpy(m.open, x->open, (size_t)x->p * sizeof *m.open);
  return m;
}

// What happened since m happens times more: the iterations of a top-level
// iter in its steady state. Only process 0's open work grows, or the
// supersteps closed since m are listed again (the open state stays).
static void repeat(Ex *x, Mark m, int64_t times) {
  if (x->closed == m.closed) {
    for (int k = 0; k < x->p; k++) {
      Counts d = x->open[k];
      counts_add(&d, &m.open[k], -1);
      counts_add(&x->open[k], &d, times);
    }
    return;
  }
  int64_t closed = x->closed - m.closed, dW = x->W - m.W, dH = x->H - m.H;
  int end = x->nsteps;
  if (end - m.nsteps != closed) x->truncated = true;  // the block is not all listed
  for (int64_t t = 0; t < times && !x->truncated; t++)
    for (int i = m.nsteps; i < end; i++) list_step(x, x->steps[i]);
  // The totals count every repetition, listed or not.
  x->closed = add(m.closed, mul(closed, add(times, 1)));
  x->W = add(m.W, mul(dW, add(times, 1)));
  x->H = add(m.H, mul(dH, add(times, 1)));
}

// iter at top level: k applications of its body there; once three inputs
// in a row are the same shape the iterations are in a steady state.
static Shape *iter_top(Ex *x, Ir *e, Shape *acc, int64_t k) {
  Shape *prev1 = NULL, *prev2 = NULL;
  Mark last = mark(x);
  for (int64_t i = 0; i < k; i++) {
    if (acc == prev1 && acc == prev2) {
      repeat(x, last, k - i);
      break;
    }
    Mark before = mark(x);
    x->now->elems++;
    x->env[e->x->id] = acc;
    Shape *next = ev(x, e->body);
    prev2 = prev1, prev1 = acc, acc = next, last = before;
  }
  return acc;
}

//
// Regions, as codegen.c runs them (docs/compiler.md, "Execution").
//

static int64_t lo_of(Ex *x, int64_t n, int k) { return plan_block_start(n, x->p, k); }

static bool empty_block(Ex *x, int64_t n, int k) { return lo_of(x, n, k) == lo_of(x, n, k + 1); }

// Counting on process k.
static void on(Ex *x, int k) { x->now = &x->open[k]; }

// A step of a fold at process 0 on a received partial: its body reads the
// partial from the message's vector and stores a new result, whatever it
// does in the fold's loop (plan.c, "Folds of vectors").
static Shape *combine(Ex *x, Ir *e, Shape *env, Shape *acc, Shape *part) {
  Counts c;
  Counts *saved = tally(x, &c);
  Shape *r = apply(x, e, env, acc, part, 1);
  if (e->fuses_element) c.loads += array_words(e->ty, len(part));
  if (e->body->in_place) {
    int64_t words = array_words(e->ty, len(part));
    c.acc_loads -= words, c.loads += words, c.stores += words;
  }
  untally(x, saved, &c, 1);
  return r;
}

// fold: partials to process 0, which folds them in pid order.
static Shape *stage_fold(Ex *x, Ir *e, Shape *env, Shape **blk) {
  Shape **part = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *part);
  for (int k = 0; k < x->p; k++) {
    if (!len(blk[k])) continue;
    on(x, k);
    if (x->p > 1) count_carried(x->now, e->carried, len(blk[k]) - 1);
    first_element(x, e, shape_elem(blk[k], 0));
    part[k] = fold_vec(x, e, env, shape_elem(blk[k], 0), followable(x, blk[k]), 1);
    value_message(x, k, 0, e->ty, part[k], false);
  }
  region_barrier(x, e, "partial results");
  on(x, 0);
  Shape *acc = NULL;
  for (int k = 0; k < x->p; k++) {
    if (!part[k]) continue;
    if (acc) x->now->elems++;
    acc = acc ? combine(x, e, env, acc, part[k]) : part[k];
  }
  return acc ? acc : shape_unit(&x->sh);
}

// prefix: pass 1 stores the local prefix; block totals go to the higher
// processes, which combine them and apply them in pass 2.
static void stage_prefix(Ex *x, Ir *e, Shape *env, Shape **blk, int64_t n) {
  int64_t words = x->p > 1 ? slot(e->ty->a) : 0;  // alone, the prefix is a generator
  for (int k = 0; k < x->p; k++) {
    on(x, k);
    if (x->p > 1) count_carried(x->now, e->carried, len(blk[k]) - 1);
    blk[k] = prefix_vec(x, e, env, followable(x, blk[k]));
    x->now->stores = add(x->now->stores, mul(words, len(blk[k])));
    x->now->loads = add(x->now->loads, mul(words, len(blk[k])));
    for (int q = k + 1; q < x->p && len(blk[k]); q++)
      if (!empty_block(x, n, q)) value_message(x, k, q, e->ty->a, shape_elem(blk[k], len(blk[k]) - 1), false);
  }
  region_barrier(x, e, "block totals");
  // Downwards, so that the lower blocks still hold their local prefixes.
  for (int k = x->p - 1; k > 0; k--) {
    if (!len(blk[k])) continue;
    on(x, k);
    Shape *acc = NULL;
    for (int q = 0; q < k; q++) {
      if (!len(blk[q])) continue;
      Shape *total = shape_elem(blk[q], len(blk[q]) - 1);
      if (acc) x->now->elems++;
      acc = acc ? apply(x, e, env, acc, total, 1) : total;
    }
    if (acc) blk[k] = map_vec(x, e, env, shape_vec(&x->sh, blk[k]->n, acc), blk[k]);
  }
}

// The whole vector of n elements whose blocks are blk: regular blocks of
// one element shape make a regular vector without listing its elements.
static Shape *joined(Ex *x, Shape **blk, int64_t n) {
  Shape *elem = NULL;
  bool regular = true;
  for (int k = 0; k < x->p && regular; k++) {
    if (!len(blk[k])) continue;
    regular = blk[k]->kind == SH_VEC && (!elem || blk[k]->a == elem);
    elem = blk[k]->a;
  }
  if (regular) return shape_vec(&x->sh, sz_of(n), elem ? elem : shape_unit(&x->sh));
  Shape **elems = arena_calloc(x->sh.arena, (size_t)n + 1, sizeof *elems);
  for (int k = 0; k < x->p; k++)
    for (int64_t i = 0; i < len(blk[k]); i++) elems[lo_of(x, n, k) + i] = shape_elem(blk[k], i);
  return shape_vector(&x->sh, elems, n);
}

// inits/tails: each process fetches the elements its segments need.
static void stage_segments(Ex *x, Ir *e, Shape **blk, int64_t n) {
  bool inits = e->kind == IR_INITS;
  Shape *all = joined(x, blk, n);
  for (int q = 0; q < x->p; q++) {  // q sends to k
    int64_t lo = lo_of(x, n, q), hi = lo_of(x, n, q + 1);
    for (int k = 0; k < x->p && hi > lo; k++) {
      int64_t need = inits ? 0 : n - lo_of(x, n, k + 1), from = need > lo ? need : lo;
      if (k != q && !empty_block(x, n, k) && from < hi && (!inits || k > q))
        send_words(x, q, k, shape_message_words(&x->sh, all, from, hi), packed(e->a->ty, all), false);
    }
  }
  region_barrier(x, e, "exchange");
  for (int k = 0; k < x->p; k++) {
    int64_t lo = lo_of(x, n, k), hi = lo_of(x, n, k + 1), own = array_words(e->a->ty, hi - lo);
    x->open[k].loads += own;  // its own part, copied next to the received ones
    x->open[k].stores += own + 2 * (hi - lo);
    blk[k] = segments(x, inits, all, lo, hi);
  }
}

// The fetch: process 0 sends each worker the region's data in full and its
// block of the argument(s); workers read them where they arrived or copy
// them out, as the plan says.
static void fetch(Ex *x, Region *r, Shape **operand, Shape *a, Shape *b, Shape **blk, Shape **blk2) {
  Shape **input = arena_calloc(x->sh.arena, (size_t)r->ninputs + 1, sizeof *input);
  for (int i = 0; i < r->ninputs; i++) input[i] = ev(x, r->inputs[i]);
  Type *ta = b ? r->first->a->ty : plan_chain_arg(r->first)->ty, *tb = b ? r->first->b->ty : NULL;
  int64_t n = len(a);
  for (int k = 0; k < x->p; k++) {
    blk[k] = slice(x, a, lo_of(x, n, k), lo_of(x, n, k + 1));
    if (b) blk2[k] = slice(x, b, lo_of(x, n, k), lo_of(x, n, k + 1));
    if (k == 0) continue;
    for (int i = 0; i < r->ncaptured; i++) {
      Type *t = r->captured[i]->ty;
      value_message(x, 0, k, t, x->env[r->captured[i]->id], plan_full_in_place(r, t));
    }
    for (int i = 0; i < r->ninputs; i++)
      value_message(x, 0, k, r->inputs[i]->ty, input[i], plan_full_in_place(r, r->inputs[i]->ty));
    for (int s = 0; s < r->nstages; s++) {
      Type *t = r->stages[s]->a->ty;
      if (operand[s]) value_message(x, 0, k, t, operand[s], plan_full_in_place(r, t));
    }
    block_message(x, 0, k, ta, blk[k], plan_block_in_place(r, ta));
    if (b) block_message(x, 0, k, tb, blk2[k], plan_block_in_place(r, tb));
  }
  region_barrier(x, r->first, "fetch");
}

// Does stage s read its input from an array (the received block, or the
// result a c_prod, inits or tails stored), rather than from a generator?
static bool stored_input(Region *r, int s) {
  if (s == 0) return true;
  IrKind k = r->stages[s - 1]->kind;
  return k == IR_C_PROD || k == IR_INITS || k == IR_TAILS;
}

// Does stage s begin a new loop over the block at p > 1 (its input was
// stored, or is the second pass of a prefix), or run inside the one before?
static bool starts_loop(Region *r, int s) { return stored_input(r, s) || r->stages[s - 1]->kind == IR_PREFIX; }

// The gather: each process stores its block of the result once, and every
// worker sends it to process 0.
static Shape *gather(Ex *x, Region *r, Shape **blk, int64_t n) {
  for (int k = 0; k < x->p; k++) {
    x->open[k].stores += array_words(r->root->ty, len(blk[k]));
    if (k && len(blk[k])) block_message(x, k, 0, r->root->ty, blk[k], false);  // copied into the result
  }
  region_barrier(x, r->root, "gather");
  on(x, 0);
  return joined(x, blk, n);
}

static Shape *region(Ex *x, Ir *e) {
  Region *r = e->region;
  on(x, 0);
  Shape **operand = arena_calloc(x->sh.arena, (size_t)r->nstages, sizeof *operand);
  for (int s = r->nstages - 1; s >= 0; s--)
    if (r->stages[s]->kind == IR_C_PROD) operand[s] = ev(x, r->stages[s]->a);
  bool two = r->first->kind == IR_PAIR_MAP;
  Shape *a = ev(x, two ? r->first->a : plan_chain_arg(r->first)), *b = two ? ev(x, r->first->b) : NULL;
  int64_t n = len(a);
  Shape **blk = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *blk);
  Shape **blk2 = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *blk2);
  fetch(x, r, operand, a, b, blk, blk2);
  if (x->p == 1) {  // one fused pass
    count_carried(&x->open[0], r->carried_alone, n - 1);
    x->open[0].elems += n;
  }
  for (int s = 0; s < r->nstages; s++) {
    Ir *st = r->stages[s];
    Shape *env = st->x ? env_key(x, st) : NULL;
    if (x->p > 1 && starts_loop(r, s))
      for (int k = 0; k < x->p; k++) x->open[k].elems += len(blk[k]);
    for (int k = 0; k < x->p && stored_input(r, s); k++) {
      x->open[k].loads += array_words(plan_chain_arg(st) ? plan_chain_arg(st)->ty : st->a->ty, len(blk[k]));
      if (b) x->open[k].loads += array_words(st->b->ty, len(blk2[k]));
    }
    switch (st->kind) {
    case IR_FOLD: return stage_fold(x, st, env, blk);
    case IR_PREFIX: stage_prefix(x, st, env, blk, n); continue;
    case IR_INITS: case IR_TAILS: stage_segments(x, st, blk, n); continue;
    default: break;
    }
    for (int k = 0; k < x->p; k++) {
      on(x, k);
      if (st->kind == IR_C_PROD) {
        x->now->loads = add(x->now->loads, mul(len(blk[k]), array_words(st->a->ty, len(operand[s]))));
        x->now->stores = add(x->now->stores, mul(len(blk[k]), add(2, array_words(st->ty->a, len(operand[s])))));
        blk[k] = c_prod_vec(x, st, env, operand[s], blk[k]);
      } else {
        blk[k] = map_vec(x, st, env, blk[k], b ? blk2[k] : NULL);
      }
    }
    b = NULL;
  }
  return gather(x, r, blk, n);
}

// The memory a run touches: the arrays it stores are never reused within
// it, so every stored word is a new one (an approximation for iter steps),
// and so is every word the runtime copies into a message and a receiver
// copies out of one.
static double footprint(Ex *x) {
  double words = 0;
  for (int i = 0; i < x->ir->prog->ninputs; i++)
    words += shape_value_words(&x->sh, from_input(x, x->ir->prog->inputs[i]->itype));
  for (int i = 0; i < x->nsteps; i++)
    for (int k = 0; k < x->p; k++)
      words += (double)(x->steps[i].procs[k].stores + x->steps[i].procs[k].unpacked + x->steps[i].sent[k]);
  return words;
}

void exact_cost(Arena *arena, Program *prog, const int64_t *params, int p, ExactResult *out) {
  IrProgram *ir = lower_program(prog);
  Ex x = {.ir = ir, .params = params, .p = p < 1 ? 1 : p};
  x.sh = (Shapes){.arena = arena, .budget = IRREGULAR_MAX, .site = prog->main->pos};
  x.env = arena_calloc(arena, (size_t)ir->nvars + 1, sizeof *x.env);
  x.stamp = arena_calloc(arena, (size_t)ir->nvars + 1, sizeof *x.stamp);
  x.free = arena_calloc(arena, (size_t)ir->nnodes + 1, sizeof *x.free);
  x.nfree = arena_calloc(arena, (size_t)ir->nnodes + 1, sizeof *x.nfree);
  x.top = arena_calloc(arena, (size_t)ir->nnodes + 1, sizeof *x.top);
  x.open = arena_calloc(arena, (size_t)x.p, sizeof *x.open);
  x.next = arena_calloc(arena, (size_t)x.p, sizeof *x.next);
  x.sent = arena_calloc(arena, (size_t)x.p, sizeof *x.sent);
  x.recv = arena_calloc(arena, (size_t)x.p, sizeof *x.recv);
  x.now = &x.open[0];
  ev(&x, ir->main);
  barrier(&x, prog->main->pos, "end");  // the last superstep, ending the program
  *out = (ExactResult){x.steps, x.nsteps, x.truncated, x.p, x.W, x.H, x.closed - 1, (int64_t)x.sh.table.count,
                       footprint(&x), (double)x.accumulator, (double)x.reload_set};
}
