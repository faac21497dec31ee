// interp.c: the sequential reference interpreter. It defines what every
// program means: the executor and the cost models are checked against it.
#include "eval/eval.h"

#include <string.h>

typedef struct Env Env;
struct Env {
  Node *binder;  // the lambda or let that bound this variable
  Value v;       // its value
  Env *outer;    // enclosing bindings
};

typedef enum { FN_CLOSURE, FN_BUILTIN, FN_OP } FunKind;

struct FunVal {
  FunKind kind;    // closure, builtin or operator
  Node *lam;       // FN_CLOSURE: the lambda
  Env *env;        // FN_CLOSURE: its environment
  Builtin builtin; // FN_BUILTIN: which
  Op op;           // FN_OP: which
  int nargs;       // arguments collected so far (partial application)
  Value args[2];   // those arguments
  Pos pos;         // where the builtin or operator was named, for faults
};

typedef struct Interp {
  Arena *arena;
  Program *prog;
  const int64_t *params;  // by param index
  const Value *inputs;    // by input index
  Value *defs;            // by def index, once evaluated
  bool *def_state;        // by def index: evaluated yet?
  FunVal **named;         // by node id: the builtin or operator named there
} Interp;

static Value eval(Interp *in, Node *n, Env *env);
static Value apply(Interp *in, Value f, Value arg, Pos site);
static Value apply_n(Interp *in, Value f, const Value *args, int n, Pos site);

static Value fun_value(Interp *in, FunKind kind, Pos pos) {
  FunVal *f = arena_alloc(in->arena, sizeof *f);
  f->kind = kind;
  f->pos = pos;
  return (Value){.kind = V_FUN, .fun = f};
}

//
// Scalar operations. Integers wrap modulo 2^64 (no undefined behaviour);
// integer division truncates toward zero; dividing by zero is a fault.
//

static int64_t wrap(uint64_t u) { return (int64_t)u; }

// The comparisons and max/min, alike for ints and floats.
#define ORDERED_CASES(x, y, make)                    \
  case OP_EQ: return value_bool(x == y);             \
  case OP_NE: return value_bool(x != y);             \
  case OP_LT: return value_bool(x < y);              \
  case OP_LE: return value_bool(x <= y);             \
  case OP_GT: return value_bool(x > y);              \
  case OP_GE: return value_bool(x >= y);             \
  case OP_MAX: return make(y > x ? y : x);           \
  case OP_MIN: return make(y < x ? y : x);

static Value int_op(Op op, int64_t x, int64_t y, Pos pos) {
  switch (op) {
  case OP_ADD: return value_int(wrap((uint64_t)x + (uint64_t)y));
  case OP_SUB: return value_int(wrap((uint64_t)x - (uint64_t)y));
  case OP_MUL: return value_int(wrap((uint64_t)x * (uint64_t)y));
  case OP_DIV: case OP_MOD:
    if (y == 0) error_at(pos, "%s by zero", op == OP_DIV ? "division" : "remainder");
    if (y == -1) return value_int(op == OP_DIV ? wrap(0 - (uint64_t)x) : 0);
    return value_int(op == OP_DIV ? x / y : x % y);
  ORDERED_CASES(x, y, value_int)
  default: return value_int(0);
  }
}

static Value float_op(Op op, double x, double y) {
  switch (op) {
  case OP_ADD: return value_float(x + y);
  case OP_SUB: return value_float(x - y);
  case OP_MUL: return value_float(x * y);
  case OP_DIV: return value_float(x / y);
  ORDERED_CASES(x, y, value_float)
  default: return value_float(0);
  }
}

static Value bool_op(Op op, bool x, bool y) {
  switch (op) {
  case OP_AND: return value_bool(x && y);
  case OP_OR: return value_bool(x || y);
  case OP_EQ: return value_bool(x == y);
  case OP_NE: return value_bool(x != y);
  default: return value_bool(false);
  }
}

static Value binary_op(Op op, Value x, Value y, Pos pos) {
  switch (x.kind) {
  case V_INT: return int_op(op, x.i, y.i, pos);
  case V_FLOAT: return float_op(op, x.f, y.f);
  default: return bool_op(op, x.b, y.b);
  }
}

static Value unary_op(Op op, Value x) {
  if (op == OP_NOT) return value_bool(!x.b);
  if (op == OP_FLOAT) return value_float((double)x.i);
  if (x.kind == V_FLOAT) return value_float(-x.f);
  return value_int(wrap(0 - (uint64_t)x.i));
}

//
// Builtins.
//

static Value call2(Interp *in, Value f, Value x, Value y) {
  if (f.fun->kind == FN_OP && f.fun->nargs == 0) return binary_op(f.fun->op, x, y, f.fun->pos);
  Value args[2] = {x, y};
  return apply_n(in, f, args, 2, f.fun->pos);
}

static Value map_values(Interp *in, Value f, Value v) {
  Value r = value_vec(in->arena, v.vec->len);
  for (int64_t i = 0; i < v.vec->len; i++) r.vec->elems[i] = apply(in, f, v.vec->elems[i], f.fun->pos);
  return r;
}

static Value fold_values(Interp *in, Value op, Value v, Pos site) {
  if (v.vec->len == 0) error_at(site, "fold of an empty vector");
  Value acc = v.vec->elems[0];
  for (int64_t i = 1; i < v.vec->len; i++) acc = call2(in, op, acc, v.vec->elems[i]);
  return acc;
}

static Value prefix_values(Interp *in, Value op, Value v) {
  Value r = value_vec(in->arena, v.vec->len);
  for (int64_t i = 0; i < v.vec->len; i++)
    r.vec->elems[i] = i ? call2(in, op, r.vec->elems[i - 1], v.vec->elems[i]) : v.vec->elems[0];
  return r;
}

// pair_map f (a, b), and zip and map2 (name), which are pair_map: f applied
// to the elements of a and b in turn (zip: f is NULL, a pair).
static Value pair_map_values(Interp *in, const char *name, const Value *f, Value av, Value bv, Pos site) {
  VecVal *a = av.vec, *b = bv.vec;
  if (a->len != b->len)
    error_at(site, "%s on vectors of different lengths (%lld and %lld)", name, (long long)a->len, (long long)b->len);
  Value r = value_vec(in->arena, a->len);
  for (int64_t i = 0; i < a->len; i++)
    r.vec->elems[i] = f ? call2(in, *f, a->elems[i], b->elems[i]) : value_pair(in->arena, a->elems[i], b->elems[i]);
  return r;
}

static Value c_prod_values(Interp *in, Value f, Value x, Value y) {
  Value r = value_vec(in->arena, y.vec->len);
  for (int64_t j = 0; j < y.vec->len; j++) {
    Value row = value_vec(in->arena, x.vec->len);
    for (int64_t i = 0; i < x.vec->len; i++)
      row.vec->elems[i] = call2(in, f, x.vec->elems[i], y.vec->elems[j]);
    r.vec->elems[j] = row;
  }
  return r;
}

static Value view(Interp *in, Value *elems, int64_t len) {
  VecVal *v = arena_alloc(in->arena, sizeof *v);
  v->len = len;
  v->elems = elems;
  return (Value){.kind = V_VEC, .vec = v};
}

// inits: segment k is the first k+1 elements; tails: the last k+1.
static Value segments(Interp *in, Value v, bool tails) {
  int64_t n = v.vec->len;
  Value r = value_vec(in->arena, n);
  for (int64_t k = 0; k < n; k++)
    r.vec->elems[k] = view(in, v.vec->elems + (tails ? n - 1 - k : 0), k + 1);
  return r;
}

static Value redconcat_values(Interp *in, Value vs) {
  int64_t total = 0;
  for (int64_t i = 0; i < vs.vec->len; i++) total += vs.vec->elems[i].vec->len;
  Value r = value_vec(in->arena, total);
  int64_t k = 0;
  for (int64_t i = 0; i < vs.vec->len; i++) {
    VecVal *e = vs.vec->elems[i].vec;
    memcpy(r.vec->elems + k, e->elems, (size_t)e->len * sizeof *e->elems);
    k += e->len;
  }
  return r;
}

// The same shape with zeros for data (dummyvec's unspecified contents).
static Value zeroed(Interp *in, Value s) {
  switch (s.kind) {
  case V_INT: return value_int(0);
  case V_FLOAT: return value_float(0);
  case V_BOOL: return value_bool(false);
  case V_PAIR: return value_pair(in->arena, zeroed(in, s.pair->a), zeroed(in, s.pair->b));
  case V_VEC: {
    Value r = value_vec(in->arena, s.vec->len);
    for (int64_t i = 0; i < s.vec->len; i++) r.vec->elems[i] = zeroed(in, s.vec->elems[i]);
    return r;
  }
  case V_FUN: break;
  }
  return s;
}

static Value dummyvec_values(Interp *in, Value spec, Pos site) {
  int64_t n = spec.pair->a.i;
  if (n < 0) error_at(site, "dummyvec of negative length %lld", (long long)n);
  Value elem = zeroed(in, spec.pair->b);
  Value r = value_vec(in->arena, n);
  for (int64_t i = 0; i < n; i++) r.vec->elems[i] = elem;
  return r;
}

// split k v: v in sublists of k elements (views), the last shorter when k
// does not divide v's length.
static Value split_values(Interp *in, int64_t k, Value v, Pos site) {
  if (k < 1) error_at(site, "split into sublists of %lld elements (at least 1)", (long long)k);
  int64_t n = v.vec->len, m = n / k + (n % k != 0);
  Value r = value_vec(in->arena, m);
  for (int64_t j = 0; j < m; j++) r.vec->elems[j] = view(in, v.vec->elems + j * k, j + 1 < m || n % k == 0 ? k : n % k);
  return r;
}

// x <= y on ints or floats (NaN is never <=).
static bool at_most(Value x, Value y) { return x.kind == V_INT ? x.i <= y.i : x.f <= y.f; }

// merge a b: the stable merge of two sorted vectors (ties from a first).
static Value merge_values(Interp *in, Value a, Value b) {
  VecVal *x = a.vec, *y = b.vec;
  Value r = value_vec(in->arena, x->len + y->len);
  for (int64_t i = 0, j = 0; i + j < x->len + y->len;) {
    bool first = i < x->len && (j >= y->len || at_most(x->elems[i], y->elems[j]));
    r.vec->elems[i + j] = first ? x->elems[i] : y->elems[j];
    first ? i++ : j++;
  }
  return r;
}

// neighbours l r v: each element between its left and right neighbours, l
// and r at the ends: (left, (it, right)).
static Value neighbours_values(Interp *in, Value l, Value r, Value v) {
  int64_t n = v.vec->len;
  Value out = value_vec(in->arena, n);
  for (int64_t i = 0; i < n; i++) {
    Value left = i > 0 ? v.vec->elems[i - 1] : l, right = i + 1 < n ? v.vec->elems[i + 1] : r;
    out.vec->elems[i] = value_pair(in->arena, left, value_pair(in->arena, v.vec->elems[i], right));
  }
  return out;
}

static Value reverse_values(Interp *in, Value v) {
  int64_t n = v.vec->len;
  Value r = value_vec(in->arena, n);
  for (int64_t i = 0; i < n; i++) r.vec->elems[i] = v.vec->elems[n - 1 - i];
  return r;
}

// dh f g v: the butterfly of Gorlatch's distributable homomorphism, by
// its definition: dh of a one-element vector is itself; of u ++ w (halves),
// [f u'0 w'0, ..., f u'k w'k] ++ [g u'0 w'0, ..., g u'k w'k] with u' = dh u and
// w' = dh w. Unfolded: stages of distance d = 1, 2, 4, ..., each element i
// without bit d combined with i + d (docs/language.md).
static Value dh_values(Interp *in, Value f, Value g, Value v, Pos site) {
  int64_t n = v.vec->len;
  if (n <= 0 || (n & (n - 1)))
    error_at(site, "dh of a vector of length %lld, which is not a power of two", (long long)n);
  Value r = v;
  for (int64_t d = 1; d < n; d *= 2) {
    Value t = value_vec(in->arena, n);
    for (int64_t i = 0; i < n; i++) {
      if (i & d) continue;
      Value x = r.vec->elems[i], y = r.vec->elems[i + d];
      t.vec->elems[i] = call2(in, f, x, y);
      t.vec->elems[i + d] = call2(in, g, x, y);
    }
    r = t;
  }
  return r;
}

static Value iota_values(Interp *in, int64_t n, Pos site) {
  if (n < 0) error_at(site, "iota of negative length %lld", (long long)n);
  Value r = value_vec(in->arena, n);
  for (int64_t i = 0; i < n; i++) r.vec->elems[i] = value_int(i);
  return r;
}

static Value iter_values(Interp *in, Value f, Value x, int64_t k, Pos site) {
  if (k < 0) error_at(site, "iter with a negative count (%lld)", (long long)k);
  for (int64_t i = 0; i < k; i++) x = apply(in, f, x, f.fun->pos);
  return x;
}

static Value entry_value(Value v, int64_t i, Pos site) {
  if (i < 0 || i >= v.vec->len)
    error_at(site, "entry: index %lld is out of range for a vector of length %lld", (long long)i,
             (long long)v.vec->len);
  return v.vec->elems[i];
}

static Value nonempty(Value v, const char *what, Pos site) {
  if (v.vec->len == 0) error_at(site, "%s of an empty vector", what);
  return v;
}

// All arguments present: a is the earlier ones, x the last.
static Value run_builtin(Interp *in, Builtin b, const Value *a, Value x, Pos site) {
  switch (b) {
  case B_MAP: return map_values(in, a[0], x);
  case B_FOLD: return fold_values(in, a[0], x, site);
  case B_PREFIX: return prefix_values(in, a[0], x);
  case B_PAIR_MAP: return pair_map_values(in, "pair_map", &a[0], x.pair->a, x.pair->b, site);
  case B_ZIP: return pair_map_values(in, "zip", NULL, a[0], x, site);
  case B_MAP2: return pair_map_values(in, "map2", &a[0], a[1], x, site);
  case B_SPLIT: return split_values(in, a[0].i, x, site);
  case B_MERGE: return merge_values(in, a[0], x);
  case B_NEIGHBOURS: return neighbours_values(in, a[0], a[1], x);
  case B_REVERSE: return reverse_values(in, x);
  case B_DH: return dh_values(in, a[0], a[1], x, site);
  case B_C_PROD: return c_prod_values(in, a[0], a[1], x);
  case B_ITER: return iter_values(in, a[0], a[1], x.i, site);
  case B_INITS: return segments(in, x, false);
  case B_TAILS: return segments(in, x, true);
  case B_REDCONCAT: return redconcat_values(in, x);
  case B_LENGTH: return value_int(x.vec->len);
  case B_ENTRY: return entry_value(a[0], x.i, site);
  case B_HD: return nonempty(x, "hd", site).vec->elems[0];
  case B_TL: {
    VecVal *v = nonempty(x, "tl", site).vec;
    return view(in, v->elems + 1, v->len - 1);
  }
  case B_PAIR: return value_pair(in->arena, a[0], x);
  case B_FST: return x.pair->a;
  case B_SND: return x.pair->b;
  case B_DUMMYVEC: return dummyvec_values(in, x, site);
  case B_FLOAT: return unary_op(OP_FLOAT, x);
  case B_IOTA: return iota_values(in, x.i, site);
  case B_COUNT_: break;
  }
  return x;
}

// Applies f to args[0..n), binding the parameters of nested lambdas and
// saturating builtins directly, without building partial applications.
static Value apply_n(Interp *in, Value f, const Value *args, int n, Pos site) {
  while (n > 0) {
    FunVal *fn = f.fun;
    if (fn->kind == FN_CLOSURE) {
      Node *lam = fn->lam;
      Env *env = fn->env;
      do {
        Env *e = arena_alloc(in->arena, sizeof *e);
        *e = (Env){lam, *args++, env};
        env = e;
        lam = lam->body;
        n--;
      } while (n > 0 && lam->kind == N_LAM);
      if (lam->kind == N_LAM && n == 0) {  // still a function: a closure over env
        f = fun_value(in, FN_CLOSURE, lam->pos);
        f.fun->lam = lam;
        f.fun->env = env;
        return f;
      }
      f = eval(in, lam, env);
      continue;
    }
    int arity = fn->kind == FN_OP ? 2 : builtin_arity(fn->builtin);
    if (fn->nargs + n < arity) {
      Value g = fun_value(in, fn->kind, fn->nargs ? fn->pos : site);
      *g.fun = *fn;
      while (n > 0) g.fun->args[g.fun->nargs++] = (n--, *args++);
      return g;
    }
    Value all[3];
    int have = fn->nargs;
    memcpy(all, fn->args, (size_t)have * sizeof *all);
    while (have < arity - 1) all[have++] = (n--, *args++);
    Value last = *args++;
    n--;
    f = fn->kind == FN_OP ? binary_op(fn->op, all[0], last, site)
                          : run_builtin(in, fn->builtin, all, last, site);
  }
  return f;
}

static Value apply(Interp *in, Value f, Value arg, Pos site) { return apply_n(in, f, &arg, 1, site); }

//
// Expressions.
//

// A builtin or operator named at n: immutable, so one value per occurrence.
static Value named_function(Interp *in, Node *n, FunKind kind) {
  FunVal **slot = &in->named[n->id];
  if (!*slot) {
    Value f = fun_value(in, kind, n->pos);
    f.fun->builtin = n->builtin;
    f.fun->op = n->op;
    *slot = f.fun;
  }
  return (Value){.kind = V_FUN, .fun = *slot};
}

static Value eval_var(Interp *in, Node *n, Env *env) {
  switch (n->ref) {
  case REF_LOCAL:
    for (Env *e = env; e; e = e->outer)
      if (e->binder == n->binder) return e->v;
    break;
  case REF_PARAM: return value_int(in->params[n->decl->index]);
  case REF_INPUT: return in->inputs[n->decl->index];
  case REF_DEF: {
    int k = n->decl->index;
    if (!in->def_state[k]) {
      in->defs[k] = eval(in, n->decl->body, NULL);
      in->def_state[k] = true;
    }
    return in->defs[k];
  }
  case REF_BUILTIN: return named_function(in, n, FN_BUILTIN);
  }
  error_at(n->pos, "internal error: unbound variable '%s'", n->name);
}

enum { MAX_SPINE = 8 };

// f a b c: evaluates the arguments left to right, then applies at once.
static Value eval_app(Interp *in, Node *n, Env *env) {
  Node *spine[MAX_SPINE];
  int count = 0;
  Node *head = n;
  while (head->kind == N_APP && count < MAX_SPINE) {
    spine[count++] = head;
    head = head->lhs;
  }
  Value f = eval(in, head, env);
  Value args[MAX_SPINE];
  for (int i = 0; i < count; i++) args[i] = eval(in, spine[count - 1 - i]->rhs, env);
  return apply_n(in, f, args, count, n->pos);
}

static Value eval(Interp *in, Node *n, Env *env) {
  switch (n->kind) {
  case N_INT: return value_int(n->ival);
  case N_FLOAT: return value_float(n->fval);
  case N_BOOL: return value_bool(n->ival);
  case N_VAR: return eval_var(in, n, env);
  case N_OPFN: return named_function(in, n, FN_OP);
  case N_LAM: {
    Value f = fun_value(in, FN_CLOSURE, n->pos);
    f.fun->lam = n;
    f.fun->env = env;
    return f;
  }
  case N_APP: return eval_app(in, n, env);
  case N_LET: {
    Env *inner = arena_alloc(in->arena, sizeof *inner);
    *inner = (Env){n, eval(in, n->init, env), env};
    return eval(in, n->body, inner);
  }
  case N_IF: return eval(in, eval(in, n->cond, env).b ? n->then_ : n->else_, env);
  case N_IFS: return eval(in, eval(in, n->cond, env).i != 0 ? n->then_ : n->else_, env);
  case N_BINOP: {
    Value x = eval(in, n->lhs, env);
    if (n->op == OP_AND && !x.b) return x;  // && and || short-circuit
    if (n->op == OP_OR && x.b) return x;
    return binary_op(n->op, x, eval(in, n->rhs, env), n->pos);
  }
  case N_UNOP: return unary_op(n->op, eval(in, n->lhs, env));
  case N_PAIR: {
    Value x = eval(in, n->lhs, env);
    return value_pair(in->arena, x, eval(in, n->rhs, env));
  }
  case N_VEC: {
    Value r = value_vec(in->arena, n->nelems);
    for (int i = 0; i < n->nelems; i++) r.vec->elems[i] = eval(in, n->elems[i], env);
    return r;
  }
  }
  return value_int(0);
}

static Interp make_interp(Arena *a, Program *prog, const int64_t *params, const Value *inputs) {
  Interp in = {.arena = a, .prog = prog, .params = params, .inputs = inputs};
  in.defs = arena_calloc(a, (size_t)prog->ndefs + 1, sizeof *in.defs);
  in.def_state = arena_calloc(a, (size_t)prog->ndefs + 1, sizeof *in.def_state);
  in.named = arena_calloc(a, (size_t)prog->nnodes + 1, sizeof *in.named);
  return in;
}

Value interp_run(Arena *a, Program *prog, const int64_t *params, const Value *inputs) {
  Interp in = make_interp(a, prog, params, inputs);
  return eval(&in, prog->main->body, NULL);
}

Value interp_apply(Arena *a, Program *prog, const int64_t *params, Node *fn, const Value *args, int nargs) {
  Interp in = make_interp(a, prog, params, NULL);
  return apply_n(&in, eval(&in, fn, NULL), args, nargs, fn->pos);
}

Value interp_eval_closed(Arena *a, Program *prog, const int64_t *params, Node *n) {
  Interp in = make_interp(a, prog, params, NULL);
  return eval(&in, n, NULL);
}
