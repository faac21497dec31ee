// layout.c: where every value computed at top level lives under a plan's
// choices (docs/compiler.md, "Layouts"): each top-level node is made in one
// layout (have) and read by its consumer in another (need), with a
// conversion between them when they differ; a region's operands are
// converted by its fetch. The code generator and the exact model both read
// these tables; neither decides a layout itself.
#include "ir/ir.h"

#include <string.h>

Exchange plan_conversion(Layout from, Layout to) {
  if (from == to || from == LAY_NONE || to == LAY_NONE) return XCH_COUNT;
  if (from == LAY_ALL) return XCH_COUNT;  // read on process 0, or as a block: a view of it
  if (from == LAY_ROOT) return to == LAY_ALL ? XCH_BCAST : XCH_SCATTER;
  return to == LAY_ROOT ? XCH_GATHER : XCH_ALLGATHER;
}

Exchange plan_conversion_by(Layout from, Layout to, bool levels) {
  Exchange x = plan_conversion(from, to);
  if (!levels) return x;
  return x == XCH_SCATTER ? XCH_LEVEL_SCATTER : x == XCH_BCAST ? XCH_LEVEL_BCAST : x;
}

//
// Regions' operands: the top-level nodes a region reads, in the order the
// executor evaluates them (c_prod's operands outermost stage first, then
// the first stage's argument or arguments).
//

static int region_args(const Region *r) { return r->first->kind == IR_PAIR_MAP ? 2 : 1; }

static int region_operands(const Region *r, Ir **out) {
  int n = 0;
  for (int s = r->nstages - 1; s >= 0; s--)
    if (r->stages[s]->kind == IR_C_PROD) out[n++] = r->stages[s]->a;
  if (r->first->kind == IR_PAIR_MAP) {
    out[n++] = r->first->a;
    out[n++] = r->first->b;
  } else {
    out[n++] = plan_chain_arg(r->first);
  }
  return n;
}

int plan_fetch_max(const Region *r) { return r->ncaptured + r->ninputs + r->nstages + 2; }

Layout plan_region_out(const Plan *pl, const Region *r) { return pl->region[r->id - 1].out; }

// Where region r reads a value of its functions (captured, or a c_prod
// operand) and where its argument.
static Layout full_target(const RegionChoice *c) { return c->alone ? c->out : LAY_ALL; }
static Layout arg_target(const RegionChoice *c) { return c->alone ? c->out : LAY_BLOCK; }

int plan_fetch_items(const Plan *pl, const Region *r, FetchItem *items) {
  const RegionChoice *c = &pl->region[r->id - 1];
  int n = 0;
  for (int i = 0; i < r->ncaptured; i++)
    items[n++] = (FetchItem){FETCH_VAR, i, r->captured[i]->ty, pl->var[r->captured[i]->id], full_target(c), XCH_COUNT};
  for (int i = 0; i < r->ninputs; i++)
    items[n++] = (FetchItem){FETCH_INPUT, i, r->inputs[i]->ty, pl->input[r->inputs[i]->index], full_target(c), XCH_COUNT};
  for (int s = 0; s < r->nstages; s++) {
    Ir *o = r->stages[s]->a;
    if (r->stages[s]->kind == IR_C_PROD) items[n++] = (FetchItem){FETCH_OPERAND, s, o->ty, pl->have[o->id], full_target(c), XCH_COUNT};
  }
  Ir *args[2] = {r->first->kind == IR_PAIR_MAP ? r->first->a : plan_chain_arg(r->first),
                 r->first->kind == IR_PAIR_MAP ? r->first->b : NULL};
  for (int i = 0; i < 2 && args[i]; i++)
    items[n++] = (FetchItem){FETCH_ARG, i, args[i]->ty, pl->have[args[i]->id], arg_target(c), XCH_COUNT};
  for (int i = 0; i < n; i++) items[i].xch = plan_conversion_by(items[i].from, items[i].to, c->levels);
  return n;
}

// Does a pass read the region's argument block after a barrier (a prefix
// run again from the lower blocks' total)?
static bool block_read_late(const RegionSteps *st) {
  bool barrier = false;
  for (int i = 0; i < st->nsteps; i++) {
    barrier |= st->steps[i].kind == STEP_EXCHANGE;
    if (barrier && st->steps[i].kind == STEP_PASS && st->steps[i].src == SRC_BLOCK) return true;
  }
  return false;
}

bool plan_fetch_in_place(const Plan *pl, const Region *r, const FetchItem *it) {
  if (it->kind != FETCH_ARG) return plan_full_in_place(r, it->ty);
  return plan_block_in_place(r, it->ty) && !block_read_late(&pl->steps[r->id - 1]);
}

bool plan_fetch_sends(const Plan *pl, const Region *r) {
  if (pl->p == 1) return false;
  FetchItem items[plan_fetch_max(r)];
  int n = plan_fetch_items(pl, r, items);
  for (int i = 0; i < n; i++)
    if (items[i].xch != XCH_COUNT) return true;
  return false;
}

bool plan_one_process(const Plan *pl) {
  for (int r = 0; r < pl->ir->nregions; r++)
    if (!pl->region[r].alone || plan_fetch_sends(pl, pl->ir->regions[r])) return false;
  for (int i = 0; i < pl->ir->nnodes; i++)
    if (pl->need[i] != LAY_NONE && plan_conversion(pl->have[i], pl->need[i]) != XCH_COUNT) return false;
  for (int k = 0; k < pl->ir->prog->ninputs; k++)
    if (pl->input[k] == LAY_BLOCK) return false;
  return true;
}

//
// Deriving the layouts.
//

static Layout derive(Plan *pl, Ir *e);

// e's consumer reads it in layout need; a let passes the need to its body.
static void require(Plan *pl, Ir *e, Layout need) {
  if (e->kind == IR_LET) {
    require(pl, e->body, need);
    pl->have[e->id] = need;
  }
  pl->need[e->id] = need;
}

// The layout a part that runs on one process or on all must take, from its
// operands' layouts: on process 0 if one of them is only there, on every
// process if all of them are everywhere, else as the plan says (a
// distributed operand is gathered to process 0 or to every process).
// In the papers' template all data lives on process 0, but a scalar
// computed from constants and parameters alone is known everywhere (every
// process counts an iter's rounds).
static Layout meet(Plan *pl, Ir *e, const Layout *have, int n) {
  bool root = false, all = true;
  for (int i = 0; i < n; i++) {
    root |= have[i] == LAY_ROOT;
    all &= have[i] == LAY_ALL || have[i] == LAY_NONE;
  }
  if (root || (pl->master && !(all && e->ty->kind != T_VEC))) return LAY_ROOT;
  if (all) return LAY_ALL;
  return pl->place[e->id] == LAY_ALL ? LAY_ALL : LAY_ROOT;
}

// Where a sequential part or operation runs: as the plan chose (on
// process 0 or on every process), else where its operands meet.
static Layout chosen(Plan *pl, Ir *e, const Layout *have, int n) {
  Layout p = pl->place[e->id];
  return p == LAY_ROOT || (p == LAY_ALL && !pl->master) ? p : meet(pl, e, have, n);
}

// The top-level references (variables bound at top level, inputs) in a part
// without regions: it runs where they are.
static int references(Plan *pl, Ir *e, Ir **out, int n) {
  if ((e->kind == IR_VAR && pl->var[e->var->id] != LAY_NONE) || e->kind == IR_INPUT) {
    out[n] = e;
    return n + 1;
  }
  Ir *kids[ir_max_kids(e)];
  int k = ir_kids(e, kids);
  for (int i = 0; i < k; i++) n = references(pl, kids[i], out, n);
  return n;
}

static int count_references(Plan *pl, Ir *e) {
  if ((e->kind == IR_VAR && pl->var[e->var->id] != LAY_NONE) || e->kind == IR_INPUT) return 1;
  Ir *kids[ir_max_kids(e)];
  int k = ir_kids(e, kids), n = 0;
  for (int i = 0; i < k; i++) n += count_references(pl, kids[i]);
  return n;
}

static Layout reference_layout(Plan *pl, Ir *e) {
  return e->kind == IR_INPUT ? pl->input[e->index] : pl->var[e->var->id];
}

// A part without regions: one sequential computation where its references are.
static Layout derive_part(Plan *pl, Ir *e) {
  if (e->kind == IR_VAR || e->kind == IR_INPUT) return pl->have[e->id] = reference_layout(pl, e);
  int n = count_references(pl, e);
  Ir **refs = arena_calloc(pl->ir->arena, (size_t)n + 1, sizeof *refs);
  Layout *have = arena_calloc(pl->ir->arena, (size_t)n + 1, sizeof *have);
  references(pl, e, refs, 0);
  for (int i = 0; i < n; i++) have[i] = pl->have[refs[i]->id] = reference_layout(pl, refs[i]);
  Layout at = chosen(pl, e, have, n);
  for (int i = 0; i < n; i++) require(pl, refs[i], at);
  return pl->have[e->id] = at;
}

static Layout derive_region(Plan *pl, Ir *e) {
  Region *r = e->region;
  RegionChoice *c = &pl->region[r->id - 1];
  Ir *ops[r->nstages + 2];
  int n = region_operands(r, ops);
  for (int i = 0; i < n; i++) derive(pl, ops[i]);
  for (int i = 0; i < n; i++) require(pl, ops[i], i < n - region_args(r) ? full_target(c) : arg_target(c));
  return pl->have[e->id] = c->out;
}

// The layout of a variable bound at top level to a value made in layout
// made: where the plan places it (the place chosen), if it can live there.
static Layout bind_var(Plan *pl, IrVar *v, Layout chosen, Layout made) {
  return pl->var[v->id] = chosen == LAY_NONE || (chosen == LAY_BLOCK && v->ty->kind != T_VEC) ? made : chosen;
}

// A top-level let: its variable lives where its value is made, or where the plan says.
static void derive_let(Plan *pl, Ir *e) {
  Layout made = derive(pl, e->a);
  require(pl, e->a, bind_var(pl, e->var, pl->place[e->id], made));
}

// A top-level iteration over a pair (lower.c, pair_iter): each component
// lives in a layout of its own from one iteration to the next (x's where
// the plan places the iter, y's where it places the first pair), the
// body's lets where the plan places them; the pair after the last
// iteration is made where its components meet (docs/compiler.md,
// "Iterations over pairs").
static Layout derive_pair_iter(Plan *pl, Ir *e) {
  Layout made[2] = {derive(pl, e->a->a), derive(pl, e->a->b)};
  derive(pl, e->b);
  require(pl, e->a->a, bind_var(pl, e->x, pl->place[e->id], made[0]));
  require(pl, e->a->b, bind_var(pl, e->y, pl->place[e->a->id], made[1]));
  require(pl, e->b, LAY_ALL);
  Ir *next = e->body;
  for (; next->kind == IR_LET; next = next->body) derive_let(pl, next);
  derive(pl, next->a);
  derive(pl, next->b);
  require(pl, next->a, pl->var[e->x->id]);
  require(pl, next->b, pl->var[e->y->id]);
  Layout at = derive(pl, e->c);
  require(pl, e->c, at);
  return pl->have[e->id] = at;
}

// A top-level iter whose function runs regions: its value lives in one
// layout from one iteration to the next.
static Layout derive_iter(Plan *pl, Ir *e) {
  if (e->y) return derive_pair_iter(pl, e);
  Layout init = derive(pl, e->a);
  derive(pl, e->b);
  Layout at = bind_var(pl, e->x, pl->place[e->id], init);
  require(pl, e->a, at);
  require(pl, e->b, LAY_ALL);  // every process counts the iterations
  derive(pl, e->body);
  require(pl, e->body, at);
  return pl->have[e->id] = at;
}

// A top-level ifs with regions in a branch: every process takes the branch.
static Layout derive_ifs(Plan *pl, Ir *e) {
  derive(pl, e->a);
  require(pl, e->a, LAY_ALL);
  Layout then = derive(pl, e->b);
  derive(pl, e->c);
  Layout at = pl->place[e->id] != LAY_NONE ? pl->place[e->id] : then;
  require(pl, e->b, at);
  require(pl, e->c, at);
  return pl->have[e->id] = at;
}

// Any other form with a region below it: its operands first, then its own
// operation where they meet.
static Layout derive_operation(Plan *pl, Ir *e) {
  Ir *kids[ir_max_kids(e)];
  int n = ir_kids(e, kids);
  Layout have[n + 1];
  have[n] = LAY_NONE;
  for (int i = 0; i < n; i++) have[i] = derive(pl, kids[i]);
  Layout at = chosen(pl, e, have, n);
  for (int i = 0; i < n; i++) require(pl, kids[i], at);
  return pl->have[e->id] = at;
}

static Layout derive(Plan *pl, Ir *e) {
  if (!ir_holds_region(e)) return derive_part(pl, e);
  switch (e->kind) {
  case IR_LET:
    derive_let(pl, e);
    return pl->have[e->id] = derive(pl, e->body);
  case IR_ITER: return derive_iter(pl, e);
  case IR_IFS: return derive_ifs(pl, e);
  default:
    if (ir_is_skeleton(e->kind) && e->mode == MODE_TOP) return derive_region(pl, e);
    return derive_operation(pl, e);
  }
}

//
// Collective parts: a region, a conversion, or anything holding one runs
// in supersteps on every process together.
//

static bool mark_collective(Plan *pl, Ir *e) {
  bool region = ir_is_skeleton(e->kind) && e->mode == MODE_TOP && e == e->region->root;
  bool c = region || (pl->need[e->id] != LAY_NONE && plan_conversion(pl->have[e->id], pl->need[e->id]) != XCH_COUNT);
  if (region) {
    Ir *ops[e->region->nstages + 2];
    int n = region_operands(e->region, ops);
    for (int i = 0; i < n; i++) mark_collective(pl, ops[i]);
  } else {
    Ir *kids[ir_max_kids(e)];
    int n = ir_kids(e, kids);
    for (int i = 0; i < n; i++) c |= mark_collective(pl, kids[i]);
  }
  return pl->collective[e->id] = c;
}

// Choices that cannot hold, corrected: a region alone runs where its
// result stays (on process 0 or on all); a fold's result lives where its
// method leaves it; a prefix too long for the stage mask is stored.
static void normalise(Plan *pl) {
  for (int r = 0; r < pl->ir->nregions; r++) {
    Region *g = pl->ir->regions[r];
    RegionChoice *c = &pl->region[r];
    if (c->alone && c->out == LAY_BLOCK) c->out = LAY_ROOT;
    if (!c->alone && g->root->kind == IR_FOLD) c->out = c->fold == FOLD_ALLREDUCE ? LAY_ALL : LAY_ROOT;
    if (g->nstages > 64) c->prefix = PREFIX_STORE;
    // A region follows levels only when it runs in parallel on a machine with them.
    c->levels = c->levels && !c->alone && pl->levels.rounds && plan_levels_fit(g);
    if (c->levels && c->out == LAY_ALL) c->out = LAY_ROOT;
    if (c->lanes < 1) c->lanes = 1;
  }
  for (int k = 0; k < pl->ir->prog->ninputs; k++)
    if (pl->input[k] == LAY_BLOCK && pl->ir->prog->inputs[k]->itype->kind != IT_VEC) pl->input[k] = LAY_ALL;
}

void plan_finish(Plan *pl) {
  IrProgram *ir = pl->ir;
  normalise(pl);
  for (int i = 0; i < ir->nnodes; i++) pl->have[i] = pl->need[i] = LAY_NONE;
  for (int i = 0; i <= ir->nvars; i++) pl->var[i] = LAY_NONE;
  Layout at = derive(pl, ir->main);
  require(pl, ir->main, at == LAY_BLOCK && !pl->block_result ? LAY_ROOT : at);
  memset(pl->collective, 0, (size_t)ir->nnodes * sizeof *pl->collective);
  mark_collective(pl, ir->main);
  for (int r = 0; r < ir->nregions; r++) pl->steps[r] = plan_region_steps(ir, ir->regions[r], &pl->region[r]);
}
