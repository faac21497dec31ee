// top.c: the program at top level, run by every process (SPMD) under the
// plan's layouts (docs/compiler.md, "Layouts"): a value that lives on
// process 0 is computed there only, one that lives everywhere by every
// process, a distributed one by blocks; conversions and regions run in
// supersteps on all processes together. Also the setup (arguments,
// inputs loaded where the plan wants them) and main.
#include "codegen/cgint.h"

#include <stdlib.h>
#include <string.h>

static CgVal cg_top(Cg *g, Ir *e);

static Type *int_type(Cg *g) { return lower_type(g->ir, T_INT, NULL, NULL); }

// The global length of a distributed variable or input, beside its block
// (len_<its name>: no variable, input or temporary is so named).
static const char *length_name(Cg *g, const char *name) { return fmt(g, "len_%s", name); }

//
// Conversions (plan_conversion): sends, one barrier, then receives. A
// region's fetch converts several values with one barrier.
//

void conversion_send(Cg *g, CgVal v, Type *t, Exchange x, int field) {
  const char *m = mangle(g, t);
  flush_ops(g);
  switch (x) {
  case XCH_BCAST:
    emit(g, "if (pid == 0) for (int q = 1; q < P; q++) sf_%s(q, rt_head(0, %d, 0), %s);", m, field, v.v);
    return;
  case XCH_SCATTER:
    open_block(g, "if (pid == 0) for (int q = 1; q < P; q++)");
    emit(g, "int64_t from, to;");
    emit(g, "range_exchange(XCH_SCATTER, %s.len, P, 0, q, 0, &from, &to);", v.v);
    emit(g, "sb_%s(q, rt_head(0, %d, 0), %s.len, (%s){to - from, %s.at + from});", m, field, v.v, ctype(g, t), v.v);
    close_block(g);
    return;
  case XCH_GATHER: case XCH_ALLGATHER:
    open_block(g, "for (int q = 0; q < P; q++)");
    emit(g, "int64_t from, to;");
    emit(g, "range_exchange(%s, %s, P, pid, q, 0, &from, &to);", exchange_name(x), v.n);
    emit(g, "if (from < to) sb_%s(q, rt_head(0, %d, pid), %s, %s);", m, field, v.n, v.v);
    close_block(g);
    return;
  default: return;
  }
}

// A received block copied out of its message (which dies at the next barrier).
static const char *block_copy(Cg *g, Type *t, const char *msg, const char *len) {
  const char *b = define_temp(g, t, fmt(g, "{%s, rt_array(%s, sizeof(t_%s))}", len, len, mangle(g, t->a)));
  emit(g, "ub_%s(%s, %s, %s.at);", mangle(g, t), msg, len, b);
  return b;
}

CgVal conversion_receive(Cg *g, CgVal v, Type *t, Layout from, Layout to, Exchange x, int field, bool in_place) {
  const char *m = mangle(g, t), *msg = fmt(g, "rt_find(%d, 0)", field);
  switch (x) {
  case XCH_BCAST: {
    const char *got = t->kind == T_VEC && in_place ? fmt(g, "%s_%s(%s, %s->tag.n)", in_place_view(t), m, msg, msg)
                                                   : fmt(g, "rf_%s(%s)", m, msg);
    return (CgVal){define_temp(g, t, fmt(g, "pid == 0 ? %s : %s", v.v, got)), NULL};
  }
  case XCH_SCATTER: {
    const char *n = define_temp(g, int_type(g), fmt(g, "pid == 0 ? %s.len : %s->tag.n", v.v, msg));
    const char *lo = define_temp(g, int_type(g), fmt(g, "range_lo(%s, P, pid)", n));
    const char *len = define_temp(g, int_type(g), fmt(g, "range_lo(%s, P, pid + 1) - %s", n, lo));
    const char *b = define_temp(g, t, fmt(g, "{%s, pid == 0 ? %s.at + %s : NULL}", len, v.v, lo));
    open_block(g, "if (pid != 0)");
    if (in_place) emit(g, "%s = %s_%s(%s, %s);", b, in_place_view(t), m, msg, len);
    else emit(g, "%s = %s;", b, block_copy(g, t, msg, len));
    close_block(g);
    return (CgVal){b, n};
  }
  case XCH_GATHER: case XCH_ALLGATHER: {  // alone, a process's block is the whole vector
    const char *whole = x == XCH_ALLGATHER ? "true" : "pid == 0";
    const char *r = define_temp(g, t, fmt(g, "%s", v.v));
    open_block(g, "if (P > 1)");
    emit(g, "%s = (%s){%s, %s ? rt_array(%s, sizeof(t_%s)) : NULL};", r, ctype(g, t), v.n, whole, v.n, mangle(g, t->a));
    open_block(g, "if (%s)", whole);
    emit(g, "int64_t lo = range_lo(%s, P, pid);", v.n);
    emit(g, "if (%s.len > 0) memcpy(%s.at + lo, %s.at, (size_t)%s.len * sizeof *%s.at);", v.v, r, v.v, v.v, r);
    open_block(g, "for (int q = 0; q < P; q++)");
    emit(g, "int64_t from, to;");
    emit(g, "range_exchange(%s, %s, P, q, pid, 0, &from, &to);", exchange_name(x), v.n);
    emit(g, "if (from < to) ub_%s(rt_find(%d, q), to - from, %s.at + from);", m, field, r);
    close_block(g);
    close_block(g);
    close_block(g);
    return (CgVal){r, NULL};
  }
  default:
    if (from == LAY_ALL && to == LAY_BLOCK) {  // a view of this process's block
      const char *lo = define_temp(g, int_type(g), fmt(g, "range_lo(%s.len, P, pid)", v.v));
      const char *b = define_temp(g, t, fmt(g, "{range_lo(%s.len, P, pid + 1) - %s, %s.at + %s}", v.v, lo, v.v, lo));
      return (CgVal){b, fmt(g, "%s.len", v.v)};
    }
    return (CgVal){v.v, to == LAY_BLOCK ? v.n : NULL};
  }
}

// v converted from one layout to another on its own: one superstep when
// something is sent (at p > 1), copied out of the messages.
static CgVal convert(Cg *g, CgVal v, Type *t, Layout from, Layout to) {
  Exchange x = plan_conversion(from, to);
  if (x != XCH_COUNT) {
    emit(g, "/* %s to %s */", plan_layout_name(from), plan_layout_name(to));
    conversion_send(g, v, t, x, 0);
    flush_ops(g);
    emit(g, "if (P > 1) rt_sync();");
  }
  return conversion_receive(g, v, t, from, to, x, 0, false);
}

// e's value where its consumer reads it.
static CgVal cg_deliver(Cg *g, Ir *e) {
  CgVal v = cg_top(g, e);
  Layout from = g->pl->have[e->id], to = g->pl->need[e->id];
  return to == LAY_NONE || from == to ? v : convert(g, v, e->ty, from, to);
}

//
// Sequential parts: computed on process 0 only, or on every process.
//

// e's own computation (its operands computed already, or computed inside)
// where it lives: on process 0 only, its value elsewhere a placeholder.
static CgVal guarded(Cg *g, Ir *e, Layout at) {
  if (at != LAY_ROOT) return (CgVal){cg_expr(g, e), NULL};
  const char *r = define_temp(g, e->ty, "{0}");
  open_block(g, "if (pid == 0)");
  emit(g, "%s = %s;", r, cg_expr(g, e));
  close_block(g);
  return (CgVal){r, NULL};
}

// The value of a top-level reference as it is: a variable or an input.
static CgVal reference(Cg *g, Ir *e) {
  const char *name = e->kind == IR_VAR ? var_name(g, e->var) : input_name(g, e->index);
  return (CgVal){name, g->pl->have[e->id] == LAY_BLOCK ? length_name(g, name) : NULL};
}

// Converts the top-level references of a part that its placement needs
// elsewhere, before it runs (a conversion is collective).
static void deliver_references(Cg *g, Ir *e) {
  if (e->kind == IR_VAR || e->kind == IR_INPUT) {
    Layout from = g->pl->have[e->id], to = g->pl->need[e->id];
    if (to != LAY_NONE && from != to && (e->kind == IR_INPUT || g->pl->var[e->var->id] != LAY_NONE))
      g->pre[e->id] = convert(g, reference(g, e), e->ty, from, to).v;
    return;
  }
  Ir *kids[ir_max_kids(e)];
  int n = ir_kids(e, kids);
  for (int i = 0; i < n; i++) deliver_references(g, kids[i]);
}

// A part without regions, where the plan placed it.
static CgVal cg_part(Cg *g, Ir *e) {
  if (e->kind == IR_VAR || e->kind == IR_INPUT) return reference(g, e);
  deliver_references(g, e);
  return guarded(g, e, g->pl->have[e->id]);
}

//
// Parts with regions: regions, lets, iter, ifs and operations on their results.
//

// The values a region's fetch converts, as they are.
static CgVal fetch_value(Cg *g, Region *r, const FetchItem *it, CgVal *operand, CgVal *arg) {
  switch (it->kind) {
  case FETCH_VAR: {
    const char *name = var_name(g, r->captured[it->index]);
    return (CgVal){name, it->from == LAY_BLOCK ? length_name(g, name) : NULL};
  }
  case FETCH_INPUT: {
    const char *name = input_name(g, r->inputs[it->index]->index);
    return (CgVal){name, it->from == LAY_BLOCK ? length_name(g, name) : NULL};
  }
  case FETCH_OPERAND: return operand[it->index];
  default: return arg[it->index];
  }
}

// Checks on the region's operands that eval makes, on process 0.
static void region_checks(Cg *g, Region *r, CgVal *b, const char *n) {
  open_block(g, "if (pid == 0)");
  if (r->first->kind == IR_PAIR_MAP)
    check_lengths(g, r->first, b[0].n ? b[0].n : fmt(g, "%s.len", b[0].v), b[1].n ? b[1].n : fmt(g, "%s.len", b[1].v));
  if (r->root->kind == IR_FOLD) emit(g, "rt_nonempty(%s, \"fold\", %s);", n, site(g, r->root->pos));
  close_block(g);
}

// A region's operands down the levels (ranges.h, XCH_LEVEL_SCATTER and
// _BCAST), after its flat ones: from the top round to round 0, each lead
// sends each child its group's elements, or the whole value, from what it
// holds; one sync of the round's groups for all of them.
static void level_fetch(Cg *g, const FetchItem *it, CgVal *got, int n) {
  const char **held_lo = arena_calloc(g->arena, (size_t)n + 1, sizeof *held_lo);
  for (int i = 0; i < n; i++) {
    if (it[i].xch != XCH_LEVEL_SCATTER && it[i].xch != XCH_LEVEL_BCAST) continue;
    got[i].v = define_temp(g, it[i].ty, fmt(g, "pid == 0 ? %s : (%s){0}", got[i].v, ctype(g, it[i].ty)));
    if (it[i].xch == XCH_LEVEL_SCATTER) {
      got[i].n = define_temp(g, int_type(g), fmt(g, "pid == 0 ? %s.len : 0", got[i].v));
      held_lo[i] = define_temp(g, int_type(g), "0");  // the index of the first element held
    }
  }
  open_block(g, "for (int round = RT_ROUNDS - 1; round >= 0; round--)");
  for (int i = 0; i < n; i++) {
    if (!held_lo[i] && it[i].xch != XCH_LEVEL_BCAST) continue;
    const char *m = mangle(g, it[i].ty), *len = held_lo[i] ? got[i].n : fmt(g, "%s", it[i].ty->kind == T_VEC ? fmt(g, "%s.len", got[i].v) : "1");
    open_block(g, "for (int q = 0; q < P; q++)");
    emit(g, "if (!range_level_sends(%s, true, rt_lead, %s, P, pid, q, round)) continue;", exchange_name(it[i].xch), len);
    if (held_lo[i]) {
      emit(g, "int64_t from, to;");
      emit(g, "range_level_exchange(XCH_LEVEL_SCATTER, true, rt_lead, %s, P, pid, q, round, &from, &to);", len);
      emit(g, "sb_%s(q, rt_head(0, %d, pid), %s, (%s){to - from, %s.at + (from - %s)});", m, i, len, ctype(g, it[i].ty),
           got[i].v, held_lo[i]);
    } else {
      emit(g, "sf_%s(q, rt_head(0, %d, pid), %s);", m, i, got[i].v);
    }
    close_block(g);
  }
  emit_group_sync(g, "round", "the fetch, down the levels");
  open_block(g, "if (range_level_child(rt_lead, P, round, pid))");
  emit(g, "int from = range_level_lead(rt_lead, P, round, pid);");
  for (int i = 0; i < n; i++) {
    if (held_lo[i]) {
      const char *msg = temp(g);
      emit(g, "const rt_msg *%s = rt_find(%d, from);", msg, i);
      emit(g, "%s = %s->tag.n;", got[i].n, msg);
      emit(g, "%s = range_lo(%s, P, pid);", held_lo[i], got[i].n);
      emit(g, "int64_t len%s = range_lo(%s, P, range_level_end(rt_lead, P, round - 1, pid)) - %s;", msg, got[i].n,
           held_lo[i]);
      emit(g, "%s.len = len%s, %s.at = rt_array(len%s, sizeof *%s.at);", got[i].v, msg, got[i].v, msg, got[i].v);
      emit(g, "ub_%s(%s, len%s, %s.at);", mangle(g, it[i].ty), msg, msg, got[i].v);
    } else if (it[i].xch == XCH_LEVEL_BCAST) {
      emit(g, "{ const rt_msg *msg = rt_find(%d, from); if (msg) %s = rf_%s(msg); }", i, got[i].v, mangle(g, it[i].ty));
    }
  }
  close_block(g);
  close_block(g);
  for (int i = 0; i < n; i++)  // the block of this process, at the start of what it holds
    if (held_lo[i])
      got[i].v = define_temp(g, it[i].ty, fmt(g, "{range_lo(%s, P, pid + 1) - range_lo(%s, P, pid), %s.at}", got[i].n,
                                                  got[i].n, got[i].v));
}

static CgVal cg_region(Cg *g, Ir *e) {
  Region *r = e->region;
  const RegionChoice *c = &g->pl->region[r->id - 1];
  emit(g, "/* region %d: %s at %s, %s */", r->id, stage_name(e->kind), where(g, e->pos), plan_choice_text(g->arena, r, c));
  CgVal *operand = arena_calloc(g->arena, (size_t)r->nstages + 1, sizeof *operand), arg[2] = {{0}};
  for (int s = r->nstages - 1; s >= 0; s--)  // in the interpreter's order: outermost stage first
    if (r->stages[s]->kind == IR_C_PROD) operand[s] = cg_top(g, r->stages[s]->a);
  arg[0] = cg_top(g, r->first->kind == IR_PAIR_MAP ? r->first->a : plan_chain_arg(r->first));
  if (r->first->kind == IR_PAIR_MAP) arg[1] = cg_top(g, r->first->b);
  FetchItem it[plan_fetch_max(r)];
  int n = plan_fetch_items(g->pl, r, it);
  CgVal *got = arena_calloc(g->arena, (size_t)n + 1, sizeof *got);
  bool sends = false, levels = false;
  // By levels, a process that faults cannot wait for a sync of all (rt_fail).
  if (c->levels) emit(g, "rt_fail_at_once = true;");
  for (int i = 0; i < n; i++) {
    got[i] = fetch_value(g, r, &it[i], operand, arg);
    bool by_levels = it[i].xch == XCH_LEVEL_SCATTER || it[i].xch == XCH_LEVEL_BCAST;
    levels |= by_levels;
    if (it[i].xch != XCH_COUNT && !by_levels) conversion_send(g, got[i], it[i].ty, it[i].xch, i), sends = true;
  }
  flush_ops(g);
  if (sends) emit(g, "if (P > 1) rt_sync(); /* the fetch */");
  for (int i = 0; i < n; i++)
    got[i] = conversion_receive(g, got[i], it[i].ty, it[i].from, it[i].to, it[i].xch, i, plan_fetch_in_place(g->pl, r, &it[i]));
  if (levels) level_fetch(g, it, got, n);
  CgVal *b = &got[n - (r->first->kind == IR_PAIR_MAP ? 2 : 1)];
  const char *len = b[0].n ? b[0].n : fmt(g, "%s.len", b[0].v);
  region_checks(g, r, b, len);
  Buf cap = {0};
  for (int i = 0; i < n - (r->first->kind == IR_PAIR_MAP ? 2 : 1); i++) buf_printf(&cap, "%s, ", got[i].v);
  cg_region_functions(g, r);
  flush_ops(g);
  const char *capture = temp(g);
  emit(g, "r%d_cap %s = {%s0};", r->id, capture, cap.text ? cap.text : "");
  const char *call_args = r->first->kind == IR_PAIR_MAP ? fmt(g, "&%s, %s, %s", capture, b[0].v, b[1].v)
                                                        : fmt(g, "&%s, %s", capture, b[0].v);
  CgVal v = {NULL, c->out == LAY_BLOCK ? define_temp(g, int_type(g), len) : NULL};
  if (c->alone && c->out == LAY_ROOT) {
    v.v = define_temp(g, e->ty, "{0}");
    emit(g, "if (pid == 0) %s = r%d_alone(%s);", v.v, r->id, call_args);
  } else if (c->alone) {
    v.v = define_temp(g, e->ty, fmt(g, "r%d_alone(%s)", r->id, call_args));
  } else {
    v.v = define_temp(g, e->ty, fmt(g, "P == 1 ? r%d_alone(%s) : r%d_par(%s, %s)", r->id, call_args, r->id, call_args, len));
  }
  if (c->levels) emit(g, "rt_fail_at_once = false;");
  free(cap.text);
  return v;
}

// Binds a top-level variable to v (its length beside, if distributed).
static void bind(Cg *g, IrVar *x, CgVal v) {
  define(g, x->ty, var_name(g, x), v.v);
  if (v.n) define(g, int_type(g), length_name(g, var_name(g, x)), v.n);
}

static void assign(Cg *g, IrVar *x, CgVal v) {
  emit(g, "%s = %s;", var_name(g, x), v.v);
  if (v.n) emit(g, "%s = %s;", length_name(g, var_name(g, x)), v.n);
}

// A value held apart from the variable it is assigned to (it may be that
// variable, or read it).
static CgVal held(Cg *g, Type *t, CgVal v) {
  return (CgVal){define_temp(g, t, v.v), v.n ? define_temp(g, int_type(g), v.n) : NULL};
}

// iter whose function runs regions: every process runs the iterations.
// Over a pair (lower.c, pair_iter), its components are the variables: each
// is delivered where its variable lives, the body's lets bound on the way,
// both read before either is assigned; the pair after the last iteration
// is made from them.
static CgVal cg_top_iter(Cg *g, Ir *e) {
  CgVal init = cg_deliver(g, e->y ? e->a->a : e->a), other = e->y ? cg_deliver(g, e->a->b) : (CgVal){0};
  CgVal k = cg_deliver(g, e->b);
  emit(g, "/* iter at %s */", where(g, e->pos));
  emit(g, "if (pid == 0 && %s < 0) rt_error(%s, \"iter with a negative count (%%\" PRId64 \")\", %s);", k.v,
       site(g, e->pos), k.v);
  bind(g, e->x, init);
  if (e->y) bind(g, e->y, other);
  const char *i = temp(g);
  open_block(g, "for (int64_t %s = 0; %s < %s; %s++)", i, i, k.v, i);
  if (e->y) {
    Ir *next = e->body;
    for (; next->kind == IR_LET; next = next->body) bind(g, next->var, cg_deliver(g, next->a));
    CgVal a = held(g, next->a->ty, cg_deliver(g, next->a)), b = held(g, next->b->ty, cg_deliver(g, next->b));
    assign(g, e->x, a);
    assign(g, e->y, b);
  } else {
    assign(g, e->x, cg_deliver(g, e->body));
  }
  close_block(g);
  if (e->y) return cg_deliver(g, e->c);
  return (CgVal){var_name(g, e->x), init.n ? length_name(g, var_name(g, e->x)) : NULL};
}

// ifs whose branches run regions: every process takes the same branch.
static CgVal cg_top_ifs(Cg *g, Ir *e) {
  CgVal c = cg_deliver(g, e->a);
  bool block = g->pl->have[e->id] == LAY_BLOCK;
  const char *r = define_temp(g, e->ty, "{0}"), *n = block ? define_temp(g, int_type(g), "0") : NULL;
  Ir *branch[2] = {e->b, e->c};
  open_block(g, "if (%s != 0)", c.v);
  for (int i = 0; i < 2; i++) {
    if (i) else_block(g);
    CgVal v = cg_deliver(g, branch[i]);
    emit(g, "%s = %s;", r, v.v);
    if (n) emit(g, "%s = %s;", n, v.n);
  }
  close_block(g);
  return (CgVal){r, n};
}

// Any other form: its operands delivered where it runs, then its own
// operation there.
static CgVal cg_operation(Cg *g, Ir *e) {
  Ir *kids[ir_max_kids(e)];
  int n = ir_kids(e, kids);
  for (int i = 0; i < n; i++) g->pre[kids[i]->id] = cg_deliver(g, kids[i]).v;
  return guarded(g, e, g->pl->have[e->id]);
}

static CgVal cg_top(Cg *g, Ir *e) {
  if (!ir_holds_region(e)) return cg_part(g, e);
  switch (e->kind) {
  case IR_LET:
    bind(g, e->var, cg_deliver(g, e->a));
    return cg_deliver(g, e->body);
  case IR_ITER: return cg_top_iter(g, e);
  case IR_IFS: return cg_top_ifs(g, e);
  default:
    if (ir_is_skeleton(e->kind) && e->mode == MODE_TOP) return cg_region(g, e);
    return cg_operation(g, e);
  }
}

//
// The program: the inputs, the setup, rt_program, main.
//

// The C expression of an input's declared length (params and literals).
static const char *length_expr(Cg *g, Node *n) {
  switch (n->kind) {
  case N_INT: return fmt(g, "INT64_C(%lld)", (long long)n->ival);
  case N_VAR: return fmt(g, "rt_param[%d]", n->decl->index);
  case N_UNOP: return fmt(g, "rt_neg(%s)", length_expr(g, n->lhs));
  case N_BINOP: {
    const char *x = length_expr(g, n->lhs), *y = length_expr(g, n->rhs);
    const char *c = int_op(g, n->op, x, y, n->pos);
    return c ? c : fmt(g, "(%s %s %s)", x, op_name(n->op), y);
  }
  default: return "0";
  }
}

static const char *shape_expr(Cg *g, InputType *t) {
  switch (t->kind) {
  case IT_INT: return "rt_shape_new(RT_INT, 0, NULL, NULL)";
  case IT_FLOAT: return "rt_shape_new(RT_FLOAT, 0, NULL, NULL)";
  case IT_BOOL: return "rt_shape_new(RT_BOOL, 0, NULL, NULL)";
  case IT_PAIR: return fmt(g, "rt_shape_new(RT_PAIR, 0, %s, %s)", shape_expr(g, t->a), shape_expr(g, t->b));
  case IT_VEC:
    return fmt(g, "rt_shape_new(RT_VEC, rt_length(%s, %s), %s, NULL)", length_expr(g, t->len), site(g, t->len->pos),
               shape_expr(g, t->a));
  }
  return "NULL";
}

static Type *input_type(Cg *g, InputType *t) {
  switch (t->kind) {
  case IT_INT: return lower_type(g->ir, T_INT, NULL, NULL);
  case IT_FLOAT: return lower_type(g->ir, T_FLOAT, NULL, NULL);
  case IT_BOOL: return lower_type(g->ir, T_BOOL, NULL, NULL);
  case IT_PAIR: return lower_type(g->ir, T_PAIR, input_type(g, t->a), input_type(g, t->b));
  default: return lower_type(g->ir, T_VEC, input_type(g, t->a), NULL);
  }
}

// Input k loaded where the plan wants it: its block, the whole, or the
// whole on process 0 only. Process 0 loads (and so checks) first.
static void load_input(Cg *g, int k) {
  Program *prog = g->ir->prog;
  Layout at = g->pl->input[k];
  Type *t = input_type(g, prog->inputs[k]->itype);
  const char *name = input_name(g, k), *m = mangle(g, t);
  open_block(g, "/* input %s, %s */", prog->inputs[k]->name,
             at == LAY_BLOCK ? "by blocks" : at == LAY_ALL ? "whole on every process" : "on process 0");
  if (at == LAY_ROOT) open_block(g, "if (pid == 0)");
  emit(g, "const rt_shape *s = %s;", shape_expr(g, prog->inputs[k]->itype));
  if (at == LAY_BLOCK) {
    emit(g, "if (pid == 0) rt_validate_input(&d, &a, %d, s);", k);
    emit(g, "%s = s->len;", length_name(g, name));
    emit(g, "%s = ld_%s(rt_input_block(&d, &a, %d, s, range_lo(s->len, P, pid), range_lo(s->len, P, pid + 1)));",
         name, m, k);
  } else if (t->kind == T_VEC) {
    emit(g, "%s = ld_%s(rt_input_words(&d, &a, %d, s));", name, m, k);
  } else {
    emit(g, "un_%s(rt_input_words(&d, &a, %d, s), &%s);", m, k, name);
  }
  if (at == LAY_ROOT) close_block(g);
  close_block(g);
}

// The declarations of the parameters and inputs (one copy per process),
// and rt_setup: process 0 reads the command line, loads its inputs and
// sends the parameters and the repetition count; then the others load
// theirs; then everybody starts together.
static void gen_setup(Cg *g, Buf *o) {
  Program *prog = g->ir->prog;
  Buf names = {0}, sites = {0}, inames = {0}, isites = {0};
  for (int k = 0; k < prog->nparams; k++) {
    buf_printf(&names, "%s, ", c_string(g, prog->params[k]->name, strlen(prog->params[k]->name)));
    buf_printf(&sites, "rt_sites[%d], ", g->sites.len);
    site(g, prog->params[k]->pos);
  }
  for (int k = 0; k < prog->ninputs; k++) {
    buf_printf(&inames, "%s, ", c_string(g, prog->inputs[k]->name, strlen(prog->inputs[k]->name)));
    buf_printf(&isites, "rt_sites[%d], ", g->sites.len);
    site(g, prog->inputs[k]->pos);
  }
  g->out = o;
  g->indent = 1;
  buf_printf(o, "static _Thread_local int64_t rt_param[%d];\n", prog->nparams + 1);
  for (int k = 0; k < prog->ninputs; k++) {
    buf_printf(o, "static _Thread_local %s %s;\n", ctype(g, input_type(g, prog->inputs[k]->itype)), input_name(g, k));
    if (g->pl->input[k] == LAY_BLOCK) buf_printf(o, "static _Thread_local int64_t %s;\n", length_name(g, input_name(g, k)));
  }
  buf_printf(o, "\nstatic int rt_argc;\nstatic char **rt_argv;\n\n");
  buf_printf(o, "/* the command line and the inputs; returns the repetition count */\n");
  buf_printf(o, "static int rt_setup(void) {\n");
  emit(g, "int pid = bsp_pid(), P = bsp_nprocs();");
  emit(g, "(void)P;");
  emit(g, "static const char *const params[] = {%sNULL};", names.text ? names.text : "");
  emit(g, "static const char *const inputs[] = {%sNULL};", inames.text ? inames.text : "");
  emit(g, "const rt_site param_sites[] = {%s{0}};", sites.text ? sites.text : "");
  emit(g, "const rt_site input_sites[] = {%s{0}};", isites.text ? isites.text : "");
  emit(g, "rt_decls d = {params, param_sites, %d, inputs, input_sites, %d};", prog->nparams, prog->ninputs);
  emit(g, "rt_args a;");
  open_block(g, "if (pid == 0)");
  emit(g, "rt_parse_args(rt_argc, rt_argv, &d, rt_param, &a);");
  emit(g, "rt_check_inputs(&d, &a);");
  emit(g, "int64_t words[%d] = {a.repeat};", prog->nparams + 1);
  emit(g, "memcpy(words + 1, rt_param, %d * sizeof *words);", prog->nparams);
  emit(g, "for (int q = 1; q < P; q++) rt_send(q, (rt_tag){0, 0, -1}, words, %d);", prog->nparams + 1);
  for (int k = 0; k < prog->ninputs; k++) load_input(g, k);
  close_block(g);
  emit(g, "rt_sync(); /* the parameters */");
  open_block(g, "if (pid != 0)");
  emit(g, "rt_parse_args(rt_argc, rt_argv, &d, rt_param, &a);");
  emit(g, "memcpy(rt_param, rt_box.msg[0].words + 1, %d * sizeof *rt_param);", prog->nparams);
  for (int k = 0; k < prog->ninputs; k++)
    if (g->pl->input[k] != LAY_ROOT) load_input(g, k);
  close_block(g);
  emit(g, "rt_sync(); /* every process has its inputs */");
  emit(g, "return a.repeat;");
  buf_printf(o, "}\n\n");
  free(names.text);
  free(sites.text);
  free(inames.text);
  free(isites.text);
}

// The element type of a result written as .npy, its lengths unknown (-1).
static const char *type_shape_expr(Cg *g, Type *t) {
  switch (t->kind) {
  case T_INT: return "rt_shape_new(RT_INT, 0, NULL, NULL)";
  case T_FLOAT: return "rt_shape_new(RT_FLOAT, 0, NULL, NULL)";
  case T_BOOL: return "rt_shape_new(RT_BOOL, 0, NULL, NULL)";
  case T_PAIR: return fmt(g, "rt_shape_new(RT_PAIR, 0, %s, %s)", type_shape_expr(g, t->a), type_shape_expr(g, t->b));
  default: return fmt(g, "rt_shape_new(RT_VEC, -1, %s, NULL)", type_shape_expr(g, t->a));
  }
}

// The result printed by process 0, or written as .npy (VECBSP_OUTPUT):
// by blocks where it stays distributed.
static void gen_output(Cg *g, Buf *o, CgVal r) {
  Type *t = g->ir->main->ty;
  Layout at = g->pl->need[g->ir->main->id];
  buf_printf(o, "  const char *output = getenv(\"VECBSP_OUTPUT\");\n");
  buf_printf(o, "  if (output && *output) {\n");
  if (t->kind == T_VEC) {
    const char *lo = at == LAY_BLOCK ? fmt(g, "range_lo(%s, bsp_nprocs(), bsp_pid())", r.n) : "0";
    const char *count = at == LAY_ALL || at == LAY_BLOCK ? fmt(g, "%s.len", r.v) : fmt(g, "bsp_pid() == 0 ? %s.len : 0", r.v);
    const char *n = at == LAY_BLOCK ? r.n : fmt(g, "%s.len", r.v);
    buf_printf(o, "    int64_t count = %s, words = 0;\n", count);
    buf_printf(o, "    for (int64_t i = 0; i < count; i++) words += wc_%s(%s.at[i]);\n", mangle(g, t->a), r.v);
    buf_printf(o, "    int64_t *w = rt_array(words + 1, 8), *p = w;\n");
    buf_printf(o, "    for (int64_t i = 0; i < count; i++) p = pk_%s(p, %s.at[i]);\n", mangle(g, t->a), r.v);
    buf_printf(o, "    rt_output_npy(output, %s, w, words, %s, count, %s);\n", type_shape_expr(g, t->a), lo, n);
  } else {
    buf_printf(o, "    if (bsp_pid() == 0) bsp_abort(\"vecbsp: error: %%s: only a vector result can be written as .npy\\n\", output);\n");
  }
  buf_printf(o, "  } else if (bsp_pid() == 0) {\n");
  if (at == LAY_BLOCK)
    buf_printf(o, "    bsp_abort(\"vecbsp: error: the result stays distributed: give --output FILE.npy\\n\");\n  }\n");
  else
    buf_printf(o, "    pr_%s(stdout, %s);\n    putchar('\\n');\n    fflush(stdout);\n  }\n", mangle(g, t), r.v);
}

static void gen_main(Cg *g, Buf *o) {
  Type *t = g->ir->main->ty;
  bool block = g->pl->need[g->ir->main->id] == LAY_BLOCK;
  buf_printf(o, "/* every process: the program, repeated for timing; then its result */\n");
  buf_printf(o, "static void rt_spmd(void) {\n  bsp_begin(bsp_nprocs());\n  (void)rt_sites;\n");
  buf_printf(o, "  bsp_size_t tag = sizeof(rt_tag);\n  bsp_set_tagsize(&tag);\n  bsp_sync(); /* the tag size applies from here */\n");
  buf_printf(o, "  int reps = rt_setup();\n");
  buf_printf(o, "  double *seconds = malloc((size_t)reps * sizeof *seconds);\n");
  buf_printf(o, "  if (!seconds) rt_out_of_memory();\n");
  buf_printf(o, "  %s r = {0};\n", ctype(g, t));
  if (block) buf_printf(o, "  int64_t r_n = 0;\n");
  buf_printf(o, "  for (int rep = 0; rep < reps; rep++) {\n    size_t mark = rt_mark();\n");
  buf_printf(o, "    double start = bsp_time();\n    r = rt_program(%s);\n", block ? "&r_n" : "");
  buf_printf(o, "    rt_sync(); /* the repetition ends when every process is done */\n");
  buf_printf(o, "    seconds[rep] = bsp_time() - start;\n");
  buf_printf(o, "    if (rep + 1 < reps) rt_release(mark);\n  }\n");
  gen_output(g, o, (CgVal){"r", block ? "r_n" : NULL});
  buf_printf(o, "  if (bsp_pid() == 0) rt_write_times(seconds, reps);\n  free(seconds);\n");
  buf_printf(o, "  rt_end_process();\n  bsp_end();\n}\n\n");
  buf_printf(o, "int main(int argc, char **argv) {\n  rt_argc = argc;\n  rt_argv = argv;\n");
  buf_printf(o, "  bsp_init(rt_spmd, argc, argv);\n  rt_spmd();\n  return 0;\n}\n");
}

void cg_program(Cg *g, Buf *out) {
  Buf setup = {0}, program = {0};
  IrProgram *ir = g->ir;
  g->pre = arena_calloc(g->arena, (size_t)ir->nnodes + 1, sizeof *g->pre);
  gen_setup(g, &setup);
  bool block = g->pl->need[ir->main->id] == LAY_BLOCK;
  g->out = &program;
  g->indent = 1;
  buf_printf(&program, "/* the program, run by every process */\nstatic %s rt_program(%s) {\n", ctype(g, ir->main->ty),
             block ? "int64_t *n" : "void");
  emit(g, "int pid = bsp_pid(), P = bsp_nprocs();");
  emit(g, "(void)pid, (void)P;");
  if (cg_uses_levels(g->pl))
    emit(g, "if (P != RT_LEVELS_P) bsp_abort(\"vecbsp: error: the plan follows the levels of a machine of %%d workers: "
            "run it on %%d processes, not %%d\\n\", RT_LEVELS_P, RT_LEVELS_P, P);");
  CgVal r = cg_deliver(g, ir->main);
  flush_ops(g);
  if (block) emit(g, "*n = %s;", r.n);
  emit(g, "return %s;", r.v);
  buf_printf(&program, "}\n\n");
  gen_types(g);
  buf_printf(out, "%s", g->types.text ? g->types.text : "");
  buf_printf(out, "%s", setup.text);
  buf_printf(out, "%s", g->regions.text ? g->regions.text : "");
  buf_printf(out, "%s", program.text);
  gen_main(g, out);
  free(setup.text);
  free(program.text);
}
