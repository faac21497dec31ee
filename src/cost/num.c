// num.c: the numbers of the analysis: costs and word counts (Num) and sizes
// (Sz), each either concrete or, in a closed-form analysis, a polynomial.
#include "cost/costint.h"

#include <math.h>

Num num_of(double v) { return (Num){.v = v}; }

Num num_sz(Sz s) { return s.sym ? (Num){.sym = s.sym} : num_of((double)s.k); }

// Constants enter closed forms as exact rationals; the paper's constants
// are integers unless a machine file sets them otherwise.
const Poly *num_poly(PolyCtx *c, Num x) {
  if (x.sym) return x.sym;
  if (x.v == floor(x.v) && fabs(x.v) < 9e15) return poly_int(c, (int64_t)x.v);
  for (int64_t den = 2; den <= 1000000; den *= 10)
    if (x.v * (double)den == floor(x.v * (double)den) && fabs(x.v * (double)den) < 9e15)
      return poly_rat(c, (int64_t)(x.v * (double)den), den);
  fatal("--symbolic: the constant %g has no exact rational form", x.v);
}

Num num_add(PolyCtx *c, Num x, Num y) {
  if (!x.sym && !y.sym) return num_of(x.v + y.v);
  return (Num){.sym = poly_add(c, num_poly(c, x), num_poly(c, y))};
}

Num num_sub(PolyCtx *c, Num x, Num y) {
  if (!x.sym && !y.sym) return num_of(x.v - y.v);
  return (Num){.sym = poly_sub(c, num_poly(c, x), num_poly(c, y))};
}

Num num_mul(PolyCtx *c, Num x, Num y) {
  if (!x.sym && !y.sym) return num_of(x.v * y.v);
  return (Num){.sym = poly_mul(c, num_poly(c, x), num_poly(c, y))};
}

Num num_div(PolyCtx *c, Num x, Num y, Pos pos) {
  if (!x.sym && !y.sym) return num_of(x.v / y.v);
  const Poly *inv = poly_inverse_monomial(c, num_poly(c, y));
  if (!inv) error_at(pos, "--symbolic: this divides by a sum, which has no polynomial closed form");
  return (Num){.sym = poly_mul(c, num_poly(c, x), inv)};
}

bool num_is_zero(Num x) {
  int64_t num, den;
  return x.sym ? poly_constant(x.sym, &num, &den) && num == 0 : x.v == 0;
}

bool num_equal(PolyCtx *c, Num x, Num y) {
  if (x.sym || y.sym) return num_poly(c, x) == num_poly(c, y);
  return x.v == y.v;
}

Sz sz_of(int64_t k) { return (Sz){.k = k}; }

Sz sz_poly(PolyCtx *c, const Poly *p) {
  int64_t num, den;
  if (poly_constant(p, &num, &den) && den == 1) return sz_of(num);
  return (Sz){.sym = p};
}

bool size_arith(Op op, int64_t x, int64_t y, int64_t *r) {
  uint64_t p = (uint64_t)x, q = (uint64_t)y;
  int64_t v;
  switch (op) {
  case OP_ADD: v = (int64_t)(p + q); break;
  case OP_SUB: v = (int64_t)(p - q); break;
  case OP_MUL: v = (int64_t)(p * q); break;
  case OP_NEG: v = (int64_t)(0 - p); break;
  case OP_DIV: case OP_MOD:
    if (y == 0) return false;
    if (y == -1) v = op == OP_DIV ? (int64_t)(0 - p) : 0;
    else v = op == OP_DIV ? x / y : x % y;
    break;
  case OP_MAX: v = x > y ? x : y; break;
  case OP_MIN: v = x < y ? x : y; break;
  case OP_EQ: v = x == y; break;
  case OP_NE: v = x != y; break;
  case OP_LT: v = x < y; break;
  case OP_LE: v = x <= y; break;
  case OP_GT: v = x > y; break;
  case OP_GE: v = x >= y; break;
  case OP_AND: v = x && y; break;
  case OP_OR: v = x || y; break;
  case OP_NOT: v = !x; break;
  default: return false;
  }
  *r = v;
  return true;
}

bool sz_equal(Sz x, Sz y) { return x.sym == y.sym && (x.sym || x.k == y.k); }

bool sz_is(Sz x, int64_t k) { return !x.sym && x.k == k; }

char *sz_format(Arena *a, PolyCtx *c, Sz x) {
  if (x.sym) return poly_format(c, x.sym, -1);
  return arena_printf(a, "%lld", (long long)x.k);
}
