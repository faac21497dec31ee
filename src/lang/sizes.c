// sizes.c: checks that data never decides a shape. Sizes (type sz) are the
// ints known before any data is read: literals, parameters, lengths and
// arithmetic on them. The count of iter, the length given to dummyvec and
// the condition of ifs must be sizes. The check is an abstract
// interpretation in which every int is either a size or data; with no
// recursion in the language it always terminates.
#include "lang/lang.h"

typedef enum {
  BT_NONE,  // no value: the elements of an empty vector, of any shape
  BT_LIT,   // an integer literal: a size, printed as int
  BT_SIZE,  // derived from a parameter or a length: sz
  BT_DATA,  // depends on data
  BT_PAIR,  // a, b
  BT_VEC,   // elements a (its length is always a size)
  BT_FUN,   // a function value, see below
} BtKind;

typedef struct BtEnv BtEnv;
typedef struct BtVal BtVal;

struct BtVal {
  BtKind kind;       // what it is
  BtVal *a, *b;      // BT_PAIR components, BT_VEC element; choice alternatives
  Node *lam;         // closure: the lambda (NULL otherwise)
  BtEnv *env;        // closure: its environment
  bool is_builtin;   // a builtin applied to nargs arguments
  Builtin builtin;   // which builtin
  bool is_op;        // an operator applied to nargs arguments
  Op op;             // which operator
  bool is_choice;    // either a or b, chosen by a size (from ifs)
  int nargs;         // arguments collected so far
  BtVal *args[3];    // their values
  Pos argpos[3];     // their positions, for messages
};

struct BtEnv {
  Node *binder;   // the lambda or let binding this variable
  BtVal *val;     // its value
  BtEnv *outer;
};

typedef struct Checker {
  Arena *arena;
  Program *prog;
  BtVal **def_vals;  // value of each def, by index
} Checker;

static BtVal scalar_vals[] = {{.kind = BT_NONE}, {.kind = BT_LIT}, {.kind = BT_SIZE}, {.kind = BT_DATA}};
static BtVal *const NONE = &scalar_vals[0], *const LIT = &scalar_vals[1], *const SIZE = &scalar_vals[2],
             *const DATA = &scalar_vals[3];

static BtVal *new_val(Checker *c, BtKind kind, BtVal *a, BtVal *b) {
  BtVal *v = arena_alloc(c->arena, sizeof *v);
  v->kind = kind;
  v->a = a;
  v->b = b;
  return v;
}

static bool is_scalar(BtVal *v) { return v->kind <= BT_DATA; }

// A component of a pair (which 0 or 1) or the element of a vector (0): of
// no value none, of a value known only as data, data.
static BtVal *part(BtVal *v, int which) {
  if (is_scalar(v)) return v->kind == BT_NONE ? NONE : DATA;
  return which ? v->b : v->a;
}

// The least value above both (a choice between them, for functions).
static BtVal *join(Checker *c, BtVal *x, BtVal *y) {
  if (x == y || y == NONE) return x;
  if (x == NONE) return y;
  if (is_scalar(x) && is_scalar(y)) return x->kind > y->kind ? x : y;
  if (x->kind == BT_PAIR && y->kind == BT_PAIR)
    return new_val(c, BT_PAIR, join(c, x->a, y->a), join(c, x->b, y->b));
  if (x->kind == BT_VEC && y->kind == BT_VEC) return new_val(c, BT_VEC, join(c, x->a, y->a), NULL);
  BtVal *v = new_val(c, BT_FUN, x, y);
  v->is_choice = true;
  return v;
}

// The same structure with every scalar made data (chosen by data).
static BtVal *taint(Checker *c, BtVal *v) {
  if (v->kind == BT_NONE) return NONE;
  if (is_scalar(v)) return DATA;
  if (v->kind == BT_FUN) return v;
  return new_val(c, v->kind, taint(c, v->a), v->b ? taint(c, v->b) : NULL);
}

static bool is_static(BtVal *v) { return v->kind <= BT_SIZE; }

// Equal as values of the lattice: scalars by kind, pairs and vectors by
// their parts; functions only when they are the same closure.
static bool same_val(BtVal *x, BtVal *y) {
  if (x == y) return true;
  if (x->kind != y->kind || x->kind == BT_FUN) return false;
  if (is_scalar(x)) return true;
  return same_val(x->a, y->a) && (x->kind != BT_PAIR || same_val(x->b, y->b));
}

static BtVal *eval(Checker *c, Node *n, BtEnv *env);
static BtVal *apply(Checker *c, BtVal *f, BtVal *arg, Pos argpos);

static BtVal *apply2(Checker *c, BtVal *f, BtVal *x, BtVal *y, Pos pos) {
  return apply(c, apply(c, f, x, pos), y, pos);
}

// Repeats r := r join f r until nothing changes (two rounds suffice on this
// lattice; at most four are taken). A round that changes nothing ends it:
// each round applies f, and an iter in a function iterated itself would
// otherwise cost 4^depth rounds.
static BtVal *fixpoint(Checker *c, BtVal *r, BtVal *(*step)(Checker *, BtVal *, BtVal *, Pos),
                       BtVal *f, Pos pos) {
  for (int i = 0; i < 4; i++) {
    BtVal *next = join(c, r, step(c, f, r, pos));
    if (same_val(next, r)) break;
    r = next;
  }
  return r;
}

static BtVal *fold_step(Checker *c, BtVal *op, BtVal *r, Pos pos) { return apply2(c, op, r, r, pos); }
static BtVal *iter_step(Checker *c, BtVal *f, BtVal *r, Pos pos) { return apply(c, f, r, pos); }

// dh's two operators, f a pair of them (a BT_PAIR of functions).
static BtVal *dh_step(Checker *c, BtVal *f, BtVal *r, Pos pos) {
  return join(c, apply2(c, f->a, r, r, pos), apply2(c, f->b, r, r, pos));
}

static void require_size(BtVal *v, Pos pos, const char *what) {
  if (!is_static(v))
    error_at(pos, "%s must be a size (sz: a literal, parameter or length, known before "
                  "any data), but it depends on data",
             what);
}

static BtVal *run_builtin(Checker *c, BtVal *f) {
  BtVal **a = f->args;
  Pos *pos = f->argpos;
  switch (f->builtin) {
  case B_MAP: return new_val(c, BT_VEC, apply(c, a[0], part(a[1], 0), pos[0]), NULL);
  case B_FOLD: return fixpoint(c, part(a[1], 0), fold_step, a[0], pos[0]);
  case B_PREFIX: return new_val(c, BT_VEC, fixpoint(c, part(a[1], 0), fold_step, a[0], pos[0]), NULL);
  case B_PAIR_MAP:
    return new_val(c, BT_VEC, apply2(c, a[0], part(part(a[1], 0), 0), part(part(a[1], 1), 0), pos[0]), NULL);
  case B_C_PROD: {
    BtVal *r = apply2(c, a[0], part(a[1], 0), part(a[2], 0), pos[0]);
    return new_val(c, BT_VEC, new_val(c, BT_VEC, r, NULL), NULL);
  }
  case B_ITER:
    require_size(a[2], pos[2], "the count of 'iter'");
    return fixpoint(c, a[1], iter_step, a[0], pos[0]);
  case B_INITS: case B_TAILS: return new_val(c, BT_VEC, a[0], NULL);
  case B_REDCONCAT: return part(a[0], 0);
  case B_LENGTH: return SIZE;
  case B_ENTRY: case B_HD: return part(a[0], 0);
  case B_TL: return a[0];
  case B_PAIR: return new_val(c, BT_PAIR, a[0], a[1]);
  case B_FST: return part(a[0], 0);
  case B_SND: return part(a[0], 1);
  case B_DUMMYVEC:
    require_size(part(a[0], 0), pos[0], "the length given to 'dummyvec'");
    return new_val(c, BT_VEC, taint(c, part(a[0], 1)), NULL);
  case B_FLOAT: return DATA;
  case B_ZIP: return new_val(c, BT_VEC, new_val(c, BT_PAIR, part(a[0], 0), part(a[1], 0)), NULL);
  case B_MAP2: return new_val(c, BT_VEC, apply2(c, a[0], part(a[1], 0), part(a[2], 0), pos[0]), NULL);
  case B_SPLIT:
    require_size(a[0], pos[0], "the length of the sublists of 'split'");
    return new_val(c, BT_VEC, a[1], NULL);
  case B_MERGE: return new_val(c, BT_VEC, join(c, part(a[0], 0), part(a[1], 0)), NULL);
  case B_NEIGHBOURS: {  // the ends' values, and the elements, in every position
    BtVal *e = join(c, join(c, a[0], a[1]), part(a[2], 0));
    return new_val(c, BT_VEC, new_val(c, BT_PAIR, e, new_val(c, BT_PAIR, e, e)), NULL);
  }
  case B_REVERSE: return a[0];
  case B_DH: return new_val(c, BT_VEC, fixpoint(c, part(a[2], 0), dh_step, new_val(c, BT_PAIR, a[0], a[1]), pos[0]), NULL);
  case B_IOTA:  // its elements are data: [0, ..., n-1] would be n shapes
    require_size(a[0], pos[0], "the length given to 'iota'");
    return new_val(c, BT_VEC, DATA, NULL);
  case B_COUNT_: break;
  }
  return DATA;
}

static BtVal *op_result(Op op, BtVal *x, BtVal *y) {
  switch (op) {
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_MOD: case OP_MAX: case OP_MIN:
    return x->kind > y->kind ? x : y;
  case OP_NEG: return x;
  default: return DATA;  // booleans are never sizes
  }
}

static BtVal *apply(Checker *c, BtVal *f, BtVal *arg, Pos argpos) {
  if (f->is_choice) return join(c, apply(c, f->a, arg, argpos), apply(c, f->b, arg, argpos));
  if (f->lam) {
    BtEnv *env = arena_alloc(c->arena, sizeof *env);
    *env = (BtEnv){f->lam, arg, f->env};
    return eval(c, f->lam->body, env);
  }
  BtVal *g = new_val(c, BT_FUN, NULL, NULL);
  *g = *f;
  g->args[g->nargs] = arg;
  g->argpos[g->nargs++] = argpos;
  if (g->is_op) return g->nargs == 2 ? op_result(g->op, g->args[0], g->args[1]) : g;
  return g->nargs == builtin_arity(g->builtin) ? run_builtin(c, g) : g;
}

static BtVal *input_val(Checker *c, InputType *t) {
  switch (t->kind) {
  case IT_PAIR: return new_val(c, BT_PAIR, input_val(c, t->a), input_val(c, t->b));
  case IT_VEC: return new_val(c, BT_VEC, input_val(c, t->a), NULL);
  default: return DATA;
  }
}

static BtVal *eval_var(Checker *c, Node *n, BtEnv *env) {
  switch (n->ref) {
  case REF_LOCAL:
    for (BtEnv *e = env; e; e = e->outer)
      if (e->binder == n->binder) return e->val;
    return DATA;  // unreachable: names are resolved
  case REF_PARAM: return SIZE;
  case REF_INPUT: return input_val(c, n->decl->itype);
  case REF_DEF: return c->def_vals[n->decl->index];
  case REF_BUILTIN: {
    BtVal *f = new_val(c, BT_FUN, NULL, NULL);
    f->is_builtin = true;
    f->builtin = n->builtin;
    return f;
  }
  }
  return DATA;
}

static BtVal *eval(Checker *c, Node *n, BtEnv *env) {
  switch (n->kind) {
  case N_INT: return LIT;
  case N_FLOAT: case N_BOOL: return DATA;
  case N_VAR: return eval_var(c, n, env);
  case N_OPFN: {
    BtVal *f = new_val(c, BT_FUN, NULL, NULL);
    f->is_op = true;
    f->op = n->op;
    return f;
  }
  case N_LAM: {
    BtVal *f = new_val(c, BT_FUN, NULL, NULL);
    f->lam = n;
    f->env = env;
    return f;
  }
  case N_APP: return apply(c, eval(c, n->lhs, env), eval(c, n->rhs, env), n->rhs->pos);
  case N_LET: {
    BtEnv *inner = arena_alloc(c->arena, sizeof *inner);
    *inner = (BtEnv){n, eval(c, n->init, env), env};
    return eval(c, n->body, inner);
  }
  case N_IF: {
    BtVal *cond = eval(c, n->cond, env);
    BtVal *r = join(c, eval(c, n->then_, env), eval(c, n->else_, env));
    return is_static(cond) ? r : taint(c, r);
  }
  case N_IFS:
    require_size(eval(c, n->cond, env), n->cond->pos, "the condition of 'ifs'");
    return join(c, eval(c, n->then_, env), eval(c, n->else_, env));
  case N_BINOP: return op_result(n->op, eval(c, n->lhs, env), eval(c, n->rhs, env));
  case N_UNOP: return op_result(n->op, eval(c, n->lhs, env), DATA);
  case N_PAIR: return new_val(c, BT_PAIR, eval(c, n->lhs, env), eval(c, n->rhs, env));
  case N_VEC: {
    BtVal *e = n->nelems ? eval(c, n->elems[0], env) : NONE;
    for (int i = 1; i < n->nelems; i++) e = join(c, e, eval(c, n->elems[i], env));
    return new_val(c, BT_VEC, e, NULL);
  }
  }
  return DATA;
}

// The type of main, with sz where its value is a size.
static char *type_with_sizes(Arena *a, Type *t, BtVal *v) {
  t = type_resolve(t);
  if (t->kind == T_INT && v->kind == BT_SIZE) return "sz";
  if (t->kind == T_PAIR && v->kind == BT_PAIR)
    return arena_printf(a, "(%s, %s)", type_with_sizes(a, t->a, v->a), type_with_sizes(a, t->b, v->b));
  return type_to_string(a, t);
}

char *check_sizes(Program *prog) {
  Checker c = {.arena = prog->arena, .prog = prog};
  c.def_vals = arena_calloc(prog->arena, (size_t)prog->ndefs + 1, sizeof *c.def_vals);
  for (int i = 0; i < prog->ndefs; i++) c.def_vals[i] = eval(&c, prog->defs[i]->body, NULL);
  BtVal *v = eval(&c, prog->main->body, NULL);
  return type_with_sizes(prog->arena, prog->main->type, v);
}
