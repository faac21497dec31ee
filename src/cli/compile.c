// compile.c: `vecbsp compile FILE -o OUT.c`: the standalone C program over
// the BSPlib API (it reads -D, --input and --random itself).
#include "cli/cli.h"
#include "codegen/codegen.h"

#include <stdlib.h>
#include <string.h>

int cmd_compile(int argc, char **argv) {
  Options opt;
  cli_parse_options(argc, argv, &opt);
  if (opt.nfiles != 1) fatal("compile expects one program file");
  Arena *a = arena_new();
  Program *prog = cli_load_program(a, opt.files[0], NULL);
  const int64_t *params = opt.ndefines ? cli_bind_params(a, prog, &opt) : NULL;
  char *text = codegen_program(lower_program(prog), cli_plan(a, prog, params, &opt, opt.p ? opt.p : cli_cores(), false));
  if (opt.output)
    cli_write_file(opt.output, text);
  else
    fputs(text, stdout);
  free(text);
  arena_free(a);
  return 0;
}
