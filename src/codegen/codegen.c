// codegen.c: the C program of a planned IR (docs/compiler.md): the text,
// names, expressions on one process, delayed vectors and local skeletons;
// types.c, region.c and top.c make the rest. The prelude
// src/codegen/rt/*.c comes first in the program.
#include "codegen/cgint.h"
#include "rt_prelude.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

//
// Text.
//

void buf_vprintf(Buf *b, const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  if (b->len + (size_t)n + 1 > b->cap) {
    b->cap = (b->len + (size_t)n + 1) * 2;
    b->text = xrealloc(b->text, b->cap);
  }
  vsnprintf(b->text + b->len, (size_t)n + 1, fmt, again);
  va_end(again);
  b->len += (size_t)n;
}

void buf_printf(Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  buf_vprintf(b, fmt, ap);
  va_end(ap);
}

// A line at the current indentation, ended by `end`.
static void line(Cg *g, const char *end, const char *fmt, va_list ap) {
  buf_printf(g->out, "%*s", 2 * g->indent, "");
  buf_vprintf(g->out, fmt, ap);
  buf_printf(g->out, "%s", end);
}

// One statement line at the current indentation.
void emit(Cg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void emit(Cg *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  line(g, "\n", fmt, ap);
  va_end(ap);
}

void flush_ops(Cg *g) {
  if (g->pending) emit(g, "VB_OPS(%lld);", (long long)g->pending);
  g->pending = 0;
}

static void count_op(Cg *g) {
  if (g->counting) g->pending++;
}

// "if (..) {", "for (..) {": operations so far are counted before it.
void open_block(Cg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void open_block(Cg *g, const char *fmt, ...) {
  flush_ops(g);
  va_list ap;
  va_start(ap, fmt);
  line(g, " {\n", fmt, ap);
  va_end(ap);
  g->indent++;
}

void emit_sync(Cg *g, const char *why) {
  flush_ops(g);  // the operations so far belong to the superstep it ends
  emit(g, "rt_sync(); /* %s */", why);
}

void emit_group_sync(Cg *g, const char *round, const char *why) {
  flush_ops(g);
  emit(g, "rt_group_sync(%s); /* %s */", round, why);
}

void close_block(Cg *g) {
  flush_ops(g);
  g->indent--;
  emit(g, "}");
}

void else_block(Cg *g) {
  flush_ops(g);
  g->indent--;
  emit(g, "} else {");
  g->indent++;
}

char *fmt(Cg *g, const char *f, ...) __attribute__((format(printf, 2, 3)));
char *fmt(Cg *g, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  Buf b = {0};
  buf_vprintf(&b, f, ap);
  va_end(ap);
  char *s = arena_strndup(g->arena, b.text, b.len);
  free(b.text);
  return s;
}

char *temp(Cg *g) { return fmt(g, "t%d", ++g->temps); }

// A C string literal for s.
char *c_string(Cg *g, const char *s, size_t n) {
  Buf b = {0};
  buf_printf(&b, "\"");
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') buf_printf(&b, "\\%c", c);
    else if (c < 32 || c >= 127) buf_printf(&b, "\\%03o", c);
    else buf_printf(&b, "%c", c);
  }
  buf_printf(&b, "\"");
  char *r = arena_strndup(g->arena, b.text, b.len);
  free(b.text);
  return r;
}

//
// Fault sites and names.
//

const char *site(Cg *g, Pos pos) {
  Pos *p = arena_alloc(g->arena, sizeof *p);
  *p = pos;
  ptrvec_push(g->arena, &g->sites, p);
  return fmt(g, "&rt_sites[%d]", g->sites.len - 1);
}

// v<id>_<name>: no temporary (t<k>), input (in_<name>) or helper is so named.
const char *var_name(Cg *g, IrVar *v) {
  char *s = fmt(g, "v%d_%s", v->id, v->name);
  for (char *p = s; *p; p++)
    if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9')) *p = '_';
  return s;
}

const char *input_name(Cg *g, int index) { return fmt(g, "in_%s", g->ir->prog->inputs[index]->name); }

const char *where(Cg *g, Pos pos) { return fmt(g, "%s:%d:%d", pos.src->name, pos.line, pos.col); }

// Declares name of type t with value init.
const char *define(Cg *g, Type *t, const char *name, const char *init) {
  emit(g, "%s %s = %s;", ctype(g, t), name, init);
  return name;
}

const char *define_temp(Cg *g, Type *t, const char *init) { return define(g, t, temp(g), init); }

//
// Operations counted statically: a loop whose body always executes the same
// operations is counted once, before the loop.
//

// Operations of e if it has no control flow of its own, else -1.
static int64_t static_ops(Ir *e) {
  if (!e || plan_static_literal(e)) return 0;
  switch (e->kind) {
  case IR_IF: case IR_IFS: case IR_ITER: case IR_MERGE: return -1;  // merge: by the lengths
  case IR_BINOP: if (e->lazy) return -1; break;
  default: if (ir_is_skeleton(e->kind)) return -1; break;
  }
  int64_t n = e->kind == IR_BINOP || e->kind == IR_UNOP;
  Ir *kids[ir_max_kids(e)];
  int nkids = ir_kids(e, kids);
  for (int i = 0; i < nkids; i++) {
    int64_t k = static_ops(kids[i]);
    if (k < 0) return -1;
    n += k;
  }
  return n;
}

// Does evaluating e allocate memory (so that a loop may release it)? A
// fused skeleton stores nothing itself.
bool allocates(Ir *e) {
  if (!e) return false;
  if (ir_type_has_vec(e->ty) && !e->fused && e->kind != IR_VAR && e->kind != IR_INPUT && e->kind != IR_TL &&
      e->kind != IR_FST && e->kind != IR_SND && e->kind != IR_ENTRY && e->kind != IR_HD)
    return true;
  Ir *kids[ir_max_kids(e)];
  int n = ir_kids(e, kids);
  for (int i = 0; i < n; i++)
    if (allocates(kids[i])) return true;
  return false;
}

// Counts before a loop the operations of body applied `count` times, when
// they are static; returns whether it did (or they were counted already).
bool count_static(Cg *g, Ir *body, const char *count) {
  int64_t k = static_ops(body);
  if (g->counting && k > 0) {
    flush_ops(g);
    emit(g, "VB_OPS(%lld * (%s));", (long long)k, count);
  }
  return k >= 0;
}

//
// Function bodies: \x y -> body applied to C values.
//

// Binds a function's parameter; the body need not use it (\x -> 0.0), and
// (void) says so to the C compiler's -Wall.
static void define_param(Cg *g, IrVar *v, const char *init) {
  emit(g, "(void)%s;", define(g, v->ty, var_name(g, v), init));
}

// Emits the body with x (and y) bound; returns the result's expression.
const char *apply_body(Cg *g, Ir *e, const char *x, const char *y) {
  define_param(g, e->x, x);
  if (y) define_param(g, e->y, y);
  return cg_expr(g, e->body);
}

// The body inside a loop: its operations counted here unless `counted`
// before the loop.
const char *apply_counted(Cg *g, Ir *e, bool counted, const char *x, const char *y) {
  bool saved = g->counting;
  g->counting = saved && !counted;
  const char *r = apply_body(g, e, x, y);
  g->counting = saved;
  return r;
}

// An iteration whose scratch memory is released at its end (when nothing
// made in it survives): returns the mark, or NULL when nothing is released.
static const char *open_iteration(Cg *g, bool release) {
  if (!release) return NULL;
  const char *mark = temp(g);
  emit(g, "size_t %s = rt_mark();", mark);
  return mark;
}

static void close_iteration(Cg *g, const char *mark) {
  if (mark) emit(g, "rt_release(%s);", mark);
}

const char *new_vec(Cg *g, Type *t, const char *len) {
  return define_temp(g, t, fmt(g, "{%s, rt_array(%s, sizeof(t_%s))}", len, len, mangle(g, t->a)));
}

const char *stage_name(IrKind k) {
  switch (k) {
  case IR_MAP: return "map";
  case IR_FOLD: return "fold";
  case IR_PREFIX: return "prefix";
  case IR_PAIR_MAP: return "pair_map";
  case IR_C_PROD: return "c_prod";
  case IR_INITS: return "inits";
  case IR_DH: return "dh";
  case IR_NEIGHBOURS: return "neighbours";
  default: return "tails";
  }
}

//
// Delayed vectors (docs/compiler.md, "Fusion"). A map, pair_map or prefix
// consumed once and in order is never stored: a generator makes each of its
// elements inside the loop of the consumer, when the consumer needs it.
// Every element is made exactly once, so the operations do not change.
//

// Which elements a loop makes at one place: the first, the others, or any.
typedef enum { AT_FIRST, AT_REST, AT_ANY } At;

Gen *gen_array(Cg *g, const char *vec) {
  Gen *s = arena_calloc(g->arena, 1, sizeof *s);
  s->kind = GEN_ARRAY;
  s->vec = vec;
  return s;
}

// The generator of a map, pair_map or prefix e over the given sources.
Gen *gen_apply(Cg *g, Ir *e, Gen *src, Gen *src2) {
  Gen *s = arena_calloc(g->arena, 1, sizeof *s);
  s->kind = e->kind == IR_PREFIX ? GEN_PREFIX : GEN_MAP;
  s->e = e;
  s->src = src;
  s->src2 = src2;
  if (s->kind == GEN_PREFIX) s->state = define_temp(g, e->ty->a, "{0}");
  return s;
}

Gen *gen_offset(Cg *g, Ir *prefix, Gen *src, const char *total, const char *when) {
  Gen *s = arena_calloc(g->arena, 1, sizeof *s);
  *s = (Gen){.kind = GEN_OFFSET, .e = prefix, .src = src, .state = total, .when = when};
  return s;
}

// Every generator has the length of its (first) source.
const char *gen_len(Cg *g, Gen *s) {
  while (s->kind != GEN_ARRAY) s = s->src;
  return fmt(g, "%s.len", s->vec);
}

void check_lengths(Cg *g, Ir *e, const char *a, const char *b) {
  emit(g, "if (%s != %s) rt_error(%s, \"%s on vectors of different lengths (%%\" PRId64 \" and %%\" PRId64 \")\", %s, %s);",
       a, b, site(g, e->pos), e->written, a, b);
}

static Gen *gen_skeleton(Cg *g, Ir *e);

// let's variable, bound to its value.
static void define_let(Cg *g, Ir *let) { define(g, let->var->ty, var_name(g, let->var), cg_expr(g, let->a)); }

// The vector e as a generator: fused skeletons stay delayed, anything else
// is evaluated (and stored) here.
static Gen *gen_of(Cg *g, Ir *e) {
  if (e->kind == IR_VAR && e->fused && g->element) {  // a fold's element, made here
    Gen *s = g->element;
    g->element = NULL;
    return s;
  }
  return e->fused && e->kind != IR_VAR ? gen_skeleton(g, e) : gen_array(g, cg_expr(g, e));
}

// A local map, pair_map or prefix as a generator, its sources evaluated.
static Gen *gen_skeleton(Cg *g, Ir *e) {
  emit(g, "/* %s at %s%s */", stage_name(e->kind), where(g, e->pos), e->fused ? ", made in its consumer's loop" : "");
  Gen *a = gen_of(g, e->a), *b = e->kind == IR_PAIR_MAP ? gen_of(g, e->b) : NULL;
  if (b) check_lengths(g, e, gen_len(g, a), gen_len(g, b));
  return gen_apply(g, e, a, b);
}

// Before the loop over n elements: the operations of every generator with a
// static body, at once (a prefix makes n - 1 applications, an offset n when
// it applies).
static void gen_count(Cg *g, Gen *s, const char *n) {
  if (s->kind == GEN_ARRAY) return;
  gen_count(g, s->src, n);
  if (s->src2) gen_count(g, s->src2, n);
  int64_t k = static_ops(s->e->body);
  s->counted = k >= 0;
  if (!g->counting || k <= 0) return;
  flush_ops(g);
  if (s->kind == GEN_PREFIX && s->seed) emit(g, "VB_OPS(%lld * (%s > 0 ? %s - !%s : 0));", (long long)k, n, n, s->when);
  else if (s->kind == GEN_PREFIX) emit(g, "VB_OPS(%lld * (%s > 0 ? %s - 1 : 0));", (long long)k, n, n);
  else if (s->kind == GEN_OFFSET) emit(g, "if (%s) VB_OPS(%lld * (%s));", s->when, (long long)k, n);
  else emit(g, "VB_OPS(%lld * (%s));", (long long)k, n);
}

// Emits the making of element k of s (where `at` says which); returns its C
// expression, valid until the next element is made.
static const char *gen_elem(Cg *g, Gen *s, const char *k, At at) {
  if (s->kind == GEN_ARRAY) return fmt(g, "%s.at[%s]", s->vec, k);
  const char *x = gen_elem(g, s->src, k, at), *y = s->src2 ? gen_elem(g, s->src2, k, at) : NULL;
  switch (s->kind) {
  case GEN_MAP: return apply_counted(g, s->e, s->counted, x, y);
  case GEN_PREFIX:
    if (at == AT_ANY) open_block(g, "if (%s == 0)", k);
    if (at != AT_REST) emit(g, "%s = %s;", s->state, x);
    if (at != AT_REST && s->seed) {  // run again from the lower blocks' total
      open_block(g, "if (%s)", s->when);
      emit(g, "%s = %s;", s->state, apply_counted(g, s->e, s->counted, s->seed, s->state));
      close_block(g);
    }
    if (at == AT_ANY) else_block(g);
    if (at != AT_FIRST) emit(g, "%s = %s;", s->state, apply_counted(g, s->e, s->counted, s->state, x));
    if (at == AT_ANY) close_block(g);
    return s->state;
  default: {  // GEN_OFFSET
    const char *r = define_temp(g, s->e->ty->a, x);
    open_block(g, "if (%s)", s->when);
    emit(g, "%s = %s;", r, apply_counted(g, s->e, s->counted, s->state, r));
    close_block(g);
    return r;
  }
  }
}

// Does some generator of s's chain (arrays aside) satisfy holds?
static bool gen_any(Gen *s, bool (*holds)(Gen *)) {
  if (s->kind == GEN_ARRAY) return false;
  return holds(s) || gen_any(s->src, holds) || (s->src2 && gen_any(s->src2, holds));
}

// Does making its elements allocate?
static bool allocating(Gen *s) { return allocates(s->e->body); }

// Does its running value (a prefix's) hold a vector made in the loop?
static bool keeps_vector(Gen *s) { return s->kind == GEN_PREFIX && ir_type_has_vec(s->e->ty->a); }

// Is it a prefix (whose first element starts its running value)?
static bool is_prefix(Gen *s) { return s->kind == GEN_PREFIX; }

// May a loop over s (applying body, keeping values of type kept) release
// each iteration's scratch memory at its end?
static bool release_each(Gen *s, Ir *body, Type *kept) {
  return (gen_any(s, allocating) || (body && allocates(body))) && !ir_type_has_vec(kept) && !gen_any(s, keeps_vector);
}

// Stores the elements of s at dest[0..). A prefix's first element is made
// apart, as a fold's is: tested in the loop, it left the loop's speed to
// the compiler's inlining (a prefix of 400000 ints ran 137 or 217 us
// depending on the code around it).
void gen_store(Cg *g, Gen *s, const char *dest) {
  const char *n = gen_len(g, s), *k = temp(g);
  gen_count(g, s, n);
  bool release = release_each(s, NULL, s->e->ty->a), peel = gen_any(s, is_prefix);
  if (peel) {
    open_block(g, "if (%s > 0) /* the first element */", n);
    emit(g, "%s[0] = %s;", dest, gen_elem(g, s, "0", AT_FIRST));
    close_block(g);
  }
  open_block(g, "for (int64_t %s = %d; %s < %s; %s++)", k, peel, k, n, k);
  const char *mark = open_iteration(g, release);
  emit(g, "%s[%s] = %s;", dest, k, gen_elem(g, s, k, peel ? AT_REST : AT_ANY));
  close_iteration(g, mark);
  close_block(g);
}

// The elements of s as a stored vector: s's own when it is stored already;
// a fold's body overwriting the accumulator writes into it from step 2 on,
// when it is a vector of the fold's own.
const char *gen_vector(Cg *g, Gen *s) {
  if (s->kind == GEN_ARRAY) return s->vec;
  const char *r, *n = gen_len(g, s);
  if (s->e == g->overwrite) {
    const char *own = fmt(g, "%s.at", g->acc);
    if (g->step) own = fmt(g, "%s > 1 ? %s : rt_array(%s, sizeof(t_%s))", g->step, own, n, mangle(g, s->e->ty->a));
    r = define_temp(g, s->e->ty, fmt(g, "{%s, %s}", n, own));
    g->overwrite = NULL;
  } else {
    r = new_vec(g, s->e->ty, n);
  }
  gen_store(g, s, fmt(g, "%s.at", r));
  return r;
}

// Element k of s, a map or pair_map whose function ends in a map or
// pair_map fused into the fold's body: its sources, its function's
// parameters, and that last map as the generator the body's loop reads.
static void fused_element(Cg *g, Gen *s, const char *k) {
  const char *x = gen_elem(g, s->src, k, AT_REST), *y = s->src2 ? gen_elem(g, s->src2, k, AT_REST) : NULL;
  define(g, s->e->x->ty, var_name(g, s->e->x), x);
  if (y) define(g, s->e->y->ty, var_name(g, s->e->y), y);
  Ir *made = s->e->body;
  for (; made->kind == IR_LET; made = made->body) define_let(g, made);  // hoist.c's, before the body's loop
  g->element = gen_skeleton(g, made);
}

// Folds the elements of s (there is at least one) into acc with e's body:
// the first element is made apart, the others in the loop.
static void fold_one(Cg *g, Ir *e, Gen *s, const char *acc, const char *n, bool counted, bool release) {
  const char *k = temp(g);
  if (s->kind == GEN_ARRAY) {
    emit(g, "%s = %s.at[0];", acc, s->vec);
  } else {
    open_block(g, "/* the first element */");
    emit(g, "%s = %s;", acc, gen_elem(g, s, "0", AT_FIRST));
    close_block(g);
  }
  open_block(g, "for (int64_t %s = 1; %s < %s; %s++)", k, k, n, k);
  const char *mark = open_iteration(g, release);
  const char *y = NULL;  // the element, unless the body's loop makes it
  if (e->fuses_element) fused_element(g, s, k);
  else y = gen_elem(g, s, k, AT_REST);
  // A fold that makes its elements made the first one: the accumulator is
  // its own from the first step.
  if (e->body->in_place) g->overwrite = e->body, g->acc = acc, g->step = e->fuses_element ? NULL : k;
  emit(g, "%s = %s;", acc, apply_counted(g, e, counted, acc, y));
  g->overwrite = NULL, g->element = NULL;
  close_iteration(g, mark);
  close_block(g);
}

// The same with `lanes` accumulators run side by side: the loop waits for
// the operator's carried dependency lanes times less. Each lane takes a
// contiguous sub-block (range_lane_lo), combined in order; or, when the
// operator commutes (interleaved), every lanes-th element, which keeps one
// stream through memory. The elements of s are made independently of each
// other (plan_pass_laned), so any order of making them is right; the
// applications are as many (n - 1).
static void fold_lanes(Cg *g, Ir *e, Gen *s, const char *acc, const char *n, int lanes, bool interleaved,
                       bool counted) {
  const char *lane[PLAN_LANES], *i = temp(g), *q = temp(g);
  Type *t = e->kind == IR_FOLD ? e->ty : e->ty->a;
  emit(g, "int64_t %s = range_lane_lo(%s, %d, 1);", q, n, lanes);
  // Each element and application in a block of its own: their variables
  // are named after the function's parameters.
  for (int j = 0; j < lanes; j++) {
    lane[j] = define_temp(g, t, "{0}");
    open_block(g, "/* lane %d: its first element */", j);
    emit(g, "%s = %s;", lane[j], gen_elem(g, s, interleaved ? fmt(g, "%d", j) : fmt(g, "%s * %d", q, j), AT_ANY));
    close_block(g);
  }
  open_block(g, "for (int64_t %s = 1; %s < %s; %s++)", i, i, q, i);
  for (int j = 0; j < lanes; j++) {
    open_block(g, "/* lane %d */", j);
    const char *k = interleaved ? fmt(g, "%s * %d + %d", i, lanes, j) : fmt(g, "%s * %d + %s", q, j, i);
    emit(g, "%s = %s;", lane[j], apply_counted(g, e, counted, lane[j], gen_elem(g, s, k, AT_ANY)));
    close_block(g);
  }
  close_block(g);
  open_block(g, "for (int64_t %s = %s * %d; %s < %s; %s++)", i, q, lanes, i, n, i);
  emit(g, "%s = %s;", lane[lanes - 1], apply_counted(g, e, counted, lane[lanes - 1], gen_elem(g, s, i, AT_ANY)));
  close_block(g);
  emit(g, "%s = %s;", acc, lane[0]);
  for (int j = 1; j < lanes; j++) {
    open_block(g, "/* lane %d joins */", j);
    emit(g, "%s = %s;", acc, apply_counted(g, e, counted, acc, lane[j]));
    close_block(g);
  }
}

void gen_fold(Cg *g, Ir *e, Gen *s, const char *acc, int lanes, bool interleaved) {
  const char *n = gen_len(g, s);
  gen_count(g, s, n);
  Type *t = e->kind == IR_FOLD ? e->ty : e->ty->a;  // a prefix's operator folds its block
  bool counted = count_static(g, e->body, fmt(g, "%s - 1", n)), release = release_each(s, e->body, t);
  if (lanes <= 1) {
    fold_one(g, e, s, acc, n, counted, release);
    return;
  }
  open_block(g, "if (range_laned(%d, %s))", lanes, n);
  fold_lanes(g, e, s, acc, n, lanes, interleaved, counted);
  else_block(g);
  fold_one(g, e, s, acc, n, counted, release);
  close_block(g);
}

//
// Skeletons on local data that are not generators.
//

const char *cg_c_prod_loop(Cg *g, Ir *e, const char *xs, const char *ys) {
  const char *r = new_vec(g, e->ty, fmt(g, "%s.len", ys)), *j = temp(g), *i = temp(g);
  bool counted = count_static(g, e->body, fmt(g, "%s.len * %s.len", xs, ys));
  bool release = allocates(e->body) && !ir_type_has_vec(e->body->ty);
  open_block(g, "for (int64_t %s = 0; %s < %s.len; %s++)", j, j, ys, j);
  const char *row = new_vec(g, e->ty->a, fmt(g, "%s.len", xs));
  open_block(g, "for (int64_t %s = 0; %s < %s.len; %s++)", i, i, xs, i);
  const char *mark = open_iteration(g, release);
  const char *v = apply_counted(g, e, counted, fmt(g, "%s.at[%s]", xs, i), fmt(g, "%s.at[%s]", ys, j));
  emit(g, "%s.at[%s] = %s;", row, i, v);
  close_iteration(g, mark);
  close_block(g);
  emit(g, "%s.at[%s] = %s;", r, j, row);
  close_block(g);
  return r;
}

// inits (segment k is v[0..k]) or tails (v[n-1-k..n-1]) as views of v.
const char *cg_segments(Cg *g, Ir *e, const char *v) {
  const char *r = new_vec(g, e->ty, fmt(g, "%s.len", v)), *k = temp(g);
  const char *start = e->kind == IR_INITS ? fmt(g, "%s.at", v) : fmt(g, "%s.at + %s.len - 1 - %s", v, v, k);
  emit(g, "for (int64_t %s = 0; %s < %s.len; %s++) %s.at[%s] = (%s){%s + 1, %s};", k, k, v, k, r, k,
       ctype(g, e->ty->a), k, start);
  return r;
}


//
// dh: the butterfly (docs/compiler.md, "dh").
//

// A copy of the vector v (of type t) to write in place.
const char *cg_copy(Cg *g, Type *t, const char *v) {
  const char *r = new_vec(g, t, fmt(g, "%s.len", v));
  emit(g, "if (%s.len > 0) memcpy(%s.at, %s.at, (size_t)%s.len * sizeof *%s.at);", v, r, v, v, r);
  return r;
}

// The stages of distance d in [from, to) on the elements [lo, lo + len) of
// v: each pair (i, i + d), i without bit d, becomes (f vi vi+d, g vi vi+d).
static void dh_pass(Cg *g, Ir *e, const char *v, const char *from, const char *to, const char *lo, const char *len) {
  const char *d = temp(g), *base = temp(g), *i = temp(g);
  Type *t = e->ty->a;
  open_block(g, "for (int64_t %s = %s; %s < %s; %s *= 2)", d, from, d, to, d);
  bool counted_f = count_static(g, e->body, fmt(g, "%s / 2", len)), counted_g = count_static(g, e->c->body, fmt(g, "%s / 2", len));
  open_block(g, "for (int64_t %s = %s; %s < %s + %s; %s += 2 * %s)", base, lo, base, lo, len, base, d);
  open_block(g, "for (int64_t %s = %s; %s < %s + %s; %s++)", i, base, i, base, d, i);
  const char *x = define_temp(g, t, fmt(g, "%s.at[%s]", v, i)), *y = define_temp(g, t, fmt(g, "%s.at[%s + %s]", v, i, d));
  const char *lower = define_temp(g, t, apply_counted(g, e, counted_f, x, y));  // f, the body
  const char *upper = define_temp(g, t, apply_counted(g, e->c, counted_g, x, y));  // g, its second operator
  emit(g, "%s.at[%s] = %s;", v, i, lower);
  emit(g, "%s.at[%s + %s] = %s;", v, i, d, upper);
  close_block(g);
  close_block(g);
  close_block(g);
}

// The stages below DH_CHUNK elements only mix elements within aligned runs
// of that many: each run goes through them while it is in the cache, then
// the longer stages pass over the whole. The same applications, counted the
// same; a pass over memory per stage only for the stages past the chunk
// (docs/compiler.md, "dh").
enum { DH_CHUNK = 8192 };

void cg_dh_stages(Cg *g, Ir *e, const char *v) {
  const char *chunk = temp(g), *lo = temp(g);
  emit(g, "int64_t %s = %s.len < %d ? %s.len : %d;", chunk, v, DH_CHUNK, v, DH_CHUNK);
  open_block(g, "for (int64_t %s = 0; %s < %s.len; %s += %s)", lo, lo, v, lo, chunk);
  dh_pass(g, e, v, "1", chunk, lo, chunk);
  close_block(g);
  dh_pass(g, e, v, chunk, fmt(g, "%s.len", v), "0", fmt(g, "%s.len", v));
}

// dh f g v on one process: checked, copied, its stages.
const char *cg_dh(Cg *g, Ir *e, const char *v) {
  emit(g, "/* dh at %s */", where(g, e->pos));
  emit(g, "if (%s.len <= 0 || (%s.len & (%s.len - 1))) rt_error(%s, \"dh of a vector of length %%\" PRId64 \", which is not a power of two\", %s.len);",
       v, v, v, site(g, e->pos), v);
  const char *r = cg_copy(g, e->ty, v);
  cg_dh_stages(g, e, r);
  return r;
}

static const char *cg_local_skeleton(Cg *g, Ir *e) {
  switch (e->kind) {
  case IR_MAP: case IR_PAIR_MAP: case IR_PREFIX: return gen_vector(g, gen_skeleton(g, e));
  case IR_FOLD: {
    emit(g, "/* fold at %s */", where(g, e->pos));
    Gen *s = gen_of(g, e->a);
    emit(g, "rt_nonempty(%s, \"fold\", %s);", gen_len(g, s), site(g, e->pos));
    const char *acc = define_temp(g, e->ty, "{0}");
    gen_fold(g, e, s, acc, 1, false);
    return acc;
  }
  default: break;
  }
  if (e->kind == IR_DH) return cg_dh(g, e, cg_expr(g, e->a));
  emit(g, "/* %s at %s */", stage_name(e->kind), where(g, e->pos));
  const char *a = cg_expr(g, e->a);
  if (e->kind == IR_C_PROD) return cg_c_prod_loop(g, e, a, cg_expr(g, e->b));
  return cg_segments(g, e, a);
}

//
// Expressions.
//

static const char *cg_literal(Cg *g, Ir *e) {
  switch (e->kind) {
  case IR_INT: return e->ival < 0 ? "INT64_MIN" : fmt(g, "INT64_C(%lld)", (long long)e->ival);
  case IR_BOOL: return e->ival ? "true" : "false";
  default: {
    if (isinf(e->fval)) return "HUGE_VAL";
    char *s = fmt(g, "%.17g", e->fval);
    return strpbrk(s, ".en") ? s : fmt(g, "%s.0", s);
  }
  }
}

const char *int_op(Cg *g, Op op, const char *x, const char *y, Pos pos) {
  switch (op) {
  case OP_ADD: return fmt(g, "rt_add(%s, %s)", x, y);
  case OP_SUB: return fmt(g, "rt_sub(%s, %s)", x, y);
  case OP_MUL: return fmt(g, "rt_mul(%s, %s)", x, y);
  case OP_DIV: return fmt(g, "rt_div(%s, %s, %s)", x, y, site(g, pos));
  case OP_MOD: return fmt(g, "rt_mod(%s, %s, %s)", x, y, site(g, pos));
  default: return NULL;
  }
}

static const char *cg_binop(Cg *g, Ir *e) {
  const char *x = cg_expr(g, e->a);
  if (e->lazy) {  // && and || skip the right operand when the left decides
    const char *r = define_temp(g, e->ty, x);
    count_op(g);
    open_block(g, "if (%s%s)", e->op == OP_OR ? "!" : "", r);
    emit(g, "%s = %s;", r, cg_expr(g, e->b));
    close_block(g);
    return r;
  }
  const char *y = cg_expr(g, e->b);
  count_op(g);
  const char *c = e->a->ty->kind == T_INT ? int_op(g, e->op, x, y, e->pos) : NULL;
  // The first operand unless the second is strictly greater (smaller): docs/language.md.
  if (!c && e->op == OP_MAX) c = fmt(g, "%s > %s ? %s : %s", y, x, y, x);
  if (!c && e->op == OP_MIN) c = fmt(g, "%s < %s ? %s : %s", y, x, y, x);
  if (!c) c = fmt(g, "%s %s %s", x, op_name(e->op), y);
  return define_temp(g, e->ty, c);
}

static const char *cg_unop(Cg *g, Ir *e) {
  const char *x = cg_expr(g, e->a);
  count_op(g);
  if (e->op == OP_NOT) return define_temp(g, e->ty, fmt(g, "!%s", x));
  if (e->op == OP_FLOAT) return define_temp(g, e->ty, fmt(g, "(double)%s", x));
  return define_temp(g, e->ty, e->ty->kind == T_INT ? fmt(g, "rt_neg(%s)", x) : fmt(g, "-%s", x));
}

static const char *cg_cond(Cg *g, Ir *e) {
  const char *c = cg_expr(g, e->a);
  const char *r = temp(g);
  emit(g, "%s %s;", ctype(g, e->ty), r);
  open_block(g, e->kind == IR_IF ? "if (%s)" : "if (%s != 0)", c);
  emit(g, "%s = %s;", r, cg_expr(g, e->b));
  else_block(g);
  emit(g, "%s = %s;", r, cg_expr(g, e->c));
  close_block(g);
  return r;
}

// A literal scalar as a constant expression (plan_static_literal's).
static const char *constant(Cg *g, Ir *e) { return e->kind == IR_UNOP ? fmt(g, "-%s", cg_literal(g, e->a)) : cg_literal(g, e); }

static const char *cg_vec_literal(Cg *g, Ir *e) {
  if (plan_static_literal(e)) {  // static data, never written: made once, whatever the loops around it
    const char *data = temp(g), *init = constant(g, e->elems[0]);
    for (int i = 1; i < e->nelems; i++) init = fmt(g, "%s, %s", init, constant(g, e->elems[i]));
    emit(g, "static t_%s %s[%d] = {%s};", mangle(g, e->ty->a), data, e->nelems, init);
    return define_temp(g, e->ty, fmt(g, "{%d, %s}", e->nelems, data));
  }
  const char *r = new_vec(g, e->ty, fmt(g, "%d", e->nelems));
  for (int i = 0; i < e->nelems; i++) emit(g, "%s.at[%d] = %s;", r, i, cg_expr(g, e->elems[i]));
  return r;
}

// The rows concatenated: where they lie one after the other in memory (a
// matrix input, or rows a skeleton made), a view of them; otherwise a copy
// (docs/compiler.md, "Data layout").
static const char *cg_redconcat(Cg *g, Ir *e) {
  const char *v = cg_expr(g, e->a), *n = temp(g), *k = temp(g), *o = temp(g), *run = temp(g);
  emit(g, "int64_t %s = 0, %s = 0;", n, o);
  emit(g, "bool %s = true; /* the rows follow each other in memory */", run);
  open_block(g, "for (int64_t %s = 0; %s < %s.len; %s++)", k, k, v, k);
  emit(g, "%s = %s && (%s == 0 || %s.at[%s].at == %s.at[%s - 1].at + %s.at[%s - 1].len);", run, run, k, v, k, v, k, v, k);
  emit(g, "%s += %s.at[%s].len;", n, v, k);
  close_block(g);
  const char *r = define_temp(g, e->ty, fmt(g, "{%s, %s.len ? %s.at[0].at : NULL}", n, v, v));
  open_block(g, "if (!%s)", run);
  emit(g, "%s.at = rt_array(%s, sizeof *%s.at);", r, n, r);
  open_block(g, "for (int64_t %s = 0; %s < %s.len; %s++)", k, k, v, k);
  emit(g, "memcpy(%s.at + %s, %s.at[%s].at, (size_t)%s.at[%s].len * sizeof *%s.at);", r, o, v, k, v, k, r);
  emit(g, "%s += %s.at[%s].len;", o, v, k);
  close_block(g);
  close_block(g);
  return r;
}

static const char *cg_dummyvec(Cg *g, Ir *e) {
  const char *n = cg_expr(g, e->a), *s = cg_expr(g, e->b), *k = temp(g);
  emit(g, "if (%s < 0) rt_error(%s, \"dummyvec of negative length %%\" PRId64, %s);", n, site(g, e->pos), n);
  const char *z = define_temp(g, e->b->ty, fmt(g, "zero_%s(%s)", mangle(g, e->b->ty), s));
  const char *r = new_vec(g, e->ty, n);
  emit(g, "for (int64_t %s = 0; %s < %s; %s++) %s.at[%s] = %s;", k, k, n, k, r, k, z);
  return r;
}

static const char *cg_iota(Cg *g, Ir *e) {
  const char *n = cg_expr(g, e->a), *k = temp(g);
  emit(g, "if (%s < 0) rt_error(%s, \"iota of negative length %%\" PRId64, %s);", n, site(g, e->pos), n);
  const char *r = new_vec(g, e->ty, n);
  emit(g, "for (int64_t %s = 0; %s < %s; %s++) %s.at[%s] = %s;", k, k, n, k, r, k, k);
  return r;
}

static const char *cg_split(Cg *g, Ir *e) {
  const char *k = cg_expr(g, e->a), *v = cg_expr(g, e->b), *m = temp(g), *j = temp(g);
  emit(g, "if (%s < 1) rt_error(%s, \"split into sublists of %%\" PRId64 \" elements (at least 1)\", %s);", k, site(g, e->pos), k);
  emit(g, "int64_t %s = %s.len / %s + (%s.len %% %s != 0);", m, v, k, v, k);
  const char *r = new_vec(g, e->ty, m);
  emit(g, "for (int64_t %s = 0; %s < %s; %s++) %s.at[%s] = (%s){%s + 1 < %s || %s.len %% %s == 0 ? %s : %s.len %% %s, %s.at + %s * %s};",
       j, j, m, j, r, j, ctype(g, e->ty->a), j, m, v, k, k, v, k, v, j, k);
  return r;
}

// merge: a comparison at every step, of the elements at the two indices
// (the last of a vector once it is used up), so that the count is exact:
// a.len + b.len when neither is empty (docs/language.md).
static const char *cg_merge(Cg *g, Ir *e) {
  const char *a = cg_expr(g, e->a), *b = cg_expr(g, e->b), *i = temp(g), *j = temp(g);
  const char *r = new_vec(g, e->ty, fmt(g, "%s.len + %s.len", a, b));
  open_block(g, "if (%s.len == 0 || %s.len == 0)", a, b);
  emit(g, "memcpy(%s.at, (%s.len ? %s : %s).at, (size_t)%s.len * sizeof *%s.at);", r, a, a, b, r, r);
  else_block(g);
  if (g->counting) emit(g, "VB_OPS(%s.len);", r);
  emit(g, "int64_t %s = 0, %s = 0;", i, j);
  open_block(g, "for (int64_t k = 0; k < %s.len; k++)", r);
  const char *t = ctype(g, e->ty->a);
  emit(g, "%s x = %s.at[%s < %s.len ? %s : %s.len - 1], y = %s.at[%s < %s.len ? %s : %s.len - 1];", t, a, i, a, i, a, b,
       j, b, j, b);
  emit(g, "bool first = %s < %s.len && (%s >= %s.len || x <= y);", i, a, j, b);
  emit(g, "%s.at[k] = first ? x : y;", r);
  emit(g, "%s += first, %s += !first;", i, j);
  close_block(g);
  close_block(g);
  return r;
}

const char *cg_neighbours_of(Cg *g, Ir *e, const char *l, const char *rv, const char *v) {
  const char *k = temp(g), *r = new_vec(g, e->ty, fmt(g, "%s.len", v));
  emit(g, "for (int64_t %s = 0; %s < %s.len; %s++) %s.at[%s] = (%s){%s > 0 ? %s.at[%s - 1] : %s, {%s.at[%s], %s + 1 < %s.len ? %s.at[%s + 1] : %s}};",
       k, k, v, k, r, k, ctype(g, e->ty->a), k, v, k, l, v, k, k, v, v, k, rv);
  return r;
}

static const char *cg_reverse(Cg *g, Ir *e) {
  const char *v = cg_expr(g, e->a), *k = temp(g);
  const char *r = new_vec(g, e->ty, fmt(g, "%s.len", v));
  emit(g, "for (int64_t %s = 0; %s < %s.len; %s++) %s.at[%s] = %s.at[%s.len - 1 - %s];", k, k, v, k, r, k, v, v, k);
  return r;
}

static const char *cg_iter(Cg *g, Ir *e) {
  const char *x = cg_expr(g, e->a), *n = cg_expr(g, e->b), *k = temp(g);
  emit(g, "/* iter at %s */", where(g, e->pos));
  emit(g, "if (%s < 0) rt_error(%s, \"iter with a negative count (%%\" PRId64 \")\", %s);", n, site(g, e->pos), n);
  const char *acc = define_temp(g, e->ty, x);
  bool counted = count_static(g, e->body, n);
  open_block(g, "for (int64_t %s = 0; %s < %s; %s++)", k, k, n, k);
  // Over a pair (lower.c, pair_iter): its components are the variables.
  const char *state = e->y ? fmt(g, "%s.a", acc) : acc, *other = e->y ? fmt(g, "%s.b", acc) : NULL;
  emit(g, "%s = %s;", acc, apply_counted(g, e, counted, state, other));
  close_block(g);
  return acc;
}

const char *cg_expr(Cg *g, Ir *e) {
  if (g->pre && g->pre[e->id]) return g->pre[e->id];  // computed at top level (top.c)
  switch (e->kind) {
  case IR_INT: case IR_FLOAT: case IR_BOOL: return cg_literal(g, e);
  case IR_PARAM: return fmt(g, "rt_param[%d]", e->index);
  case IR_INPUT: return input_name(g, e->index);
  case IR_VAR: return var_name(g, e->var);
  case IR_LET:
    define_let(g, e);
    return cg_expr(g, e->body);
  case IR_IF: case IR_IFS: return cg_cond(g, e);
  case IR_BINOP: return cg_binop(g, e);
  case IR_UNOP: return cg_unop(g, e);
  case IR_PAIR: {
    const char *a = cg_expr(g, e->a);
    return define_temp(g, e->ty, fmt(g, "{%s, %s}", a, cg_expr(g, e->b)));
  }
  case IR_FST: return fmt(g, "%s.a", cg_expr(g, e->a));
  case IR_SND: return fmt(g, "%s.b", cg_expr(g, e->a));
  case IR_VEC: return cg_vec_literal(g, e);
  case IR_LENGTH: return fmt(g, "%s.len", cg_expr(g, e->a));
  case IR_ENTRY: {
    const char *v = cg_expr(g, e->a), *i = cg_expr(g, e->b);
    return define_temp(g, e->ty, fmt(g, "%s.at[rt_index(%s, %s.len, %s)]", v, i, v, site(g, e->pos)));
  }
  case IR_HD: case IR_TL: {
    const char *v = cg_expr(g, e->a);
    emit(g, "rt_nonempty(%s.len, \"%s\", %s);", v, e->kind == IR_HD ? "hd" : "tl", site(g, e->pos));
    if (e->kind == IR_HD) return define_temp(g, e->ty, fmt(g, "%s.at[0]", v));
    return define_temp(g, e->ty, fmt(g, "{%s.len - 1, %s.at + 1}", v, v));
  }
  case IR_REDCONCAT: return cg_redconcat(g, e);
  case IR_DUMMYVEC: return cg_dummyvec(g, e);
  case IR_ITER: return cg_iter(g, e);
  case IR_IOTA: return cg_iota(g, e);
  case IR_SPLIT: return cg_split(g, e);
  case IR_MERGE: return cg_merge(g, e);
  case IR_NEIGHBOURS: {
    const char *l = cg_expr(g, e->a), *r = cg_expr(g, e->b);
    return cg_neighbours_of(g, e, l, r, cg_expr(g, e->c));
  }
  case IR_REVERSE: return cg_reverse(g, e);
  default:
    if (e->mode == MODE_TOP) error_at(e->pos, "internal error: a parallel application in sequential code");
    return cg_local_skeleton(g, e);
  }
}

//
// The program.
//

// The site table: every position a message may point at, with its line.
static void gen_sites(Cg *g, Buf *o) {
  buf_printf(o, "static const rt_site rt_sites[] = {\n");
  for (int i = 0; i < g->sites.len; i++) {
    Pos *p = g->sites.data[i];
    const char *text = p->src->text, *end = text + p->src->len, *s = text;
    for (int line = 1; line < p->line && s < end; s++)
      if (*s == '\n') line++;
    const char *q = s;
    while (q < end && *q != '\n') q++;
    buf_printf(o, "  {%s, %d, %d, %s},\n", c_string(g, p->src->name, strlen(p->src->name)), p->line, p->col,
               c_string(g, s, (size_t)(q - s)));
  }
  buf_printf(o, "  {\"\", 0, 0, \"\"}\n};\n\n");
}

// A plan with regions by levels: its lead table (ranges.h, "Hierarchical
// machines") and the sync of a round's groups, which needs vecbsp's
// runtime (bsp_group.h; other BSPlib programs need only bsp.h).
static void gen_levels(Cg *g, Buf *o) {
  const PlanLevels *lv = &g->pl->levels;
  int p = g->pl->p;
  buf_printf(o, "#include <bsp_group.h>\n\n/* The plan's levels: rt_lead[round * P + k] is the first process of k's group at that round. */\n");
  buf_printf(o, "enum { RT_ROUNDS = %d, RT_LEVELS_P = %d };\nstatic const int rt_lead[] = {", lv->rounds, p);
  for (int i = 0; i < lv->rounds * p; i++) buf_printf(o, "%s%d", i ? ", " : "", lv->lead[i]);
  buf_printf(o, "};\n\n/* The sync of a round's groups (each synchronised apart where the runtime can), then the new messages. */\n");
  buf_printf(o, "static inline void rt_group_sync(int round) {\n  bsp_group_sync(rt_lead + round * RT_LEVELS_P);\n  rt_collect();\n}\n\n");
}

bool cg_uses_levels(const Plan *pl) {
  for (int r = 0; r < pl->ir->nregions; r++)
    if (pl->region[r].levels) return true;
  return false;
}

char *codegen_program(IrProgram *ir, const Plan *pl) {
  Cg g = {.ir = ir, .pl = pl, .arena = ir->arena, .counting = true};
  Buf program = {0}, out = {0};
  cg_program(&g, &program);
  buf_printf(&out, "/* Generated by vecbsp from %s (plan: %s, made for p = %d): C over the BSPlib API (bsp.h). */\n",
             ir->prog->src->name, pl->name, pl->p);
  buf_printf(&out, "%s\n/* ---- the program ---- */\n\n", rt_prelude_text);
  if (cg_uses_levels(pl)) gen_levels(&g, &out);
  gen_sites(&g, &out);
  buf_printf(&out, "%s", program.text);
  free(g.types.text);
  free(g.regions.text);
  free(program.text);
  return out.text;
}
