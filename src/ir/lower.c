// lower.c: the partial evaluator: applies every lambda, def and builtin at
// compile time, turning the typed AST into first-order, monomorphic IR.
//
// There is no recursion, so this always terminates. Compile-time values are
// code (an IR expression of a data type), functions (closures, builtins and
// operators partially applied, or an ifs-choice between two functions) and
// pairs of those. Data passed to a lambda or bound by let becomes an IR let,
// so it is computed once; functions are substituted.
#include "ir/ir.h"

#include <string.h>

typedef struct Cv Cv;
typedef struct Env Env;

typedef enum {
  CV_CODE,     // data: code
  CV_CLOSURE,  // \x -> body in env
  CV_PRIM,     // a builtin or operator with nargs arguments so far
  CV_CHOICE,   // ifs cond then l else r, both functions
  CV_PAIR,     // (l, r) holding at least one function
} CvKind;

// A compile-time value.
struct Cv {
  CvKind kind;     // which form
  Ir *code;        // CV_CODE
  Node *lam;       // CV_CLOSURE: the lambda
  Env *env;        // CV_CLOSURE: its environment
  bool is_op;      // CV_PRIM: an operator (op) rather than a builtin
  Op op;           // CV_PRIM with is_op
  Builtin builtin; // CV_PRIM without is_op
  int nargs;       // CV_PRIM: arguments collected
  Cv *args[2];     // CV_PRIM: those arguments
  Ir *cond;        // CV_CHOICE: the size condition
  Cv *l, *r;       // CV_CHOICE: branches; CV_PAIR: components
  Pos pos;         // where the function was made: the site of its faults
};

struct Env {
  Node *binder;  // the lambda or let binding the name
  Cv *v;         // its compile-time value
  Env *outer;    // enclosing bindings
};

// The lets created while lowering an expression evaluated as one unit (main,
// a function body, a branch), in evaluation order.
typedef struct Scope {
  PtrVec lets;          // IR_LET nodes whose body is filled in at close
  struct Scope *outer;  // the enclosing scope
} Scope;

typedef struct Lowerer {
  IrProgram *ir;  // what is being built
  Arena *arena;   // owns it
  Scope *scope;   // the innermost scope: new lets go here
  Scope *top;     // main's scope: data defs are bound here, once
  Cv **defs;      // by def index: the lowered def, once lowered
} Lowerer;

static Cv *lower(Lowerer *L, Node *n, Env *env);
static Cv *apply(Lowerer *L, Cv *f, Cv *arg, Pos site);

//
// Types.
//

Type *lower_type(IrProgram *ir, TypeKind kind, Type *a, Type *b) {
  for (int i = 0; i < ir->types.len; i++) {
    Type *t = ir->types.data[i];
    if (t->kind == kind && t->a == a && t->b == b) return t;
  }
  Type *t = arena_alloc(ir->arena, sizeof *t);
  t->kind = kind;
  t->a = a;
  t->b = b;
  ptrvec_push(ir->arena, &ir->types, t);
  return t;
}

// An inferred AST type made concrete; a variable left open defaults to int
// (only the element type of an empty literal can still be open here).
static Type *concrete(Lowerer *L, Type *t) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_FLOAT: return lower_type(L->ir, T_FLOAT, NULL, NULL);
  case T_BOOL: return lower_type(L->ir, T_BOOL, NULL, NULL);
  case T_PAIR: return lower_type(L->ir, T_PAIR, concrete(L, t->a), concrete(L, t->b));
  case T_VEC: return lower_type(L->ir, T_VEC, concrete(L, t->a), NULL);
  default: return lower_type(L->ir, T_INT, NULL, NULL);
  }
}

static Type *ty_vec(Lowerer *L, Type *elem) { return lower_type(L->ir, T_VEC, elem, NULL); }

bool ir_type_has_vec(Type *t) {
  if (t->kind == T_VEC) return true;
  return t->kind == T_PAIR && (ir_type_has_vec(t->a) || ir_type_has_vec(t->b));
}

//
// IR construction and scopes.
//

static Ir *new_ir(Lowerer *L, IrKind kind, Type *ty, Pos pos) {
  Ir *e = arena_alloc(L->arena, sizeof *e);
  e->kind = kind;
  e->ty = ty;
  e->pos = pos;
  e->id = L->ir->nnodes++;
  return e;
}

static Ir *unary(Lowerer *L, IrKind kind, Type *ty, Ir *a, Pos pos) {
  Ir *e = new_ir(L, kind, ty, pos);
  e->a = a;
  return e;
}

static Ir *binary(Lowerer *L, IrKind kind, Type *ty, Ir *a, Ir *b, Pos pos) {
  Ir *e = unary(L, kind, ty, a, pos);
  e->b = b;
  return e;
}

static IrVar *new_var(Lowerer *L, const char *name, Type *ty) {
  IrVar *v = arena_alloc(L->arena, sizeof *v);
  v->id = ++L->ir->nvars;
  v->name = name;
  v->ty = ty;
  return v;
}

static Ir *var_ref(Lowerer *L, IrVar *v, Pos pos) {
  Ir *e = new_ir(L, IR_VAR, v->ty, pos);
  e->var = v;
  return e;
}

static Cv *cv_new(Lowerer *L, CvKind kind, Pos pos) {
  Cv *v = arena_alloc(L->arena, sizeof *v);
  v->kind = kind;
  v->pos = pos;
  return v;
}

static Cv *code(Lowerer *L, Ir *e) {
  Cv *v = cv_new(L, CV_CODE, e->pos);
  v->code = e;
  return v;
}

// Code that may be repeated without computing anything twice.
static bool trivial(Ir *e) {
  switch (e->kind) {
  case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_PARAM: case IR_INPUT: case IR_VAR: return true;
  case IR_FST: case IR_SND: return trivial(e->a);
  case IR_PAIR: return trivial(e->a) && trivial(e->b);  // a pair of variables (see bind)
  default: return false;
  }
}

static void open_scope(Lowerer *L, Scope *s) {
  *s = (Scope){.outer = L->scope};
  L->scope = s;
}

// Wraps the scope's lets around body, innermost last.
static Ir *wrap_lets(Scope *s, Ir *body) {
  for (int i = s->lets.len - 1; i >= 0; i--) {
    Ir *let = s->lets.data[i];
    let->body = body;
    let->ty = body->ty;
    body = let;
  }
  return body;
}

// Ends a scope whose value may be a function: code gets its lets wrapped
// around it; the lets of a function move to the enclosing scope (a function
// cannot carry them; only a function chosen by ifs can get here).
static Cv *close_scope(Lowerer *L, Scope *s, Cv *v) {
  L->scope = s->outer;
  if (v->kind == CV_CODE) return code(L, wrap_lets(s, v->code));
  for (int i = 0; i < s->lets.len; i++) ptrvec_push(L->arena, &L->scope->lets, s->lets.data[i]);
  return v;
}

// Binds code to a new variable at position at of the current scope's lets.
static Ir *bind_at(Lowerer *L, Ir *e, const char *name, int at) {
  if (trivial(e)) return e;
  IrVar *v = new_var(L, name, e->ty);
  Ir *let = new_ir(L, IR_LET, e->ty, e->pos);
  let->var = v;
  let->a = e;
  PtrVec *lets = &L->scope->lets;
  ptrvec_push(L->arena, lets, NULL);
  memmove(lets->data + at + 1, lets->data + at, (size_t)(lets->len - 1 - at) * sizeof *lets->data);
  lets->data[at] = let;
  return var_ref(L, v, e->pos);
}

static Ir *pair_code(Lowerer *L, Ir *a, Ir *b, Pos pos) {
  return binary(L, IR_PAIR, lower_type(L->ir, T_PAIR, a->ty, b->ty), a, b, pos);
}

// Binds code to new variables: a pair made here, each component apart (the
// aggregate replaced by its scalars, so that at top level the plan places
// each component on its own: docs/compiler.md, "Iterations over pairs").
static Ir *bind_code(Lowerer *L, Ir *e, const char *name) {
  if (e->kind != IR_PAIR) return bind_at(L, e, name, L->scope->lets.len);
  Ir *a = bind_code(L, e->a, name);
  return pair_code(L, a, bind_code(L, e->b, name), e->pos);
}

static Cv *bind(Lowerer *L, Cv *v, const char *name) {
  if (v->kind != CV_CODE) return v;
  return code(L, bind_code(L, v->code, name));
}

// Lowers operands left to right. When an operand's lowering creates lets,
// the earlier operands are bound first, so that everything is computed in
// the interpreter's order (which decides which fault is reported first).
static void lower_operands(Lowerer *L, Node **nodes, int n, Env *env, Cv **out) {
  for (int i = 0; i < n; i++) {
    int before = L->scope->lets.len;
    out[i] = lower(L, nodes[i], env);
    if (L->scope->lets.len == before) continue;
    for (int j = 0; j < i; j++)
      if (out[j]->kind == CV_CODE && !trivial(out[j]->code))
        out[j] = code(L, bind_at(L, out[j]->code, "arg", before++));
  }
}

static Ir *as_code(Lowerer *L, Cv *v, Pos pos) {
  if (v->kind == CV_CODE) return v->code;
  if (v->kind == CV_PAIR) return pair_code(L, as_code(L, v->l, pos), as_code(L, v->r, pos), pos);
  error_at(pos, "internal error: a function where data was expected");
}

static void note_skeleton(Ir *e, void *found) { *(bool *)found |= ir_is_skeleton(e->kind); }

// An end given to neighbours: a parallel stage evaluates it on every process
// from the data it captures (plan.c), so an end that applies a skeleton is
// bound to a variable first (at top level, its regions run before). The
// others stay inline: a let at top level is a choice of layout more for
// the planner.
static Ir *neighbours_end(Lowerer *L, Ir *end, const char *name) {
  bool skeleton = false;
  ir_visit(end, note_skeleton, &skeleton);
  return skeleton ? bind_at(L, end, name, L->scope->lets.len) : end;
}

//
// Builtins, once all their arguments are there.
//

// The body of a skeleton: f applied to fresh variables x (and y).
static Ir *lower_body(Lowerer *L, Cv *f, IrVar *x, IrVar *y) {
  Scope s;
  open_scope(L, &s);
  Cv *r = apply(L, f, code(L, var_ref(L, x, f->pos)), f->pos);
  if (y) r = apply(L, r, code(L, var_ref(L, y, f->pos)), f->pos);
  return as_code(L, close_scope(L, &s, r), f->pos);
}

static Ir *skeleton(Lowerer *L, IrKind kind, Cv *f, Ir *a, Ir *b, Pos site) {
  Ir *e = new_ir(L, kind, NULL, site);
  e->a = a;
  e->b = b;
  Type *ta = a->ty->a, *tb = b ? b->ty->a : NULL;
  switch (kind) {
  case IR_MAP: e->x = new_var(L, "x", ta); break;
  case IR_FOLD: case IR_PREFIX: case IR_DH: e->x = new_var(L, "x", ta); e->y = new_var(L, "y", ta); break;
  case IR_PAIR_MAP: e->x = new_var(L, "x", ta); e->y = new_var(L, "y", tb); break;
  case IR_C_PROD: e->x = new_var(L, "x", ta); e->y = new_var(L, "y", tb); break;
  default: e->x = new_var(L, "x", a->ty); break;  // IR_ITER
  }
  e->body = lower_body(L, f, e->x, e->y);
  Type *r = e->body->ty;
  switch (kind) {
  case IR_FOLD: e->ty = r; break;
  case IR_ITER: e->ty = a->ty; break;
  case IR_C_PROD: e->ty = ty_vec(L, ty_vec(L, r)); break;
  default: e->ty = ty_vec(L, r); break;
  }
  return e;
}

// pair_map f (a, b), written as name (pair_map, zip or map2).
static Ir *pair_map(Lowerer *L, const char *name, Cv *f, Ir *a, Ir *b, Pos site) {
  Ir *e = skeleton(L, IR_PAIR_MAP, f, a, b, site);
  e->written = name;
  return e;
}

// A pair-valued operand split into its components (bound once if needed).
static void split_pair(Lowerer *L, Ir *p, Ir **a, Ir **b) {
  if (p->kind == IR_PAIR) {
    *a = p->a;
    *b = p->b;
    return;
  }
  p = bind_at(L, p, "pair", L->scope->lets.len);
  *a = unary(L, IR_FST, p->ty->a, p, p->pos);
  *b = unary(L, IR_SND, p->ty->b, p, p->pos);
}

// iter f s k whose state s is a pair: an iteration over its two components,
// each a variable of its own (x and y), which the plan places apart
// (docs/compiler.md, "Iterations over pairs"): a is the first pair, body
// the next (lets around a pair), c the pair after the last iteration.
static Ir *pair_iter(Lowerer *L, Cv *f, Ir *init, Pos site) {
  Ir *e = new_ir(L, IR_ITER, init->ty, site), *a, *b;
  split_pair(L, init, &a, &b);
  e->a = pair_code(L, a, b, init->pos);
  e->x = new_var(L, "x", a->ty);
  e->y = new_var(L, "y", b->ty);
  Scope s;
  open_scope(L, &s);
  Ir *state = pair_code(L, var_ref(L, e->x, f->pos), var_ref(L, e->y, f->pos), f->pos);
  Ir *next = as_code(L, apply(L, f, code(L, state), f->pos), f->pos);
  split_pair(L, next, &a, &b);
  e->body = as_code(L, close_scope(L, &s, code(L, pair_code(L, a, b, next->pos))), f->pos);
  e->c = pair_code(L, var_ref(L, e->x, site), var_ref(L, e->y, site), site);
  return e;
}

static Cv *builtin(Lowerer *L, Builtin bi, Cv **args, Pos site) {
  if (bi == B_PAIR) {
    if (args[0]->kind == CV_CODE && args[1]->kind == CV_CODE)
      return code(L, pair_code(L, args[0]->code, args[1]->code, site));
    Cv *p = cv_new(L, CV_PAIR, site);
    p->l = args[0];
    p->r = args[1];
    return p;
  }
  Cv *last = args[builtin_arity(bi) - 1];
  if ((bi == B_FST || bi == B_SND) && last->kind == CV_PAIR) return bi == B_FST ? last->l : last->r;
  if ((bi == B_FST || bi == B_SND) && last->kind == CV_CODE && last->code->kind == IR_PAIR) {
    Ir *p = last->code, *part = bi == B_FST ? p->a : p->b;  // the other one dropped only if it computes nothing
    if (trivial(bi == B_FST ? p->b : p->a)) return code(L, part);
  }
  Ir *x = as_code(L, last, site), *a, *b;
  switch (bi) {
  case B_MAP: return code(L, skeleton(L, IR_MAP, args[0], x, NULL, site));
  case B_FOLD: return code(L, skeleton(L, IR_FOLD, args[0], x, NULL, site));
  case B_PREFIX: return code(L, skeleton(L, IR_PREFIX, args[0], x, NULL, site));
  case B_PAIR_MAP:
    split_pair(L, x, &a, &b);
    return code(L, pair_map(L, "pair_map", args[0], a, b, site));
  case B_ZIP: {  // pair_map (\x y -> (x, y)) (a, b)
    Cv *pair = cv_new(L, CV_PRIM, site);
    pair->builtin = B_PAIR;
    return code(L, pair_map(L, "zip", pair, as_code(L, args[0], site), x, site));
  }
  case B_MAP2: return code(L, pair_map(L, "map2", args[0], as_code(L, args[1], site), x, site));
  case B_SPLIT: return code(L, binary(L, IR_SPLIT, ty_vec(L, x->ty), as_code(L, args[0], site), x, site));
  case B_MERGE: return code(L, binary(L, IR_MERGE, x->ty, as_code(L, args[0], site), x, site));
  case B_NEIGHBOURS: {
    Type *e = x->ty->a;
    Ir *l = neighbours_end(L, as_code(L, args[0], site), "left");
    Ir *r = neighbours_end(L, as_code(L, args[1], site), "right");
    Ir *n = binary(L, IR_NEIGHBOURS, ty_vec(L, lower_type(L->ir, T_PAIR, e, lower_type(L->ir, T_PAIR, e, e))), l, r, site);
    n->c = x;
    return code(L, n);
  }
  case B_REVERSE: return code(L, unary(L, IR_REVERSE, x->ty, x, site));
  case B_DH: {  // f as the skeleton's body, g as a function of its own
    Ir *e = skeleton(L, IR_DH, args[0], x, NULL, site), *g = new_ir(L, IR_LAMBDA, e->ty->a, site);
    g->x = new_var(L, "x", e->ty->a);
    g->y = new_var(L, "y", e->ty->a);
    g->body = lower_body(L, args[1], g->x, g->y);
    e->c = g;
    return code(L, e);
  }
  case B_C_PROD: return code(L, skeleton(L, IR_C_PROD, args[0], as_code(L, args[1], site), x, site));
  case B_ITER: {
    Ir *init = as_code(L, args[1], site);
    Ir *e = init->ty->kind == T_PAIR ? pair_iter(L, args[0], init, site) : skeleton(L, IR_ITER, args[0], init, NULL, site);
    e->b = x;
    return code(L, e);
  }
  case B_INITS: case B_TAILS:
    return code(L, unary(L, bi == B_INITS ? IR_INITS : IR_TAILS, ty_vec(L, x->ty), x, site));
  case B_REDCONCAT: return code(L, unary(L, IR_REDCONCAT, x->ty->a, x, site));
  case B_LENGTH: return code(L, unary(L, IR_LENGTH, lower_type(L->ir, T_INT, NULL, NULL), x, site));
  case B_ENTRY: {
    Ir *v = as_code(L, args[0], site);
    return code(L, binary(L, IR_ENTRY, v->ty->a, v, x, site));
  }
  case B_HD: return code(L, unary(L, IR_HD, x->ty->a, x, site));
  case B_TL: return code(L, unary(L, IR_TL, x->ty, x, site));
  case B_FST: return code(L, unary(L, IR_FST, x->ty->a, x, site));
  case B_SND: return code(L, unary(L, IR_SND, x->ty->b, x, site));
  case B_DUMMYVEC:
    split_pair(L, x, &a, &b);
    return code(L, binary(L, IR_DUMMYVEC, ty_vec(L, b->ty), a, b, site));
  case B_FLOAT: {
    Ir *e = unary(L, IR_UNOP, lower_type(L->ir, T_FLOAT, NULL, NULL), x, site);
    e->op = OP_FLOAT;
    return code(L, e);
  }
  case B_IOTA: return code(L, unary(L, IR_IOTA, ty_vec(L, lower_type(L->ir, T_INT, NULL, NULL)), x, site));
  default: error_at(site, "internal error: builtin %s", builtin_name(bi));
  }
}

static Ir *binop(Lowerer *L, Op op, Ir *a, Ir *b, Pos pos) {
  bool cmp = op >= OP_EQ && op <= OP_GE;
  Type *ty = cmp ? lower_type(L->ir, T_BOOL, NULL, NULL) : a->ty;
  Ir *e = binary(L, IR_BINOP, ty, a, b, pos);
  e->op = op;
  return e;
}

//
// Application.
//

static Cv *apply_closure(Lowerer *L, Cv *f, Cv *arg) {
  Env *e = arena_alloc(L->arena, sizeof *e);
  *e = (Env){f->lam, bind(L, arg, f->lam->name), f->env};
  Node *body = f->lam->body;
  if (body->kind == N_LAM) {  // still a function
    Cv *c = cv_new(L, CV_CLOSURE, body->pos);
    c->lam = body;
    c->env = e;
    return c;
  }
  return lower(L, body, e);
}

// A value of type ty that nothing reads: scalars 0, vectors empty.
static Ir *placeholder(Lowerer *L, Type *ty, Pos pos) {
  IrKind kind = ty->kind == T_INT    ? IR_INT
                : ty->kind == T_FLOAT ? IR_FLOAT
                : ty->kind == T_BOOL  ? IR_BOOL
                : ty->kind == T_PAIR  ? IR_PAIR
                                      : IR_VEC;
  Ir *e = new_ir(L, kind, ty, pos);
  if (kind == IR_PAIR) e->a = placeholder(L, ty->a, pos), e->b = placeholder(L, ty->b, pos);
  if (kind == IR_VEC) e->elems = arena_calloc(L->arena, 1, sizeof *e->elems);
  return e;
}

// Closes the scope of one branch of an ifs on cond (then_side: the branch
// taken when it holds). A branch whose value is a function leaves its lets
// to the enclosing scope, where the function is applied later: each stays
// conditional there, holding a placeholder when its branch is not taken, so
// that a fault or a skeleton of the other branch never runs.
static Cv *close_branch(Lowerer *L, Scope *s, Cv *v, Ir *cond, bool then_side) {
  if (v->kind != CV_CODE && cond)
    for (int i = 0; i < s->lets.len; i++) {
      Ir *let = s->lets.data[i], *e = new_ir(L, IR_IFS, let->a->ty, let->a->pos);
      e->a = cond;
      e->b = then_side ? let->a : placeholder(L, let->a->ty, let->a->pos);
      e->c = then_side ? placeholder(L, let->a->ty, let->a->pos) : let->a;
      let->a = e;
    }
  return close_scope(L, s, v);
}

// Applies both functions an ifs chose between; the branches stay
// conditional (each in its own scope).
static Cv *apply_choice(Lowerer *L, Cv *f, Cv *arg, Pos site) {
  arg = bind(L, arg, "arg");
  Scope s1, s2;
  open_scope(L, &s1);
  Cv *l = close_branch(L, &s1, apply(L, f->l, arg, site), f->cond, true);
  open_scope(L, &s2);
  Cv *r = close_branch(L, &s2, apply(L, f->r, arg, site), f->cond, false);
  if (l->kind == CV_CODE && r->kind == CV_CODE) {
    Ir *e = new_ir(L, IR_IFS, l->code->ty, site);
    e->a = f->cond;
    e->b = l->code;
    e->c = r->code;
    return code(L, e);
  }
  Cv *c = cv_new(L, CV_CHOICE, site);
  c->cond = f->cond;
  c->l = l;
  c->r = r;
  return c;
}

static Cv *apply_prim(Lowerer *L, Cv *f, Cv *arg, Pos site) {
  int arity = f->is_op ? 2 : builtin_arity(f->builtin);
  Cv *g = cv_new(L, CV_PRIM, f->nargs ? f->pos : site);
  *g = (Cv){.kind = CV_PRIM, .is_op = f->is_op, .op = f->op, .builtin = f->builtin,
            .nargs = f->nargs, .args = {f->args[0], f->args[1]}, .pos = g->pos};
  if (g->nargs + 1 < arity) {  // data is computed once, as the interpreter does, not per use
    g->args[g->nargs++] = bind(L, arg, "arg");
    return g;
  }
  Cv *all[3] = {f->args[0], f->args[1], NULL};
  all[f->nargs] = arg;
  if (f->is_op) return code(L, binop(L, f->op, as_code(L, all[0], site), as_code(L, all[1], site), site));
  return builtin(L, f->builtin, all, site);
}

static Cv *apply(Lowerer *L, Cv *f, Cv *arg, Pos site) {
  switch (f->kind) {
  case CV_CLOSURE: return apply_closure(L, f, arg);
  case CV_PRIM: return apply_prim(L, f, arg, site);
  case CV_CHOICE: return apply_choice(L, f, arg, site);
  default: error_at(site, "internal error: applying data");
  }
}

//
// Expressions.
//

// A def: data is bound once in main's scope; a function is lowered once.
static Cv *lower_def(Lowerer *L, Decl *d) {
  Cv **slot = &L->defs[d->index];
  if (*slot) return *slot;
  Scope *saved = L->scope;
  L->scope = L->top;
  Cv *v = lower(L, d->body, NULL);
  *slot = bind(L, v, d->name);
  L->scope = saved;
  return *slot;
}

static Cv *lower_var(Lowerer *L, Node *n, Env *env) {
  switch (n->ref) {
  case REF_LOCAL:
    for (Env *e = env; e; e = e->outer)
      if (e->binder == n->binder) return e->v;
    break;
  case REF_PARAM: {
    Ir *e = new_ir(L, IR_PARAM, lower_type(L->ir, T_INT, NULL, NULL), n->pos);
    e->index = n->decl->index;
    return code(L, e);
  }
  case REF_INPUT: {
    Ir *e = new_ir(L, IR_INPUT, concrete(L, n->decl->type), n->pos);
    e->index = n->decl->index;
    return code(L, e);
  }
  case REF_DEF: return lower_def(L, n->decl);
  case REF_BUILTIN: {
    Cv *f = cv_new(L, CV_PRIM, n->pos);
    f->builtin = n->builtin;
    return f;
  }
  }
  error_at(n->pos, "internal error: unbound variable '%s'", n->name);
}

enum { MAX_SPINE = 64 };

// f a b c: the head, then the arguments left to right, then the applications.
static Cv *lower_app(Lowerer *L, Node *n, Env *env) {
  Node *spine[MAX_SPINE + 1];
  int count = 0;
  Node *head = n;
  while (head->kind == N_APP && count < MAX_SPINE) head = head->lhs, count++;
  spine[0] = head;
  Node *app = n;
  for (int i = count; i >= 1; i--, app = app->lhs) spine[i] = app->rhs;
  Cv *vals[MAX_SPINE + 1];
  lower_operands(L, spine, count + 1, env, vals);
  Cv *f = vals[0];
  for (int i = 1; i <= count; i++) f = apply(L, f, vals[i], n->pos);
  return f;
}

// A conditional's branch, lowered in its own scope (cond: an ifs's
// condition, see close_branch; NULL for the others, whose branches are code).
static Cv *lower_branch(Lowerer *L, Node *n, Env *env, Ir *cond, bool then_side) {
  Scope s;
  open_scope(L, &s);
  return close_branch(L, &s, lower(L, n, env), cond, then_side);
}

static Cv *lower_cond(Lowerer *L, Node *n, Env *env) {
  Ir *c = as_code(L, lower(L, n->cond, env), n->pos);
  Ir *ifs = n->kind == N_IFS ? c : NULL;
  Cv *t = lower_branch(L, n->then_, env, ifs, true);
  Cv *f = lower_branch(L, n->else_, env, ifs, false);
  if (t->kind == CV_CODE && f->kind == CV_CODE) {
    Ir *e = new_ir(L, n->kind == N_IF ? IR_IF : IR_IFS, t->code->ty, n->pos);
    e->a = c;
    e->b = t->code;
    e->c = f->code;
    return code(L, e);
  }
  Cv *ch = cv_new(L, CV_CHOICE, n->pos);
  ch->cond = c;
  ch->l = t;
  ch->r = f;
  return ch;
}

static Cv *lower_binop(Lowerer *L, Node *n, Env *env) {
  if (n->op == OP_AND || n->op == OP_OR) {  // the right operand is conditional
    Ir *a = as_code(L, lower(L, n->lhs, env), n->pos);
    Ir *e = binop(L, n->op, a, as_code(L, lower_branch(L, n->rhs, env, NULL, false), n->pos), n->pos);
    e->lazy = true;
    return code(L, e);
  }
  Cv *ops[2];
  lower_operands(L, (Node *[]){n->lhs, n->rhs}, 2, env, ops);
  return code(L, binop(L, n->op, as_code(L, ops[0], n->pos), as_code(L, ops[1], n->pos), n->pos));
}

static Cv *lower_vec(Lowerer *L, Node *n, Env *env) {
  Cv **vals = arena_calloc(L->arena, (size_t)n->nelems + 1, sizeof *vals);
  lower_operands(L, n->elems, n->nelems, env, vals);
  Type *ty = n->nelems ? ty_vec(L, as_code(L, vals[0], n->pos)->ty) : concrete(L, n->ty);
  Ir *e = new_ir(L, IR_VEC, ty, n->pos);
  e->nelems = n->nelems;
  e->elems = arena_calloc(L->arena, (size_t)n->nelems + 1, sizeof *e->elems);
  for (int i = 0; i < n->nelems; i++) e->elems[i] = as_code(L, vals[i], n->pos);
  return code(L, e);
}

static Cv *literal(Lowerer *L, Node *n, IrKind kind, TypeKind ty) {
  Ir *e = new_ir(L, kind, lower_type(L->ir, ty, NULL, NULL), n->pos);
  e->ival = n->ival;
  e->fval = n->fval;
  return code(L, e);
}

static Cv *lower(Lowerer *L, Node *n, Env *env) {
  switch (n->kind) {
  case N_INT: return literal(L, n, IR_INT, T_INT);
  case N_FLOAT: return literal(L, n, IR_FLOAT, T_FLOAT);
  case N_BOOL: return literal(L, n, IR_BOOL, T_BOOL);
  case N_VAR: return lower_var(L, n, env);
  case N_OPFN: {
    Cv *f = cv_new(L, CV_PRIM, n->pos);
    f->is_op = true;
    f->op = n->op;
    return f;
  }
  case N_LAM: {
    Cv *f = cv_new(L, CV_CLOSURE, n->pos);
    f->lam = n;
    f->env = env;
    return f;
  }
  case N_APP: return lower_app(L, n, env);
  case N_LET: {
    Env *e = arena_alloc(L->arena, sizeof *e);
    *e = (Env){n, bind(L, lower(L, n->init, env), n->name), env};
    return lower(L, n->body, e);
  }
  case N_IF: case N_IFS: return lower_cond(L, n, env);
  case N_BINOP: return lower_binop(L, n, env);
  case N_UNOP: {
    Ir *a = as_code(L, lower(L, n->lhs, env), n->pos);
    Ir *e = unary(L, IR_UNOP, a->ty, a, n->pos);
    e->op = n->op;
    return code(L, e);
  }
  case N_PAIR: {
    Cv *ops[2];
    lower_operands(L, (Node *[]){n->lhs, n->rhs}, 2, env, ops);
    return builtin(L, B_PAIR, ops, n->pos);
  }
  case N_VEC: return lower_vec(L, n, env);
  }
  error_at(n->pos, "internal error: unknown expression");
}

// Every node once in the tree: a value used twice (a variable, a def, a
// pair split into fst and snd) is one node lowered once and referenced
// twice; each reference gets a copy of its own, so that tables indexed by
// node (the plan's layouts, the values computed at top level) see one
// parent per node. A copy holds the operands of its original, which may be
// copies made here already (an operand shared below a node shared): so the
// marks grow with the nodes.
typedef struct Seen {
  bool *at;  // by node id: reached already
  int cap;   // ids covered
} Seen;

static bool *seen_mark(Lowerer *L, Seen *s, int id) {
  if (id >= s->cap) {
    int cap = 2 * id + 16;
    bool *at = arena_calloc(L->arena, (size_t)cap, sizeof *at);
    if (s->cap) memcpy(at, s->at, (size_t)s->cap * sizeof *at);
    *s = (Seen){at, cap};
  }
  return &s->at[id];
}

static Ir *unshare(Lowerer *L, Ir *e, Seen *seen) {
  bool *mark = seen_mark(L, seen, e->id);
  if (*mark) {
    Ir *copy = new_ir(L, e->kind, e->ty, e->pos);
    int id = copy->id;
    *copy = *e;
    copy->id = id;
    if (e->nelems) {
      copy->elems = arena_calloc(L->arena, (size_t)e->nelems + 1, sizeof *copy->elems);
      memcpy(copy->elems, e->elems, (size_t)e->nelems * sizeof *e->elems);
    }
    e = copy;
  } else {
    *mark = true;
  }
  Ir **kids[] = {&e->a, &e->b, &e->c, &e->body};
  for (int i = 0; i < 4; i++)
    if (*kids[i]) *kids[i] = unshare(L, *kids[i], seen);
  for (int i = 0; i < e->nelems; i++) e->elems[i] = unshare(L, e->elems[i], seen);
  return e;
}

IrProgram *lower_program(Program *prog) {
  if (prog->ir) return prog->ir;
  IrProgram *ir = arena_alloc(prog->arena, sizeof *ir);
  ir->prog = prog;
  ir->arena = prog->arena;
  Scope top;
  Lowerer L = {.ir = ir, .arena = prog->arena, .top = &top};
  open_scope(&L, &top);
  L.defs = arena_calloc(L.arena, (size_t)prog->ndefs + 1, sizeof *L.defs);
  Cv *v = lower(&L, prog->main->body, NULL);
  ir->main = wrap_lets(&top, as_code(&L, v, prog->main->pos));
  Seen seen = {0};
  ir->main = unshare(&L, ir->main, &seen);
  hoist_invariants(ir);
  plan_program(ir);
  return prog->ir = ir;
}

//
// The IR printer (tests and debugging): one S-expression per node.
//

static void print_type(FILE *out, Type *t) {
  switch (t->kind) {
  case T_INT: fputs("int", out); return;
  case T_FLOAT: fputs("float", out); return;
  case T_BOOL: fputs("bool", out); return;
  case T_PAIR:
    fputc('(', out);
    print_type(out, t->a);
    fputs(", ", out);
    print_type(out, t->b);
    fputc(')', out);
    return;
  default: fputs("[]", out); print_type(out, t->a); return;
  }
}

static const char *const kind_names[] = {
    "int", "float", "bool", "param", "input", "var", "let", "if", "ifs", "binop", "unop",
    "pair", "fst", "snd", "vec", "length", "entry", "hd", "tl", "inits", "tails", "redconcat",
    "dummyvec", "map", "fold", "prefix", "pair_map", "c_prod", "iter", "iota", "split", "merge",
    "neighbours", "reverse", "dh", "lambda"};

static void print_ir(FILE *out, IrProgram *ir, Ir *e, int indent) {
  fprintf(out, "%*s(%s", indent, "", kind_names[e->kind]);
  if (e->kind == IR_BINOP || e->kind == IR_UNOP) fprintf(out, " %s%s", op_name(e->op), e->lazy ? " lazy" : "");
  if (e->kind == IR_INT || e->kind == IR_BOOL) fprintf(out, " %lld", (long long)e->ival);
  if (e->kind == IR_FLOAT) fprintf(out, " %.17g", e->fval);
  if (e->kind == IR_PARAM) fprintf(out, " %s", ir->prog->params[e->index]->name);
  if (e->kind == IR_INPUT) fprintf(out, " %s", ir->prog->inputs[e->index]->name);
  if (e->var) fprintf(out, " %s%d", e->var->name, e->var->id);
  if (e->x) fprintf(out, " \\%s%d", e->x->name, e->x->id);
  if (e->y) fprintf(out, " %s%d", e->y->name, e->y->id);
  if (ir_is_skeleton(e->kind) && e->mode == MODE_TOP) fprintf(out, " top r%d.%d", e->region->id, e->stage);
  if (ir_is_skeleton(e->kind) && e->mode == MODE_LOCAL) fputs(e->fused ? " local fused" : " local", out);
  fputs(" : ", out);
  print_type(out, e->ty);
  Ir *kids[ir_max_kids(e)];
  int n = ir_kids(e, kids);
  for (int i = 0; i < n; i++) {
    fputc('\n', out);
    print_ir(out, ir, kids[i], indent + 2);
  }
  fputc(')', out);
}

void lower_print(FILE *out, IrProgram *ir) {
  print_ir(out, ir, ir->main, 0);
  fputc('\n', out);
  for (int r = 0; r < ir->nregions; r++) {
    Region *g = ir->regions[r];
    fprintf(out, "region %d: %d stages, captures", g->id, g->nstages);
    for (int i = 0; i < g->ncaptured; i++) fprintf(out, " %s%d", g->captured[i]->name, g->captured[i]->id);
    for (int i = 0; i < g->ninputs; i++) fprintf(out, " %s", ir->prog->inputs[g->inputs[i]->index]->name);
    fputc('\n', out);
  }
}
