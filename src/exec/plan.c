// plan.c: the execution plan: which skeleton applications run in parallel,
// how they chain into regions, what is fused, and what data each region
// captures. The code generator and the exact cost model both read the plan
// it leaves in the IR (docs/compiler.md); its rules are the plan_* functions
// below, which the paper model (src/cost) asks too.
#include "exec/exec.h"
#include "exec/ir.h"

#include <string.h>

typedef struct Planner {
  IrProgram *ir;  // the program being planned
  PtrVec regions; // Region *, in order of creation
  bool *bound;    // by var id: bound inside the body being scanned
  bool *seen;     // by var id / input index: already captured
} Planner;

// Appends item to an arena-allocated array of n pointers (short lists only).
static void *append(Arena *a, void *array, int n, void *item) {
  void **grown = arena_calloc(a, (size_t)n + 1, sizeof *grown);
  if (n) memcpy(grown, array, (size_t)n * sizeof *grown);
  grown[n] = item;
  return grown;
}

//
// The rules.
//

int64_t plan_block_start(int64_t n, int p, int k) { return (int64_t)((__int128)n * k / p); }

bool plan_is_skeleton(Builtin b) {
  switch (b) {
  case B_MAP: case B_FOLD: case B_PAIR_MAP: case B_C_PROD: case B_PREFIX: case B_INITS: case B_TAILS: return true;
  default: return false;
  }
}

bool plan_takes_distributed(Builtin b) { return plan_is_skeleton(b) && b != B_PAIR_MAP; }

bool plan_leaves_distributed(Builtin b) { return plan_is_skeleton(b) && b != B_FOLD; }

Builtin ir_builtin(IrKind k) {
  static const struct {
    IrKind kind;
    Builtin b;
  } kinds[] = {{IR_MAP, B_MAP},       {IR_FOLD, B_FOLD},   {IR_PREFIX, B_PREFIX}, {IR_PAIR_MAP, B_PAIR_MAP},
               {IR_C_PROD, B_C_PROD}, {IR_INITS, B_INITS}, {IR_TAILS, B_TAILS}};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (kinds[i].kind == k) return kinds[i].b;
  return B_COUNT_;
}

bool ir_is_skeleton(IrKind k) { return plan_is_skeleton(ir_builtin(k)); }

Ir *plan_chain_arg(Ir *stage) {
  if (!plan_takes_distributed(ir_builtin(stage->kind))) return NULL;  // pair_map: both operands are scattered
  return stage->kind == IR_C_PROD ? stage->b : stage->a;
}

//
// Modes: top is true where code runs at top level on process 0, outside the
// functions of skeletons and the branches of data conditionals.
//

static void mark(Planner *P, Ir *e, bool top) {
  if (!e) return;
  bool skel = ir_is_skeleton(e->kind);
  if (skel) e->mode = top ? MODE_TOP : MODE_LOCAL;
  mark(P, e->a, top);
  bool cond_top = top && e->kind != IR_IF && !(e->kind == IR_BINOP && e->lazy);
  mark(P, e->b, cond_top);
  mark(P, e->c, cond_top);
  mark(P, e->body, top && (e->kind == IR_LET || e->kind == IR_ITER));
  for (int i = 0; i < e->nelems; i++) mark(P, e->elems[i], top);
}

//
// Fusion: a local map, pair_map or prefix that is the vector argument of a
// local map, pair_map, prefix or fold is consumed once, in order, so its
// elements are made inside the consumer's loop (docs/compiler.md, "Fusion").
// Anything else (a variable, c_prod's operands, inits/tails) is materialised.
//

static bool generator(Ir *e) {
  return e && e->mode == MODE_LOCAL && (e->kind == IR_MAP || e->kind == IR_PAIR_MAP || e->kind == IR_PREFIX);
}

static void fuse(Ir *e) {
  if (!e) return;
  bool consumer = e->mode == MODE_LOCAL && (generator(e) || e->kind == IR_FOLD);
  if (consumer && generator(e->a)) e->a->fused = true;
  if (consumer && e->kind == IR_PAIR_MAP && generator(e->b)) e->b->fused = true;
  Ir *kids[] = {e->a, e->b, e->c, e->body};
  for (int i = 0; i < 4; i++) fuse(kids[i]);
  for (int i = 0; i < e->nelems; i++) fuse(e->elems[i]);
}

//
// Captured data: the free variables and the inputs of the stage functions.
//

static void capture(Planner *P, Region *g, Ir *e) {
  if (!e) return;
  if (e->kind == IR_VAR && !P->bound[e->var->id] && !P->seen[e->var->id]) {
    P->seen[e->var->id] = true;
    g->captured = append(P->ir->arena, g->captured, g->ncaptured++, e->var);
  }
  if (e->kind == IR_INPUT && !P->seen[P->ir->nvars + 1 + e->index]) {
    P->seen[P->ir->nvars + 1 + e->index] = true;
    g->inputs = append(P->ir->arena, g->inputs, g->ninputs++, e);
  }
  IrVar *binds[] = {e->kind == IR_LET ? e->var : NULL, e->x, e->y};
  for (int i = 0; i < 3; i++)
    if (binds[i]) P->bound[binds[i]->id] = true;
  capture(P, g, e->a);
  capture(P, g, e->b);
  capture(P, g, e->c);
  capture(P, g, e->body);
  for (int i = 0; i < e->nelems; i++) capture(P, g, e->elems[i]);
}

static void find_captured(Planner *P, Region *g) {
  size_t n = (size_t)P->ir->nvars + 1 + (size_t)P->ir->prog->ninputs;
  P->bound = arena_calloc(P->ir->arena, n, sizeof *P->bound);
  P->seen = arena_calloc(P->ir->arena, n, sizeof *P->seen);
  for (int s = 0; s < g->nstages; s++) {
    Ir *e = g->stages[s];
    if (e->x) P->bound[e->x->id] = true;  // inits and tails have no function
    if (e->y) P->bound[e->y->id] = true;
    capture(P, g, e->body);
  }
}

//
// Regions: a parallel application joins the region of its distributed
// argument when that argument is itself a parallel application whose result
// stays distributed (anything but fold).
//

static void chain(Planner *P, Ir *e) {
  if (!e) return;
  Ir *kids[] = {e->a, e->b, e->c, e->body};
  for (int i = 0; i < 4; i++) chain(P, kids[i]);
  for (int i = 0; i < e->nelems; i++) chain(P, e->elems[i]);
  if (!ir_is_skeleton(e->kind) || e->mode != MODE_TOP) return;
  Ir *arg = plan_chain_arg(e);
  Region *g;
  if (arg && ir_is_skeleton(arg->kind) && arg->mode == MODE_TOP && plan_leaves_distributed(ir_builtin(arg->kind))) {
    g = arg->region;
  } else {
    g = arena_alloc(P->ir->arena, sizeof *g);
    g->id = P->regions.len + 1;
    g->first = e;
    ptrvec_push(P->ir->arena, &P->regions, g);
  }
  e->stage = g->nstages;
  g->stages = append(P->ir->arena, g->stages, g->nstages++, e);
  g->root = e;
  e->region = g;
}

void plan_program(IrProgram *ir) {
  Planner P = {.ir = ir};
  mark(&P, ir->main, true);
  fuse(ir->main);
  chain(&P, ir->main);
  ir->nregions = P.regions.len;
  ir->regions = (Region **)P.regions.data;
  for (int r = 0; r < ir->nregions; r++) find_captured(&P, ir->regions[r]);
}
