// check.c: `vecbsp check FILE`: parse, infer types, check sizes; print main's type.
#include "cli/cli.h"

int cmd_check(int argc, char **argv) {
  Options opt;
  cli_parse_options(argc, argv, &opt);
  if (opt.nfiles != 1) fatal("check expects one program file");
  Arena *a = arena_new();
  char *type;
  cli_load_program(a, opt.files[0], &type);
  printf("main : %s\n", type);
  arena_free(a);
  return 0;
}
