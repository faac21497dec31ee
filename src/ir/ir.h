// ir.h: the compiler's intermediate representation: a first-order,
// monomorphic expression tree with a concrete type on every node, and the
// plan that says how each skeleton application runs (docs/compiler.md).
#ifndef VECBSP_IR_H
#define VECBSP_IR_H

#include "ir/ranges.h"
#include "lang/lang.h"

#include <stdio.h>

// Latency classes of the operations on a loop's carried dependency (plan.c,
// "Carried dependencies"): integer add, subtract, compare, logic; max, min
// and data conditionals (a compare and a select); multiply and float add or
// multiply; divide and remainder.
typedef enum { LAT_FAST, LAT_SELECT, LAT_MUL, LAT_DIV, LAT_FLOAT, LAT_CLASSES } LatClass;

typedef enum {
  IR_INT,        // integer literal: ival
  IR_FLOAT,      // float literal: fval
  IR_BOOL,       // true/false: ival
  IR_PARAM,      // size parameter number index
  IR_INPUT,      // input number index
  IR_VAR,        // a variable: var
  IR_LET,        // let var = a in body
  IR_IF,         // data conditional: if a then b else c
  IR_IFS,        // shape conditional on a size: ifs a then b else c
  IR_BINOP,      // a op b (lazy: && and || written as operators short-circuit)
  IR_UNOP,       // op a
  IR_PAIR,       // (a, b)
  IR_FST,        // fst a
  IR_SND,        // snd a
  IR_VEC,        // [elems...]
  IR_LENGTH,     // length a
  IR_ENTRY,      // entry a b
  IR_HD,         // hd a
  IR_TL,         // tl a
  IR_INITS,      // inits a
  IR_TAILS,      // tails a
  IR_REDCONCAT,  // redconcat a
  IR_DUMMYVEC,   // dummyvec (a, b): a elements shaped like b, zeroed
  IR_MAP,        // map (\x -> body) a
  IR_FOLD,       // fold (\x y -> body) a
  IR_PREFIX,     // prefix (\x y -> body) a
  IR_PAIR_MAP,   // pair_map (\x y -> body) (a, b)
  IR_C_PROD,     // c_prod (\x y -> body) a b: one row per element of b
  IR_ITER,       // iter (\x -> body) a b: body applied b times to a
  IR_IOTA,       // iota a: [0, 1, ..., a - 1]
  IR_SPLIT,      // split a b: b in sublists of a elements, the last shorter
  IR_MERGE,      // merge a b: the stable merge of two sorted vectors of numbers
  IR_NEIGHBOURS, // neighbours a b c: each element of c with its left and right ones (a, b at the ends)
  IR_REVERSE,    // reverse a
  IR_DH,         // dh (\x y -> body) g a: the butterfly of body (f) and g on a (a skeleton)
  IR_LAMBDA,     // \x y -> body: dh's second operator, in its c (not a value)
} IrKind;

typedef struct IrVar {
  int id;            // unique in the program (names the C variable)
  const char *name;  // source name, for the printer and comments
  Type *ty;          // concrete type
} IrVar;

// How the plan runs an application of a skeleton (plan.c).
typedef enum {
  MODE_LOCAL,  // sequentially, where it stands (nested, or under a data if)
  MODE_TOP,    // in parallel, as a stage of a region
} Mode;

typedef struct Ir Ir;
typedef struct Region Region;

struct Ir {
  IrKind kind;      // which form
  Type *ty;         // concrete type of the value (never T_VAR or T_FUN)
  Pos pos;          // source position (faults and comments refer to it)
  int64_t ival;     // IR_INT, IR_BOOL
  double fval;      // IR_FLOAT
  Op op;            // IR_BINOP, IR_UNOP
  bool lazy;        // IR_BINOP with && or ||: the right operand is conditional
  int index;        // IR_PARAM, IR_INPUT
  const char *written;  // IR_PAIR_MAP: the builtin written (pair_map, zip or map2), for its fault
  IrVar *var;       // IR_VAR, IR_LET
  IrVar *x, *y;     // skeletons and iter: the function's parameters
  Ir *body;         // IR_LET, skeletons, iter: the body
  Ir *a, *b, *c;    // operands (see IrKind); dh's c is its second operator
  Ir **elems;       // IR_VEC
  int nelems;       // IR_VEC
  int id;           // unique per node, for tables indexed by node
  // Filled in by plan.c:
  Mode mode;        // skeletons: parallel or sequential
  Region *region;   // MODE_TOP: the region it is a stage of
  int stage;        // MODE_TOP: its position in the region's chain
  bool fused;       // MODE_LOCAL map, pair_map or prefix whose elements are made
                    // inside the loop of the skeleton consuming it (no array)
  int carried[LAT_CLASSES];  // a loop's own (a local skeleton not fused, a top-level
                             // fold or prefix, a local iter): the operations by class
                             // each iteration waits for from the one before
  int loops_over[2];         // skeletons: loops of the function's body, outside the
                             // functions it applies, over the elements of x and of y
  bool fuses_element;        // fold: the map making each element it folds runs inside its
                             // body's loop (that map and the body's operand are fused)
  bool holds_region;         // it, or a node below it, is a skeleton applied at top level
  int in_place;              // a fold's body, map or pair_map: which operand (1: a, 2: b),
                             // the fold's accumulator, its result overwrites from the
                             // fold's second step on (0: none)
};

// A region: a chain of parallel applications, each the distributed argument
// of the next (docs/compiler.md, "Execution: master and regions").
struct Region {
  int id;           // 1.. in order of the program text
  Ir **stages;      // the applications, innermost (first executed) first
  int nstages;
  Ir *root;         // the last stage: its value is the region's result
  Ir *first;        // the first stage
  IrVar **captured; // free data variables of the stage functions, sent in full
  int ncaptured;
  Ir **inputs;      // inputs used by the stage functions, sent in full
  int ninputs;
  int carried_alone[LAT_CLASSES];  // at p = 1 (one fused pass): the longest carried
                                   // dependency of its stages
};

typedef struct IrProgram {
  Program *prog;    // the checked source program
  Ir *main;         // the lowered main expression
  int nvars;        // IrVar ids are 1..nvars
  int nnodes;       // Ir ids are 0..nnodes-1
  Region **regions; // the plan's regions, by id - 1
  int nregions;
  PtrVec types;     // interned data types (Type *), see lower_type
  Arena *arena;     // owns the IR (the program's arena)
} IrProgram;

//
// lower.c: the partial evaluator, typed AST to IR.
//

IrProgram *lower_program(Program *prog);
void lower_print(FILE *out, IrProgram *ir);  // the IR and its plan, for tests
// The data types the IR uses, interned: equal types are the same pointer.
// kind is T_INT, T_FLOAT, T_BOOL, T_PAIR (a, b) or T_VEC (a).
Type *lower_type(IrProgram *ir, TypeKind kind, Type *a, Type *b);
bool ir_type_has_vec(Type *t);  // does a value of type t hold a vector?

//
// hoist.c: loop-invariant code motion, run by lower_program before the
// plan: a scalar expression in a skeleton's function that reads none of the
// variables bound there and cannot fault becomes a let where the last
// variable it reads is bound, when that is inside a function.
//

void hoist_invariants(IrProgram *ir);

//
// walk.c: the one traversal of the IR.
//

// The operands of e in evaluation order (a, b, c, body, then a vector
// literal's elements) into kids; returns how many. kids must hold
// ir_max_kids(e) entries.
int ir_kids(const Ir *e, Ir **kids);
int ir_max_kids(const Ir *e);
// Calls visit(node, ctx) on every node of the tree e: ir_visit before the
// node's operands, ir_visit_after once they are done. e may be NULL.
typedef void (*IrVisit)(Ir *e, void *ctx);
void ir_visit(Ir *e, IrVisit visit, void *ctx);
void ir_visit_after(Ir *e, IrVisit visit, void *ctx);
// Does e hold an application of a skeleton at top level (so that it runs
// collectively, in supersteps, rather than on one process)? plan_program
// keeps the answer in e->holds_region.
bool ir_holds_region(const Ir *e);

//
// plan.c: the structure every plan shares: which skeleton applications are
// at top level (the candidates for parallel execution), how they chain into
// regions, what is fused into what, what each region captures, and each
// loop's carried dependency (docs/compiler.md).
//

// The plan's rules, as pure functions of the builtin: the code generator
// and the exact model follow them through the plan, and the paper model
// asks them where the papers' patterns are the same decisions. Block
// bounds are ranges.h's range_lo.
// A full application of b at top level runs as a parallel skeleton (map,
// fold, pair_map, c_prod, prefix, inits, tails, dh, neighbours, and zip and
// map2 which are pair_map); anything else, and any
// application inside a skeleton's function or a data if, is sequential.
bool plan_is_skeleton(Builtin b);
// b may take its vector argument distributed as the previous skeleton left
// it: every skeleton but pair_map, whose argument is a pair.
bool plan_takes_distributed(Builtin b);
// b leaves its result distributed by blocks: every skeleton but fold.
bool plan_leaves_distributed(Builtin b);

// Decides the mode of every skeleton application and builds the regions.
// Called by lower_program; deterministic, so the code generator and the
// exact cost model see the same structure.
void plan_program(IrProgram *ir);
// The distributed argument of a parallel stage (a for most skeletons, b for
// c_prod, c for neighbours, both a and b for pair_map).
Ir *plan_chain_arg(Ir *stage);
// Scalars of 8 bytes only, no vector: the memory layout is the packed form.
bool ir_word_flat(Type *t);
// Does a worker read its block of r's distributed argument, a vector of
// type t, where the message holds it (else it copies it out)?
bool plan_block_in_place(const Region *r, Type *t);
// Does a worker read a value of type t that r's fetch sends it in full (a
// captured variable or input, a c_prod operand) where the message holds it?
bool plan_full_in_place(const Region *r, Type *t);
// Does a message of a value of type t go to bsp_send from where the value
// lies, rather than packed into a buffer first? Vectors of word scalars
// do, and vectors of rows of them if the rows are of one length and follow
// each other in memory (the sender checks; codegen.c, block_helpers).
bool plan_sent_in_place(Type *t);
// Is e an integer literal, negated or not (a constant to the C compiler)?
bool plan_int_literal(const Ir *e);
// Is e a vector literal of literal scalars (negated or not)? The code
// generator makes it static data, once: no operation, no store where it
// stands.
bool plan_static_literal(const Ir *e);
// How the compiled code divides for e, a / or %: ints by a power of two
// literal with shifts, by another nonzero literal with a multiplication by
// its reciprocal and shifts, by anything else (which may fault) with an
// integer division; floats
// by a power of two literal with a multiplication (the reciprocal is
// exact), by anything else with a float division, a unit of its own.
typedef enum { DIVIDE_BY_SHIFTS, DIVIDE_BY_RECIPROCAL, DIVIDE, FLOAT_BY_RECIPROCAL, FLOAT_DIVIDE } Division;
Division plan_division(const Ir *e);
// The instructions the compiled code takes for e, an int / or % by a power
// of two literal (DIVIDE_BY_SHIFTS), beyond the one operation counted.
int plan_shift_extra(const Ir *e);
// Does gcc -O2 compute each pair stage stores with one vector operation and
// one 16-byte store (its SLP vectoriser), where the model counts two of
// each? stage is a map or prefix; producer, the fused map making its
// elements (NULL: they are read from memory); offset, a prefix's pass
// applying the lower blocks' total to its stored local prefix.
// docs/cost-model.md, "Packed pairs".
bool plan_packed_pair(const Ir *stage, const Ir *producer, bool offset);
// The skeleton an IR form applies (B_COUNT_ for the other forms).
Builtin ir_builtin(IrKind k);
bool ir_is_skeleton(IrKind k);  // plan_is_skeleton of its builtin

//
// The choices of a plan (choice.c): where every top-level value lives and
// how every region runs (docs/compiler.md, "Plans"). A plan is made for a
// number of processes but correct at any: only its speed depends on p.
//

// Where a value computed at top level lives.
typedef enum {
  LAY_ROOT,   // on process 0 only
  LAY_ALL,    // on every process, whole
  LAY_BLOCK,  // a vector spread by blocks: process k holds [range_lo(n, p, k), range_lo(n, p, k + 1))
  LAY_NONE,   // not at top level (a value local to a sequential part)
} Layout;

// How a parallel fold combines the processes' partial results.
typedef enum {
  FOLD_GATHER,     // every partial to process 0, which combines them in order: on process 0
  FOLD_TREE,       // pairwise, in ceil(log2 p) supersteps: on process 0
  FOLD_ALLREDUCE,  // every partial to every process, each combines them: on every process
  FOLD_METHODS
} FoldMethod;

// How a parallel prefix applies the lower blocks' total to its block.
typedef enum {
  PREFIX_STORE,      // pass 1 stores the local prefix; pass 2 applies the total to it
  PREFIX_RECOMPUTE,  // pass 1 only folds the block to its total; pass 2 runs the prefix again from it
  PREFIX_METHODS
} PrefixMethod;

// Independent accumulators a fold's local loop may keep (plan "lanes"):
// the loop runs that many contiguous sub-blocks side by side, so that it
// waits for its carried dependency that many times less.
enum { PLAN_LANES = 4 };

// How one region runs.
typedef struct RegionChoice {
  bool alone;           // sequentially: one fused pass on one process (out ROOT) or on all (out ALL)
  Layout out;           // where its result lives: a map-like region's may stay LAY_BLOCK;
                        // a fold's is LAY_ROOT or LAY_ALL by its method
  FoldMethod fold;      // a fold stage's combining
  PrefixMethod prefix;  // its prefix stages'
  int lanes;            // accumulators of its fold loops (1 or PLAN_LANES)
  bool levels;          // parallel, following the machine's levels (docs/hierarchical.md): its
                        // argument scattered and captured values broadcast down the levels, a
                        // fold combined and a prefix's totals found level by level, its result
                        // gathered up them (the plan's levels must be set)
} RegionChoice;

//
// steps.c: what a region does, step by step: the one record the code
// generator emits and the exact model counts.
//

typedef enum {
  STEP_FETCH,     // the region's operands converted to where its stages read them (fetch items)
  STEP_PASS,      // one loop over the local block through stages from..to
  STEP_EXCHANGE,  // the messages of stage `stage` by pattern xch, then a barrier
  STEP_COMBINE,   // what stage `stage` received combined: a fold's partials, a prefix's totals
  STEP_SEGMENTS,  // inits or tails of stage `stage`: the segments, from the block and the parts received
  STEP_GATHER,    // the result's blocks to process 0 or to every process (xch), then a barrier
                  // (XCH_LEVEL_GATHER: up the levels, a barrier each)
  STEP_BUTTERFLY, // dh of stage `stage` on the stored block: its local stages, then its rounds
                  // (XCH_BUTTERFLY) or, where the blocks do not align, gathered to process 0
                  // and scattered back (ranges.h, range_butterfly)
  STEP_NEIGHBOURS,// neighbours of stage `stage` on the stored block: at p > 1 the block's first and
                  // last elements to the nearest processes with elements (XCH_NEIGHBOURS) and a
                  // barrier, then every element with its neighbours stored (the ends: those
                  // received, or the given values at the vector's ends)
} StepKind;

// Where a pass's first stage reads its elements.
typedef enum {
  SRC_BLOCK,   // the region's argument block(s), as fetched
  SRC_STORED,  // the array the step before stored
  SRC_OFFSET,  // stage `from`'s local prefix, stored by the pass before, with the lower blocks' total applied
} PassSource;

// What a pass does with the elements of its last stage.
typedef enum {
  SINK_STORE,   // stores them: for the next step, or as the region's result block
  SINK_FOLD,    // folds them into the process's partial result
  SINK_SCAN,    // prefix, store method: stores the local prefix, whose last element is the block total
  SINK_REDUCE,  // prefix, recompute method: folds them with the prefix's operator into the block total
  SINK_CPROD,   // c_prod: computes and stores the rows of the local block
} PassSink;

typedef struct Step {
  StepKind kind;      // what it is
  int from, to;       // STEP_PASS: its stages; the others: to is the stage concerned
  PassSource src;     // STEP_PASS
  PassSink sink;      // STEP_PASS
  uint64_t seeded;    // STEP_PASS: prefix stages (bit s) run again, from the lower blocks' total
  int lanes;          // STEP_PASS with SINK_FOLD or SINK_REDUCE: accumulators
  bool interleaved;   // their elements: every lanes-th one (the operator commutes), else
                      // contiguous sub-blocks combined in order
  Exchange xch;       // STEP_EXCHANGE, STEP_COMBINE (what was received), STEP_GATHER: the
                      // pattern; XCH_TREE and the level patterns stand for all their rounds, each
                      // an exchange and a combine
} Step;

typedef struct RegionSteps {
  Step *steps;
  int nsteps;
} RegionSteps;

// One value a region's fetch converts: a captured variable, a captured
// input, a c_prod stage's operand sent in full, or a distributed argument.
typedef enum { FETCH_VAR, FETCH_INPUT, FETCH_OPERAND, FETCH_ARG } FetchKind;
typedef struct FetchItem {
  FetchKind kind;
  int index;         // FETCH_VAR: of r->captured; FETCH_INPUT: of r->inputs; FETCH_OPERAND: the
                     // stage; FETCH_ARG: 0, or 1 for pair_map's second vector
  Type *ty;          // its type
  Layout from, to;   // where it is, where the region reads it
  Exchange xch;      // the conversion's pattern (XCH_COUNT: none, it is where it is read)
} FetchItem;

//
// The plan: the choices and what they imply.
//

// The levels of the hierarchical machine a plan is made for (ranges.h,
// "Hierarchical machines"): rounds 0 for a flat machine.
typedef struct PlanLevels {
  int rounds;        // levels of masters
  const int *lead;   // [round * p + k]: the first process of k's group at that round
} PlanLevels;

typedef struct Plan {
  IrProgram *ir;          // the program
  int p;                  // the processes it is made for
  const char *name;       // "paper", "best", ... as asked (for messages)
  RegionChoice *region;   // by region id - 1
  Layout *input;          // by input index: where each process loads it (vectors may be LAY_BLOCK)
  Layout *place;          // by node id: a choice where a value at top level could live either way
                          // (a sequential part with a distributed operand, a top-level iter or ifs)
  bool block_result;      // main's value may stay distributed (it is written by blocks)
  bool master;            // the papers' template: every sequential part runs on process 0
  PlanLevels levels;      // the machine's levels, for regions that follow them (rounds 0: none)
  // Derived by plan_finish (layout.c, steps.c):
  Layout *have;           // by node id: where a top-level node's value is made
  Layout *need;           // by node id: where its consumer reads it (a conversion between)
  Layout *var;            // by var id: where a variable bound at top level lives (LAY_NONE: local)
  bool *collective;       // by node id: it, or something below it, runs in supersteps
  RegionSteps *steps;     // by region id - 1
} Plan;

// choice.c: plans.
// A plan for p processes with every choice at the papers' template: inputs
// on process 0, every region in parallel, fetched from and gathered to
// process 0, folds combined on process 0 directly, prefixes stored.
Plan *plan_paper(IrProgram *ir, int p);
// The same plan with every choice at its best guess before costing:
// inputs where their uses want them, regions left distributed.
Plan *plan_default(IrProgram *ir, int p);
// A copy of pl (choices and derived parts) in the IR's arena.
Plan *plan_copy(const Plan *pl);
// Restrictions on the planner's choices, from --plan's settings.
typedef struct PlanLimits {
  const char *base;      // "best" or "paper"
  int fold;              // a FoldMethod, or -1 for any
  int prefix;            // a PrefixMethod, or -1
  int lanes;             // 1 or PLAN_LANES, or 0 for any
  int regions;           // 1: parallel only, 0: sequential only, -1: either
  int inputs;            // a Layout for every input, or -1 for the planner's choice
  int result;            // LAY_BLOCK: main's value may stay distributed; else -1
  int levels;            // 0: flat regions only, 1: following the machine's levels only, -1: either
  double margin;         // a plan on p processes must beat the best one-process plan by this fraction
} PlanLimits;
// The default margin: the exact model's median error in validation
// (docs/compiler.md, "The planner").
#define PLAN_MARGIN 0.10
// Parses --plan SPEC: "best" or "paper", then ",KEY=VALUE" settings
// (docs/user-guide.md); false with a message in err if it is not one.
bool plan_parse_limits(const char *spec, PlanLimits *lim, char *err, size_t errsize);
// Applies the limits' fixed settings to every choice of pl.
void plan_apply_limits(Plan *pl, const PlanLimits *lim);
const char *plan_layout_name(Layout l);    // "root", "all", "block"
const char *plan_fold_name(FoldMethod m);  // "gather", "tree", "allreduce"
const char *plan_prefix_name(PrefixMethod m);  // "store", "recompute"
// Can region r follow a machine's levels (no inits, tails or neighbours
// stage: their exchanges are between processes, not up and down a tree)?
bool plan_levels_fit(const Region *r);
// A region's choice in words, e.g. "parallel, fold by tree, result on process 0".
char *plan_choice_text(Arena *a, const Region *r, const RegionChoice *c);

// layout.c: derives where every top-level value lives (have, need, var,
// collective) and every region's steps from the choices; call after any
// change of a choice. A choice that cannot hold (a distributed scalar, an
// alone region left distributed) is corrected to one that can.
void plan_finish(Plan *pl);
// The pattern converting a value from one layout to another (XCH_COUNT:
// none is needed: the same layout, or ALL read as ROOT or as BLOCK).
Exchange plan_conversion(Layout from, Layout to);
// The same, down the machine's levels when levels is set (a scatter or a
// broadcast from process 0: XCH_LEVEL_SCATTER, XCH_LEVEL_BCAST).
Exchange plan_conversion_by(Layout from, Layout to, bool levels);
// The conversions of r's fetch, in field order; returns how many (at most
// plan_fetch_max(r)).
int plan_fetch_items(const Plan *pl, const Region *r, FetchItem *items);
int plan_fetch_max(const Region *r);
// May r read the fetched item where its message holds it (until the next
// barrier: a block no step reads after one, a value sent in full
// plan_full_in_place allows)?
bool plan_fetch_in_place(const Plan *pl, const Region *r, const FetchItem *it);
// Does r's fetch send anything at p processes (so that it ends in a barrier)?
bool plan_fetch_sends(const Plan *pl, const Region *r);
// Does the plan send nothing at all (every region alone, no conversion, no
// input by blocks)? Then it runs the same on one process, where the other
// processes would only wait at barriers.
bool plan_one_process(const Plan *pl);
// The layout of a region's result under its choice.
Layout plan_region_out(const Plan *pl, const Region *r);

// steps.c: r's steps under its choice (plan_finish keeps them in pl->steps).
RegionSteps plan_region_steps(IrProgram *ir, const Region *r, const RegionChoice *c);
// The longest carried dependency among the loops a pass runs as one (its
// prefix stages run as prefixes, its fold or scan), by latency class.
void plan_pass_carried(const Region *r, const Step *s, int carried[LAT_CLASSES]);
// Can a pass with these stages keep lanes accumulators (its elements are
// made independently of each other)?
bool plan_pass_laned(const Region *r, const Step *s);
// Does a fold's (or prefix's) operator commute: a commutative primitive
// (+, *, max, min, &&, ||) of its two parameters, or a pair of them over
// their components? Its lanes may then take every lanes-th element.
bool plan_fold_commutes(const Ir *fold);

#endif
