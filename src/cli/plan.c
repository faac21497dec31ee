// plan.c: the plan a command compiles, runs or predicts (--plan), and
// `vecbsp plan FILE`: the chosen implementation of every skeleton
// application with the predicted seconds of each alternative, or with
// --vary p=FROM:TO the predicted seconds over p and the best p.
#include "cli/cli.h"
#include "cost/cost.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *cli_given_machine(const Options *opt) {
  const char *env = getenv("VECBSP_MACHINE");
  return opt->machine ? opt->machine : env && *env ? env : NULL;
}

Machine cli_planning_machine(Arena *a, const Options *opt) {
  Options o = *opt;
  o.machine = cli_given_machine(opt);
  if (!o.machine) o.machine = "local";
  return cost_machine_from_options(a, &o);
}

Machine cli_plan_machine(Arena *a, const Options *opt) {
  Options any_p = *opt;
  any_p.p = 0;
  Machine m = cli_planning_machine(a, &any_p);
  // The hybrid backend runs plans by levels; the others flat plans, at a
  // hierarchical machine's flat parameters.
  if (!opt->backend || strcmp(opt->backend, "hybrid") != 0) m.tree = NULL;
  return m;
}

Plan *cli_plan(Arena *a, Program *prog, const int64_t *params, const Options *opt, int p, bool block_result) {
  Machine m = cli_plan_machine(a, opt);
  m.p = p;
  return cost_plan(prog, params, &m, opt->plan, block_result);
}

// A region's stages, as "map, prefix, map, fold".
static char *stages_text(Arena *a, const Region *r) {
  char *s = "";
  for (int i = 0; i < r->nstages; i++)
    s = arena_printf(a, "%s%s%s", s, i ? ", " : "", builtin_name(ir_builtin(r->stages[i]->kind)));
  return s;
}

static char *where_text(Arena *a, Pos p) { return arena_printf(a, "%s:%d:%d", p.src->name, p.line, p.col); }

// The top-level iterations whose state lives at top level, in program order.
typedef struct {
  const Plan *pl;
  PtrVec iters;  // Ir *
  Arena *arena;
} Iterations;

static void find_iteration(Ir *e, void *iterations) {
  Iterations *it = iterations;
  if (e->kind == IR_ITER && it->pl->var[e->x->id] != LAY_NONE) ptrvec_push(it->arena, &it->iters, e);
}

static PtrVec iterations(Arena *a, const Plan *pl) {
  Iterations it = {.pl = pl, .arena = a};
  ir_visit(pl->ir->main, find_iteration, &it);
  return it.iters;
}

// Where an iteration's state lives from one iteration to the next: one
// layout, or one per component of a pair (docs/compiler.md, "Iterations
// over pairs").
static const char *state_text(const Plan *pl, const Ir *e) {
  static const char *const where[] = {"on process 0", "on every process", "by blocks"};
  const char *x = where[pl->var[e->x->id]];
  if (!e->y) return x;
  return arena_printf(pl->ir->arena, "(%s, %s)", x, where[pl->var[e->y->id]]);
}

static void print_report(Arena *a, Program *prog, const Machine *m, const PlanReport *rep) {
  const Plan *pl = rep->plan;
  IrProgram *ir = pl->ir;
  printf("%s: plan '%s' for p = %d on machine %s", prog->src->name, pl->name, pl->p, m->name);
  printf(m->tree ? " (levels %s)\n" : "\n", m->tree ? machine_tree_text(a, m->tree) : "");
  printf("predicted %.4g s; the papers' template %.4g s\n", rep->seconds, rep->paper_seconds);
  if (rep->set_aside_seconds)
    printf("set aside: a plan on %d processes, predicted %.4g s, less than the margin (%g%%) below this one-process "
           "plan's (--plan best,margin=0 takes it)\n",
           pl->p, rep->set_aside_seconds, 100 * rep->margin);
  for (int k = 0; k < prog->ninputs; k++) {
    Layout l = pl->input[k];
    printf("input %s: %s\n", prog->inputs[k]->name,
           l == LAY_BLOCK ? "by blocks" : l == LAY_ALL ? "whole on every process" : "on process 0");
  }
  PtrVec iters = iterations(a, pl);
  for (int i = 0; i < iters.len; i++) {
    Ir *e = iters.data[i];
    printf("iter at %s: its state %s across the iterations\n", where_text(a, e->pos), state_text(pl, e));
  }
  for (int r = 0; r < ir->nregions; r++) {
    Region *g = ir->regions[r];
    printf("\n%s: %s\n  chosen: %s%s\n", where_text(a, g->root->pos), stages_text(a, g),
           plan_choice_text(a, g, &pl->region[r]), pl->region[r].lanes > 1 ? ", 4 lanes" : "");
    if (!rep->region) continue;
    const RegionReport *rr = &rep->region[r];
    printf("  %12s  alternative (the search's estimate of the program with it)\n", "seconds");
    for (int i = 0; i < rr->nalts; i++) {
      if (rr->program[i] >= 1e299) continue;
      printf("  %12.4g  %s%s\n", rr->program[i], plan_choice_text(a, g, &rr->alt[i]), rr->alt[i].lanes > 1 ? ", 4 lanes" : "");
    }
  }
}

static json_t *report_json(Arena *a, Program *prog, const int64_t *params, const Machine *m, const PlanReport *rep) {
  const Plan *pl = rep->plan;
  IrProgram *ir = pl->ir;
  json_t *jparams = json_object(), *inputs = json_object(), *regions = json_array();
  for (int k = 0; k < prog->nparams; k++) json_object_set_new(jparams, prog->params[k]->name, json_integer(params[k]));
  for (int k = 0; k < prog->ninputs; k++)
    json_object_set_new(inputs, prog->inputs[k]->name, json_string(plan_layout_name(pl->input[k])));
  json_t *iters = json_array();
  PtrVec found = iterations(a, pl);
  for (int i = 0; i < found.len; i++) {
    Ir *e = found.data[i];
    json_t *state = json_array();
    json_array_append_new(state, json_string(plan_layout_name(pl->var[e->x->id])));
    if (e->y) json_array_append_new(state, json_string(plan_layout_name(pl->var[e->y->id])));
    json_array_append_new(iters, cost_json_checked(json_pack("{s:s, s:o}", "where", where_text(a, e->pos), "state", state)));
  }
  for (int r = 0; r < ir->nregions; r++) {
    Region *g = ir->regions[r];
    const RegionChoice *c = &pl->region[r];
    json_t *alts = json_array();
    for (int i = 0; rep->region && i < rep->region[r].nalts; i++) {
      const RegionReport *rr = &rep->region[r];
      if (rr->program[i] >= 1e299) continue;
      json_array_append_new(alts, cost_json_checked(json_pack(
          "{s:s, s:b, s:o}", "implementation", plan_choice_text(a, g, &rr->alt[i]), "lanes", rr->alt[i].lanes > 1,
          "seconds", cost_json_number(rr->program[i]))));
    }
    json_array_append_new(regions, cost_json_checked(json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:o}", "where", where_text(a, g->root->pos), "stages", stages_text(a, g),
        "chosen", plan_choice_text(a, g, c), "result", plan_layout_name(c->out), "fold", plan_fold_name(c->fold),
        "prefix", plan_prefix_name(c->prefix), "lanes", c->lanes, "alternatives", alts)));
  }
  json_t *set_aside = !rep->set_aside_seconds ? json_null()
                      : cost_json_checked(json_pack("{s:o, s:o, s:f}", "seconds", cost_json_number(rep->set_aside_seconds),
                                                    "one_process_seconds", cost_json_number(rep->seconds), "margin", rep->margin));
  return cost_json_checked(json_pack("{s:s, s:s, s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "program", prog->src->name,
                                     "plan", pl->name, "machine", m->name, "p", pl->p, "params", jparams, "seconds",
                                     cost_json_number(rep->seconds), "paper_seconds", cost_json_number(rep->paper_seconds),
                                     "set_aside", set_aside, "inputs", inputs, "iterations", iters, "regions", regions));
}

// --vary p=FROM:TO (every p), p=FROM:TO:STEP or p=FROM:TO:*F: the
// predicted seconds at each p, and the best p.
static void vary_p(Arena *a, Program *prog, const int64_t *params, const Options *opt, const char *spec) {
  if (strncmp(spec, "p=", 2) != 0) fatal("plan --vary varies p (p=FROM:TO), got '%s'", spec);
  VaryRange ps = sweep_parse_vary(a, spec);
  if (ps.values[ps.count - 1] > 1024) fatal("plan --vary %s: p must be at most 1024", spec);
  Machine m = cli_planning_machine(a, opt);
  if (m.tree) fatal("machine %s is hierarchical: its plans are for its %d workers, so p does not vary", m.name, m.tree->leaves);
  json_t *rows = json_array();
  int best = (int)ps.values[0];
  double best_seconds = INFINITY;
  if (!opt->json) printf("%6s %14s %14s\n", "p", "seconds", "paper");
  progress_begin("plan: planning", ps.count);
  for (int64_t i = 0; i < ps.count; i++) {
    int p = (int)ps.values[i];
    if (m.topology && (p > m.topology->p || topology_fit(m.topology, p).p != p)) continue;  // not a configuration
    m.p = p;
    progress_step(i, arena_printf(a, "p = %d", p));
    PlanReport rep = cost_plan_report(prog, params, &m, opt->plan, false);
    if (opt->json)
      json_array_append_new(rows, cost_json_checked(json_pack("{s:i, s:o, s:o}", "p", p, "seconds", cost_json_number(rep.seconds),
                                                              "paper_seconds", cost_json_number(rep.paper_seconds))));
    else
      printf("%6d %14.4g %14.4g\n", p, rep.seconds, rep.paper_seconds);
    if (rep.seconds < best_seconds) best_seconds = rep.seconds, best = p;
  }
  progress_end();
  if (opt->json) {
    json_t *root = cost_json_checked(json_pack("{s:s, s:s, s:o, s:i}", "program", prog->src->name, "machine", m.name,
                                               "rows", rows, "best_p", best));
    json_dumpf(root, stdout, JSON_INDENT(2));
    fputc('\n', stdout);
    json_decref(root);
  } else {
    printf("best p = %d (%.4g s)\n", best, best_seconds);
  }
}

// A topology machine without -p (docs/topology.md, "Plans"): the plan for
// each of its configurations, the fastest kept, as the thesis chooses the
// processors too; each one's seconds into rows.
static PlanReport fastest_configuration(Arena *a, Program *prog, const int64_t *params, const Options *opt, Machine *m,
                                        json_t *rows) {
  int n = topology_sizes(m->topology, NULL, 0), *sizes = arena_calloc(a, (size_t)n, sizeof *sizes);
  topology_sizes(m->topology, sizes, n);
  PlanReport best = {0};
  int best_p = 1;
  for (int i = 0; i < n; i++) {
    m->p = sizes[i];
    PlanReport rep = cost_plan_report(prog, params, m, opt->plan, false);
    json_array_append_new(rows, cost_json_checked(json_pack("{s:i, s:o}", "p", sizes[i], "seconds", cost_json_number(rep.seconds))));
    if (!i || rep.seconds < best.seconds * (1 - 1e-9)) best = rep, best_p = sizes[i];
  }
  m->p = best_p;
  return best;
}

static void print_configurations(Arena *a, const Machine *m, json_t *rows) {
  printf("%s: the best plan's predicted seconds on each configuration\n%8s %14s\n", topology_describe(a, m->topology), "p",
         "seconds");
  size_t i;
  json_t *row;
  json_array_foreach(rows, i, row)
    printf("%8d %14.4g\n", (int)json_integer_value(json_object_get(row, "p")), json_number_value(json_object_get(row, "seconds")));
  printf("fastest: p = %d\n\n", m->p);
}

int cmd_plan(int argc, char **argv) {
  Options opt;
  cli_parse_options(argc, argv, &opt);
  if (opt.nfiles != 1) fatal("plan expects one program file: vecbsp plan FILE -D NAME=VALUE ...");
  if (opt.nvaries > 1) fatal("plan takes one --vary p=FROM:TO");
  Arena *a = arena_new();
  Program *prog = cli_load_program(a, opt.files[0], NULL);
  int64_t *params = cli_bind_params(a, prog, &opt);
  cost_shape_check(prog, params);
  if (opt.nvaries) {
    vary_p(a, prog, params, &opt, opt.varies[0]);
  } else {
    Machine m = cli_planning_machine(a, &opt);
    if (opt.p) m.p = opt.p;
    json_t *configurations = json_array();
    progress_begin("plan: planning", 0);
    PlanReport rep = m.topology && !opt.p ? fastest_configuration(a, prog, params, &opt, &m, configurations)
                                          : cost_plan_report(prog, params, &m, opt.plan, false);
    progress_end();
    if (opt.json) {
      json_t *root = report_json(a, prog, params, &m, &rep);
      if (m.topology) json_object_set_new(root, "topology", topology_json(m.topology));
      if (json_array_size(configurations)) json_object_set(root, "configurations", configurations);
      json_dumpf(root, stdout, JSON_INDENT(2));
      fputc('\n', stdout);
      json_decref(root);
    } else {
      if (json_array_size(configurations)) print_configurations(a, &m, configurations);
      print_report(a, prog, &m, &rep);
    }
    json_decref(configurations);
  }
  arena_free(a);
  return 0;
}
