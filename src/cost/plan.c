// plan.c: the execution plan decisions shared by the exact cost model and
// the code generator. Keeping them here, as pure functions, is what makes
// the exact model predict what `vecbsp run` executes: both ask the same
// questions of the same code. docs/cost-model.md ("exact model") states the
// context rules that go with them.
#include "cost/cost.h"

int64_t plan_block_start(int64_t n, int p, int k) {
  return (int64_t)((__int128)k * n / p);
}

bool plan_is_skeleton(Builtin b) {
  switch (b) {
  case B_MAP: case B_FOLD: case B_PAIR_MAP: case B_C_PROD: case B_PREFIX: case B_INITS: case B_TAILS:
    return true;
  default:
    return false;
  }
}

bool plan_takes_distributed(Builtin b) { return plan_is_skeleton(b) && b != B_PAIR_MAP; }

bool plan_leaves_distributed(Builtin b) { return plan_is_skeleton(b) && b != B_FOLD; }
