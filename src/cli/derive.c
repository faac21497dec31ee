// derive.c: `vecbsp derive FILE -D ...`: the derivation assistant searches
// the rewrites of the Bird-Meertens laws for a cheaper program that agrees
// with FILE, the cost judged as `cost` would judge it (--model, --machine,
// -p, at the -D sizes); prints the chain of programs, -o writes the
// cheapest as a complete program, --plot draws the chain's costs over --vary.
#include "cli/cli.h"
#include "derive/derive.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Programs whose rewrites are tried, at most (--steps overrides).
enum { DEFAULT_EXPANSIONS = 60 };

typedef struct Judge {
  const Options *opt;
  CostModel model;
  Machine machine;
  Machine planning;
  int64_t *params;  // by index: every rewritten program declares the params in the same order
  int costed;       // programs costed so far (the progress line)
} Judge;

typedef struct Costing {
  Judge *judge;
  Program *prog;
  Arena *arena;
  double seconds;
} Costing;

// The paper model from its closed forms when the program has them (at
// large sizes far quicker than the analysis at those sizes), else as cost.
static void cost_program(void *ctx) {
  Costing *c = ctx;
  Judge *j = c->judge;
  CostResult r;
  if (j->model == MODEL_PAPER &&
      cost_closed_predict(cost_closed_forms(c->arena, c->prog, &j->machine), &j->machine, j->params, &r)) {
    c->seconds = r.seconds;
    return;
  }
  CostRequest req = {.prog = c->prog, .model = j->model, .machine = j->machine, .params = j->params,
                     .planning = &j->planning, .plan_spec = j->opt->plan};
  c->seconds = cost_analyse(c->arena, &req).seconds;
}

// A program's cost; an error (one the search traps: a rewrite without a
// cost) passed on once the costing's memory is freed.
static double judge_cost(void *ctx, Program *prog) {
  Judge *j = ctx;
  Costing c = {j, prog, arena_new(), 0};
  bool costed = diag_attempt(cost_program, &c, true);
  arena_free(c.arena);
  if (!costed) diag_rethrow();
  char detail[48];
  snprintf(detail, sizeof detail, "%d programs costed", ++j->costed);
  progress_step(0, detail);
  return c.seconds;
}

// Without --model, a program the exact model cannot follow at these sizes
// (more irregular elements than it holds: mss (1) at n = 2400) is judged by
// the paper model, which costs inits and tails by their families; said on
// stderr.
static void choose_model(Judge *j, Program *prog) {
  if (j->opt->model || j->model != MODEL_EXACT) return;
  Costing c = {j, prog, arena_new(), 0};
  bool costed = diag_attempt(cost_program, &c, true);
  arena_free(c.arena);
  if (costed) return;
  fprintf(stderr, "vecbsp: note: %s; derive judges by the paper model (--model exact to insist)\n",
          diag_last_error);
  j->model = MODEL_PAPER;
}

static const char *main_line(const char *text) {
  const char *m = strstr(text, "main = ");
  return m ? m : text;
}

static void print_chain(FILE *out, const Derivation *d, const Judge *j, const char *file) {
  fprintf(out, "derive %s: cost by the %s model on %s (p = %d)", file, cost_model_name(j->model), j->machine.name,
          j->machine.p);
  for (int i = 0; i < j->opt->ndefines; i++) fprintf(out, ", %s", j->opt->defines[i]);
  fputs("\n\n", out);
  for (int k = 0; k < d->nsteps; k++) {
    const DeriveStep *s = &d->steps[k];
    if (s->law) fprintf(out, "  by %s, at %s\n", s->law, s->subterm);
    fprintf(out, "%3d  %-12.4g %s", k, s->seconds, main_line(s->text));
  }
  double first = d->steps[0].seconds, last = d->steps[d->nsteps - 1].seconds;
  fprintf(out, "\n%s: %.4g s against %.4g s (%.3gx) in %d steps; %d programs found and checked, %d rewrites "
               "rejected (no check, a disagreement or no cost), in %.2g s\n",
          d->nsteps > 1 ? "cheapest found" : "nothing cheaper found", last, first, first / last, d->nsteps - 1,
          d->explored, d->rejected, d->seconds);
}

static void print_json(FILE *out, const Derivation *d) {
  json_t *steps = json_array();
  for (int k = 0; k < d->nsteps; k++) {
    const DeriveStep *s = &d->steps[k];
    json_t *row = json_pack("{s:s, s:f}", "program", s->text, "seconds", s->seconds);
    if (s->law) json_object_set_new(row, "law", json_string(s->law)), json_object_set_new(row, "at", json_string(s->subterm));
    json_array_append_new(steps, row);
  }
  json_t *root = cost_json_checked(json_pack("{s:o, s:i, s:i, s:f}", "steps", steps, "explored", d->explored, "rejected",
                                             d->rejected, "seconds", d->seconds));
  json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
  fputc('\n', out);
  json_decref(root);
}

typedef struct Chart {
  const Options *opt;  // the chain's programs, --vary and --plot
  FILE *out;           // the table (NULL: none)
} Chart;

static void draw(void *ctx) {
  Chart *c = ctx;
  sweep_programs(c->opt, NULL, c->out);
}

// --plot OUT.svg --vary NAME=...: every program of the chain over the
// range, one curve each (sweep's table and plot), as the mss paper's
// figures draw its derivation. The programs go to a temporary directory
// for sweep to read, removed after.
static void plot_chain(Arena *a, const Derivation *d, const Options *opt) {
  const char *tmp = getenv("TMPDIR");
  char *dir = arena_printf(a, "%s/vecbsp-derive-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) fatal("--plot: cannot create a temporary directory: %s", strerror(errno));
  cli_temp_keep(dir);
  Options o = *opt;
  o.files = arena_calloc(a, (size_t)d->nsteps, sizeof *o.files);
  o.nfiles = d->nsteps;
  for (int k = 0; k < d->nsteps; k++) {
    char *law = arena_printf(a, "%s", d->steps[k].law ? d->steps[k].law : "original");
    for (char *c = law; *c; c++) *c = *c == ' ' || *c == '\'' ? '-' : *c;
    o.files[k] = arena_printf(a, "%s/step%d-%s.vec", dir, k, law);
    cli_temp_keep(o.files[k]);
    cli_write_file(o.files[k], d->steps[k].text);
  }
  o.ndefines = 0;  // the varied params come from --vary; the others keep their -D
  o.defines = arena_calloc(a, (size_t)opt->ndefines + 1, sizeof *o.defines);
  for (int i = 0; i < opt->ndefines; i++) {
    bool varied = false;
    for (int v = 0; v < opt->nvaries; v++) {
      size_t len = strcspn(opt->varies[v], "=");
      varied |= strncmp(opt->defines[i], opt->varies[v], len) == 0 && opt->defines[i][len] == '=';
    }
    if (!varied) o.defines[o.ndefines++] = opt->defines[i];
  }
  Chart chart = {&o, opt->json ? NULL : stdout};
  bool drawn = diag_attempt(draw, &chart, false);
  for (int k = 0; k < d->nsteps; k++) cli_temp_remove(o.files[k]);
  cli_temp_remove(dir);
  if (!drawn) diag_rethrow();  // its error printed, the files removed
}

int cmd_derive(int argc, char **argv) {
  Options opt;
  cli_parse_options(argc, argv, &opt);
  if (opt.nfiles != 1) fatal("derive expects one program file: vecbsp derive FILE -D NAME=VALUE ...");
  if (opt.plot && !opt.nvaries) fatal("derive --plot draws the chain over a range: give --vary NAME=FROM:TO:STEP");
  if (opt.nvaries && !opt.plot) fatal("derive judges one size (-D); --vary goes with --plot");
  if (opt.plot) sweep_check_plot(opt.plot);  // before the search
  Arena *a = arena_new();
  Program *prog = cli_load_program(a, opt.files[0], NULL);
  Judge j = {&opt, cost_model_from_options(&opt), cost_machine_from_options(a, &opt), cli_planning_machine(a, &opt),
             cli_bind_params(a, prog, &opt), 0};
  j.planning.p = j.machine.p;
  choose_model(&j, prog);
  progress_begin("derive: searching the rewrites", 0);
  Derivation d = derive_search(a, prog, judge_cost, &j, opt.steps ? opt.steps : DEFAULT_EXPANSIONS);
  progress_end();
  if (opt.json) print_json(stdout, &d);
  else print_chain(stdout, &d, &j, opt.files[0]);
  if (opt.output) cli_write_file(opt.output, d.steps[d.nsteps - 1].text);
  if (opt.plot) plot_chain(a, &d, &opt);
  arena_free(a);
  return 0;
}
