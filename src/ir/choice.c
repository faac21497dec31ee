// choice.c: plans: the papers' template, the default guess the planner
// starts from, --plan's settings, and the choices' names.
#include "ir/ir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Plan *plan_alloc(IrProgram *ir, int p, const char *name) {
  Arena *a = ir->arena;
  Plan *pl = arena_calloc(a, 1, sizeof *pl);
  *pl = (Plan){.ir = ir, .p = p < 1 ? 1 : p, .name = name};
  pl->region = arena_calloc(a, (size_t)ir->nregions + 1, sizeof *pl->region);
  pl->input = arena_calloc(a, (size_t)ir->prog->ninputs + 1, sizeof *pl->input);
  pl->place = arena_calloc(a, (size_t)ir->nnodes + 1, sizeof *pl->place);
  pl->have = arena_calloc(a, (size_t)ir->nnodes + 1, sizeof *pl->have);
  pl->need = arena_calloc(a, (size_t)ir->nnodes + 1, sizeof *pl->need);
  pl->var = arena_calloc(a, (size_t)ir->nvars + 1, sizeof *pl->var);
  pl->collective = arena_calloc(a, (size_t)ir->nnodes + 1, sizeof *pl->collective);
  pl->steps = arena_calloc(a, (size_t)ir->nregions + 1, sizeof *pl->steps);
  for (int i = 0; i < ir->nnodes; i++) pl->place[i] = LAY_NONE;
  return pl;
}

Plan *plan_paper(IrProgram *ir, int p) {
  Plan *pl = plan_alloc(ir, p, "paper");
  pl->master = true;
  for (int k = 0; k < ir->prog->ninputs; k++) pl->input[k] = LAY_ROOT;
  for (int r = 0; r < ir->nregions; r++)
    pl->region[r] = (RegionChoice){.out = LAY_ROOT, .fold = FOLD_GATHER, .prefix = PREFIX_STORE, .lanes = 1};
  plan_finish(pl);
  return pl;
}

Plan *plan_default(IrProgram *ir, int p) {
  Plan *pl = plan_alloc(ir, p, "best");
  for (int k = 0; k < ir->prog->ninputs; k++) pl->input[k] = LAY_ALL;
  for (int r = 0; r < ir->nregions; r++)
    pl->region[r] = (RegionChoice){.out = LAY_BLOCK, .fold = FOLD_GATHER, .prefix = PREFIX_STORE, .lanes = PLAN_LANES};
  plan_finish(pl);
  return pl;
}

Plan *plan_copy(const Plan *pl) {
  IrProgram *ir = pl->ir;
  Plan *c = plan_alloc(ir, pl->p, pl->name);
  memcpy(c->region, pl->region, (size_t)ir->nregions * sizeof *c->region);
  memcpy(c->input, pl->input, (size_t)ir->prog->ninputs * sizeof *c->input);
  memcpy(c->place, pl->place, (size_t)ir->nnodes * sizeof *c->place);
  c->block_result = pl->block_result;
  c->master = pl->master;
  c->levels = pl->levels;
  plan_finish(c);
  return c;
}

//
// --plan SPEC.
//

static const char *const layout_names[] = {"root", "all", "block", "none"};
static const char *const fold_names[] = {"gather", "tree", "allreduce"};
static const char *const prefix_names[] = {"store", "recompute"};

const char *plan_layout_name(Layout l) { return layout_names[l]; }
const char *plan_fold_name(FoldMethod m) { return fold_names[m]; }
const char *plan_prefix_name(PrefixMethod m) { return prefix_names[m]; }

// The index of value among n names, or -1.
static int lookup(const char *value, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(value, names[i]) == 0) return i;
  return -1;
}

// margin=F: a fraction from 0 up to (not including) 1.
static bool margin_setting(PlanLimits *lim, const char *value, char *err, size_t size) {
  char *end;
  errno = 0;
  double f = strtod(value, &end);
  if (!*value || *end || errno || !(f >= 0 && f < 1)) {
    snprintf(err, size, "--plan: margin must be a fraction from 0 to below 1 (e.g. 0.1), got '%s'", value);
    return false;
  }
  lim->margin = f;
  return true;
}

// One KEY=VALUE setting; false with a message if it is not one.
static bool setting(PlanLimits *lim, const char *key, const char *value, char *err, size_t size) {
  if (strcmp(key, "margin") == 0) return margin_setting(lim, value, err, size);
  static const char *const regions[] = {"sequential", "parallel"};
  static const char *const lanes[] = {"1", "4"};
  static const char *const results[] = {"root", "block"};
  static const char *const levels[] = {"flat", "follow"};
  struct {
    const char *key;
    const char *const *names;
    int n;
    int *slot;
    const char *choices;
  } keys[] = {
      {"fold", fold_names, FOLD_METHODS, &lim->fold, "gather, tree or allreduce"},
      {"prefix", prefix_names, PREFIX_METHODS, &lim->prefix, "store or recompute"},
      {"regions", regions, 2, &lim->regions, "sequential or parallel"},
      {"inputs", layout_names, 3, &lim->inputs, "root, all or block"},
      {"lanes", lanes, 2, &lim->lanes, "1 or 4"},
      {"result", results, 2, &lim->result, "root or block"},
      {"levels", levels, 2, &lim->levels, "flat or follow"},
  };
  for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
    if (strcmp(key, keys[k].key) != 0) continue;
    int v = lookup(value, keys[k].names, keys[k].n);
    if (v < 0) {
      snprintf(err, size, "--plan: %s must be %s, got '%s'", key, keys[k].choices, value);
      return false;
    }
    *keys[k].slot = keys[k].slot == &lim->lanes ? (v ? PLAN_LANES : 1) : keys[k].slot == &lim->result ? (v ? LAY_BLOCK : -1) : v;
    return true;
  }
  snprintf(err, size, "--plan: unknown setting '%s' (fold, prefix, regions, inputs, lanes, result, levels, margin)", key);
  return false;
}

bool plan_parse_limits(const char *spec, PlanLimits *lim, char *err, size_t size) {
  *lim = (PlanLimits){.base = "best", .fold = -1, .prefix = -1, .regions = -1, .inputs = -1, .result = -1, .levels = -1,
                      .margin = PLAN_MARGIN};
  char buf[256];
  if (!spec) return true;
  if (strlen(spec) >= sizeof buf) {
    snprintf(err, size, "--plan: the specification is too long");
    return false;
  }
  strcpy(buf, spec);
  char *save = NULL, *item = strtok_r(buf, ",", &save);
  if (!item || (strcmp(item, "best") != 0 && strcmp(item, "paper") != 0)) {
    snprintf(err, size, "--plan must start with 'best' or 'paper', got '%s'", spec);
    return false;
  }
  lim->base = strcmp(item, "best") == 0 ? "best" : "paper";
  while ((item = strtok_r(NULL, ",", &save))) {
    char *eq = strchr(item, '=');
    if (!eq) {
      snprintf(err, size, "--plan: '%s' is not a KEY=VALUE setting", item);
      return false;
    }
    *eq = '\0';
    if (!setting(lim, item, eq + 1, err, size)) return false;
  }
  return true;
}

void plan_apply_limits(Plan *pl, const PlanLimits *lim) {
  IrProgram *ir = pl->ir;
  for (int r = 0; r < ir->nregions; r++) {
    RegionChoice *c = &pl->region[r];
    if (lim->fold >= 0) c->fold = (FoldMethod)lim->fold;
    if (lim->prefix >= 0) c->prefix = (PrefixMethod)lim->prefix;
    if (lim->lanes) c->lanes = lim->lanes;
    if (lim->regions >= 0) c->alone = lim->regions == 0;
    if (c->alone && c->out == LAY_BLOCK) c->out = LAY_ROOT;
    if (lim->levels >= 0) c->levels = lim->levels == 1 && pl->levels.rounds && !c->alone && plan_levels_fit(ir->regions[r]);
  }
  if (lim->inputs >= 0)
    for (int k = 0; k < ir->prog->ninputs; k++) pl->input[k] = (Layout)lim->inputs;
  pl->block_result = lim->result == LAY_BLOCK;
  plan_finish(pl);
}

bool plan_levels_fit(const Region *r) {
  for (int s = 0; s < r->nstages; s++)
    if (r->stages[s]->kind == IR_INITS || r->stages[s]->kind == IR_TAILS || r->stages[s]->kind == IR_NEIGHBOURS)
      return false;
  return true;
}

char *plan_choice_text(Arena *a, const Region *r, const RegionChoice *c) {
  if (c->alone) return arena_printf(a, "sequential, on %s", c->out == LAY_ALL ? "every process" : "process 0");
  bool fold = r->root->kind == IR_FOLD, prefix = false;
  for (int s = 0; s < r->nstages; s++) prefix |= r->stages[s]->kind == IR_PREFIX;
  const char *where = c->out == LAY_BLOCK ? "left distributed" : c->out == LAY_ALL ? "on every process" : "on process 0";
  if (c->levels)
    return arena_printf(a, "parallel by levels%s%s, result %s", prefix ? ", prefix " : "",
                        prefix ? (c->prefix == PREFIX_STORE ? "stored" : "recomputed") : "", where);
  return arena_printf(a, "parallel%s%s%s%s, result %s", fold ? ", fold by " : "", fold ? fold_names[c->fold] : "",
                      prefix ? ", prefix " : "", prefix ? (c->prefix == PREFIX_STORE ? "stored" : "recomputed") : "",
                      where);
}
