// ir_dump.c: prints the lowered IR and the plan of a program (test driver).
#include "ir/ir.h"

#include <errno.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: ir_dump FILE.vec\n");
    return 2;
  }
  Arena *a = arena_new();
  Source *src = source_read(a, argv[1]);
  if (!src) fatal("cannot read '%s': %s", argv[1], strerror(errno));
  Program *prog = program_check(a, src, NULL);
  lower_print(stdout, lower_program(prog));
  arena_free(a);
  return 0;
}
