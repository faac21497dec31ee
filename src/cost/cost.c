// cost.c: the analysis driver: the paper model (an Analysis of the
// program, its params and a machine, running main at top level), the exact
// model (src/cost/exact.c, after the shape check) and their results.
#include "cost/costint.h"
#include "ir/ir.h"

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cost_model_name(CostModel m) { return m == MODEL_PAPER ? "paper" : "exact"; }

static Shape *input_shape(Analysis *a, InputType *t) {
  switch (t->kind) {
  case IT_PAIR: return shape_pair(&a->sh, input_shape(a, t->a), input_shape(a, t->b));
  case IT_VEC: {
    Shape *len = eval_expr(a, t->len, NULL, EVAL_LOCAL).s;
    Sz n = require_size(a, len, t->len->pos, "this vector length");
    if (!n.sym && n.k < 0) error_at(t->len->pos, "this vector length is negative (%lld)", (long long)n.k);
    return shape_vec(&a->sh, n, input_shape(a, t->a));
  }
  default: return shape_unit(&a->sh);
  }
}

static Analysis *analysis_new(Arena *arena, const CostRequest *req) {
  Analysis *a = arena_alloc(arena, sizeof *a);
  Program *prog = req->prog;
  a->arena = arena;
  a->prog = prog;
  a->machine = req->machine;
  a->k = req->machine.k;
  a->p = req->machine.p;
  a->P = num_of(a->p);
  a->LOG2P = num_of(range_tree_rounds(a->p));
  a->sh = (Shapes){.arena = arena, .budget = IRREGULAR_MAX, .site = prog->main->body->pos};
  if (req->closed_form) closed_setup(a);
  steps_init(a);
  a->params = arena_calloc(arena, (size_t)prog->nparams + 1, sizeof *a->params);
  for (int i = 0; i < prog->nparams; i++) {
    bool sym = req->closed_form && (!req->symbolic || req->symbolic[i]);
    a->params[i] = shape_size(&a->sh, sym ? (Sz){.sym = poly_var(a->pc, i)} : sz_of(req->params[i]));
  }
  a->inputs = arena_calloc(arena, (size_t)prog->ninputs + 1, sizeof *a->inputs);
  for (int i = 0; i < prog->ninputs; i++) a->inputs[i] = input_shape(a, prog->inputs[i]->itype);
  eval_prepare(a);
  return a;
}

static void run_main(Analysis *a) {
  Program *prog = a->prog;
  eval_force(a, eval_expr(a, prog->main->body, NULL, EVAL_TOP));
  paper_end(a, prog->main->pos);
}

// The exact model counts in doubles, exact below 2^53.
static void check_exact(double x) {
  if (x >= 9007199254740992.0)
    fatal("the predicted work or communication exceeds 2^53, beyond what the exact model counts exactly");
}

_Static_assert(CAL_EXITS - CAL_LAT_FAST == LAT_CLASSES, "one latency term per LatClass");

// words, share of them at the memory's rate (mem), the rest at the cache's.
static void split(double count[CAL_TERMS], int cache, int mem, double words, double share) {
  count[cache] += (1 - share) * words;
  count[mem] += share * words;
}

// The part `shared` of count[alone] moves to count[shared_term].
static void share(double count[CAL_TERMS], int alone, int shared_term, double shared) {
  count[shared_term] = shared * count[alone];
  count[alone] -= count[shared_term];
}

// c's local calibration counts, CAL_OPS .. CAL_LAT_FLOAT, into count (zero);
// the shares of its loads, stores and unpacked words count as *_MEM, and of
// those the part streamed beside other processes as *_SHARED. A packed
// pair is one operation and, in the cache, one store instruction; from
// memory its words cost the core a store each still (the memory binds such
// a stream: docs/cost-model.md, "Packed pairs").
static void local_counts(const ExactCounts *c, MemoryShares shares, double count[CAL_TERMS]) {
  count[CAL_OPS] = (double)(c->ops + c->selects + c->shift_ops - c->packed_ops), count[CAL_DIVS] = (double)c->divs, count[CAL_ELEMS] = (double)c->elems;
  split(count, CAL_LOADS, CAL_LOADS_MEM, (double)c->loads, shares.loads);
  split(count, CAL_LOADS, CAL_LOADS_MEM, (double)c->acc_loads, shares.accumulator);
  split(count, CAL_LOADS, CAL_LOADS_MEM, (double)c->reloads, shares.reloads);
  split(count, CAL_ACC_STORES, CAL_ACC_STORES_MEM, (double)c->acc_loads, shares.stores);
  split(count, CAL_STORES, CAL_STORES_MEM, (double)c->stores, shares.stores);
  count[CAL_STORES] -= (1 - shares.stores) * (double)c->packed_stores;  // a pair's one store in the cache
  split(count, CAL_UNPACKED, CAL_UNPACKED_MEM, (double)c->unpacked, shares.stores);
  share(count, CAL_LOADS_MEM, CAL_LOADS_SHARED, shares.streaming);
  share(count, CAL_STORES_MEM, CAL_STORES_SHARED, shares.streaming);
  share(count, CAL_UNPACKED_MEM, CAL_UNPACKED_SHARED, shares.streaming);
  count[CAL_VECTORS] = (double)c->vectors;
  count[CAL_COPIES] = (double)c->copies;
  count[CAL_MULS] = (double)c->muls, count[CAL_LITERAL_DIVS] = (double)c->literal_divs;
  count[CAL_FLOAT_DIVS] = (double)c->float_divs;
  for (int k = 0; k < LAT_CLASSES; k++) count[CAL_LAT_FAST + k] = (double)c->carried[k];
  count[CAL_EXITS] = (double)c->exits;
}

// The share of words words not in a cache of c bytes (0: unknown, all in
// it): none up to from bytes, all from to bytes on, linearly in between.
static double ramp(double c, double words, double from, double to) {
  double bytes = 8 * words;
  if (c <= 0 || bytes <= from) return 0;
  return bytes >= to ? 1 : (bytes - from) / (to - from);
}

// The machine's memory curve; without one, a ramp from all in cache to all
// in memory, by the run's footprint: from C/2 to C at p = 1, from C/4 to
// 5C/4 at p > 1, both fitted on validation data (docs/cost-model.md, "The
// memory curve").
double cost_memory_share(const Calibration *cal, StreamKind kind, double footprint, int p) {
  const MemoryCurve *curve = memory_curve_for(cal, p);
  if (curve) return memory_curve_share(curve, kind, cal->cache_bytes, 8 * footprint);
  double c = cal->cache_bytes;
  return p > 1 ? ramp(c, footprint, c / 4, 5 * c / 4) : ramp(c, footprint, c / 2, c);
}

// Words read again from beyond a core's first-level cache cost as much
// as words streamed from memory (bench/loops: docs/cost-model.md,
// "Reloads"): the share of a set of that many words that is not in it, by
// a ramp from 3/4 of the cache (the stream's own lines share it) to all
// of it. Each core has its own, whatever p.
double cost_first_level_share(const Calibration *cal, double words) {
  double c = cal->l1_bytes;
  return ramp(c, words, 3 * c / 4, c);
}

MemoryShares cost_memory_shares(const Calibration *cal, const ExactResult *x) {
  double reloads = fmax(cost_memory_share(cal, STREAM_LOADS, x->p * x->reload_set, x->p),
                        cost_first_level_share(cal, x->reload_set));
  return (MemoryShares){.loads = cost_memory_share(cal, STREAM_LOADS, x->footprint, x->p),
                        .stores = cost_memory_share(cal, STREAM_STORES, x->footprint, x->p),
                        .accumulator = cost_memory_share(cal, STREAM_LOADS, x->p * x->accumulator, x->p),
                        .reloads = reloads};
}

static double memory_words(const ExactCounts *c) {
  return (double)(c->loads + c->acc_loads + c->reloads + c->stores + c->unpacked);
}

MemoryShares cost_step_shares(MemoryShares shares, const ExactStep *st, int p) {
  int busiest = 0;
  for (int k = 1; k < p; k++)
    if (memory_words(&st->procs[k]) > memory_words(&st->procs[busiest])) busiest = k;
  double most = memory_words(&st->procs[busiest]), beside = 0;
  for (int k = 0; k < p && most > 0; k++)
    if (k != busiest) beside += fmin(1, memory_words(&st->procs[k]) / most);
  shares.streaming = p > 1 ? beside / (p - 1) : 0;
  return shares;
}

double cost_local_seconds(const double unit[CAL_TERMS], const ExactCounts *c, MemoryShares shares) {
  double count[CAL_TERMS] = {0};
  local_counts(c, shares, count);
  return calibration_local_seconds(unit, count);
}

// With more processes than cores, the cores share the processes' work: a
// superstep lasts at least the total over the cores, however it is spread.
double cost_shared_cores(double most, double total, int p, int cores) {
  if (cores <= 0 || p <= cores || most <= 0) return 1;
  return fmax(1, total / cores / most);
}

// The words of the busiest process's h-relation, and their total over
// processes (each process copies its own messages).
double cost_relation_total(const ExactStep *st, int p) {
  double total = 0;
  for (int k = 0; k < p; k++) total += (double)(st->sent[k] > st->recv[k] ? st->sent[k] : st->recv[k]);
  return total;
}

void cost_step_counts(const Calibration *cal, int cores, const ExactStep *st, int p, bool barrier,
                      MemoryShares shares, double count[CAL_TERMS]) {
  shares = cost_step_shares(shares, st, p);
  int busiest = 0;
  double most = 0, total = 0;
  for (int k = 0; k < p; k++) {
    double t = cal->present ? cost_local_seconds(cal->unit, &st->procs[k], shares) : (double)st->procs[k].ops;
    total += t;
    if (t > most) most = t, busiest = k;
  }
  memset(count, 0, CAL_TERMS * sizeof *count);
  local_counts(&st->procs[busiest], shares, count);
  double local = cost_shared_cores(most, total, p, cores);
  for (int t = 0; t < CAL_WORDS; t++) count[t] *= local;
  double words = (double)st->h * cost_shared_cores((double)st->h, cost_relation_total(st, p), p, cores);
  split(count, CAL_WORDS, CAL_WORDS_MEM, words, shares.loads);
  count[CAL_BARRIERS] = barrier;
}

double cost_step_seconds(const Machine *m, const ExactStep *st, int p, bool barrier, MemoryShares shares) {
  if (m->topology) return topology_step_seconds(m, st, p);
  if (!m->cal.present) {
    double w = (double)st->w, h = (double)st->h, ops = 0;
    for (int k = 0; k < p; k++) ops += (double)st->procs[k].ops;
    w *= cost_shared_cores(w, ops, p, m->cores);
    h *= cost_shared_cores(h, cost_relation_total(st, p), p, m->cores);
    return (w + h * m->g + (barrier ? m->l : 0)) / m->s;
  }
  double count[CAL_TERMS];
  cost_step_counts(&m->cal, m->cores, st, p, barrier, shares, count);
  return calibration_predict(m->cal.unit, count);
}

// A superstep as the analysis reports it: with a calibrated machine, the
// busiest process's local time, then its h-relation and barrier.
static CostStep exact_step(const Machine *m, const ExactStep *st, int p, bool barrier, MemoryShares shares) {
  CostStep s = {.w = (double)st->w, .h = (double)st->h, .where = st->where, .what = st->what, .exact = st};
  cost_step_counts(&m->cal, m->cores, st, p, barrier, shares, s.count);
  if (m->cal.present) s.seconds = calibration_predict(m->cal.unit, s.count);
  return s;
}

// The exact model's supersteps as the analysis reports them.
static CostResult exact_result(Arena *arena, const CostRequest *req) {
  cost_shape_check(req->prog, req->params);
  Machine planning = req->planning ? *req->planning : req->machine;
  planning.p = req->machine.p;
  const Plan *pl = req->plan ? req->plan : cost_plan(req->prog, req->params, &planning, req->plan_spec, false);
  ExactResult x;
  exact_cost(arena, req->prog, req->params, pl, &x);
  CostResult r = {.model = MODEL_EXACT, .machine = req->machine, .nsteps = x.nsteps, .steps_truncated = x.truncated,
                  .W = (double)x.W, .H = (double)x.H, .S = (double)x.S, .shapes = x.shapes, .plan = pl};
  r.steps = arena_calloc(arena, (size_t)x.nsteps + 1, sizeof *r.steps);
  const Calibration *cal = &req->machine.cal;
  r.footprint_bytes = 8 * x.footprint;
  MemoryShares shares = cost_memory_shares(cal, &x);
  r.memory_share = shares.loads, r.store_share = shares.stores;
  for (int i = 0; i < x.nsteps; i++) r.steps[i] = exact_step(&req->machine, &x.steps[i], x.p, i + 1 < x.nsteps, shares);
  check_exact(fmax(r.W, r.H));
  r.calibrated = cal->present && !x.truncated && !req->machine.topology;
  r.by_topology = req->machine.topology && !x.truncated;
  // A tree's seconds come from its levels, calibrated or not (docs/hierarchical.md).
  r.by_levels = req->machine.tree && !x.truncated;
  if (r.calibrated || r.by_levels || r.by_topology) {
    double *per_step = arena_calloc(arena, (size_t)x.nsteps + 1, sizeof *per_step);
    r.seconds = cost_steps_seconds(&req->machine, x.steps, x.nsteps, x.p, false, shares, per_step);
    for (int i = 0; i < x.nsteps; i++) r.steps[i].seconds = per_step[i];
  }
  return r;
}

static CostResult paper_result(Arena *arena, const CostRequest *req) {
  Analysis *a = analysis_new(arena, req);
  run_main(a);
  Steps *st = &a->st;
  CostResult r = {.model = MODEL_PAPER, .machine = req->machine, .steps = st->rows, .nsteps = st->nrows,
                  .steps_truncated = st->truncated, .shapes = (int64_t)a->sh.table.count};
  if (a->pc) {
    closed_result(a, st->W, st->H, st->S, &r);
  } else {
    r.W = st->W.v, r.H = st->H.v, r.S = st->S.v;
  }
  return r;
}

CostResult cost_analyse(Arena *arena, const CostRequest *req) {
  double t0 = clock_seconds();
  if (req->closed_form && req->model != MODEL_PAPER) fatal("--symbolic works with the paper model only");
  CostResult r = req->model == MODEL_EXACT ? exact_result(arena, req) : paper_result(arena, req);
  if (!r.W_form) {
    r.ops = r.W + r.H * req->machine.g + r.S * req->machine.l;
    if (!r.calibrated && !r.by_topology && !r.by_levels) r.seconds = r.ops / req->machine.s;
  }
  r.analysis_seconds = clock_seconds() - t0;
  return r;
}

typedef struct ClosedAttempt {
  Arena *arena;
  CostRequest req;
  const CostClosed *closed;
} ClosedAttempt;

static void analyse_closed(void *ctx) {
  ClosedAttempt *c = ctx;
  c->closed = cost_analyse(c->arena, &c->req).closed;
}

const CostClosed *cost_closed_forms(Arena *a, Program *prog, const Machine *m) {
  ClosedAttempt c = {a, {.prog = prog, .model = MODEL_PAPER, .machine = *m, .closed_form = true}, NULL};
  c.req.params = arena_calloc(a, (size_t)prog->nparams + 1, sizeof *c.req.params);
  diag_attempt(analyse_closed, &c, true);
  return c.closed;
}

bool cost_closed_predict(const CostClosed *cf, const Machine *m, const int64_t *params, CostResult *r) {
  double v[3];
  if (!cf || !cost_closed_value(cf, params, m->p, v)) return false;
  *r = (CostResult){.model = MODEL_PAPER, .machine = *m, .W = v[0], .H = v[1], .S = v[2]};
  r->ops = r->W + r->H * m->g + r->S * m->l;
  r->seconds = r->ops / m->s;
  return true;
}

void cost_format_number(char *buf, size_t size, double x) {
  if (x == floor(x) && fabs(x) < 9007199254740992.0) {
    snprintf(buf, size, "%.0f", x == 0 ? 0.0 : x);
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, x);
    if (strtod(buf, NULL) == x) return;
  }
}

static void run_analysis(void *analysis) { run_main(analysis); }

void cost_shape_check(Program *prog, const int64_t *params) {
  Arena *arena = arena_new();
  // The paper model at p = 1: its abstract interpretation meets every shape.
  CostRequest req = {.prog = prog, .params = params, .model = MODEL_PAPER, .machine = machine_select(arena, NULL)};
  req.machine.p = 1;
  bool checked = diag_attempt(run_analysis, analysis_new(arena, &req), false);
  arena_free(arena);
  if (!checked) diag_rethrow();  // reported; passed on once the arena is freed
}
