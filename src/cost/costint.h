// costint.h: internals of the cost analyser, shared by the files of
// src/cost (and by its tests): numbers, shapes, the analysis state.
#ifndef VECBSP_COSTINT_H
#define VECBSP_COSTINT_H

#include "cost/cost.h"

typedef struct Analysis Analysis;

//
// poly.c: Laurent polynomials with rational coefficients, interned so that
// equal polynomials are the same pointer. They are the numbers of the
// closed forms (--symbolic).
//

enum { POLY_MAXVARS = 16 };

typedef struct Poly Poly;
typedef struct PolyCtx PolyCtx;

PolyCtx *poly_ctx_new(Arena *a, const char **names, int nvars);
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
  SH_CLOSURE,  // a lambda with the values of the variables it captures
  SH_PARTIAL,  // a builtin or operator applied to fewer arguments than it takes
} ShapeKind;

typedef struct Shape Shape;

// Where a value bound to a variable at top level comes from: the variable
// instance, input or data def whose data a function carries when it is
// captured (the exact model sends each once per region).
typedef struct Origin {
  Shape *value;  // the whole value (fst/snd of a variable still carry all of it)
} Origin;

struct Shape {
  ShapeKind kind;  // which of the forms above
  uint32_t hash;   // structural hash, for hash-consing
  Sz n;            // SH_SIZE: the value; SH_VEC, SH_IRR: the length
  Shape *a, *b;    // SH_PAIR: components; SH_VEC: the element shape
  Shape **elems;   // SH_IRR: the elements; SH_CLOSURE: captured values; SH_PARTIAL: arguments
  int nargs;       // SH_CLOSURE, SH_PARTIAL: entries of elems
  Origin **origins;  // SH_CLOSURE, SH_PARTIAL made at top level: the origin of each of elems
  Node *node;      // SH_CLOSURE: the lambda; SH_PARTIAL: the builtin's N_VAR or the N_OPFN
  double *prefix;  // SH_IRR: prefix[i] = words of elems[0..i)
  Num words;       // data: its size in words; a function: the words of data it carries
  bool has_size;   // contains an SH_SIZE (so its erased form differs)
  Shape *erased;   // the same shape with every size value made data (cached)
  // Caches of the exact model's word counts (exact.c):
  double packed;     // words as a message packs it (with a length word per vector); 0: not yet
  double *bprefix;   // SH_IRR: packed words of elems[0..i)
  int64_t *run_end;  // SH_IRR: last index of the run of equal lengths element i is in
};

typedef struct ShapeTable {
  Shape **slot;  // open addressing
  size_t cap;    // a power of two
  size_t count;  // shapes stored
} ShapeTable;

Shape *shape_unit(Analysis *a);
Shape *shape_size(Analysis *a, Sz n);
Shape *shape_pair(Analysis *a, Shape *x, Shape *y);
Shape *shape_vec(Analysis *a, Sz n, Shape *elem);             // every empty vector is (0, 1)
Shape *shape_vector(Analysis *a, Shape **elems, int64_t n);   // regular when all are equal
Shape *shape_closure(Analysis *a, Node *lam, Shape **captured, Origin **origins, int n, Num global_words);
Shape *shape_partial(Analysis *a, Node *fn, Shape **args, Origin **origins, int n);
Shape *shape_erase(Analysis *a, Shape *s);
// Irregular vectors hold at most IRREGULAR_MAX elements in all; errors beyond.
enum { IRREGULAR_MAX = 1 << 24 };
void shape_reserve(Analysis *a, int64_t n);
bool shape_is_function(Shape *s);
bool shape_is_vector(Shape *s);
Shape *shape_elem(Shape *v, int64_t i);                       // element i of a vector
double shape_block_words(Shape *v, int64_t lo, int64_t hi);   // words of elements [lo, hi) (both halves of a pair)
char *shape_format(Analysis *a, Shape *s);

//
// steps.c: the supersteps predicted so far and their totals W, H and S.
//

// The exact model's open region: a chain of skeletons whose first (fetch)
// superstep is listed once the whole chain, and so all the data its
// functions carry, is known.
// A top-level skeleton application: what its supersteps report.
typedef struct Site {
  Pos pos;    // the application
  Builtin b;  // the skeleton
} Site;

typedef struct Region {
  Site *site;        // its first skeleton
  double w0;         // process 0's work before it: the fetch superstep's
  double *scatter;   // words of the first argument's block sent to each process
  PtrVec items;      // Origins of the data its functions carry, each sent once
  double operands;   // words of the operands sent in full besides (c_prod's x)
  int row;           // where its fetch superstep goes among the listed rows
} Region;

typedef struct Steps {
  CostStep *rows;      // closed supersteps (at most STEPS_LISTED)
  int nrows, cap;
  bool truncated;      // some closed supersteps are not listed
  int64_t closed;      // closed supersteps, listed or not
  Num W, H, S;         // totals of the closed supersteps
  Num w;               // paper model: the open superstep's work
  double *pw;          // exact model: work of each process in the open superstep
  double *sent, *recv; // exact model: words each process sends and receives in it
  Region region;       // exact model: the region running
} Steps;

// A point of the record to come back to.
typedef struct StepsMark {
  int nrows;         // rows listed
  int64_t closed;    // supersteps closed
  bool truncated;    // as it was
  Num W, H, S;       // totals
  Num w;             // open work of process 0
} StepsMark;

void steps_init(Analysis *a);
void steps_close(Analysis *a, Num w, Num h, Site *site, const char *what);
void steps_close_times(Analysis *a, Num w, Num h, Num times, Site *site, const char *what);
// A superstep that happened before the rows listed from index at.
void steps_insert(Analysis *a, int at, Num w, Num h, Site *site, const char *what);
void steps_final(Analysis *a, Num w, Pos where);
StepsMark steps_mark(Analysis *a);
void steps_reset(Analysis *a, StepsMark m);  // paper model only
void steps_replay(Analysis *a, StepsMark end, const CostStep *rows, int n);
// Totals added since m (dW with the open work); returns dW + dH*g + dS*l.
Num steps_delta(Analysis *a, StepsMark m, Num *dW, Num *dH, Num *dS);
void steps_add(Analysis *a, Num dW, Num dH, Num dS);
// Everything since from happens times more (an iteration in its steady state).
void steps_repeat(Analysis *a, StepsMark from, int64_t times);

//
// The models: what a top-level skeleton costs, superstep by superstep.
//

// Costs of the elements of a map-like skeleton's result.
typedef struct ElemCosts {
  Sz n;       // number of elements
  Num each1;  // the cost of every element, when each is NULL
  Num *each;  // else the cost of element i (n.k entries)
} ElemCosts;

typedef struct ModelOps {
  // Sequential work on process 0 (top level).
  void (*work)(Analysis *a, Num w);
  // A skeleton starts: f is the skeleton partially applied (its function,
  // and c_prod's x), x its argument when that is not already distributed.
  void (*start)(Analysis *a, Shape *f, Shape *x, Site *site);
  // map, pair_map, c_prod: each process computes its block.
  void (*local)(Analysis *a, const ElemCosts *ec, Site *site);
  // A distributed result (of the skeleton at site) goes to process 0.
  void (*gather)(Analysis *a, Shape *v, Site *site);
  // fold of a distributed x whose elements have shape e; c per operator application.
  void (*fold)(Analysis *a, Shape *x, Num c, Shape *e, Site *site);
  // prefix of a distributed x, result left distributed.
  void (*prefix)(Analysis *a, Shape *x, Num c, Shape *e, Site *site);
  // inits/tails of a distributed x, result left distributed.
  void (*segments)(Analysis *a, Shape *x, Site *site);
  // The last superstep, at the end of main.
  void (*end)(Analysis *a, Pos where);
} ModelOps;

extern const ModelOps cost_paper_model;
extern const ModelOps cost_exact_model;

//
// eval.c and builtin.c: the abstract interpreter.
//

// Top level (process 0, skeletons in parallel) or local (everything
// sequential: inside the function of a skeleton, in the branches of an
// exact-model data if or the right operand of && and ||).
typedef enum { EVAL_TOP, EVAL_LOCAL } EvalMode;

// The result of evaluating or applying: its shape, its cost (local mode;
// at top level costs go to the supersteps) and, at top level, whether it
// was left distributed by the skeleton at dist.
typedef struct Res {
  Shape *s;        // the value
  Num cost;        // local mode: operations
  Site *dist;      // top level: the skeleton that left it distributed, or NULL
  Origin *origin;  // top level: a literal, parameter, input or variable as it is (else NULL)
} Res;

// What a lambda needs from its surroundings.
typedef struct FunInfo {
  PtrVec captured;  // binders (N_LAM, N_LET) of the local variables it uses from outside
  PtrVec globals;   // Decls of the inputs and data defs it uses, directly or through defs
} FunInfo;

typedef struct MemoEntry MemoEntry;

typedef struct MemoTable {
  MemoEntry *slot;  // open addressing on (function, argument)
  size_t cap;       // a power of two
  size_t count;     // entries stored
} MemoTable;

struct Analysis {
  Arena *arena;             // owns everything below
  Program *prog;            // the program analysed
  CostModel model;          // paper or exact
  const ModelOps *ops;      // the model's top-level costs
  Machine machine;          // p, g, l, s
  int p;                    // processes (0 in a closed-form analysis)
  Num P;                    // p as a number (a symbol in a closed-form analysis)
  Num LOG2P;                // ceil(log2 p) as a number
  PolyCtx *pc;              // closed-form analysis: its polynomials; else NULL
  CostConstants k;          // operation constants
  Shape **params;           // value of each param (SH_SIZE)
  Shape **inputs;           // shape of each input
  Origin **input_origins;   // by input index
  Shape **def_vals;         // by def index: a data def's value once evaluated
  Origin **def_origins;     // by def index: a data def's origin
  Origin no_data;           // literals and params: nothing to send
  FunInfo *fun;             // by lambda node id: captured binders and globals
  PtrVec *def_globals;      // by def index: the globals a function def uses
  ShapeTable shapes;        // hash-consing
  MemoTable memo;           // local applications
  Steps st;                 // supersteps
  int64_t budget;           // irregular elements that may still be built
  Node *site;               // the builtin being analysed (for limits)
  PlanHook hook;            // plan decisions (may be NULL)
  void *hook_ctx;
};

Res eval_expr(Analysis *a, Node *n, void *env, EvalMode m);
// app: the application written in the program, when there is one.
Res eval_apply(Analysis *a, Shape *f, Res x, EvalMode m, Node *app);
Res eval_apply_local(Analysis *a, Shape *f, Shape *x);
Res eval_apply2_local(Analysis *a, Shape *f, Shape *x, Shape *y);
Shape *eval_force(Analysis *a, Res r);
void eval_prepare(Analysis *a);
void eval_spend(Analysis *a, EvalMode m, Res *r, Num c);
void eval_plan(Analysis *a, PlanEventKind kind, Site *site, Site *consumer);
Origin *eval_origin(Analysis *a, Res r);  // the origin of r when it is bound to a variable
Origin *eval_def_origin(Analysis *a, Decl *d);  // a data def's, evaluating it first
void eval_function_items(Analysis *a, Shape *f, PtrVec *items);  // Origins f carries, added once

Res builtin_run(Analysis *a, Shape *f, Res last, EvalMode m, Node *app);
int shape_arity(Shape *f);
Shape *builtin_scalar_op(Analysis *a, Op op, Shape *x, Shape *y);

// Sizes needed as sizes: the shape must be a known size.
Sz require_size(Analysis *a, Shape *s, Pos pos, const char *what);

#endif
