// cgint.h: the code generator's internals, shared by its files: the text
// being built, the generators of delayed vectors, and a section per file.
#ifndef VECBSP_CGINT_H
#define VECBSP_CGINT_H

#include "codegen/codegen.h"

#include <stdarg.h>

// A growable text.
typedef struct Buf {
  char *text;  // NUL-terminated contents (malloc'ed)
  size_t len;  // bytes used
  size_t cap;  // bytes allocated
} Buf;

typedef struct Cg {
  IrProgram *ir;    // the program
  const Plan *pl;   // its plan
  Arena *arena;     // for names
  Buf types;        // typedefs and per-type helpers
  Buf regions;      // region functions
  Buf *out;         // where statements go now
  int indent;       // current indentation (levels of two spaces)
  int temps;        // temporaries made so far (names t1, t2, ...)
  PtrVec sites;     // Pos *: the fault sites, by number
  int64_t pending;  // operations not yet passed to VB_OPS
  bool counting;    // whether operations are counted here (not already by the loop)
  const char **pre; // by node id: the C value of a top-level node computed already (top.c)
  struct Gen *element;    // a fold's element made in its body's loop, for the body's fused
                          // operand (plan.c, "Folds of vectors"); NULL once taken
  Ir *overwrite;          // a fold's body that overwrites the accumulator, while its step is emitted
  const char *acc, *step; // then: the accumulator and the step number (NULL: the accumulator
                          // is the fold's own from the first step), as C expressions
} Cg;

//
// codegen.c: text, names, expressions, delayed vectors, local skeletons.
//

void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
// One statement line at the current indentation.
void emit(Cg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// "if (..) {", "for (..) {": operations so far are counted before it.
void open_block(Cg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void close_block(Cg *g);
// The barrier that ends a superstep (why: a comment).
void emit_sync(Cg *g, const char *why);
// The sync of the groups of a round of the plan's levels (round: a C expression).
void emit_group_sync(Cg *g, const char *round, const char *why);
// Does the plan run a region by levels (and the program carry its lead table)?
bool cg_uses_levels(const Plan *pl);
void else_block(Cg *g);
void flush_ops(Cg *g);
char *fmt(Cg *g, const char *f, ...) __attribute__((format(printf, 2, 3)));
char *temp(Cg *g);
char *c_string(Cg *g, const char *s, size_t n);
const char *site(Cg *g, Pos pos);         // "&rt_sites[K]"
const char *var_name(Cg *g, IrVar *v);
const char *input_name(Cg *g, int index);
const char *where(Cg *g, Pos pos);        // "FILE:LINE:COL", for comments
// Declares name of type t with value init.
const char *define(Cg *g, Type *t, const char *name, const char *init);
const char *define_temp(Cg *g, Type *t, const char *init);
const char *new_vec(Cg *g, Type *t, const char *len);  // a vector of len elements, allocated
const char *stage_name(IrKind k);
// Emits the body of e with x (and y) bound; returns the result's expression.
const char *apply_body(Cg *g, Ir *e, const char *x, const char *y);
// The same inside a loop: its operations counted here unless `counted`
// before the loop, which count_static does when they are static (returning
// whether they are: body applied `count` times, a C expression).
const char *apply_counted(Cg *g, Ir *e, bool counted, const char *x, const char *y);
bool count_static(Cg *g, Ir *body, const char *count);
void check_lengths(Cg *g, Ir *e, const char *a, const char *b);
// Does evaluating e allocate memory (so that a loop may release it)?
bool allocates(Ir *e);
// The C expression of e, evaluated on this process (statements emitted first).
const char *cg_expr(Cg *g, Ir *e);
// An int operation with the language's semantics (wrapping, faults), or
// NULL for the others.
const char *int_op(Cg *g, Op op, const char *x, const char *y, Pos pos);
const char *cg_c_prod_loop(Cg *g, Ir *e, const char *xs, const char *ys);
const char *cg_segments(Cg *g, Ir *e, const char *v);
const char *cg_copy(Cg *g, Type *t, const char *v);  // a copy of vector v of type t
// dh: its stages on v (a vector of its own) in place; the whole dh on one
// process (checked, on a copy).
void cg_dh_stages(Cg *g, Ir *e, const char *v);
const char *cg_dh(Cg *g, Ir *e, const char *v);
// neighbours e of vector v, with l and r past its ends (C expressions).
const char *cg_neighbours_of(Cg *g, Ir *e, const char *l, const char *r, const char *v);

// Delayed vectors (docs/compiler.md, "Fusion"): a map, pair_map or prefix
// consumed once and in order is never stored: a generator makes each of
// its elements inside the loop of the consumer, when it needs it.
typedef enum {
  GEN_ARRAY,   // a stored vector: its elements are read
  GEN_MAP,     // map or pair_map: the body applied to the source element(s)
  GEN_PREFIX,  // a running prefix: the body applied to the last result and the source element;
               // with `when`, the first element is the lower blocks' total applied to its source's
  GEN_OFFSET,  // a parallel prefix's second pass: the lower blocks' total applied, if any
} GenKind;

typedef struct Gen Gen;
struct Gen {
  GenKind kind;       // how the elements are made
  Ir *e;              // all but GEN_ARRAY: the skeleton whose body makes them
  Gen *src, *src2;    // all but GEN_ARRAY: the source(s) (src2: pair_map's second)
  const char *vec;    // GEN_ARRAY: the C vector
  const char *state;  // GEN_PREFIX: the last element made; GEN_OFFSET: the total
  const char *seed;   // GEN_PREFIX run again from the lower blocks' total: that total
  const char *when;   // GEN_OFFSET and a seeded GEN_PREFIX: whether there is a total to apply
  bool counted;       // its operations are counted before the loop (static body)
};

Gen *gen_array(Cg *g, const char *vec);
// The generator of a map, pair_map or prefix e over the given sources.
Gen *gen_apply(Cg *g, Ir *e, Gen *src, Gen *src2);
// A prefix's second pass: total (when `when`) applied to each element of src.
Gen *gen_offset(Cg *g, Ir *prefix, Gen *src, const char *total, const char *when);
const char *gen_len(Cg *g, Gen *s);  // every generator has its (first) source's length
// The elements of s stored as a vector (s's own array when it is one).
const char *gen_vector(Cg *g, Gen *s);
// Stores the elements of s at dest[0..).
void gen_store(Cg *g, Gen *s, const char *dest);
// Folds the elements of s (at least one) into acc with e's body (an operator
// of the element type: a fold's, or a prefix's folding its block); lanes > 1
// keeps that many accumulators when the block is long enough (ranges.h,
// range_laned), over contiguous sub-blocks or, interleaved, over every
// lanes-th element.
void gen_fold(Cg *g, Ir *e, Gen *s, const char *acc, int lanes, bool interleaved);

//
// types.c: the C types of the program's data and their helpers.
//

const char *mangle(Cg *g, Type *t);  // "i", "pif", "vi", ...
const char *ctype(Cg *g, Type *t);   // "t_i", ...
int words_of(Type *t);               // words of a scalar or a pair of scalars
void gen_types(Cg *g);
// The helper that reads a received vector of type t where the message
// holds it: vb_* for elements of words, vr_* for rows of them.
const char *in_place_view(Type *t);

//
// region.c: a region's functions, step by step.
//

// The C name of an exchange pattern ("XCH_TOTALS", ...).
const char *exchange_name(Exchange x);
// Emits rN_alone and, unless the region runs alone, rN_par (into g->regions).
void cg_region_functions(Cg *g, Region *r);
// The region's captured values as the struct its functions take.
const char *region_cap_type(Cg *g, Region *r);

//
// top.c: the program at top level under the plan's layouts.
//

// A value at top level: its C expression on this process (a block for a
// distributed value, meaningful on process 0 only for one that lives
// there) and, for a distributed vector, its global length.
typedef struct CgVal {
  const char *v;
  const char *n;  // LAY_BLOCK: the vector's length (else NULL)
} CgVal;

// Converts v of type t from one layout to another; field numbers its
// messages in the superstep (a fetch converts several values at once:
// conversion_send for each, one rt_sync, then conversion_receive for each).
void conversion_send(Cg *g, CgVal v, Type *t, Exchange x, int field);
CgVal conversion_receive(Cg *g, CgVal v, Type *t, Layout from, Layout to, Exchange x, int field, bool in_place);
// The program (rt_program and the setup and main around it) into out.
void cg_program(Cg *g, Buf *out);

#endif
