// main.c: the vecbsp command: dispatches to the subcommands of options.c's
// table, on a thread with a large stack.
#include "cli/cli.h"

#include <pthread.h>
#include <string.h>

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
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, NULL);  // the interrupts are handled here, where the children are waited for
  j->status = j->run(j->argc, j->argv);
  arena_drop_spares();  // kept per thread: they would die with it, unreachable
  return NULL;
}

static int run_on_big_stack(int (*run)(int, char **), int argc, char **argv) {
  Job job = {run, argc, argv, 0};
  pthread_attr_t attr;
  pthread_t thread;
  sigset_t saved;
  cli_block_interrupts(true, &saved);  // in this thread, which only waits
  if (pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, STACK_BYTES) == 0 &&
      pthread_create(&thread, &attr, run_job, &job) == 0) {
    pthread_join(thread, NULL);
    return job.status;
  }
  cli_block_interrupts(false, &saved);
  return run(argc, argv);  // no such thread: the usual stack
}

// vecbsp help [COMMAND | --man]
static int help(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--man") == 0) {
    cli_print_man(stdout);
    return 0;
  }
  const CliCommand *cmd = argc == 2 ? cli_find_command(argv[1]) : NULL;
  if (cmd) return cli_print_command_help(stdout, cmd);
  if (argc > 1) fprintf(stderr, "vecbsp: error: no command '%s'\n", argv[1]);
  return cli_print_usage(argc > 1 ? stderr : stdout);
}

int main(int argc, char **argv) {
  if (argc < 2) return cli_print_usage(stderr);
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0)
    return help(argc - 1, argv + 1);
  if (strcmp(argv[1], "--version") == 0) {
    cli_print_version(stdout);
    return 0;
  }
  const CliCommand *cmd = cli_find_command(argv[1]);
  cli_cleanup_init();
  if (cmd) return run_on_big_stack(cmd->run, argc - 1, argv + 1);
  fprintf(stderr, "vecbsp: error: unknown command '%s'\n", argv[1]);
  return cli_print_usage(stderr);
}
