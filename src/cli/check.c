// check.c: `vecbsp check FILE`: parse, infer types, check sizes, test the
// laws the program relies on (an associative operator for every fold and
// prefix: warnings, errors under --strict); print main's type.
#include "cli/cli.h"
#include "derive/derive.h"

int cmd_check(int argc, char **argv) {
  Options opt;
  cli_parse_options(argc, argv, &opt);
  if (opt.nfiles != 1) fatal("check expects one program file");
  Arena *a = arena_new();
  char *type;
  Program *prog = cli_load_program(a, opt.files[0], &type);
  LawReport laws = laws_check(a, prog, opt.ndefines ? cli_bind_params(a, prog, &opt) : NULL);
  laws_print(&laws, opt.strict);
  printf("main : %s\n", type);
  arena_free(a);
  return 0;
}
