// eval.h: the meaning of VEC-BSP programs: run-time values, inputs, and
// the sequential reference interpreter (vecbsp eval).
#ifndef VECBSP_EVAL_H
#define VECBSP_EVAL_H

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
// npy.c: NumPy .npy arrays (docs/user-guide.md, "Inputs" and "Results"),
// with the format code and the messages of the generated programs.
//

// The input named input, declared as the text declared: an array of
// dims[0..ndim) (the first 64 of them) of scalars of kind scalar (IT_PAIR:
// the declared type has pairs, an error), from the .npy file at path.
Value npy_read_input(Arena *a, const char *path, const char *input, const char *declared, InputTypeKind scalar,
                     const int64_t *dims, int ndim);
// An error unless a result of type t can be written as .npy: a vector of
// int, float or bool, or of such vectors (the messages name path).
void npy_check_result(const char *path, Type *t);
// Writes v, a result of type t, to path as .npy: into path.partial, renamed
// into place; a result that is not a regular array, or a failed write, is an
// error and leaves neither file behind.
void npy_write_result(const char *path, Value v, Type *t);

//
// interp.c: the sequential reference interpreter; the meaning of a program.
//

Value interp_run(Arena *a, Program *prog, const int64_t *params, const Value *inputs);
// Applies fn, a function expression that reads no input and no variable
// bound outside it, to args (the law checks' operators).
Value interp_apply(Arena *a, Program *prog, const int64_t *params, Node *fn, const Value *args, int nargs);
// Evaluates a closed expression of params and literals (input lengths).
Value interp_eval_closed(Arena *a, Program *prog, const int64_t *params, Node *n);

#endif
