// shape.c: hash-consed shapes (shape.h). Every shape is built once: equal shapes are
// the same pointer, so an irregular shape (the vectors of vectors of
// different lengths that inits and tails build) costs memory and time in
// proportion to its distinct parts, and comparisons and memo keys are
// pointer comparisons.
#include "cost/shape.h"

#include <string.h>

static uint32_t mix(uint32_t h, uint64_t x) {
  uint64_t z = (h ^ x) * 0x9e3779b97f4a7c15u;
  z ^= z >> 29;
  return (uint32_t)(z ^ (z >> 32));
}

static uint32_t hash_sz(Sz n) { return n.sym ? mix(7, (uint64_t)(uintptr_t)n.sym) : mix(3, (uint64_t)n.k); }

static uint32_t hash_shape(const Shape *s) {
  uint32_t h = mix((uint32_t)s->kind, 0);
  switch (s->kind) {
  case SH_UNIT: break;
  case SH_SIZE: h = mix(h, hash_sz(s->n)); break;
  case SH_PAIR: h = mix(mix(h, s->a->hash), s->b->hash); break;
  case SH_VEC: h = mix(mix(h, hash_sz(s->n)), s->a->hash); break;
  case SH_FAM: h = mix(mix(mix(h, hash_sz(s->n)), s->a->hash), (uint64_t)s->nargs); break;
  case SH_CAT: h = mix(h, s->b->hash); break;
  case SH_IRR:
    for (int64_t i = 0; i < s->n.k; i++) h = mix(h, s->elems[i]->hash);
    break;
  case SH_CLOSURE: case SH_PARTIAL:
    h = mix(h, (uint64_t)s->node->id);
    for (int i = 0; i < s->nargs; i++) h = mix(h, s->elems[i]->hash);
    break;
  }
  return h;
}

static bool same_pointers(void *x, void *y, int64_t n) {
  return n == 0 || memcmp(x, y, (size_t)n * sizeof(void *)) == 0;
}

static bool same_shape(const Shape *x, const Shape *y) {
  if (x->kind != y->kind || x->hash != y->hash) return false;
  switch (x->kind) {
  case SH_UNIT: return true;
  case SH_SIZE: return sz_equal(x->n, y->n);
  case SH_PAIR: return x->a == y->a && x->b == y->b;
  case SH_VEC: return sz_equal(x->n, y->n) && x->a == y->a;
  case SH_FAM: return sz_equal(x->n, y->n) && x->a == y->a && x->nargs == y->nargs;
  case SH_CAT: return x->b == y->b;
  case SH_IRR: return x->n.k == y->n.k && same_pointers(x->elems, y->elems, x->n.k);
  case SH_CLOSURE: case SH_PARTIAL:
    return x->node == y->node && x->nargs == y->nargs && same_pointers(x->elems, y->elems, x->nargs);
  }
  return false;
}

static void table_grow(Shapes *sh) {
  ShapeTable *t = &sh->table;
  size_t cap = t->cap ? t->cap * 2 : 1024;
  Shape **slot = arena_calloc(sh->arena, cap, sizeof *slot);
  for (size_t i = 0; i < t->cap; i++)
    if (t->slot[i]) {
      size_t j = t->slot[i]->hash & (cap - 1);
      while (slot[j]) j = (j + 1) & (cap - 1);
      slot[j] = t->slot[i];
    }
  t->slot = slot;
  t->cap = cap;
}

// The shape equal to key, built from key (whose elems are scratch) when new.
static Shape *intern(Shapes *sh, Shape *key, int64_t nelems) {
  key->hash = hash_shape(key);
  ShapeTable *t = &sh->table;
  if ((t->count + 1) * 2 > t->cap) table_grow(sh);
  size_t j = key->hash & (t->cap - 1);
  for (; t->slot[j]; j = (j + 1) & (t->cap - 1))
    if (same_shape(t->slot[j], key)) return t->slot[j];
  Shape *s = arena_alloc(sh->arena, sizeof *s);
  *s = *key;
  if (nelems > 0) {
    s->elems = arena_calloc(sh->arena, (size_t)nelems, sizeof *s->elems);
    memcpy(s->elems, key->elems, (size_t)nelems * sizeof *s->elems);
  }
  t->slot[j] = s;
  t->count++;
  return s;
}

//
// Constructors.
//

static uint64_t sz_vars(Sz n) { return n.sym ? poly_vars(n.sym) : 0; }

Shape *shape_unit(Shapes *sh) {
  Shape key = {.kind = SH_UNIT, .words = num_of(1)};
  return intern(sh, &key, 0);
}

Shape *shape_size(Shapes *sh, Sz n) {
  Shape key = {.kind = SH_SIZE, .n = n, .words = num_of(1), .has_size = true, .vars = sz_vars(n)};
  return intern(sh, &key, 0);
}

static int max_int(int x, int y) { return x > y ? x : y; }

Shape *shape_pair(Shapes *sh, Shape *x, Shape *y) {
  Shape key = {.kind = SH_PAIR, .a = x, .b = y, .has_size = x->has_size || y->has_size};
  key.vars = x->vars | y->vars, key.height = max_int(x->height, y->height);
  key.words = num_add(sh->pc, x->words, y->words);
  return intern(sh, &key, 0);
}

Shape *shape_vec(Shapes *sh, Sz n, Shape *elem) {
  if (sz_is(n, 0)) elem = shape_unit(sh);
  Shape key = {.kind = SH_VEC, .n = n, .a = elem, .has_size = elem->has_size, .vars = sz_vars(n) | elem->vars,
               .height = elem->height};
  key.words = num_mul(sh->pc, num_sz(n), elem->words);
  return intern(sh, &key, 0);
}

void shape_reserve(Shapes *sh, int64_t n) {
  if (n > sh->budget)
    error_at(sh->site, "this builds vectors whose elements have different shapes, more than %lld "
                           "elements in all, which is more than the analysis holds%s",
             (long long)IRREGULAR_MAX, sh->limit_hint ? sh->limit_hint : "");
}

// Do the elems differ only in the values of the sizes they hold?
static bool differ_in_sizes(Shapes *sh, Shape **elems, int64_t n) {
  for (int64_t i = 1; i < n; i++)
    if (shape_erase(sh, elems[i]) != shape_erase(sh, elems[0])) return false;
  return true;
}

static void spend_budget(Shapes *sh, Shape **elems, int64_t n) {
  if (sh->pc && differ_in_sizes(sh, elems, n))
    error_at(sh->site, "--symbolic: this builds a vector of different sizes (integer literals and lengths are "
                       "sizes), whose values have no closed form (give the parameters with -D)");
  if (sh->pc)
    error_at(sh->site, "--symbolic: this builds a vector whose elements have different shapes, "
                           "which has no closed form (give the parameters with -D)");
  shape_reserve(sh, n);
  sh->budget -= n;
}

Shape *shape_vector(Shapes *sh, Shape **elems, int64_t n) {
  int64_t i = 1;
  while (i < n && elems[i] == elems[0]) i++;
  if (i >= n) return shape_vec(sh, sz_of(n), n ? elems[0] : shape_unit(sh));
  spend_budget(sh, elems, n);
  Shape key = {.kind = SH_IRR, .n = sz_of(n), .elems = elems};
  Shape *s = intern(sh, &key, n);
  if (!s->prefix) {
    s->prefix = arena_calloc(sh->arena, (size_t)n + 1, sizeof *s->prefix);
    for (int64_t j = 0; j < n; j++) {
      s->prefix[j + 1] = s->prefix[j] + elems[j]->words.v;
      s->has_size |= elems[j]->has_size;
      s->vars |= elems[j]->vars;
      s->height = max_int(s->height, elems[j]->height);
    }
    s->words = num_of(s->prefix[n]);
  }
  return s;
}

// A function's words, free variables and levels, from the values it holds.
static void args_words(Shapes *sh, Shape *key, Num extra) {
  for (int i = 0; i < key->nargs; i++) {
    extra = num_add(sh->pc, extra, key->elems[i]->words);
    key->vars |= key->elems[i]->vars;
    key->height = max_int(key->height, key->elems[i]->height);
  }
  key->words = extra;
}

Shape *shape_closure(Shapes *sh, Node *lam, Shape **captured, int n, Num global_words) {
  Shape key = {.kind = SH_CLOSURE, .node = lam, .elems = captured, .nargs = n};
  args_words(sh, &key, global_words);
  return intern(sh, &key, n);
}

Shape *shape_partial(Shapes *sh, Node *fn, Shape **args, int n) {
  Shape key = {.kind = SH_PARTIAL, .node = fn, .elems = args, .nargs = n};
  args_words(sh, &key, num_of(0));
  return intern(sh, &key, n);
}

//
// Families (closed forms). A family binds one variable, by level:
// binder[h] where h is the height of its element (the levels the families
// inside it bind), so that the variable it binds is free nowhere inside,
// and equal families are one shape.
//

static uint64_t bit(int var) { return (uint64_t)1 << var; }

static const Poly *var_poly(Shapes *sh, int var) { return poly_var(sh->pc, var); }

Shape *shape_family(Shapes *sh, Sz n, Shape *elem, int var) {
  if (sz_is(n, 0)) return shape_vec(sh, n, shape_unit(sh));
  if (!(elem->vars & bit(var))) return shape_vec(sh, n, elem);
  if (sz_is(n, 1)) return shape_vec(sh, n, shape_subst(sh, elem, var, poly_int(sh->pc, 0)));
  int h = elem->height;
  if (h >= FAMILY_LEVELS)
    error_at(sh->site, "--symbolic: this builds vectors of vectors of different lengths nested more than %d deep, "
                       "which the closed forms do not follow (give the parameters with -D)", FAMILY_LEVELS);
  int b = sh->binder[h];
  if (var != b) elem = shape_subst(sh, elem, var, var_poly(sh, b));
  Shape key = {.kind = SH_FAM, .n = n, .a = elem, .nargs = h, .has_size = elem->has_size, .height = h + 1};
  key.vars = (sz_vars(n) | elem->vars) & ~bit(b);
  key.words = (Num){.sym = poly_sum(sh->pc, num_poly(sh->pc, elem->words), b, num_poly(sh->pc, num_sz(n)))};
  return intern(sh, &key, 0);
}

Shape *shape_family_elem(Shapes *sh, Shape *fam, const Poly *i) {
  if (fam->kind == SH_VEC) return fam->a;
  return shape_subst(sh, fam->a, sh->binder[fam->nargs], i);
}

// The length of the rows before row `row` (sum of their lengths).
static const Poly *rows_before(Shapes *sh, Shape *rows, const Poly *row) {
  PolyCtx *c = sh->pc;
  if (rows->kind == SH_VEC) return poly_mul(c, row, num_poly(c, num_sz(rows->a->n)));
  return poly_sum(c, num_poly(c, num_sz(rows->a->n)), sh->binder[rows->nargs], row);
}

Shape *shape_join(Shapes *sh, Shape *rows) {
  Shape *row = rows->a;  // with the family's index free
  if (rows->kind == SH_VEC && sz_is(rows->n, 1)) return row;
  Sz n = sz_poly(sh->pc, rows_before(sh, rows, num_poly(sh->pc, num_sz(rows->n))));
  if (row->kind == SH_VEC && (rows->kind == SH_VEC || !(row->a->vars & bit(sh->binder[rows->nargs]))))
    return shape_vec(sh, n, row->a);
  Shape key = {.kind = SH_CAT, .n = n, .b = rows, .has_size = rows->has_size, .vars = rows->vars,
               .height = rows->height, .words = rows->words};
  return intern(sh, &key, 0);
}

static Shape *subst_args(Shapes *sh, Shape *s, int var, const Poly *y) {
  Shape **args = arena_calloc(sh->arena, (size_t)s->nargs + 1, sizeof *args);
  for (int i = 0; i < s->nargs; i++) args[i] = shape_subst(sh, s->elems[i], var, y);
  if (s->kind == SH_PARTIAL) return shape_partial(sh, s->node, args, s->nargs);
  Num global = s->words;  // the closure's words less its captured values'
  for (int i = 0; i < s->nargs; i++) global = num_sub(sh->pc, global, s->elems[i]->words);
  return shape_closure(sh, s->node, args, s->nargs, global);
}

Shape *shape_subst(Shapes *sh, Shape *s, int var, const Poly *y) {
  if (!(s->vars & bit(var))) return s;
  PolyCtx *c = sh->pc;
  Sz n = s->n.sym ? sz_poly(c, poly_subst(c, s->n.sym, var, y)) : s->n;
  switch (s->kind) {
  case SH_SIZE: return shape_size(sh, n);
  case SH_PAIR: return shape_pair(sh, shape_subst(sh, s->a, var, y), shape_subst(sh, s->b, var, y));
  case SH_VEC: return shape_vec(sh, n, shape_subst(sh, s->a, var, y));
  case SH_FAM: return shape_family(sh, n, shape_subst(sh, s->a, var, y), sh->binder[s->nargs]);
  case SH_CAT: return shape_join(sh, shape_subst(sh, s->b, var, y));
  case SH_IRR: {
    Shape **e = arena_calloc(sh->arena, (size_t)s->n.k, sizeof *e);
    for (int64_t i = 0; i < s->n.k; i++) e[i] = shape_subst(sh, s->elems[i], var, y);
    return shape_vector(sh, e, s->n.k);
  }
  case SH_CLOSURE: case SH_PARTIAL: return subst_args(sh, s, var, y);
  case SH_UNIT: break;
  }
  return s;
}

//
// Queries.
//

bool shape_is_function(Shape *s) { return s->kind == SH_CLOSURE || s->kind == SH_PARTIAL; }

bool shape_is_vector(Shape *s) { return s->kind == SH_VEC || shape_is_irregular(s); }

bool shape_is_irregular(Shape *s) { return s->kind == SH_IRR || s->kind == SH_FAM || s->kind == SH_CAT; }

Shape *shape_elem(Shape *v, int64_t i) { return v->kind == SH_VEC ? v->a : v->elems[i]; }

double shape_block_words(Shape *v, int64_t lo, int64_t hi) {
  switch (v->kind) {
  case SH_PAIR: return shape_block_words(v->a, lo, hi) + shape_block_words(v->b, lo, hi);
  case SH_VEC: return (double)(hi - lo) * v->a->words.v;
  case SH_IRR: return v->prefix[hi] - v->prefix[lo];
  default: return 0;
  }
}

// Sizes held as data are data: the shape a data conditional compares.
Shape *shape_erase(Shapes *sh, Shape *s) {
  if (!s->has_size) return s;
  if (s->erased) return s->erased;
  Shape *r;
  switch (s->kind) {
  case SH_SIZE: r = shape_unit(sh); break;
  case SH_PAIR: r = shape_pair(sh, shape_erase(sh, s->a), shape_erase(sh, s->b)); break;
  case SH_VEC: r = shape_vec(sh, s->n, shape_erase(sh, s->a)); break;
  case SH_FAM: r = shape_family(sh, s->n, shape_erase(sh, s->a), sh->binder[s->nargs]); break;
  case SH_CAT: r = shape_join(sh, shape_erase(sh, s->b)); break;
  case SH_IRR: {
    Shape **e = arena_calloc(sh->arena, (size_t)s->n.k, sizeof *e);
    for (int64_t i = 0; i < s->n.k; i++) e[i] = shape_erase(sh, s->elems[i]);
    r = shape_vector(sh, e, s->n.k);
    break;
  }
  default: r = s; break;
  }
  return s->erased = r;
}

//
// Printing, as language.md writes shapes: 1, <a, b>, (n, e), [e1, e2, ...].
//

enum { FORMAT_ELEMS = 6 };

static char *format(Shapes *sh, Shape *s) {
  Arena *ar = sh->arena;
  switch (s->kind) {
  case SH_UNIT: case SH_SIZE: return "1";
  case SH_PAIR: return arena_printf(ar, "<%s, %s>", format(sh, s->a), format(sh, s->b));
  case SH_VEC: return arena_printf(ar, "(%s, %s)", sz_format(ar, sh->pc, s->n), format(sh, s->a));
  case SH_FAM: {
    const char *i = poly_ctx_name(sh->pc, sh->binder[s->nargs]);
    return arena_printf(ar, "[%s for %s < %s]", format(sh, s->a), i, sz_format(ar, sh->pc, s->n));
  }
  case SH_CAT: return arena_printf(ar, "redconcat %s", format(sh, s->b));
  case SH_IRR: {
    char *r = "[";
    int64_t n = s->n.k < FORMAT_ELEMS ? s->n.k : FORMAT_ELEMS;
    for (int64_t i = 0; i < n; i++) r = arena_printf(ar, "%s%s%s", r, i ? ", " : "", format(sh, s->elems[i]));
    if (n < s->n.k) r = arena_printf(ar, "%s, ... (%lld elements)", r, (long long)s->n.k);
    return arena_printf(ar, "%s]", r);
  }
  case SH_CLOSURE: case SH_PARTIAL: return "a function";
  }
  return "?";
}

char *shape_format(Shapes *sh, Shape *s) { return format(sh, s); }

//
// Message words (shape.h).
//

double shape_packed(Shape *s) {
  if (s->packed) return s->packed;
  double w = 1;
  switch (s->kind) {
  case SH_PAIR: w = shape_packed(s->a) + shape_packed(s->b); break;
  case SH_VEC: w = 1 + (sz_is(s->n, 0) ? 0 : (double)s->n.k * shape_packed(s->a)); break;
  case SH_IRR:
    for (int64_t i = 0; i < s->n.k; i++) w += shape_packed(s->elems[i]);
    break;
  default: break;
  }
  return s->packed = w;
}

// SH_IRR caches: packed words of elements before i; end of i's run of
// equal lengths (vectors) or i itself.
static void index_irregular(Shapes *sh, Shape *v) {
  int64_t n = v->n.k;
  v->bprefix = arena_calloc(sh->arena, (size_t)n + 1, sizeof *v->bprefix);
  v->run_end = arena_calloc(sh->arena, (size_t)n + 1, sizeof *v->run_end);
  for (int64_t i = 0; i < n; i++) v->bprefix[i + 1] = v->bprefix[i] + shape_packed(v->elems[i]);
  for (int64_t i = n - 1; i >= 0; i--) {
    Shape *e = v->elems[i];
    bool same = i + 1 < n && shape_is_vector(e) && shape_is_vector(v->elems[i + 1]) &&
                sz_equal(e->n, v->elems[i + 1]->n);
    v->run_end[i] = same ? v->run_end[i + 1] : i;
  }
}

double shape_message_words(Shapes *sh, Shape *v, int64_t from, int64_t to) {
  if (v->kind == SH_PAIR) return shape_message_words(sh, v->a, from, to) + shape_message_words(sh, v->b, from, to);
  if (from >= to) return 0;
  if (v->kind == SH_VEC) return (double)(to - from) * (shape_packed(v->a) - shape_is_vector(v->a));
  if (!v->bprefix) index_irregular(sh, v);
  bool regular = shape_is_vector(v->elems[from]) && v->run_end[from] >= to - 1;
  return v->bprefix[to] - v->bprefix[from] - (regular ? (double)(to - from) : 0);
}

// A value's vectors, itself included.
static double vectors_in(Shape *s) {
  if (s->kind == SH_PAIR) return vectors_in(s->a) + vectors_in(s->b);
  return shape_is_vector(s) ? 1 + shape_vectors(s, 0, s->n.k) : 0;
}

double shape_vectors(Shape *v, int64_t from, int64_t to) {
  if (v->kind == SH_PAIR) return shape_vectors(v->a, from, to) + shape_vectors(v->b, from, to);
  if (!shape_is_vector(v)) return 0;
  if (v->kind == SH_VEC) return (double)(to - from) * vectors_in(v->a);
  double n = 0;
  for (int64_t i = from; i < to; i++) n += vectors_in(v->elems[i]);
  return n;
}

double shape_value_words(Shapes *sh, Shape *v) {
  return shape_is_vector(v) ? shape_message_words(sh, v, 0, v->n.k) : shape_packed(v);
}

//
// The sequential builtins that rearrange a vector.
//

Shape *shape_split(Shapes *sh, Shape *v, int64_t k) {
  int64_t n = v->n.k, m = n / k + (n % k != 0);
  if (v->kind == SH_VEC && n % k == 0) return shape_vec(sh, sz_of(m), shape_vec(sh, sz_of(k), v->a));
  Shape **parts = arena_calloc(sh->arena, (size_t)m + 1, sizeof *parts);
  for (int64_t j = 0; j < m; j++) {
    int64_t len = j + 1 < m || n % k == 0 ? k : n % k;
    parts[j] = v->kind == SH_VEC ? shape_vec(sh, sz_of(len), v->a) : shape_vector(sh, v->elems + j * k, len);
  }
  return shape_vector(sh, parts, m);
}

Shape *shape_reverse(Shapes *sh, Shape *v) {
  if (v->kind == SH_VEC) return v;
  int64_t n = v->n.k;
  Shape **out = arena_calloc(sh->arena, (size_t)n + 1, sizeof *out);
  for (int64_t i = 0; i < n; i++) out[i] = v->elems[n - 1 - i];
  return shape_vector(sh, out, n);
}

Shape *shape_neighbours(Shapes *sh, Shape *l, Shape *r, Shape *v) {
  l = shape_erase(sh, l), r = shape_erase(sh, r), v = shape_erase(sh, v);
  if (v->kind == SH_VEC && (sz_is(v->n, 0) || (l == v->a && r == v->a)))
    return shape_vec(sh, v->n, shape_pair(sh, v->a, shape_pair(sh, v->a, v->a)));
  int64_t n = v->n.k;
  Shape **out = arena_calloc(sh->arena, (size_t)n + 1, sizeof *out);
  for (int64_t i = 0; i < n; i++)
    out[i] = shape_pair(sh, i ? shape_elem(v, i - 1) : l,
                        shape_pair(sh, shape_elem(v, i), i + 1 < n ? shape_elem(v, i + 1) : r));
  return shape_vector(sh, out, n);
}
