// poly.c: Laurent polynomials with rational coefficients, the numbers of
// the closed forms printed by `vecbsp cost --symbolic`. Polynomials are
// interned: equal polynomials are the same pointer.
#include "cost/costint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Term {
  int64_t num, den;         // coefficient num/den: den > 0, reduced, num != 0
  int8_t e[POLY_MAXVARS];   // exponent of each variable (negative: a divisor)
} Term;

struct Poly {
  int n;         // number of terms (0: the zero polynomial)
  uint32_t hash; // of the terms
  uint64_t vars; // bit v set: variable v occurs
  Term *t;       // sorted by exponents, one term per exponent vector
};

struct PolyCtx {
  Arena *arena;        // owns the polynomials
  const char *names[POLY_MAXVARS];  // variable names, for printing
  int nvars;           // variables in use
  const Poly **slot;   // interned polynomials (open addressing)
  size_t cap, count;   // table size (a power of two) and entries
};

PolyCtx *poly_ctx_new(Arena *a) {
  PolyCtx *c = arena_alloc(a, sizeof *c);
  c->arena = a;
  c->cap = 256;
  c->slot = arena_calloc(a, c->cap, sizeof *c->slot);
  return c;
}

int poly_ctx_add_var(PolyCtx *c, const char *name) {
  if (c->nvars == POLY_MAXVARS) return -1;
  c->names[c->nvars] = name;
  return c->nvars++;
}

int poly_ctx_nvars(const PolyCtx *c) { return c->nvars; }

const char *poly_ctx_name(const PolyCtx *c, int var) { return c->names[var]; }

//
// Rational coefficients, with overflow checks.
//

static __int128 gcd128(__int128 x, __int128 y) {
  if (x < 0) x = -x;
  if (y < 0) y = -y;
  while (y) {
    __int128 r = x % y;
    x = y;
    y = r;
  }
  return x;
}

static void rat_set(Term *t, __int128 num, __int128 den) {
  if (den < 0) num = -num, den = -den;
  __int128 g = gcd128(num, den);
  if (g > 1) num /= g, den /= g;
  if (num > INT64_MAX || num < -INT64_MAX || den > INT64_MAX)
    fatal("--symbolic: a coefficient of the closed form overflows 64 bits");
  t->num = (int64_t)num;
  t->den = (int64_t)den;
}

static void rat_add(Term *t, const Term *u) {
  rat_set(t, (__int128)t->num * u->den + (__int128)u->num * t->den, (__int128)t->den * u->den);
}

//
// Construction and interning.
//

static int cmp_exponents(const void *x, const void *y) {
  return memcmp(((const Term *)x)->e, ((const Term *)y)->e, POLY_MAXVARS);
}

static uint32_t hash_terms(const Term *t, int n) {
  uint64_t h = 1469598103934665603u;
  const unsigned char *p = (const unsigned char *)t;
  for (size_t i = 0; i < (size_t)n * sizeof *t; i++) h = (h ^ p[i]) * 1099511628211u;
  return (uint32_t)(h ^ (h >> 32));
}

static bool same_terms(const Poly *x, const Term *t, int n) {
  return x->n == n && memcmp(x->t, t, (size_t)n * sizeof *t) == 0;
}

static void grow(PolyCtx *c) {
  size_t cap = c->cap * 2;
  const Poly **slot = arena_calloc(c->arena, cap, sizeof *slot);
  for (size_t i = 0; i < c->cap; i++)
    if (c->slot[i]) {
      size_t j = c->slot[i]->hash & (cap - 1);
      while (slot[j]) j = (j + 1) & (cap - 1);
      slot[j] = c->slot[i];
    }
  c->slot = slot;
  c->cap = cap;
}

// Sorts, merges equal exponents, drops zeros and interns. Terms are scratch.
static const Poly *make(PolyCtx *c, Term *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_exponents);
  int m = 0;
  for (int i = 0; i < n; i++) {
    if (m > 0 && memcmp(t[m - 1].e, t[i].e, POLY_MAXVARS) == 0)
      rat_add(&t[m - 1], &t[i]);
    else
      t[m++] = t[i];
    if (t[m - 1].num == 0) m--;
  }
  uint32_t h = hash_terms(t, m);
  size_t j = h & (c->cap - 1);
  for (; c->slot[j]; j = (j + 1) & (c->cap - 1))
    if (c->slot[j]->hash == h && same_terms(c->slot[j], t, m)) return c->slot[j];
  Poly *x = arena_alloc(c->arena, sizeof *x);
  x->n = m;
  x->hash = h;
  for (int i = 0; i < m; i++)
    for (int v = 0; v < POLY_MAXVARS; v++)
      if (t[i].e[v]) x->vars |= (uint64_t)1 << v;
  x->t = arena_calloc(c->arena, (size_t)m + 1, sizeof *x->t);
  if (m) memcpy(x->t, t, (size_t)m * sizeof *t);
  c->slot[j] = x;
  if (++c->count * 2 > c->cap) grow(c);
  return x;
}

const Poly *poly_rat(PolyCtx *c, int64_t num, int64_t den) {
  Term t = {0};
  rat_set(&t, num, den);
  return make(c, &t, 1);
}

const Poly *poly_int(PolyCtx *c, int64_t k) { return poly_rat(c, k, 1); }

const Poly *poly_var(PolyCtx *c, int var) {
  Term t = {.num = 1, .den = 1};
  t.e[var] = 1;
  return make(c, &t, 1);
}

//
// Arithmetic.
//

static const Poly *combine(PolyCtx *c, const Poly *x, const Poly *y, int64_t ysign) {
  Term *t = arena_calloc(c->arena, (size_t)x->n + (size_t)y->n + 1, sizeof *t);
  memcpy(t, x->t, (size_t)x->n * sizeof *t);
  for (int i = 0; i < y->n; i++) {
    t[x->n + i] = y->t[i];
    t[x->n + i].num *= ysign;
  }
  return make(c, t, x->n + y->n);
}

const Poly *poly_add(PolyCtx *c, const Poly *x, const Poly *y) { return combine(c, x, y, 1); }
const Poly *poly_sub(PolyCtx *c, const Poly *x, const Poly *y) { return combine(c, x, y, -1); }

static void mul_term(Term *r, const Term *x, const Term *y) {
  for (int v = 0; v < POLY_MAXVARS; v++) {
    int e = x->e[v] + y->e[v];
    if (e > 127 || e < -127) fatal("--symbolic: an exponent of the closed form exceeds 127");
    r->e[v] = (int8_t)e;
  }
  rat_set(r, (__int128)x->num * y->num, (__int128)x->den * y->den);
}

const Poly *poly_mul(PolyCtx *c, const Poly *x, const Poly *y) {
  size_t n = (size_t)x->n * (size_t)y->n;
  Term *t = arena_calloc(c->arena, n + 1, sizeof *t);
  for (int i = 0; i < x->n; i++)
    for (int j = 0; j < y->n; j++) mul_term(&t[(size_t)i * (size_t)y->n + (size_t)j], &x->t[i], &y->t[j]);
  return make(c, t, (int)n);
}

const Poly *poly_inverse_monomial(PolyCtx *c, const Poly *x) {
  if (x->n != 1) return NULL;
  Term t;
  for (int v = 0; v < POLY_MAXVARS; v++) t.e[v] = (int8_t)-x->t[0].e[v];
  rat_set(&t, x->t[0].den, x->t[0].num);
  return make(c, &t, 1);
}

static bool is_constant_term(const Term *t) {
  for (int v = 0; v < POLY_MAXVARS; v++)
    if (t->e[v]) return false;
  return true;
}

bool poly_constant(const Poly *x, int64_t *num, int64_t *den) {
  if (x->n == 0) {
    *num = 0, *den = 1;
    return true;
  }
  if (x->n > 1 || !is_constant_term(&x->t[0])) return false;
  *num = x->t[0].num, *den = x->t[0].den;
  return true;
}

//
// Substitution and sums over a variable (the elements of a family of
// vectors, src/cost/family.c).
//

uint64_t poly_vars(const Poly *x) { return x->vars; }

int poly_degree(const Poly *x, int var) {
  int d = 0;
  for (int i = 0; i < x->n; i++)
    if (x->t[i].e[var] > d) d = x->t[i].e[var];
  return d;
}

// The terms of x in which var has exponent e, with var removed.
static const Poly *coefficient(PolyCtx *c, const Poly *x, int var, int e) {
  Term *t = arena_calloc(c->arena, (size_t)x->n + 1, sizeof *t);
  int n = 0;
  for (int i = 0; i < x->n; i++)
    if (x->t[i].e[var] == e) {
      t[n] = x->t[i];
      t[n++].e[var] = 0;
    }
  return make(c, t, n);
}

static const Poly *power(PolyCtx *c, const Poly *x, int k) {
  const Poly *r = poly_int(c, 1);
  for (int i = 0; i < k; i++) r = poly_mul(c, r, x);
  return r;
}

const Poly *poly_subst(PolyCtx *c, const Poly *x, int var, const Poly *y) {
  if (!(x->vars >> var & 1)) return x;
  const Poly *r = poly_int(c, 0);
  for (int e = poly_degree(x, var); e >= 0; e--) r = poly_add(c, poly_mul(c, r, y), coefficient(c, x, var, e));
  return r;
}

// sum_{i < m} i^k, for k = 0.. in turn: from sum_{i < m} ((i + 1)^(k+1) - i^(k+1)) = m^(k+1),
// (k + 1) S_k = m^(k+1) - sum_{j < k} C(k+1, j) S_j.
static const Poly *power_sum(PolyCtx *c, const Poly **s, int k, const Poly *m) {
  const Poly *r = power(c, m, k + 1);
  int64_t binom = 1;  // C(k+1, j)
  for (int j = 0; j < k; j++) {
    r = poly_sub(c, r, poly_mul(c, poly_int(c, binom), s[j]));
    binom = binom * (k + 1 - j) / (j + 1);
  }
  return poly_mul(c, r, poly_rat(c, 1, k + 1));
}

const Poly *poly_sum(PolyCtx *c, const Poly *x, int var, const Poly *m) {
  int d = poly_degree(x, var);
  if (d > 30) fatal("--symbolic: a sum of a power above 30 of an index");
  const Poly *s[32], *r = poly_int(c, 0);
  for (int k = 0; k <= d; k++) {
    s[k] = power_sum(c, s, k, m);
    r = poly_add(c, r, poly_mul(c, coefficient(c, x, var, k), s[k]));
  }
  return r;
}

bool poly_nonneg(const Poly *x) {
  for (int i = 0; i < x->n; i++)
    if (x->t[i].num < 0) return false;
  return true;
}

//
// Values at a point: every variable an integer (p > 0 where it divides).
//

// x exactly, as num/den, if no step overflows 128 bits.
static bool value_exact(const Poly *x, const int64_t *vals, __int128 *num, __int128 *den) {
  __int128 n = 0, d = 1;
  for (int i = 0; i < x->n; i++) {
    __int128 tn = x->t[i].num, td = x->t[i].den;
    for (int v = 0; v < POLY_MAXVARS; v++)
      for (int e = x->t[i].e[v]; e != 0; e += e > 0 ? -1 : 1)
        if (__builtin_mul_overflow(e > 0 ? tn : td, (__int128)vals[v], e > 0 ? &tn : &td)) return false;
    if (td < 0) tn = -tn, td = -td;
    if (td == 0) return false;
    __int128 g = gcd128(d, td), l, a, b;
    if (__builtin_mul_overflow(d / g, td, &l) || __builtin_mul_overflow(n, l / d, &a) ||
        __builtin_mul_overflow(tn, l / td, &b) || __builtin_add_overflow(a, b, &n))
      return false;
    d = l;
    g = gcd128(n, d);
    if (g > 1) n /= g, d /= g;
  }
  *num = n, *den = d;
  return true;
}

double poly_value(const Poly *x, const int64_t *vals) {
  __int128 num, den;
  if (value_exact(x, vals, &num, &den)) return (double)((long double)num / (long double)den);
  long double r = 0;
  for (int i = 0; i < x->n; i++) {
    long double t = (long double)x->t[i].num / (long double)x->t[i].den;
    for (int v = 0; v < POLY_MAXVARS; v++)
      if (x->t[i].e[v]) t *= powl((long double)vals[v], x->t[i].e[v]);
    r += t;
  }
  return (double)r;
}

bool poly_value_floor(const Poly *x, const int64_t *vals, int64_t *r) {
  __int128 num, den, q;
  if (!value_exact(x, vals, &num, &den)) return false;
  q = num / den;
  if (num % den != 0 && num < 0) q--;
  if (q > INT64_MAX || q < INT64_MIN) return false;
  *r = (int64_t)q;
  return true;
}

//
// Printing: x = N * (var - 1)^k / (d * var^j) with N a polynomial with
// integer coefficients, the form in which the papers write their costs.
//

// The terms of x in which var has exponent e.
static const Poly *terms_with(PolyCtx *c, const Poly *x, int var, int e) {
  Term *t = arena_calloc(c->arena, (size_t)x->n + 1, sizeof *t);
  int n = 0;
  for (int i = 0; i < x->n; i++)
    if (x->t[i].e[var] == e) t[n++] = x->t[i];
  return make(c, t, n);
}

static const Poly *monomial(PolyCtx *c, int var, int e) {
  Term t = {.num = 1, .den = 1};
  t.e[var] = (int8_t)e;
  return make(c, &t, 1);
}

// x / (var - 1) when it divides exactly, else NULL.
static const Poly *divide_by_var_minus_one(PolyCtx *c, const Poly *x, int var) {
  const Poly *q = poly_int(c, 0), *r = x;
  const Poly *inv = monomial(c, var, -1);
  while (r->n > 0) {
    int e = INT8_MIN;
    for (int i = 0; i < r->n; i++)
      if (r->t[i].e[var] > e) e = r->t[i].e[var];
    if (e <= 0) return NULL;
    // r = T*var^e + rest: T*var^(e-1)*(var - 1) removes T*var^e.
    const Poly *lead = terms_with(c, r, var, e);
    const Poly *step = poly_mul(c, lead, inv);
    q = poly_add(c, q, step);
    r = poly_add(c, poly_sub(c, r, lead), step);
  }
  return q;
}

static int degree(const Term *t) {
  int d = 0;
  for (int v = 0; v < POLY_MAXVARS; v++) d += t->e[v];
  return d;
}

// Higher degree first, then higher exponents of earlier variables.
static int cmp_print(const void *x, const void *y) {
  const Term *a = x, *b = y;
  int da = degree(a), db = degree(b);
  if (da != db) return db - da;
  for (int v = 0; v < POLY_MAXVARS; v++)
    if (a->e[v] != b->e[v]) return b->e[v] - a->e[v];
  return 0;
}

static char *append(Arena *a, char *s, const char *more) { return arena_printf(a, "%s%s", s, more); }

static char *format_factors(PolyCtx *c, const Term *t, char *s, bool coef_printed) {
  bool first = !coef_printed;
  for (int v = 0; v < c->nvars; v++) {
    if (!t->e[v]) continue;
    s = append(c->arena, s, first ? "" : "*");
    s = append(c->arena, s, c->names[v]);
    if (t->e[v] != 1) s = arena_printf(c->arena, "%s^%d", s, t->e[v]);
    first = false;
  }
  return s;
}

// A polynomial with integer coefficients and no negative exponents.
static char *format_sum(PolyCtx *c, const Poly *x, int *nterms) {
  Term *t = arena_calloc(c->arena, (size_t)x->n + 1, sizeof *t);
  memcpy(t, x->t, (size_t)x->n * sizeof *t);
  qsort(t, (size_t)x->n, sizeof *t, cmp_print);
  char *s = "";
  for (int i = 0; i < x->n; i++) {
    int64_t k = t[i].num;
    if (i > 0) s = append(c->arena, s, k < 0 ? " - " : " + ");
    else if (k < 0) s = append(c->arena, s, "-");
    uint64_t mag = k < 0 ? (uint64_t)0 - (uint64_t)k : (uint64_t)k;
    bool coef = mag != 1 || is_constant_term(&t[i]);
    if (coef) s = arena_printf(c->arena, "%s%llu", s, (unsigned long long)mag);
    s = format_factors(c, &t[i], s, coef);
  }
  *nterms = x->n;
  return s;
}

char *poly_format(PolyCtx *c, const Poly *x, int var) {
  if (x->n == 0) return "0";
  if (var < 0) {
    int nterms;
    return format_sum(c, x, &nterms);
  }
  int j = 0;
  __int128 d = 1;
  for (int i = 0; i < x->n; i++) {
    if (-x->t[i].e[var] > j) j = -x->t[i].e[var];
    d = d / gcd128(d, x->t[i].den) * x->t[i].den;
    if (d > INT64_MAX) fatal("--symbolic: a coefficient of the closed form overflows 64 bits");
  }
  const Poly *num = poly_mul(c, poly_mul(c, x, monomial(c, var, j)), poly_int(c, (int64_t)d));
  int k = 0;
  for (const Poly *q; num->n > 1 && (q = divide_by_var_minus_one(c, num, var)); num = q) k++;
  int nterms;
  char *s = format_sum(c, num, &nterms);
  bool bare = nterms == 1 && s[0] != '-';
  if (k > 0) {
    if (strcmp(s, "1") == 0) s = "";
    else s = bare ? append(c->arena, s, "*") : arena_printf(c->arena, "(%s)*", s);
    s = arena_printf(c->arena, k == 1 ? "%s(%s - 1)" : "%s(%s - 1)^%d", s, c->names[var], k);
  } else if (!bare && (j > 0 || d > 1)) {
    s = arena_printf(c->arena, "(%s)", s);
  }
  if (j == 0 && d == 1) return s;
  char *den = j == 0 ? arena_printf(c->arena, "%lld", (long long)d)
            : j == 1 ? (char *)c->names[var]
                     : arena_printf(c->arena, "%s^%d", c->names[var], j);
  if (j > 0 && d > 1) den = arena_printf(c->arena, "(%lld*%s)", (long long)d, den);
  return arena_printf(c->arena, "%s/%s", s, den);
}
