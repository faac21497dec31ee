// builtin.c: the builtins on shapes: their result shapes, the static shape
// errors, and their costs. Run sequentially (local mode, or a sequential
// builtin at top level) a builtin returns or spends its operations; a
// skeleton at top level hands its per-element costs to the model, which
// turns them into supersteps.
#include "cost/costint.h"
#include "ir/ir.h"

// The longest run of shape-changing iter steps: an iter whose value's
// shape never settles (a size that grows at every step, iter (\x -> x + 1)
// 0 n) is followed step by step, at some 500 bytes and 2 us a step: 2^20
// steps stay within half a gigabyte.
enum { ITER_MAX = 1 << 20 };

int shape_arity(Shape *f) { return f->node->kind == N_OPFN ? 2 : builtin_arity(f->node->builtin); }

static Res result(Shape *s, Num cost, Site *dist) { return (Res){s, cost, dist}; }

static Res value(Shape *s) { return result(s, num_of(0), NULL); }

//
// Sizes.
//

// The front end has checked that s is a size (src/lang/sizes.c); the
// analysis loses its value only where it cannot follow it, and says where.
Sz require_size(Analysis *a, Shape *s, Pos pos, const char *what) {
  if (s->kind == SH_SIZE) return s->n;
  if (a->pc)
    error_at(pos, "--symbolic: %s has no closed form: it is a size computed with /, %%, max or min of sizes "
                  "that depend on the parameters, or the running value of a fold or prefix over a vector "
                  "whose length depends on them (give the parameters with -D; a value that decides data, "
                  "not a shape, is tested with a data 'if')", what);
  error_at(pos, "%s is a size the analysis does not know: computing it overflows 64 bits or divides by zero, "
                "or it is the running value of a fold or prefix over more than %d elements, which the analysis "
                "takes as data (a vector's length is 'length v'; a value that decides data, not a shape, is "
                "tested with a data 'if')", what, FOLLOW_MAX);
}

// Arithmetic on known sizes and truth values, wrapping like the
// executor's ints; false when the result is not known (division by zero,
// or in a closed-form analysis not a polynomial).
static bool size_op(Analysis *a, Op op, Sz x, Sz y, Sz *r) {
  if (x.sym || y.sym) {
    PolyCtx *c = a->pc;
    const Poly *px = x.sym ? x.sym : poly_int(c, x.k), *py = y.sym ? y.sym : poly_int(c, y.k);
    switch (op) {
    case OP_ADD: *r = sz_poly(c, poly_add(c, px, py)); return true;
    case OP_SUB: *r = sz_poly(c, poly_sub(c, px, py)); return true;
    case OP_MUL: *r = sz_poly(c, poly_mul(c, px, py)); return true;
    case OP_NEG: *r = sz_poly(c, poly_sub(c, poly_int(c, 0), px)); return true;
    default: return false;
    }
  }
  int64_t v;
  if (!size_arith(op, x.k, y.k, &v)) return false;
  *r = sz_of(v);
  return true;
}

Shape *builtin_scalar_op(Analysis *a, Op op, Shape *x, Shape *y) {
  Sz r;
  if (x->kind == SH_SIZE && (!y || y->kind == SH_SIZE) && size_op(a, op, x->n, y ? y->n : sz_of(0), &r))
    return shape_size(&a->sh, r);
  return shape_unit(&a->sh);
}

// The length of a vector built from others.
static Sz length_op(Analysis *a, Op op, Sz x, Sz y, Site *site) {
  Sz r;
  if (x.sym || y.sym) {
    size_op(a, op, x, y, &r);
    return r;
  }
  int64_t v;
  bool overflow = op == OP_MUL   ? __builtin_mul_overflow(x.k, y.k, &v)
                : op == OP_ADD   ? __builtin_add_overflow(x.k, y.k, &v)
                                 : __builtin_sub_overflow(x.k, y.k, &v);
  if (overflow) error_at(site->pos, "the length of this vector overflows 64 bits");
  return sz_of(v);
}

//
// map, pair_map, c_prod: every element computed by the function, locally.
//

// fn applied to every element of x (and of y, for pair_map): the elements
// and their costs, once for a regular vector, element by element for an
// irregular one, once at a symbolic index for a family (closed forms).
static Shape *apply_each(Analysis *a, ElemFn fn, void *ctx, Shape *x, Shape *y, ElemCosts *ec) {
  *ec = (ElemCosts){.n = x->n, .each1 = num_of(0)};
  if (family_is(x) || (y && family_is(y))) return family_map(a, x, y, fn, ctx, ec);
  if (x->kind == SH_VEC && (!y || y->kind == SH_VEC)) {
    if (sz_is(x->n, 0)) return x;
    Res r = fn(a, ctx, x->a, y ? y->a : NULL);
    ec->each1 = r.cost;
    return shape_vec(&a->sh, x->n, r.s);
  }
  int64_t n = x->n.k;
  Shape **out = arena_calloc(a->arena, (size_t)n, sizeof *out);
  ec->each = arena_calloc(a->arena, (size_t)n, sizeof *ec->each);
  for (int64_t i = 0; i < n; i++) {
    Res r = fn(a, ctx, shape_elem(x, i), y ? shape_elem(y, i) : NULL);
    out[i] = r.s;
    ec->each[i] = r.cost;
  }
  return shape_vector(&a->sh, out, n);
}

static Num elem_total(Analysis *a, const ElemCosts *ec) {
  if (ec->over) return family_total(a, ec);
  if (!ec->each) return num_mul(a->pc, ec->each1, num_sz(ec->n));
  double sum = 0;
  for (int64_t i = 0; i < ec->n.k; i++) sum += ec->each[i].v;
  return num_of(sum);
}

// The function f applied to x (map), or to x and y (pair_map; f NULL: zip's pair).
static Res apply_f(Analysis *a, void *f, Shape *x, Shape *y) {
  if (!f) return result(shape_pair(&a->sh, x, y), num_of(a->k.pair), NULL);
  return y ? eval_apply2_local(a, f, x, y) : eval_apply_local(a, f, x);
}

// map f x, or pair_map f (x, y) when y is given: the elements and their costs.
static Shape *map_elems(Analysis *a, Shape *f, Shape *x, Shape *y, ElemCosts *ec) {
  return apply_each(a, apply_f, f, x, y, ec);
}

// pair_map f (a, b), zip a b (f NULL) or map2 f a b, as site names it.
static Shape *pair_map_elems(Analysis *a, Shape *f, Shape *ab, ElemCosts *ec, Site *site) {
  if (!sz_equal(ab->a->n, ab->b->n))
    cost_fault(a, site->pos, "%s on vectors of different lengths (%s and %s)", builtin_name(site->b),
               sz_format(a->arena, a->pc, ab->a->n), sz_format(a->arena, a->pc, ab->b->n));
  return map_elems(a, f, ab->a, ab->b, ec);
}

// c_prod f x y: the function and x (a row's elements), or y's element j.
typedef struct Rows {
  Shape *f;
  Shape *other;  // x for a row, y_j for one of its elements
} Rows;

static Res c_prod_elem(Analysis *a, void *ctx, Shape *xi, Shape *unused) {
  Rows *r = ctx;
  return eval_apply2_local(a, r->f, xi, r->other);
}

// Row j of c_prod f x y: f applied to every element of x and y_j.
static Res c_prod_row(Analysis *a, void *ctx, Shape *yj, Shape *unused) {
  Rows *r = ctx, with = {r->f, yj};
  ElemCosts ec;
  Shape *row = apply_each(a, c_prod_elem, &with, r->other, NULL, &ec);
  return result(row, elem_total(a, &ec), NULL);
}

// The rows (one per element of y) are the elements a process computes.
static Shape *c_prod_elems(Analysis *a, Shape *f, Shape *x, Shape *y, ElemCosts *ec) {
  return apply_each(a, c_prod_row, &(Rows){f, x}, y, NULL, ec);
}

//
// fold and prefix. The papers' operators are of constant space: one
// application's cost c at the shape of the elements, and the formulas.
// An operator that changes the shape of what it combines (merge's growing
// lists, x ++ y) or elements of different shapes are followed step by step,
// each process's integer block in turn (docs/cost-model.md, "Folds and
// prefixes that change shape").
//

// The shape of the elements op combines and the cost of one application,
// when op keeps it (constant space); else NULL.
static Shape *constant_space(Analysis *a, Shape *op, Shape *x, Num *c) {
  Shape *ex = shape_erase(&a->sh, x);
  if (shape_is_irregular(ex)) return NULL;
  Shape *e = ex->a;
  Res r = eval_apply2_local(a, op, e, e);
  if (shape_erase(&a->sh, r.s) != e) return NULL;
  *c = r.cost;
  return e;
}

// Size values are followed exactly while affordable: fold (+) [1, 2, 3] is the size 6.
static bool follows_values(Shape *x) {
  return x->has_size && !family_is(x) && !x->n.sym && x->n.k <= FOLLOW_MAX;
}

static Shape *fold_value(Analysis *a, Shape *op, Shape *x, Shape *e) {
  if (!follows_values(x)) return e;
  Shape *acc = shape_elem(x, 0);
  for (int64_t i = 1; i < x->n.k; i++) acc = eval_apply2_local(a, op, acc, shape_elem(x, i)).s;
  return acc;
}

static Shape *prefix_value(Analysis *a, Shape *op, Shape *x) {
  if (!follows_values(x)) return shape_erase(&a->sh, x);
  int64_t n = x->n.k;
  Shape **out = arena_calloc(a->arena, (size_t)n, sizeof *out);
  for (int64_t i = 0; i < n; i++)
    out[i] = i ? eval_apply2_local(a, op, out[i - 1], shape_elem(x, i)).s : shape_elem(x, 0);
  return shape_vector(&a->sh, out, n);
}

// A top-level skeleton starts, taking x as it is when dist left it distributed.
static void start(Analysis *a, Shape *f, Shape *x, Site *dist, Site *site) { paper_start(a, f, dist ? NULL : x, site); }

// Steps of a fold whose shapes change followed one by one; beyond this many
// the analysis stops (each step is an application analysed anew).
enum { STEPS_MAX = 1 << 22 };

// acc op x[lo] op ... op x[hi - 1] (acc NULL: from x[lo]), each running value
// into out[i - lo] when out is given; their cost added to *cost.
static Shape *fold_steps(Analysis *a, Shape *op, Shape *acc, Shape *x, int64_t lo, int64_t hi, Shape **out, Num *cost) {
  for (int64_t i = lo; i < hi; i++) {
    if (!acc) {
      acc = shape_elem(x, i);
    } else {
      Res r = eval_apply2_local(a, op, acc, shape_elem(x, i));
      *cost = num_add(a->pc, *cost, r.cost);
      acc = r.s;
    }
    if (out) out[i - lo] = acc;
  }
  return acc;
}

// acc op y, its cost added to *cost.
static Shape *combine(Analysis *a, Shape *op, Shape *acc, Shape *y, Num *cost) {
  Res r = eval_apply2_local(a, op, acc, y);
  *cost = num_add(a->pc, *cost, r.cost);
  return r.s;
}

static Num larger(Num x, Num y) { return y.v > x.v ? y : x; }

// A fold at top level: each process folds its block and sends its partial
// result to process 0, which folds them in order.
static Shape *fold_blocks(Analysis *a, Shape *op, Shape *x, Site *site) {
  Num work = num_of(0), words = num_of(0), joins = num_of(0);
  Shape *acc = NULL;
  for (int k = 0; k < a->p; k++) {
    int64_t lo = range_lo(x->n.k, a->p, k), hi = range_lo(x->n.k, a->p, k + 1);
    if (lo == hi) continue;
    Num w = num_of(0);
    Shape *part = fold_steps(a, op, NULL, x, lo, hi, NULL, &w);
    work = larger(work, w);
    if (acc) words = num_add(a->pc, words, part->words);
    acc = acc ? combine(a, op, acc, part, &joins) : part;
  }
  paper_fold_blocks(a, work, words, joins, site);
  return acc;
}

// A prefix at top level: each process's local prefix, its offset (the
// lower blocks' totals combined, in the rounds of the papers' tree), the
// offset applied to its local prefix.
static Shape *prefix_blocks(Analysis *a, Shape *op, Shape *x, Site *site) {
  int64_t n = x->n.k;
  Shape **out = arena_calloc(a->arena, (size_t)n + 1, sizeof *out), *offset = NULL;
  Num work = num_of(0), words = num_of(0), join = num_of(0), finish = num_of(0);
  for (int k = 0; k < a->p; k++) {
    int64_t lo = range_lo(n, a->p, k), hi = range_lo(n, a->p, k + 1);
    if (lo == hi) continue;
    Num w = num_of(0), f = num_of(0), j = num_of(0);
    Shape *total = fold_steps(a, op, NULL, x, lo, hi, out + lo, &w);
    work = larger(work, w);
    words = larger(words, total->words);
    if (!offset) {
      offset = total;
      continue;
    }
    for (int64_t i = lo; i < hi; i++) out[i] = combine(a, op, offset, out[i], &f);
    finish = larger(finish, f);
    offset = combine(a, op, offset, total, &j);
    join = larger(join, j);
  }
  paper_prefix_blocks(a, work, words, join, finish, site);
  return shape_vector(&a->sh, out, n);
}

// fold or prefix whose shapes change: step by step.
static Res reduce_steps(Analysis *a, Shape *f, Shape *x, Site *dist, EvalMode m, Site *site) {
  Builtin b = site->b;
  Shape *op = f->elems[0];
  if (a->pc)
    error_at(site->pos, "--symbolic: the operator of '%s' changes the shape of what it combines, or its "
                        "elements differ in shape: its steps have no closed form (give the parameters with -D)",
             builtin_name(b));
  if (x->n.k > STEPS_MAX)
    error_at(site->pos, "the operator of '%s' changes the shape of what it combines, or its elements differ in "
                        "shape: the analysis follows it step by step, at most %d steps, and this has %lld",
             builtin_name(b), STEPS_MAX, (long long)x->n.k);
  if (x->n.k > FOLLOW_MAX) x = shape_erase(&a->sh, x);
  if (m == EVAL_LOCAL) {
    Num c = num_of(0);
    Shape **out = b == B_PREFIX ? arena_calloc(a->arena, (size_t)x->n.k + 1, sizeof *out) : NULL;
    Shape *acc = fold_steps(a, op, NULL, x, 0, x->n.k, out, &c);
    return result(out ? shape_vector(&a->sh, out, x->n.k) : acc, c, NULL);
  }
  start(a, f, x, dist, site);
  if (b == B_FOLD) return result(fold_blocks(a, op, x, site), num_of(0), NULL);
  return result(prefix_blocks(a, op, x, site), num_of(0), site);
}

static Res reduce(Analysis *a, Shape *f, Shape *x, Site *dist, EvalMode m, Site *site) {
  Builtin b = site->b;
  Shape *op = f->elems[0], *e = shape_unit(&a->sh), *s = x;
  Num c = num_of(0);
  if (sz_is(x->n, 0) && b == B_FOLD) cost_fault(a, site->pos, "fold of an empty vector");
  if (!sz_is(x->n, 0)) {
    e = constant_space(a, op, x, &c);
    if (!e) return reduce_steps(a, f, x, dist, m, site);
    s = b == B_FOLD ? fold_value(a, op, x, e) : prefix_value(a, op, x);
  }
  if (m == EVAL_LOCAL) {
    Num steps = sz_is(x->n, 0) ? num_of(0) : num_sub(a->pc, num_sz(x->n), num_of(1));
    return result(s, num_mul(a->pc, c, steps), NULL);
  }
  start(a, f, x, dist, site);
  if (b == B_FOLD) paper_fold(a, x, c, e, site);
  else paper_prefix(a, x, c, e, site);
  return result(s, num_of(0), plan_leaves_distributed(b) ? site : NULL);
}

//
// inits and tails: the irregular shapes of the maximum segment sum paper.
//

static Shape *segments_shape(Analysis *a, Builtin b, Shape *x, Site *site) {
  if (a->pc) return family_segments(a, b, x);
  int64_t n = x->n.k;
  if (n == 0) return x;
  // n segments, of 1..n elements when those differ: reserved before building.
  shape_reserve(&a->sh, x->kind == SH_VEC ? n : n > (1 << 30) ? INT64_MAX : n * (n + 1) / 2);
  Shape **segs = arena_calloc(a->arena, (size_t)n, sizeof *segs);
  for (int64_t k = 0; k < n; k++)
    segs[k] = x->kind == SH_VEC ? shape_vec(&a->sh, sz_of(k + 1), x->a)
                                : shape_vector(&a->sh, x->elems + (b == B_TAILS ? n - 1 - k : 0), k + 1);
  return shape_vector(&a->sh, segs, n);
}

// concat * (n - 1): joining n pieces.
static Num concat_cost(Analysis *a, Sz n) {
  if (sz_is(n, 0)) return num_of(0);
  return num_mul(a->pc, num_of(a->k.concat), num_sub(a->pc, num_sz(n), num_of(1)));
}

//
// The skeletons.
//

// split, reverse, neighbours and dh rearrange elements one by one: in a
// closed-form analysis, of a regular vector only.
static void regular_in_closed_form(Analysis *a, Shape *v, Site *site) {
  if (a->pc && shape_is_irregular(v))
    error_at(site->pos, "--symbolic: '%s' of a vector whose elements differ in shape has no closed form (give "
                        "the parameters with -D)", builtin_name(site->b));
}

//
// dh: the butterfly of f and g (docs/cost-model.md, "dh").
//

static int64_t log2_of(int64_t n) {
  int64_t k = 0;
  while (((int64_t)1 << k) < n) k++;
  return k;
}

// The shape of the elements f and g combine and one application of each,
// when x is regular and both keep its elements' shape; else NULL.
static Shape *dh_constant(Analysis *a, Shape *f, Shape *g, Shape *x, Num *cf, Num *cg) {
  Shape *ex = shape_erase(&a->sh, x);
  if (ex->kind != SH_VEC) return NULL;
  Shape *e = ex->a;
  Res rf = eval_apply2_local(a, f, e, e), rg = eval_apply2_local(a, g, e, e);
  if (shape_erase(&a->sh, rf.s) != e || shape_erase(&a->sh, rg.s) != e) return NULL;
  *cf = rf.cost, *cg = rg.cost;
  return e;
}

// The butterfly step by step, element by element (operators that change
// shapes): its result, its applications' cost added to *cost.
static Shape *dh_steps(Analysis *a, Shape *f, Shape *g, Shape *x, Num *cost, Site *site) {
  int64_t n = x->n.k;
  if (n * log2_of(n) > STEPS_MAX)
    error_at(site->pos, "the operators of 'dh' change the shape of what they combine: the analysis follows its "
                        "%lld applications one by one, at most %d", (long long)(n * log2_of(n)), STEPS_MAX);
  Shape **v = arena_calloc(a->arena, (size_t)n + 1, sizeof *v);
  for (int64_t i = 0; i < n; i++) v[i] = shape_elem(x, i);
  for (int64_t d = 1; d < n; d *= 2)
    for (int64_t i = 0; i < n; i++) {
      if (i & d) continue;
      Shape *l = v[i], *r = v[i + d];
      v[i] = combine(a, f, l, r, cost);
      v[i + d] = combine(a, g, l, r, cost);
    }
  return shape_vector(&a->sh, v, n);
}

static Res dh_skeleton(Analysis *a, Shape *fn, Shape *x, Site *dist, EvalMode m, Site *site) {
  Shape *f = fn->elems[0], *g = fn->elems[1];
  regular_in_closed_form(a, x, site);
  if (x->n.sym)
    error_at(site->pos, "--symbolic: 'dh' runs log2 of its argument's length stages, which has no closed form "
                        "(give the parameters with -D)");
  int64_t n = x->n.k, k = log2_of(n);
  if (n <= 0 || (n & (n - 1))) cost_fault(a, site->pos, "dh of a vector of length %lld, which is not a power of two", (long long)n);
  Num cf, cg, c = num_of(0);
  Shape *e = dh_constant(a, f, g, x, &cf, &cg);
  Shape *s = e ? shape_vec(&a->sh, x->n, e) : dh_steps(a, f, g, x, &c, site);
  if (e) c = num_mul(a->pc, num_of((double)(k * (n / 2))), num_add(a->pc, cf, cg));
  if (m == EVAL_LOCAL) return result(s, c, NULL);
  start(a, fn, x, dist, site);
  if (e) paper_dh(a, k, e, cf, cg, site);
  else paper_dh_alone(a, x, c, s, site);
  return result(s, num_of(0), site);
}

// neighbours l r x: two pairs for each element, sequentially; in parallel
// (paper_neighbours) on each block, after its ends are exchanged.
static Res neighbours_skeleton(Analysis *a, Shape *f, Shape *x, Site *dist, EvalMode m, Site *site) {
  regular_in_closed_form(a, x, site);
  if (x->n.sym && !(shape_erase(&a->sh, f->elems[0]) == shape_erase(&a->sh, x->a) &&
                    shape_erase(&a->sh, f->elems[1]) == shape_erase(&a->sh, x->a)))
    error_at(site->pos, "--symbolic: the ends given to 'neighbours' differ in shape from its elements, which has "
                        "no closed form (give the parameters with -D)");
  Shape *s = shape_neighbours(&a->sh, f->elems[0], f->elems[1], x);
  if (m == EVAL_LOCAL) return result(s, num_mul(a->pc, num_of(2 * a->k.pair), num_sz(x->n)), NULL);
  start(a, f, x, dist, site);
  paper_neighbours(a, x, site);
  return result(s, num_of(0), site);
}

// zip a b and map2 f a b are pair_map (\x y -> (x, y)) (a, b) and pair_map
// f (a, b): the function's data is map2's f, and both vectors are scattered.
static Res zip_skeleton(Analysis *a, Shape *f, Shape *x, EvalMode m, Site *site) {
  bool zip = site->b == B_ZIP;
  Shape *ab = shape_pair(&a->sh, f->elems[zip ? 0 : 1], x);
  ElemCosts ec;
  Shape *s = pair_map_elems(a, zip ? NULL : f->elems[0], ab, &ec, site);
  if (m == EVAL_LOCAL) return result(s, elem_total(a, &ec), NULL);
  paper_start(a, shape_partial(&a->sh, f->node, f->elems, zip ? 0 : 1), ab, site);
  paper_local(a, &ec, site);
  return result(s, num_of(0), site);
}

static Res skeleton(Analysis *a, Shape *f, Res last, EvalMode m, Site *site) {
  Builtin b = site->b;
  bool top = m == EVAL_TOP;
  if (b == B_ZIP || b == B_MAP2) return zip_skeleton(a, f, eval_force(a, last), m, site);
  Site *dist = top && plan_takes_distributed(b) ? last.dist : NULL;
  Shape *x = dist ? last.s : eval_force(a, last);
  if (b == B_FOLD || b == B_PREFIX) return reduce(a, f, x, dist, m, site);
  if (b == B_DH) return dh_skeleton(a, f, x, dist, m, site);
  if (b == B_NEIGHBOURS) return neighbours_skeleton(a, f, x, dist, m, site);
  if (b == B_INITS || b == B_TAILS) {
    Shape *s = segments_shape(a, b, x, site);
    if (!top) return result(s, concat_cost(a, x->n), NULL);
    start(a, f, x, dist, site);
    paper_segments(a, x, site);
    return result(s, num_of(0), plan_leaves_distributed(b) ? site : NULL);
  }
  ElemCosts ec;
  Shape *s = b == B_MAP        ? map_elems(a, f->elems[0], x, NULL, &ec)
           : b == B_PAIR_MAP   ? pair_map_elems(a, f->elems[0], x, &ec, site)
                               : c_prod_elems(a, f->elems[0], f->elems[1], x, &ec);
  if (!top) return result(s, elem_total(a, &ec), NULL);
  start(a, f, x, dist, site);
  paper_local(a, &ec, site);
  return result(s, num_of(0), plan_leaves_distributed(b) ? site : NULL);
}

//
// iter: k applications at the mode of the call; once the value's shape
// stops changing, the remaining applications repeat the last one.
//

static _Noreturn void iter_too_long(Site *site) {
  error_at(site->pos, "iter changes the shape of its value (or a size in it) at more than %d steps; "
                      "the analysis follows at most that many", ITER_MAX);
}

static Res iter_local(Analysis *a, Shape *f, Shape *x, int64_t k, Site *site) {
  Res acc = value(x);
  for (int64_t i = 0; i < k; i++) {
    Res r = eval_apply_local(a, f, acc.s);
    if (r.s == acc.s) {
      acc.cost = num_add(a->pc, acc.cost, num_mul(a->pc, r.cost, num_of((double)(k - i))));
      break;
    }
    acc = result(r.s, num_add(a->pc, acc.cost, r.cost), NULL);
    if (i == ITER_MAX) iter_too_long(site);
  }
  return acc;
}

// At top level an iteration's supersteps depend on its input shape and on
// the work left open by the previous one: when three inputs in a row are
// equal, the steady state is reached and the rest repeats the last.
static Shape *iter_top(Analysis *a, Shape *f, Shape *x, int64_t k, Site *site) {
  Shape *cur = x, *prev1 = NULL, *prev2 = NULL;
  StepsMark last = steps_mark(a);
  for (int64_t i = 0; i < k; i++) {
    if (prev1 == cur && prev2 == cur) {
      steps_repeat(a, last, k - i);
      break;
    }
    StepsMark before = steps_mark(a);
    Shape *next = eval_force(a, eval_apply(a, f, value(cur), EVAL_TOP, NULL));
    prev2 = prev1, prev1 = cur, cur = next, last = before;
    if (i == ITER_MAX) iter_too_long(site);
  }
  return cur;
}

// With a count k in closed form the value's shape must stay the same at
// every step, so the sizes it holds, whose values change from step to step
// (a counter), are data: iter (\p -> (fst p * x + entry c (snd p), snd p +
// 1)) (0, 0) n is k steps from <1, 1>.
static Res iter_symbolic(Analysis *a, Shape *f, Shape *x, Sz k, EvalMode m, Site *site) {
  StepsMark before = steps_mark(a);
  x = shape_erase(&a->sh, x);
  Res r = eval_apply(a, f, value(x), m, NULL);
  Shape *s = shape_erase(&a->sh, eval_force(a, r));
  if (s != x)
    error_at(site->pos, "--symbolic: iter with a count that depends on the parameters needs a function "
                        "that keeps the shape of its value, but this one turns %s into %s "
                        "(give the parameters with -D)", shape_format(&a->sh, x), shape_format(&a->sh, s));
  Num times = num_sz(k);
  if (m == EVAL_LOCAL) return result(s, num_mul(a->pc, r.cost, times), NULL);
  Num dW, dH, dS, more = num_sub(a->pc, times, num_of(1));
  steps_delta(a, before, &dW, &dH, &dS);
  steps_add(a, num_mul(a->pc, dW, more), num_mul(a->pc, dH, more), num_mul(a->pc, dS, more));
  return value(s);
}

static Res iter_run(Analysis *a, Shape *f, Shape *x, Shape *count, EvalMode m, Site *site) {
  Sz k = require_size(a, count, site->pos, "the count of 'iter'");
  Res start_cost = value(x);
  eval_spend(a, m, &start_cost, num_of(a->k.iter));
  Res r;
  if (k.sym) {
    r = iter_symbolic(a, f, x, k, m, site);
  } else {
    if (k.k < 0) cost_fault(a, site->pos, "iter with a negative count (%lld)", (long long)k.k);
    r = m == EVAL_LOCAL ? iter_local(a, f, x, k.k, site) : value(iter_top(a, f, x, k.k, site));
  }
  r.cost = num_add(a->pc, r.cost, start_cost.cost);
  return r;
}

//
// The sequential builtins.
//

static Shape *redconcat_shape(Analysis *a, Shape *x, Site *site) {
  if (sz_is(x->n, 0)) return x;
  if (x->kind == SH_VEC && x->a->kind == SH_VEC)
    return shape_vec(&a->sh, length_op(a, OP_MUL, x->n, x->a->n, site), x->a->a);
  if (a->pc) return family_join(a, x);
  // Element i of the result: pieces of the concatenated vectors in order.
  int64_t n = x->n.k, total = 0;
  Shape *common = shape_elem(x, 0)->kind == SH_VEC ? shape_elem(x, 0)->a : NULL;
  for (int64_t i = 0; i < n; i++) {
    Shape *v = shape_elem(x, i);
    total = length_op(a, OP_ADD, sz_of(total), v->n, site).k;
    if (v->kind != SH_VEC || (v->a != common && !sz_is(v->n, 0))) common = NULL;
  }
  if (common) return shape_vec(&a->sh, sz_of(total), common);
  shape_reserve(&a->sh, total);
  Shape **out = arena_calloc(a->arena, (size_t)total, sizeof *out);
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    Shape *v = shape_elem(x, i);
    for (int64_t j = 0; j < v->n.k; j++) out[k++] = shape_elem(v, j);
  }
  return shape_vector(&a->sh, out, total);
}

static Shape *entry_shape(Analysis *a, Shape *v, Shape *index, Site *site) {
  if (index->kind == SH_SIZE && !index->n.sym && !v->n.sym) {
    int64_t i = index->n.k;
    if (i < 0 || i >= v->n.k)
      cost_fault(a, site->pos, "entry: index %lld is out of range for a vector of length %lld", (long long)i,
               (long long)v->n.k);
    return family_is(v) ? family_entry(a, v, index->n) : shape_elem(v, i);
  }
  if (family_is(v) && index->kind == SH_SIZE) return family_entry(a, v, index->n);
  if (sz_is(v->n, 0)) cost_fault(a, site->pos, "entry of an empty vector");
  if (v->kind == SH_VEC) return v->a;
  Shape *ev = shape_erase(&a->sh, v);
  if (shape_is_irregular(ev))
    error_at(site->pos, "entry with an index that depends on data, in a vector whose elements have "
                        "different shapes: %s", shape_format(&a->sh, ev));
  return ev->a;
}

static Shape *nonempty(Analysis *a, Shape *v, Site *site) {
  if (sz_is(v->n, 0)) cost_fault(a, site->pos, "%s of an empty vector", builtin_name(site->b));
  return v;
}

static Shape *dummyvec_shape(Analysis *a, Shape *spec, Site *site) {
  Sz n = require_size(a, spec->a, site->pos, "the length given to 'dummyvec'");
  if (!n.sym && n.k < 0) cost_fault(a, site->pos, "dummyvec of negative length %lld", (long long)n.k);
  return shape_vec(&a->sh, n, shape_erase(&a->sh, spec->b));
}

static Shape *iota_shape(Analysis *a, Shape *n, Site *site) {
  Sz len = require_size(a, n, site->pos, "the length given to 'iota'");
  if (!len.sym && len.k < 0) cost_fault(a, site->pos, "iota of negative length %lld", (long long)len.k);
  return shape_vec(&a->sh, len, shape_unit(&a->sh));
}

static Shape *split_shape(Analysis *a, Shape *k, Shape *v, Site *site) {
  regular_in_closed_form(a, v, site);
  Sz len = require_size(a, k, site->pos, "the length of the sublists of 'split'");
  if (len.sym || v->n.sym)
    error_at(site->pos, "--symbolic: 'split' makes as many sublists as its argument's length over k, which has "
                        "no closed form (give the parameters with -D)");
  if (len.k < 1) cost_fault(a, site->pos, "split into sublists of %lld elements (at least 1)", (long long)len.k);
  return shape_split(&a->sh, v, len.k);
}

// merge a b: as many scalars as both hold; one comparison for each when
// neither is empty (docs/language.md: the compiled merge compares at
// every step, so that the count is exact).
static Shape *merge_shape(Analysis *a, Shape *x, Shape *y, Num *c, Site *site) {
  Sz n = length_op(a, OP_ADD, x->n, y->n, site);
  *c = sz_is(x->n, 0) || sz_is(y->n, 0) ? num_of(0) : num_mul(a->pc, num_of(a->k.binop), num_sz(n));
  return shape_vec(&a->sh, n, shape_unit(&a->sh));
}

static Shape *sequential(Analysis *a, Shape *f, Shape *x, Num *c, Site *site) {
  const CostConstants *k = &a->k;
  switch (site->b) {
  case B_REDCONCAT: *c = concat_cost(a, x->n); return redconcat_shape(a, x, site);
  case B_LENGTH: *c = num_of(k->length); return shape_size(&a->sh, x->n);
  case B_ENTRY: *c = num_of(k->entry); return entry_shape(a, f->elems[0], x, site);
  case B_HD:
    *c = num_of(k->hd);
    if (family_is(x)) return family_entry(a, x, sz_of(0));
    return shape_elem(nonempty(a, x, site), 0);
  case B_TL:
    *c = num_of(k->tl);
    nonempty(a, x, site);
    if (family_is(x)) return family_tail(a, x);
    if (x->kind == SH_VEC) return shape_vec(&a->sh, length_op(a, OP_SUB, x->n, sz_of(1), site), x->a);
    return shape_vector(&a->sh, x->elems + 1, x->n.k - 1);
  case B_PAIR: *c = num_of(k->pair); return shape_pair(&a->sh, f->elems[0], x);
  case B_FST: *c = num_of(k->fst); return x->a;
  case B_SND: *c = num_of(k->snd); return x->b;
  case B_DUMMYVEC: *c = num_of(0); return dummyvec_shape(a, x, site);
  case B_FLOAT: *c = num_of(k->binop); return shape_unit(&a->sh);
  case B_IOTA: *c = num_of(0); return iota_shape(a, x, site);
  case B_SPLIT: {
    Shape *s = split_shape(a, f->elems[0], x, site);
    *c = concat_cost(a, s->n);  // cutting into pieces, as redconcat's joining
    return s;
  }
  case B_MERGE: return merge_shape(a, f->elems[0], x, c, site);
  case B_REVERSE:
    regular_in_closed_form(a, x, site);
    *c = concat_cost(a, x->n);
    return shape_reverse(&a->sh, x);
  default: error_at(site->pos, "internal error: '%s' is not sequential", builtin_name(site->b));
  }
}

Res builtin_run(Analysis *a, Shape *f, Res last, EvalMode m, Node *app) {
  Node *fn = f->node;
  a->sh.site = fn->pos;
  if (fn->kind == N_OPFN) {
    Res r = value(builtin_scalar_op(a, fn->op, f->elems[0], eval_force(a, last)));
    eval_spend(a, m, &r, num_of(a->k.binop));
    return r;
  }
  // Messages and supersteps name the application that gives the last argument.
  Site *site = arena_alloc(a->arena, sizeof *site);
  *site = (Site){app ? app->pos : fn->pos, fn->builtin};
  if (plan_is_skeleton(site->b)) return skeleton(a, f, last, m, site);
  Shape *x = eval_force(a, last);
  if (site->b == B_ITER) return iter_run(a, f->elems[0], f->elems[1], x, m, site);
  Num c;
  Res r = value(sequential(a, f, x, &c, site));
  eval_spend(a, m, &r, c);
  return r;
}
