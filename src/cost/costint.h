// costint.h: internals of the cost analyser, shared by the files of
// src/cost (and by its tests): the supersteps, the paper model and the
// analysis state (numbers and shapes are in shape.h).
#ifndef VECBSP_COSTINT_H
#define VECBSP_COSTINT_H

#include "cost/cost.h"
#include "cost/shape.h"

typedef struct Analysis Analysis;

//
// cost.c: shared by the pricing of supersteps (sgl.c).
//

// With more processes than cores, the factor a superstep's busiest count
// (most, of total over p processes) grows by: the cores' fair share.
double cost_shared_cores(double most, double total, int p, int cores);
// The total over processes of the larger of the words each sends and receives.
double cost_relation_total(const ExactStep *st, int p);

//
// steps.c: the supersteps predicted so far and their totals W, H and S.
//

// A top-level skeleton application: what its supersteps report.
typedef struct Site {
  Pos pos;    // the application
  Builtin b;  // the skeleton
} Site;

typedef struct Steps {
  CostStep *rows;      // closed supersteps (at most STEPS_LISTED)
  int nrows, cap;
  bool truncated;      // some closed supersteps are not listed
  int64_t closed;      // closed supersteps, listed or not
  Num W, H, S;         // totals of the closed supersteps
  Num w;               // the open superstep's work
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
void steps_final(Analysis *a, Num w, Pos where);
StepsMark steps_mark(Analysis *a);
void steps_reset(Analysis *a, StepsMark m);
void steps_replay(Analysis *a, StepsMark end, const CostStep *rows, int n);
// Totals added since m (dW with the open work); returns dW + dH*g + dS*l.
Num steps_delta(Analysis *a, StepsMark m, Num *dW, Num *dH, Num *dS);
void steps_add(Analysis *a, Num dW, Num dH, Num dS);
// Everything since from happens times more (an iteration in its steady state).
void steps_repeat(Analysis *a, StepsMark from, int64_t times);

//
// paper.c: the paper model: what a top-level skeleton costs, superstep by superstep.
//

// Costs of the elements of a map-like skeleton's result.
typedef struct ElemCosts {
  Sz n;       // number of elements
  Num each1;  // the cost of every element, when each and over are NULL
  Num *each;  // else the cost of element i (n.k entries)
  // Closed forms: the cost of element var[0] of the family over, or of
  // element var[1] of row var[0] of the join over (family.c).
  Shape *over;
  const Poly *at;
  int var[2];
} ElemCosts;

// Sequential work on process 0 (top level).
void paper_work(Analysis *a, Num w);
// A skeleton starts: f is the skeleton partially applied (its function,
// and c_prod's x), x its argument when that is not already distributed.
void paper_start(Analysis *a, Shape *f, Shape *x, Site *site);
// map, pair_map, c_prod: each process computes its block.
void paper_local(Analysis *a, const ElemCosts *ec, Site *site);
// A distributed result (of the skeleton at site) goes to process 0.
void paper_gather(Analysis *a, Shape *v, Site *site);
// fold of a distributed x whose elements have shape e; c per operator application.
void paper_fold(Analysis *a, Shape *x, Num c, Shape *e, Site *site);
// prefix of a distributed x, result left distributed.
void paper_prefix(Analysis *a, Shape *x, Num c, Shape *e, Site *site);
// fold whose operator changes the shape, by blocks: the busiest process's
// local steps (work), the partial results' words to process 0, its steps.
void paper_fold_blocks(Analysis *a, Num work, Num words, Num joins, Site *site);
// prefix likewise: the local prefixes' work, the largest block total's
// words, the dearest combination of two (each tree round), the dearest
// offset applied to a block.
void paper_prefix_blocks(Analysis *a, Num work, Num words, Num join, Num finish, Site *site);
// dh of a distributed x of 2^log2n elements of shape e that its operators
// keep (one application cf, cg), p a power of two at most 2^log2n: the
// flat cost of the butterfly, result left distributed.
void paper_dh(Analysis *a, int64_t log2n, Shape *e, Num cf, Num cg, Site *site);
// dh whose operators change shapes: x gathered, work on process 0, its
// result r scattered.
void paper_dh_alone(Analysis *a, Shape *x, Num work, Shape *r, Site *site);
// neighbours of a distributed x: the triples made, the blocks' ends
// exchanged; result left distributed.
void paper_neighbours(Analysis *a, Shape *x, Site *site);
// inits/tails of a distributed x, result left distributed.
void paper_segments(Analysis *a, Shape *x, Site *site);
// The last superstep, at the end of main.
void paper_end(Analysis *a, Pos where);

//
// closed.c: the variables of a closed-form analysis, integer functions of
// them as variables of their own (atoms), and the conditions the forms hold
// under.
//

// Sets up a->pc, a->cl, a->P and a->LOG2P for a closed-form analysis.
void closed_setup(Analysis *a);
const Poly *closed_floor(Analysis *a, const Poly *x);  // floor(x/p)
const Poly *closed_ceil(Analysis *a, const Poly *x);   // ceil(x/p)
// The row a position m falls in: max{r <= rows : t(r) <= m}, with t(r)
// (the positions before row r, t in the variable var) non-decreasing.
const Poly *closed_row(Analysis *a, const Poly *t, int var, const Poly *rows, const Poly *m);
// The forms hold where x >= 2 (at_least_two) or x != 0.
void closed_assume(Analysis *a, const Poly *x, bool at_least_two);
// W, H and S as the result's closed forms.
void closed_result(Analysis *a, Num W, Num H, Num S, CostResult *r);

//
// eval.c and builtin.c: the abstract interpreter.
//

// Top level (process 0, skeletons in parallel) or local (everything
// sequential: inside the function of a skeleton).
typedef enum { EVAL_TOP, EVAL_LOCAL } EvalMode;

// The result of evaluating or applying: its shape, its cost (local mode;
// at top level costs go to the supersteps) and, at top level, whether it
// was left distributed by the skeleton at dist.
typedef struct Res {
  Shape *s;    // the value
  Num cost;    // local mode: operations
  Site *dist;  // top level: the skeleton that left it distributed, or NULL
} Res;

// What a lambda needs from its surroundings.
typedef struct FunInfo {
  PtrVec captured;  // binders (N_LAM, N_LET) of the local variables it uses from outside
  PtrVec globals;   // Decls of the inputs and data defs it uses, directly or through defs
} FunInfo;

typedef struct MemoEntry MemoEntry;

// A branch that may not be taken (of a data if, or the right operand of
// && and ||) is analysed under a trap: a fault it would certainly meet if
// taken (cost_fault) ends its analysis instead of the program's.
typedef struct FaultTrap {
  jmp_buf env;               // where cost_fault returns to
  struct FaultTrap *outer;   // the enclosing trap, restored after
  DiagTrap *diag;            // diag_trap when it was set, restored after a fault
} FaultTrap;

typedef struct MemoTable {
  MemoEntry *slot;  // open addressing on (function, argument)
  size_t cap;       // a power of two
  size_t count;     // entries stored
} MemoTable;

struct Analysis {
  Arena *arena;             // owns everything below
  Program *prog;            // the program analysed
  Machine machine;          // p, g, l, s
  int p;                    // processes (0 in a closed-form analysis)
  Num P;                    // p as a number (a symbol in a closed-form analysis)
  Num LOG2P;                // ceil(log2 p) as a number
  PolyCtx *pc;              // closed-form analysis: its polynomials; else NULL
  CostClosed *cl;           // closed-form analysis: its variables, atoms and conditions (closed.c)
  CostConstants k;          // operation constants
  Shape **params;           // value of each param (SH_SIZE)
  Shape **inputs;           // shape of each input
  Shape **def_vals;         // by def index: a data def's value once evaluated
  FunInfo *fun;             // by lambda node id: captured binders and globals
  PtrVec *def_globals;      // by def index: the globals a function def uses
  Shapes sh;                // the shapes built (hash-consed)
  MemoTable memo;           // local applications
  Steps st;                 // supersteps
  FaultTrap *fault;         // the innermost branch that may not be taken, or NULL
  Pos fault_pos;            // the last fault met under a trap: where
  char fault_msg[512];      // and what
};

Res eval_expr(Analysis *a, Node *n, void *env, EvalMode m);
// app: the application written in the program, when there is one.
Res eval_apply(Analysis *a, Shape *f, Res x, EvalMode m, Node *app);
Res eval_apply_local(Analysis *a, Shape *f, Shape *x);
Res eval_apply2_local(Analysis *a, Shape *f, Shape *x, Shape *y);
Shape *eval_force(Analysis *a, Res r);
void eval_prepare(Analysis *a);
void eval_spend(Analysis *a, EvalMode m, Res *r, Num c);
// A run-time fault the analysis knows will happen when this point is
// reached (docs/cost-model.md, "Static shape errors"): an error, unless a
// branch that may not be taken holds it (the trap in a->fault).
_Noreturn void cost_fault(Analysis *a, Pos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

Res builtin_run(Analysis *a, Shape *f, Res last, EvalMode m, Node *app);
int shape_arity(Shape *f);
Shape *builtin_scalar_op(Analysis *a, Op op, Shape *x, Shape *y);

// Sizes needed as sizes: the shape must be a known size.
Sz require_size(Analysis *a, Shape *s, Pos pos, const char *what);

//
// family.c: vectors whose elements differ, in a closed-form analysis.
//

// A function applied to an element (and to the element of a second vector, for pair_map).
typedef Res (*ElemFn)(Analysis *a, void *ctx, Shape *x, Shape *y);

bool family_is(Shape *x);  // an SH_FAM or SH_CAT
Shape *family_segments(Analysis *a, Builtin b, Shape *x);  // inits or tails of a vector
Shape *family_join(Analysis *a, Shape *x);                 // redconcat of a family of vectors
Shape *family_entry(Analysis *a, Shape *v, Sz index);      // entry at a known index (hd: 0)
Shape *family_tail(Analysis *a, Shape *v);                 // tl
// fn applied to each element of x (and y: the one of them not a family is
// regular), once at a symbolic index: the result, and the costs in ec.
Shape *family_map(Analysis *a, Shape *x, Shape *y, ElemFn fn, void *ctx, ElemCosts *ec);
Num family_total(Analysis *a, const ElemCosts *ec);    // the cost of all the elements
Num family_busiest(Analysis *a, const ElemCosts *ec, Pos pos);  // of the busiest process's block (maxsum)
Num family_first_words(Analysis *a, Shape *x);         // the words of process 0's block

#endif
