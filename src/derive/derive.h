// derive.h: the derivation assistant's semantics: do programs compute the
// same thing (agree.c)? Above the interpreter and the cost models, below
// the command line.
#ifndef VECBSP_DERIVE_H
#define VECBSP_DERIVE_H

#include "eval/eval.h"
#include "lang/lang.h"

//
// agree.c: programs run by the reference interpreter on random inputs at
// many sizes; a disagreement is shrunk to a smallest counterexample.
//

// One input to every program: the params (by the first program's param
// index) and the inputs (by its input index).
typedef struct AgreeCase {
  int64_t *params;
  Value *inputs;
} AgreeCase;

// What one program made of a case: its value, or the error it stopped with.
typedef struct AgreeOutcome {
  bool failed;
  Value value;        // when it did not fail
  const char *error;  // when it failed: "FILE:LINE:COL: MESSAGE"
} AgreeOutcome;

typedef struct Agreement {
  bool agree;             // no case found on which two programs differ
  int cases;              // cases run
  int points;             // distinct size points among them
  int64_t largest;        // the largest value a param took
  double seconds;         // time spent
  // When !agree: the smallest case found, and each program's outcome on it.
  AgreeCase counterexample;
  AgreeOutcome *outcomes;  // one per program
  int first, second;       // two programs that differ on it
} Agreement;

// Checks that progs[0..n) (n >= 2) have the same params and inputs, of the
// same types and shapes, and main of the same type; an error says which
// differ. Then runs them on random inputs (seeded by seed), sizes growing
// from 0, for about budget seconds at most: values in [-100, 100], in
// [-3, 3], all negative and all non-negative. Floats agree within a
// relative 1e-9 (different formulations round differently); both failing
// counts as agreeing, one failing as a difference.
Agreement agree_check(Arena *a, Program **progs, int n, uint64_t seed, double budget);
// The case as command-line arguments: "-D n=3 --input 'x=[1, -2, 0]'".
char *agree_case_args(Arena *a, Program *prog, const AgreeCase *c);
// Equal values, floats within a relative 1e-9.
bool agree_values(Value x, Value y);

//
// laws.c: the laws a program relies on: the operators given to fold and
// prefix are associative (tested on random values).
//

typedef struct LawViolation {
  Pos where;         // the operator
  const char *text;  // what fails, with the counterexample
} LawViolation;

typedef struct LawReport {
  int checked;         // operators that passed
  PtrVec violations;   // LawViolation *: those that did not
} LawReport;

// Tests every fold's and prefix's operator that reads no input and no
// variable bound outside it (the others depend on the data) on random
// values of its type; params by index (NULL: each 5).
LawReport laws_check(Arena *a, Program *prog, const int64_t *params);
// Each violation as a warning at its operator; strict: the first as an error.
void laws_print(const LawReport *report, bool strict);
// Does times distribute over plus, on both sides, on random values? Both
// must read no data (false otherwise, or on a counterexample).
bool laws_distribute(Arena *a, Program *prog, Node *times, Node *plus);

//
// rewrite.c: the laws of the Bird-Meertens formalism as rewrite rules:
// map fusion, beta reduction, map and fold promotion through redconcat,
// Horner's rule (its distributivity tested), the scan lemma.
//

typedef struct Rewrite {
  const char *law;   // "map fusion"
  char *subterm;     // the part of main rewritten, as text
  char *text;        // the whole program after the rewrite
} Rewrite;

// Every rewrite of prog's main one law allows at one place (Rewrite *).
PtrVec rewrite_all(Arena *a, Program *prog);

//
// search.c: a best-first search through the rewrites by predicted cost.
//

typedef struct DeriveStep {
  const char *law;   // NULL for the program derived from
  char *subterm;     // where the law was applied
  char *text;        // the program
  Program *prog;     // parsed and checked
  double seconds;    // its predicted cost
} DeriveStep;

typedef struct Derivation {
  DeriveStep *steps;  // from the original to the cheapest program found
  int nsteps;
  int explored;       // programs found, checked and costed
  int rejected;       // rewrites that failed to check, to agree or to be costed
  double seconds;     // time spent
} Derivation;

// The predicted seconds of a program (the caller's machine, model, sizes).
typedef double (*DeriveCost)(void *ctx, Program *prog);
// From start, expands the cheapest program not yet expanded (so a step that
// costs more is taken once nothing cheaper is left), at most max_expand
// times; each rewrite is kept only if it checks and agrees with start on
// random inputs (agree_check).
Derivation derive_search(Arena *a, Program *start, DeriveCost cost, void *ctx, int max_expand);

#endif
