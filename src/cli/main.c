// main.c: the vecbsp command: dispatches to the subcommands.
#include "cli/cli.h"

#include <pthread.h>
#include <string.h>

static const struct {
  const char *name;
  int (*run)(int, char **);
  const char *usage;
} commands[] = {
    {"check", cmd_check, "check FILE                      parse, infer types, check shapes"},
    {"eval", cmd_eval, "eval FILE [-D..] [--input..|--random SEED]   sequential reference interpreter"},
    {"cost", cmd_cost, "cost FILE [-D..] [--machine M] [-p -g -l -s] [--model exact|paper] [--symbolic] [--json]"},
    {"sweep", cmd_sweep, "sweep FILE... --vary NAME=FROM:TO:STEP [-D..] [--csv|--json] [--plot OUT.svg]"},
    {"derive", cmd_derive, "derive FILE -D.. [--model M] [--machine M] [-p P] [--steps N] [-o OUT.vec] [--plot OUT.svg --vary ..] [--json]"},
    {"compare", cmd_compare, "compare A B... [--random SEED] [--vary NAME=FROM:TO:STEP [--measure]] [--json] [--plot OUT.svg]"},
    {"run", cmd_run, "run FILE [-D..] [--input..|--random SEED] [-p P] [--backend threads|mpi] [--profile] [--json]"},
    {"compile", cmd_compile, "compile FILE -o OUT.c [-D..] [-p P] [--plan SPEC]"},
    {"plan", cmd_plan, "plan FILE [-D..] [-p P] [--machine M] [--plan SPEC] [--vary p=FROM:TO] [--json]"},
    {"probe", cmd_probe, "probe [-p P] [--backend threads|mpi] [--refit FILE.json] [-o FILE.json] [--json]"},
};
enum { NCOMMANDS = sizeof commands / sizeof *commands };

static int usage(FILE *out) {
  fputs("usage: vecbsp COMMAND [OPTIONS]\n\ncommands:\n", out);
  for (int i = 0; i < NCOMMANDS; i++) fprintf(out, "  %s\n", commands[i].usage);
  fputs("\ncommon options: -D NAME=VALUE binds a param; --input NAME=[literal]|FILE;\n"
        "--random SEED fills the other inputs; --json for machine-readable output.\n"
        "See docs/user-guide.md.\n", out);
  return out == stdout ? 0 : 2;
}

// A subcommand runs on a thread with a stack of STACK_BYTES (reserved, not
// committed): the checks, the interpreter and the analyses recurse once per
// definition applied inside another, and a chain of 14000 defs overflowed
// the usual 8 MB.
enum { STACK_BYTES = 1 << 30 };

typedef struct Job {
  int (*run)(int, char **);  // the subcommand
  int argc;
  char **argv;
  int status;                // what it returned
} Job;

static void *run_job(void *job) {
  Job *j = job;
  j->status = j->run(j->argc, j->argv);
  arena_drop_spares();  // kept per thread: they would die with it, unreachable
  return NULL;
}

static int run_on_big_stack(int (*run)(int, char **), int argc, char **argv) {
  Job job = {run, argc, argv, 0};
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, STACK_BYTES) == 0 &&
      pthread_create(&thread, &attr, run_job, &job) == 0) {
    pthread_join(thread, NULL);
    return job.status;
  }
  return run(argc, argv);  // no such thread: the usual stack
}

int main(int argc, char **argv) {
  if (argc < 2) return usage(stderr);
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0)
    return usage(stdout);
  for (int i = 0; i < NCOMMANDS; i++)
    if (strcmp(argv[1], commands[i].name) == 0) return run_on_big_stack(commands[i].run, argc - 1, argv + 1);
  fprintf(stderr, "vecbsp: error: unknown command '%s'\n", argv[1]);
  return usage(stderr);
}
