// pending.c: subcommands whose implementation has not landed yet.
#include "cli/cli.h"

static int pending(const char *what) {
  fatal("'%s' is not available yet in this build of vecbsp", what);
}

__attribute__((weak)) int cmd_cost(int argc, char **argv) { return pending("cost"); }
__attribute__((weak)) int cmd_sweep(int argc, char **argv) { return pending("sweep"); }
