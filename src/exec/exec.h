// exec.h: running VEC-BSP programs: values, inputs, the reference
// interpreter.
#ifndef VECBSP_EXEC_H
#define VECBSP_EXEC_H

#include "lang/lang.h"

#include <stdio.h>

//
// value.c: run-time values and their literal syntax.
//

typedef enum { V_INT, V_FLOAT, V_BOOL, V_PAIR, V_VEC, V_FUN } ValueKind;

typedef struct PairVal PairVal;
typedef struct VecVal VecVal;
typedef struct FunVal FunVal;

typedef struct Value {
  ValueKind kind;  // which member of the union is live
  union {
    int64_t i;     // V_INT (sizes are ints too)
    double f;      // V_FLOAT
    bool b;        // V_BOOL
    PairVal *pair; // V_PAIR
    VecVal *vec;   // V_VEC
    FunVal *fun;   // V_FUN
  };
} Value;

struct PairVal {
  Value a, b;  // components
};

// Vectors are immutable, so a vector may share its elements with another
// (inits and tails return views, not copies).
struct VecVal {
  int64_t len;    // number of elements
  Value *elems;   // the elements (possibly inside another vector's array)
};

Value value_int(int64_t i);
Value value_float(double f);
Value value_bool(bool b);
Value value_pair(Arena *a, Value x, Value y);
Value value_vec(Arena *a, int64_t len);  // elements to be filled in
bool value_same_shape(Value x, Value y);
void value_print(FILE *out, Value v);     // literal syntax, as language.md
char *value_to_string(Value v);           // malloc'ed literal syntax
void format_float(char *buf, size_t size, double f);  // shortest exact form

//
// input.c: binding inputs from literals, files or a seed.
//

typedef struct InputSpec {
  const char **assignments;  // "NAME=VALUE" from --input
  int nassignments;
  bool has_seed;             // --random SEED given
  uint64_t seed;
} InputSpec;

// Values of every input of prog, by input index; errors are diagnostics.
Value *inputs_bind(Arena *a, Program *prog, const int64_t *params, const InputSpec *spec);
// Length of a vector in an input's declared type, under the params.
int64_t input_length(Program *prog, const int64_t *params, InputType *t);

// The deterministic generator behind --random (splitmix64), one stream per
// input: also used by the generated C programs, which must agree.
uint64_t random_stream_seed(uint64_t seed, int input_index);
uint64_t random_next(uint64_t *state);
int64_t random_int(uint64_t *state);    // in [-100, 100]
double random_float(uint64_t *state);   // in [-1, 1]
bool random_bool(uint64_t *state);

//
// interp.c: the sequential reference interpreter; the meaning of a program.
//

Value interp_run(Arena *a, Program *prog, const int64_t *params, const Value *inputs);
// Evaluates a closed expression of params and literals (input lengths).
Value interp_eval_closed(Arena *a, Program *prog, const int64_t *params, Node *n);

//
// The compiler and the exact cost model (lower.c, plan.c, codegen.c,
// exact.c; the IR is in exec/ir.h; the design in docs/compiler.md).
//

typedef struct IrProgram IrProgram;

// plan.c: the plan's rules, as pure functions of the builtin: the code
// generator and the exact model follow them through the IR's plan, and the
// paper model asks them where the papers' patterns are the same decisions.
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

// Lowers and plans a checked program (errors are diagnostics).
IrProgram *lower_program(Program *prog);
// The C program over the BSPlib API that runs it (malloc'ed text).
char *codegen_program(IrProgram *ir);

//
// exact.c: the exact cost model: the supersteps `vecbsp run` executes at p
// processes with the given params, computed from the IR and its plan
// without running anything (docs/cost-model.md, "The exact model").
//

// Latency classes of the operations on a loop's carried dependency (plan.c,
// "Carried dependencies"): integer add, subtract, compare, logic; max, min
// and data conditionals (a compare and a select); multiply and float add or
// multiply; divide and remainder.
typedef enum { LAT_FAST, LAT_SELECT, LAT_MUL, LAT_DIV, LAT_CLASSES } LatClass;

// What one process does in one superstep, as the plan says the executor
// does it. ops is what the profile counts (w); the others are calibration
// counts that the generated code does not count.
typedef struct ExactCounts {
  int64_t ops;     // primitive scalar operations
  int64_t divs;    // of which / and %
  int64_t muls;    // of which * with no literal operand (by a literal, the compiler shifts and adds)
  int64_t elems;   // skeleton loop iterations (elements mapped, operator applications, iter rounds)
  int64_t loads;   // 8-byte words read from stored arrays (a received block included)
  int64_t stores;  // 8-byte words written to stored arrays (results, copies, packing)
  int64_t unpacked;  // words copied out of received messages (data another core wrote)
  int64_t vectors;   // vectors packed into messages or unpacked from them one by one
  int64_t carried[LAT_CLASSES];  // operations on the carried dependencies of loops, by class, times the iterations
  int64_t exits;     // loop exits mispredicted: of long loops whose trip count changed since their last run
  int64_t acc_loads;   // words read from a fold's accumulator that its body overwrites in place
                       // (the stores over them are not counted: they cost nothing more)
  int64_t reloads;     // words read again: an operand bound outside a skeleton's function, read
                       // in full by each application, from its second application on
  int64_t invariant;   // while one application is tallied: its loads of such operands (apply
                       // turns them into one application's loads and the rest's reloads)
} ExactCounts;

typedef struct ExactStep {
  int64_t w;           // operations of the busiest process (most.ops)
  int64_t h;           // max over processes of max(words sent, words received)
  Pos where;           // the skeleton whose barrier ends it (main, for the last)
  const char *what;    // what ends it: "map: fetch", "fold: partial results", ..., "end"
  ExactCounts most;    // each count's maximum over the processes
  ExactCounts *procs;  // each process's counts, by pid (p entries)
  int64_t *sent;       // words each process sends, by pid
  int64_t *recv;       // words each process receives, by pid
} ExactStep;

typedef struct ExactResult {
  ExactStep *steps;  // the supersteps in order, the last (ending the program, h = 0) included
  int nsteps;        // steps listed: S + 1 unless truncated
  bool truncated;    // more supersteps than EXACT_STEPS_LISTED: W, H, S still count them all
  int p;             // processes
  int64_t W, H;      // sums of w and h over all supersteps
  int64_t S;         // barriers
  int64_t shapes;    // distinct shapes the analysis built (its memory)
  double footprint;  // words of memory one run touches: the inputs, every word stored and
                     // every word copied into or out of a message
  double accumulator;  // words of the largest accumulator a fold overwrites in place (on one process)
  double reload_set;   // words one application touches, of the largest that reads an operand again
                       // (on one process): what must stay in the cache for reloads to hit it
} ExactResult;

enum { EXACT_STEPS_LISTED = 100000 };

// Predicts prog into out, building the shapes and out's supersteps in a
// (prog's IR is lowered and planned once, in its own arena). Assumes the
// program passes cost_shape_check; limits are diagnostics (error_at).
void exact_cost(Arena *a, Program *prog, const int64_t *params, int p, ExactResult *out);

#endif
