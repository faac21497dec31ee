// region.c: a region's functions, made step by step from the plan's record
// of it (src/ir/steps.c; docs/compiler.md, "Steps"): rN_alone runs the
// region on one process's whole vector, rN_par on every process's block,
// exchanging what its steps say with whom ranges.h says.
#include "codegen/cgint.h"

#include <stdlib.h>

enum { FIELD_EXCHANGE = 1024 };  // + stage: a region's own messages (one exchange per superstep)

const char *exchange_name(Exchange x) {
  static const char *const names[] = {"XCH_SCATTER",        "XCH_BCAST",         "XCH_GATHER",
                                      "XCH_ALLGATHER",      "XCH_INITS",         "XCH_TAILS",
                                      "XCH_PARTIALS",       "XCH_ALLREDUCE",     "XCH_TREE",
                                      "XCH_TOTALS",         "XCH_BUTTERFLY",     "XCH_NEIGHBOURS",
                                      "XCH_LEVEL_SCATTER",  "XCH_LEVEL_BCAST",   "XCH_LEVEL_GATHER",
                                      "XCH_LEVEL_PARTIALS", "XCH_LEVEL_TOTALS"};
  _Static_assert(sizeof names / sizeof *names == XCH_COUNT, "a name for every exchange");
  return names[x];
}

static bool exchange_by_levels(Exchange x) { return x >= XCH_LEVEL_SCATTER && x < XCH_COUNT; }

// Does `from` send `to` a message by pattern x in round `round` (a level
// pattern: up, or down when `down`)? A C expression.
static const char *sends_expr(Cg *g, Exchange x, bool down, const char *from, const char *to, const char *round) {
  if (!exchange_by_levels(x)) return fmt(g, "range_sends(%s, n, P, %s, %s, %s)", exchange_name(x), from, to, round);
  return fmt(g, "range_level_sends(%s, %s, rt_lead, n, P, %s, %s, %s)", exchange_name(x), down ? "true" : "false",
             from, to, round);
}

// What the steps emitted so far left for the next ones.
typedef struct Emit {
  Region *r;
  bool alone;           // rN_alone: the whole vector, no messages
  const char *stored;   // the array the last step stored
  const char *partial;  // a fold's partial result; after its combine, the result
  const char *has;      // whether the partial holds a value
  const char **scan;    // by stage: the local prefix a SINK_SCAN pass stored
  const char **total;   // by stage: the block total (valid when the block is not empty)
  const char **offset;  // by stage: the lower blocks' total, combined
  const char **when;    // by stage: whether there is one
  const char *res;      // the result the gather fills (out ROOT or ALL)
  const char *scratch;  // the mark of the stages' memory, when they may be released
  const char *lo, *hi;  // this process's block bounds (rN_par)
  bool placed;          // the result block was stored in place in res
} Emit;

static int field_of(Ir *stage) { return FIELD_EXCHANGE + stage->stage; }

static Type *elem_type(Ir *stage) { return stage->kind == IR_FOLD ? stage->ty : stage->ty->a; }

//
// Passes.
//

// Where a pass reads its first stage's elements, and the generators of its
// stages up to `last`, each made inside the loop of the next.
static Gen *pass_generators(Cg *g, Emit *m, const Step *s, int last) {
  Region *r = m->r;
  Gen *cur;
  int k = s->from;
  if (s->src == SRC_OFFSET) {  // stage k's stored local prefix, the lower total applied
    cur = gen_offset(g, r->stages[k], gen_array(g, m->scan[k]), m->offset[k], m->when[k]);
    k++;
  } else {
    cur = gen_array(g, s->src == SRC_BLOCK ? "b0" : m->stored);
  }
  for (; k <= last; k++) {
    Ir *st = r->stages[k];
    cur = gen_apply(g, st, cur, st->kind == IR_PAIR_MAP ? gen_array(g, "b1") : NULL);
    if (st->kind == IR_PREFIX && (s->seeded >> k & 1)) cur->seed = m->offset[k], cur->when = m->when[k];
  }
  return cur;
}

// The region's result block stored where the gather after it wants it: in
// place in the result, on process 0 (gather) or on every process (allgather).
static void store_for_gather(Cg *g, Emit *m, Gen *cur, Exchange x) {
  const char *n = gen_len(g, cur);
  const char *dest = x == XCH_ALLGATHER ? fmt(g, "%s.at + %s", m->res, m->lo)
                     : x == XCH_LEVEL_GATHER ? fmt(g, "%s.at", m->res)  // a lead's group starts at its own block
                                             : fmt(g, "pid == 0 ? %s.at : rt_array(%s, sizeof *%s.at)", m->res, n, m->res);
  m->stored = define_temp(g, m->r->root->ty, fmt(g, "{%s, %s}", n, dest));
  gen_store(g, cur, fmt(g, "%s.at", m->stored));
  m->placed = true;
}

static void emit_pass(Cg *g, Emit *m, const Step *s, const Step *next) {
  Ir *sink = m->r->stages[s->to];
  emit(g, "/* pass: stages %d..%d, to the %s at %s */", s->from, s->to, stage_name(sink->kind), where(g, sink->pos));
  Gen *cur = pass_generators(g, m, s, s->sink == SINK_STORE ? s->to : s->to - 1);
  const char *n = gen_len(g, cur);
  switch (s->sink) {
  case SINK_STORE:
    if (next && next->kind == STEP_GATHER && !m->alone) store_for_gather(g, m, cur, next->xch);
    else m->stored = gen_vector(g, cur);
    return;
  case SINK_CPROD: m->stored = cg_c_prod_loop(g, sink, fmt(g, "o%d", s->to), gen_vector(g, cur)); return;
  case SINK_SCAN: {
    const char *t = gen_vector(g, gen_apply(g, sink, cur, NULL));
    m->scan[s->to] = t;
    m->total[s->to] = fmt(g, "%s.at[%s.len - 1]", t, t);
    return;
  }
  case SINK_FOLD: case SINK_REDUCE: {
    const char *acc = define_temp(g, elem_type(sink), "{0}");
    open_block(g, "if (%s > 0)", n);
    gen_fold(g, sink, cur, acc, s->lanes, s->interleaved);
    close_block(g);
    if (s->sink == SINK_REDUCE) {
      m->total[s->to] = acc;
    } else {
      m->partial = acc;
      m->has = temp(g);
      if (!m->alone) emit(g, "bool %s = %s > 0;", m->has, n);  // read by the exchange
    }
    return;
  }
  }
}

//
// Exchanges: the sends by the pattern's ranges, then the barrier; combines:
// what was received, in process order.
//

// Sends value (of stage's element type) wherever pattern x says.
static void send_value(Cg *g, Ir *stage, Exchange x, bool down, const char *round, const char *value) {
  open_block(g, "for (int q = 0; q < P; q++)");
  emit(g, "if (%s) sf_%s(q, rt_head(0, %d, pid), %s);", sends_expr(g, x, down, "pid", "q", round),
       mangle(g, elem_type(stage)), field_of(stage), value);
  close_block(g);
}

// Combines into acc (holding a value when got) the values received from
// the processes q of `range`, in order, with stage's operator.
static void combine_received(Cg *g, Ir *stage, Exchange x, const char *round, const char *range, const char *acc,
                             const char *got) {
  Type *t = elem_type(stage);
  open_block(g, "for (int q = %s; q++)", range);
  emit(g, "if (!%s) continue;", sends_expr(g, x, false, "q", "pid", round));
  const char *y = define_temp(g, t, fmt(g, "rf_%s(rt_find(%d, q))", mangle(g, t), field_of(stage)));
  open_block(g, "if (!%s)", got);
  emit(g, "%s = %s;", acc, y);
  emit(g, "%s = true;", got);
  emit(g, "continue;");
  close_block(g);
  emit(g, "%s = %s;", acc, apply_body(g, stage, acc, y));
  close_block(g);
}

// A fold's tree: in each round a process sends what it holds down, and the
// receiver combines it after its own (ranges.h, XCH_TREE).
static void tree_rounds(Cg *g, Emit *m, Ir *stage) {
  open_block(g, "for (int round = 0; round < range_tree_rounds(P); round++)");
  open_block(g, "if (%s)", m->has);
  send_value(g, stage, XCH_TREE, false, "round", m->partial);
  close_block(g);
  emit_sync(g, "a round of the tree");
  combine_received(g, stage, XCH_TREE, "round", "0; q < P", m->partial, m->has);
  close_block(g);
}

// Values up the levels (ranges.h, XCH_LEVEL_PARTIALS and _TOTALS): in
// each round every child holding a value sends it to its lead, which
// combines what it receives after its own, in process order. For a
// prefix's totals (kept set), no combining at the top round, and every
// round's values kept: kept[r * P + q] is the value of q's group before
// round r, has_kept whether there is one.
static void level_rounds_up(Cg *g, Ir *stage, Exchange x, const char *value, const char *has, const char *kept,
                            const char *has_kept) {
  open_block(g, "for (int round = 0; round < RT_ROUNDS; round++)");
  if (kept) emit(g, "%s[round * P + pid] = %s, %s[round * P + pid] = %s;", kept, value, has_kept, has);
  open_block(g, "if (%s)", has);
  send_value(g, stage, x, false, "round", value);
  close_block(g);
  emit_group_sync(g, "round", kept ? "block totals up the levels" : "partial results up the levels");
  if (kept) {
    open_block(g, "for (int q = pid + 1; q < P; q++)");
    emit(g, "if (!%s) continue;", sends_expr(g, x, false, "q", "pid", "round"));
    emit(g, "%s[round * P + q] = rf_%s(rt_find(%d, q)), %s[round * P + q] = true;", kept, mangle(g, elem_type(stage)),
         field_of(stage), has_kept);
    close_block(g);
  }
  open_block(g, "if (range_level_lead(rt_lead, P, round, pid) == pid%s)", kept ? " && round + 1 < RT_ROUNDS" : "");
  combine_received(g, stage, x, "round", "pid + 1; q < P", value, has);
  close_block(g);
  close_block(g);
}

// A prefix's totals by levels: up as a fold's partials, each group's total
// kept round by round; then down from the top round, each lead sends each
// child with elements the total of the elements before the child's group
// (its own offset combined with the totals of the groups before), which
// becomes the child's offset.
static void level_prefix(Cg *g, Emit *m, Ir *stage) {
  Type *t = elem_type(stage);
  const char *et = mangle(g, t), *total = temp(g), *has = temp(g), *kept = temp(g), *has_kept = temp(g);
  define(g, t, total, "{0}");
  emit(g, "bool %s = %s < %s;", has, m->lo, m->hi);
  emit(g, "if (%s) %s = %s;", has, total, m->total[stage->stage]);
  emit(g, "t_%s *%s = rt_array(RT_ROUNDS * P, sizeof *%s);", et, kept, kept);
  emit(g, "bool *%s = rt_array(RT_ROUNDS * P, sizeof *%s);", has_kept, has_kept);
  emit(g, "memset(%s, 0, (size_t)(RT_ROUNDS * P) * sizeof *%s);", has_kept, has_kept);
  level_rounds_up(g, stage, XCH_LEVEL_TOTALS, total, has, kept, has_kept);
  const char *off = define_temp(g, t, "{0}"), *when = temp(g), *acc = temp(g), *acc_has = temp(g);
  emit(g, "bool %s = false;", when);
  open_block(g, "for (int round = RT_ROUNDS - 1; round >= 0; round--)");
  open_block(g, "if (range_level_lead(rt_lead, P, round, pid) == pid)");
  define(g, t, acc, off);
  emit(g, "bool %s = %s;", acc_has, when);
  emit(g, "int end = range_level_end(rt_lead, P, round, pid);");
  open_block(g, "for (int prev = pid, c = range_level_end(rt_lead, P, round - 1, pid); c < end; prev = c, c = range_level_end(rt_lead, P, round - 1, c))");
  const char *y = fmt(g, "%s[round * P + prev]", kept);
  open_block(g, "if (%s[round * P + prev] && %s)", has_kept, acc_has);
  emit(g, "%s = %s;", acc, apply_body(g, stage, acc, y));
  else_block(g);
  emit(g, "if (%s[round * P + prev]) %s = %s, %s = true;", has_kept, acc, y, acc_has);
  close_block(g);
  emit(g, "if (%s && %s) sf_%s(c, rt_head(0, %d, pid), %s);", acc_has,
       sends_expr(g, XCH_LEVEL_TOTALS, true, "pid", "c", "round"), et, field_of(stage), acc);
  close_block(g);
  close_block(g);
  emit_group_sync(g, "round", "block totals down the levels");
  open_block(g, "if (range_level_child(rt_lead, P, round, pid))");
  emit(g, "const rt_msg *got = rt_find(%d, range_level_lead(rt_lead, P, round, pid));", field_of(stage));
  emit(g, "if (got) %s = rf_%s(got), %s = true;", off, et, when);
  close_block(g);
  close_block(g);
  m->offset[stage->stage] = off, m->when[stage->stage] = when;
}

static void emit_exchange(Cg *g, Emit *m, const Step *s) {
  Ir *stage = m->r->stages[s->to];
  emit(g, "/* exchange: %s at %s */", stage_name(stage->kind), where(g, stage->pos));
  switch (s->xch) {
  case XCH_TOTALS: send_value(g, stage, s->xch, false, "0", m->total[s->to]); break;
  case XCH_TREE: tree_rounds(g, m, stage); return;
  case XCH_LEVEL_PARTIALS: level_rounds_up(g, stage, s->xch, m->partial, m->has, NULL, NULL); return;
  case XCH_LEVEL_TOTALS: level_prefix(g, m, stage); return;
  default:  // the partials of a fold
    open_block(g, "if (%s)", m->has);
    send_value(g, stage, s->xch, false, "0", m->partial);
    close_block(g);
    break;
  }
  emit_sync(g, "the exchange");
}

static void emit_combine(Cg *g, Emit *m, const Step *s) {
  Ir *stage = m->r->stages[s->to];
  switch (s->xch) {  // (by levels: combined in their rounds)
  case XCH_TOTALS: {
    const char *off = define_temp(g, elem_type(stage), "{0}"), *when = temp(g);
    emit(g, "bool %s = false;", when);
    combine_received(g, stage, s->xch, "0", "0; q < pid", off, when);
    m->offset[s->to] = off, m->when[s->to] = when;
    return;
  }
  case XCH_PARTIALS:
    open_block(g, "if (pid == 0)");
    combine_received(g, stage, s->xch, "0", "1; q < P", m->partial, m->has);
    close_block(g);
    return;
  case XCH_ALLREDUCE: {  // every process combines all the partials, its own in its place
    const char *res = define_temp(g, elem_type(stage), "{0}"), *any = temp(g);
    emit(g, "bool %s = false;", any);
    combine_received(g, stage, s->xch, "0", "0; q < pid", res, any);
    open_block(g, "if (%s && %s)", m->has, any);
    emit(g, "%s = %s;", res, apply_body(g, stage, res, m->partial));
    else_block(g);
    emit(g, "if (%s) %s = %s;", m->has, res, m->partial);
    close_block(g);
    emit(g, "%s = %s || %s;", any, any, m->has);
    combine_received(g, stage, s->xch, "0", "pid + 1; q < P", res, any);
    m->partial = res;
    return;
  }
  default: return;  // the tree and the levels combine in their rounds
  }
}

// inits/tails: each process sends every other the part of its block that
// one's segments need, keeps its own part before the barrier (its block
// may live in a message), and after it holds the elements [base, hi).
static void exchange_segments(Cg *g, Emit *m, const Step *s) {
  Ir *stage = m->r->stages[s->to];
  const char *vt = mangle(g, stage->a->ty), *et = mangle(g, stage->a->ty->a), *base = temp(g), *all = temp(g);
  emit(g, "/* exchange: %s at %s */", stage_name(stage->kind), where(g, stage->pos));
  emit(g, "int64_t %s = %s;", base, stage->kind == IR_INITS ? "0" : fmt(g, "n - %s", m->hi));
  open_block(g, "for (int q = 0; q < P; q++)");
  emit(g, "int64_t from, to;");
  emit(g, "range_exchange(%s, n, P, pid, q, 0, &from, &to);", exchange_name(s->xch));
  emit(g, "if (from < to) sb_%s(q, rt_head(0, %d, pid), n, (t_%s){to - from, %s.at + (from - %s)});", vt, field_of(stage),
       vt, m->stored, m->lo);
  close_block(g);
  // the elements [base, base + hi): [0, hi) for inits, [n - hi, n) for tails
  emit(g, "t_%s *%s = rt_array(%s > %s ? %s : 0, sizeof *%s);", et, all, m->hi, m->lo, m->hi, all);
  open_block(g, "/* our own part */");
  emit(g, "int64_t own = %s > %s ? %s : %s;", m->lo, base, m->lo, base);
  emit(g, "if (%s > own) memcpy(%s + (own - %s), %s.at + (own - %s), (size_t)(%s - own) * sizeof *%s);", m->hi, all,
       base, m->stored, m->lo, m->hi, all);
  close_block(g);
  emit_sync(g, "the parts exchanged");
  open_block(g, "for (int q = 0; q < P; q++)");
  emit(g, "int64_t from, to;");
  emit(g, "range_exchange(%s, n, P, q, pid, 0, &from, &to);", exchange_name(s->xch));
  emit(g, "if (from < to) ub_%s(rt_find(%d, q), to - from, %s + (from - %s));", vt, field_of(stage), all, base);
  close_block(g);
  m->stored = define_temp(g, stage->a->ty, fmt(g, "{%s > %s ? %s : 0, %s}", m->hi, m->lo, m->hi, all));
}

// The segments of this process's elements: views of the elements held,
// segment j (of the whole) being [0, j] for inits and [n-1-j, n-1] for
// tails, which m->stored holds from n - hi on. Alone, the whole vector's.
static void emit_segments(Cg *g, Emit *m, const Step *s) {
  Ir *stage = m->r->stages[s->to];
  if (m->alone) {
    m->stored = cg_segments(g, stage, m->stored);
    return;
  }
  const char *res = new_vec(g, stage->ty, fmt(g, "%s - %s", m->hi, m->lo)), *j = temp(g);
  const char *start = stage->kind == IR_INITS ? "0" : fmt(g, "%s.len - 1 - %s", m->stored, j);
  emit(g, "for (int64_t %s = %s; %s < %s; %s++) %s.at[%s - %s] = (%s){%s + 1, %s.at + %s};", j, m->lo, j, m->hi, j, res,
       j, m->lo, ctype(g, stage->a->ty), j, m->stored, start);
  m->stored = res;
}

// The result's blocks up the levels to process 0 (ranges.h,
// XCH_LEVEL_GATHER): a lead holds its group's elements in m->res (process
// 0: the whole result; another lead: from its own block on); in each
// round every child sends its lead what it holds.
static void level_gather(Cg *g, Emit *m) {
  const char *vt = mangle(g, m->r->root->ty);
  int field = field_of(m->r->root);
  emit(g, "/* gather, up the levels */");
  if (!m->placed)
    emit(g, "if (%s.len > 0) memcpy(%s.at, %s.at, (size_t)%s.len * sizeof *%s.at);", m->stored, m->res, m->stored,
         m->stored, m->res);
  open_block(g, "for (int round = 0; round < RT_ROUNDS; round++)");
  open_block(g, "for (int q = 0; q < P; q++)");
  emit(g, "int64_t from, to;");
  emit(g, "range_level_exchange(XCH_LEVEL_GATHER, false, rt_lead, n, P, pid, q, round, &from, &to);");
  emit(g, "if (from < to) sb_%s(q, rt_head(0, %d, pid), n, (t_%s){to - from, %s.at + (from - %s)});", vt, field, vt,
       m->res, m->lo);
  close_block(g);
  emit_group_sync(g, "round", "the gather up the levels");
  open_block(g, "for (int q = 0; q < P; q++)");
  emit(g, "int64_t from, to;");
  emit(g, "range_level_exchange(XCH_LEVEL_GATHER, false, rt_lead, n, P, q, pid, round, &from, &to);");
  emit(g, "if (from < to) ub_%s(rt_find(%d, q), to - from, %s.at + (from - %s));", vt, field, m->res, m->lo);
  close_block(g);
  close_block(g);
  if (m->scratch) emit(g, "rt_release(%s); /* the stages' arrays are dead */", m->scratch);
  m->stored = m->res;
}

// The result's blocks to process 0, or to every process.
static void emit_gather(Cg *g, Emit *m, const Step *s) {
  if (s->xch == XCH_LEVEL_GATHER) {
    level_gather(g, m);
    return;
  }
  const char *vt = mangle(g, m->r->root->ty);
  int field = field_of(m->r->root);
  emit(g, "/* gather */");
  if (!m->placed)  // stored by a c_prod or the segments: this process's part copied in
    emit(g, "if (%s && %s.len > 0) memcpy(%s.at + %s, %s.at, (size_t)%s.len * sizeof *%s.at);",
         s->xch == XCH_ALLGATHER ? "true" : "pid == 0", m->stored, m->res, m->lo, m->stored, m->stored, m->res);
  open_block(g, "for (int q = 0; q < P; q++)");
  emit(g, "int64_t from, to;");
  emit(g, "range_exchange(%s, n, P, pid, q, 0, &from, &to);", exchange_name(s->xch));
  emit(g, "if (from < to) sb_%s(q, rt_head(0, %d, pid), n, %s);", vt, field, m->stored);
  close_block(g);
  if (m->scratch) emit(g, "rt_release(%s); /* the stages' arrays are dead (sent data is copied) */", m->scratch);
  emit_sync(g, "the gather");
  open_block(g, "for (int q = 0; q < P; q++)");
  emit(g, "int64_t from, to;");
  emit(g, "range_exchange(%s, n, P, q, pid, 0, &from, &to);", exchange_name(s->xch));
  emit(g, "if (from < to) ub_%s(rt_find(%d, q), to - from, %s.at + from);", vt, field, m->res);
  close_block(g);
  m->stored = m->res;
}

// dh's rounds: in round r every process sends its block to the one whose
// number differs in bit r, and combines it with its own: the lower one as
// f's left operand, the upper one as g's right operand (ranges.h,
// XCH_BUTTERFLY). A received block of word scalars is read where the
// message holds it; any other is copied out (its vectors would die with it).
static void butterfly_rounds(Cg *g, Ir *stage, const char *blk, bool levels) {
  const char *vt = mangle(g, stage->ty), *part = temp(g), *k = temp(g);
  Type *t = stage->ty->a;
  int field = field_of(stage);
  open_block(g, "for (int round = 0; (1 << round) < P; round++)");
  emit(g, "int q = pid ^ (1 << round);");
  emit(g, "sb_%s(q, rt_head(0, %d, pid), n, %s);", vt, field, blk);
  if (levels)  // partners exchange within the smallest groups that hold both
    emit_group_sync(g, "range_level_meet(rt_lead, P, RT_ROUNDS, round)", "a round of dh, within the groups");
  else
    emit_sync(g, "a round of dh");
  const char *got = fmt(g, "rt_find(%d, q)", field);
  if (ir_word_flat(t)) {
    emit(g, "%s %s = vb_%s(%s, %s.len);", ctype(g, stage->ty), part, vt, got, blk);
  } else {
    define(g, stage->ty, part, fmt(g, "{%s.len, rt_array(%s.len, sizeof(t_%s))}", blk, blk, mangle(g, t)));
    emit(g, "ub_%s(%s, %s.len, %s.at);", vt, got, blk, part);
  }
  for (int upper = 0; upper < 2; upper++) {
    Ir *op = upper ? stage->c : stage;
    if (upper) else_block(g);
    else open_block(g, "if (!(pid & (1 << round)))");
    bool counted = count_static(g, op->body, fmt(g, "%s.len", blk));
    open_block(g, "for (int64_t %s = 0; %s < %s.len; %s++)", k, k, blk, k);
    const char *own = fmt(g, "%s.at[%s]", blk, k), *theirs = fmt(g, "%s.at[%s]", part, k);
    emit(g, "%s.at[%s] = %s;", blk, k, apply_counted(g, op, counted, upper ? theirs : own, upper ? own : theirs));
    close_block(g);
  }
  close_block(g);
  close_block(g);
}

// dh on this process's block: a copy of its own, its local stages and its
// rounds; where the blocks do not align (range_butterfly), the blocks go to
// process 0, which runs dh alone, and its result comes back by blocks.
static void emit_butterfly(Cg *g, Emit *m, const Step *s) {
  Ir *stage = m->r->stages[s->to];
  if (m->alone) {
    m->stored = cg_dh(g, stage, m->stored);
    return;
  }
  emit(g, "/* dh at %s: the butterfly */", where(g, stage->pos));
  emit(g, "if (pid == 0 && (n <= 0 || (n & (n - 1)))) rt_error(%s, \"dh of a vector of length %%\" PRId64 \", which is not a power of two\", n);",
       site(g, stage->pos));
  const char *blk = cg_copy(g, stage->ty, m->stored);
  open_block(g, "if (range_butterfly(n, P))");
  cg_dh_stages(g, stage, blk);
  butterfly_rounds(g, stage, blk, g->pl->region[m->r->id - 1].levels);
  else_block(g);
  int field = field_of(stage);
  CgVal block = {blk, "n"};
  conversion_send(g, block, stage->ty, XCH_GATHER, field);
  emit_sync(g, "dh: the blocks to process 0");
  CgVal whole = conversion_receive(g, block, stage->ty, LAY_BLOCK, LAY_ROOT, XCH_GATHER, field, false);
  open_block(g, "if (pid == 0)");
  cg_dh_stages(g, stage, whole.v);
  close_block(g);
  conversion_send(g, whole, stage->ty, XCH_SCATTER, field);
  emit_sync(g, "dh: its result back by blocks");
  emit(g, "%s = %s;", blk, conversion_receive(g, whole, stage->ty, LAY_ROOT, LAY_BLOCK, XCH_SCATTER, field, false).v);
  close_block(g);
  m->stored = blk;
}

// neighbours on this process's block: its first and last elements sent to
// the nearest processes with elements (ranges.h, XCH_NEIGHBOURS), every
// element with its neighbours made before the barrier (the block may lie
// in a message), the vector's ends at the block's, and after it the
// elements received put at the block's ends. Alone: the whole vector.
static void emit_neighbours(Cg *g, Emit *m, const Step *s) {
  Ir *stage = m->r->stages[s->to];
  const char *l = cg_expr(g, stage->a), *r = cg_expr(g, stage->b);
  if (m->alone) {
    m->stored = cg_neighbours_of(g, stage, l, r, m->stored);
    return;
  }
  const char *et = mangle(g, stage->c->ty->a);
  int field = field_of(stage);
  emit(g, "/* neighbours at %s: the block's ends exchanged */", where(g, stage->pos));
  open_block(g, "for (int q = 0; q < P; q++)");
  emit(g, "int64_t from, to;");
  emit(g, "range_exchange(XCH_NEIGHBOURS, n, P, pid, q, 0, &from, &to);");
  emit(g, "if (from < to) sf_%s(q, rt_head(0, %d, pid), %s.at[from - %s]);", et, field, m->stored, m->lo);
  close_block(g);
  const char *res = cg_neighbours_of(g, stage, l, r, m->stored);
  emit_sync(g, "the neighbours exchanged");
  open_block(g, "for (int q = 0; q < P; q++)");
  emit(g, "int64_t from, to;");
  emit(g, "range_exchange(XCH_NEIGHBOURS, n, P, q, pid, 0, &from, &to);");
  emit(g, "if (from < to && from < %s) %s.at[0].a = rf_%s(rt_find(%d, q));", m->lo, res, et, field);
  emit(g, "else if (from < to) %s.at[%s.len - 1].b.b = rf_%s(rt_find(%d, q));", res, res, et, field);
  close_block(g);
  m->stored = res;
}

static void emit_step(Cg *g, Emit *m, const Step *s, const Step *next) {
  switch (s->kind) {
  case STEP_FETCH: return;  // at the call (top.c): the operands are converted before it
  case STEP_PASS: emit_pass(g, m, s, next); return;
  case STEP_EXCHANGE:
    if (s->xch == XCH_INITS || s->xch == XCH_TAILS) exchange_segments(g, m, s);
    else emit_exchange(g, m, s);
    return;
  case STEP_COMBINE: emit_combine(g, m, s); return;
  case STEP_SEGMENTS: emit_segments(g, m, s); return;
  case STEP_GATHER: emit_gather(g, m, s); return;
  case STEP_BUTTERFLY: emit_butterfly(g, m, s); return;
  case STEP_NEIGHBOURS: emit_neighbours(g, m, s); return;
  }
}

//
// The functions.
//

// The fields of the capture struct: the captured variables, the captured
// inputs, c_prod's operands, as the fetch items are numbered.
typedef struct Field {
  Type *ty;
  const char *name;
} Field;

static int cap_fields(Cg *g, Region *r, Field *f) {
  int n = 0;
  for (int i = 0; i < r->ncaptured; i++) f[n++] = (Field){r->captured[i]->ty, var_name(g, r->captured[i])};
  for (int i = 0; i < r->ninputs; i++) f[n++] = (Field){r->inputs[i]->ty, input_name(g, r->inputs[i]->index)};
  for (int s = 0; s < r->nstages; s++)
    if (r->stages[s]->kind == IR_C_PROD) f[n++] = (Field){r->stages[s]->a->ty, fmt(g, "o%d", s)};
  return n;
}

const char *region_cap_type(Cg *g, Region *r) { return fmt(g, "r%d_cap", r->id); }

// Does the region's result hold no vector made by its stages, so that their
// scratch memory may be released once the result is complete?
static bool region_releases(Region *r) {
  return !ir_type_has_vec(r->root->kind == IR_FOLD ? r->root->ty : r->root->ty->a);
}

// rN_alone (the whole argument, one process) or rN_par (this process's
// block of n): the region's steps; returns the result.
static void region_function(Cg *g, Region *r, const RegionSteps *st, bool alone) {
  Ir *root = r->root;
  const RegionChoice *c = &g->pl->region[r->id - 1];
  buf_printf(g->out, "/* region %d at %s%s */\n", r->id, where(g, root->pos),
             alone ? ": the whole vector on one process, one fused pass" : ": every process's block");
  buf_printf(g->out, "static %s r%d_%s(const r%d_cap *cap", ctype(g, root->ty), r->id, alone ? "alone" : "par", r->id);
  buf_printf(g->out, ", %s b0", ctype(g, r->first->kind == IR_PAIR_MAP ? r->first->a->ty : plan_chain_arg(r->first)->ty));
  if (r->first->kind == IR_PAIR_MAP) buf_printf(g->out, ", %s b1", ctype(g, r->first->b->ty));
  buf_printf(g->out, alone ? ") {\n" : ", int64_t n) {\n");
  g->indent = 1;
  Field f[plan_fetch_max(r)];
  int nf = cap_fields(g, r, f);
  for (int i = 0; i < nf; i++) define(g, f[i].ty, f[i].name, fmt(g, "cap->%s", f[i].name));
  emit(g, "(void)cap;");
  Emit m = {.r = r, .alone = alone, .stored = "b0"};
  const char **by_stage[] = {NULL, NULL, NULL, NULL};
  for (int i = 0; i < 4; i++) by_stage[i] = arena_calloc(g->arena, (size_t)r->nstages + 1, sizeof(char *));
  m.scan = by_stage[0], m.total = by_stage[1], m.offset = by_stage[2], m.when = by_stage[3];
  if (!alone) {
    emit(g, "int pid = bsp_pid(), P = bsp_nprocs();");
    m.lo = define_temp(g, lower_type(g->ir, T_INT, NULL, NULL), "range_lo(n, P, pid)");
    m.hi = define_temp(g, lower_type(g->ir, T_INT, NULL, NULL), "range_lo(n, P, pid + 1)");
    emit(g, "(void)%s, (void)%s;", m.lo, m.hi);
    if (root->kind != IR_FOLD && c->out != LAY_BLOCK && c->levels) {
      // a lead's group's elements, from its own block to the end of its largest group
      emit(g, "int lead_of = -1; /* the last round this process leads its group at */");
      emit(g, "while (lead_of + 1 < RT_ROUNDS && range_level_lead(rt_lead, P, lead_of + 1, pid) == pid) lead_of++;");
      const char *span = fmt(g, "range_lo(n, P, range_level_end(rt_lead, P, lead_of, pid)) - %s", m.lo);
      m.res = define_temp(g, root->ty, fmt(g, "{n, rt_array(%s, sizeof(t_%s))}", span, mangle(g, root->ty->a)));
    } else if (root->kind != IR_FOLD && c->out != LAY_BLOCK) {
      const char *array = fmt(g, "rt_array(n, sizeof(t_%s))", mangle(g, root->ty->a));
      m.res = define_temp(g, root->ty, fmt(g, "{n, %s}", c->out == LAY_ALL ? array : fmt(g, "pid == 0 ? %s : NULL", array)));
    }
    if (region_releases(r) && c->out != LAY_BLOCK) emit(g, "size_t %s = rt_mark();", m.scratch = "scratch");
  }
  for (int i = 0; i < st->nsteps; i++) emit_step(g, &m, &st->steps[i], i + 1 < st->nsteps ? &st->steps[i + 1] : NULL);
  const char *v = root->kind == IR_FOLD ? m.partial : m.stored;
  if (m.scratch && root->kind == IR_FOLD) emit(g, "rt_release(%s);", m.scratch);
  flush_ops(g);
  emit(g, "return %s;", v);
  buf_printf(g->out, "}\n\n");
}

void cg_region_functions(Cg *g, Region *r) {
  Buf *saved_out = g->out;
  int saved_indent = g->indent;
  bool saved_counting = g->counting;
  int64_t saved_pending = g->pending;
  const char **saved_pre = g->pre;
  g->out = &g->regions;
  g->counting = true;
  g->pending = 0;
  g->pre = NULL;
  Field f[plan_fetch_max(r)];
  int nf = cap_fields(g, r, f);
  buf_printf(g->out, "/* region %d: the data its functions read, and c_prod's operands */\ntypedef struct {\n", r->id);
  for (int i = 0; i < nf; i++) buf_printf(g->out, "  %s %s;\n", ctype(g, f[i].ty), f[i].name);
  buf_printf(g->out, "  char unused; /* (a struct needs a member) */\n} r%d_cap;\n\n", r->id);
  RegionChoice alone = g->pl->region[r->id - 1];
  alone.alone = true;
  RegionSteps steps = plan_region_steps(g->ir, r, &alone);
  region_function(g, r, &steps, true);
  if (!g->pl->region[r->id - 1].alone) region_function(g, r, &g->pl->steps[r->id - 1], false);
  g->out = saved_out;
  g->indent = saved_indent;
  g->counting = saved_counting;
  g->pending = saved_pending;
  g->pre = saved_pre;
}
