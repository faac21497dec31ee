// agree.c: do programs compute the same thing? The reference interpreter
// runs them on random inputs at growing sizes; the first disagreement is
// shrunk (values towards 0) to a counterexample a user can paste.
#include "cost/cost.h"
#include "derive/derive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// The sizes every param takes, smallest first: empty, one element, around a
// few processes' blocks, and a little larger. Most wrong formulations show
// at a handful of elements, where a counterexample is easy to read.
static const int64_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 24, 33};
enum { NSIZES = sizeof sizes / sizeof *sizes, SEEDS_PER_MODE = 3 };

// How random values are drawn: as --random draws them, then rescaled.
typedef enum { DRAW_WIDE, DRAW_SMALL, DRAW_NEGATIVE, DRAW_NON_NEGATIVE, NDRAWS } Draw;

//
// The programs must take the same params and inputs.
//

static int decl_index(Decl **decls, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(decls[i]->name, name) == 0) return i;
  return -1;
}

static void check_alike(Arena *a, Program *p0, Program *p) {
  const char *n0 = p0->src->name, *n = p->src->name;
  if (p->nparams != p0->nparams || p->ninputs != p0->ninputs)
    fatal("%s and %s do not take the same params and inputs (%d and %d params, %d and %d inputs)", n0, n,
          p0->nparams, p->nparams, p0->ninputs, p->ninputs);
  for (int i = 0; i < p0->nparams; i++)
    if (decl_index(p->params, p->nparams, p0->params[i]->name) < 0)
      fatal("%s has a param '%s' that %s has not", n0, p0->params[i]->name, n);
  for (int i = 0; i < p0->ninputs; i++) {
    int k = decl_index(p->inputs, p->ninputs, p0->inputs[i]->name);
    if (k < 0) fatal("%s has an input '%s' that %s has not", n0, p0->inputs[i]->name, n);
    char *t0 = type_to_string(a, p0->inputs[i]->type), *t = type_to_string(a, p->inputs[k]->type);
    if (strcmp(t0, t) != 0) fatal("the input '%s' is %s in %s but %s in %s", p0->inputs[i]->name, t0, n0, t, n);
  }
  char *m0 = type_to_string(a, p0->main->type), *m = type_to_string(a, p->main->type);
  if (strcmp(m0, m) != 0) fatal("main is %s in %s but %s in %s: they cannot compute the same thing", m0, n0, m, n);
}

//
// Values: drawn, rescaled, compared, shrunk.
//

static Value rescale(Arena *a, Value v, Draw mode) {
  switch (v.kind) {
  case V_INT:
    switch (mode) {
    case DRAW_SMALL: return value_int(v.i % 4);
    case DRAW_NEGATIVE: return value_int(-llabs(v.i) - 1);
    case DRAW_NON_NEGATIVE: return value_int(llabs(v.i));
    default: return v;
    }
  case V_FLOAT:
    switch (mode) {
    case DRAW_SMALL: return value_float(round(4 * v.f));
    case DRAW_NEGATIVE: return value_float(-fabs(v.f) - 0.5);
    case DRAW_NON_NEGATIVE: return value_float(fabs(v.f));
    default: return value_float(100 * v.f);
    }
  case V_PAIR: return value_pair(a, rescale(a, v.pair->a, mode), rescale(a, v.pair->b, mode));
  case V_VEC: {
    Value w = value_vec(a, v.vec->len);
    for (int64_t i = 0; i < v.vec->len; i++) w.vec->elems[i] = rescale(a, v.vec->elems[i], mode);
    return w;
  }
  default: return v;
  }
}

static bool close_floats(double x, double y) {
  if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
  return x == y || fabs(x - y) <= 1e-9 * fmax(1, fmax(fabs(x), fabs(y)));
}

bool agree_values(Value x, Value y) {
  if (x.kind != y.kind) return false;
  switch (x.kind) {
  case V_INT: return x.i == y.i;
  case V_FLOAT: return close_floats(x.f, y.f);
  case V_BOOL: return x.b == y.b;
  case V_PAIR: return agree_values(x.pair->a, y.pair->a) && agree_values(x.pair->b, y.pair->b);
  case V_VEC:
    if (x.vec->len != y.vec->len) return false;
    for (int64_t i = 0; i < x.vec->len; i++)
      if (!agree_values(x.vec->elems[i], y.vec->elems[i])) return false;
    return true;
  default: return false;
  }
}

// The scalars of v (inside pairs and vectors), in order, into out (if not NULL); returns how many.
static int64_t scalars(Value *v, Value **out, int64_t at) {
  switch (v->kind) {
  case V_PAIR: return scalars(&v->pair->b, out, scalars(&v->pair->a, out, at));
  case V_VEC:
    for (int64_t i = 0; i < v->vec->len; i++) at = scalars(&v->vec->elems[i], out, at);
    return at;
  default:
    if (out) out[at] = v;
    return at + 1;
  }
}

//
// Running the programs on a case.
//

typedef struct Checker {
  Arena *arena;
  Program **progs;
  int n;
  int **param_of;  // param_of[j][i]: program j's index of the first program's param i
  int **input_of;  // the same for inputs
} Checker;

// Values in the first program's order, in program j's.
static int64_t *params_of(Checker *ck, int j, const int64_t *params) {
  int64_t *mine = arena_calloc(ck->arena, (size_t)ck->progs[j]->nparams + 1, sizeof *mine);
  for (int i = 0; i < ck->progs[0]->nparams; i++) mine[ck->param_of[j][i]] = params[i];
  return mine;
}

static Value *inputs_of(Checker *ck, int j, const Value *inputs) {
  Value *mine = arena_calloc(ck->arena, (size_t)ck->progs[j]->ninputs + 1, sizeof *mine);
  for (int i = 0; i < ck->progs[0]->ninputs; i++) mine[ck->input_of[j][i]] = inputs[i];
  return mine;
}

// A program at some params: its inputs drawn, or its value computed (after
// its static shape errors).
typedef struct Run {
  Arena *arena;
  Program *prog;
  const int64_t *params;
  uint64_t seed;  // draw: the inputs' seed
  Value *inputs;  // draw: the result; evaluate: the inputs
  Value value;    // evaluate: the result
} Run;

static void draw(void *ctx) {
  Run *r = ctx;
  r->inputs = inputs_bind(r->arena, r->prog, r->params, &(InputSpec){.has_seed = true, .seed = r->seed});
}

static void evaluate(void *ctx) {
  Run *r = ctx;
  cost_shape_check(r->prog, r->params);
  r->value = interp_run(r->arena, r->prog, r->params, r->inputs);
}

// "-D m=2 -D n=3"
static char *params_args(Arena *a, Program *prog, const int64_t *params) {
  char *text = "";
  for (int i = 0; i < prog->nparams; i++)
    text = arena_printf(a, "%s%s-D %s=%lld", text, *text ? " " : "", prog->params[i]->name, (long long)params[i]);
  return text;
}

// Can the programs take inputs at these params, all of the same shapes?
// false when the first cannot (a length it declares is negative there):
// the point is skipped. Other shapes in another program are an error.
static bool inputs_fit(Checker *ck, const int64_t *params) {
  Run first = {ck->arena, ck->progs[0], params, 0, NULL, {0}};
  if (!diag_attempt(draw, &first, true)) return false;
  for (int j = 1; j < ck->n; j++) {
    Run other = {ck->arena, ck->progs[j], params_of(ck, j, params), 0, NULL, {0}};
    bool drawn = diag_attempt(draw, &other, true);
    for (int i = 0; i < ck->progs[0]->ninputs; i++)
      if (!drawn || !value_same_shape(first.inputs[i], other.inputs[ck->input_of[j][i]]))
        fatal("the input '%s' has other shapes in %s than in %s at %s", ck->progs[0]->inputs[i]->name,
              ck->progs[j]->src->name, ck->progs[0]->src->name,
              params_args(ck->arena, ck->progs[0], params));
  }
  return true;
}

// Program j on case c: its value or its error, never an exit.
static AgreeOutcome run_one(Checker *ck, int j, const AgreeCase *c) {
  Run r = {ck->arena, ck->progs[j], params_of(ck, j, c->params), 0, inputs_of(ck, j, c->inputs), {0}};
  if (!diag_attempt(evaluate, &r, true))
    return (AgreeOutcome){.failed = true, .error = arena_printf(ck->arena, "%s", diag_last_error)};
  return (AgreeOutcome){.value = r.value};
}

static bool outcomes_agree(const AgreeOutcome *x, const AgreeOutcome *y) {
  if (x->failed || y->failed) return x->failed && y->failed;
  return agree_values(x->value, y->value);
}

// Runs every program on c; the first pair that differs into *first, *second.
static bool differs(Checker *ck, const AgreeCase *c, AgreeOutcome *out, int *first, int *second) {
  for (int j = 0; j < ck->n; j++) out[j] = run_one(ck, j, c);
  for (int j = 1; j < ck->n; j++)
    if (!outcomes_agree(&out[0], &out[j])) {
      *first = 0, *second = j;
      return true;
    }
  return false;
}

// At params where inputs_fit.
static AgreeCase make_case(Checker *ck, const int64_t *params, uint64_t seed, Draw mode) {
  Program *first = ck->progs[0];
  AgreeCase c = {params_of(ck, 0, params), NULL};
  Value *drawn = inputs_bind(ck->arena, first, c.params, &(InputSpec){.has_seed = true, .seed = seed});
  c.inputs = arena_calloc(ck->arena, (size_t)first->ninputs + 1, sizeof *c.inputs);
  for (int i = 0; i < first->ninputs; i++) c.inputs[i] = rescale(ck->arena, drawn[i], mode);
  return c;
}

// Values towards 0, one scalar at a time, while the programs still differ.
static void shrink(Checker *ck, AgreeCase *c, AgreeOutcome *out, int *first, int *second) {
  AgreeOutcome *trial = arena_calloc(ck->arena, (size_t)ck->n, sizeof *trial);
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < ck->progs[0]->ninputs; i++) {
      int64_t n = scalars(&c->inputs[i], NULL, 0);
      Value **leaf = arena_calloc(ck->arena, (size_t)n + 1, sizeof *leaf);
      scalars(&c->inputs[i], leaf, 0);
      for (int64_t k = 0; k < n; k++) {
        Value old = *leaf[k];
        Value smaller[3] = {old, old, old};
        if (old.kind == V_INT) smaller[0].i = 0, smaller[1].i = old.i / 2, smaller[2].i = old.i - (old.i > 0) + (old.i < 0);
        else if (old.kind == V_FLOAT) smaller[0].f = 0, smaller[1].f = trunc(old.f / 2), smaller[2].f = trunc(old.f);
        else if (old.kind == V_BOOL) smaller[0].b = false;
        for (int s = 0; s < 3; s++) {
          if (agree_values(smaller[s], old)) continue;
          *leaf[k] = smaller[s];
          int f, g;
          if (differs(ck, c, trial, &f, &g)) {
            memcpy(out, trial, (size_t)ck->n * sizeof *out);
            *first = f, *second = g, changed = true;
            break;
          }
          *leaf[k] = old;
        }
      }
    }
  }
}

static int *index_map(Arena *a, Decl **from, int n, Decl **to, int m) {
  int *map = arena_calloc(a, (size_t)n + 1, sizeof *map);
  for (int i = 0; i < n; i++) map[i] = decl_index(to, m, from[i]->name);
  return map;
}

Agreement agree_check(Arena *a, Program **progs, int n, uint64_t seed, double budget) {
  double start = clock_seconds();
  Checker ck = {a, progs, n, arena_calloc(a, (size_t)n, sizeof(int *)), arena_calloc(a, (size_t)n, sizeof(int *))};
  for (int j = 0; j < n; j++) {
    if (j) check_alike(a, progs[0], progs[j]);
    ck.param_of[j] = index_map(a, progs[0]->params, progs[0]->nparams, progs[j]->params, progs[j]->nparams);
    ck.input_of[j] = index_map(a, progs[0]->inputs, progs[0]->ninputs, progs[j]->inputs, progs[j]->ninputs);
  }
  Agreement r = {.agree = true, .outcomes = arena_calloc(a, (size_t)n, sizeof *r.outcomes)};
  int np = progs[0]->nparams;
  int64_t *params = arena_calloc(a, (size_t)np + 1, sizeof *params);
  uint64_t state = seed;
  // Size points: every param at sizes[k], then (two params or more) mixed ones.
  for (int k = 0; k < NSIZES && r.agree && clock_seconds() - start < budget; k++)
    for (int mix = 0; mix < (np > 1 ? 3 : 1) && r.agree; mix++) {
      for (int i = 0; i < np; i++) params[i] = mix == 0 ? sizes[k] : sizes[random_next(&state) % (uint64_t)(k + 1)];
      if (!inputs_fit(&ck, params)) continue;
      r.points++;
      for (int i = 0; i < np; i++) r.largest = params[i] > r.largest ? params[i] : r.largest;
      for (int mode = 0; mode < NDRAWS && r.agree; mode++)
        for (int s = 0; s < SEEDS_PER_MODE && r.agree; s++) {
          AgreeCase c = make_case(&ck, params, random_next(&state), (Draw)mode);
          r.cases++;
          if (differs(&ck, &c, r.outcomes, &r.first, &r.second)) {
            r.agree = false;
            shrink(&ck, &c, r.outcomes, &r.first, &r.second);
            r.counterexample = c;
          }
        }
    }
  r.seconds = clock_seconds() - start;
  return r;
}

char *agree_case_args(Arena *a, Program *prog, const AgreeCase *c) {
  char *text = params_args(a, prog, c->params);
  for (int i = 0; i < prog->ninputs; i++) {
    char *v = value_to_string(c->inputs[i]);
    text = arena_printf(a, "%s%s--input '%s=%s'", text, *text ? " " : "", prog->inputs[i]->name, v);
    free(v);
  }
  return text;
}
