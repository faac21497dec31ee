// shape.c: hash-consed shapes. Every shape is built once: equal shapes are
// the same pointer, so an irregular shape (the vectors of vectors of
// different lengths that inits and tails build) costs memory and time in
// proportion to its distinct parts, and comparisons and memo keys are
// pointer comparisons.
#include "cost/costint.h"

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
  case SH_IRR:
    for (int64_t i = 0; i < s->n.k; i++) h = mix(h, s->elems[i]->hash);
    break;
  case SH_CLOSURE: case SH_PARTIAL:
    h = mix(h, (uint64_t)s->node->id);
    for (int i = 0; i < s->nargs; i++) h = mix(h, s->elems[i]->hash);
    for (int i = 0; s->origins && i < s->nargs; i++) h = mix(h, (uint64_t)(uintptr_t)s->origins[i]);
    break;
  }
  return h;
}

static bool same_pointers(void *x, void *y, int64_t n) {
  return n == 0 || memcmp(x, y, (size_t)n * sizeof(void *)) == 0;
}

static bool same_origins(const Shape *x, const Shape *y) {
  if (!x->origins || !y->origins) return x->origins == y->origins;
  return same_pointers(x->origins, y->origins, x->nargs);
}

static bool same_shape(const Shape *x, const Shape *y) {
  if (x->kind != y->kind || x->hash != y->hash) return false;
  switch (x->kind) {
  case SH_UNIT: return true;
  case SH_SIZE: return sz_equal(x->n, y->n);
  case SH_PAIR: return x->a == y->a && x->b == y->b;
  case SH_VEC: return sz_equal(x->n, y->n) && x->a == y->a;
  case SH_IRR: return x->n.k == y->n.k && same_pointers(x->elems, y->elems, x->n.k);
  case SH_CLOSURE: case SH_PARTIAL:
    return x->node == y->node && x->nargs == y->nargs && same_pointers(x->elems, y->elems, x->nargs) &&
           same_origins(x, y);
  }
  return false;
}

static void table_grow(Analysis *a) {
  ShapeTable *t = &a->shapes;
  size_t cap = t->cap ? t->cap * 2 : 1024;
  Shape **slot = arena_calloc(a->arena, cap, sizeof *slot);
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
static Shape *intern(Analysis *a, Shape *key, int64_t nelems) {
  key->hash = hash_shape(key);
  ShapeTable *t = &a->shapes;
  if ((t->count + 1) * 2 > t->cap) table_grow(a);
  size_t j = key->hash & (t->cap - 1);
  for (; t->slot[j]; j = (j + 1) & (t->cap - 1))
    if (same_shape(t->slot[j], key)) return t->slot[j];
  Shape *s = arena_alloc(a->arena, sizeof *s);
  *s = *key;
  if (nelems > 0) {
    s->elems = arena_calloc(a->arena, (size_t)nelems, sizeof *s->elems);
    memcpy(s->elems, key->elems, (size_t)nelems * sizeof *s->elems);
  }
  if (key->origins) {
    s->origins = arena_calloc(a->arena, (size_t)nelems + 1, sizeof *s->origins);
    memcpy(s->origins, key->origins, (size_t)nelems * sizeof *s->origins);
  }
  t->slot[j] = s;
  t->count++;
  return s;
}

//
// Constructors.
//

Shape *shape_unit(Analysis *a) {
  Shape key = {.kind = SH_UNIT, .words = num_of(1)};
  return intern(a, &key, 0);
}

Shape *shape_size(Analysis *a, Sz n) {
  Shape key = {.kind = SH_SIZE, .n = n, .words = num_of(1), .has_size = true};
  return intern(a, &key, 0);
}

Shape *shape_pair(Analysis *a, Shape *x, Shape *y) {
  Shape key = {.kind = SH_PAIR, .a = x, .b = y, .has_size = x->has_size || y->has_size};
  key.words = num_add(a->pc, x->words, y->words);
  return intern(a, &key, 0);
}

Shape *shape_vec(Analysis *a, Sz n, Shape *elem) {
  if (sz_is(n, 0)) elem = shape_unit(a);
  Shape key = {.kind = SH_VEC, .n = n, .a = elem, .has_size = elem->has_size};
  key.words = num_mul(a->pc, num_sz(n), elem->words);
  return intern(a, &key, 0);
}

void shape_reserve(Analysis *a, int64_t n) {
  if (n > a->budget)
    error_at(a->site->pos, "this builds vectors whose elements have different shapes, more than %lld "
                           "elements in all, which is more than the analysis holds",
             (long long)IRREGULAR_MAX);
}

static void spend_budget(Analysis *a, int64_t n) {
  if (a->pc)
    error_at(a->site->pos, "--symbolic: this builds a vector whose elements have different shapes, "
                           "which has no closed form (give the parameters with -D)");
  shape_reserve(a, n);
  a->budget -= n;
}

Shape *shape_vector(Analysis *a, Shape **elems, int64_t n) {
  int64_t i = 1;
  while (i < n && elems[i] == elems[0]) i++;
  if (i >= n) return shape_vec(a, sz_of(n), n ? elems[0] : shape_unit(a));
  spend_budget(a, n);
  Shape key = {.kind = SH_IRR, .n = sz_of(n), .elems = elems};
  Shape *s = intern(a, &key, n);
  if (!s->prefix) {
    s->prefix = arena_calloc(a->arena, (size_t)n + 1, sizeof *s->prefix);
    for (int64_t j = 0; j < n; j++) {
      s->prefix[j + 1] = s->prefix[j] + elems[j]->words.v;
      s->has_size |= elems[j]->has_size;
    }
    s->words = num_of(s->prefix[n]);
  }
  return s;
}

static Num args_words(Analysis *a, Shape **args, int n, Num extra) {
  for (int i = 0; i < n; i++) extra = num_add(a->pc, extra, args[i]->words);
  return extra;
}

Shape *shape_closure(Analysis *a, Node *lam, Shape **captured, Origin **origins, int n, Num global_words) {
  Shape key = {.kind = SH_CLOSURE, .node = lam, .elems = captured, .origins = n ? origins : NULL, .nargs = n};
  key.words = args_words(a, captured, n, global_words);
  return intern(a, &key, n);
}

Shape *shape_partial(Analysis *a, Node *fn, Shape **args, Origin **origins, int n) {
  Shape key = {.kind = SH_PARTIAL, .node = fn, .elems = args, .origins = n ? origins : NULL, .nargs = n};
  key.words = args_words(a, args, n, num_of(0));
  return intern(a, &key, n);
}

//
// Queries.
//

bool shape_is_function(Shape *s) { return s->kind == SH_CLOSURE || s->kind == SH_PARTIAL; }

bool shape_is_vector(Shape *s) { return s->kind == SH_VEC || s->kind == SH_IRR; }

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
Shape *shape_erase(Analysis *a, Shape *s) {
  if (!s->has_size) return s;
  if (s->erased) return s->erased;
  Shape *r;
  switch (s->kind) {
  case SH_SIZE: r = shape_unit(a); break;
  case SH_PAIR: r = shape_pair(a, shape_erase(a, s->a), shape_erase(a, s->b)); break;
  case SH_VEC: r = shape_vec(a, s->n, shape_erase(a, s->a)); break;
  case SH_IRR: {
    Shape **e = arena_calloc(a->arena, (size_t)s->n.k, sizeof *e);
    for (int64_t i = 0; i < s->n.k; i++) e[i] = shape_erase(a, s->elems[i]);
    r = shape_vector(a, e, s->n.k);
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

static char *format(Analysis *a, Shape *s) {
  Arena *ar = a->arena;
  switch (s->kind) {
  case SH_UNIT: case SH_SIZE: return "1";
  case SH_PAIR: return arena_printf(ar, "<%s, %s>", format(a, s->a), format(a, s->b));
  case SH_VEC: return arena_printf(ar, "(%s, %s)", sz_format(ar, a->pc, s->n), format(a, s->a));
  case SH_IRR: {
    char *r = "[";
    int64_t n = s->n.k < FORMAT_ELEMS ? s->n.k : FORMAT_ELEMS;
    for (int64_t i = 0; i < n; i++) r = arena_printf(ar, "%s%s%s", r, i ? ", " : "", format(a, s->elems[i]));
    if (n < s->n.k) r = arena_printf(ar, "%s, ... (%lld elements)", r, (long long)s->n.k);
    return arena_printf(ar, "%s]", r);
  }
  case SH_CLOSURE: case SH_PARTIAL: return "a function";
  }
  return "?";
}

char *shape_format(Analysis *a, Shape *s) { return format(a, s); }
