// check.c: the whole front end, from source text to a checked program.
#include "lang/lang.h"

Program *program_check(Arena *a, const Source *src, char **main_type) {
  Program *prog = parse_program(a, src);
  typecheck_program(prog);
  char *type = check_sizes(prog);
  if (main_type) *main_type = type;
  return prog;
}
