// compare.c: `vecbsp compare A.vec B.vec ...`: do the formulations agree
// (random inputs at many sizes, a disagreement shrunk to a counterexample
// to paste; each program's fold and prefix operators tested for
// associativity), then which is cheaper where: sweep's table over --vary,
// with the exact crossover sizes. Exit status 1 when a counterexample was
// found.
#include "cli/cli.h"
#include "derive/derive.h"

#include <stdlib.h>
#include <string.h>

// The agreement check stops growing sizes after this many seconds.
#define AGREE_BUDGET_SECONDS 5.0

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static char *value_text(Arena *a, Value v) {
  char *s = value_to_string(v), *text = arena_printf(a, "%s", s);
  free(s);
  return text;
}

static char *outcome_text(Arena *a, const AgreeOutcome *o) {
  return o->failed ? arena_printf(a, "fails: %s", o->error) : value_text(a, o->value);
}

static void print_agreement(FILE *out, Arena *a, Program **progs, int n, const Agreement *ag) {
  if (ag->agree) {
    fprintf(out, "agree: %d programs gave the same results on %d random inputs (%d size points, params up to %lld) in %.2g s\n",
            n, ag->cases, ag->points, (long long)ag->largest, ag->seconds);
    return;
  }
  char *args = agree_case_args(a, progs[0], &ag->counterexample);
  fprintf(out, "differ: %s and %s, on\n  %s\n", base_name(progs[ag->first]->src->name),
          base_name(progs[ag->second]->src->name), args);
  for (int j = 0; j < n; j++)
    fprintf(out, "  %s: %s\n", base_name(progs[j]->src->name), outcome_text(a, &ag->outcomes[j]));
  fprintf(out, "(found after %d random inputs in %.2g s; vecbsp eval FILE %s shows it)\n", ag->cases, ag->seconds, args);
}

static json_t *agreement_json(Arena *a, Program **progs, int n, const Agreement *ag) {
  json_t *root = json_pack("{s:b, s:i, s:i, s:I, s:f}", "agree", ag->agree, "cases", ag->cases, "points", ag->points,
                           "largest", (json_int_t)ag->largest, "seconds", ag->seconds);
  if (ag->agree) return cost_json_checked(root);
  json_t *params = json_object(), *inputs = json_object(), *results = json_array();
  const AgreeCase *c = &ag->counterexample;
  for (int i = 0; i < progs[0]->nparams; i++)
    json_object_set_new(params, progs[0]->params[i]->name, json_integer(c->params[i]));
  for (int i = 0; i < progs[0]->ninputs; i++)
    json_object_set_new(inputs, progs[0]->inputs[i]->name, json_string(value_text(a, c->inputs[i])));
  for (int j = 0; j < n; j++) {
    const AgreeOutcome *o = &ag->outcomes[j];
    json_array_append_new(results, json_pack("{s:s, s:s}", "program", base_name(progs[j]->src->name),
                                             o->failed ? "error" : "value", o->failed ? o->error : value_text(a, o->value)));
  }
  json_object_set_new(root, "counterexample",
                      json_pack("{s:o, s:o, s:s, s:o}", "params", params, "inputs", inputs, "args",
                                agree_case_args(a, progs[0], c), "results", results));
  return cost_json_checked(root);
}

int cmd_compare(int argc, char **argv) {
  Options opt;
  cli_parse_options(argc, argv, &opt);
  if (opt.nfiles < 2) fatal("compare expects two programs or more: vecbsp compare A.vec B.vec [--vary NAME=FROM:TO:STEP]");
  Arena *a = arena_new();
  Program **progs = arena_calloc(a, (size_t)opt.nfiles, sizeof *progs);
  for (int j = 0; j < opt.nfiles; j++) {
    progs[j] = cli_load_program(a, opt.files[j], NULL);
    LawReport laws = laws_check(a, progs[j], NULL);  // a program whose fold is not associative has no one meaning
    laws_print(&laws, false);
  }
  progress_begin("compare: the programs on random inputs", 0);
  Agreement ag = agree_check(a, progs, opt.nfiles, opt.has_seed ? opt.seed : 1, AGREE_BUDGET_SECONDS);
  progress_end();
  json_t *report = opt.json ? agreement_json(a, progs, opt.nfiles, &ag) : NULL;
  if (!opt.json) print_agreement(stdout, a, progs, opt.nfiles, &ag);
  if (opt.nvaries) {
    if (!opt.json) putchar('\n');
    sweep_programs(&opt, report ? json_pack("{s:o}", "agreement", report) : NULL, stdout);
  } else if (report) {
    json_dumpf(report, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    fputc('\n', stdout);
    json_decref(report);
  }
  arena_free(a);
  return ag.agree ? 0 : 1;
}
