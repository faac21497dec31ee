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
  double *costs;   // planning: a copy of the costs summed so far (costs_flat)
} Mark;

typedef struct Ex {
  IrProgram *ir;          // the program
  const Plan *pl;         // its plan
  Shapes sh;              // the shapes built
  const int64_t *params;  // by param index
  int p;                  // processes
  Shape **env;            // by var id: the value bound
  IrVar ***free;          // by node id: free variables of a skeleton's or iter's body
  int *nfree;             // by node id: how many, plus one (0: not found yet)
  int *stamp;             // by var id: scratch marks for finding free variables
  Shape **pre;            // by node id: the value of a top-level node computed already
  Memo memo;              // applications
  Counts *open;           // by pid: counts of the open superstep
  Counts *next;           // by pid: what a receiver does after the barrier (unpacking)
  int64_t *sent, *recv;   // by pid: words of the open superstep
  ExactCollective *coll;  // the open superstep's exchanges (for topology machines)
  int ncoll, capcoll;
  Counts *now;            // where counts go: a process's open counts, or a tally
  ExactStep *steps;       // the supersteps listed
  int nsteps, cap;        // listed, allocated
  bool truncated;         // some were not listed
  int64_t closed, W, H;   // supersteps closed, and totals
  int64_t accumulator;    // words of the largest accumulator overwritten in place
  Ir *applying;           // the skeleton or iter whose function is being applied (NULL: none)
  int64_t reload_set;     // words of the largest application that reads an operand again
  const Machine *m;       // planning (exact_plan_costs): the machine costs are in seconds on
  PlanCosts *costs;       // planning: what every alternative costs, summed over the run
  ExactStep level;        // the level round the next barrier ends (way, round), if any
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

// n pairs stage stores, made of the elements of producer (NULL: read from
// memory; offset: by the lower total applied to them) by as many
// applications of its function: packed or not.
static void count_packed(Ex *x, const Ir *stage, const Ir *producer, bool offset, int64_t n, int64_t applications) {
  if (!plan_packed_pair(stage, producer, offset)) return;
  x->now->packed_stores = add(x->now->packed_stores, n);
  x->now->packed_ops = add(x->now->packed_ops, applications);
}

// The applications of a map or prefix making n elements (a prefix's first
// is its first element, or the seed applied to it).
static int64_t applications(const Ir *stage, int64_t n, bool seeded) {
  return stage->kind == IR_PREFIX && !seeded && n > 0 ? n - 1 : n;
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

typedef struct {
  Ex *x;
  int mark;     // the stamp of the function's binders; mark + 1: collected
  PtrVec vars;  // the free variables found
} FreeVars;

static void mark_binder(Ir *e, void *free_vars) {
  FreeVars *f = free_vars;
  IrVar *binds[] = {e->kind == IR_LET ? e->var : NULL, e->x, e->y};
  for (int i = 0; i < 3; i++)
    if (binds[i]) f->x->stamp[binds[i]->id] = f->mark;
}

static void collect_free(Ir *e, void *free_vars) {
  FreeVars *f = free_vars;
  int *stamp = e->kind == IR_VAR ? &f->x->stamp[e->var->id] : NULL;
  if (stamp && *stamp != f->mark && *stamp != f->mark + 1) {
    *stamp = f->mark + 1;
    ptrvec_push(f->x->sh.arena, &f->vars, e->var);
  }
}

// The values of fn's free variables now, as one hash-consed shape.
static Shape *env_key(Ex *x, Ir *fn) {
  if (!x->nfree[fn->id]) {
    FreeVars f = {.x = x, .mark = 2 * fn->id + 1};  // a stamp distinct for every function
    x->stamp[fn->x->id] = f.mark;
    if (fn->y) x->stamp[fn->y->id] = f.mark;
    ir_visit(fn->body, mark_binder, &f);
    ir_visit(fn->body, collect_free, &f);
    x->free[fn->id] = (IrVar **)f.vars.data;
    x->nfree[fn->id] = f.vars.len + 1;
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
  int64_t n = w && len(w) < len(v) ? len(w) : len(v);  // (unequal: a branch that faults if taken)
  if (v->kind == SH_VEC && (!w || w->kind == SH_VEC)) {
    if (!n) return v;
    return shape_vec(&x->sh, sz_of(n), apply(x, f, env, v->a, w ? w->a : NULL, n));
  }
  if (!count_exits(x, f->loops_over[0], v, 0) && w) count_exits(x, f->loops_over[1], w, 0);
  Shape **out = arena_calloc(x->sh.arena, (size_t)n, sizeof *out);
  for (int64_t i = 0; i < n; i++) out[i] = apply(x, f, env, shape_elem(v, i), w ? shape_elem(w, i) : NULL, 1);
  return shape_vector(&x->sh, out, n);
}

// Size values are data in a vector too long to follow them (FOLLOW_MAX, by
// the whole vector's length n when v is a block of it).
static Shape *followable(Ex *x, Shape *v, int64_t n) { return n > FOLLOW_MAX ? shape_erase(&x->sh, v) : v; }

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

// The inclusive prefix of v whose first element is first; over equal
// elements that the operator keeps equal, the result is regular and
// counted, not followed.
static Shape *prefix_from(Ex *x, Ir *f, Shape *env, Shape *first, Shape *v) {
  int64_t n = len(v);
  Shape *acc = first, **out = NULL;
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

static Shape *prefix_vec(Ex *x, Ir *f, Shape *env, Shape *v) {
  return len(v) ? prefix_from(x, f, env, shape_elem(v, 0), v) : v;
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

// dh's operators: f is the skeleton's body, g its second operator.
static Ir *dh_op(Ir *dh, bool upper) { return upper ? dh->c : dh; }

// x op y for the elements of own and theirs (op f: own op theirs; g:
// theirs op own, the lower index first), one application per element.
static Shape *dh_combine(Ex *x, Ir *dh, bool upper, Shape *own, Shape *theirs) {
  Ir *op = dh_op(dh, upper);
  Shape *env = env_key(x, op);
  int64_t n = len(own);
  if (own->kind == SH_VEC && theirs->kind == SH_VEC && n) {
    Shape *r = apply(x, op, env, upper ? theirs->a : own->a, upper ? own->a : theirs->a, n);
    return shape_vec(&x->sh, own->n, r);
  }
  Shape **out = arena_calloc(x->sh.arena, (size_t)n + 1, sizeof *out);
  for (int64_t i = 0; i < n; i++)
    out[i] = apply(x, op, env, shape_elem(upper ? theirs : own, i), shape_elem(upper ? own : theirs, i), 1);
  return shape_vector(&x->sh, out, n);
}

// dh's stages on a vector of its own, in place: each pair of elements (i,
// i + d) read and written; over one element shape that f and g keep, one
// application of each counted for all pairs.
static Shape *dh_stages(Ex *x, Ir *dh, Shape *v) {
  int64_t n = len(v);
  Shape *ef = env_key(x, dh), *eg = env_key(x, dh->c);
  for (int64_t d = 1; d < n; d *= 2) {
    x->now->elems = add(x->now->elems, n / 2);
    x->now->loads = add(x->now->loads, array_words(dh->ty, n));
    x->now->stores = add(x->now->stores, array_words(dh->ty, n));
    Shape *rf = NULL, *rg = NULL, **out = arena_calloc(x->sh.arena, (size_t)n + 1, sizeof *out);
    if (v->kind == SH_VEC) {  // every pair alike
      rf = apply(x, dh, ef, v->a, v->a, n / 2), rg = apply(x, dh->c, eg, v->a, v->a, n / 2);
      if (rf == v->a && rg == v->a) continue;
    }
    for (int64_t i = 0; i < n; i++) {
      if (i & d) continue;
      out[i] = rf ? rf : apply(x, dh, ef, shape_elem(v, i), shape_elem(v, i + d), 1);
      out[i + d] = rg ? rg : apply(x, dh->c, eg, shape_elem(v, i), shape_elem(v, i + d), 1);
    }
    v = shape_vector(&x->sh, out, n);
  }
  return v;
}

// dh on one process: a copy of its own, then its stages.
static Shape *dh_alone(Ex *x, Ir *dh, Shape *v) {
  x->now->loads = add(x->now->loads, array_words(dh->ty, len(v)));
  x->now->stores = add(x->now->stores, array_words(dh->ty, len(v)));
  return dh_stages(x, dh, v);
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
  x->now->selects += e->op == OP_MAX || e->op == OP_MIN;
  if (e->lazy && known(a) && (a->n.k != 0) == (e->op == OP_OR)) return a;
  Shape *b = ev(x, e->b);
  if (e->op == OP_DIV || e->op == OP_MOD) {  // as the C compiler divides (plan_division)
    Division d = plan_division(e);
    x->now->divs += d == DIVIDE;
    if (d == DIVIDE_BY_SHIFTS) x->now->shift_ops += plan_shift_extra(e);
    x->now->literal_divs += d == DIVIDE_BY_RECIPROCAL;
    x->now->float_divs += d == FLOAT_DIVIDE;
  }
  // gcc turns a multiplication by a literal into shifts and adds; a float
  // multiplication takes one of the two floating-point units, not the one
  // integer multiplier that muls count the turns of.
  x->now->muls += e->op == OP_MUL && e->a->ty->kind == T_INT && !plan_int_literal(e->a) && !plan_int_literal(e->b);
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
  x->now->selects++;  // its condition counts the compare
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
static Shape *iter(Ex *x, Ir *e) {
  Shape *acc = ev(x, e->a);
  int64_t k = ev(x, e->b)->n.k;
  if (k < 0) k = 0;  // a branch that faults if taken
  x->now->elems += k;
  count_carried(x->now, e->carried, k);
  Shape *env = env_key(x, e);
  for (int64_t i = 0; i < k; i++) {  // over a pair (lower.c, pair_iter): its components are the variables
    Shape *r = apply(x, e, env, e->y ? acc->a : acc, e->y ? acc->b : NULL, 1);
    if (r == acc) {
      apply(x, e, env, e->y ? acc->a : acc, e->y ? acc->b : NULL, k - 1 - i);
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
    if (!e->in_place) {
      c->stores += result;
      count_packed(x, e, e->a->fused ? e->a : NULL, false, len(a), applications(e, len(a), false));
    } else if (result > x->accumulator) x->accumulator = result;
  }
  count_carried(c, e->carried, len(a) - (e->kind == IR_FOLD || e->kind == IR_PREFIX));
  if (!e->fused) c->elems += len(a);  // a fused generator's elements are its consumer's iterations
  switch (e->kind) {
  case IR_MAP: return map_vec(x, e, env_key(x, e), a, NULL);
  case IR_PAIR_MAP: return map_vec(x, e, env_key(x, e), a, b);
  case IR_FOLD:
    a = followable(x, a, len(a));
    if (!len(a)) return shape_unit(&x->sh);
    first_element(x, e, shape_elem(a, 0));
    return fold_vec(x, e, env_key(x, e), shape_elem(a, 0), a, 1);
  case IR_PREFIX: return prefix_vec(x, e, env_key(x, e), followable(x, a, len(a)));
  case IR_DH: return dh_stages(x, e, a);  // on the copy counted above
  default: return segments(x, e->kind == IR_INITS, a, 0, len(a));  // IR_INITS, IR_TAILS
  }
}

// A vector literal: its elements evaluated and stored, unless they are
// literals, which are static data (plan_static_literal).
static Shape *vector_literal(Ex *x, Ir *e) {
  Shape **elems = arena_calloc(x->sh.arena, (size_t)e->nelems + 1, sizeof *elems);
  bool made = !plan_static_literal(e);
  Counts none;
  Counts *saved = made ? NULL : tally(x, &none);
  for (int i = 0; i < e->nelems; i++) elems[i] = ev(x, e->elems[i]);
  if (made) x->now->stores += array_words(e->ty, e->nelems);
  else untally(x, saved, &none, 0);
  return shape_vector(&x->sh, elems, e->nelems);
}

// entry v i: a known index picks its element; any other is data.
static Shape *entry(Ex *x, Ir *e) {
  Shape *v = ev(x, e->a), *i = ev(x, e->b);
  x->now->loads += slot(e->ty);
  if (known(i) && i->n.k >= 0 && i->n.k < len(v)) return shape_elem(v, i->n.k);
  return len(v) ? shape_erase(&x->sh, shape_elem(v, 0)) : shape_unit(&x->sh);
}

// The merge loop's carried dependency: each step's indices wait for the
// comparison of the elements they chose (a compare and a select, and an add).
static const int merge_chain[LAT_CLASSES] = {[LAT_FAST] = 1, [LAT_SELECT] = 1};

// One loop over the n elements of e's result (merge, neighbours, reverse),
// reading its operand's elements and writing its own.
static void rearranging_loop(Ex *x, Ir *e, int64_t n) {
  x->now->elems = add(x->now->elems, n);
  x->now->loads = add(x->now->loads, array_words(e->c ? e->c->ty : e->a->ty, n));
  x->now->stores = add(x->now->stores, array_words(e->ty, n));
}

// neighbours e of v with l and r past its ends (sequential, or a block's
// with the elements received at its ends).
static Shape *neighbours_of(Ex *x, Ir *e, Shape *l, Shape *r, Shape *v) {
  Shape *t = shape_neighbours(&x->sh, l, r, v);
  rearranging_loop(x, e, len(t));
  return t;
}

// split, merge, neighbours, reverse: one loop over the result, reading and
// writing its elements (split writes a descriptor per sublist: views).
static Shape *rearranged(Ex *x, Ir *e) {
  Shape *a = ev(x, e->a), *b = e->b ? ev(x, e->b) : NULL, *r;
  int64_t n;
  switch (e->kind) {
  case IR_SPLIT:  // k < 1: a branch that faults if taken
    r = a->n.k < 1 ? shape_vec(&x->sh, sz_of(0), shape_unit(&x->sh)) : shape_split(&x->sh, b, a->n.k);
    x->now->elems = add(x->now->elems, len(r));
    x->now->stores = add(x->now->stores, 2 * len(r));
    return r;
  case IR_MERGE:
    n = len(a) + len(b);
    if (len(a) && len(b)) x->now->ops = add(x->now->ops, n);
    count_carried(x->now, merge_chain, n);
    r = shape_vec(&x->sh, sz_of(n), shape_unit(&x->sh));
    break;
  case IR_NEIGHBOURS: return neighbours_of(x, e, a, b, ev(x, e->c));
  default: r = shape_reverse(&x->sh, a); break;  // IR_REVERSE
  }
  rearranging_loop(x, e, len(r));
  return r;
}

// Sequential evaluation on one process: everything but the top level's
// regions (top-level nodes computed already are taken as they are).
static Shape *ev(Ex *x, Ir *e) {
  if (x->pre[e->id]) return x->pre[e->id];
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
    // Each row's descriptor is read. Rows of a regular shape (a matrix's)
    // count as lying one after the other (only the running code can see
    // whether they do) and their concatenation is a view of them; others
    // are copied, a memcpy a row (cg_redconcat).
    Shape *v = ev(x, e->a), *r = redconcat(x, v);
    x->now->elems += len(v);
    x->now->loads += 2 * len(v);
    if (v->kind != SH_VEC || v->a->kind != SH_VEC) {
      x->now->loads += array_words(e->ty, len(r));
      x->now->stores += array_words(e->ty, len(r));
      x->now->copies += len(v);
    }
    return r;
  }
  case IR_DUMMYVEC: {
    int64_t n = ev(x, e->a)->n.k;
    Shape *elem = shape_erase(&x->sh, ev(x, e->b));
    x->now->stores += array_words(e->ty, n > 0 ? n : 0);
    return shape_vec(&x->sh, sz_of(n > 0 ? n : 0), elem);
  }
  case IR_ITER: return iter(x, e);
  case IR_IOTA: {
    int64_t n = ev(x, e->a)->n.k;
    n = n > 0 ? n : 0;  // negative: a branch that faults if taken
    x->now->elems = add(x->now->elems, n);
    x->now->stores = add(x->now->stores, n);
    return shape_vec(&x->sh, sz_of(n), shape_unit(&x->sh));
  }
  case IR_SPLIT: case IR_MERGE: case IR_NEIGHBOURS: case IR_REVERSE: return rearranged(x, e);
  default:
    if (e->mode == MODE_TOP) error_at(e->pos, "internal error: a parallel application in sequential code");
    return local_skeleton(x, e);
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

// An exchange by pattern xch in the open superstep (ExactCollective).
static void collective(Ex *x, Exchange xch, int round, double words) {
  if (x->p == 1) return;
  if (x->ncoll == x->capcoll) {
    x->capcoll = x->capcoll ? 2 * x->capcoll : 8;
    ExactCollective *grown = arena_calloc(x->sh.arena, (size_t)x->capcoll, sizeof *grown);
    if (x->ncoll) memcpy(grown, x->coll, (size_t)x->ncoll * sizeof *grown);
    x->coll = grown;
  }
  x->coll[x->ncoll++] = (ExactCollective){xch, round, words};
}

static ExactCollective *copy_collectives(Ex *x) {
  if (!x->ncoll) return NULL;
  ExactCollective *c = arena_calloc(x->sh.arena, (size_t)x->ncoll, sizeof *c);
  memcpy(c, x->coll, (size_t)x->ncoll * sizeof *c);
  return c;
}

static int64_t *copy_words(Ex *x, int64_t *w) {
  int64_t *c = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *c);
  memcpy(c, w, (size_t)x->p * sizeof *c);
  return c;
}

// A barrier: the open superstep's counts and words become a step.
static void barrier(Ex *x, Pos where, const char *what) {
  ExactStep s = {.where = where, .what = what, .collectives = copy_collectives(x), .ncollectives = x->ncoll,
                 .way = x->level.way, .round = x->level.round};
  x->ncoll = 0;
  x->level = (ExactStep){0};
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

// A region's barrier after one of its stages.
static void stage_barrier(Ex *x, Ir *stage, const char *what) {
  barrier(x, stage->pos, arena_printf(x->sh.arena, "%s: %s", builtin_name(ir_builtin(stage->kind)), what));
}

// The end of a round of a level pattern: its groups' synchronisation (a
// scatter's, down, needs none).
static void level_barrier(Ex *x, Pos where, const char *what, int round, LevelWay way) {
  x->level = (ExactStep){.way = way, .round = round};
  barrier(x, where, arena_printf(x->sh.arena, "%s, level round %d", what, round + 1));
}

static bool is_level_pattern(Exchange xch) {
  switch (xch) {
  case XCH_LEVEL_SCATTER: case XCH_LEVEL_BCAST: case XCH_LEVEL_GATHER: case XCH_LEVEL_PARTIALS: case XCH_LEVEL_TOTALS:
    return true;
  default: return false;
  }
}

// Does process `from` send `to` a message by pattern xch (a level pattern:
// up, in that round)?
static bool sends(Ex *x, Exchange xch, int64_t n, int from, int to, int round) {
  if (!is_level_pattern(xch)) return range_sends(xch, n, x->p, from, to, round);
  return range_level_sends(xch, false, x->pl->levels.lead, n, x->p, from, to, round);
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

// The words of a whole value of type t in a message.
static double value_words(Ex *x, Type *t, Shape *v) {
  return t->kind == T_VEC ? shape_message_words(&x->sh, v, 0, len(v)) : shape_value_words(&x->sh, v);
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

static double *costs_save(Ex *x);
static void costs_repeat(Ex *x, const double *saved, int64_t times);

static Mark mark(Ex *x) {
  Mark m = {x->closed, x->nsteps, x->W, x->H, arena_calloc(x->sh.arena, (size_t)x->p, sizeof *m.open), costs_save(x)};
  memcpy(m.open, x->open, (size_t)x->p * sizeof *m.open);
  return m;
}

// What happened since m happens times more: the iterations of a top-level
// iter in its steady state. Only the open work grows, or the supersteps
// closed since m are listed again (the open state stays).
static void repeat(Ex *x, Mark m, int64_t times) {
  costs_repeat(x, m.costs, times);
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

//
// Layouts (src/ir/layout.c): conversions between them, and sequential
// parts on process 0 or on every process.
//

// Counts c on the processes where a value in layout `at` is computed.
static void count_where(Ex *x, Layout at, const Counts *c) {
  for (int k = 0; k < (at == LAY_ROOT ? 1 : x->p); k++) counts_add(&x->open[k], c, 1);
}

// Sends the messages converting v (type t) by pattern xch.
static void conversion_send(Ex *x, Type *t, Shape *v, Exchange xch, bool in_place) {
  int64_t n = t->kind == T_VEC ? len(v) : 1;
  collective(x, xch, 0, value_words(x, t, v));
  for (int from = 0; from < x->p; from++)
    for (int to = 0; to < x->p; to++) {
      if (!range_sends(xch, n, x->p, from, to, 0)) continue;
      int64_t lo, hi;
      range_exchange(xch, n, x->p, from, to, 0, &lo, &hi);
      if (xch == XCH_BCAST) value_message(x, from, to, t, v, in_place);
      else block_message(x, from, to, t, slice(x, v, lo, hi), in_place || xch != XCH_SCATTER ? in_place : false);
    }
}

// Round `round` of a scatter or broadcast of v (type t) down the levels:
// each lead sends each child its group's block, or the whole value.
static void level_send(Ex *x, Type *t, Shape *v, Exchange xch, int round, bool in_place) {
  int64_t n = t->kind == T_VEC ? len(v) : 1;
  const int *lead = x->pl->levels.lead;
  for (int to = 0; to < x->p; to++) {
    int from = range_level_lead(lead, x->p, round, to);
    if (!range_level_sends(xch, true, lead, n, x->p, from, to, round)) continue;
    int64_t lo, hi;
    range_level_exchange(xch, true, lead, n, x->p, from, to, round, &lo, &hi);
    if (xch == XCH_LEVEL_BCAST) value_message(x, from, to, t, v, in_place);
    else block_message(x, from, to, t, slice(x, v, lo, hi), in_place);
  }
}

// A scatter or broadcast down the levels, from the top round to round 0.
static void level_conversion(Ex *x, Type *t, Pos pos, Shape *v, Exchange xch, bool in_place, const char *what) {
  for (int round = x->pl->levels.rounds - 1; round >= 0; round--) {
    level_send(x, t, v, xch, round, in_place);
    level_barrier(x, pos, what, round, LEVEL_DOWN);
  }
}

// After the barrier: a gather copies each process's own block in.
static void conversion_receive(Ex *x, Type *t, Shape *v, Exchange xch) {
  if (xch != XCH_GATHER && xch != XCH_ALLGATHER) return;
  for (int k = 0; k < (xch == XCH_GATHER ? 1 : x->p); k++) {
    int64_t own = array_words(t, range_lo(len(v), x->p, k + 1) - range_lo(len(v), x->p, k));
    x->open[k].loads = add(x->open[k].loads, own);
    x->open[k].stores = add(x->open[k].stores, own);
  }
}

// v converted on its own, as a consumer needs it: one superstep when
// something is sent (down the levels: one a round).
static void convert_value(Ex *x, Type *t, Pos pos, Shape *v, Layout from, Layout to, bool levels) {
  Exchange xch = plan_conversion_by(from, to, levels);
  if (xch == XCH_COUNT || x->p == 1) return;
  if (is_level_pattern(xch)) {
    level_conversion(x, t, pos, v, xch, false, arena_printf(x->sh.arena, "%s to %s", plan_layout_name(from), plan_layout_name(to)));
    return;
  }
  conversion_send(x, t, v, xch, false);
  barrier(x, pos, arena_printf(x->sh.arena, "%s to %s", plan_layout_name(from), plan_layout_name(to)));
  conversion_receive(x, t, v, xch);
}

static void convert(Ex *x, Ir *e, Shape *v, Layout from, Layout to) { convert_value(x, e->ty, e->pos, v, from, to, false); }

static Shape *top(Ex *x, Ir *e);
static void cost_conversions(Ex *x, Type *t, Pos pos, Shape *v, LayoutCosts *into);

// e's value where its consumer reads it (planning: what every conversion
// of it would cost, too).
static Shape *deliver(Ex *x, Ir *e) {
  Shape *v = top(x, e);
  if (x->costs) cost_conversions(x, e->ty, e->pos, v, &x->costs->conv[e->id]);
  convert(x, e, v, x->pl->have[e->id], x->pl->need[e->id]);
  return v;
}

// e's own computation, its operands computed already (x->pre), where its
// value lives.
static Shape *placed(Ex *x, Ir *e, Layout at) {
  Counts c;
  Counts *saved = tally(x, &c);
  Shape *v = ev(x, e);
  x->now = saved;
  count_where(x, at, &c);
  return v;
}

// Converts the top-level references of a part that runs elsewhere.
static void deliver_references(Ex *x, Ir *e) {
  if (e->kind == IR_VAR || e->kind == IR_INPUT) {
    Layout from = x->pl->have[e->id], to = x->pl->need[e->id];
    bool top_level = e->kind == IR_INPUT || x->pl->var[e->var->id] != LAY_NONE;
    if (top_level && x->costs) cost_conversions(x, e->ty, e->pos, ev(x, e), &x->costs->conv[e->id]);
    if (top_level && to != LAY_NONE && from != to) convert(x, e, ev(x, e), from, to);
    return;
  }
  Ir *kids[ir_max_kids(e)];
  int n = ir_kids(e, kids);
  for (int i = 0; i < n; i++) deliver_references(x, kids[i]);
}

static Shape *part(Ex *x, Ir *e) {
  if (e->kind == IR_VAR || e->kind == IR_INPUT) return ev(x, e);
  deliver_references(x, e);
  return placed(x, e, x->pl->have[e->id]);
}

//
// Regions, step by step (src/ir/steps.c), as region.c runs them.
//

// A region running: each working process's block (alone: the whole, on
// process 0 or on all) and what its steps leave for the next.
typedef struct Run {
  Region *r;
  const RegionChoice *c;
  int procs;            // processes working: 1 (alone on process 0) or p
  bool alone;
  int64_t n;            // the argument's length
  Shape **blk, **blk2;  // by process: its block (of pair_map's second vector too)
  Shape **operand;      // by stage: c_prod's operand
  Shape **env;          // by stage: its function's free variables
  Shape **partial;      // by process: a fold's partial result (NULL: none)
  Shape ***scan;        // by stage, by process: the stored local prefix
  Shape ***total;       // by stage, by process: the block total (NULL: none)
  Shape ***offset;      // by stage, by process: the lower blocks' total (NULL: none)
  bool placed;          // the last pass stored the result block in the gathered result
} Run;

// Counting on process k.
static void on(Ex *x, int k) { x->now = &x->open[k]; }

static Type *elem_type(Ir *stage) { return stage->kind == IR_FOLD ? stage->ty : stage->ty->a; }

// A prefix run again from the lower blocks' total (when there is one).
// Followed element by element, mss (5) at n = 8·10^6 took 0.6 s to cost.
static Shape *prefix_seeded(Ex *x, Ir *f, Shape *env, Shape *seed, Shape *v) {
  if (!seed || !len(v)) return prefix_vec(x, f, env, v);
  return prefix_from(x, f, env, apply(x, f, env, seed, shape_elem(v, 0), 1), v);
}

// The elements of a pass's last generator on process k, made stage by
// stage from its source; counts the source's loads.
static Shape *pass_elements(Ex *x, Run *u, const Step *s, int last, int k) {
  Region *r = u->r;
  int st = s->from;
  Shape *cur;
  if (s->src == SRC_OFFSET) {  // the stored local prefix, the lower total applied
    cur = u->scan[st][k];
    x->now->loads = add(x->now->loads, mul(slot(r->stages[st]->ty->a), len(cur)));
    if (u->offset[st][k]) cur = map_vec(x, r->stages[st], u->env[st], shape_vec(&x->sh, cur->n, u->offset[st][k]), cur);
    st++;
  } else {
    cur = u->blk[k];
    Type *t = st == 0 && s->src == SRC_BLOCK ? (r->first->kind == IR_PAIR_MAP ? r->first->a->ty : plan_chain_arg(r->first)->ty)
                                              : r->stages[st - 1 >= 0 ? st - 1 : 0]->ty;
    x->now->loads = add(x->now->loads, array_words(t, len(cur)));
    if (st == 0 && r->first->kind == IR_PAIR_MAP) x->now->loads = add(x->now->loads, array_words(r->first->b->ty, len(u->blk2[k])));
  }
  for (; st <= last; st++) {
    Ir *g = r->stages[st];
    if (g->kind == IR_PREFIX) cur = prefix_seeded(x, g, u->env[st], (s->seeded >> st & 1) ? u->offset[st][k] : NULL, followable(x, cur, u->n));
    else cur = map_vec(x, g, u->env[st], cur, g->kind == IR_PAIR_MAP ? u->blk2[k] : NULL);
  }
  return cur;
}

// The pairs a pass's sink stores on process k, n of them, packed or not:
// made by the sink's function from the stage before it in the pass, or
// from memory; or, in a prefix's second pass, by the lower blocks' total
// applied to its stored local prefix (on every process but the first).
static void count_pass_packed(Ex *x, const Run *u, const Step *s, int k, int64_t n) {
  const Region *r = u->r;
  const Ir *sink = r->stages[s->to];
  if (s->src == SRC_OFFSET && s->to == s->from) {
    count_packed(x, sink, NULL, true, n, u->offset[s->to][k] ? n : 0);
    return;
  }
  const Ir *producer = s->to > s->from ? r->stages[s->to - 1] : NULL;
  bool seeded = (s->seeded >> s->to & 1) && u->offset[s->to][k];
  count_packed(x, sink, producer, false, n, applications(sink, n, seeded));
}

// A pass on process k: its loop over the block, its generators and its sink.
static void run_pass(Ex *x, Run *u, const Step *s, const Step *next, int k) {
  Region *r = u->r;
  Ir *sink = r->stages[s->to];
  on(x, k);
  int64_t n = len(u->blk[k]);
  if (s->src == SRC_OFFSET) n = len(u->scan[s->from][k]);
  int carried[LAT_CLASSES];
  plan_pass_carried(r, s, carried);
  // The loops' trips: with lanes, a quarter of the steps and the lanes' first elements.
  int64_t trips = range_laned(s->lanes, n) ? (n - 1) / s->lanes + s->lanes : n;
  x->now->elems = add(x->now->elems, trips);
  count_carried(x->now, carried, trips - 1);
  Shape *cur = pass_elements(x, u, s, s->sink == SINK_STORE ? s->to : s->to - 1, k);
  Shape *env = u->env[s->to];
  switch (s->sink) {
  case SINK_STORE:
    x->now->stores = add(x->now->stores, array_words(sink->ty, len(cur)));
    count_pass_packed(x, u, s, k, len(cur));
    u->blk[k] = cur;
    u->placed = next && next->kind == STEP_GATHER;
    return;
  case SINK_CPROD:
    x->now->loads = add(x->now->loads, mul(len(cur), array_words(sink->a->ty, len(u->operand[s->to]))));
    x->now->stores = add(x->now->stores, mul(len(cur), add(2, array_words(sink->ty->a, len(u->operand[s->to])))));
    u->blk[k] = c_prod_vec(x, sink, env, u->operand[s->to], cur);
    u->placed = false;
    return;
  case SINK_SCAN:
    cur = prefix_vec(x, sink, env, followable(x, cur, u->n));
    x->now->stores = add(x->now->stores, mul(slot(sink->ty->a), len(cur)));
    count_pass_packed(x, u, s, k, len(cur));
    u->scan[s->to][k] = cur;
    u->total[s->to][k] = len(cur) ? shape_elem(cur, len(cur) - 1) : NULL;
    return;
  case SINK_FOLD: case SINK_REDUCE: {
    cur = followable(x, cur, u->n);
    Shape *acc = NULL;
    if (len(cur)) {
      first_element(x, sink, shape_elem(cur, 0));
      acc = fold_vec(x, sink, env, shape_elem(cur, 0), cur, 1);
    }
    if (s->sink == SINK_FOLD) u->partial[k] = acc;
    else u->total[s->to][k] = acc;
    return;
  }
  }
}

// A step of a fold at process 0 on a received partial: its body reads the
// partial from the message's vector and stores a new result, whatever it
// does in the fold's loop (plan.c, "Folds of vectors").
static Shape *combine(Ex *x, Ir *e, Shape *env, Shape *acc, Shape *part) {
  Counts c;
  Counts *saved = tally(x, &c);
  Shape *r = apply(x, e, env, acc, part, 1);
  if (e->kind == IR_FOLD && e->fuses_element) c.loads += array_words(e->ty, len(part));
  if (e->kind == IR_FOLD && e->body->in_place) {
    int64_t words = array_words(e->ty, len(part));
    c.acc_loads -= words, c.loads += words, c.stores += words;
  }
  untally(x, saved, &c, 1);
  return r;
}

// Combines into acc the values from the processes q in [from, to) that x
// sends process k, in order.
static Shape *combine_received(Ex *x, Run *u, Ir *stage, Exchange xch, int round, Shape **value, int k, int from, int to,
                               Shape *acc) {
  for (int q = from; q < to; q++) {
    if (!sends(x, xch, u->n, q, k, round)) continue;
    if (acc) x->now->elems++;
    acc = acc ? combine(x, stage, u->env[stage->stage], acc, value[q]) : value[q];
  }
  return acc;
}

static void send_values(Ex *x, Run *u, Ir *stage, Exchange xch, int round, Shape **value) {
  double all = 0, largest = 0;
  bool sent = false;
  for (int from = 0; from < x->p; from++) {
    if (!value[from]) continue;
    double words = value_words(x, elem_type(stage), value[from]);
    all += words;
    for (int to = 0; to < x->p; to++)
      if (sends(x, xch, u->n, from, to, round)) {
        value_message(x, from, to, elem_type(stage), value[from], false);
        sent = true;
        if (words > largest) largest = words;
      }
  }
  if (sent) collective(x, xch, round, xch == XCH_TREE ? largest : all);
}

// A fold's tree: in each round what a process holds goes down and is
// combined after the receiver's own.
static void tree_rounds(Ex *x, Run *u, Ir *stage) {
  for (int round = 0; round < range_tree_rounds(x->p); round++) {
    send_values(x, u, stage, XCH_TREE, round, u->partial);
    stage_barrier(x, stage, arena_printf(x->sh.arena, "tree round %d", round + 1));
    Shape **before = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *before);
    memcpy(before, u->partial, (size_t)x->p * sizeof *before);
    for (int k = 0; k < x->p; k++) {
      on(x, k);
      u->partial[k] = combine_received(x, u, stage, XCH_TREE, round, before, k, 0, x->p, before[k]);
    }
  }
}

// Values up the levels: in each round every child sends its lead the value
// of its group (a fold's partial, a prefix's total), which the lead
// combines after its own, in process order; at the top round only when
// combine_top. Each round's values are kept in by_round (when given).
static void level_rounds(Ex *x, Run *u, Ir *stage, Exchange xch, Shape **value, bool combine_top, Shape ***by_round) {
  const int *lead = x->pl->levels.lead;
  for (int round = 0; round < x->pl->levels.rounds; round++) {
    send_values(x, u, stage, xch, round, value);
    level_barrier(x, stage->pos, arena_printf(x->sh.arena, "%s: %s", builtin_name(ir_builtin(stage->kind)),
                                              xch == XCH_LEVEL_TOTALS ? "block totals up" : "partial results"),
                  round, LEVEL_UP);
    Shape **before = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *before);
    memcpy(before, value, (size_t)x->p * sizeof *before);
    bool top = round == x->pl->levels.rounds - 1;
    for (int k = 0; k < x->p && (combine_top || !top); k++) {
      if (range_level_lead(lead, x->p, round, k) != k) continue;
      on(x, k);
      value[k] = combine_received(x, u, stage, xch, round, before, k, k + 1, x->p, before[k]);
    }
    if (by_round) {
      by_round[round] = arena_calloc(x->sh.arena, (size_t)x->p, sizeof **by_round);
      memcpy(by_round[round], value, (size_t)x->p * sizeof *value);
    }
  }
}

// A prefix's totals by levels: up as a fold's partials, the groups' totals
// kept round by round; then down, each lead sends each child with elements
// the total before the child's group: its own offset combined with the
// totals of the groups before (docs/hierarchical.md, "Plans that follow the
// levels").
static void level_prefix(Ex *x, Run *u, Ir *stage) {
  const int *lead = x->pl->levels.lead;
  int rounds = x->pl->levels.rounds, st = stage->stage;
  Shape **value = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *value);
  memcpy(value, u->total[st], (size_t)x->p * sizeof *value);
  Shape ***total = arena_calloc(x->sh.arena, (size_t)rounds + 1, sizeof *total);
  level_rounds(x, u, stage, XCH_LEVEL_TOTALS, value, false, total);
  Shape **offset = u->offset[st];
  for (int round = rounds - 1; round >= 0; round--) {
    for (int k = 0; k < x->p; k++) {
      if (range_level_lead(lead, x->p, round, k) != k) continue;
      on(x, k);
      Shape *acc = offset[k];
      int end = range_level_end(lead, x->p, round, k);
      for (int prev = k, c = range_level_end(lead, x->p, round - 1, k); c < end; prev = c, c = range_level_end(lead, x->p, round - 1, c)) {
        Shape *t = round ? total[round - 1][prev] : u->total[st][prev];
        if (t && acc) x->now->elems++;
        if (t) acc = acc ? combine(x, stage, u->env[st], acc, t) : t;
        if (!acc || !range_level_sends(XCH_LEVEL_TOTALS, true, lead, u->n, x->p, k, c, round)) continue;
        value_message(x, k, c, elem_type(stage), acc, false);
        offset[c] = acc;
      }
    }
    level_barrier(x, stage->pos, arena_printf(x->sh.arena, "%s: block totals down", builtin_name(ir_builtin(stage->kind))),
                  round, LEVEL_DOWN);
  }
}

static void run_exchange(Ex *x, Run *u, const Step *s) {
  Ir *stage = u->r->stages[s->to];
  switch (s->xch) {
  case XCH_TOTALS:
    send_values(x, u, stage, s->xch, 0, u->total[s->to]);
    stage_barrier(x, stage, "block totals");
    return;
  case XCH_TREE: tree_rounds(x, u, stage); return;
  case XCH_LEVEL_PARTIALS: level_rounds(x, u, stage, s->xch, u->partial, true, NULL); return;
  case XCH_LEVEL_TOTALS: level_prefix(x, u, stage); return;
  case XCH_INITS: case XCH_TAILS: {
    Shape *all = NULL;  // the whole argument, to slice the parts sent
    Shape **parts = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *parts);
    for (int k = 0; k < x->p; k++) parts[k] = u->blk[k];
    (void)all;
    double words = 0;
    for (int k = 0; k < x->p; k++) words += shape_message_words(&x->sh, parts[k], 0, len(parts[k]));
    collective(x, s->xch, 0, words);
    for (int from = 0; from < x->p; from++)
      for (int to = 0; to < x->p; to++) {
        int64_t lo, hi;
        range_exchange(s->xch, u->n, x->p, from, to, 0, &lo, &hi);
        if (lo >= hi) continue;
        int64_t base = range_lo(u->n, x->p, from);
        Shape *part = slice(x, parts[from], lo - base, hi - base);
        send_words(x, from, to, shape_message_words(&x->sh, part, 0, len(part)), packed(stage->a->ty, part), false);
      }
    stage_barrier(x, stage, "exchange");
    return;
  }
  default:  // a fold's partials
    send_values(x, u, stage, s->xch, 0, u->partial);
    stage_barrier(x, stage, "partial results");
    return;
  }
}

static void run_combine(Ex *x, Run *u, const Step *s) {
  Ir *stage = u->r->stages[s->to];
  switch (s->xch) {
  case XCH_TOTALS:
    for (int k = 0; k < x->p; k++) {
      on(x, k);
      u->offset[s->to][k] = combine_received(x, u, stage, s->xch, 0, u->total[s->to], k, 0, k, NULL);
    }
    return;
  case XCH_PARTIALS:
    on(x, 0);
    u->partial[0] = combine_received(x, u, stage, s->xch, 0, u->partial, 0, 1, x->p, u->partial[0]);
    return;
  case XCH_ALLREDUCE: {
    Shape **parts = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *parts);
    memcpy(parts, u->partial, (size_t)x->p * sizeof *parts);
    for (int k = 0; k < x->p; k++) {
      on(x, k);
      Shape *acc = combine_received(x, u, stage, s->xch, 0, parts, k, 0, k, NULL);
      if (parts[k]) {
        if (acc) x->now->elems++;
        acc = acc ? combine(x, stage, u->env[s->to], acc, parts[k]) : parts[k];
      }
      u->partial[k] = combine_received(x, u, stage, s->xch, 0, parts, k, k + 1, x->p, acc);
    }
    return;
  }
  default: return;  // the tree combines in its rounds
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
    for (int64_t i = 0; i < len(blk[k]); i++) elems[range_lo(n, x->p, k) + i] = shape_elem(blk[k], i);
  return shape_vector(&x->sh, elems, n);
}

// inits/tails: each process's segments, views of its own part (copied next
// to the parts received) and of those. Alone: of the whole vector.
static void run_segments(Ex *x, Run *u, const Step *s) {
  Ir *stage = u->r->stages[s->to];
  bool inits = stage->kind == IR_INITS;
  if (u->alone) {
    for (int k = 0; k < u->procs; k++) {
      on(x, k);
      x->now->stores = add(x->now->stores, 2 * len(u->blk[k]));
      u->blk[k] = segments(x, inits, u->blk[k], 0, len(u->blk[k]));
    }
    return;
  }
  Shape *all = joined(x, u->blk, u->n);
  for (int k = 0; k < x->p; k++) {
    int64_t lo = range_lo(u->n, x->p, k), hi = range_lo(u->n, x->p, k + 1), base = inits ? 0 : u->n - hi;
    int64_t own = array_words(stage->a->ty, hi - (lo > base ? lo : base));
    x->open[k].loads += own;  // its own part, copied next to the received ones
    x->open[k].stores += own + 2 * (hi - lo);
    u->blk[k] = segments(x, inits, all, lo, hi);
  }
  u->placed = false;
}

// The result's blocks to process 0 (or to all): copied into the result.
static void run_gather(Ex *x, Run *u, const Step *s) {
  Type *t = u->r->root->ty;
  double words = 0;
  for (int k = 0; k < x->p; k++) words += shape_message_words(&x->sh, u->blk[k], 0, len(u->blk[k]));
  collective(x, s->xch, 0, words);
  for (int from = 0; from < x->p; from++)
    for (int to = 0; to < x->p; to++)
      if (range_sends(s->xch, u->n, x->p, from, to, 0)) block_message(x, from, to, t, u->blk[from], false);
  stage_barrier(x, u->r->root, "gather");
  if (u->placed) return;
  for (int k = 0; k < (s->xch == XCH_GATHER ? 1 : x->p); k++) {  // this process's part copied in
    int64_t own = array_words(t, len(u->blk[k]));
    x->open[k].loads += own;
    x->open[k].stores += own;
  }
}

// dh on the blocks, as region.c runs it: each process's copy and local
// stages, then the rounds with its partner (ranges.h, XCH_BUTTERFLY); where
// the blocks do not align, gathered to process 0, dh there, scattered back.
// Alone: on the whole vector.
static void run_butterfly(Ex *x, Run *u, const Step *s) {
  Ir *dh = u->r->stages[s->to];
  Type *t = dh->ty;
  u->placed = false;
  if (u->alone || !range_butterfly(u->n, x->p)) {
    Shape *all = u->alone ? u->blk[0] : joined(x, u->blk, u->n);
    if (!u->alone) {
      for (int k = 0; k < x->p; k++) {  // the copy each process makes first
        on(x, k);
        x->now->loads = add(x->now->loads, array_words(t, len(u->blk[k])));
        x->now->stores = add(x->now->stores, array_words(t, len(u->blk[k])));
      }
      conversion_send(x, t, all, XCH_GATHER, false);
      stage_barrier(x, dh, "the blocks to process 0");
      conversion_receive(x, t, all, XCH_GATHER);
    }
    for (int k = 0; k < (u->alone ? u->procs : 1); k++) {
      on(x, k);
      all = u->alone ? dh_alone(x, dh, u->blk[k]) : dh_stages(x, dh, all);
      if (u->alone) u->blk[k] = all;
    }
    if (u->alone) return;
    conversion_send(x, t, all, XCH_SCATTER, false);
    stage_barrier(x, dh, "its result back by blocks");
    for (int k = 0; k < x->p; k++) u->blk[k] = slice(x, all, range_lo(u->n, x->p, k), range_lo(u->n, x->p, k + 1));
    return;
  }
  for (int k = 0; k < x->p; k++) {
    on(x, k);
    u->blk[k] = dh_alone(x, dh, u->blk[k]);
  }
  Shape **before = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *before);
  for (int round = 0; (1 << round) < x->p; round++) {
    double largest = 0;
    for (int k = 0; k < x->p; k++)
      if (range_sends(XCH_BUTTERFLY, u->n, x->p, k, k ^ (1 << round), round)) {
        block_message(x, k, k ^ (1 << round), t, u->blk[k], ir_word_flat(t->a));
        double words = shape_message_words(&x->sh, u->blk[k], 0, len(u->blk[k]));
        if (words > largest) largest = words;
      }
    collective(x, XCH_BUTTERFLY, round, largest);
    if (u->c->levels)  // partners exchange within the smallest groups that hold both
      level_barrier(x, dh->pos, arena_printf(x->sh.arena, "dh: round %d", round + 1),
                    range_level_meet(x->pl->levels.lead, x->p, x->pl->levels.rounds, round), LEVEL_WITHIN);
    else
      stage_barrier(x, dh, arena_printf(x->sh.arena, "round %d", round + 1));
    memcpy(before, u->blk, (size_t)x->p * sizeof *before);
    for (int k = 0; k < x->p; k++) {
      on(x, k);
      int64_t n = len(before[k]);
      x->now->elems = add(x->now->elems, n);
      x->now->loads = add(x->now->loads, array_words(t, n));
      x->now->stores = add(x->now->stores, array_words(t, n));
      u->blk[k] = dh_combine(x, dh, k & (1 << round), before[k], before[k ^ (1 << round)]);
    }
  }
}

// neighbours on the blocks, as region.c runs it: each process sends its
// block's ends where XCH_NEIGHBOURS says, evaluates the given ends and
// makes its triples before the barrier, and puts the elements received at
// its block's ends after it.
// Alone: on the whole vector.
static void run_neighbours(Ex *x, Run *u, const Step *s) {
  Ir *e = u->r->stages[s->to];
  u->placed = false;
  if (u->alone) {
    for (int k = 0; k < u->procs; k++) {
      on(x, k);
      Shape *l = ev(x, e->a), *r = ev(x, e->b);  // the ends, evaluated by each process
      u->blk[k] = neighbours_of(x, e, l, r, u->blk[k]);
    }
    return;
  }
  Type *t = e->c->ty->a;
  Shape *all = joined(x, u->blk, u->n);
  double largest = 0;
  for (int from = 0; from < x->p; from++)
    for (int to = 0; to < x->p; to++) {
      int64_t lo, hi;
      range_exchange(XCH_NEIGHBOURS, u->n, x->p, from, to, 0, &lo, &hi);
      if (lo >= hi) continue;
      Shape *end = shape_elem(all, lo);
      value_message(x, from, to, t, end, false);
      double words = value_words(x, t, end);
      if (words > largest) largest = words;
    }
  if (largest > 0) collective(x, XCH_NEIGHBOURS, 0, largest);
  for (int k = 0; k < x->p; k++) {
    on(x, k);
    int64_t lo = range_lo(u->n, x->p, k), hi = range_lo(u->n, x->p, k + 1);
    Shape *l = ev(x, e->a), *r = ev(x, e->b);
    u->blk[k] = neighbours_of(x, e, lo > 0 ? shape_elem(all, lo - 1) : l, hi < u->n ? shape_elem(all, hi) : r, u->blk[k]);
  }
  stage_barrier(x, e, "the ends exchanged");
}

// The result's blocks to process 0 up the levels: in each round every
// child sends its lead its group's elements; a lead copies its own block in
// first (process 0 not if the last pass stored it in the result).
static void level_gather(Ex *x, Run *u) {
  const int *lead = x->pl->levels.lead;
  Type *t = u->r->root->ty;
  Shape *all = joined(x, u->blk, u->n);
  bool *copied = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *copied);
  for (int round = 0; round < x->pl->levels.rounds; round++) {
    for (int from = 0; from < x->p; from++) {
      int to = range_level_lead(lead, x->p, round, from);
      if (!range_level_sends(XCH_LEVEL_GATHER, false, lead, u->n, x->p, from, to, round)) continue;
      int64_t lo, hi;
      range_level_exchange(XCH_LEVEL_GATHER, false, lead, u->n, x->p, from, to, round, &lo, &hi);
      block_message(x, from, to, t, slice(x, all, lo, hi), false);
      if (copied[to] || (to == 0 && u->placed)) continue;
      int64_t own = array_words(t, len(u->blk[to]));
      x->open[to].loads += own;
      x->open[to].stores += own;
      copied[to] = true;
    }
    level_barrier(x, u->r->root->pos, arena_printf(x->sh.arena, "%s: gather", builtin_name(ir_builtin(u->r->root->kind))),
                  round, LEVEL_UP);
  }
}

static void run_step(Ex *x, Run *u, const Step *s, const Step *next) {
  switch (s->kind) {
  case STEP_FETCH: return;  // counted before (fetch)
  case STEP_PASS:
    for (int k = 0; k < u->procs; k++) run_pass(x, u, s, next, k);
    return;
  case STEP_EXCHANGE: run_exchange(x, u, s); return;
  case STEP_COMBINE: run_combine(x, u, s); return;
  case STEP_SEGMENTS: run_segments(x, u, s); return;
  case STEP_GATHER:
    if (s->xch == XCH_LEVEL_GATHER) level_gather(x, u);
    else run_gather(x, u, s);
    return;
  case STEP_BUTTERFLY: run_butterfly(x, u, s); return;
  case STEP_NEIGHBOURS: run_neighbours(x, u, s); return;
  }
}

// The fetch: the region's operands converted where it reads them, one
// barrier for all when something is sent.
static void fetch(Ex *x, Region *r, Shape **operand, Shape **arg) {
  FetchItem it[plan_fetch_max(r)];
  int n = plan_fetch_items(x->pl, r, it);
  if (!plan_fetch_sends(x->pl, r)) return;
  Shape **v = arena_calloc(x->sh.arena, (size_t)n + 1, sizeof *v);
  bool flat = false, levels = false;
  for (int i = 0; i < n; i++) {
    switch (it[i].kind) {
    case FETCH_VAR: v[i] = x->env[r->captured[it[i].index]->id]; break;
    case FETCH_INPUT: v[i] = from_input(x, x->ir->prog->inputs[r->inputs[it[i].index]->index]->itype); break;
    case FETCH_OPERAND: v[i] = operand[it[i].index]; break;
    default: v[i] = arg[it[i].index]; break;
    }
    levels |= is_level_pattern(it[i].xch);
    if (it[i].xch == XCH_COUNT || is_level_pattern(it[i].xch)) continue;
    conversion_send(x, it[i].ty, v[i], it[i].xch, plan_fetch_in_place(x->pl, r, &it[i]));
    flat = true;
  }
  const char *what = arena_printf(x->sh.arena, "%s: fetch", builtin_name(ir_builtin(r->first->kind)));
  if (flat) barrier(x, r->first->pos, what);
  for (int i = 0; i < n; i++)
    if (it[i].xch != XCH_COUNT && !is_level_pattern(it[i].xch)) conversion_receive(x, it[i].ty, v[i], it[i].xch);
  // Down the levels, every item in each round.
  for (int round = x->pl->levels.rounds - 1; levels && round >= 0; round--) {
    for (int i = 0; i < n; i++)
      if (is_level_pattern(it[i].xch)) level_send(x, it[i].ty, v[i], it[i].xch, round, plan_fetch_in_place(x->pl, r, &it[i]));
    level_barrier(x, r->first->pos, what, round, LEVEL_DOWN);
  }
}

static Shape ***per_stage(Ex *x, Region *r) {
  Shape ***t = arena_calloc(x->sh.arena, (size_t)r->nstages + 1, sizeof *t);
  for (int s = 0; s < r->nstages; s++) t[s] = arena_calloc(x->sh.arena, (size_t)x->p, sizeof **t);
  return t;
}

// The region's steps under choice c, its operands in place (fetched).
static Shape *run_region(Ex *x, Region *r, const RegionChoice *c, const RegionSteps *steps, Shape **operand, Shape **arg) {
  bool alone = c->alone || x->p == 1;
  Run u = {.r = r, .c = c, .alone = alone, .n = len(arg[0]), .operand = operand};
  u.procs = alone && c->out == LAY_ROOT ? 1 : x->p;
  u.blk = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *u.blk);
  u.blk2 = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *u.blk2);
  u.partial = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *u.partial);
  u.env = arena_calloc(x->sh.arena, (size_t)r->nstages + 1, sizeof *u.env);
  u.scan = per_stage(x, r), u.total = per_stage(x, r), u.offset = per_stage(x, r);
  for (int s = 0; s < r->nstages; s++) u.env[s] = r->stages[s]->x ? env_key(x, r->stages[s]) : NULL;
  for (int k = 0; k < x->p; k++) {
    u.blk[k] = alone ? arg[0] : slice(x, arg[0], range_lo(u.n, x->p, k), range_lo(u.n, x->p, k + 1));
    if (arg[1]) u.blk2[k] = alone ? arg[1] : slice(x, arg[1], range_lo(u.n, x->p, k), range_lo(u.n, x->p, k + 1));
  }
  RegionChoice as_alone = *c;
  as_alone.alone = true;
  RegionSteps st = alone ? plan_region_steps(x->ir, r, &as_alone) : *steps;
  for (int i = 0; i < st.nsteps; i++) run_step(x, &u, &st.steps[i], i + 1 < st.nsteps ? &st.steps[i + 1] : NULL);
  on(x, 0);
  if (r->root->kind == IR_FOLD) {
    for (int k = 0; k < x->p; k++)
      if (u.partial[k]) return u.partial[k];
    return shape_unit(&x->sh);
  }
  return alone ? u.blk[0] : joined(x, u.blk, u.n);
}

static void cost_alternatives(Ex *x, Region *r, Shape **operand, Shape **arg);

// An operand the region's fetch step converts (planning: what converting
// it on its own would cost).
static Shape *operand_value(Ex *x, Ir *e) {
  Shape *v = top(x, e);
  if (x->costs) cost_conversions(x, e->ty, e->pos, v, &x->costs->conv[e->id]);
  return v;
}

static Shape *region(Ex *x, Ir *e) {
  Region *r = e->region;
  Shape **operand = arena_calloc(x->sh.arena, (size_t)r->nstages + 1, sizeof *operand), *arg[2] = {NULL, NULL};
  for (int s = r->nstages - 1; s >= 0; s--)
    if (r->stages[s]->kind == IR_C_PROD) operand[s] = operand_value(x, r->stages[s]->a);
  arg[0] = operand_value(x, r->first->kind == IR_PAIR_MAP ? r->first->a : plan_chain_arg(r->first));
  if (r->first->kind == IR_PAIR_MAP) arg[1] = operand_value(x, r->first->b);
  if (x->costs) cost_alternatives(x, r, operand, arg);
  fetch(x, r, operand, arg);
  return run_region(x, r, &x->pl->region[r->id - 1], &x->pl->steps[r->id - 1], operand, arg);
}

//
// The top level: every process runs it together.
//

// iter whose function runs regions: its iterations at top level; once
// three inputs in a row are the same shape the iterations are in a steady
// state and the rest repeat the last one.
// Over a pair (lower.c, pair_iter), its components are the variables: each
// is delivered where its variable lives, the body's lets bound on the way,
// and the pair after the last iteration is made from them.
static Shape *top_iter(Ex *x, Ir *e) {
  Shape *acc = e->y ? shape_pair(&x->sh, deliver(x, e->a->a), deliver(x, e->a->b)) : deliver(x, e->a);
  int64_t k = deliver(x, e->b)->n.k;
  Shape *prev1 = NULL, *prev2 = NULL;
  Mark last = mark(x);
  for (int64_t i = 0; i < k; i++) {
    if (acc == prev1 && acc == prev2) {
      repeat(x, last, k - i);
      break;
    }
    Mark before = mark(x);
    Ir *next = e->body;
    x->env[e->x->id] = e->y ? acc->a : acc;
    if (e->y) x->env[e->y->id] = acc->b;
    for (; e->y && next->kind == IR_LET; next = next->body) x->env[next->var->id] = deliver(x, next->a);
    Shape *r = e->y ? shape_pair(&x->sh, deliver(x, next->a), deliver(x, next->b)) : deliver(x, next);
    prev2 = prev1, prev1 = acc, acc = r, last = before;
  }
  if (!e->y) return acc;
  x->env[e->x->id] = acc->a;
  x->env[e->y->id] = acc->b;
  return deliver(x, e->c);
}

// Any other form holding a region: its operands where it runs, then its
// own operation there.
static Shape *top_operation(Ex *x, Ir *e) {
  Ir *kids[ir_max_kids(e)];
  int n = ir_kids(e, kids);
  for (int i = 0; i < n; i++) x->pre[kids[i]->id] = deliver(x, kids[i]);
  Shape *v = placed(x, e, x->pl->have[e->id]);
  for (int i = 0; i < n; i++) x->pre[kids[i]->id] = NULL;
  return v;
}

static Shape *top(Ex *x, Ir *e) {
  if (!ir_holds_region(e)) return part(x, e);
  switch (e->kind) {
  case IR_LET:
    x->env[e->var->id] = deliver(x, e->a);
    return deliver(x, e->body);
  case IR_ITER: return top_iter(x, e);
  case IR_IFS: {
    Shape *c = deliver(x, e->a);
    return deliver(x, c->n.k ? e->b : e->c);
  }
  default:
    if (ir_is_skeleton(e->kind) && e->mode == MODE_TOP) return region(x, e);
    return top_operation(x, e);
  }
}

//
// Planning (exact_plan_costs): what each alternative would cost where the
// base plan runs, by running it from a snapshot of the state and back.
//

typedef struct Snapshot {
  Counts *open, *next;      // by pid
  int64_t *sent, *recv;     // by pid
  ExactCollective *coll;    // the open exchanges
  int ncoll;
  int nsteps;               // supersteps listed
  int64_t closed, W, H;     // and counted
  bool truncated;
  double open_seconds;      // the open superstep's time then
} Snapshot;

static int64_t *copy_of(Ex *x, const int64_t *w) { return copy_words(x, (int64_t *)w); }

static Counts *counts_copy(Ex *x, const Counts *c) {
  Counts *d = arena_calloc(x->sh.arena, (size_t)x->p, sizeof *d);
  memcpy(d, c, (size_t)x->p * sizeof *d);
  return d;
}

// The open superstep as a step, were it to end now without a barrier.
static ExactStep open_step(Ex *x) {
  ExactStep s = {.procs = x->open, .sent = x->sent, .recv = x->recv, .collectives = x->coll, .ncollectives = x->ncoll};
  for (int k = 0; k < x->p; k++) {
    counts_max(&s.most, &x->open[k]);
    if (x->sent[k] > s.h) s.h = x->sent[k];
    if (x->recv[k] > s.h) s.h = x->recv[k];
  }
  s.w = s.most.ops;
  return s;
}

static double open_seconds(Ex *x) {
  ExactStep s = open_step(x);
  return cost_steps_seconds(x->m, &s, 1, x->p, false, x->costs->shares, NULL);
}

static Snapshot snapshot(Ex *x) {
  return (Snapshot){counts_copy(x, x->open), counts_copy(x, x->next), copy_of(x, x->sent), copy_of(x, x->recv),
                    copy_collectives(x), x->ncoll, x->nsteps, x->closed, x->W, x->H, x->truncated, open_seconds(x)};
}

// The seconds since s: the supersteps closed since, and what the open one grew.
static double seconds_since(Ex *x, const Snapshot *s) {
  int n = x->nsteps - s->nsteps;
  ExactStep *steps = arena_calloc(x->sh.arena, (size_t)n + 1, sizeof *steps);
  if (n) memcpy(steps, &x->steps[s->nsteps], (size_t)n * sizeof *steps);
  steps[n] = open_step(x);
  return cost_steps_seconds(x->m, steps, n + 1, x->p, false, x->costs->shares, NULL) - s->open_seconds;
}

static void restore(Ex *x, const Snapshot *s) {
  memcpy(x->open, s->open, (size_t)x->p * sizeof *x->open);
  memcpy(x->next, s->next, (size_t)x->p * sizeof *x->next);
  memcpy(x->sent, s->sent, (size_t)x->p * sizeof *x->sent);
  memcpy(x->recv, s->recv, (size_t)x->p * sizeof *x->recv);
  x->ncoll = 0;
  for (int i = 0; i < s->ncoll; i++) collective(x, s->coll[i].xch, s->coll[i].round, s->coll[i].words);
  x->nsteps = s->nsteps, x->closed = s->closed, x->W = s->W, x->H = s->H, x->truncated = s->truncated;
  x->now = &x->open[0];
}

// A sandbox: the state saved, and the open superstep ended, so that what
// is costed runs from a superstep of its own (rather than hiding under the
// work the base plan happens to have open).
static Snapshot sandbox(Ex *x, Snapshot *start) {
  *start = snapshot(x);
  barrier(x, x->ir->prog->main->pos, "planning");
  return snapshot(x);
}

// What converting v (type t) from every layout to every other costs.
static void cost_conversions(Ex *x, Type *t, Pos pos, Shape *v, LayoutCosts *into) {
  for (int way = 0; way < (x->pl->levels.rounds ? 2 : 1); way++)
    for (int from = 0; from < LAY_NONE; from++)
      for (int to = 0; to < LAY_NONE; to++) {
        Exchange xch = plan_conversion_by((Layout)from, (Layout)to, way);
        if (xch == XCH_COUNT || (way && !is_level_pattern(xch))) continue;
        if ((from == LAY_BLOCK || to == LAY_BLOCK) && t->kind != T_VEC) continue;
        Snapshot start, s = sandbox(x, &start);
        convert_value(x, t, pos, v, (Layout)from, (Layout)to, way);
        (*into)[way][from][to] += seconds_since(x, &s);
        restore(x, &start);
      }
}

// Every alternative of region r, its operands in place; and what
// converting each value its functions capture would cost.
static void cost_alternatives(Ex *x, Region *r, Shape **operand, Shape **arg) {
  AltCosts *ac = &x->costs->region[r->id - 1];
  for (int a = 0; a < ac->nalts; a++) {
    Snapshot start, s = sandbox(x, &start);
    RegionSteps steps = plan_region_steps(x->ir, r, &ac->alt[a]);
    run_region(x, r, &ac->alt[a], &steps, operand, arg);
    ac->seconds[a] += seconds_since(x, &s);
    restore(x, &start);
  }
  for (int i = 0; i < r->ncaptured; i++)
    cost_conversions(x, r->captured[i]->ty, r->first->pos, x->env[r->captured[i]->id], &ac->fetch[i]);
  for (int i = 0; i < r->ninputs; i++)
    cost_conversions(x, r->inputs[i]->ty, r->first->pos, from_input(x, x->ir->prog->inputs[r->inputs[i]->index]->itype),
                     &ac->fetch[r->ncaptured + i]);
}

// The costs summed so far, as one array of doubles (for iter's steady
// state, which repeats what one iteration cost).
static double **costs_flat(Ex *x, int *n) {
  IrProgram *ir = x->ir;
  int count = 0;
  for (int r = 0; r < ir->nregions; r++)
    count += x->costs->region[r].nalts + (ir->regions[r]->ncaptured + ir->regions[r]->ninputs) * 2 * LAY_NONE * LAY_NONE;
  count += ir->nnodes * 2 * LAY_NONE * LAY_NONE;
  double **at = arena_calloc(x->sh.arena, (size_t)count + 1, sizeof *at);
  int k = 0;
  for (int r = 0; r < ir->nregions; r++) {
    AltCosts *ac = &x->costs->region[r];
    for (int a = 0; a < ac->nalts; a++) at[k++] = &ac->seconds[a];
    for (int i = 0; i < ir->regions[r]->ncaptured + ir->regions[r]->ninputs; i++)
      for (int w = 0; w < 2; w++)
        for (int f = 0; f < LAY_NONE; f++)
          for (int t = 0; t < LAY_NONE; t++) at[k++] = &ac->fetch[i][w][f][t];
  }
  for (int e = 0; e < ir->nnodes; e++)
    for (int w = 0; w < 2; w++)
      for (int f = 0; f < LAY_NONE; f++)
        for (int t = 0; t < LAY_NONE; t++) at[k++] = &x->costs->conv[e][w][f][t];
  *n = k;
  return at;
}

static double *costs_save(Ex *x) {
  if (!x->costs) return NULL;
  int n;
  double **at = costs_flat(x, &n), *saved = arena_calloc(x->sh.arena, (size_t)n + 1, sizeof *saved);
  for (int i = 0; i < n; i++) saved[i] = *at[i];
  return saved;
}

// What was costed since saved is costed times more.
static void costs_repeat(Ex *x, const double *saved, int64_t times) {
  if (!x->costs) return;
  int n;
  double **at = costs_flat(x, &n);
  for (int i = 0; i < n; i++) *at[i] += (double)times * (*at[i] - saved[i]);
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

static Ex ex_new(Arena *arena, Program *prog, const int64_t *params, const Plan *pl) {
  IrProgram *ir = lower_program(prog);
  Ex x = {.ir = ir, .pl = pl, .params = params, .p = pl->p};
  x.sh = (Shapes){.arena = arena, .budget = IRREGULAR_MAX, .site = prog->main->pos,
                  .limit_hint = "; the exact model follows every element (--model paper costs inits and tails "
                                "of any length by their families)"};
  x.env = arena_calloc(arena, (size_t)ir->nvars + 1, sizeof *x.env);
  x.stamp = arena_calloc(arena, (size_t)ir->nvars + 1, sizeof *x.stamp);
  x.free = arena_calloc(arena, (size_t)ir->nnodes + 1, sizeof *x.free);
  x.nfree = arena_calloc(arena, (size_t)ir->nnodes + 1, sizeof *x.nfree);
  x.pre = arena_calloc(arena, (size_t)ir->nnodes + 1, sizeof *x.pre);
  x.open = arena_calloc(arena, (size_t)x.p, sizeof *x.open);
  x.next = arena_calloc(arena, (size_t)x.p, sizeof *x.next);
  x.sent = arena_calloc(arena, (size_t)x.p, sizeof *x.sent);
  x.recv = arena_calloc(arena, (size_t)x.p, sizeof *x.recv);
  x.now = &x.open[0];
  return x;
}

void exact_plan_costs(Arena *arena, Program *prog, const int64_t *params, const Plan *base, const Machine *m,
                      PlanCosts *costs) {
  Ex x = ex_new(arena, prog, params, base);
  x.m = m;
  x.costs = costs;
  deliver(&x, x.ir->main);
}

void exact_cost(Arena *arena, Program *prog, const int64_t *params, const Plan *pl, ExactResult *out) {
  Ex x = ex_new(arena, prog, params, pl);
  deliver(&x, x.ir->main);
  barrier(&x, prog->main->pos, "end");  // the last superstep, ending the program
  *out = (ExactResult){x.steps, x.nsteps, x.truncated, x.p, x.W, x.H, x.closed - 1, (int64_t)x.sh.table.count,
                       footprint(&x), (double)x.accumulator, (double)x.reload_set};
}
