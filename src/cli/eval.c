// eval.c: `vecbsp eval FILE`: run the reference interpreter and print the
// result, or write it as a .npy file with -o.
#include "cli/cli.h"
#include "eval/eval.h"

#include <stdlib.h>
#include <string.h>

int cmd_eval(int argc, char **argv) {
  Options opt;
  cli_parse_options(argc, argv, &opt);
  if (opt.nfiles != 1) fatal("eval expects one program file");
  cli_check_result_file(&opt);
  Arena *a = arena_new();
  Program *prog = cli_load_program(a, opt.files[0], NULL);
  int64_t *params = cli_bind_params(a, prog, &opt);
  cost_shape_check(prog, params);  // shape errors, such as if branches of different shapes, statically
  if (opt.output) npy_check_result(opt.output, prog->main->type);  // before any work
  InputSpec spec = {opt.inputs, opt.ninputs, opt.has_seed, opt.seed};
  Value *inputs = inputs_bind(a, prog, params, &spec);
  Value result = interp_run(a, prog, params, inputs);
  if (opt.output) {
    npy_write_result(opt.output, result, prog->main->type);
  } else if (opt.json) {
    char *text = value_to_string(result);
    fputs("{ \"result\": \"", stdout);
    fputs(text, stdout);  // literal syntax has no characters JSON must escape
    fputs("\" }\n", stdout);
    free(text);
  } else {
    value_print(stdout, result);
    putchar('\n');
  }
  arena_free(a);
  return 0;
}
