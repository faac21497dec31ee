// planner.c: choosing a plan (docs/compiler.md, "The planner"). The
// papers' template, or the alternatives of every region and the layouts of
// the values between them that minimise the exact model's time: one run of
// the exact model costs every alternative of every region it reaches and
// every conversion of every top-level value (exact_plan_costs), then
// dynamic programming over the program's tree finds the cheapest
// combination, each node's table holding its cheapest cost for every
// layout its value may be read in (Rangaswami's search over phases and
// distributions, in polynomial time).
#include "cost/cost.h"

#include <math.h>
#include <string.h>

#define INF 1e300

// The alternatives of region r the limits allow; on a hierarchical machine
// (levels), each parallel one also following its levels, where the region
// can (a fold's method and an allgathered result do not apply there).
static int alternatives(IrProgram *ir, const Region *r, const PlanLimits *lim, bool levels, RegionChoice *out) {
  bool fold = r->root->kind == IR_FOLD, prefix = false;
  for (int s = 0; s < r->nstages; s++) prefix |= r->stages[s]->kind == IR_PREFIX;
  int n = 0;
  int lanes[] = {1, PLAN_LANES};
  for (int l = 0; l < 2; l++) {
    if (lim->lanes && lim->lanes != lanes[l]) continue;
    if (lim->regions != 1) {
      out[n++] = (RegionChoice){.alone = true, .out = LAY_ROOT, .lanes = lanes[l]};
      out[n++] = (RegionChoice){.alone = true, .out = LAY_ALL, .lanes = lanes[l]};
    }
    if (lim->regions == 0) continue;
    for (int f = 0; f < (fold ? FOLD_METHODS : 1); f++) {
      if (fold && lim->fold >= 0 && f != lim->fold) continue;
      for (int m = 0; m < (prefix ? PREFIX_METHODS : 1); m++) {
        if (prefix && lim->prefix >= 0 && m != lim->prefix) continue;
        Layout outs[] = {LAY_BLOCK, LAY_ROOT, LAY_ALL};
        for (int o = 0; o < (fold ? 1 : 3); o++) {
          RegionChoice c = {.out = outs[o], .fold = (FoldMethod)f, .prefix = (PrefixMethod)m, .lanes = lanes[l]};
          if (fold) c.out = f == FOLD_ALLREDUCE ? LAY_ALL : LAY_ROOT;
          if (lim->levels != 1) out[n++] = c;
          if (levels && lim->levels != 0 && plan_levels_fit(r) && c.out != LAY_ALL && (!fold || f == FOLD_GATHER))
            out[n++] = (RegionChoice){.out = c.out, .prefix = c.prefix, .lanes = c.lanes, .levels = true};
        }
      }
    }
  }
  (void)ir;
  return n;
}

enum { MAX_ALTERNATIVES = 2 * (2 + 2 * FOLD_METHODS * PREFIX_METHODS * 3) };

//
// The search.
//

typedef struct Dp {
  IrProgram *ir;
  PlanCosts costs;
  const PlanLimits *lim;
  bool master;          // sequential parts on process 0 only
  bool block_result;    // main may stay distributed
  Layout *env;          // by var id: the layout of a top-level variable (LAY_NONE: local)
  Layout *input;        // by input: the layout tried
  Plan *commit;         // when set: where the chosen options go
  int forced, forced_alt;  // a region (id; 0: none) held to one alternative
  Layout state[2];      // the layouts of the variables of the iteration over a pair being solved
  double *memo;         // by node id and layout
  unsigned *stamp;      // by node id and layout: the generation memo holds
  unsigned generation;  // of the variables' layouts
} Dp;

static double solve(Dp *d, Ir *e, Layout to);

static bool fits(Ir *e, Layout l) { return l != LAY_BLOCK || e->ty->kind == T_VEC; }

// Converting e's value from one layout to another, summed over its runs.
static double conv(Dp *d, Ir *e, Layout from, Layout to) {
  if (!fits(e, from) || !fits(e, to)) return INF;
  if (plan_conversion(from, to) == XCH_COUNT) return 0;
  return d->costs.conv[e->id][0][from][to];
}

static Layout reference_layout(Dp *d, Ir *e) { return e->kind == IR_INPUT ? d->input[e->index] : d->env[e->var->id]; }

static bool is_reference(Dp *d, Ir *e) {
  return e->kind == IR_INPUT || (e->kind == IR_VAR && d->env[e->var->id] != LAY_NONE);
}

// The references of a part without regions, converted to where it runs.
static double references_to(Dp *d, Ir *e, Layout at) {
  if (is_reference(d, e)) return conv(d, e, reference_layout(d, e), at);
  Ir *kids[ir_max_kids(e)];
  int n = ir_kids(e, kids);
  double c = 0;
  for (int i = 0; i < n; i++) c += references_to(d, kids[i], at);
  return c;
}

// The places a sequential part or operation may run.
static int places(Dp *d, Layout *out) {
  out[0] = LAY_ROOT;
  if (d->master) return 1;
  out[1] = LAY_ALL;
  return 2;
}

// The cheapest of n options (cost computes option i's cost, committing
// its choices when d->commit is set): the option is computed once more
// with commit set to record them.
typedef double (*OptionCost)(Dp *d, Ir *e, Layout to, int i);

static double best_option(Dp *d, Ir *e, Layout to, int n, OptionCost cost) {
  Plan *commit = d->commit;
  d->commit = NULL;
  double best = INF;
  int at = -1;
  for (int i = 0; i < n; i++) {
    double c = cost(d, e, to, i);
    if (c < best * (1 - 1e-6)) best = c, at = i;
  }
  d->commit = commit;
  if (commit && at >= 0) cost(d, e, to, at);
  return best;
}

static double part_option(Dp *d, Ir *e, Layout to, int i) {
  Layout p[2];
  places(d, p);
  if (d->commit) d->commit->place[e->id] = p[i];
  return references_to(d, e, p[i]) + conv(d, e, p[i], to);
}

static double operation_option(Dp *d, Ir *e, Layout to, int i) {
  Layout p[2];
  places(d, p);
  if (d->commit) d->commit->place[e->id] = p[i];
  Ir *kids[ir_max_kids(e)];
  int n = ir_kids(e, kids);
  double c = conv(d, e, p[i], to);
  for (int k = 0; k < n && c < INF; k++) c += solve(d, kids[k], p[i]);
  return c;
}

static const Layout all_layouts[] = {LAY_BLOCK, LAY_ROOT, LAY_ALL};

static void bind(Dp *d, IrVar *x, Layout l) {
  d->env[x->id] = l;
  d->generation++;
}

static double let_option(Dp *d, Ir *e, Layout to, int i) {
  Layout l = all_layouts[i];
  if (!fits(e->a, l)) return INF;
  if (d->commit) d->commit->place[e->id] = l;
  bind(d, e->var, l);
  double c = solve(d, e->a, l);
  return c < INF ? c + solve(d, e->body, to) : INF;
}

// The pair after an iteration over a pair, made on process 0 or on every
// process from its components, and delivered where its consumer reads it.
static double last_pair_option(Dp *d, Ir *e, Layout to, int i) {
  Layout p[2];
  places(d, p);
  if (d->commit) d->commit->place[e->c->id] = p[i];
  return references_to(d, e->c, p[i]) + conv(d, e, p[i], to);
}

static double state(Dp *d, Ir *e);

// A let in the body of an iteration over a pair, its variable in layout i.
static double state_let_option(Dp *d, Ir *e, Layout to, int i) {
  (void)to;
  Layout l = all_layouts[i];
  if (!fits(e->a, l)) return INF;
  if (d->commit) d->commit->place[e->id] = l;
  bind(d, e->var, l);
  double c = solve(d, e->a, l);
  return c < INF ? c + state(d, e->body) : INF;
}

// The body of an iteration over a pair: its lets, then each component of
// the next pair delivered where its variable lives (d->state).
static double state(Dp *d, Ir *e) {
  if (e->kind == IR_LET) return best_option(d, e, LAY_NONE, 3, state_let_option);
  return solve(d, e->a, d->state[0]) + solve(d, e->b, d->state[1]);
}

// An iteration over a pair (lower.c, pair_iter), its variables in layouts
// i / 3 and i % 3: nine options, as two lets have.
static double pair_iter_option(Dp *d, Ir *e, Layout to, int i) {
  Layout x = all_layouts[i / 3], y = all_layouts[i % 3], outer[2] = {d->state[0], d->state[1]};
  if (!fits(e->a->a, x) || !fits(e->a->b, y)) return INF;
  if (d->commit) d->commit->place[e->id] = x, d->commit->place[e->a->id] = y;
  bind(d, e->x, x);
  bind(d, e->y, y);
  double c = solve(d, e->a->a, x) + solve(d, e->a->b, y) + solve(d, e->b, LAY_ALL);
  d->state[0] = x, d->state[1] = y;
  c += state(d, e->body);
  d->state[0] = outer[0], d->state[1] = outer[1];
  Layout p[2];
  return c < INF ? c + best_option(d, e, to, places(d, p), last_pair_option) : INF;
}

static double iter_option(Dp *d, Ir *e, Layout to, int i) {
  if (e->y) return pair_iter_option(d, e, to, i);
  Layout l = all_layouts[i];
  if (!fits(e, l)) return INF;
  if (d->commit) d->commit->place[e->id] = l;
  bind(d, e->x, l);
  return solve(d, e->a, l) + solve(d, e->b, LAY_ALL) + solve(d, e->body, l) + conv(d, e, l, to);
}

static double ifs_option(Dp *d, Ir *e, Layout to, int i) {
  Layout l = all_layouts[i];
  if (!fits(e, l)) return INF;
  if (d->commit) d->commit->place[e->id] = l;
  return solve(d, e->a, LAY_ALL) + solve(d, e->b, l) + solve(d, e->c, l) + conv(d, e, l, to);
}

static Layout alternative_out(const Region *r, const RegionChoice *c) {
  if (c->alone || r->root->kind != IR_FOLD) return c->out;
  return c->fold == FOLD_ALLREDUCE ? LAY_ALL : LAY_ROOT;
}

// An operand of region option c delivered where the region reads it (at):
// on a tree's levels, made on process 0 and sent down them if that is
// cheaper than the operand delivered there (committed, if d->commit).
static double operand(Dp *d, Ir *e, const RegionChoice *c, Layout at) {
  if (!c->levels) return solve(d, e, at);
  Plan *commit = d->commit;
  d->commit = NULL;
  double there = solve(d, e, at), down = solve(d, e, LAY_ROOT) + d->costs.conv[e->id][1][LAY_ROOT][at];
  d->commit = commit;
  if (commit) solve(d, e, down < there ? LAY_ROOT : at);
  return fmin(there, down);
}

// Converting a captured value (fetch item k) from where it is to where the
// region reads it: down the levels when the region follows them.
static double fetched(AltCosts *ac, int k, const RegionChoice *c, Layout from, Layout full) {
  int way = plan_conversion_by(from, full, c->levels) != plan_conversion(from, full);
  return plan_conversion(from, full) == XCH_COUNT ? 0 : ac->fetch[k][way][from][full];
}

static double region_option(Dp *d, Ir *e, Layout to, int i) {
  Region *r = e->region;
  if (d->forced == r->id && i != d->forced_alt) return INF;
  AltCosts *ac = &d->costs.region[r->id - 1];
  const RegionChoice *c = &ac->alt[i];
  if (d->commit) d->commit->region[r->id - 1] = *c;
  Layout full = c->alone ? c->out : LAY_ALL, arg = c->alone ? c->out : LAY_BLOCK;
  double cost = ac->seconds[i] + conv(d, e, alternative_out(r, c), to);
  for (int s = r->nstages - 1; s >= 0 && cost < INF; s--)
    if (r->stages[s]->kind == IR_C_PROD) cost += operand(d, r->stages[s]->a, c, full);
  if (r->first->kind == IR_PAIR_MAP) cost += operand(d, r->first->a, c, arg) + operand(d, r->first->b, c, arg);
  else cost += operand(d, plan_chain_arg(r->first), c, arg);
  for (int k = 0; k < r->ncaptured; k++) cost += fetched(ac, k, c, d->env[r->captured[k]->id], full);
  for (int k = 0; k < r->ninputs; k++) cost += fetched(ac, r->ncaptured + k, c, d->input[r->inputs[k]->index], full);
  return cost;
}

static double solve_uncached(Dp *d, Ir *e, Layout to) {
  if (!ir_holds_region(e)) {
    if (e->kind == IR_VAR || e->kind == IR_INPUT) return conv(d, e, reference_layout(d, e), to);
    Layout p[2];
    return best_option(d, e, to, places(d, p), part_option);
  }
  switch (e->kind) {
  case IR_LET: return best_option(d, e, to, 3, let_option);
  case IR_ITER: return best_option(d, e, to, e->y ? 9 : 3, iter_option);
  case IR_IFS: return best_option(d, e, to, 3, ifs_option);
  default:
    if (ir_is_skeleton(e->kind) && e->mode == MODE_TOP)
      return best_option(d, e, to, d->costs.region[e->region->id - 1].nalts, region_option);
    Layout p[2];
    return best_option(d, e, to, places(d, p), operation_option);
  }
}

// The cheapest cost of e delivered in layout `to`, under the variables'
// layouts now (memoised for them).
static double solve(Dp *d, Ir *e, Layout to) {
  size_t at = (size_t)e->id * LAY_NONE + to;
  if (!d->commit && d->stamp[at] == d->generation) return d->memo[at];
  unsigned generation = d->generation;
  double c = solve_uncached(d, e, to);
  if (!d->commit && generation == d->generation) d->stamp[at] = generation, d->memo[at] = c;
  return c;
}

// The cheapest layout of main's value and its cost (committed, if d->commit).
static double solve_main(Dp *d, Layout *at) {
  Plan *commit = d->commit;
  d->commit = NULL;
  double best = INF;
  for (int i = 0; i < 3; i++) {
    Layout l = all_layouts[i];
    if (l == LAY_BLOCK && (!d->block_result || !fits(d->ir->main, l))) continue;
    double c = solve(d, d->ir->main, l);
    if (c < best * (1 - 1e-6)) best = c, *at = l;
  }
  d->commit = commit;
  if (commit && best < INF) solve(d, d->ir->main, *at);
  return best;
}

// Tries every layout of the inputs the limits allow (smallest memory first:
// by blocks, on process 0, everywhere), keeping the cheapest in best.
static void search_inputs(Dp *d, int k, double *best, Layout *best_inputs) {
  Program *prog = d->ir->prog;
  if (k == prog->ninputs) {
    d->generation++;
    Layout at;
    double c = solve_main(d, &at);
    if (c < *best * (1 - 1e-6)) {
      *best = c;
      memcpy(best_inputs, d->input, (size_t)prog->ninputs * sizeof *d->input);
    }
    return;
  }
  for (int i = 0; i < 3; i++) {
    Layout l = all_layouts[i];
    if (d->lim->inputs >= 0 && l != (Layout)d->lim->inputs) continue;
    if (l == LAY_BLOCK && prog->inputs[k]->itype->kind != IT_VEC) continue;
    d->input[k] = l;
    search_inputs(d, k + 1, best, best_inputs);
  }
}

// The costs of every alternative, from one run of the exact model under
// the base plan.
static void cost_alternatives(Dp *d, Arena *a, Program *prog, const int64_t *params, const Plan *base, const Machine *m) {
  IrProgram *ir = d->ir;
  d->costs.region = arena_calloc(a, (size_t)ir->nregions + 1, sizeof *d->costs.region);
  for (int r = 0; r < ir->nregions; r++) {
    AltCosts *ac = &d->costs.region[r];
    RegionChoice *alt = arena_calloc(a, MAX_ALTERNATIVES, sizeof *alt);
    ac->nalts = alternatives(ir, ir->regions[r], d->lim, base->levels.rounds > 0, alt);
    ac->alt = alt;
    ac->seconds = arena_calloc(a, (size_t)ac->nalts + 1, sizeof *ac->seconds);
    ac->fetch = arena_calloc(a, (size_t)(ir->regions[r]->ncaptured + ir->regions[r]->ninputs) + 1, sizeof *ac->fetch);
  }
  d->costs.conv = arena_calloc(a, (size_t)ir->nnodes + 1, sizeof *d->costs.conv);
  d->costs.reached = arena_calloc(a, (size_t)ir->nnodes + 1, sizeof *d->costs.reached);
  exact_plan_costs(a, prog, params, base, m, &d->costs);
  d->env = arena_calloc(a, (size_t)ir->nvars + 1, sizeof *d->env);
  for (int i = 0; i <= ir->nvars; i++) d->env[i] = LAY_NONE;
  d->input = arena_calloc(a, (size_t)prog->ninputs + 1, sizeof *d->input);
  d->memo = arena_calloc(a, (size_t)ir->nnodes * LAY_NONE + 1, sizeof *d->memo);
  d->stamp = arena_calloc(a, (size_t)ir->nnodes * LAY_NONE + 1, sizeof *d->stamp);
}

// The search's cheapest cost, its choices written into pl.
static double search(Dp *d, Plan *pl) {
  Program *prog = d->ir->prog;
  double cost = INF;
  Layout *inputs = arena_calloc(d->ir->arena, (size_t)prog->ninputs + 1, sizeof *inputs);
  d->generation++;
  search_inputs(d, 0, &cost, inputs);
  if (!pl || cost >= INF) return cost;
  memcpy(pl->input, inputs, (size_t)prog->ninputs * sizeof *inputs);
  memcpy(d->input, inputs, (size_t)prog->ninputs * sizeof *inputs);
  d->commit = pl;
  d->generation++;
  Layout at;
  solve_main(d, &at);
  d->commit = NULL;
  plan_finish(pl);
  return cost;
}

// The levels of machine m for its plans: none unless it is hierarchical,
// whose plans are for its workers.
static PlanLevels levels_of(const Machine *m) {
  if (!m->tree) return (PlanLevels){0};
  if (m->p != m->tree->leaves)
    fatal("machine %s is hierarchical with %d workers: its plans and costs are for p = %d, not %d", m->name,
          m->tree->leaves, m->tree->leaves, m->p);
  return (PlanLevels){m->tree->rounds, m->tree->lead};
}

static Plan *template(IrProgram *ir, const Machine *m, const PlanLimits *lim) {
  Plan *pl = plan_paper(ir, m->p);
  pl->levels = levels_of(m);
  plan_apply_limits(pl, lim);
  return pl;
}

// The exact model's seconds of the run under pl, as `cost` reports them,
// and the memory shares of that run.
static double plan_run(Program *prog, const int64_t *params, const Plan *pl, const Machine *m, MemoryShares *shares) {
  Arena *a = arena_new();
  ExactResult x;
  exact_cost(a, prog, params, pl, &x);
  MemoryShares sh = cost_memory_shares(&m->cal, &x);
  double t = cost_steps_seconds(m, x.steps, x.nsteps, x.p, false, sh, NULL);
  arena_free(a);
  if (shares) *shares = sh;
  return t;
}

double cost_plan_seconds(Program *prog, const int64_t *params, const Plan *pl, const Machine *m) {
  return plan_run(prog, params, pl, m, NULL);
}

// The search's estimate of the program with each alternative of each region.
static void report_alternatives(Dp *d, PlanReport *report) {
  IrProgram *ir = d->ir;
  report->region = arena_calloc(ir->arena, (size_t)ir->nregions + 1, sizeof *report->region);
  for (int r = 0; r < ir->nregions; r++) {
    AltCosts *ac = &d->costs.region[r];
    RegionReport *rr = &report->region[r];
    rr->nalts = ac->nalts;
    rr->alt = arena_calloc(ir->arena, (size_t)ac->nalts + 1, sizeof *rr->alt);
    rr->program = arena_calloc(ir->arena, (size_t)ac->nalts + 1, sizeof *rr->program);
    memcpy(rr->alt, ac->alt, (size_t)ac->nalts * sizeof *rr->alt);
    for (int i = 0; i < ac->nalts; i++) {
      d->forced = r + 1, d->forced_alt = i;
      rr->program[i] = search(d, NULL);
    }
    d->forced = 0;
  }
}

// The search's plan when every cost assumes the memory shares given.
static Plan *searched(Program *prog, const int64_t *params, const Machine *m, const PlanLimits *lim, const Plan *base,
                      MemoryShares shares, PlanReport *report) {
  Arena *a = arena_new();
  Dp d = {.ir = base->ir, .lim = lim, .block_result = lim->result == LAY_BLOCK, .generation = 1};
  d.costs.shares = shares;
  DiagTrap trap;
  if (DIAG_TRY(&trap)) {
    cost_alternatives(&d, a, prog, params, base, m);
    diag_untrap(&trap);
  } else {  // a costing beyond what the analysis holds: passed on once its memory is freed
    arena_free(a);
    diag_rethrow();
  }
  Plan *pl = plan_copy(base);
  pl->name = "best";
  search(&d, pl);
  if (report) report_alternatives(&d, report);
  arena_free(a);
  return pl;
}

static bool same_shares(MemoryShares a, MemoryShares b) {
  return fabs(a.loads - b.loads) < 0.01 && fabs(a.stores - b.stores) < 0.01 &&
         fabs(a.accumulator - b.accumulator) < 0.01 && fabs(a.reloads - b.reloads) < 0.01;
}

enum { SHARE_ROUNDS = 3 };

// The default plan under the limits: the search's start, and the plan
// without sizes.
static Plan *start(Program *prog, const Machine *m, const PlanLimits *lim) {
  Plan *base = plan_default(lower_program(prog), m->p);
  base->levels = levels_of(m);
  plan_apply_limits(base, lim);
  return base;
}

// How much of a run's traffic the cache serves depends on the memory the
// whole run touches, which the plan decides: the search assumes the shares
// of a run (the default plan's first, then those of its last plan) until
// they hold. That is a fixed point reached from the default plan, not the
// cheapest plan under each plan's own shares: a plan that touches less
// memory is charged the shares of one that touches more (best_plan). The
// search also adds conversions as if each ran alone (a region's fetch
// shares one barrier). So its plans and the template are compared by the
// exact model of each whole run, and the cheapest is kept (its seconds in
// *seconds, the template's in the report).
static Plan *cheapest(Program *prog, const int64_t *params, const Machine *m, const PlanLimits *lim, PlanReport *report,
                      double *seconds) {
  Plan *base = start(prog, m, lim);
  Plan *best = template(base->ir, m, lim);
  MemoryShares shares, next;
  double least = plan_run(prog, params, best, m, NULL);
  if (report) report->paper_seconds = least;
  plan_run(prog, params, base, m, &shares);
  for (int round = 0; round < SHARE_ROUNDS; round++) {
    Plan *pl = searched(prog, params, m, lim, base, shares, report);
    double t = plan_run(prog, params, pl, m, &next);
    if (t <= least) least = t, best = pl;
    if (same_shares(next, shares)) break;
    shares = next;
  }
  *seconds = least;
  return best;
}

static bool same_choice(const RegionChoice *a, const RegionChoice *b) {
  return a->alone == b->alone && a->out == b->out && a->fold == b->fold && a->prefix == b->prefix &&
         a->lanes == b->lanes && a->levels == b->levels;
}

// The estimates of the one-process search (one) in the report of the
// search on p processes, where they are lower: each estimates the best
// program with an alternative, under the shares of its own plans.
static void merge_estimates(IrProgram *ir, PlanReport *report, const PlanReport *one) {
  for (int r = 0; r < ir->nregions; r++) {
    RegionReport *rr = &report->region[r];
    const RegionReport *o = &one->region[r];
    for (int i = 0; i < rr->nalts; i++)
      for (int j = 0; j < o->nalts; j++)
        if (same_choice(&rr->alt[i], &o->alt[j])) rr->program[i] = fmin(rr->program[i], o->program[j]);
  }
}

// The cheapest plan. The search costs every alternative under the memory
// shares of one run (cheapest), and a one-process plan touches fewer words
// than a plan on p processes (no message is copied), so under the shares
// of the plans on p processes it is charged more than it costs, and the
// search that starts from them may never reach it. So the one-process
// plans are searched on their own, under their own shares, and the
// cheaper of the two searches' plans is taken; the one on p processes only
// if it beats the one-process plan (every region sequential, run on one
// process) by more than the margin: its time varies far more than a
// one-process run's on a shared machine, and a gain within the model's
// error is no gain. No margin applies where the limits leave no
// one-process plan.
static Plan *best_plan(Program *prog, const int64_t *params, const Machine *m, const PlanLimits *lim, PlanReport *report) {
  if (!params) return start(prog, m, lim);
  double parallel, alone;
  Plan *best = cheapest(prog, params, m, lim, report, &parallel);
  if (report) report->seconds = parallel;
  if (m->p == 1 || lim->regions == 1 || plan_one_process(best)) return best;
  PlanLimits sequential = *lim;
  sequential.regions = 0;
  PlanReport one_report = {0};
  Plan *one = cheapest(prog, params, m, &sequential, report ? &one_report : NULL, &alone);
  if (report) merge_estimates(best->ir, report, &one_report);
  double margin = plan_one_process(one) ? lim->margin : 0;
  if (parallel < alone * (1 - margin)) return best;
  if (report) report->seconds = alone, report->set_aside_seconds = parallel < alone ? parallel : 0;
  return one;
}

// The limits of spec, or a fatal error.
static PlanLimits limits_of(const char *spec, bool block_result) {
  PlanLimits lim;
  char err[256];
  if (!plan_parse_limits(spec, &lim, err, sizeof err)) fatal("%s", err);
  if (block_result && lim.result < 0) lim.result = LAY_BLOCK;
  return lim;
}

PlanReport cost_plan_report(Program *prog, const int64_t *params, const Machine *m, const char *spec, bool block_result) {
  PlanLimits lim = limits_of(spec, block_result);
  IrProgram *ir = lower_program(prog);
  PlanReport report = {.margin = lim.margin};
  if (strcmp(lim.base, "paper") != 0) {
    report.plan = best_plan(prog, params, m, &lim, &report);
    return report;
  }
  report.plan = template(ir, m, &lim);
  report.seconds = report.paper_seconds = cost_plan_seconds(prog, params, report.plan, m);
  return report;
}

Plan *cost_plan(Program *prog, const int64_t *params, const Machine *m, const char *spec, bool block_result) {
  PlanLimits lim = limits_of(spec, block_result);
  IrProgram *ir = lower_program(prog);
  if (strcmp(lim.base, "paper") == 0) return template(ir, m, &lim);
  return best_plan(prog, params, m, &lim, NULL);
}
