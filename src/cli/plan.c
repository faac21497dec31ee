// plan.c: the plan a command compiles, runs or predicts (--plan), and
// `vecbsp plan FILE`: the chosen implementation of every skeleton
// application with the predicted seconds of each alternative.
#include "cli/cli.h"
#include "cost/cost.h"

Plan *cli_plan(Arena *a, Program *prog, const int64_t *params, const Options *opt, int p) {
  Machine m = cost_machine_from_options(a, opt);
  m.p = p;
  return cost_plan(prog, params, &m, opt->plan, opt->output && opt->output[0]);
}
