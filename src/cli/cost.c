// cost.c: `vecbsp cost FILE`: the static BSP cost of a program predicted
// from its shapes alone: a table of supersteps, the totals W, H, S and the
// cost for a machine, or --json as cli.md fixes it, or --symbolic closed
// forms (docs/cost-model.md).
#include "cli/cli.h"
#include "cost/cost.h"

#include <string.h>

// The helpers below are shared with sweep.c.

CostModel cost_model_from_options(const Options *opt) {
  if (opt->model) return strcmp(opt->model, "paper") == 0 ? MODEL_PAPER : MODEL_EXACT;
  return opt->symbolic ? MODEL_PAPER : MODEL_EXACT;
}

Machine cost_machine_from_options(Arena *a, const Options *opt) {
  Machine m = machine_select(a, opt->machine);
  if (opt->p) m.p = opt->p;
  if (opt->has_g) m.g = opt->g;
  if (opt->has_l) m.l = opt->l;
  if (opt->has_s) m.s = opt->s;
  if (m.g < 0 || m.l < 0) fatal("-g and -l must not be negative");
  if (!(m.s > 0)) fatal("-s (operations per second) must be positive");
  return m;
}

void cost_print_number(FILE *out, double x) {
  char buf[64];
  cost_format_number(buf, sizeof buf, x);
  fputs(buf, out);
}

void cost_print_json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
    else if (c < 0x20) fprintf(out, "\\u%04x", c);
    else fputc(c, out);
  }
  fputc('"', out);
}

// --symbolic: -D binds some params, the others stay symbols.
static const int64_t *bind_some(Arena *a, Program *prog, const Options *opt, const bool **symbolic) {
  bool *sym = arena_calloc(a, (size_t)prog->nparams + 1, sizeof *sym);
  Options all = *opt;
  all.defines = arena_calloc(a, (size_t)(opt->ndefines + prog->nparams) + 1, sizeof *all.defines);
  if (opt->ndefines) memcpy((void *)all.defines, opt->defines, (size_t)opt->ndefines * sizeof *opt->defines);
  for (int k = 0; k < prog->nparams; k++) {
    const char *name = prog->params[k]->name;
    size_t len = strlen(name);
    sym[k] = true;
    for (int i = 0; i < opt->ndefines; i++)
      if (strncmp(opt->defines[i], name, len) == 0 && opt->defines[i][len] == '=') sym[k] = false;
    if (sym[k]) all.defines[all.ndefines++] = arena_printf(a, "%s=0", name);
  }
  *symbolic = sym;
  return cli_bind_params(a, prog, &all);
}

static char *pos_text(Arena *a, Pos p) { return arena_printf(a, "%s:%d:%d", p.src->name, p.line, p.col); }

static void print_params(FILE *out, const Program *prog, const CostRequest *req, bool json) {
  bool first = true;
  for (int k = 0; k < prog->nparams; k++) {
    if (req->symbolic && req->symbolic[k]) continue;
    if (json) fprintf(out, "%s\"%s\": %lld", first ? "" : ", ", prog->params[k]->name, (long long)req->params[k]);
    else fprintf(out, "%s%s = %lld", first ? "" : ", ", prog->params[k]->name, (long long)req->params[k]);
    first = false;
  }
}

static void print_machine_json(FILE *out, const Machine *m) {
  fputs("  \"machine\": ", out);
  cost_print_json_string(out, m->name);
  fprintf(out, ",\n  \"p\": %d, \"g\": ", m->p);
  cost_print_number(out, m->g);
  fputs(", \"l\": ", out);
  cost_print_number(out, m->l);
  fputs(", \"s\": ", out);
  cost_print_number(out, m->s);
  fputs(",\n", out);
}

static void print_json(FILE *out, Arena *a, const Program *prog, const CostRequest *req, const CostResult *r) {
  fputs("{\n  \"program\": ", out);
  cost_print_json_string(out, prog->src->name);
  fprintf(out, ",\n  \"model\": \"%s\",\n", cost_model_name(r->model));
  print_machine_json(out, &r->machine);
  fputs("  \"params\": { ", out);
  print_params(out, prog, req, true);
  fputs(" },\n", out);
  if (req->closed_form) {
    const char *forms[][2] = {{"W_form", r->W_form}, {"H_form", r->H_form}, {"S_form", r->S_form}};
    fputs("  \"symbolic\": true", out);
    for (int i = 0; i < 3; i++) {
      fprintf(out, ",\n  \"%s\": ", forms[i][0]);
      cost_print_json_string(out, forms[i][1]);
    }
  } else {
    fputs("  \"supersteps\": [", out);
    for (int i = 0; i < r->nsteps; i++) {
      const CostStep *s = &r->steps[i];
      fputs(i ? ",\n    { \"w\": " : "\n    { \"w\": ", out);
      cost_print_number(out, s->w);
      fputs(", \"h\": ", out);
      cost_print_number(out, s->h);
      fputs(", \"where\": ", out);
      cost_print_json_string(out, pos_text(a, s->where));
      fputs(", \"what\": ", out);
      cost_print_json_string(out, s->what);
      fputs(" }", out);
    }
    fprintf(out, "\n  ],\n  \"supersteps_truncated\": %s,\n", r->steps_truncated ? "true" : "false");
    const char *keys[] = {"W", "H", "S", "ops", "seconds"};
    double vals[] = {r->W, r->H, r->S, r->ops, r->seconds};
    for (int i = 0; i < 5; i++) {
      fprintf(out, "  \"%s\": ", keys[i]);
      cost_print_number(out, vals[i]);
      fputs(",\n", out);
    }
    fputs("  \"analysis_seconds\": ", out);
    cost_print_number(out, r->analysis_seconds);
  }
  fprintf(out, ",\n  \"shapes\": %lld\n}\n", (long long)r->shapes);
}

static void print_header(FILE *out, const Program *prog, const CostRequest *req, const CostResult *r) {
  const Machine *m = &r->machine;
  fprintf(out, "%s: %s model", prog->src->name, cost_model_name(r->model));
  if (!req->closed_form) {
    fprintf(out, ", machine %s (p = %d, g = ", m->name, m->p);
    cost_print_number(out, m->g);
    fputs(", l = ", out);
    cost_print_number(out, m->l);
    fputs(", s = ", out);
    cost_print_number(out, m->s);
    fputs(")", out);
  }
  fputs("\n", out);
  bool any = false;
  for (int k = 0; k < prog->nparams; k++) any |= !(req->symbolic && req->symbolic[k]);
  if (any) {
    fputs("parameters: ", out);
    print_params(out, prog, req, false);
    fputs("\n", out);
  }
}

static void print_table(FILE *out, Arena *a, const CostResult *r) {
  fprintf(out, "\n%5s %14s %14s  %s\n", "step", "w", "h", "where");
  for (int i = 0; i < r->nsteps; i++) {
    char w[64], h[64];
    cost_format_number(w, sizeof w, r->steps[i].w);
    cost_format_number(h, sizeof h, r->steps[i].h);
    fprintf(out, "%5d %14s %14s  %s  %s\n", i + 1, w, h, pos_text(a, r->steps[i].where), r->steps[i].what);
  }
  if (r->steps_truncated)
    fprintf(out, "      ... %.0f more supersteps not listed\n", r->S + 1 - r->nsteps);
  char W[64], H[64], S[64], ops[64], g[64], l[64], s[64];
  cost_format_number(W, sizeof W, r->W);
  cost_format_number(H, sizeof H, r->H);
  cost_format_number(S, sizeof S, r->S);
  cost_format_number(ops, sizeof ops, r->ops);
  cost_format_number(g, sizeof g, r->machine.g);
  cost_format_number(l, sizeof l, r->machine.l);
  cost_format_number(s, sizeof s, r->machine.s);
  fprintf(out, "\nW = %s operations, H = %s words, S = %s barriers\n", W, H, S);
  fprintf(out, "cost = W + g*H + l*S = %s + %s*%s + %s*%s = %s operations\n", W, g, H, l, S, ops);
  fprintf(out, "     = %.6g seconds at %s operations per second\n", r->seconds, s);
}

static void print_forms(FILE *out, const CostResult *r) {
  fprintf(out, "\nW = %s\nH = %s\nS = %s\ncost = W + g*H + l*S\n", r->W_form, r->H_form, r->S_form);
  if (strstr(r->W_form, "log2") || strstr(r->H_form, "log2") || strstr(r->S_form, "log2"))
    fputs("(log2(p) stands for the base-2 logarithm of p rounded up)\n", out);
}

int cmd_cost(int argc, char **argv) {
  Options opt;
  cli_parse_options(argc, argv, &opt);
  if (opt.nfiles != 1) fatal("cost expects one program file: vecbsp cost FILE -D NAME=VALUE ...");
  if (opt.nvaries || opt.plot || opt.csv || opt.measure)
    fatal("--vary, --csv, --plot and --measure are options of 'vecbsp sweep'");
  if (opt.symbolic && opt.model && strcmp(opt.model, "paper") != 0)
    fatal("--symbolic gives closed forms of the paper model only; use --model paper");
  Arena *a = arena_new();
  Program *prog = cli_load_program(a, opt.files[0], NULL);
  CostRequest req = {.prog = prog, .model = cost_model_from_options(&opt), .closed_form = opt.symbolic};
  req.machine = cost_machine_from_options(a, &opt);
  req.params = opt.symbolic ? bind_some(a, prog, &opt, &req.symbolic) : cli_bind_params(a, prog, &opt);
  CostResult r = cost_analyse(a, &req);
  if (opt.json) {
    print_json(stdout, a, prog, &req, &r);
  } else {
    print_header(stdout, prog, &req, &r);
    if (req.closed_form) print_forms(stdout, &r);
    else print_table(stdout, a, &r);
  }
  arena_free(a);
  return 0;
}
