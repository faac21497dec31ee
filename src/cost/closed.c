// closed.c: what the closed forms of `cost --symbolic` need beyond
// polynomials: the variables of a closed-form analysis (the parameters, p,
// log2(p), the indices of families), integer functions of them that the
// paper model's integer blocks bring in (floor(x/p), ceil(x/p), the row of
// a joined family a position falls in) as variables of their own, the
// conditions under which the forms hold, and their values at a point.
#include "cost/costint.h"
#include "ir/ir.h"

#include <string.h>

typedef enum { ATOM_FLOOR, ATOM_CEIL, ATOM_ROW } AtomKind;

// A variable that stands for an integer function of the variables before it.
typedef struct Atom {
  AtomKind kind;
  int var;            // its variable
  const Poly *x;      // floor(x), ceil(x); a row: the position m
  const Poly *t;      // a row: the positions before row r (t in the variable row_var)
  const Poly *rows;   // a row: the number of rows
  char *definition;   // a row: "r1 = max{r <= rows : t(r) <= m}"
} Atom;

// A condition on the parameters: x >= 2, or x != 0.
typedef struct Condition {
  const Poly *x;
  bool at_least_two;
} Condition;

struct CostClosed {
  PolyCtx *pc;
  int nparams;          // variables 0 .. nparams-1 are the parameters
  int pvar, log2var;    // p and ceil(log2 p)
  int row_var;          // r, in the definitions of rows
  PtrVec atoms;         // Atom *, each defined by the variables before it
  PtrVec conditions;    // Condition *
  const Poly *form[3];  // W, H, S
};

static int add_var(CostClosed *cf, const char *name) {
  int v = poly_ctx_add_var(cf->pc, name);
  if (v < 0)
    fatal("--symbolic: the closed form needs more than %d variables (parameters, p, indices and the "
          "floors and rows of its blocks); give some parameters with -D", POLY_MAXVARS);
  return v;
}

void closed_setup(Analysis *a) {
  CostClosed *cf = arena_alloc(a->arena, sizeof *cf);
  Program *prog = a->prog;
  cf->pc = poly_ctx_new(a->arena);
  cf->nparams = prog->nparams;
  for (int i = 0; i < prog->nparams; i++) add_var(cf, prog->params[i]->name);
  cf->pvar = add_var(cf, "p");
  cf->log2var = add_var(cf, "log2(p)");
  static const char *binders[FAMILY_LEVELS] = {"i", "j", "k", "l"};
  for (int h = 0; h < FAMILY_LEVELS; h++) a->sh.binder[h] = add_var(cf, binders[h]);
  for (int d = 0; d < 2 * FAMILY_LEVELS; d++) a->sh.scratch[d] = add_var(cf, arena_printf(a->arena, "x%d", d));
  cf->row_var = add_var(cf, "r");
  a->cl = cf;
  a->pc = a->sh.pc = cf->pc;
  a->P = (Num){.sym = poly_var(cf->pc, cf->pvar)};
  a->LOG2P = (Num){.sym = poly_var(cf->pc, cf->log2var)};
  a->p = 0;
}

//
// Atoms.
//

// The atom equal to key, named name when new.
static Atom *atom(Analysis *a, Atom key, const char *name) {
  CostClosed *cf = a->cl;
  for (int i = 0; i < cf->atoms.len; i++) {
    Atom *at = cf->atoms.data[i];
    if (at->kind == key.kind && at->x == key.x && at->t == key.t && at->rows == key.rows) return at;
  }
  Atom *at = arena_alloc(a->arena, sizeof *at);
  *at = key;
  at->var = add_var(cf, name);
  ptrvec_push(a->arena, &cf->atoms, at);
  return at;
}

static const Poly *over_p(Analysis *a, const Poly *x) {
  return poly_mul(a->pc, x, poly_inverse_monomial(a->pc, num_poly(a->pc, a->P)));
}

// How many atoms of this kind are named, for a new name.
static int count(CostClosed *cf, AtomKind kind) {
  int k = 0;
  for (int i = 0; i < cf->atoms.len; i++) {
    Atom *at = cf->atoms.data[i];
    k += at->kind == kind && at->definition;
  }
  return k;
}

// floor(x/p) or ceil(x/p): written out when x is a constant or one
// variable ("ceil(n/p)"), else named ("c1", defined below the forms).
static const Poly *rounded(Analysis *a, AtomKind kind, const Poly *x) {
  CostClosed *cf = a->cl;
  const Poly *q = over_p(a, x);
  const char *fn = kind == ATOM_FLOOR ? "floor" : "ceil";
  char *text = arena_printf(a->arena, "%s(%s)", fn, poly_format(cf->pc, q, cf->pvar));
  uint64_t vars = poly_vars(x);
  int64_t num, den;
  bool simple = poly_constant(x, &num, &den) || (!(vars & (vars - 1)) && x == poly_var(cf->pc, __builtin_ctzll(vars)));
  char *name = simple ? text : arena_printf(a->arena, "%c%d", kind == ATOM_FLOOR ? 'q' : 'c', count(cf, kind) + 1);
  Atom *at = atom(a, (Atom){.kind = kind, .x = q}, name);
  if (!simple && !at->definition) at->definition = arena_printf(a->arena, "%s = %s", name, text);
  return poly_var(cf->pc, at->var);
}

const Poly *closed_floor(Analysis *a, const Poly *x) { return rounded(a, ATOM_FLOOR, x); }

const Poly *closed_ceil(Analysis *a, const Poly *x) { return rounded(a, ATOM_CEIL, x); }

const Poly *closed_row(Analysis *a, const Poly *t, int var, const Poly *rows, const Poly *m) {
  CostClosed *cf = a->cl;
  t = poly_subst(cf->pc, t, var, poly_var(cf->pc, cf->row_var));
  char *name = arena_printf(a->arena, "r%d", count(cf, ATOM_ROW) + 1);
  Atom *at = atom(a, (Atom){.kind = ATOM_ROW, .x = m, .t = t, .rows = rows}, name);
  if (!at->definition)
    at->definition = arena_printf(a->arena, "%s = max{r <= %s : %s <= %s}", name, poly_format(cf->pc, rows, cf->pvar),
                                  poly_format(cf->pc, t, cf->pvar), poly_format(cf->pc, m, cf->pvar));
  return poly_var(cf->pc, at->var);
}

void closed_assume(Analysis *a, const Poly *x, bool at_least_two) {
  int64_t num, den;
  if (poly_constant(x, &num, &den)) {
    if (at_least_two ? num < 2 * den : num == 0)
      error_at(a->sh.site, "internal error: a closed form assumes what does not hold");
    return;
  }
  CostClosed *cf = a->cl;
  for (int i = 0; i < cf->conditions.len; i++) {
    Condition *c = cf->conditions.data[i];
    if (c->x == x && c->at_least_two == at_least_two) return;
  }
  Condition *c = arena_alloc(a->arena, sizeof *c);
  *c = (Condition){x, at_least_two};
  ptrvec_push(a->arena, &cf->conditions, c);
}

//
// Values at a point.
//

// Is t(r) <= m at vals (t and m integers there)?
static bool row_fits(const CostClosed *cf, const Atom *at, int64_t *vals, int64_t r) {
  vals[cf->row_var] = r;
  const Poly *d = poly_sub(cf->pc, at->t, at->x);
  int64_t f;
  return poly_value_floor(d, vals, &f) ? f <= 0 : poly_value(d, vals) <= 0;
}

static bool atom_value(const CostClosed *cf, const Atom *at, int64_t *vals) {
  int64_t v = 0;
  switch (at->kind) {
  case ATOM_FLOOR: if (!poly_value_floor(at->x, vals, &v)) return false; break;
  case ATOM_CEIL: {
    if (!poly_value_floor(poly_sub(cf->pc, poly_int(cf->pc, 0), at->x), vals, &v)) return false;
    v = -v;
    break;
  }
  case ATOM_ROW: {
    int64_t lo = 0, hi;
    if (!poly_value_floor(at->rows, vals, &hi)) return false;
    while (lo < hi) {  // the largest r in [lo, hi] that fits
      int64_t mid = lo + (hi - lo + 1) / 2;
      if (row_fits(cf, at, vals, mid)) lo = mid;
      else hi = mid - 1;
    }
    v = lo;
    break;
  }
  }
  vals[at->var] = v;
  return true;
}

bool cost_closed_value(const CostClosed *cf, const int64_t *params, int p, double out[3]) {
  int64_t vals[POLY_MAXVARS] = {0};
  for (int i = 0; i < cf->nparams; i++) vals[i] = params[i];
  vals[cf->pvar] = p;
  vals[cf->log2var] = range_tree_rounds(p);  // ceil(log2 p)
  for (int i = 0; i < cf->atoms.len; i++)
    if (!atom_value(cf, cf->atoms.data[i], vals)) return false;
  for (int i = 0; i < cf->conditions.len; i++) {
    const Condition *c = cf->conditions.data[i];
    double x = poly_value(c->x, vals);
    if (c->at_least_two ? x < 2 : x == 0) return false;
  }
  for (int k = 0; k < 3; k++) out[k] = poly_value(cf->form[k], vals);
  return true;
}

//
// The result.
//

// The single parameter the conditions bound, and from which value they
// hold: each non-decreasing in it (no negative coefficient but the
// constant's); false when there is no such bound.
bool cost_closed_from(const CostClosed *cf, int *param, int64_t *from) {
  *param = -1, *from = 0;
  for (int i = 0; i < cf->conditions.len; i++) {
    const Condition *c = cf->conditions.data[i];
    uint64_t vars = poly_vars(c->x);
    if (vars & (vars - 1) || vars >> cf->nparams) return false;  // not one parameter
    int k = __builtin_ctzll(vars);
    if (*param >= 0 && k != *param) return false;
    *param = k;
    int64_t vals[POLY_MAXVARS] = {0};
    const Poly *slope = poly_sub(cf->pc, c->x, poly_subst(cf->pc, c->x, k, poly_int(cf->pc, 0)));
    if (!poly_nonneg(slope)) return false;
    for (vals[k] = 0; vals[k] <= 64; vals[k]++) {
      double x = poly_value(c->x, vals);
      if (c->at_least_two ? x >= 2 : x > 0) break;
    }
    if (vals[k] > 64) return false;
    if (vals[k] > *from) *from = vals[k];
  }
  return *param >= 0;
}

static char *conditions_text(Arena *ar, const CostClosed *cf) {
  int param;
  int64_t from;
  if (!cf->conditions.len) return NULL;
  if (cost_closed_from(cf, &param, &from))
    return arena_printf(ar, "%s >= %lld", poly_ctx_name(cf->pc, param), (long long)from);
  char *s = "";
  for (int i = 0; i < cf->conditions.len; i++) {
    const Condition *c = cf->conditions.data[i];
    s = arena_printf(ar, "%s%s%s %s", s, i ? " and " : "", poly_format(cf->pc, c->x, cf->pvar),
                     c->at_least_two ? ">= 2" : "!= 0");
  }
  return s;
}

static char *definitions_text(Arena *ar, const CostClosed *cf) {
  char *s = NULL;
  for (int i = 0; i < cf->atoms.len; i++) {
    const Atom *at = cf->atoms.data[i];
    if (at->definition) s = s ? arena_printf(ar, "%s\n%s", s, at->definition) : at->definition;
  }
  return s;
}

void closed_result(Analysis *a, Num W, Num H, Num S, CostResult *r) {
  CostClosed *cf = a->cl;
  Num forms[3] = {W, H, S};
  const char **texts[3] = {&r->W_form, &r->H_form, &r->S_form};
  for (int k = 0; k < 3; k++) {
    cf->form[k] = num_poly(cf->pc, forms[k]);
    *texts[k] = poly_format(cf->pc, cf->form[k], cf->pvar);
  }
  r->where_form = definitions_text(a->arena, cf);
  r->valid_form = conditions_text(a->arena, cf);
  r->closed = cf;
}
