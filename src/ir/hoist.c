// hoist.c: loop-invariant code motion. A scalar expression inside a
// skeleton's function that reads none of the variables bound there and
// cannot fault is computed once, where the last variable it reads is bound,
// not at every application (docs/compiler.md, "Invariants").
#include "ir/ir.h"

// A place where variables are bound inside a function: a skeleton's body or
// a let's. The lets hoisted there wrap that body.
typedef struct Scope {
  int depth;       // skeleton functions around it (0: main's top level)
  int order;       // scopes entered before it: of two open ones, the later is inside
  Ir *lets;        // the innermost let hoisted here so far (its body: NULL)
  Ir *outermost;   // the first let hoisted here
} Scope;

typedef struct {
  IrProgram *ir;
  int nvars, nnodes;  // before hoisting: the variables and nodes below are the program's
  Scope **scope_of;   // by variable id: where it is bound (NULL: top level)
  int *ops;           // by node id: movable_ops
  int entered;        // scopes entered so far
} Hoister;

static bool scalar(const Type *t) { return t->kind == T_INT || t->kind == T_FLOAT || t->kind == T_BOOL; }

// A division or remainder of ints by anything but a nonzero literal may
// fault (plan_division's DIVIDE); nothing else a movable expression holds can.
static bool may_fault(const Ir *e) {
  return e->kind == IR_BINOP && (e->op == OP_DIV || e->op == OP_MOD) && plan_division(e) == DIVIDE;
}

// The operations of e if it is scalar work that cannot fault (literals,
// variables, sizes, lengths, operations, data conditionals), else -1; its
// operands' are known (a walk after them).
static void movable_ops(Ir *e, void *hoister) {
  int *ops = ((Hoister *)hoister)->ops, n = -1;
  if (e->kind == IR_LENGTH) n = e->a->kind == IR_VAR || e->a->kind == IR_INPUT ? 0 : -1;
  else if (!scalar(e->ty) || may_fault(e)) n = -1;
  else if (e->kind == IR_INT || e->kind == IR_FLOAT || e->kind == IR_BOOL || e->kind == IR_PARAM || e->kind == IR_INPUT ||
           e->kind == IR_VAR)
    n = 0;
  else if (e->kind == IR_BINOP || e->kind == IR_UNOP || e->kind == IR_IF) {
    n = 1;
    Ir *kids[] = {e->a, e->b, e->c};
    for (int i = 0; i < 3 && n >= 0; i++)
      if (kids[i]) n = ops[kids[i]->id] < 0 ? -1 : n + ops[kids[i]->id];
  }
  ops[e->id] = n;
}

// The innermost open scope of a variable e reads (NULL: none, or only
// top-level ones).
static Scope *innermost_read(Hoister *h, const Ir *e, Scope *inner) {
  if (e->kind == IR_VAR && e->var->id <= h->nvars) {
    Scope *s = h->scope_of[e->var->id];
    if (s && (!inner || s->order > inner->order)) inner = s;
  }
  Ir *kids[ir_max_kids(e)];
  int n = ir_kids(e, kids);
  for (int i = 0; i < n; i++) inner = innermost_read(h, kids[i], inner);
  return inner;
}

static void hoist(Hoister *h, Ir **slot, int depth);

// *slot moves to scope s: a let there binds a new variable to it, and *slot
// reads that variable instead. What it holds may move further out.
static void move(Hoister *h, Ir **slot, Scope *s) {
  Ir *e = *slot;
  IrVar *v = arena_alloc(h->ir->arena, sizeof *v);
  v->id = ++h->ir->nvars, v->name = "invariant", v->ty = e->ty;
  Ir *let = arena_alloc(h->ir->arena, sizeof *let), *use = arena_alloc(h->ir->arena, sizeof *use);
  *let = (Ir){.kind = IR_LET, .pos = e->pos, .var = v, .a = e, .id = h->ir->nnodes++};
  *use = (Ir){.kind = IR_VAR, .ty = e->ty, .pos = e->pos, .var = v, .id = h->ir->nnodes++};
  if (s->lets) s->lets->body = let;
  else s->outermost = let;
  s->lets = let;
  *slot = use;
  hoist(h, &let->a, s->depth);
}

// The body in *slot, where vars (NULL: none) are bound at depth: its own
// scope, whose lets wrap it at the end.
static void hoist_scope(Hoister *h, Ir **slot, IrVar *const vars[2], int depth) {
  Scope s = {.depth = depth, .order = h->entered++};
  for (int i = 0; i < 2; i++)
    if (vars[i]) h->scope_of[vars[i]->id] = &s;
  hoist(h, slot, depth);
  for (int i = 0; i < 2; i++)
    if (vars[i]) h->scope_of[vars[i]->id] = NULL;
  if (!s.outermost) return;
  s.lets->body = *slot;
  for (Ir *let = s.outermost; let != *slot; let = let->body) let->ty = (*slot)->ty;
  *slot = s.outermost;
}

// Moves the invariant expressions under *slot (inside depth skeleton
// functions) out of the loops they are in, to a scope inside a function:
// main's top level runs on the processes the plan chooses, and moving work
// there would change the plan. (A walk of its own: it replaces operands
// where they are held, and a body is a scope.)
static void hoist(Hoister *h, Ir **slot, int depth) {
  Ir *e = *slot;
  if (depth > 1 && e->id < h->nnodes && h->ops[e->id] > 0) {
    Scope *s = innermost_read(h, e, NULL);
    if (s && s->depth >= 1 && s->depth < depth) return move(h, slot, s);
  }
  Ir **kids[] = {&e->a, &e->b, &e->c};
  for (int i = 0; i < 3; i++)
    if (*kids[i]) hoist(h, kids[i], depth);
  for (int i = 0; i < e->nelems; i++) hoist(h, &e->elems[i], depth);
  if (!e->body) return;
  bool let = e->kind == IR_LET;  // else a skeleton's, iter's or dh's second operator's function
  IrVar *vars[2] = {let ? e->var : e->x, let ? NULL : e->y};
  hoist_scope(h, &e->body, vars, depth + !let);
}

void hoist_invariants(IrProgram *ir) {
  Arena *a = ir->arena;
  Hoister h = {.ir = ir, .nvars = ir->nvars, .nnodes = ir->nnodes,
               .scope_of = arena_calloc(a, (size_t)ir->nvars + 1, sizeof(Scope *)),
               .ops = arena_calloc(a, (size_t)ir->nnodes + 1, sizeof(int))};
  ir_visit_after(ir->main, movable_ops, &h);
  hoist(&h, &ir->main, 0);
}
