// eval.c: the abstract interpreter at the heart of the analysis. Values
// are shapes; functions are closures and partial applications. At top level
// (process 0) skeletons run in parallel and their costs become supersteps;
// in local mode (inside the function of a skeleton) everything is sequential and costs are returned. Local
// applications are memoised on (function, argument), both hash-consed, so
// the analysis costs time in proportion to the distinct shapes it meets.
#include "cost/costint.h"

#include <stdio.h>
#include <string.h>

typedef struct Env {
  Node *binder;       // the N_LAM or N_LET binding the variable
  Shape *val;         // its value
  struct Env *outer;  // enclosing bindings
} Env;

static Env *bind(Analysis *a, Env *outer, Node *binder, Shape *val) {
  Env *e = arena_alloc(a->arena, sizeof *e);
  *e = (Env){binder, val, outer};
  return e;
}

static Env *lookup(Env *env, Node *binder) {
  for (; env; env = env->outer)
    if (env->binder == binder) return env;
  error_at(binder->pos, "internal error: unbound variable '%s'", binder->name);
}

//
// Preparation: what every lambda captures (local variables, inputs and data defs).
//

typedef struct Scope {
  Node *binder;         // N_LAM or N_LET
  struct Scope *outer;  // enclosing binders
} Scope;

static void add_unique(Arena *ar, PtrVec *v, void *p) {
  for (int i = 0; i < v->len; i++)
    if (v->data[i] == p) return;
  ptrvec_push(ar, v, p);
}

// Every lambda between the use and binder (NULL: a global) captures it.
static void note_capture(Analysis *a, Scope *sc, Node *binder, PtrVec *globals) {
  for (Scope *s = sc; s && s->binder != binder; s = s->outer) {
    if (s->binder->kind != N_LAM) continue;
    FunInfo *f = &a->fun[s->binder->id];
    if (binder) add_unique(a->arena, &f->captured, binder);
    for (int i = 0; globals && i < globals->len; i++) add_unique(a->arena, &f->globals, globals->data[i]);
  }
}

static bool is_data_def(Decl *d) { return d->kind == D_DEF && type_is_data(d->type); }

// The globals a use of a name brings: an input or a data def itself, or
// those of a function def.
static void use_global(Analysis *a, Node *n, Scope *sc, PtrVec *decl_globals) {
  PtrVec one = {0}, *globals = &one;
  if (n->ref == REF_DEF && !is_data_def(n->decl)) globals = &a->def_globals[n->decl->index];
  else ptrvec_push(a->arena, &one, n->decl);
  note_capture(a, sc, NULL, globals);
  for (int i = 0; i < globals->len; i++) add_unique(a->arena, decl_globals, globals->data[i]);
}

static void prepare(Analysis *a, Node *n, Scope *sc, PtrVec *decl_globals) {
  if (!n) return;
  switch (n->kind) {
  case N_VAR:
    if (n->ref == REF_LOCAL) note_capture(a, sc, n->binder, NULL);
    else if (n->ref == REF_INPUT || n->ref == REF_DEF) use_global(a, n, sc, decl_globals);
    return;
  case N_LAM: {
    Scope inner = {n, sc};
    prepare(a, n->body, &inner, decl_globals);
    return;
  }
  case N_LET: {
    prepare(a, n->init, sc, decl_globals);
    Scope inner = {n, sc};
    prepare(a, n->body, &inner, decl_globals);
    return;
  }
  default:
    prepare(a, n->lhs, sc, decl_globals);
    prepare(a, n->rhs, sc, decl_globals);
    prepare(a, n->cond, sc, decl_globals);
    prepare(a, n->then_, sc, decl_globals);
    prepare(a, n->else_, sc, decl_globals);
    for (int i = 0; i < n->nelems; i++) prepare(a, n->elems[i], sc, decl_globals);
  }
}

void eval_prepare(Analysis *a) {
  Program *prog = a->prog;
  a->fun = arena_calloc(a->arena, (size_t)prog->nnodes + 1, sizeof *a->fun);
  a->def_globals = arena_calloc(a->arena, (size_t)prog->ndefs + 1, sizeof *a->def_globals);
  a->def_vals = arena_calloc(a->arena, (size_t)prog->ndefs + 1, sizeof *a->def_vals);
  for (int i = 0; i < prog->ndefs; i++) prepare(a, prog->defs[i]->body, NULL, &a->def_globals[i]);
  PtrVec main_globals = {0};
  prepare(a, prog->main->body, NULL, &main_globals);
}

//
// Closures: the values a function carries when a skeleton sends it.
//

// A data def is evaluated once, at top level, when first needed.
static Shape *def_value(Analysis *a, Decl *d) {
  int i = d->index;
  if (!a->def_vals[i]) a->def_vals[i] = eval_force(a, eval_expr(a, d->body, NULL, EVAL_TOP));
  return a->def_vals[i];
}

static Shape *global_value(Analysis *a, Decl *d) {
  return d->kind == D_INPUT ? a->inputs[d->index] : def_value(a, d);
}

// The words of the inputs and data defs a lambda uses (evaluating the defs).
static Num global_words(Analysis *a, FunInfo *f) {
  Num w = num_of(0);
  for (int i = 0; i < f->globals.len; i++) w = num_add(a->pc, w, global_value(a, f->globals.data[i])->words);
  return w;
}

static Shape *make_closure(Analysis *a, Node *lam, Env *env) {
  FunInfo *f = &a->fun[lam->id];
  int n = f->captured.len;
  Shape **captured = arena_calloc(a->arena, (size_t)n + 1, sizeof *captured);
  for (int i = 0; i < n; i++) captured[i] = lookup(env, f->captured.data[i])->val;
  return shape_closure(&a->sh, lam, captured, n, global_words(a, f));
}

static Env *closure_env(Analysis *a, Shape *f, Shape *arg) {
  FunInfo *fi = &a->fun[f->node->id];
  Env *env = NULL;
  for (int i = 0; i < fi->captured.len; i++) env = bind(a, env, fi->captured.data[i], f->elems[i]);
  return bind(a, env, f->node, arg);
}

//
// Memo table of local applications.
//

struct MemoEntry {
  Shape *f, *x;  // function and argument (NULL: free slot)
  Shape *r;      // result
  Num cost;      // operations
};

static size_t memo_slot(MemoTable *t, Shape *f, Shape *x) {
  uint64_t h = (f->hash * 0x9e3779b97f4a7c15u) ^ (x->hash + 0x632be59bd9b4e019u);
  return (size_t)(h ^ (h >> 31)) & (t->cap - 1);
}

static MemoEntry *memo_find(Analysis *a, Shape *f, Shape *x) {
  MemoTable *t = &a->memo;
  if (!t->cap) return NULL;
  for (size_t j = memo_slot(t, f, x); t->slot[j].f; j = (j + 1) & (t->cap - 1))
    if (t->slot[j].f == f && t->slot[j].x == x) return &t->slot[j];
  return NULL;
}

static void memo_add(Analysis *a, Shape *f, Shape *x, Res r) {
  MemoTable *t = &a->memo;
  if ((t->count + 1) * 2 > t->cap) {
    MemoTable old = *t;
    t->cap = old.cap ? old.cap * 2 : 1024;
    t->slot = arena_calloc(a->arena, t->cap, sizeof *t->slot);
    for (size_t i = 0; i < old.cap; i++)
      if (old.slot[i].f) {
        size_t j = memo_slot(t, old.slot[i].f, old.slot[i].x);
        while (t->slot[j].f) j = (j + 1) & (t->cap - 1);
        t->slot[j] = old.slot[i];
      }
  }
  size_t j = memo_slot(t, f, x);
  while (t->slot[j].f) j = (j + 1) & (t->cap - 1);
  t->slot[j] = (MemoEntry){f, x, r.s, r.cost};
  t->count++;
}

//
// Application.
//

Shape *eval_force(Analysis *a, Res r) {
  if (r.dist) paper_gather(a, r.s, r.dist);
  return r.s;
}

static Res value(Shape *s) { return (Res){s, num_of(0), NULL}; }

void eval_spend(Analysis *a, EvalMode m, Res *r, Num c) {
  if (num_is_zero(c)) return;
  if (m == EVAL_LOCAL) r->cost = num_add(a->pc, r->cost, c);
  else paper_work(a, c);
}

// A builtin or operator given one more argument than it had.
static Res extend_partial(Analysis *a, Shape *f, Res x) {
  int n = f->nargs;
  Shape **args = arena_calloc(a->arena, (size_t)n + 1, sizeof *args);
  if (n) memcpy(args, f->elems, (size_t)n * sizeof *args);
  args[n] = eval_force(a, x);
  return value(shape_partial(&a->sh, f->node, args, n + 1));
}

static Res apply_now(Analysis *a, Shape *f, Res x, EvalMode m, Node *app) {
  if (f->kind == SH_CLOSURE) {
    Res r = eval_expr(a, f->node->body, closure_env(a, f, eval_force(a, x)), m);
    // The paper: applying a lambda has application pattern 0.
    if (m == EVAL_TOP && r.dist) r = value(eval_force(a, r));
    return r;
  }
  if (f->kind != SH_PARTIAL) error_at(a->prog->main->pos, "internal error: applying a non-function");
  if (f->nargs + 1 < shape_arity(f)) return extend_partial(a, f, x);
  return builtin_run(a, f, x, m, app);
}

Res eval_apply(Analysis *a, Shape *f, Res x, EvalMode m, Node *app) {
  if (m == EVAL_TOP) return apply_now(a, f, x, m, app);
  MemoEntry *e = memo_find(a, f, x.s);
  if (e) return (Res){e->r, e->cost, NULL};
  Res r = apply_now(a, f, x, m, app);
  memo_add(a, f, x.s, r);
  return r;
}

Res eval_apply_local(Analysis *a, Shape *f, Shape *x) { return eval_apply(a, f, value(x), EVAL_LOCAL, NULL); }

Res eval_apply2_local(Analysis *a, Shape *f, Shape *x, Shape *y) {
  Res g = eval_apply_local(a, f, x);
  Res r = eval_apply_local(a, g.s, y);
  r.cost = num_add(a->pc, g.cost, r.cost);
  return r;
}

//
// Expressions.
//

// Evaluates n to a value on process 0, adding its cost to *cost.
static Shape *eval_value(Analysis *a, Node *n, Env *env, EvalMode m, Num *cost) {
  Res r = eval_expr(a, n, env, m);
  *cost = num_add(a->pc, *cost, r.cost);
  return eval_force(a, r);
}

static Res eval_var(Analysis *a, Node *n, Env *env, EvalMode m) {
  switch (n->ref) {
  case REF_LOCAL: return value(lookup(env, n->binder)->val);
  case REF_PARAM: return value(a->params[n->decl->index]);
  case REF_INPUT: return value(a->inputs[n->decl->index]);
  case REF_DEF:
    if (is_data_def(n->decl)) return value(def_value(a, n->decl));
    return eval_expr(a, n->decl->body, NULL, m);  // a function def is its lambda
  case REF_BUILTIN: return value(shape_partial(&a->sh, n, NULL, 0));
  }
  return value(shape_unit(&a->sh));
}

static Res eval_app(Analysis *a, Node *n, Env *env, EvalMode m) {
  Num cost = num_of(0);
  Shape *f = eval_value(a, n->lhs, env, m, &cost);
  Res x = eval_expr(a, n->rhs, env, m);
  Res r = eval_apply(a, f, x, m, n);
  r.cost = num_add(a->pc, r.cost, num_add(a->pc, cost, x.cost));
  return r;
}

static void check_same_shape(Analysis *a, Node *n, Shape *x, Shape *y) {
  Shape *ex = shape_erase(&a->sh, x), *ey = shape_erase(&a->sh, y);
  if (ex != ey)
    error_at(n->pos, "the branches of 'if' have different shapes: %s and %s", shape_format(&a->sh, ex),
             shape_format(&a->sh, ey));
}

static _Noreturn void no_closed_max(Node *n) {
  error_at(n->pos, "--symbolic: the branches of this data 'if' cost differently, so its cost "
                   "(their maximum) has no closed form");
}

static Num branch_max(Analysis *a, Node *n, Num x, Num y) {
  if (!x.sym && !y.sym) return x.v >= y.v ? x : y;
  if (!num_equal(a->pc, x, y)) no_closed_max(n);
  return x;
}

// A condition known statically (a comparison of sizes): 1 then, 0 else, -1 unknown.
static int known_truth(Shape *c) { return c->kind == SH_SIZE && !c->n.sym ? c->n.k != 0 : -1; }

//
// Branches that may not be taken: a fault in one must never stop the
// program when the data avoids it (docs/language.md, "Semantics decided
// here"). Such a branch is analysed under a trap; a fault it meets makes it
// a branch that, if taken, stops the program: it neither costs nor shapes.
//

void cost_fault(Analysis *a, Pos pos, const char *fmt, ...) {
  char msg[sizeof a->fault_msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!a->fault) error_at(pos, "%s", msg);
  memcpy(a->fault_msg, msg, sizeof msg);
  a->fault_pos = pos;
  longjmp(a->fault->env, 1);
}

// A branch's value and cost, or faulted when it would certainly fault.
typedef struct Branch {
  Shape *s;      // its value (NULL when faulted)
  Num cost;      // its operations (local mode)
  Pos fault_pos; // where it faulted
  char *fault;   // what (NULL: it did not)
} Branch;

// Evaluates n as a branch: certain (the condition takes it), errors are
// the program's; otherwise under a trap.
static Branch eval_branch(Analysis *a, Node *n, Env *env, EvalMode m, bool certain) {
  Branch b = {.cost = num_of(0)};
  if (certain) {
    b.s = eval_value(a, n, env, m, &b.cost);
    return b;
  }
  FaultTrap t = {.outer = a->fault, .diag = diag_trap};
  a->fault = &t;
  if (setjmp(t.env)) {
    a->fault = t.outer;
    diag_trap = t.diag;
    return (Branch){.cost = num_of(0), .fault_pos = a->fault_pos, .fault = arena_strndup(a->arena, a->fault_msg, strlen(a->fault_msg))};
  }
  b.s = eval_value(a, n, env, m, &b.cost);
  a->fault = t.outer;
  return b;
}

// Both branches of an if fault: so does the if, with the first one's fault.
static _Noreturn void both_fault(Analysis *a, Branch *t) { cost_fault(a, t->fault_pos, "%s", t->fault); }

// A data 'if' costs its condition and the dearer branch (the branch taken,
// when the condition is known, whose value it then is); in local mode,
// sequentially. A branch that faults is never taken without stopping the
// program: the other's cost and value stand.
static Res eval_if_local(Analysis *a, Node *n, Env *env, EvalMode m, Num cost, int truth) {
  Branch t = eval_branch(a, n->then_, env, EVAL_LOCAL, truth == 1);
  Branch e = eval_branch(a, n->else_, env, EVAL_LOCAL, truth == 0);
  if (t.fault && e.fault) both_fault(a, &t);
  Res r = {NULL, cost, NULL};
  if (truth >= 0 || t.fault || e.fault) {
    Branch *kept = truth == 1 || e.fault ? &t : &e;
    if (!t.fault && !e.fault) check_same_shape(a, n, t.s, e.s);
    r.s = truth >= 0 ? kept->s : shape_erase(&a->sh, kept->s);
    eval_spend(a, m, &r, kept->cost);
    return r;
  }
  check_same_shape(a, n, t.s, e.s);
  r.s = shape_erase(&a->sh, t.s);
  eval_spend(a, m, &r, branch_max(a, n, t.cost, e.cost));
  return r;
}

// At top level: both branches as written, keeping the supersteps of the
// dearer one (mszmax, at this machine) or of the one taken.
static Res eval_if_paper(Analysis *a, Node *n, Env *env, int truth) {
  Num dW, dH, dS, eW, eH, eS;
  StepsMark start = steps_mark(a);
  Branch t = eval_branch(a, n->then_, env, EVAL_TOP, truth == 1);
  if (t.fault) steps_reset(a, start);
  Num then_ops = steps_delta(a, start, &dW, &dH, &dS);
  StepsMark then_end = steps_mark(a);
  int nrows = then_end.nrows - start.nrows;
  CostStep *rows = arena_calloc(a->arena, (size_t)nrows + 1, sizeof *rows);
  if (nrows) memcpy(rows, a->st.rows + start.nrows, (size_t)nrows * sizeof *rows);
  steps_reset(a, start);
  Branch e = eval_branch(a, n->else_, env, EVAL_TOP, truth == 0);
  if (e.fault) steps_reset(a, start);
  if (t.fault && e.fault) both_fault(a, &t);
  Num else_ops = steps_delta(a, start, &eW, &eH, &eS);
  if (!t.fault && !e.fault) check_same_shape(a, n, t.s, e.s);
  bool keep_then = truth >= 0 ? truth : e.fault || (!t.fault && !a->pc && then_ops.v > else_ops.v);
  if (truth < 0 && !t.fault && !e.fault && a->pc &&
      (!num_equal(a->pc, dW, eW) || !num_equal(a->pc, dH, eH) || !num_equal(a->pc, dS, eS)))
    no_closed_max(n);
  if (keep_then) {
    steps_reset(a, start);
    steps_replay(a, then_end, rows, nrows);
  }
  Shape *s = keep_then ? t.s : e.s;
  return value(truth >= 0 ? s : shape_erase(&a->sh, s));
}

static Res eval_if(Analysis *a, Node *n, Env *env, EvalMode m) {
  Num cost = num_of(0);
  int truth = known_truth(eval_value(a, n->cond, env, m, &cost));
  if (m == EVAL_LOCAL) return eval_if_local(a, n, env, m, cost, truth);
  return eval_if_paper(a, n, env, truth);
}

// A shape conditional passes on the pattern of the branch taken.
static Res eval_ifs(Analysis *a, Node *n, Env *env, EvalMode m) {
  Num cost = num_of(0);
  Shape *c = eval_value(a, n->cond, env, m, &cost);
  Sz k = require_size(a, c, n->cond->pos, "the condition of 'ifs'");
  if (k.sym)
    error_at(n->cond->pos, "--symbolic: this 'ifs' tests a size that depends on the parameters, "
                           "so its branch is not known (give the parameters with -D)");
  Res r = eval_expr(a, k.k != 0 ? n->then_ : n->else_, env, m);
  r.cost = num_add(a->pc, r.cost, cost);
  return r;
}

static Res eval_op(Analysis *a, Node *n, Env *env, EvalMode m) {
  Num cost = num_of(0), right = num_of(0);
  Shape *x = eval_value(a, n->lhs, env, m, &cost);
  Res r = {x, cost, NULL};
  bool lazy = n->op == OP_AND || n->op == OP_OR, decided = lazy && known_truth(x) == (n->op == OP_OR);
  if (!decided) {
    // The right operand of && and || is a branch: taken unless the left decides.
    Branch y = n->kind == N_BINOP ? eval_branch(a, n->rhs, env, m, !lazy || known_truth(x) >= 0) : (Branch){0};
    right = y.cost;
    r.s = y.fault ? shape_unit(&a->sh) : builtin_scalar_op(a, n->op, x, y.s);
  }
  eval_spend(a, m, &r, num_add(a->pc, right, num_of(a->k.binop)));
  return r;
}

static Res eval_vec(Analysis *a, Node *n, Env *env, EvalMode m) {
  Num cost = num_of(0);
  Shape **elems = arena_calloc(a->arena, (size_t)n->nelems + 1, sizeof *elems);
  for (int i = 0; i < n->nelems; i++) elems[i] = eval_value(a, n->elems[i], env, m, &cost);
  a->sh.site = n->pos;
  return (Res){shape_vector(&a->sh, elems, n->nelems), cost, NULL};
}

Res eval_expr(Analysis *a, Node *n, void *envp, EvalMode m) {
  Env *env = envp;
  switch (n->kind) {
  case N_INT: return value(shape_size(&a->sh, sz_of(n->ival)));
  case N_BOOL: return value(shape_size(&a->sh, sz_of(n->ival)));  // a known truth value
  case N_FLOAT: return value(shape_unit(&a->sh));
  case N_VAR: return eval_var(a, n, env, m);
  case N_OPFN: return value(shape_partial(&a->sh, n, NULL, 0));
  case N_LAM: return value(make_closure(a, n, env));
  case N_APP: return eval_app(a, n, env, m);
  case N_LET: {
    Res init = eval_expr(a, n->init, env, m);
    Res r = eval_expr(a, n->body, bind(a, env, n, eval_force(a, init)), m);
    r.cost = num_add(a->pc, r.cost, init.cost);
    return r;
  }
  case N_IF: return eval_if(a, n, env, m);
  case N_IFS: return eval_ifs(a, n, env, m);
  case N_BINOP: case N_UNOP: return eval_op(a, n, env, m);
  case N_PAIR: {
    Num cost = num_of(0);
    Shape *x = eval_value(a, n->lhs, env, m, &cost);
    Shape *y = eval_value(a, n->rhs, env, m, &cost);
    Res r = {shape_pair(&a->sh, x, y), cost, NULL};
    eval_spend(a, m, &r, num_of(a->k.pair));
    return r;
  }
  case N_VEC: return eval_vec(a, n, env, m);
  }
  return value(shape_unit(&a->sh));
}
