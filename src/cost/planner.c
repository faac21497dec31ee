// planner.c: choosing a plan: the papers' template, or the alternatives of
// every region and the layouts of the values between them that minimise
// the exact model's predicted time (docs/compiler.md, "The planner").
#include "cost/cost.h"

#include <string.h>

Plan *cost_plan(Program *prog, const int64_t *params, const Machine *m, const char *spec, bool block_result) {
  PlanLimits lim;
  char err[256];
  if (!plan_parse_limits(spec, &lim, err, sizeof err)) fatal("%s", err);
  if (block_result && lim.result < 0) lim.result = LAY_BLOCK;
  IrProgram *ir = lower_program(prog);
  Plan *pl = strcmp(lim.base, "paper") == 0 ? plan_paper(ir, m->p) : plan_default(ir, m->p);
  (void)params;
  plan_apply_limits(pl, &lim);
  return pl;
}
