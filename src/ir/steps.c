// steps.c: a region's steps under its choice: the loops over the local
// block (which stages each runs, where it reads, what it leaves), the
// exchanges between them, and the gather (docs/compiler.md, "Steps"). The
// code generator emits exactly these steps and the exact model counts
// exactly these; neither decides where a loop ends or who sends what.
#include "ir/ir.h"

typedef struct Builder {
  Step *steps;
  int n;
  int from;          // the first stage of the pass being built
  PassSource src;    // where it reads
  uint64_t seeded;   // prefix stages it runs again from the lower blocks' total
  const Region *r;
  const RegionChoice *c;
} Builder;

static void push(Builder *b, Step s) { b->steps[b->n++] = s; }

// The pass from b->from to stage `to` ending in sink; the next pass starts
// after it, reading what it stored.
static void pass(Builder *b, int to, PassSink sink) {
  Step s = {.kind = STEP_PASS, .from = b->from, .to = to, .src = b->src, .sink = sink, .seeded = b->seeded, .lanes = 1};
  if ((sink == SINK_FOLD || sink == SINK_REDUCE) && plan_pass_laned(b->r, &s)) {
    s.lanes = b->c->lanes;
    s.interleaved = plan_fold_commutes(b->r->stages[to]);
  }
  push(b, s);
}

static void exchange(Builder *b, int stage, Exchange x) {
  push(b, (Step){.kind = STEP_EXCHANGE, .to = stage, .xch = x});
  push(b, (Step){.kind = STEP_COMBINE, .to = stage, .xch = x});
}

// A stage that stores an array the next pass reads (c_prod, inits, tails).
static void restart(Builder *b, int after) {
  b->from = after + 1;
  b->src = SRC_STORED;
  b->seeded = 0;
}

static void prefix_stage(Builder *b, int s) {
  if (b->c->prefix == PREFIX_STORE) {
    pass(b, s, SINK_SCAN);
    exchange(b, s, b->c->levels ? XCH_LEVEL_TOTALS : XCH_TOTALS);
    b->from = s;
    b->src = SRC_OFFSET;
    b->seeded = 0;
  } else {
    pass(b, s, SINK_REDUCE);
    exchange(b, s, b->c->levels ? XCH_LEVEL_TOTALS : XCH_TOTALS);
    b->seeded |= (uint64_t)1 << s;  // the next pass runs these stages again
  }
}

// inits/tails: the elements stored (unless the block is stored already),
// exchanged at p > 1, then the segments made as views.
static void segments_stage(Builder *b, int s) {
  if (b->from < s || b->src == SRC_OFFSET) pass(b, s - 1, SINK_STORE);
  if (!b->c->alone) push(b, (Step){.kind = STEP_EXCHANGE, .to = s, .xch = b->r->stages[s]->kind == IR_INITS ? XCH_INITS : XCH_TAILS});
  push(b, (Step){.kind = STEP_SEGMENTS, .to = s});
  restart(b, s);
}

// dh: the elements stored (unless they are already), then its butterfly
// on them; the stages after it read its result.
static void dh_stage(Builder *b, int s) {
  if (b->from < s || b->src == SRC_OFFSET) pass(b, s - 1, SINK_STORE);
  push(b, (Step){.kind = STEP_BUTTERFLY, .to = s, .xch = XCH_BUTTERFLY});
  restart(b, s);
}

// neighbours: the elements stored (unless they are already), then the
// halo exchanged (at p > 1) and the triples stored; the stages after it
// read them.
static void neighbours_stage(Builder *b, int s) {
  if (b->from < s || b->src == SRC_OFFSET) pass(b, s - 1, SINK_STORE);
  push(b, (Step){.kind = STEP_NEIGHBOURS, .to = s, .xch = XCH_NEIGHBOURS});
  restart(b, s);
}

static void fold_stage(Builder *b, int s) {
  pass(b, s, SINK_FOLD);
  if (b->c->alone) return;
  static const Exchange by_method[] = {XCH_PARTIALS, XCH_TREE, XCH_ALLREDUCE};
  exchange(b, s, b->c->levels ? XCH_LEVEL_PARTIALS : by_method[b->c->fold]);
}

RegionSteps plan_region_steps(IrProgram *ir, const Region *r, const RegionChoice *c) {
  Builder b = {.steps = arena_calloc(ir->arena, 4 * (size_t)r->nstages + 4, sizeof *b.steps), .src = SRC_BLOCK, .r = r, .c = c};
  push(&b, (Step){.kind = STEP_FETCH});
  for (int s = 0; s < r->nstages; s++) {
    switch (r->stages[s]->kind) {
    case IR_PREFIX:
      if (!c->alone) prefix_stage(&b, s);
      break;
    case IR_C_PROD:
      pass(&b, s, SINK_CPROD);
      restart(&b, s);
      break;
    case IR_INITS: case IR_TAILS: segments_stage(&b, s); break;
    case IR_DH: dh_stage(&b, s); break;
    case IR_NEIGHBOURS: neighbours_stage(&b, s); break;
    case IR_FOLD: fold_stage(&b, s); break;
    default: break;  // map, pair_map: made inside the pass that reads them
    }
  }
  if (r->root->kind != IR_FOLD) {
    if (b.from < r->nstages || b.src == SRC_OFFSET) pass(&b, r->nstages - 1, SINK_STORE);
    if (!c->alone && c->out != LAY_BLOCK) {
      Exchange x = c->levels ? XCH_LEVEL_GATHER : c->out == LAY_ALL ? XCH_ALLGATHER : XCH_GATHER;
      push(&b, (Step){.kind = STEP_GATHER, .to = r->nstages - 1, .xch = x});
    }
  }
  return (RegionSteps){b.steps, b.n};
}

// A pass may keep several accumulators when every element is made from its
// own source elements alone (maps, or a stored prefix with its offset: no
// prefix runs inside it) and what it folds are scalars.
bool plan_pass_laned(const Region *r, const Step *s) {
  if (s->seeded) return false;
  for (int k = s->from; k < s->to; k++)
    if (r->stages[k]->kind != IR_MAP && r->stages[k]->kind != IR_PAIR_MAP && !(k == s->from && s->src == SRC_OFFSET))
      return false;
  Ir *sink = r->stages[s->to];
  Type *t = sink->kind == IR_FOLD ? sink->ty : sink->ty->a;
  return ir_word_flat(t) && !sink->fuses_element;
}

// Is e x's part (IR_VAR: x itself; IR_FST, IR_SND: its component)?
static bool is_part(const Ir *e, const IrVar *x, IrKind part) {
  if (part != IR_VAR) {
    if (e->kind != part) return false;
    e = e->a;
  }
  return e->kind == IR_VAR && e->var == x;
}

// Is e a commutative primitive of x's and y's parts?
static bool commutes_on(const Ir *e, const IrVar *x, const IrVar *y, IrKind part) {
  if (e->kind != IR_BINOP) return false;
  if (e->op != OP_ADD && e->op != OP_MUL && e->op != OP_MAX && e->op != OP_MIN && e->op != OP_AND && e->op != OP_OR)
    return false;
  return (is_part(e->a, x, part) && is_part(e->b, y, part)) || (is_part(e->a, y, part) && is_part(e->b, x, part));
}

bool plan_fold_commutes(const Ir *fold) {
  const Ir *b = fold->body;
  if (b->kind == IR_PAIR) return commutes_on(b->a, fold->x, fold->y, IR_FST) && commutes_on(b->b, fold->x, fold->y, IR_SND);
  return commutes_on(b, fold->x, fold->y, IR_VAR);
}
