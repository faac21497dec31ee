// family.c: vectors whose elements differ, in a closed-form analysis
// (`cost --symbolic`). inits and tails of a vector of n elements make the
// family [(i + 1, e) for i < n] (shape.c, SH_FAM); redconcat of a family of
// vectors joins their elements (SH_CAT). A function is applied to a
// family's elements once, at a symbolic index, so its cost is a polynomial
// in the index; the paper model's integer blocks over the elements become
// sums of polynomials over an index (Faulhaber), with floor(n/p), ceil(n/p)
// and the row a position of a join falls in as variables (closed.c). The
// numeric model (shape.c's SH_IRR, paper.c) stays the definition: these
// forms equal it wherever the vectors they price are irregular there, which
// the conditions they record say (docs/cost-model.md, "Closed forms").
#include "cost/costint.h"

bool family_is(Shape *x) { return x->kind == SH_FAM || x->kind == SH_CAT; }

static _Noreturn void no_closed_form(Analysis *a, const char *what) {
  error_at(a->sh.site, "--symbolic: %s has no closed form (give the parameters with -D)", what);
}

// A variable to stand for an element's index while a function is applied to it.
static int take_index(Analysis *a) {
  if (a->sh.depth == 2 * FAMILY_LEVELS) no_closed_form(a, "a function applied inside this many nested vectors of vectors");
  return a->sh.scratch[a->sh.depth++];
}

static const Poly *var(Analysis *a, int v) { return poly_var(a->pc, v); }
static const Poly *lit(Analysis *a, int64_t k) { return poly_int(a->pc, k); }
static const Poly *len(Analysis *a, Shape *v) { return num_poly(a->pc, num_sz(v->n)); }
static const Poly *add(Analysis *a, const Poly *x, const Poly *y) { return poly_add(a->pc, x, y); }
static const Poly *sub(Analysis *a, const Poly *x, const Poly *y) { return poly_sub(a->pc, x, y); }

// Element i of a regular vector or a family.
static Shape *elem_at(Analysis *a, Shape *v, const Poly *i) {
  if (v->kind == SH_CAT) no_closed_form(a, "an element of a joined vector, or one beside another vector's,");
  return shape_family_elem(&a->sh, v, i);
}

//
// inits, tails, redconcat.
//

Shape *family_segments(Analysis *a, Builtin b, Shape *x) {
  if (x->kind == SH_CAT) no_closed_form(a, arena_printf(a->arena, "'%s' of a joined vector", builtin_name(b)));
  int k = take_index(a), j = take_index(a);
  Sz seg_len = sz_poly(a->pc, add(a, var(a, k), lit(a, 1)));
  Shape *seg;  // segment k, of k + 1 elements: element j is x's j (inits) or n - 1 - k + j (tails)
  if (x->kind == SH_VEC) {
    seg = shape_vec(&a->sh, seg_len, x->a);
  } else {
    const Poly *at = b == B_INITS ? var(a, j) : add(a, sub(a, len(a, x), add(a, var(a, k), lit(a, 1))), var(a, j));
    seg = shape_family(&a->sh, seg_len, elem_at(a, x, at), j);
  }
  Shape *segments = shape_family(&a->sh, x->n, seg, k);
  a->sh.depth -= 2;
  return segments;
}

Shape *family_join(Analysis *a, Shape *x) {
  if (x->kind == SH_CAT) no_closed_form(a, "'redconcat' of a joined vector");
  if (!shape_is_vector(x->a) || x->a->kind == SH_CAT)
    no_closed_form(a, "'redconcat' of vectors of joined vectors");
  return shape_join(&a->sh, x);
}

Shape *family_entry(Analysis *a, Shape *v, Sz index) { return elem_at(a, v, num_poly(a->pc, num_sz(index))); }

Shape *family_tail(Analysis *a, Shape *v) {
  if (v->kind == SH_CAT) no_closed_form(a, "'tl' of a joined vector");
  int i = take_index(a);
  Shape *r = shape_family(&a->sh, sz_poly(a->pc, sub(a, len(a, v), lit(a, 1))), elem_at(a, v, add(a, var(a, i), lit(a, 1))), i);
  a->sh.depth--;
  return r;
}

//
// Functions applied to the elements.
//

Shape *family_map(Analysis *a, Shape *x, Shape *y, ElemFn fn, void *ctx, ElemCosts *ec) {
  Shape *over = family_is(x) ? x : y;
  int i = take_index(a), j = over->kind == SH_CAT ? take_index(a) : -1;
  Shape *row = NULL, *ex, *ey;  // over's row i, when it joins rows
  if (over->kind == SH_CAT) {
    Shape *other = x == over ? y : x;
    if (other && other->kind != SH_VEC) no_closed_form(a, "a joined vector taken element by element beside another");
    row = shape_family_elem(&a->sh, over->b, var(a, i));
    Shape *e = shape_family_elem(&a->sh, row, var(a, j));
    ex = x == over ? e : elem_at(a, x, lit(a, 0));
    ey = !y ? NULL : y == over ? e : elem_at(a, y, lit(a, 0));
  } else {
    ex = elem_at(a, x, var(a, i));
    ey = y ? elem_at(a, y, var(a, i)) : NULL;
  }
  Res r = fn(a, ctx, ex, ey);
  a->sh.depth -= row ? 2 : 1;
  *ec = (ElemCosts){.n = over->n, .over = over, .at = num_poly(a->pc, r.cost), .var = {i, j}};
  if (!row) return shape_family(&a->sh, over->n, r.s, i);
  Shape *rows = shape_family(&a->sh, over->b->n, shape_family(&a->sh, row->n, r.s, j), i);
  return shape_join(&a->sh, rows);
}

//
// Sums over the elements: all of them, those of process 0's block, the
// busiest process's.
//

// A family or join seen through two index variables: element (i, j) is
// element j of row i; a family is one row of n.
typedef struct View {
  Shape *over;
  int i, j;             // the variables
  const Poly *rows;     // the number of rows
  const Poly *row_len;  // the length of row i
  const Poly *before;   // the elements before row i
} View;

static View view(Analysis *a, Shape *over, int i, int j) {
  View v = {.over = over, .i = i, .j = j};
  if (over->kind == SH_FAM) {
    v.rows = lit(a, 1), v.row_len = len(a, over), v.before = lit(a, 0);
    return v;
  }
  v.rows = len(a, over->b);
  v.row_len = len(a, shape_family_elem(&a->sh, over->b, var(a, i)));
  v.before = poly_sum(a->pc, v.row_len, i, var(a, i));
  return v;
}

// The element's shape, at the view's variables.
static Shape *view_elem(Analysis *a, View *v) {
  if (v->over->kind == SH_FAM) return shape_family_elem(&a->sh, v->over, var(a, v->j));
  return shape_family_elem(&a->sh, shape_family_elem(&a->sh, v->over->b, var(a, v->i)), var(a, v->j));
}

// The sum of x (in i and j) over the elements before position m: the rows
// before the one m falls in, and the first elements of that one.
static const Poly *sum_before(Analysis *a, View *v, const Poly *x, const Poly *m) {
  PolyCtx *c = a->pc;
  if (v->over->kind == SH_FAM) return poly_sum(c, x, v->j, m);
  const Poly *r = closed_row(a, v->before, v->i, v->rows, m);
  const Poly *whole_rows = poly_sum(c, poly_sum(c, x, v->j, v->row_len), v->i, r);
  const Poly *t = sub(a, m, poly_subst(c, v->before, v->i, r));
  return add(a, whole_rows, poly_subst(c, poly_sum(c, x, v->j, t), v->i, r));
}

static const Poly *sum_all(Analysis *a, View *v, const Poly *x) {
  const Poly *row = poly_sum(a->pc, x, v->j, v->row_len);
  return v->over->kind == SH_FAM ? row : poly_sum(a->pc, row, v->i, v->rows);
}

// A size in s that depends on variable var, or NULL.
static const Poly *index_size(Shape *s, int var) {
  if (!(s->vars >> var & 1)) return NULL;
  if (s->n.sym && poly_vars(s->n.sym) >> var & 1) return s->n.sym;
  const Poly *found = NULL;
  Shape *kids[] = {s->a, s->b};
  for (int k = 0; k < 2 && !found; k++)
    if (kids[k]) found = index_size(kids[k], var);
  for (int k = 0; !found && (s->kind == SH_CLOSURE || s->kind == SH_PARTIAL) && k < s->nargs; k++)
    found = index_size(s->elems[k], var);
  return found;
}

// Where the elements at index 0 and 1 of var (the others as at) differ: the
// vector the numeric model builds is irregular there, as these forms price it.
static void assume_differ(Analysis *a, Shape *e, int var) {
  PolyCtx *c = a->pc;
  const Poly *s = index_size(e, var);
  const Poly *d = s ? sub(a, poly_subst(c, s, var, lit(a, 1)), poly_subst(c, s, var, lit(a, 0))) : lit(a, 0);
  if (d == lit(a, 0)) no_closed_form(a, "a vector whose first two elements have one shape and the others not");
  closed_assume(a, d, false);
}

// The numeric model prices over as an irregular vector: its elements are
// not all one shape (element 0 and 1 of the last row differ, or the first
// elements of rows 0 and 1).
static void assume_irregular(Analysis *a, View *v) {
  PolyCtx *c = a->pc;
  Shape *e = view_elem(a, v);
  if (v->over->kind == SH_FAM) {
    closed_assume(a, v->row_len, true);
    assume_differ(a, e, v->j);
    return;
  }
  if (e->vars >> v->j & 1) {
    const Poly *last = sub(a, v->rows, lit(a, 1));
    closed_assume(a, poly_subst(c, v->row_len, v->i, last), true);
    assume_differ(a, shape_subst(&a->sh, e, v->i, last), v->j);
    return;
  }
  closed_assume(a, v->rows, true);
  closed_assume(a, poly_subst(c, v->row_len, v->i, lit(a, 0)), false);
  closed_assume(a, poly_subst(c, v->row_len, v->i, lit(a, 1)), false);
  assume_differ(a, shape_subst(&a->sh, e, v->j, lit(a, 0)), v->i);
}

Num family_total(Analysis *a, const ElemCosts *ec) {
  View v = view(a, ec->over, ec->var[0], ec->over->kind == SH_FAM ? ec->var[0] : ec->var[1]);
  return (Num){.sym = sum_all(a, &v, ec->at)};
}

Num family_first_words(Analysis *a, Shape *x) {
  int i = take_index(a), j = take_index(a);
  View v = view(a, x, i, x->kind == SH_FAM ? i : j);
  assume_irregular(a, &v);
  const Poly *first = closed_floor(a, len(a, x));  // process 0's block: [0, floor(n/p))
  Num words = {.sym = sum_before(a, &v, num_poly(a->pc, view_elem(a, &v)->words), first)};
  a->sh.depth -= 2;
  return words;
}

// Is x >= 0 wherever var is in [0, n)? It is when x has no negative
// coefficient (every variable is >= 0), or none once n's parameter is
// written var + 1 + u with u >= 0, when n is a parameter plus a constant.
static bool nonneg_below(Analysis *a, const Poly *x, int i, const Poly *n) {
  if (poly_nonneg(x)) return true;
  uint64_t vars = poly_vars(n);
  if (!vars || vars & (vars - 1)) return false;
  int v = __builtin_ctzll(vars);
  const Poly *c = sub(a, n, var(a, v));  // n = v + c
  if (poly_vars(c)) return false;
  int u = take_index(a);
  bool nonneg = poly_nonneg(poly_subst(a->pc, x, v, add(a, add(a, var(a, i), lit(a, 1)), sub(a, var(a, u), c))));
  a->sh.depth--;
  return nonneg;
}

// Does x grow (or stay) from var to var + 1, wherever var + 1 < n?
static bool grows(Analysis *a, const Poly *x, int i, const Poly *n) {
  const Poly *step = sub(a, poly_subst(a->pc, x, i, add(a, var(a, i), lit(a, 1))), x);
  return nonneg_below(a, step, i, sub(a, n, lit(a, 1)));
}

// The busiest process's share of the elements' costs. The blocks
// [floor(k n/p), floor((k+1) n/p)) differ by one element at most, and the
// last is one of the largest; when the costs grow along the vector (and, in
// a join, the rows grow and each row costs at least the one before it,
// element by element) no run of elements costs more than the last as many,
// so the last block is the busiest.
Num family_busiest(Analysis *a, const ElemCosts *ec, Pos pos) {
  bool fam = ec->over->kind == SH_FAM;
  View v = view(a, ec->over, ec->var[0], fam ? ec->var[0] : ec->var[1]);
  PolyCtx *c = a->pc;
  const Poly *first = poly_subst(c, poly_subst(c, ec->at, v.i, lit(a, 0)), v.j, lit(a, 0));
  bool growing = fam ? nonneg_below(a, first, v.j, v.row_len) && grows(a, ec->at, v.j, v.row_len)
                     : nonneg_below(a, first, v.i, v.rows) && poly_nonneg(sub(a, poly_subst(c, ec->at, v.j, add(a, var(a, v.j), lit(a, 1))), ec->at)) &&
                           grows(a, ec->at, v.i, v.rows) && grows(a, v.row_len, v.i, v.rows);
  if (!growing)
    error_at(pos, "--symbolic: which process is the busiest here has no closed form: the costs of the elements "
                  "do not grow along the vector (give the parameters with -D)");
  assume_irregular(a, &v);
  const Poly *n = len(a, ec->over), *last = sub(a, n, closed_ceil(a, n));  // [n - ceil(n/p), n)
  return (Num){.sym = sub(a, sum_all(a, &v, ec->at), sum_before(a, &v, ec->at, last))};
}
