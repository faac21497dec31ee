// laws.c: the laws a program relies on, tested on random values. A fold
// or prefix combines its elements in whatever order its parallel plan
// chooses: its operator must be associative, or the program means
// different things on different numbers of processes.
#include "derive/derive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Trials per operator; the length of the vectors an operator on vectors
// combines; the value of a param an operator reads when none is given.
enum { LAW_TRIALS = 300, VEC_LENGTH = 3, LAW_PARAM = 5 };

// Does an operator read only its own variables, params, literals and defs
// that do the same (no input, nothing bound outside it)?
typedef struct Closure {
  Node *root;     // the operator
  bool *visited;  // by def index
} Closure;

static bool closed(Closure *c, Node *n) {
  if (n->kind == N_VAR) {
    switch (n->ref) {
    case REF_LOCAL: return node_within(c->root, n->binder);
    case REF_INPUT: return false;
    case REF_DEF:
      if (c->visited[n->decl->index]) return true;
      c->visited[n->decl->index] = true;
      Closure inner = {n->decl->body, c->visited};
      return closed(&inner, n->decl->body);
    default: return true;
    }
  }
  Node *kid;
  for (int i = 0; (kid = node_kid(n, i)); i++)
    if (!closed(c, kid)) return false;
  return true;
}

// A random value of type t (vectors of VEC_LENGTH), or false if t is not
// a data type (a function, a type variable).
static bool random_of(Arena *a, Type *t, uint64_t *state, bool small, Value *out) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_INT: {
    int64_t v = random_int(state);
    *out = value_int(small ? v % 4 : v);
    return true;
  }
  case T_FLOAT: *out = value_float(small ? round(4 * random_float(state)) : 100 * random_float(state)); return true;
  case T_BOOL: *out = value_bool(random_bool(state)); return true;
  case T_PAIR: {
    Value x, y;
    if (!random_of(a, t->a, state, small, &x) || !random_of(a, t->b, state, small, &y)) return false;
    *out = value_pair(a, x, y);
    return true;
  }
  case T_VEC:
    *out = value_vec(a, VEC_LENGTH);
    for (int i = 0; i < VEC_LENGTH; i++)
      if (!random_of(a, t->a, state, small, &out->vec->elems[i])) return false;
    return true;
  default: return false;
  }
}

// The two sides of a law on the values v (ops: its one or two operators).
typedef struct Law {
  Arena *arena;
  Program *prog;
  const int64_t *params;
  Node *ops[2];
} Law;

static Value apply2(Law *law, int op, Value x, Value y) {
  return interp_apply(law->arena, law->prog, law->params, law->ops[op], (Value[]){x, y}, 2);
}

// op (op a b) c and op a (op b c).
static void associativity(Law *law, const Value v[3], Value out[2]) {
  out[0] = apply2(law, 0, apply2(law, 0, v[0], v[1]), v[2]);
  out[1] = apply2(law, 0, v[0], apply2(law, 0, v[1], v[2]));
}

// times over plus, on both sides: (a plus b) times c against (a times c)
// plus (b times c), then c times (a plus b) against (c times a) plus (c times b).
static void distributivity(Law *law, const Value v[3], Value out[2]) {
  out[0] = apply2(law, 0, apply2(law, 1, v[0], v[1]), v[2]);
  out[1] = apply2(law, 1, apply2(law, 0, v[0], v[2]), apply2(law, 0, v[1], v[2]));
  if (!agree_values(out[0], out[1])) return;
  out[0] = apply2(law, 0, v[2], apply2(law, 1, v[0], v[1]));
  out[1] = apply2(law, 1, apply2(law, 0, v[2], v[0]), apply2(law, 0, v[2], v[1]));
}

typedef struct Trial {
  Law *law;
  void (*sides)(Law *, const Value *, Value *);
  const Value *v;
  Value *out;
} Trial;

static void try_sides(void *ctx) {
  Trial *t = ctx;
  t->sides(t->law, t->v, t->out);
}

// Do the two sides agree on v? A fault (a division by zero) is no
// counterexample: the trial is skipped.
static bool holds_on(Law *law, void (*sides)(Law *, const Value *, Value *), const Value v[3], Value out[2]) {
  Trial t = {law, sides, v, out};
  return !diag_attempt(try_sides, &t, true) || agree_values(out[0], out[1]);
}

static bool is_closed(Arena *a, Program *prog, Node *op) {
  Closure c = {op, arena_calloc(a, (size_t)prog->ndefs + 1, sizeof(bool))};
  return closed(&c, op);
}

// A counterexample to the law among LAW_TRIALS random triples of the
// operators' argument type (small values first: they read best), or false.
static bool counterexample(Law *law, void (*sides)(Law *, const Value *, Value *), uint64_t seed, Value v[3],
                           Value out[2]) {
  Type *t = type_resolve(law->ops[0]->ty);
  if (t->kind != T_FUN) return false;
  uint64_t state = seed;
  for (int trial = 0; trial < LAW_TRIALS; trial++) {
    for (int k = 0; k < 3; k++)
      if (!random_of(law->arena, t->a, &state, trial < LAW_TRIALS / 2, &v[k])) return false;
    if (!holds_on(law, sides, v, out)) return true;
  }
  return false;
}

bool laws_distribute(Arena *a, Program *prog, Node *times, Node *plus) {
  if (!is_closed(a, prog, times) || !is_closed(a, prog, plus)) return false;
  int64_t *params = arena_calloc(a, (size_t)prog->nparams + 1, sizeof *params);
  for (int i = 0; i < prog->nparams; i++) params[i] = LAW_PARAM;
  Law law = {a, prog, params, {times, plus}};
  Value v[3], out[2];
  return !counterexample(&law, distributivity, 0xd157ull, v, out);
}

static void check_operator(Arena *a, Program *prog, const int64_t *params, Builtin b, Node *app, Node *op,
                           LawReport *report) {
  if (!is_closed(a, prog, op)) return;  // it reads data of the program: tested where it is used, not here
  Law law = {a, prog, params, {op, NULL}};
  Value v[3], out[2];
  if (counterexample(&law, associativity, 0x5eed0fa55ull ^ (uint64_t)app->id, v, out)) {
    char *args = "";
    for (int k = 0; k < 3; k++) {
      char *s = value_to_string(v[k]);
      args = arena_printf(a, "%s%s%c = %s", args, k ? ", " : "", "abc"[k], s);
      free(s);
    }
    char *l = value_to_string(out[0]), *r = value_to_string(out[1]);
    char *text = arena_printf(a,
                              "the operator given to %s is not associative, so its result depends on how the "
                              "elements are grouped, that is on the number of processes: with %s, "
                              "f (f a b) c = %s but f a (f b c) = %s",
                              builtin_name(b), args, l, r);
    free(l), free(r);
    LawViolation *v = arena_alloc(a, sizeof *v);
    *v = (LawViolation){op->pos, text};
    ptrvec_push(a, &report->violations, v);
    return;
  }
  report->checked++;
}

typedef struct Checks {
  Arena *arena;
  Program *prog;
  const int64_t *params;
  LawReport *report;
} Checks;

// A fold or prefix given its operator (whether or not its vector follows).
static void check_node(Node *n, void *ctx) {
  Checks *c = ctx;
  static const Builtin combining[] = {B_FOLD, B_PREFIX};
  Node *op;
  for (size_t k = 0; k < sizeof combining / sizeof *combining; k++)
    if (node_applies(n, combining[k], 1, &op)) check_operator(c->arena, c->prog, c->params, combining[k], n, op, c->report);
}

void laws_print(const LawReport *report, bool strict) {
  for (int i = 0; i < report->violations.len; i++) {
    const LawViolation *v = report->violations.data[i];
    if (strict) error_at(v->where, "%s", v->text);
    warn_at(v->where, "%s", v->text);
  }
}

LawReport laws_check(Arena *a, Program *prog, const int64_t *params) {
  LawReport report = {0};
  int64_t *bound = arena_calloc(a, (size_t)prog->nparams + 1, sizeof *bound);
  for (int i = 0; i < prog->nparams; i++) bound[i] = params ? params[i] : LAW_PARAM;
  Checks c = {a, prog, bound, &report};
  for (int d = 0; d < prog->ndefs; d++) node_visit(prog->defs[d]->body, check_node, &c);
  node_visit(prog->main->body, check_node, &c);
  return report;
}
