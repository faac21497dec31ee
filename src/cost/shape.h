// shape.h: the shapes of values, shared by the cost analyser (src/cost)
// and the exact cost model (src/cost/exact.c): numbers and sizes that may be
// closed forms, and hash-consed shapes with their message word counts.
#ifndef VECBSP_SHAPE_H
#define VECBSP_SHAPE_H

#include "lang/lang.h"

//
// poly.c: Laurent polynomials with rational coefficients, interned so that
// equal polynomials are the same pointer. They are the numbers of the
// closed forms (--symbolic).
//

enum { POLY_MAXVARS = 48 };

typedef struct Poly Poly;
typedef struct PolyCtx PolyCtx;

PolyCtx *poly_ctx_new(Arena *a);
int poly_ctx_add_var(PolyCtx *c, const char *name);  // its number; -1 when POLY_MAXVARS are in use
int poly_ctx_nvars(const PolyCtx *c);
const char *poly_ctx_name(const PolyCtx *c, int var);
const Poly *poly_int(PolyCtx *c, int64_t k);
const Poly *poly_rat(PolyCtx *c, int64_t num, int64_t den);
const Poly *poly_var(PolyCtx *c, int var);
const Poly *poly_add(PolyCtx *c, const Poly *x, const Poly *y);
const Poly *poly_sub(PolyCtx *c, const Poly *x, const Poly *y);
const Poly *poly_mul(PolyCtx *c, const Poly *x, const Poly *y);
const Poly *poly_inverse_monomial(PolyCtx *c, const Poly *x);  // NULL unless x is one term
bool poly_constant(const Poly *x, int64_t *num, int64_t *den);  // is x a constant?
// x written as (numerator)*(var - 1)^k/(d*var^j): var is the one that
// divides; var < 0: x has integer coefficients, written as a plain sum.
char *poly_format(PolyCtx *c, const Poly *x, int var);
uint64_t poly_vars(const Poly *x);            // bit v set: variable v occurs in x
int poly_degree(const Poly *x, int var);      // the highest power of var in x
const Poly *poly_subst(PolyCtx *c, const Poly *x, int var, const Poly *y);  // x with var := y (var not a divisor)
const Poly *poly_sum(PolyCtx *c, const Poly *x, int var, const Poly *m);    // sum of x over var = 0 .. m-1 (Faulhaber)
bool poly_nonneg(const Poly *x);  // no negative coefficient: x >= 0 wherever its variables are
// x's value with the variables at vals (by variable number): exact as long
// as 128-bit arithmetic holds it, else in long double.
double poly_value(const Poly *x, const int64_t *vals);
bool poly_value_floor(const Poly *x, const int64_t *vals, int64_t *r);  // floor of x exactly (false: too large)

//
// num.c: costs and word counts. A Num is a double, or in a closed-form
// analysis a polynomial. Sizes (Sz) are exact 64-bit integers, or
// polynomials in a closed-form analysis.
//

typedef struct Num {
  double v;         // the value when sym is NULL
  const Poly *sym;  // the value as a polynomial (closed-form analysis only)
} Num;

typedef struct Sz {
  int64_t k;        // the size when sym is NULL
  const Poly *sym;  // the size as a polynomial in the params
} Sz;

Num num_of(double v);
Num num_sz(Sz s);
Num num_add(PolyCtx *c, Num x, Num y);
Num num_sub(PolyCtx *c, Num x, Num y);
Num num_mul(PolyCtx *c, Num x, Num y);
Num num_div(PolyCtx *c, Num x, Num y, Pos pos);  // symbolic: y must be one term
bool num_is_zero(Num x);
const Poly *num_poly(PolyCtx *c, Num x);  // x as a polynomial
bool num_equal(PolyCtx *c, Num x, Num y);
Sz sz_of(int64_t k);
Sz sz_poly(PolyCtx *c, const Poly *p);  // a constant integer polynomial is a known size
// Concrete size arithmetic (and comparisons, logic, negation and not as
// unary ops with y unused), wrapping like the executor's ints; false when
// the result is not a number (a division by zero).
bool size_arith(Op op, int64_t x, int64_t y, int64_t *r);
bool sz_equal(Sz x, Sz y);
bool sz_is(Sz x, int64_t k);  // x is the known size k
char *sz_format(Arena *a, PolyCtx *c, Sz x);

//
// shape.c: hash-consed shapes. Equal shapes are the same pointer, so
// comparing shapes and memoising on them is cheap, and an irregular shape
// costs memory proportional to its distinct parts.
//

typedef enum {
  SH_UNIT,     // a scalar datum (int, float, bool): the papers' 1
  SH_SIZE,     // a size known statically (sz): its value in n
  SH_PAIR,     // <a, b>
  SH_VEC,      // a regular vector (n, a): n elements of shape a
  SH_IRR,      // an irregular vector [elems]: elements not all equal
  SH_FAM,      // closed forms: a family [a(i) for i < n], element i the shape a with its index i
  SH_CAT,      // closed forms: the elements of the vectors of a family b, one after the other
  SH_CLOSURE,  // a lambda with the values of the variables it captures
  SH_PARTIAL,  // a builtin or operator applied to fewer arguments than it takes
} ShapeKind;

typedef struct Shape Shape;

struct Shape {
  ShapeKind kind;  // which of the forms above
  uint32_t hash;   // structural hash, for hash-consing
  Sz n;            // SH_SIZE: the value; SH_VEC, SH_IRR, SH_FAM, SH_CAT: the length
  Shape *a, *b;    // SH_PAIR: components; SH_VEC, SH_FAM: the element shape; SH_CAT: b the family
                   // of vectors (an SH_FAM, or an SH_VEC of vectors) whose elements it joins
  Shape **elems;   // SH_IRR: the elements; SH_CLOSURE: captured values; SH_PARTIAL: arguments
  int nargs;       // SH_CLOSURE, SH_PARTIAL: entries of elems; SH_FAM: the level of its index
  uint64_t vars;   // closed forms: the polynomial variables that occur free in it
  int height;      // closed forms: the levels of index the families in it use (0: none)
  Node *node;      // SH_CLOSURE: the lambda; SH_PARTIAL: the builtin's N_VAR or the N_OPFN
  double *prefix;  // SH_IRR: prefix[i] = words of elems[0..i)
  Num words;       // data: its size in words; a function: the words of data it carries
  bool has_size;   // contains an SH_SIZE (so its erased form differs)
  Shape *erased;   // the same shape with every size value made data (cached)
  // Caches of the message word counts (shape_packed, shape_message_words):
  double packed;     // words as a message packs it (with a length word per vector); 0: not yet
  double *bprefix;   // SH_IRR: packed words of elems[0..i)
  int64_t *run_end;  // SH_IRR: last index of the run of equal lengths element i is in
};

typedef struct ShapeTable {
  Shape **slot;  // open addressing
  size_t cap;    // a power of two
  size_t count;  // shapes stored
} ShapeTable;

// Irregular vectors hold at most IRREGULAR_MAX elements in all; errors beyond.
enum { IRREGULAR_MAX = 1 << 24 };

// Families nest at most this deep in a closed-form analysis.
enum { FAMILY_LEVELS = 4 };

// Size values (a literal, a length) are followed exactly through fold and
// prefix over vectors of at most FOLLOW_MAX elements, in both models (by
// the whole vector's length, whatever its blocks), and are data beyond:
// the running values of a prefix over sizes make as many shapes as
// elements, while a shape a program builds from such sizes (dummyvec of
// each) holds far fewer than IRREGULAR_MAX elements already at this length.
enum { FOLLOW_MAX = 1 << 12 };

// The shapes of one analysis: every constructor interns in its table.
typedef struct Shapes {
  Arena *arena;      // owns the shapes
  PolyCtx *pc;       // closed-form analysis: the polynomials of sizes; else NULL
  // Closed forms: the variable each level of family binds as its index (a
  // family binds the level above those of the families in its element, so
  // equal families are the same shape), and the variables that stand for an
  // element's index while a function is applied to it (src/cost/family.c).
  int binder[FAMILY_LEVELS];
  int scratch[2 * FAMILY_LEVELS];
  int depth;         // scratch variables in use
  ShapeTable table;  // hash-consing
  int64_t budget;    // irregular elements that may still be built (IRREGULAR_MAX at first)
  Pos site;          // the application being analysed: where the limit's error points
  const char *limit_hint;  // what the limit's error suggests (NULL: nothing)
} Shapes;

Shape *shape_unit(Shapes *sh);
Shape *shape_size(Shapes *sh, Sz n);
Shape *shape_pair(Shapes *sh, Shape *x, Shape *y);
Shape *shape_vec(Shapes *sh, Sz n, Shape *elem);             // every empty vector is (0, 1)
Shape *shape_vector(Shapes *sh, Shape **elems, int64_t n);   // regular when all are equal
Shape *shape_closure(Shapes *sh, Node *lam, Shape **captured, int n, Num global_words);
Shape *shape_partial(Shapes *sh, Node *fn, Shape **args, int n);
Shape *shape_erase(Shapes *sh, Shape *s);
// Closed forms: the family [elem(var) for var < n] (a regular vector when
// elem does not depend on var, or n is 0 or 1), var being free in elem;
// the vectors of rows joined (rows an SH_FAM or SH_VEC of vectors: an
// SH_CAT, or regular when the elements are all one shape); s with var := y.
Shape *shape_family(Shapes *sh, Sz n, Shape *elem, int var);
Shape *shape_join(Shapes *sh, Shape *rows);
Shape *shape_subst(Shapes *sh, Shape *s, int var, const Poly *y);
Shape *shape_family_elem(Shapes *sh, Shape *fam, const Poly *i);  // element i of an SH_FAM (or SH_VEC)
bool shape_is_irregular(Shape *s);  // SH_IRR, SH_FAM or SH_CAT
void shape_reserve(Shapes *sh, int64_t n);
bool shape_is_function(Shape *s);
bool shape_is_vector(Shape *s);  // SH_VEC, SH_IRR, SH_FAM or SH_CAT
Shape *shape_elem(Shape *v, int64_t i);                       // element i of a vector
double shape_block_words(Shape *v, int64_t lo, int64_t hi);   // words of elements [lo, hi) (both halves of a pair)
char *shape_format(Shapes *sh, Shape *s);

// The words of messages as the executor sends data (docs/compiler.md,
// "What is counted"): a value packed has one word per scalar and one length
// word per vector in it; a block of vector elements drops the elements' own
// length words when they all have one length (the stride is in the tag).
double shape_packed(Shape *s);
double shape_message_words(Shapes *sh, Shape *v, int64_t from, int64_t to);  // block [from, to) (both halves of a pair)
double shape_value_words(Shapes *sh, Shape *v);  // a whole value: a vector as a block, the rest packed
double shape_vectors(Shape *v, int64_t from, int64_t to);  // vectors inside the elements [from, to) of v
// redconcat: the vectors of x joined (errors at sh->site if too long).

// The shapes of the sequential builtins that rearrange a vector, the same
// in both models (docs/language.md): split k v (n and k >= 1 known),
// reverse v, neighbours l r v (their elements' sizes made data).
Shape *shape_split(Shapes *sh, Shape *v, int64_t k);
Shape *shape_reverse(Shapes *sh, Shape *v);
Shape *shape_neighbours(Shapes *sh, Shape *l, Shape *r, Shape *v);

#endif
