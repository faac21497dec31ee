// plan.c: the execution plan: which skeleton applications run in parallel,
// how they chain into regions, what is fused, and what data each region
// captures. The code generator and the exact cost model both read the plan
// it leaves in the IR (docs/compiler.md); its rules are the plan_* functions
// below, which the paper model (src/cost) asks too.
#include "ir/ir.h"

#include <math.h>
#include <string.h>

typedef struct Planner {
  IrProgram *ir;  // the program being planned
  PtrVec regions; // Region *, in order of creation
  bool *bound;    // by var id: bound inside the body being scanned
  bool *seen;     // by var id / input index: already captured
  Region *capturing;  // the region whose captured data is being found
  struct Path *at;  // by var id: the carried path to a let-bound value
  int *stamp;       // by var id: which scan set at (the others are stale)
  int scan;         // the scan in progress
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

bool plan_is_skeleton(Builtin b) {
  switch (b) {
  case B_MAP: case B_FOLD: case B_PAIR_MAP: case B_C_PROD: case B_PREFIX: case B_INITS: case B_TAILS: return true;
  case B_ZIP: case B_MAP2: return true;  // pair_map's (lower.c)
  case B_DH: case B_NEIGHBOURS: return true;
  default: return false;
  }
}

bool plan_takes_distributed(Builtin b) { return plan_is_skeleton(b) && b != B_PAIR_MAP && b != B_ZIP && b != B_MAP2; }

bool plan_leaves_distributed(Builtin b) { return plan_is_skeleton(b) && b != B_FOLD; }

Builtin ir_builtin(IrKind k) {
  static const struct {
    IrKind kind;
    Builtin b;
  } kinds[] = {{IR_MAP, B_MAP},       {IR_FOLD, B_FOLD},   {IR_PREFIX, B_PREFIX}, {IR_PAIR_MAP, B_PAIR_MAP},
               {IR_C_PROD, B_C_PROD}, {IR_INITS, B_INITS}, {IR_TAILS, B_TAILS}, {IR_DH, B_DH},
               {IR_NEIGHBOURS, B_NEIGHBOURS}};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (kinds[i].kind == k) return kinds[i].b;
  return B_COUNT_;
}

bool ir_is_skeleton(IrKind k) { return plan_is_skeleton(ir_builtin(k)); }

Ir *plan_chain_arg(Ir *stage) {
  if (!plan_takes_distributed(ir_builtin(stage->kind))) return NULL;  // pair_map: both operands are scattered
  return stage->kind == IR_C_PROD ? stage->b : stage->kind == IR_NEIGHBOURS ? stage->c : stage->a;
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

static void fuse(Ir *e, void *unused) {
  (void)unused;
  bool consumer = e->mode == MODE_LOCAL && (generator(e) || e->kind == IR_FOLD);
  if (consumer && generator(e->a)) e->a->fused = true;
  if (consumer && e->kind == IR_PAIR_MAP && generator(e->b)) e->b->fused = true;
}

//
// Carried dependencies: the operations one iteration of a fold, prefix or
// iter must finish before the next can start (the path from the accumulator
// to the operator's result), by latency class. A loop runs no faster than
// that path, however few operations it does (docs/cost-model.md, "Carried
// dependencies"). Vector-valued work breaks the path: its elements do not
// wait for each other.
//

// A path's operations by class; len, its length in typical cycles, picks
// the longest (the machine file has this machine's latencies).
typedef struct Path {
  int n[LAT_CLASSES];  // operations on the path, by class
  int len;             // nominal length; negative: not reached from the accumulator
} Path;

static const int nominal_latency[LAT_CLASSES] = {1, 3, 3, 20, 3};
static const Path no_path = {.len = -1};

static Path longer(Path a, Path b) { return a.len >= b.len ? a : b; }

static Path extend(Path p, LatClass c) {
  if (p.len < 0) return p;
  p.n[c]++;
  p.len += nominal_latency[c];
  return p;
}

static LatClass op_class(Ir *e) {
  bool fp = e->a->ty->kind == T_FLOAT;
  switch (e->op) {
  case OP_MAX: case OP_MIN: return LAT_SELECT;
  case OP_AND: case OP_OR: return LAT_SELECT;  // lazy: a conditional, as an `if` is
  case OP_MUL: return LAT_MUL;
  case OP_DIV: case OP_MOD:
    return (LatClass[]){[DIVIDE_BY_SHIFTS] = LAT_FAST, [DIVIDE_BY_RECIPROCAL] = LAT_MUL, [DIVIDE] = LAT_DIV,
                        [FLOAT_BY_RECIPROCAL] = LAT_FLOAT, [FLOAT_DIVIDE] = LAT_DIV}[plan_division(e)];
  case OP_ADD: case OP_SUB: return fp ? LAT_FLOAT : LAT_FAST;
  default: return LAT_FAST;
  }
}

static Path carried_path(Planner *P, IrVar *acc, Ir *e);

// The longest path to any of e's operands.
static Path operands_path(Planner *P, IrVar *acc, Ir *e) {
  Path p = no_path;
  Ir *kids[] = {e->a, e->b, e->c};
  for (int i = 0; i < 3; i++)
    if (kids[i]) p = longer(p, carried_path(P, acc, kids[i]));
  return p;
}

// The longest path from the accumulator acc to e's value.
static Path carried_path(Planner *P, IrVar *acc, Ir *e) {
  switch (e->kind) {
  case IR_VAR:
    if (e->var == acc) return (Path){0};
    return P->stamp[e->var->id] == P->scan ? P->at[e->var->id] : no_path;
  case IR_LET:
    P->at[e->var->id] = carried_path(P, acc, e->a);
    P->stamp[e->var->id] = P->scan;
    return carried_path(P, acc, e->body);
  case IR_BINOP: return extend(operands_path(P, acc, e), op_class(e));
  case IR_UNOP: return extend(operands_path(P, acc, e), e->op == OP_FLOAT ? LAT_FLOAT : LAT_FAST);
  case IR_IF: return extend(operands_path(P, acc, e), LAT_SELECT);
  case IR_IFS: return longer(carried_path(P, acc, e->b), carried_path(P, acc, e->c));  // the condition is a size
  case IR_PAIR: case IR_FST: case IR_SND: case IR_HD: case IR_ENTRY: return operands_path(P, acc, e);
  default: return no_path;  // constants, sizes and vector-valued work
  }
}

// The carried path of one iteration of e's own loop (none if it has none).
static Path own_path(Planner *P, Ir *e) {
  bool carries = e->kind == IR_FOLD || e->kind == IR_PREFIX || e->kind == IR_ITER;
  if (!carries) return no_path;
  P->scan++;
  Path p = carried_path(P, e->x, e->body);
  if (e->kind != IR_ITER || !e->y) return p;
  P->scan++;  // an iteration over a pair carries both its variables
  return longer(p, carried_path(P, e->y, e->body));
}

// A local loop and the fused generators made inside it run as one loop: its
// iterations wait for the longest of their carried paths, not their sum.
static Path loop_path(Planner *P, Ir *e) {
  Path p = own_path(P, e);
  if (e->kind == IR_ITER) return p;
  if (e->a && e->a->fused) p = longer(p, loop_path(P, e->a));
  if (e->kind == IR_PAIR_MAP && e->b->fused) p = longer(p, loop_path(P, e->b));
  return p;
}

static void set_carried(int to[LAT_CLASSES], Path p) {
  for (int c = 0; c < LAT_CLASSES; c++) to[c] = p.len > 0 ? p.n[c] : 0;
}

static void carry(Ir *e, void *planner) {
  Planner *P = planner;
  if (e->kind == IR_ITER || (ir_is_skeleton(e->kind) && (e->mode == MODE_TOP || !e->fused)))
    set_carried(e->carried, e->mode == MODE_TOP ? own_path(P, e) : loop_path(P, e));
}

// Alone, a region's stages are one fused pass.
static void carry_alone(Planner *P, Region *g) {
  Path p = no_path;
  for (int s = 0; s < g->nstages; s++) p = longer(p, own_path(P, g->stages[s]));
  set_carried(g->carried_alone, p);
}

//
// Loops over a parameter: a skeleton applies its function to each element
// of a vector; where the elements' lengths vary, the function's loops over
// its parameter change trip count from one application to the next, and
// the exact model counts their mispredicted exits (docs/cost-model.md,
// "Loop exits").
//

// Does a loop over e run once per element of v (v itself, a fused
// generator over it, or its inits or tails)?
static bool along(Ir *e, IrVar *v) {
  if (e->kind == IR_VAR) return e->var == v;
  if (e->kind == IR_INITS || e->kind == IR_TAILS) return along(e->a, v);
  if (!e->fused) return false;
  return along(e->a, v) || (e->kind == IR_PAIR_MAP && along(e->b, v));
}

// Loops e runs over the elements of v, not counting those in the functions
// of the skeletons it applies (their own applications count those).
static int loops_over(Ir *e, IrVar *v) {
  if (!e) return 0;
  int n = 0;
  // (neighbours' loop, over c, is left out as merge's, split's and reverse's are)
  if (ir_is_skeleton(e->kind) && e->mode == MODE_LOCAL && !e->fused && e->kind != IR_NEIGHBOURS)
    n += along(e->kind == IR_C_PROD ? e->b : e->a, v) || (e->kind == IR_PAIR_MAP && along(e->b, v));
  Ir *kids[] = {e->a, e->b, e->c, e->kind == IR_LET ? e->body : NULL};
  for (int i = 0; i < 4; i++) n += loops_over(kids[i], v);
  for (int i = 0; i < e->nelems; i++) n += loops_over(e->elems[i], v);
  return n;
}

static void find_loops(Ir *e, void *unused) {
  (void)unused;
  if (ir_is_skeleton(e->kind) && e->body) {
    e->loops_over[0] = loops_over(e->body, e->x);
    e->loops_over[1] = e->y ? loops_over(e->body, e->y) : 0;
  }
}

//
// Folds of vectors (docs/compiler.md, "Folds of vectors"). A fold whose
// body is a map or pair_map over its accumulator writes each step's result
// over the accumulator, which is a vector of its own from the second step
// on. And where the fold's elements are made in its loop by a map or
// pair_map whose function ends in a map or pair_map, and the body reads the
// element once, as its operand, that last map runs inside the body's loop:
// the element is never stored. So a fold of columns (matrix-vector (2))
// runs as one loop over each column, as written by hand.
//

typedef struct {
  IrVar *var;
  int n;
} Uses;

static void count_use(Ir *e, void *uses) {
  Uses *u = uses;
  u->n += e->kind == IR_VAR && e->var == u->var;
}

static int uses(Ir *e, IrVar *v) {
  Uses u = {v, 0};
  ir_visit(e, count_use, &u);
  return u.n;
}

static bool is_var(Ir *e, IrVar *v) { return e && e->kind == IR_VAR && e->var == v; }

static bool local_map(Ir *e) { return e->mode == MODE_LOCAL && !e->fused && (e->kind == IR_MAP || e->kind == IR_PAIR_MAP); }

// body's operand that is v (1: a, 2: b), if any.
static int operand_of(Ir *body, IrVar *v) {
  if (is_var(body->a, v)) return 1;
  return body->kind == IR_PAIR_MAP && is_var(body->b, v) ? 2 : 0;
}

// The map or pair_map making a fold's elements in its loop, if any: a local
// fold's fused argument, or the stage before a parallel one.
static Ir *element_maker(Ir *fold) {
  Ir *g = fold->mode == MODE_LOCAL ? (fold->a->fused ? fold->a : NULL)
                                   : (fold->stage > 0 ? fold->region->stages[fold->stage - 1] : NULL);
  return g && (g->kind == IR_MAP || g->kind == IR_PAIR_MAP) ? g : NULL;
}

// A map or pair_map reading stored vectors only (no generator of its own,
// whose carried path the body's loop would not see).
static bool plain_map(Ir *e) { return local_map(e) && !e->a->fused && (e->kind == IR_MAP || !e->b->fused); }

// What e computes after its lets (hoist.c's, say).
static Ir *past_lets(Ir *e) {
  while (e->kind == IR_LET) e = e->body;
  return e;
}

static void fold_vector(Ir *fold) {
  Ir *body = fold->body, *maker = element_maker(fold);
  if (fold->ty->kind != T_VEC || ir_type_has_vec(fold->ty->a) || !local_map(body)) return;
  if (uses(body, fold->x) == 1) body->in_place = operand_of(body, fold->x);
  int y = operand_of(body, fold->y);
  if (maker && plain_map(past_lets(maker->body)) && y && uses(body, fold->y) == 1) {
    past_lets(maker->body)->fused = true;
    (y == 1 ? body->a : body->b)->fused = true;
    fold->fuses_element = true;
  }
}

static void find_vector_folds(Ir *e, void *unused) {
  (void)unused;
  if (e->kind == IR_FOLD) fold_vector(e);
}

//
// Messages whose form is the memory layout (docs/compiler.md, "What is
// counted"): vectors of elements whose scalars are words, or of rows of
// such (of one length, as the message says). The sender hands them to
// bsp_send where they lie, and a worker reads its block of the region's
// argument, and the values it receives in full, where the message holds
// them, until the next barrier, unless the region uses them past one:
// prefix's first pass, inits and tails store descriptors of rows, and
// prefix's second pass and every stage after inits or tails apply their
// functions (and so read the captured data) after a barrier.
//

bool plan_int_literal(const Ir *e) {
  return e->kind == IR_INT || (e->kind == IR_UNOP && e->op == OP_NEG && e->a->kind == IR_INT);
}

// A literal scalar, or a negated one (but the most negative int, whose
// negation wraps).
static bool literal(const Ir *e) {
  if (e->kind == IR_UNOP && e->op == OP_NEG && (e->a->kind == IR_FLOAT || (e->a->kind == IR_INT && e->a->ival >= 0)))
    return true;
  return e->kind == IR_INT || e->kind == IR_FLOAT || e->kind == IR_BOOL;
}

bool plan_static_literal(const Ir *e) {
  if (e->kind != IR_VEC || e->nelems == 0) return false;
  for (int i = 0; i < e->nelems; i++)
    if (!literal(e->elems[i])) return false;
  return true;
}

// A float literal, negated or not, whose reciprocal is exact.
static bool power_of_two_float(const Ir *e) {
  if (e->kind == IR_UNOP && e->op == OP_NEG) e = e->a;
  int exp;
  return e->kind == IR_FLOAT && isfinite(e->fval) && fabs(frexp(e->fval, &exp)) == 0.5;
}

// The magnitude of e's divisor, an int literal, negated or not.
static uint64_t divisor(const Ir *e) {
  const Ir *d = e->b->kind == IR_INT ? e->b : e->b->a;
  return d->ival < 0 ? -(uint64_t)d->ival : (uint64_t)d->ival;
}

Division plan_division(const Ir *e) {
  if (e->a->ty->kind == T_FLOAT) return power_of_two_float(e->b) ? FLOAT_BY_RECIPROCAL : FLOAT_DIVIDE;
  if (!plan_int_literal(e->b)) return DIVIDE;
  uint64_t m = divisor(e);
  if (m == 0) return DIVIDE;  // rt_div's test faults: no reciprocal
  return (m & (m - 1)) == 0 ? DIVIDE_BY_SHIFTS : DIVIDE_BY_RECIPROCAL;
}

// What gcc -O2 emits for a signed int64 (tested): / 2: shr, add, sar;
// / 2^k: test, lea, cmov, sar; % 2: shr, lea, and, sub; % 2^k: sar, shr,
// lea, and, sub; nothing by 1. A negative divisor is a negation, counted
// as an operation: the neg after the shift of a `/`.
int plan_shift_extra(const Ir *e) {
  uint64_t m = divisor(e);
  if (m == 1) return 0;
  return e->op == OP_DIV ? (m == 2 ? 2 : 3) : (m == 2 ? 3 : 4);
}

// Packed pairs: what gcc -O2's SLP vectoriser does with a stored pair of
// two ints or two floats whose halves are one operation (docs/cost-model.md,
// "Packed pairs"). It computes both halves with one vector instruction and
// stores them with one 16-byte store, when building the operands' vectors
// costs it no more than the two instructions that saves.

// UNPACKABLE: an operand no vector holds, dearer than any saving.
enum { UNPACKABLE = 1000, PACKED_SAVING = 2 };

static bool var_of(const Ir *e, const IrVar *v) { return e->kind == IR_VAR && e->var == v; }

// Instructions to put `values` scalars (0: two literals; 1: one value, with
// a literal or twice; 2: two values) in one vector register: a float is in
// one already (a shuffle); an int moves in (a move each, then a shuffle).
static int vector_cost(int values, bool floats) {
  if (values == 0) return 0;
  return floats ? 1 : values + 1;
}

static int scalars_cost(const Ir *lo, const Ir *hi, bool floats) {
  bool lo_lit = literal(lo), hi_lit = literal(hi);
  bool one = lo_lit || hi_lit || (lo->kind == IR_VAR && var_of(hi, lo->var));
  return vector_cost(lo_lit && hi_lit ? 0 : one ? 1 : 2, floats);
}

// The cost of the operand vector (lo, hi) of the halves of stage's pair,
// whose element a fused producer makes (NULL: it is read from memory, a
// pair whose one 16-byte load the model still counts as two). A prefix's
// accumulator stays in the vector register it is packed in, but the lower
// total an offset pass applies is made by scalar code before its loop.
static int operand_cost(const Ir *lo, const Ir *hi, const Ir *stage, const Ir *producer, bool offset, bool floats) {
  if ((literal(lo) && literal(hi)) || (lo->kind == IR_VAR && var_of(hi, lo->var))) return scalars_cost(lo, hi, floats);
  if (lo->kind != IR_FST || hi->kind != IR_SND || lo->a->kind != IR_VAR || !var_of(hi->a, lo->a->var))
    return UNPACKABLE;
  const IrVar *v = lo->a->var;
  if (stage->kind == IR_PREFIX && v == stage->x) return offset ? vector_cost(2, floats) : 0;
  const IrVar *element = stage->kind == IR_PREFIX ? stage->y : stage->x;
  if (v != element) return UNPACKABLE;
  if (!producer) return 0;
  if (producer->kind != IR_MAP || producer->body->kind != IR_PAIR) return UNPACKABLE;
  return scalars_cost(producer->body->a, producer->body->b, floats);
}

// The two halves' operations are one: the same, or an int + and - of
// literals (gcc adds the negated literal).
static bool one_operation(const Ir *lo, const Ir *hi, bool floats) {
  if (lo->kind != IR_BINOP || hi->kind != IR_BINOP) return false;
  bool add_sub = (lo->op == OP_ADD || lo->op == OP_SUB) && (hi->op == OP_ADD || hi->op == OP_SUB);
  if (lo->op == hi->op) return add_sub || (floats && lo->op == OP_MUL);
  return add_sub && !floats && literal(lo->b) && literal(hi->b);
}

bool plan_packed_pair(const Ir *stage, const Ir *producer, bool offset) {
  if (stage->kind != IR_MAP && stage->kind != IR_PREFIX) return false;
  const Ir *body = stage->body;
  Type *t = stage->ty->a;
  if (body->kind != IR_PAIR || t->kind != T_PAIR || t->a->kind != t->b->kind) return false;
  bool floats = t->a->kind == T_FLOAT;
  if ((!floats && t->a->kind != T_INT) || !one_operation(body->a, body->b, floats)) return false;
  int cost = operand_cost(body->a->a, body->b->a, stage, producer, offset, floats) +
             operand_cost(body->a->b, body->b->b, stage, producer, offset, floats);
  return cost <= PACKED_SAVING;
}

bool ir_word_flat(Type *t) {
  if (t->kind == T_PAIR) return ir_word_flat(t->a) && ir_word_flat(t->b);
  return t->kind == T_INT || t->kind == T_FLOAT;
}

bool plan_sent_in_place(Type *t) {
  return t->kind == T_VEC && (ir_word_flat(t->a) || (t->a->kind == T_VEC && ir_word_flat(t->a->a)));
}

static bool works_past_barrier(const Region *r) {
  for (int s = 0; s < r->nstages; s++) {
    IrKind k = r->stages[s]->kind;
    if (k == IR_PREFIX || k == IR_INITS || k == IR_TAILS || k == IR_DH || k == IR_NEIGHBOURS) return true;
  }
  return false;
}

bool plan_block_in_place(const Region *r, Type *t) {
  return plan_sent_in_place(t) && (ir_word_flat(t->a) || !works_past_barrier(r));
}

bool plan_full_in_place(const Region *r, Type *t) { return plan_sent_in_place(t) && !works_past_barrier(r); }

//
// Captured data: the free variables and the inputs of the stage functions.
//

static void capture(Ir *e, void *planner) {
  Planner *P = planner;
  Region *g = P->capturing;
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
}

static void find_captured(Planner *P, Region *g) {
  size_t n = (size_t)P->ir->nvars + 1 + (size_t)P->ir->prog->ninputs;
  P->bound = arena_calloc(P->ir->arena, n, sizeof *P->bound);
  P->seen = arena_calloc(P->ir->arena, n, sizeof *P->seen);
  P->capturing = g;
  for (int s = 0; s < g->nstages; s++) {
    Ir *e = g->stages[s];
    if (e->x) P->bound[e->x->id] = true;  // inits and tails have no function
    if (e->y) P->bound[e->y->id] = true;
    ir_visit(e->body, capture, P);
    if (e->kind == IR_DH) ir_visit(e->c, capture, P);  // its second operator (binding its own x, y)
    if (e->kind == IR_NEIGHBOURS) ir_visit(e->a, capture, P), ir_visit(e->b, capture, P);  // its ends
  }
}

//
// Regions: a parallel application joins the region of its distributed
// argument when that argument is itself a parallel application whose result
// stays distributed (anything but fold).
//

// Called on e's operands before e, so that a region's stages come in order.
static void chain(Ir *e, void *planner) {
  Planner *P = planner;
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

// Which nodes hold a skeleton applied at top level.
static bool find_regions(Ir *e) {
  bool holds = ir_is_skeleton(e->kind) && e->mode == MODE_TOP;
  Ir *kids[ir_max_kids(e)];
  int n = ir_kids(e, kids);
  for (int i = 0; i < n; i++) holds |= find_regions(kids[i]);
  return e->holds_region = holds;
}

static int path_length(const int carried[LAT_CLASSES]) {
  int n = 0;
  for (int c = 0; c < LAT_CLASSES; c++) n += carried[c] * nominal_latency[c];
  return n;
}

void plan_pass_carried(const Region *r, const Step *s, int carried[LAT_CLASSES]) {
  memset(carried, 0, LAT_CLASSES * sizeof *carried);
  for (int k = s->from; k <= s->to; k++) {
    Ir *st = r->stages[k];
    bool chain = st->kind == IR_FOLD || (st->kind == IR_PREFIX && !(k == s->from && s->src == SRC_OFFSET));
    if (chain && path_length(st->carried) > path_length(carried)) memcpy(carried, st->carried, LAT_CLASSES * sizeof *carried);
  }
}

void plan_program(IrProgram *ir) {
  Planner P = {.ir = ir};
  mark(&P, ir->main, true);
  find_regions(ir->main);
  ir_visit(ir->main, fuse, NULL);
  ir_visit_after(ir->main, chain, &P);
  ir_visit(ir->main, find_vector_folds, NULL);
  ir->nregions = P.regions.len;
  ir->regions = (Region **)P.regions.data;
  P.at = arena_calloc(ir->arena, (size_t)ir->nvars + 1, sizeof *P.at);
  P.stamp = arena_calloc(ir->arena, (size_t)ir->nvars + 1, sizeof *P.stamp);
  ir_visit(ir->main, carry, &P);
  ir_visit(ir->main, find_loops, NULL);
  for (int r = 0; r < ir->nregions; r++) {
    find_captured(&P, ir->regions[r]);
    carry_alone(&P, ir->regions[r]);
  }
}
