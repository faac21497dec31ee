// ir.h: the compiler's intermediate representation: a first-order,
// monomorphic expression tree with a concrete type on every node, and the
// plan that says how each skeleton application runs (docs/compiler.md).
#ifndef VECBSP_IR_H
#define VECBSP_IR_H

#include "lang/lang.h"

#include <stdio.h>

// Latency classes of the operations on a loop's carried dependency (plan.c,
// "Carried dependencies"): integer add, subtract, compare, logic; max, min
// and data conditionals (a compare and a select); multiply and float add or
// multiply; divide and remainder.
typedef enum { LAT_FAST, LAT_SELECT, LAT_MUL, LAT_DIV, LAT_CLASSES } LatClass;

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
  IrVar *var;       // IR_VAR, IR_LET
  IrVar *x, *y;     // skeletons and iter: the function's parameters
  Ir *body;         // IR_LET, skeletons, iter: the body
  Ir *a, *b, *c;    // operands (see IrKind)
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
// plan.c: modes, regions and captured data.
//

// The plan's rules, as pure functions of the builtin: the code generator
// and the exact model follow them through the IR's plan, and the paper
// model asks them where the papers' patterns are the same decisions.
// Process k owns [plan_block_start(n, p, k), plan_block_start(n, p, k + 1))
// of a length-n vector spread over p processes: floor(k*n/p).
int64_t plan_block_start(int64_t n, int p, int k);
// A full application of b at top level runs as a parallel skeleton (map,
// fold, pair_map, c_prod, prefix, inits, tails); anything else, and any
// application inside a skeleton's function or a data if, is sequential.
bool plan_is_skeleton(Builtin b);
// b may take its vector argument distributed as the previous skeleton left
// it: every skeleton but pair_map, whose argument is a pair.
bool plan_takes_distributed(Builtin b);
// b leaves its result distributed by blocks: every skeleton but fold.
bool plan_leaves_distributed(Builtin b);

// Decides the mode of every skeleton application and builds the regions.
// Called by lower_program; deterministic, so the code generator and the
// exact cost model see the same plan.
void plan_program(IrProgram *ir);
// The distributed argument of a parallel stage (a for most skeletons, b for
// c_prod, both a and b for pair_map).
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
// The skeleton an IR form applies (B_COUNT_ for the other forms).
Builtin ir_builtin(IrKind k);
bool ir_is_skeleton(IrKind k);  // plan_is_skeleton of its builtin

#endif
