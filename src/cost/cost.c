// cost.c: the analysis driver: sets up an Analysis for a program, its
// params and a machine, runs main at top level and collects the result.
#include "cost/costint.h"

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

const char *cost_model_name(CostModel m) { return m == MODEL_PAPER ? "paper" : "exact"; }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int ceil_log2(int p) {
  int k = 0;
  while ((1 << k) < p) k++;
  return k;
}

static Shape *input_shape(Analysis *a, InputType *t) {
  switch (t->kind) {
  case IT_PAIR: return shape_pair(a, input_shape(a, t->a), input_shape(a, t->b));
  case IT_VEC: {
    Shape *len = eval_expr(a, t->len, NULL, EVAL_LOCAL).s;
    Sz n = require_size(a, len, t->len->pos, "this vector length");
    if (!n.sym && n.k < 0) error_at(t->len->pos, "this vector length is negative (%lld)", (long long)n.k);
    return shape_vec(a, n, input_shape(a, t->a));
  }
  default: return shape_unit(a);
  }
}

// Closed forms: the params kept symbolic, then p and ceil(log2 p).
static void setup_symbols(Analysis *a) {
  int np = a->prog->nparams;
  const char **names = arena_calloc(a->arena, (size_t)np + 2, sizeof *names);
  for (int i = 0; i < np; i++) names[i] = a->prog->params[i]->name;
  names[np] = "p";
  names[np + 1] = "log2(p)";
  a->pc = poly_ctx_new(a->arena, names, np + 2);
  a->P = (Num){.sym = poly_var(a->pc, np)};
  a->LOG2P = (Num){.sym = poly_var(a->pc, np + 1)};
  a->p = 0;
}

static Analysis *analysis_new(Arena *arena, const CostRequest *req) {
  Analysis *a = arena_alloc(arena, sizeof *a);
  Program *prog = req->prog;
  a->arena = arena;
  a->prog = prog;
  a->model = req->model;
  a->ops = req->model == MODEL_PAPER ? &cost_paper_model : &cost_exact_model;
  a->machine = req->machine;
  a->k = req->model == MODEL_PAPER ? req->machine.k : cost_default_constants;
  a->p = req->machine.p;
  a->P = num_of(a->p);
  a->LOG2P = num_of(ceil_log2(a->p));
  if (req->closed_form) setup_symbols(a);
  a->budget = IRREGULAR_MAX;
  a->site = prog->main->body;
  a->hook = req->hook;
  a->hook_ctx = req->hook_ctx;
  steps_init(a);
  a->params = arena_calloc(arena, (size_t)prog->nparams + 1, sizeof *a->params);
  for (int i = 0; i < prog->nparams; i++) {
    bool sym = req->closed_form && (!req->symbolic || req->symbolic[i]);
    a->params[i] = shape_size(a, sym ? (Sz){.sym = poly_var(a->pc, i)} : sz_of(req->params[i]));
  }
  a->inputs = arena_calloc(arena, (size_t)prog->ninputs + 1, sizeof *a->inputs);
  for (int i = 0; i < prog->ninputs; i++) a->inputs[i] = input_shape(a, prog->inputs[i]->itype);
  eval_prepare(a);
  return a;
}

static void run_main(Analysis *a) {
  Program *prog = a->prog;
  eval_force(a, eval_expr(a, prog->main->body, NULL, EVAL_TOP));
  a->ops->end(a, prog->main->pos);
}

// The exact model counts in doubles, exact below 2^53.
static void check_exact(double x) {
  if (x >= 9007199254740992.0)
    fatal("the predicted work or communication exceeds 2^53, beyond what the exact model counts exactly");
}

CostResult cost_analyse(Arena *arena, const CostRequest *req) {
  double t0 = now();
  if (req->closed_form && req->model != MODEL_PAPER) fatal("--symbolic works with the paper model only");
  Analysis *a = analysis_new(arena, req);
  run_main(a);
  Steps *st = &a->st;
  CostResult r = {.model = req->model, .machine = req->machine, .steps = st->rows, .nsteps = st->nrows,
                  .steps_truncated = st->truncated, .shapes = (int64_t)a->shapes.count};
  if (a->pc) {
    int pvar = a->prog->nparams;
    r.W_form = poly_format(a->pc, num_poly(a->pc, st->W), pvar);
    r.H_form = poly_format(a->pc, num_poly(a->pc, st->H), pvar);
    r.S_form = poly_format(a->pc, num_poly(a->pc, st->S), pvar);
  } else {
    r.W = st->W.v, r.H = st->H.v, r.S = st->S.v;
    if (req->model == MODEL_EXACT) check_exact(fmax(r.W, r.H));
    r.ops = r.W + r.H * req->machine.g + r.S * req->machine.l;
    r.seconds = r.ops / req->machine.s;
  }
  r.analysis_seconds = now() - t0;
  return r;
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

void cost_shape_check(Program *prog, const int64_t *params) {
  Arena *arena = arena_new();
  CostRequest req = {.prog = prog, .params = params, .model = MODEL_EXACT, .machine = machine_select(arena, NULL)};
  req.machine.p = 1;
  DiagTrap trap;
  if (DIAG_TRY(&trap)) {
    run_main(analysis_new(arena, &req));
    diag_untrap(&trap);
    arena_free(arena);
    return;
  }
  arena_free(arena);  // the error is reported; pass it on
  diag_rethrow();
}
