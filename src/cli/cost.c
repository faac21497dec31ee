// cost.c: `vecbsp cost FILE`: the static BSP cost of a program predicted
// from its shapes alone: a table of supersteps, the totals W, H, S and the
// cost for a machine, or --json as cli.md fixes it, or --symbolic closed
// forms (docs/cost-model.md).
#include "cli/cli.h"
#include "cost/cost.h"

#include <math.h>
#include <string.h>

// The helpers below are shared with sweep.c.

CostModel cost_model_from_options(const Options *opt) {
  if (opt->model) return strcmp(opt->model, "paper") == 0 ? MODEL_PAPER : MODEL_EXACT;
  return opt->symbolic ? MODEL_PAPER : MODEL_EXACT;
}

Machine cost_machine_from_options(Arena *a, const Options *opt) {
  Machine m = machine_select(a, opt->machine);
  if (opt->p && m.tree && opt->p != m.tree->leaves)
    fatal("-p %d: machine %s is hierarchical with %d workers, the processes of its plans", opt->p, m.name, m.tree->leaves);
  if (opt->p) m.p = opt->p;
  if (opt->has_g) m.g = opt->g;
  if (opt->has_l) m.l = opt->l;
  if (opt->has_s) m.s = opt->s;
  if (!(m.g >= 0 && m.l >= 0 && isfinite(m.g) && isfinite(m.l))) fatal("-g and -l must be finite and not negative");
  if (!(m.s > 0 && isfinite(m.s))) fatal("-s (operations per second) must be finite and positive");
  return m;
}

void cost_warn_machine(const Machine *m, int p, const char *backend) {
  // At p = 1 nothing is exchanged, and the core's units are measured at p = 1 whatever the probe's p.
  if (m->probed_p && p != m->probed_p && p > 1)
    warn_at((Pos){0}, "machine %s was probed at p = %d: its g, l and calibration are used at p = %d as they are "
            "(probe at p = %d for predictions there)", m->name, m->probed_p, p, p);
  if (m->backend && backend && strcmp(backend, m->backend) != 0)
    warn_at((Pos){0}, "machine %s was probed on %s: its times are used for %s as they are", m->name, m->backend, backend);
}

void cost_print_number(FILE *out, double x) {
  char buf[64];
  cost_format_number(buf, sizeof buf, x);
  fputs(buf, out);
}

Figure cost_figure(double x) {
  Figure f;
  if (x == floor(x) && fabs(x) < 1e15) snprintf(f.text, sizeof f.text, "%.0f", x == 0 ? 0.0 : x);
  else snprintf(f.text, sizeof f.text, "%.4g", x);
  return f;
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

// --symbolic: the forms hold from some value of one param on (where the
// vectors they price by blocks are irregular); each value below is a case
// of its own, the analysis with that value given.
typedef struct Case {
  Arena *arena;
  const CostRequest *req;  // the forms' request
  int param;
  int64_t value;
  CostResult r;            // the case's forms, when it has them
  bool analysed;
  const char *error;       // else why not
} Case;

static void analyse_case(void *ctx) {
  Case *c = ctx;
  CostRequest req = *c->req;
  int n = req.prog->nparams;
  int64_t *params = arena_calloc(c->arena, (size_t)n, sizeof *params);
  bool *symbolic = arena_calloc(c->arena, (size_t)n, sizeof *symbolic);
  memcpy(params, req.params, (size_t)n * sizeof *params);
  memcpy(symbolic, req.symbolic, (size_t)n * sizeof *symbolic);
  params[c->param] = c->value, symbolic[c->param] = false;
  req.params = params, req.symbolic = symbolic;
  c->r = cost_analyse(c->arena, &req);
}

// With every param given, the forms' values at the machine's p (a
// prediction at any size for the time one at a small size takes).
static bool closed_at_p(const CostRequest *req, const CostResult *r, CostResult *at) {
  for (int k = 0; k < req->prog->nparams; k++)
    if (req->symbolic[k]) return false;
  return cost_closed_predict(r->closed, &req->machine, req->params, at);
}

static Case *closed_cases(Arena *a, const CostRequest *req, const CostResult *r, int *ncases) {
  int param;
  int64_t from;
  *ncases = 0;
  if (!r->valid_form || !cost_closed_from(r->closed, &param, &from)) return NULL;
  Case *cases = arena_calloc(a, (size_t)from + 1, sizeof *cases);
  for (int64_t v = from - 1; v >= 0; v--) {
    Case *c = &cases[(*ncases)++];
    *c = (Case){.arena = a, .req = req, .param = param, .value = v};
    c->analysed = diag_attempt(analyse_case, c, true);
    if (!c->analysed) c->error = arena_printf(a, "%s", diag_last_error);
  }
  return cases;
}

static void print_params(FILE *out, const Program *prog, const CostRequest *req, bool json) {
  bool first = true;
  for (int k = 0; k < prog->nparams; k++) {
    if (req->symbolic && req->symbolic[k]) continue;
    if (json) fprintf(out, "%s\"%s\": %lld", first ? "" : ", ", prog->params[k]->name, (long long)req->params[k]);
    else fprintf(out, "%s%s = %lld", first ? "" : ", ", prog->params[k]->name, (long long)req->params[k]);
    first = false;
  }
}

// A count as JSON: an integer while it is one exactly, else a real.
json_t *cost_json_number(double x) {
  if (!isfinite(x)) fatal("a figure of the result is %g, which JSON cannot carry (see -g, -l, -s and the machine)", x);
  if (x == floor(x) && fabs(x) < 9007199254740992.0) return json_integer((json_int_t)x);
  return json_real(x);
}

json_t *cost_json_checked(json_t *packed) {
  if (!packed) fatal("the result cannot be written as JSON: a name in it is not UTF-8, or a figure is not finite");
  return packed;
}

// The busiest process's calibration counts in a superstep, by term name.
static json_t *step_counts(const CostStep *st) {
  json_t *counts = json_object();
  for (int t = 0; t < CAL_WORDS; t++) json_object_set_new(counts, cal_term_names[t], cost_json_number(st->count[t]));
  return counts;
}

// Every process's operations and words sent and received in a superstep,
// as `run --profile --json` reports the counted ones.
static json_t *step_procs(const CostStep *st, int p) {
  json_t *procs = json_array();
  for (int k = 0; k < p; k++)
    json_array_append_new(procs, json_pack("{s:I, s:I, s:I}", "w", (json_int_t)st->exact->procs[k].ops, "sent",
                                           (json_int_t)st->exact->sent[k], "received", (json_int_t)st->exact->recv[k]));
  return procs;
}

// W_form, H_form, S_form and the definitions of the names in them ("where").
static void forms_json(json_t *obj, const CostResult *r) {
  json_object_set_new(obj, "W_form", json_string(r->W_form));
  json_object_set_new(obj, "H_form", json_string(r->H_form));
  json_object_set_new(obj, "S_form", json_string(r->S_form));
  json_t *where = json_array();
  for (const char *s = r->where_form; s && *s;) {
    size_t len = strcspn(s, "\n");
    json_array_append_new(where, json_stringn(s, len));
    s += len + (s[len] == '\n');
  }
  json_object_set_new(obj, "where", where);
}

static void print_json(FILE *out, Arena *a, const Program *prog, const CostRequest *req, const CostResult *r) {
  const Machine *m = &r->machine;
  json_t *params = json_object();
  for (int k = 0; k < prog->nparams; k++)
    if (!(req->symbolic && req->symbolic[k]))
      json_object_set_new(params, prog->params[k]->name, json_integer(req->params[k]));
  json_t *root = cost_json_checked(json_pack("{s:s, s:s, s:s, s:i, s:o, s:o, s:o, s:o}", "program", prog->src->name,
                                             "model", cost_model_name(r->model), "machine", m->name, "p", m->p, "g",
                                             cost_json_number(m->g), "l", cost_json_number(m->l), "s",
                                             cost_json_number(m->s), "params", params));
  if (req->closed_form) {
    json_object_set_new(root, "symbolic", json_true());
    forms_json(root, r);
    if (r->valid_form) json_object_set_new(root, "valid_for", json_string(r->valid_form));
    int ncases;
    Case *cases = closed_cases(a, req, r, &ncases);
    json_t *list = json_array();
    for (int i = 0; i < ncases; i++) {
      json_t *c = json_pack("{s:{s:I}}", "params", prog->params[cases[i].param]->name, (json_int_t)cases[i].value);
      if (cases[i].analysed) forms_json(c, &cases[i].r);
      else json_object_set_new(c, "error", json_string(cases[i].error));
      json_array_append_new(list, c);
    }
    json_object_set_new(root, "cases", list);
    CostResult at;
    if (closed_at_p(req, r, &at))
      json_object_set_new(root, "at_p", cost_json_checked(json_pack("{s:o, s:o, s:o, s:o, s:o}", "W", cost_json_number(at.W),
                                                                    "H", cost_json_number(at.H), "S", cost_json_number(at.S),
                                                                    "ops", cost_json_number(at.ops), "seconds",
                                                                    cost_json_number(at.seconds))));
  } else {
    json_t *steps = json_array();
    for (int i = 0; i < r->nsteps; i++) {
      const CostStep *st = &r->steps[i];
      json_t *step = cost_json_checked(json_pack("{s:o, s:o, s:s, s:s}", "w", cost_json_number(st->w), "h",
                                                 cost_json_number(st->h), "where", pos_text(a, st->where), "what",
                                                 st->what));
      if (r->model == MODEL_EXACT) {
        json_object_set_new(step, "counts", step_counts(st));
        json_object_set_new(step, "procs", step_procs(st, m->p));
      }
      if (r->calibrated || r->by_levels) json_object_set_new(step, "seconds", cost_json_number(st->seconds));
      if (st->exact && st->exact->way != LEVEL_FLAT)
        json_object_set_new(step, "level_round", cost_json_checked(json_pack("{s:i, s:s}", "round", st->exact->round + 1,
                                                                             "way", level_way_names[st->exact->way])));
      json_array_append_new(steps, step);
    }
    json_object_set_new(root, "supersteps", steps);
    json_object_set_new(root, "supersteps_truncated", json_boolean(r->steps_truncated));
    const char *keys[] = {"W", "H", "S", "ops", "seconds", "analysis_seconds"};
    double vals[] = {r->W, r->H, r->S, r->ops, r->seconds, r->analysis_seconds};
    for (int i = 0; i < 6; i++) json_object_set_new(root, keys[i], cost_json_number(vals[i]));
    json_object_set_new(root, "calibrated", json_boolean(r->calibrated));
    json_object_set_new(root, "by_levels", json_boolean(r->by_levels));
    if (r->model == MODEL_EXACT) {
      json_object_set_new(root, "footprint_bytes", cost_json_number(r->footprint_bytes));
      json_object_set_new(root, "memory_share", cost_json_number(r->memory_share));
      json_object_set_new(root, "store_memory_share", cost_json_number(r->store_share));
    }
  }
  if (r->plan) json_object_set_new(root, "plan", json_string(r->plan->name));
  if (m->topology) json_object_set_new(root, "topology", topology_json(m->topology));
  if (m->tree) json_object_set_new(root, "levels", json_string(machine_tree_text(a, m->tree)));
  json_object_set_new(root, "shapes", json_integer(r->shapes));
  json_dumpf(root, out, JSON_INDENT(2));
  fputc('\n', out);
  json_decref(root);
}

static void print_header(FILE *out, Arena *a, const Program *prog, const CostRequest *req, const CostResult *r) {
  const Machine *m = &r->machine;
  fprintf(out, "%s: %s model", prog->src->name, cost_model_name(r->model));
  if (!req->closed_form) {
    fprintf(out, ", machine %s (", m->name);
    if (m->tree) fprintf(out, "levels %s; flat ", machine_tree_text(a, m->tree));
    fprintf(out, "p = %d, g = %s, l = %s, s = %s)", m->p, cost_figure(m->g).text, cost_figure(m->l).text,
            cost_figure(m->s).text);
  }
  fputs("\n", out);
  if (m->topology) {
    Topology used = topology_fit(m->topology, m->p);
    fprintf(out, "topology: %s\n", topology_describe(a, &used));
  }
  if (r->plan) fprintf(out, "plan: %s\n", r->plan->name);
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
  for (int i = 0; i < r->nsteps; i++)
    fprintf(out, "%5d %14s %14s  %s  %s\n", i + 1, cost_figure(r->steps[i].w).text, cost_figure(r->steps[i].h).text,
            pos_text(a, r->steps[i].where), r->steps[i].what);
  if (r->steps_truncated)
    fprintf(out, "      ... %.0f more supersteps not listed\n", r->S + 1 - r->nsteps);
  // (a Figure lives to the end of the call it is an argument of)
  fprintf(out, "\nW = %s operations, H = %s words, S = %s barriers\n", cost_figure(r->W).text, cost_figure(r->H).text,
          cost_figure(r->S).text);
  fprintf(out, "cost = W + g*H + l*S = %s + %s*%s + %s*%s = %s operations (the papers' unit)\n", cost_figure(r->W).text,
          cost_figure(r->machine.g).text, cost_figure(r->H).text, cost_figure(r->machine.l).text,
          cost_figure(r->S).text, cost_figure(r->ops).text);
  if (r->by_topology)
    fprintf(out, "predicted time = %.4g s (each superstep's work, then its exchanges on the %s, docs/topology.md)\n",
            r->seconds, topology_kind_name(r->machine.topology->kind));
  else if (r->by_levels)
    fprintf(out, "predicted time = %.4g s (on the machine's levels, each round synchronising its groups apart, "
                 "docs/hierarchical.md)\n", r->seconds);
  else if (r->calibrated)
    fprintf(out, "predicted time = %.4g s (the machine's calibrated time of each count, docs/cost-model.md)\n",
            r->seconds);
  else
    fprintf(out, "predicted time = %.4g s (the cost at %s operations per second)\n", r->seconds,
            cost_figure(r->machine.s).text);
}

static void print_form_lines(FILE *out, const CostResult *r) {
  fprintf(out, "W = %s\nH = %s\nS = %s\n", r->W_form, r->H_form, r->S_form);
  for (const char *s = r->where_form, *prefix = "where "; s && *s; prefix = "      ") {
    size_t len = strcspn(s, "\n");
    fprintf(out, "%s%.*s\n", prefix, (int)len, s);
    s += len + (s[len] == '\n');
  }
}

static void print_forms(FILE *out, Arena *a, const Program *prog, const CostRequest *req, const CostResult *r) {
  fputc('\n', out);
  print_form_lines(out, r);
  fprintf(out, "cost = W + g*H + l*S%s%s\n", r->valid_form ? ", for " : "", r->valid_form ? r->valid_form : "");
  if (strstr(r->W_form, "log2") || strstr(r->H_form, "log2") || strstr(r->S_form, "log2"))
    fputs("(log2(p) stands for the base-2 logarithm of p rounded up)\n", out);
  CostResult at;
  if (closed_at_p(req, r, &at))
    fprintf(out, "at p = %d (%s): W = %s, H = %s, S = %s, predicted time = %.4g s\n", at.machine.p, at.machine.name,
            cost_figure(at.W).text, cost_figure(at.H).text, cost_figure(at.S).text, at.seconds);
  int ncases;
  Case *cases = closed_cases(a, req, r, &ncases);
  for (int i = 0; i < ncases; i++) {
    fprintf(out, "\nat %s = %lld:", prog->params[cases[i].param]->name, (long long)cases[i].value);
    if (!cases[i].analysed) {
      fprintf(out, " no cost: %s\n", cases[i].error);
      continue;
    }
    fputc('\n', out);
    print_form_lines(out, &cases[i].r);
  }
}

int cmd_cost(int argc, char **argv) {
  Options opt;
  cli_parse_options(argc, argv, &opt);
  if (opt.nfiles != 1) fatal("cost expects one program file: vecbsp cost FILE -D NAME=VALUE ...");
  if (opt.symbolic && opt.model && strcmp(opt.model, "paper") != 0)
    fatal("--symbolic gives closed forms of the paper model only; use --model paper");
  Arena *a = arena_new();
  Program *prog = cli_load_program(a, opt.files[0], NULL);
  CostRequest req = {.prog = prog, .model = cost_model_from_options(&opt), .closed_form = opt.symbolic, .plan_spec = opt.plan};
  if (opt.plan && req.model != MODEL_EXACT) fatal("--plan chooses what the exact model predicts; the paper model has its template");
  req.machine = cost_machine_from_options(a, &opt);
  cost_warn_machine(&req.machine, req.machine.p, NULL);
  Machine planning = cli_planning_machine(a, &opt);
  req.planning = &planning;
  req.params = opt.symbolic ? bind_some(a, prog, &opt, &req.symbolic) : cli_bind_params(a, prog, &opt);
  progress_begin("cost: analysing", 0);
  CostResult r = cost_analyse(a, &req);
  progress_end();
  if (opt.json) {
    print_json(stdout, a, prog, &req, &r);
  } else {
    print_header(stdout, a, prog, &req, &r);
    if (req.closed_form) print_forms(stdout, a, prog, &req, &r);
    else print_table(stdout, a, &r);
  }
  arena_free(a);
  return 0;
}
