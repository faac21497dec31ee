// exact_dump.c: prints the exact model's supersteps ("w h" per line) for a
// program at p processes under a plan (--plan's SPEC, "paper" by default):
// exact_dump FILE P [SPEC] NAME=VALUE... (test driver).
#include "cost/cost.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: exact_dump FILE P [NAME=VALUE...]\n");
    return 2;
  }
  Arena *a = arena_new();
  Source *src = source_read(a, argv[1]);
  if (!src) fatal("cannot read '%s': %s", argv[1], strerror(errno));
  Program *prog = program_check(a, src, NULL);
  int64_t *params = arena_calloc(a, (size_t)prog->nparams + 1, sizeof *params);
  for (int i = 3; i < argc; i++)
    for (int k = 0; k < prog->nparams; k++) {
      size_t n = strlen(prog->params[k]->name);
      if (strncmp(argv[i], prog->params[k]->name, n) == 0 && argv[i][n] == '=') params[k] = atoll(argv[i] + n + 1);
    }
  bool planned = argc > 3 && (strncmp(argv[3], "best", 4) == 0 || strncmp(argv[3], "paper", 5) == 0);
  const char *spec = planned ? argv[3] : "paper";
  Machine m = machine_select(a, "local");
  m.p = atoi(argv[2]);
  ExactResult r;
  exact_cost(a, prog, params, cost_plan(prog, params, &m, spec, false), &r);
  for (int i = 0; i < r.nsteps; i++) printf("%lld %lld\n", (long long)r.steps[i].w, (long long)r.steps[i].h);
  arena_free(a);
  return 0;
}
