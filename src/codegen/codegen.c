// codegen.c: the C program of a planned IR: data types and their helpers,
// the master's top-level code, one set of functions per region, the worker
// loop and main (docs/compiler.md). The prelude src/codegen/rt/*.c comes first.
#include "codegen/codegen.h"
#include "eval/eval.h"
#include "rt_prelude.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// A growable text.
typedef struct Buf {
  char *text;  // NUL-terminated contents (malloc'ed)
  size_t len;  // bytes used
  size_t cap;  // bytes allocated
} Buf;

typedef struct Cg {
  IrProgram *ir;    // the program
  Arena *arena;     // for names
  Buf types;        // typedefs and per-type helpers
  Buf regions;      // region functions
  Buf *out;         // where statements go now
  int indent;       // current indentation (levels of two spaces)
  int temps;        // temporaries made so far (names t1, t2, ...)
  PtrVec sites;     // Pos *: the fault sites, by number
  int64_t pending;  // operations not yet passed to VB_OPS
  bool counting;    // whether operations are counted here (not already by the loop)
  Region *region;   // the region being generated, or NULL in master code
  struct Gen *element;    // a fold's element made in its body's loop, for the body's fused
                          // operand (plan.c, "Folds of vectors"); NULL once taken
  Ir *overwrite;          // a fold's body that overwrites the accumulator, while its step is emitted
  const char *acc, *step; // then: the accumulator and the step number (NULL: the accumulator
                          // is the fold's own from the first step), as C expressions
} Cg;

enum {
  FIELD_EXCHANGE = 1024,  // + stage: messages exchanged inside a region
  FIELD_GATHER = 2047,    // blocks of a region's result sent to process 0
};

static const char *cg_expr(Cg *g, Ir *e);

//
// Text.
//

static void buf_vprintf(Buf *b, const char *fmt, va_list ap) {
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

static void buf_printf(Buf *b, const char *fmt, ...) {
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
static void emit(Cg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(Cg *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  line(g, "\n", fmt, ap);
  va_end(ap);
}

static void flush_ops(Cg *g) {
  if (g->pending) emit(g, "VB_OPS(%lld);", (long long)g->pending);
  g->pending = 0;
}

static void count_op(Cg *g) {
  if (g->counting) g->pending++;
}

// "if (..) {", "for (..) {": operations so far are counted before it.
static void open_block(Cg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void open_block(Cg *g, const char *fmt, ...) {
  flush_ops(g);
  va_list ap;
  va_start(ap, fmt);
  line(g, " {\n", fmt, ap);
  va_end(ap);
  g->indent++;
}

static void close_block(Cg *g) {
  flush_ops(g);
  g->indent--;
  emit(g, "}");
}

static void else_block(Cg *g) {
  flush_ops(g);
  g->indent--;
  emit(g, "} else {");
  g->indent++;
}

static char *fmt(Cg *g, const char *f, ...) __attribute__((format(printf, 2, 3)));
static char *fmt(Cg *g, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  Buf b = {0};
  buf_vprintf(&b, f, ap);
  va_end(ap);
  char *s = arena_strndup(g->arena, b.text, b.len);
  free(b.text);
  return s;
}

static char *temp(Cg *g) { return fmt(g, "t%d", ++g->temps); }

// A C string literal for s.
static char *c_string(Cg *g, const char *s, size_t n) {
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
// Types: int t_i, float t_f, bool t_b, pairs t_p<a><b>, vectors t_v<a>.
//

static const char *mangle(Cg *g, Type *t) {
  switch (t->kind) {
  case T_INT: return "i";
  case T_FLOAT: return "f";
  case T_BOOL: return "b";
  case T_PAIR: return fmt(g, "p%s%s", mangle(g, t->a), mangle(g, t->b));
  default: return fmt(g, "v%s", mangle(g, t->a));
  }
}

static const char *ctype(Cg *g, Type *t) { return fmt(g, "t_%s", mangle(g, t)); }

static int words_of(Type *t) { return t->kind == T_PAIR ? words_of(t->a) + words_of(t->b) : 1; }

static void pair_helpers(Cg *g, Type *t) {
  const char *m = mangle(g, t), *a = mangle(g, t->a), *b = mangle(g, t->b), *c = ctype(g, t);
  Buf *o = &g->types;
  buf_printf(o, "typedef struct { t_%s a; t_%s b; } %s;\n", a, b, c);
  buf_printf(o, "static inline int64_t wc_%s(%s v) { return wc_%s(v.a) + wc_%s(v.b); }\n", m, c, a, b);
  buf_printf(o, "static inline int64_t *pk_%s(int64_t *w, %s v) { return pk_%s(pk_%s(w, v.a), v.b); }\n",
             m, c, b, a);
  buf_printf(o, "static inline const int64_t *un_%s(const int64_t *w, %s *v) { return un_%s(un_%s(w, &v->a), &v->b); }\n",
             m, c, b, a);
  buf_printf(o, "static inline void pr_%s(FILE *out, %s v) {\n  fputc('(', out);\n  pr_%s(out, v.a);\n"
             "  fputs(\", \", out);\n  pr_%s(out, v.b);\n  fputc(')', out);\n}\n", m, c, a, b);
  buf_printf(o, "static inline %s zero_%s(%s v) { return (%s){zero_%s(v.a), zero_%s(v.b)}; }\n\n", c, m, c, c,
             a, b);
}

// The block form of a vector (docs/compiler.md, "What is counted"): the
// elements packed, except for blocks of rows. Rows of one common length
// (the stride, in the tag) go without their lengths: when their scalars are
// words and lie in one run of memory, as that run, without packing. Rows
// of word scalars of different lengths go as their lengths, then their
// scalars, so that a receiver finds every row from the lengths alone,
// without a chain of loads through the rows.
static void block_send_helper(Cg *g, Type *t) {
  const char *m = mangle(g, t), *e = mangle(g, t->a), *c = ctype(g, t);
  Buf *o = &g->types;
  bool nested = t->a->kind == T_VEC, rows = plan_sent_in_place(t) && nested;
  buf_printf(o, "/* sends the block v of a vector of n elements */\n");
  buf_printf(o, "static inline void sb_%s(int pid, int64_t head, int64_t n, %s v) {\n", m, c);
  buf_printf(o, "  rt_tag tag = {head, n, -1};\n");
  if (ir_word_flat(t->a)) {
    buf_printf(o, "  rt_send(pid, tag, v.at, v.len * %d);\n}\n", words_of(t->a));
    return;
  }
  buf_printf(o, "  int64_t count = 0;\n");
  if (!nested) {
    buf_printf(o, "  for (int64_t i = 0; i < v.len; i++) count += wc_%s(v.at[i]);\n", e);
    buf_printf(o, "  int64_t *w = rt_words(count), *p = w;\n");
    buf_printf(o, "  for (int64_t i = 0; i < v.len; i++) p = pk_%s(p, v.at[i]);\n", e);
    buf_printf(o, "  rt_send(pid, tag, w, count);\n}\n");
    return;
  }
  const char *u = mangle(g, t->a->a);
  buf_printf(o, "  tag.stride = v.len > 0 ? v.at[0].len : -1;\n");
  buf_printf(o, "  bool run = true; /* the rows follow each other in memory */\n");
  buf_printf(o, "  for (int64_t i = 1; i < v.len && tag.stride >= 0; i++) {\n"
                "    if (v.at[i].len != tag.stride) tag.stride = -1;\n"
                "    else if (v.at[i].at != v.at[0].at + i * tag.stride) run = false;\n  }\n");
  if (rows)
    buf_printf(o, "  if (tag.stride >= 0 && run) {\n    rt_send(pid, tag, v.len ? v.at[0].at : NULL, v.len * tag.stride * %d);\n"
                  "    return;\n  }\n", words_of(t->a->a));
  else
    buf_printf(o, "  (void)run;\n");
  buf_printf(o, "  for (int64_t i = 0; i < v.len; i++)\n"
                "    count += tag.stride >= 0 ? wc_%s(v.at[i]) - 1 : wc_%s(v.at[i]);\n", e, e);
  buf_printf(o, "  int64_t *w = rt_words(count), *p = w;\n");
  if (rows)
    buf_printf(o, "  if (tag.stride < 0) { /* the lengths, then the rows */\n"
                  "    p += v.len;\n"
                  "    for (int64_t i = 0; i < v.len; i++) {\n"
                  "      w[i] = v.at[i].len;\n"
                  "      if (v.at[i].len > 0) memcpy(p, v.at[i].at, (size_t)v.at[i].len * sizeof *v.at[i].at);\n"
                  "      p += v.at[i].len * %d;\n    }\n"
                  "    rt_send(pid, tag, w, count);\n    return;\n  }\n", words_of(t->a->a));
  buf_printf(o, "  for (int64_t i = 0; i < v.len; i++) {\n"
                "    if (tag.stride < 0) { p = pk_%s(p, v.at[i]); continue; }\n"
                "    for (int64_t j = 0; j < v.at[i].len; j++) p = pk_%s(p, v.at[i].at[j]);\n  }\n", e, u);
  buf_printf(o, "  rt_send(pid, tag, w, count);\n}\n");
}

// ub_*: a received block copied out; vb_*: the block, in the message itself
// when its form is the memory layout.
static void block_unpack_helpers(Cg *g, Type *t) {
  const char *m = mangle(g, t), *e = mangle(g, t->a), *c = ctype(g, t);
  Buf *o = &g->types;
  bool nested = t->a->kind == T_VEC, rows = plan_sent_in_place(t) && nested;
  const char *u = nested ? mangle(g, t->a->a) : NULL;
  buf_printf(o, "/* unpacks a block of r elements into at */\n");
  buf_printf(o, "static inline void ub_%s(const rt_msg *m, int64_t r, t_%s *at) {\n", m, e);
  if (ir_word_flat(t->a)) {
    buf_printf(o, "  if (r > 0) memcpy(at, m->words, (size_t)r * sizeof *at);\n}\n");
  } else {
    buf_printf(o, "  const int64_t *w = m->words;\n");
    if (nested) {
      buf_printf(o, "  int64_t s = m->tag.stride;\n  if (s >= 0) {\n"
                    "    t_%s *items = rt_array(r * s, sizeof *items);\n", u);
      if (rows)
        buf_printf(o, "    if (r * s > 0) memcpy(items, w, (size_t)(r * s) * sizeof *items);\n");
      else
        buf_printf(o, "    for (int64_t i = 0; i < r * s; i++) w = un_%s(w, &items[i]);\n", u);
      buf_printf(o, "    for (int64_t i = 0; i < r; i++) at[i] = (t_%s){s, items + i * s};\n"
                    "    return;\n  }\n", e);
    }
    if (rows)
      buf_printf(o, "  vw_%s(m, r, at); /* then each row copied out */\n"
                    "  for (int64_t i = 0; i < r; i++) {\n"
                    "    t_%s *row = rt_array(at[i].len, sizeof *row);\n"
                    "    if (at[i].len > 0) memcpy(row, at[i].at, (size_t)at[i].len * sizeof *row);\n"
                    "    at[i].at = row;\n  }\n}\n", m, u);
    else
      buf_printf(o, "  for (int64_t i = 0; i < r; i++) w = un_%s(w, &at[i]);\n}\n", e);
  }
  buf_printf(o, "/* a received block of r elements: in the message itself when its form\n"
                " * is the memory layout (then valid until the next barrier) */\n");
  buf_printf(o, "static inline %s vb_%s(const rt_msg *m, int64_t r) {\n", c, m);
  if (ir_word_flat(t->a))
    buf_printf(o, "  return (%s){r, r > 0 ? (t_%s *)m->words : NULL};\n}\n", c, e);
  else
    buf_printf(o, "  %s v = {r, rt_array(r, sizeof *v.at)};\n  ub_%s(m, r, v.at);\n  return v;\n}\n", c, m);
}

// vw_*: the rows of a received block of rows of word scalars, found where
// the message holds them (by the stride, or by the lengths at its head);
// vr_*: the block so.
static void block_view_helpers(Cg *g, Type *t) {
  const char *m = mangle(g, t), *e = mangle(g, t->a), *u = mangle(g, t->a->a), *c = ctype(g, t);
  Buf *o = &g->types;
  buf_printf(o, "/* the r rows of a received block, where the message holds them */\n");
  buf_printf(o, "static inline void vw_%s(const rt_msg *m, int64_t r, t_%s *at) {\n", m, e);
  buf_printf(o, "  int64_t s = m->tag.stride;\n  const int64_t *p = m->words + (s < 0 ? r : 0);\n"
                "  for (int64_t i = 0; i < r; i++) {\n"
                "    int64_t len = s < 0 ? m->words[i] : s;\n"
                "    at[i] = (t_%s){len, (t_%s *)p};\n"
                "    p += len * %d;\n  }\n}\n", e, u, words_of(t->a->a));
  buf_printf(o, "/* a received block of r rows: read where the message holds them\n"
                " * (valid until the next barrier) */\n");
  buf_printf(o, "static inline %s vr_%s(const rt_msg *m, int64_t r) {\n", c, m);
  buf_printf(o, "  %s v = {r, rt_array(r, sizeof *v.at)};\n  vw_%s(m, r, v.at);\n  return v;\n}\n", c, m);
}

static void block_helpers(Cg *g, Type *t) {
  block_send_helper(g, t);
  if (plan_sent_in_place(t) && t->a->kind == T_VEC) block_view_helpers(g, t);
  block_unpack_helpers(g, t);
}

// ld_*: a vector input, from the words rt_input_words packed, made in place
// when its scalars are words (the buffer is kept): a vector's elements are
// its words; a matrix's rows are moved down over their length words.
static void load_helper(Cg *g, Type *t) {
  const char *m = mangle(g, t), *c = ctype(g, t), *e = mangle(g, t->a);
  Buf *o = &g->types;
  buf_printf(o, "static inline %s ld_%s(int64_t *w) {\n", c, m);
  if (ir_word_flat(t->a)) {
    buf_printf(o, "  return (%s){w[0], (t_%s *)(w + 1)};\n}\n", c, e);
  } else if (t->a->kind == T_VEC && ir_word_flat(t->a->a)) {
    int k = words_of(t->a->a);
    buf_printf(o, "  %s v = {w[0], rt_array(w[0], sizeof *v.at)};\n  int64_t *from = w + 1, *to = w;\n", c);
    buf_printf(o, "  for (int64_t i = 0; i < v.len; i++) {\n    int64_t len = *from++;\n"
                  "    memmove(to, from, (size_t)(len * %d) * 8);\n    v.at[i] = (t_%s){len, (t_%s *)to};\n"
                  "    from += len * %d;\n    to += len * %d;\n  }\n  return v;\n}\n", k, e, mangle(g, t->a->a), k, k);
  } else {
    buf_printf(o, "  %s v;\n  un_%s(w, &v);\n  return v;\n}\n", c, m);
  }
}

static void vec_helpers(Cg *g, Type *t) {
  const char *m = mangle(g, t), *e = mangle(g, t->a), *c = ctype(g, t);
  Buf *o = &g->types;
  buf_printf(o, "typedef struct { int64_t len; t_%s *at; } %s;\n", e, c);
  buf_printf(o, "static inline int64_t wc_%s(%s v) {\n", m, c);
  if (ir_word_flat(t->a))
    buf_printf(o, "  return 1 + v.len * %d;\n}\n", words_of(t->a));
  else
    buf_printf(o, "  int64_t n = 1;\n  for (int64_t i = 0; i < v.len; i++) n += wc_%s(v.at[i]);\n  return n;\n}\n", e);
  buf_printf(o, "static inline int64_t *pk_%s(int64_t *w, %s v) {\n  *w++ = v.len;\n", m, c);
  if (ir_word_flat(t->a))
    buf_printf(o, "  memcpy(w, v.at, (size_t)v.len * sizeof *v.at);\n  return w + v.len * %d;\n}\n", words_of(t->a));
  else
    buf_printf(o, "  for (int64_t i = 0; i < v.len; i++) w = pk_%s(w, v.at[i]);\n  return w;\n}\n", e);
  buf_printf(o, "static inline const int64_t *un_%s(const int64_t *w, %s *v) {\n"
                "  v->len = *w++;\n  v->at = rt_array(v->len, sizeof *v->at);\n", m, c);
  if (ir_word_flat(t->a))
    buf_printf(o, "  memcpy(v->at, w, (size_t)v->len * sizeof *v->at);\n  return w + v->len * %d;\n}\n", words_of(t->a));
  else
    buf_printf(o, "  for (int64_t i = 0; i < v->len; i++) w = un_%s(w, &v->at[i]);\n  return w;\n}\n", e);
  buf_printf(o, "static inline void pr_%s(FILE *out, %s v) {\n  fputc('[', out);\n"
                "  for (int64_t i = 0; i < v.len; i++) {\n    if (i) fputs(\", \", out);\n"
                "    pr_%s(out, v.at[i]);\n  }\n  fputc(']', out);\n}\n", m, c, e);
  buf_printf(o, "static inline %s zero_%s(%s v) {\n  %s z = {v.len, rt_array(v.len, sizeof *v.at)};\n"
                "  for (int64_t i = 0; i < v.len; i++) z.at[i] = zero_%s(v.at[i]);\n  return z;\n}\n",
             c, m, c, c, e);
  block_helpers(g, t);
  load_helper(g, t);
  // Whole values as messages: vectors in block form, the rest packed.
  buf_printf(o, "static inline void sf_%s(int pid, int64_t head, %s v) { sb_%s(pid, head, v.len, v); }\n", m, c, m);
  buf_printf(o, "static inline %s rf_%s(const rt_msg *m) {\n  %s v = {m->tag.n, rt_array(m->tag.n, sizeof *v.at)};\n"
                "  ub_%s(m, v.len, v.at);\n  return v;\n}\n\n", c, m, c, m);
}

// Whole non-vector values as messages: packed.
static void value_message_helpers(Cg *g, Type *t) {
  const char *m = mangle(g, t), *c = ctype(g, t);
  buf_printf(&g->types, "static inline void sf_%s(int pid, int64_t head, %s v) {\n"
                        "  int64_t *w = rt_words(wc_%s(v));\n  rt_send(pid, (rt_tag){head, 0, -1}, w, pk_%s(w, v) - w);\n}\n",
             m, c, m, m);
  buf_printf(&g->types, "static inline %s rf_%s(const rt_msg *m) {\n  %s v;\n  un_%s(m->words, &v);\n  return v;\n}\n\n",
             c, m, c, m);
}

static void gen_types(Cg *g) {
  for (int i = 0; i < g->ir->types.len; i++) {
    Type *t = g->ir->types.data[i];
    if (t->kind == T_PAIR) pair_helpers(g, t);
    if (t->kind == T_VEC) vec_helpers(g, t);
    if (t->kind != T_VEC) value_message_helpers(g, t);
  }
}

//
// Fault sites and names.
//

static const char *site(Cg *g, Pos pos) {
  Pos *p = arena_alloc(g->arena, sizeof *p);
  *p = pos;
  ptrvec_push(g->arena, &g->sites, p);
  return fmt(g, "&rt_sites[%d]", g->sites.len - 1);
}

static const char *var_name(Cg *g, IrVar *v) {
  char *s = fmt(g, "%s%d", v->name, v->id);
  for (char *p = s; *p; p++)
    if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9')) *p = '_';
  return s;
}

static const char *input_name(Cg *g, int index) { return fmt(g, "in_%s", g->ir->prog->inputs[index]->name); }

static const char *where(Cg *g, Pos pos) { return fmt(g, "%s:%d:%d", pos.src->name, pos.line, pos.col); }

// Declares name of type t with value init.
static const char *define(Cg *g, Type *t, const char *name, const char *init) {
  emit(g, "%s %s = %s;", ctype(g, t), name, init);
  return name;
}

static const char *define_temp(Cg *g, Type *t, const char *init) { return define(g, t, temp(g), init); }

//
// Operations counted statically: a loop whose body always executes the same
// operations is counted once, before the loop.
//

// Operations of e if it has no control flow of its own, else -1.
static int64_t static_ops(Ir *e) {
  if (!e) return 0;
  switch (e->kind) {
  case IR_IF: case IR_IFS: case IR_ITER: return -1;
  case IR_BINOP: if (e->lazy) return -1; break;
  default: if (ir_is_skeleton(e->kind)) return -1; break;
  }
  int64_t n = e->kind == IR_BINOP || e->kind == IR_UNOP;
  Ir *kids[] = {e->a, e->b, e->c, e->body};
  for (int i = 0; i < 4; i++) {
    int64_t k = static_ops(kids[i]);
    if (k < 0) return -1;
    n += k;
  }
  for (int i = 0; i < e->nelems; i++) {
    int64_t k = static_ops(e->elems[i]);
    if (k < 0) return -1;
    n += k;
  }
  return n;
}

// Does evaluating e allocate memory (so that a loop may release it)? A
// fused skeleton stores nothing itself.
static bool allocates(Ir *e) {
  if (!e) return false;
  if (ir_type_has_vec(e->ty) && !e->fused && e->kind != IR_VAR && e->kind != IR_INPUT && e->kind != IR_TL &&
      e->kind != IR_FST && e->kind != IR_SND && e->kind != IR_ENTRY && e->kind != IR_HD)
    return true;
  Ir *kids[] = {e->a, e->b, e->c, e->body};
  for (int i = 0; i < 4; i++)
    if (allocates(kids[i])) return true;
  for (int i = 0; i < e->nelems; i++)
    if (allocates(e->elems[i])) return true;
  return false;
}

// Counts before a loop the operations of body applied `count` times, when
// they are static; returns whether it did (or they were counted already).
static bool count_static(Cg *g, Ir *body, const char *count) {
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

// Emits the body with x (and y) bound; returns the result's expression.
static const char *apply_body(Cg *g, Ir *e, const char *x, const char *y) {
  define(g, e->x->ty, var_name(g, e->x), x);
  if (y) define(g, e->y->ty, var_name(g, e->y), y);
  return cg_expr(g, e->body);
}

// The body inside a loop: its operations counted here unless `counted`
// before the loop.
static const char *apply_counted(Cg *g, Ir *e, bool counted, const char *x, const char *y) {
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

static const char *new_vec(Cg *g, Type *t, const char *len) {
  return define_temp(g, t, fmt(g, "{%s, rt_array(%s, sizeof(t_%s))}", len, len, mangle(g, t->a)));
}

static const char *stage_name(IrKind k) {
  switch (k) {
  case IR_MAP: return "map";
  case IR_FOLD: return "fold";
  case IR_PREFIX: return "prefix";
  case IR_PAIR_MAP: return "pair_map";
  case IR_C_PROD: return "c_prod";
  case IR_INITS: return "inits";
  default: return "tails";
  }
}

//
// Delayed vectors (docs/compiler.md, "Fusion"). A map, pair_map or prefix
// consumed once and in order is never stored: a generator makes each of its
// elements inside the loop of the consumer, when the consumer needs it.
// Every element is made exactly once, so the operations do not change.
//

typedef enum {
  GEN_ARRAY,   // a stored vector: its elements are read
  GEN_MAP,     // map or pair_map: the body applied to the source element(s)
  GEN_PREFIX,  // a running prefix: the body applied to the last result and the source element
  GEN_OFFSET,  // a parallel prefix's second pass: the lower blocks' total applied, if any
} GenKind;

// Which elements a loop makes at one place: the first, the others, or any.
typedef enum { AT_FIRST, AT_REST, AT_ANY } At;

typedef struct Gen Gen;
struct Gen {
  GenKind kind;       // how the elements are made
  Ir *e;              // all but GEN_ARRAY: the skeleton whose body makes them
  Gen *src, *src2;    // all but GEN_ARRAY: the source(s) (src2: pair_map's second)
  const char *vec;    // GEN_ARRAY: the C vector
  const char *state;  // GEN_PREFIX: the last element made; GEN_OFFSET: the total
  const char *when;   // GEN_OFFSET: whether there is a total to apply
  bool counted;       // its operations are counted before the loop (static body)
};

static Gen *gen_array(Cg *g, const char *vec) {
  Gen *s = arena_calloc(g->arena, 1, sizeof *s);
  s->kind = GEN_ARRAY;
  s->vec = vec;
  return s;
}

// The generator of a map, pair_map or prefix e over the given sources.
static Gen *gen_apply(Cg *g, Ir *e, Gen *src, Gen *src2) {
  Gen *s = arena_calloc(g->arena, 1, sizeof *s);
  s->kind = e->kind == IR_PREFIX ? GEN_PREFIX : GEN_MAP;
  s->e = e;
  s->src = src;
  s->src2 = src2;
  if (s->kind == GEN_PREFIX) s->state = define_temp(g, e->ty->a, "{0}");
  return s;
}

// Every generator has the length of its (first) source.
static const char *gen_len(Cg *g, Gen *s) {
  while (s->kind != GEN_ARRAY) s = s->src;
  return fmt(g, "%s.len", s->vec);
}

static void check_lengths(Cg *g, Ir *e, const char *a, const char *b) {
  emit(g, "if (%s != %s) rt_error(%s, \"pair_map on vectors of different lengths (%%\" PRId64 \" and %%\" PRId64 \")\", %s, %s);",
       a, b, site(g, e->pos), a, b);
}

static Gen *gen_skeleton(Cg *g, Ir *e);

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
  if (s->kind == GEN_PREFIX) emit(g, "VB_OPS(%lld * (%s > 0 ? %s - 1 : 0));", (long long)k, n, n);
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

// Does making the elements of s allocate?
static bool gen_allocates(Gen *s) {
  if (s->kind == GEN_ARRAY) return false;
  return allocates(s->e->body) || gen_allocates(s->src) || (s->src2 && gen_allocates(s->src2));
}

// Does a running value of s (a prefix's) hold a vector made in the loop?
static bool gen_keeps_vector(Gen *s) {
  if (s->kind == GEN_ARRAY) return false;
  if (s->kind == GEN_PREFIX && ir_type_has_vec(s->e->ty->a)) return true;
  return gen_keeps_vector(s->src) || (s->src2 && gen_keeps_vector(s->src2));
}

// May a loop over s (applying body, keeping values of type kept) release
// each iteration's scratch memory at its end?
static bool release_each(Gen *s, Ir *body, Type *kept) {
  return (gen_allocates(s) || (body && allocates(body))) && !ir_type_has_vec(kept) && !gen_keeps_vector(s);
}

// Stores the elements of s at dest[0..).
static void gen_store(Cg *g, Gen *s, const char *dest) {
  const char *n = gen_len(g, s), *k = temp(g);
  gen_count(g, s, n);
  bool release = release_each(s, NULL, s->e->ty->a);
  open_block(g, "for (int64_t %s = 0; %s < %s; %s++)", k, k, n, k);
  const char *mark = open_iteration(g, release);
  emit(g, "%s[%s] = %s;", dest, k, gen_elem(g, s, k, AT_ANY));
  close_iteration(g, mark);
  close_block(g);
}

// The elements of s as a stored vector: s's own when it is stored already;
// a fold's body overwriting the accumulator writes into it from step 2 on,
// when it is a vector of the fold's own.
static const char *gen_vector(Cg *g, Gen *s) {
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
  g->element = gen_skeleton(g, s->e->body);
}

// Folds the elements of s (there is at least one) into acc with e's body:
// the first element is made apart, the others in the loop.
static void gen_fold(Cg *g, Ir *e, Gen *s, const char *acc) {
  const char *n = gen_len(g, s), *k = temp(g);
  gen_count(g, s, n);
  bool counted = count_static(g, e->body, fmt(g, "%s - 1", n)), release = release_each(s, e->body, e->ty);
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

//
// Skeletons on local data that are not generators.
//

static const char *cg_c_prod_loop(Cg *g, Ir *e, const char *xs, const char *ys) {
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
static const char *cg_segments(Cg *g, Ir *e, const char *v) {
  const char *r = new_vec(g, e->ty, fmt(g, "%s.len", v)), *k = temp(g);
  const char *start = e->kind == IR_INITS ? fmt(g, "%s.at", v) : fmt(g, "%s.at + %s.len - 1 - %s", v, v, k);
  emit(g, "for (int64_t %s = 0; %s < %s.len; %s++) %s.at[%s] = (%s){%s + 1, %s};", k, k, v, k, r, k,
       ctype(g, e->ty->a), k, start);
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
    gen_fold(g, e, s, acc);
    return acc;
  }
  default: break;
  }
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

static const char *int_op(Cg *g, Op op, const char *x, const char *y, Pos pos) {
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

static const char *cg_vec_literal(Cg *g, Ir *e) {
  const char *r = new_vec(g, e->ty, fmt(g, "%d", e->nelems));
  for (int i = 0; i < e->nelems; i++) emit(g, "%s.at[%d] = %s;", r, i, cg_expr(g, e->elems[i]));
  return r;
}

static const char *cg_redconcat(Cg *g, Ir *e) {
  const char *v = cg_expr(g, e->a), *n = temp(g), *k = temp(g), *o = temp(g);
  emit(g, "int64_t %s = 0, %s = 0;", n, o);
  emit(g, "for (int64_t %s = 0; %s < %s.len; %s++) %s += %s.at[%s].len;", k, k, v, k, n, v, k);
  const char *r = new_vec(g, e->ty, n);
  open_block(g, "for (int64_t %s = 0; %s < %s.len; %s++)", k, k, v, k);
  emit(g, "memcpy(%s.at + %s, %s.at[%s].at, (size_t)%s.at[%s].len * sizeof *%s.at);", r, o, v, k, v, k, r);
  emit(g, "%s += %s.at[%s].len;", o, v, k);
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

static const char *cg_iter(Cg *g, Ir *e) {
  const char *x = cg_expr(g, e->a), *n = cg_expr(g, e->b), *k = temp(g);
  emit(g, "/* iter at %s */", where(g, e->pos));
  emit(g, "if (%s < 0) rt_error(%s, \"iter with a negative count (%%\" PRId64 \")\", %s);", n, site(g, e->pos), n);
  const char *acc = define_temp(g, e->ty, x);
  bool counted = count_static(g, e->body, n);
  open_block(g, "for (int64_t %s = 0; %s < %s; %s++)", k, k, n, k);
  emit(g, "%s = %s;", acc, apply_counted(g, e, counted, acc, NULL));
  close_block(g);
  return acc;
}

static const char *cg_region_call(Cg *g, Ir *e);

static const char *cg_expr(Cg *g, Ir *e) {
  switch (e->kind) {
  case IR_INT: case IR_FLOAT: case IR_BOOL: return cg_literal(g, e);
  case IR_PARAM: return fmt(g, "rt_param[%d]", e->index);
  case IR_INPUT: return input_name(g, e->index);
  case IR_VAR: return var_name(g, e->var);
  case IR_LET:
    define(g, e->var->ty, var_name(g, e->var), cg_expr(g, e->a));
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
  default: return e->mode == MODE_TOP ? cg_region_call(g, e) : cg_local_skeleton(g, e);
  }
}

//
// Regions. The master evaluates the region's operands and calls rN_master,
// which scatters and calls rN_run; the workers receive and call rN_run.
// Fields (message numbers): the captured variables, the captured inputs,
// the full operands of c_prod stages, then the scattered argument(s).
//

typedef struct Field {
  Type *ty;          // its type
  const char *name;  // its C name in rN_run (and in the capture struct)
} Field;

typedef struct RegionFields {
  Field *full;  // sent in full
  int nfull;
  Field *scatter;  // scattered in blocks (1, or 2 for pair_map)
  int nscatter;
} RegionFields;

static RegionFields region_fields(Cg *g, Region *r) {
  RegionFields f = {0};
  f.full = arena_calloc(g->arena, (size_t)(r->ncaptured + r->ninputs + r->nstages + 1), sizeof *f.full);
  for (int i = 0; i < r->ncaptured; i++) f.full[f.nfull++] = (Field){r->captured[i]->ty, var_name(g, r->captured[i])};
  for (int i = 0; i < r->ninputs; i++)
    f.full[f.nfull++] = (Field){r->inputs[i]->ty, input_name(g, r->inputs[i]->index)};
  for (int s = 0; s < r->nstages; s++)
    if (r->stages[s]->kind == IR_C_PROD) f.full[f.nfull++] = (Field){r->stages[s]->a->ty, fmt(g, "o%d", s)};
  f.scatter = arena_calloc(g->arena, 2, sizeof *f.scatter);
  Ir *first = r->first;
  if (first->kind == IR_PAIR_MAP) {
    f.scatter[f.nscatter++] = (Field){first->a->ty, "b0"};
    f.scatter[f.nscatter++] = (Field){first->b->ty, "b1"};
  } else {
    f.scatter[f.nscatter++] = (Field){plan_chain_arg(first)->ty, "b0"};
  }
  return f;
}

// Block q of the region's n elements: its bounds as C expressions.
static const char *lo_of(Cg *g, const char *q) { return fmt(g, "rt_lo(n, P, %s)", q); }
static const char *hi_of(Cg *g, const char *q) { return fmt(g, "rt_lo(n, P, %s + 1)", q); }

// The partials of a fold or the totals of a prefix, received from the
// processes q in `range` with non-empty blocks, combined into acc in pid order
// with e's body; got says whether acc holds one yet.
static void combine_received(Cg *g, Ir *e, const char *range, int field, const char *acc, const char *got) {
  open_block(g, "for (int q = %s; q++)", range);
  emit(g, "if (%s == %s) continue;", lo_of(g, "q"), hi_of(g, "q"));
  Type *t = e->kind == IR_FOLD ? e->ty : e->ty->a;
  const char *y = define_temp(g, t, fmt(g, "rf_%s(rt_find(%d, q))", mangle(g, t), field));
  open_block(g, "if (!%s)", got);
  emit(g, "%s = %s;", acc, y);
  emit(g, "%s = true;", got);
  emit(g, "continue;");
  close_block(g);
  emit(g, "%s = %s;", acc, apply_body(g, e, acc, y));
  close_block(g);
}

// fold: the local fold, the partial results to process 0, which folds them
// in pid order.
static const char *stage_fold(Cg *g, Region *r, Ir *e, Gen *cur) {
  const char *acc = define_temp(g, e->ty, "{0}");
  open_block(g, "if (%s > 0)", gen_len(g, cur));
  gen_fold(g, e, cur, acc);
  emit(g, "if (pid != 0) sf_%s(0, rt_head(%d, %d, pid), %s);", mangle(g, e->ty), r->id, FIELD_EXCHANGE + e->stage, acc);
  close_block(g);
  emit(g, "rt_sync();");
  open_block(g, "if (pid == 0)");
  emit(g, "bool got = %s > 0;", gen_len(g, cur));
  combine_received(g, e, "1; q < P", FIELD_EXCHANGE + e->stage, acc, "got");
  close_block(g);
  return acc;
}

// prefix: pass 1 stores the local prefix (its producers made in its loop)
// and sends the block total to the higher processes; after the barrier each
// process combines the lower totals, and pass 2 (a generator, fused with
// what follows) applies them to its elements.
static Gen *stage_prefix(Cg *g, Region *r, Ir *e, Gen *cur) {
  const char *t = gen_vector(g, gen_apply(g, e, cur, NULL)), *et = mangle(g, e->ty->a);
  int field = FIELD_EXCHANGE + e->stage;
  open_block(g, "if (%s.len > 0)", t);
  emit(g, "for (int q = pid + 1; q < P; q++)");
  emit(g, "  if (%s < %s) sf_%s(q, rt_head(%d, %d, pid), %s.at[%s.len - 1]);", lo_of(g, "q"), hi_of(g, "q"), et,
       r->id, field, t, t);
  close_block(g);
  emit(g, "rt_sync();");
  Gen *offset = gen_apply(g, e, gen_array(g, t), NULL);
  offset->kind = GEN_OFFSET;
  offset->when = define_temp(g, lower_type(g->ir, T_BOOL, NULL, NULL), "false");
  open_block(g, "if (%s.len > 0)", t);
  combine_received(g, e, "0; q < pid", field, offset->state, offset->when);
  close_block(g);
  return offset;
}

// inits/tails: each process fetches the elements its segments need (all of
// [0, hi) for inits, [n - hi, n) for tails), then makes them as views.
static const char *stage_segments(Cg *g, Region *r, Ir *e, const char *cur) {
  bool inits = e->kind == IR_INITS;
  const char *vt = mangle(g, e->a->ty), *et = mangle(g, e->a->ty->a);
  int field = FIELD_EXCHANGE + e->stage;
  // What process q needs from us: [max(lo, need_lo(q)), hi).
  const char *need = inits ? "0" : fmt(g, "n - %s", hi_of(g, "q"));
  const char *res = define_temp(g, e->ty, "{0}");
  open_block(g, "/* the elements the segments need */");
  emit(g, "int64_t lo = %s, hi = %s, base = %s;", lo_of(g, "pid"), hi_of(g, "pid"), inits ? "0" : "n - hi");
  open_block(g, "for (int q = 0; q < P && hi > lo; q++)");
  emit(g, "int64_t from = %s > lo ? %s : lo;", need, need);
  emit(g, "if (q != pid && %s < %s && from < hi && %s)", lo_of(g, "q"), hi_of(g, "q"), inits ? "q > pid" : "true");
  emit(g, "  sb_%s(q, rt_head(%d, %d, pid), n, (t_%s){hi - from, %s.at + (from - lo)});", vt, r->id, field, vt, cur);
  close_block(g);
  emit(g, "/* our own part before the barrier: the block may live in a message */");
  emit(g, "t_%s *all = rt_array(hi > lo ? hi : 0, sizeof *all);", et);
  emit(g, "int64_t own = lo > base ? lo : base;");
  emit(g, "if (hi > lo && own < hi) memcpy(all + (own - base), %s.at + (own - lo), (size_t)(hi - own) * sizeof *all);", cur);
  emit(g, "rt_sync();");
  emit(g, "%s = (%s){hi - lo, rt_array(hi - lo, sizeof *%s.at)};", res, ctype(g, e->ty), res);
  open_block(g, "if (hi > lo)");
  open_block(g, "for (int q = 0; q < P; q++)");
  emit(g, "int64_t qlo = %s, qhi = %s, from = qlo > base ? qlo : base;", lo_of(g, "q"), hi_of(g, "q"));
  emit(g, "if (qhi > base + hi) qhi = base + hi;");
  emit(g, "if (q != pid && from < qhi) ub_%s(rt_find(%d, q), qhi - from, all + (from - base));", vt, field);
  close_block(g);
  emit(g, "for (int64_t j = lo; j < hi; j++) %s.at[j - lo] = (t_%s){j + 1, all + %s};", res, vt,
       inits ? "0" : "(n - 1 - j) - base");
  close_block(g);
  close_block(g);
  return res;
}

// The gather: process 0's block is made in place in the result res
// (allocated before the stages), the others' blocks are sent to it.
static const char *stage_gather(Cg *g, Region *r, Gen *cur, const char *res, const char *scratch) {
  const char *vt = mangle(g, r->root->ty), *blk;
  emit(g, "/* gather */");
  if (cur->kind == GEN_ARRAY) {
    blk = cur->vec;
    emit(g, "if (pid == 0 && %s.len > 0) memcpy(%s.at, %s.at, (size_t)%s.len * sizeof *%s.at);", blk, res, blk, blk, res);
  } else {
    const char *n = gen_len(g, cur);
    blk = define_temp(g, r->root->ty, fmt(g, "{%s, pid == 0 ? %s.at : rt_array(%s, sizeof *%s.at)}", n, res, n, res));
    gen_store(g, cur, fmt(g, "%s.at", blk));
  }
  emit(g, "if (pid != 0 && %s.len > 0) sb_%s(0, rt_head(%d, %d, pid), n, %s);", blk, vt, r->id, FIELD_GATHER, blk);
  if (scratch) emit(g, "rt_release(%s); /* the stages' arrays are dead (sent data is copied) */", scratch);
  emit(g, "rt_sync();");
  open_block(g, "if (pid == 0)");
  open_block(g, "for (int q = 1; q < P; q++)");
  emit(g, "int64_t qlo = %s, qhi = %s;", lo_of(g, "q"), hi_of(g, "q"));
  emit(g, "if (qhi > qlo) ub_%s(rt_find(%d, q), qhi - qlo, %s.at + qlo);", vt, FIELD_GATHER, res);
  close_block(g);
  close_block(g);
  return res;
}

// Does the region's result hold no vector made by its stages, so that their
// scratch memory may be released when the result is complete?
static bool region_releases(Region *r) {
  return !ir_type_has_vec(r->root->kind == IR_FOLD ? r->root->ty : r->root->ty->a);
}

// The stages of a region on the local block(s) b0 (and b1); returns the
// result. Alone (p = 1) the region is one fused pass without a barrier; else
// a pass ends at each exchange, and the last one feeds the gather (res and
// scratch: the result on process 0 and the mark of the stages' memory).
static const char *region_stages(Cg *g, Region *r, bool alone, const char *res, const char *scratch) {
  Gen *cur = gen_array(g, "b0");
  for (int s = 0; s < r->nstages; s++) {
    Ir *e = r->stages[s];
    emit(g, "/* stage %d: %s at %s */", s, stage_name(e->kind), where(g, e->pos));
    switch (e->kind) {
    case IR_MAP: cur = gen_apply(g, e, cur, NULL); break;
    case IR_PAIR_MAP: cur = gen_apply(g, e, cur, gen_array(g, "b1")); break;
    case IR_C_PROD: cur = gen_array(g, cg_c_prod_loop(g, e, fmt(g, "o%d", s), gen_vector(g, cur))); break;
    case IR_PREFIX: cur = alone ? gen_apply(g, e, cur, NULL) : stage_prefix(g, r, e, cur); break;
    case IR_FOLD: {
      if (!alone) return stage_fold(g, r, e, cur);
      const char *acc = define_temp(g, e->ty, "{0}");
      gen_fold(g, e, cur, acc);
      return acc;
    }
    default: {
      const char *v = gen_vector(g, cur);
      cur = gen_array(g, alone ? cg_segments(g, e, v) : stage_segments(g, r, e, v));
      break;
    }
    }
  }
  return alone ? gen_vector(g, cur) : stage_gather(g, r, cur, res, scratch);
}

// rN_run (p > 1, every process) or rN_alone (p = 1): the region's stages.
static void region_function(Cg *g, Region *r, RegionFields *f, bool alone) {
  Ir *root = r->root;
  const char *rt = ctype(g, root->ty);
  if (alone)
    buf_printf(g->out, "/* region %d at %s at p = 1: one fused pass, no barrier */\n", r->id, where(g, root->pos));
  else
    buf_printf(g->out, "/* region %d at %s: the local stages, run by every process */\n", r->id, where(g, root->pos));
  buf_printf(g->out, "static %s r%d_%s(const r%d_cap *cap", rt, r->id, alone ? "alone" : "run", r->id);
  for (int i = 0; i < f->nscatter; i++) buf_printf(g->out, ", %s %s", ctype(g, f->scatter[i].ty), f->scatter[i].name);
  buf_printf(g->out, alone ? ") {\n" : ", int64_t n) {\n");
  g->indent = 1;
  for (int i = 0; i < f->nfull; i++) define(g, f->full[i].ty, f->full[i].name, fmt(g, "cap->%s", f->full[i].name));
  emit(g, "(void)cap;");
  const char *res = NULL, *scratch = NULL;
  if (!alone) {
    emit(g, "int pid = bsp_pid(), P = bsp_nprocs();");
    if (root->kind != IR_FOLD)
      res = define_temp(g, root->ty, fmt(g, "{n, pid == 0 ? rt_array(n, sizeof(t_%s)) : NULL}", mangle(g, root->ty->a)));
    if (region_releases(r)) emit(g, "size_t %s = rt_mark();", scratch = "scratch");
  }
  const char *v = region_stages(g, r, alone, res, scratch);
  if (scratch && root->kind == IR_FOLD) emit(g, "rt_release(%s);", scratch);
  flush_ops(g);
  emit(g, "return %s;", v);
  buf_printf(g->out, "}\n\n");
}

static void region_master(Cg *g, Region *r, RegionFields *f) {
  const char *rt = ctype(g, r->root->ty);
  buf_printf(g->out, "/* region %d: process 0 checks, scatters and runs its part */\n", r->id);
  buf_printf(g->out, "static %s r%d_master(r%d_cap cap", rt, r->id, r->id);
  Buf args = {0};
  for (int i = 0; i < f->nscatter; i++) {
    buf_printf(g->out, ", %s %s", ctype(g, f->scatter[i].ty), f->scatter[i].name);
    buf_printf(&args, ", %s", f->scatter[i].name);
  }
  buf_printf(g->out, ") {\n");
  g->indent = 1;
  emit(g, "int P = bsp_nprocs();");
  emit(g, "int64_t n = b0.len;");
  if (r->first->kind == IR_PAIR_MAP) check_lengths(g, r->first, "b0.len", "b1.len");
  if (r->root->kind == IR_FOLD) emit(g, "rt_nonempty(n, \"fold\", %s);", site(g, r->root->pos));
  emit(g, "if (P == 1) return r%d_alone(&cap%s);", r->id, args.text);
  free(args.text);
  open_block(g, "for (int q = 1; q < P; q++)");
  for (int i = 0; i < f->nfull; i++)
    emit(g, "sf_%s(q, rt_head(%d, %d, 0), cap.%s);", mangle(g, f->full[i].ty), r->id, i, f->full[i].name);
  for (int i = 0; i < f->nscatter; i++)
    emit(g, "sb_%s(q, rt_head(%d, %d, 0), n, (%s){%s - %s, %s.at + %s});", mangle(g, f->scatter[i].ty), r->id,
         f->nfull + i, ctype(g, f->scatter[i].ty), hi_of(g, "q"), lo_of(g, "q"), f->scatter[i].name, lo_of(g, "q"));
  close_block(g);
  emit(g, "rt_sync();");
  Buf blocks = {0};
  for (int i = 0; i < f->nscatter; i++)
    buf_printf(&blocks, ", (%s){rt_lo(n, P, 1), %s.at}", ctype(g, f->scatter[i].ty), f->scatter[i].name);
  emit(g, "return r%d_run(&cap%s, n);", r->id, blocks.text);
  free(blocks.text);
  buf_printf(g->out, "}\n\n");
}

// The helper that reads a received vector of type t where the message
// holds it: vb_* for elements of words, vr_* for rows of them.
static const char *in_place_view(Type *t) { return ir_word_flat(t->a) ? "vb" : "vr"; }

// A worker reads its blocks, and the values it gets in full, where the
// message holds them when the plan says so (in_place_view); otherwise it
// copies them out (vb_* copies rows out, rf_* whole values): the region is
// done with them by its first barrier, after which messages are gone.
static void region_worker(Cg *g, Region *r, RegionFields *f) {
  buf_printf(g->out, "/* region %d: a worker receives its part and runs it */\n", r->id);
  buf_printf(g->out, "static void r%d_worker(void) {\n", r->id);
  g->indent = 1;
  emit(g, "int pid = bsp_pid(), P = bsp_nprocs();");
  emit(g, "r%d_cap cap;", r->id);
  for (int i = 0; i < f->nfull; i++) {
    Type *t = f->full[i].ty;
    if (plan_full_in_place(r, t))
      emit(g, "cap.%s = %s_%s(rt_find(%d, 0), rt_find(%d, 0)->tag.n);", f->full[i].name, in_place_view(t), mangle(g, t),
           i, i);
    else
      emit(g, "cap.%s = rf_%s(rt_find(%d, 0));", f->full[i].name, mangle(g, t), i);
  }
  emit(g, "int64_t n = rt_find(%d, 0)->tag.n;", f->nfull);
  Buf args = {0};
  for (int i = 0; i < f->nscatter; i++) {
    Field *s = &f->scatter[i];
    const char *view = plan_block_in_place(r, s->ty) ? in_place_view(s->ty) : "vb";
    emit(g, "%s %s = %s_%s(rt_find(%d, 0), rt_lo(n, P, pid + 1) - rt_lo(n, P, pid));", ctype(g, s->ty), s->name,
         view, mangle(g, s->ty), f->nfull + i);
    buf_printf(&args, ", %s", s->name);
  }
  emit(g, "r%d_run(&cap%s, n);", r->id, args.text);
  free(args.text);
  buf_printf(g->out, "}\n\n");
}

static void gen_region(Cg *g, Region *r) {
  RegionFields f = region_fields(g, r);
  Buf *saved_out = g->out;
  int saved_indent = g->indent;
  bool saved_counting = g->counting;
  int64_t saved_pending = g->pending;
  g->out = &g->regions;
  g->counting = true;
  g->pending = 0;
  buf_printf(g->out, "/* region %d: the data it captures, sent in full */\ntypedef struct {\n", r->id);
  for (int i = 0; i < f.nfull; i++) buf_printf(g->out, "  %s %s;\n", ctype(g, f.full[i].ty), f.full[i].name);
  buf_printf(g->out, "  char unused; /* (a struct needs a member) */\n} r%d_cap;\n\n", r->id);
  region_function(g, r, &f, true);
  region_function(g, r, &f, false);
  region_master(g, r, &f);
  region_worker(g, r, &f);
  g->out = saved_out;
  g->indent = saved_indent;
  g->counting = saved_counting;
  g->pending = saved_pending;
}

// The master's side of a region: its operands, then the call.
static const char *cg_region_call(Cg *g, Ir *e) {
  Region *r = e->region;
  RegionFields f = region_fields(g, r);
  emit(g, "/* region %d: %s at %s, in parallel */", r->id, stage_name(e->kind), where(g, e->pos));
  Buf cap = {0};
  buf_printf(&cap, "{");
  for (int i = 0; i < r->ncaptured + r->ninputs; i++) buf_printf(&cap, "%s, ", f.full[i].name);
  const char **operand = arena_calloc(g->arena, (size_t)r->nstages, sizeof *operand);
  for (int s = r->nstages - 1; s >= 0; s--)  // in the interpreter's order: outermost stage first
    if (r->stages[s]->kind == IR_C_PROD) operand[s] = cg_expr(g, r->stages[s]->a);
  for (int s = 0; s < r->nstages; s++)
    if (operand[s]) buf_printf(&cap, "%s, ", operand[s]);
  buf_printf(&cap, "0}");
  Buf args = {0};
  if (r->first->kind == IR_PAIR_MAP) {
    const char *a = cg_expr(g, r->first->a);
    buf_printf(&args, ", %s, %s", a, cg_expr(g, r->first->b));
  } else {
    buf_printf(&args, ", %s", cg_expr(g, plan_chain_arg(r->first)));
  }
  gen_region(g, r);
  flush_ops(g);
  const char *res = define_temp(g, e->ty, fmt(g, "r%d_master((r%d_cap)%s%s)", r->id, r->id, cap.text, args.text));
  free(cap.text);
  free(args.text);
  return res;
}

//
// The program: sites, inputs, main.
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

// Declarations of the inputs and the setup of process 0: arguments, inputs,
// then the parameters and the repetition count to the workers.
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
  for (int k = 0; k < prog->ninputs; k++)
    buf_printf(o, "static %s %s;\n", ctype(g, input_type(g, prog->inputs[k]->itype)), input_name(g, k));
  buf_printf(o, "\nstatic int rt_argc;\nstatic char **rt_argv;\n\n");
  buf_printf(o, "/* process 0: the command line and the inputs; returns the repetition count */\n");
  buf_printf(o, "static int rt_setup(void) {\n");
  emit(g, "static const char *const params[] = {%sNULL};", names.text ? names.text : "");
  emit(g, "static const char *const inputs[] = {%sNULL};", inames.text ? inames.text : "");
  emit(g, "const rt_site param_sites[] = {%s{0}};", sites.text ? sites.text : "");
  emit(g, "const rt_site input_sites[] = {%s{0}};", isites.text ? isites.text : "");
  emit(g, "rt_decls d = {params, param_sites, %d, inputs, input_sites, %d};", prog->nparams, prog->ninputs);
  emit(g, "rt_args a;");
  emit(g, "rt_parse_args(rt_argc, rt_argv, &d, rt_param, &a);");
  emit(g, "rt_check_inputs(&d, &a);");
  for (int k = 0; k < prog->ninputs; k++) {
    open_block(g, "/* input %s */", prog->inputs[k]->name);
    emit(g, "int64_t *w = rt_input_words(&d, &a, %d, %s);", k, shape_expr(g, prog->inputs[k]->itype));
    Type *t = input_type(g, prog->inputs[k]->itype);
    if (t->kind == T_VEC) {
      emit(g, "%s = ld_%s(w);", input_name(g, k), mangle(g, t));
    } else {
      emit(g, "un_%s(w, &%s);", mangle(g, t), input_name(g, k));
    }
    close_block(g);
  }
  emit(g, "int64_t words[%d] = {a.repeat};", prog->nparams + 1);
  emit(g, "memcpy(words + 1, rt_param, %d * sizeof *words);", prog->nparams);
  emit(g, "for (int q = 1; q < bsp_nprocs(); q++) rt_send(q, (rt_tag){0, 0, -1}, words, %d);", prog->nparams + 1);
  emit(g, "rt_sync();");
  emit(g, "return a.repeat;");
  buf_printf(o, "}\n\n");
  free(names.text);
  free(sites.text);
  free(inames.text);
  free(isites.text);
}

static void gen_workers(Cg *g, Buf *o) {
  Program *prog = g->ir->prog;
  buf_printf(o, "/* the other processes: the parameters, then regions on request until\n"
                " * a superstep without one ends a repetition */\n");
  buf_printf(o, "static void rt_workers(void) {\n  rt_sync();\n");
  buf_printf(o, "  int reps = (int)rt_box.msg[0].words[0];\n");
  buf_printf(o, "  memcpy(rt_param, rt_box.msg[0].words + 1, %d * sizeof *rt_param);\n", prog->nparams);
  buf_printf(o, "  while (reps > 0) {\n    rt_sync();\n");
  buf_printf(o, "    if (rt_box.n == 0) {\n      reps--;\n      continue;\n    }\n    rt_release(0);\n");
  buf_printf(o, "    switch (rt_head_region(rt_box.msg[0].tag.head)) {\n");
  for (int r = 1; r <= g->ir->nregions; r++) buf_printf(o, "    case %d: r%d_worker(); break;\n", r, r);
  buf_printf(o, "    default: bsp_abort(\"vecbsp: error: unknown region request\\n\");\n    }\n  }\n}\n\n");
}

static void gen_main(Cg *g, Buf *o, const char *rtype, const char *rmangle) {
  buf_printf(o, "/* process 0: the program, repeated for timing; the result on stdout */\n");
  buf_printf(o, "static void rt_master(int reps) {\n");
  buf_printf(o, "  double *seconds = malloc((size_t)reps * sizeof *seconds);\n");
  buf_printf(o, "  if (!seconds) rt_out_of_memory();\n");
  buf_printf(o, "  %s r = {0};\n", rtype);
  buf_printf(o, "  for (int rep = 0; rep < reps; rep++) {\n    size_t mark = rt_mark();\n");
  buf_printf(o, "    double start = bsp_time();\n    r = rt_program();\n");
  buf_printf(o, "    seconds[rep] = bsp_time() - start;\n");
  buf_printf(o, "    rt_sync(); /* no request: the repetition ends */\n");
  buf_printf(o, "    if (rep + 1 < reps) rt_release(mark);\n  }\n");
  buf_printf(o, "  pr_%s(stdout, r);\n  putchar('\\n');\n  fflush(stdout);\n", rmangle);
  buf_printf(o, "  rt_write_times(seconds, reps);\n  free(seconds);\n}\n\n");
  buf_printf(o, "static void rt_spmd(void) {\n  bsp_begin(bsp_nprocs());\n  (void)rt_sites;\n");
  buf_printf(o, "  bsp_size_t tag = sizeof(rt_tag);\n  bsp_set_tagsize(&tag);\n  bsp_sync(); /* the tag size applies from here */\n");
  buf_printf(o, "  if (bsp_pid() == 0)\n    rt_master(rt_setup());\n  else\n    rt_workers();\n");
  buf_printf(o, "  rt_end_process();\n  bsp_end();\n}\n\n");
  buf_printf(o, "int main(int argc, char **argv) {\n  rt_argc = argc;\n  rt_argv = argv;\n");
  buf_printf(o, "  bsp_init(rt_spmd, argc, argv);\n  rt_spmd();\n  return 0;\n}\n");
}

char *codegen_program(IrProgram *ir) {
  Cg g = {.ir = ir, .arena = ir->arena, .counting = true};
  Buf setup = {0}, master = {0}, out = {0};
  gen_setup(&g, &setup);
  g.out = &master;
  g.indent = 1;
  buf_printf(&master, "/* the program, run by process 0 */\nstatic %s rt_program(void) {\n", ctype(&g, ir->main->ty));
  const char *r = cg_expr(&g, ir->main);
  flush_ops(&g);
  emit(&g, "return %s;", r);
  buf_printf(&master, "}\n\n");
  gen_types(&g);
  buf_printf(&out, "/* Generated by vecbsp from %s: C over the BSPlib API (bsp.h). */\n", ir->prog->src->name);
  buf_printf(&out, "%s\n/* ---- the program ---- */\n\n", rt_prelude_text);
  gen_sites(&g, &out);
  buf_printf(&out, "%s", g.types.text ? g.types.text : "");
  buf_printf(&out, "%s", setup.text);
  buf_printf(&out, "%s", g.regions.text ? g.regions.text : "");
  buf_printf(&out, "%s", master.text);
  gen_workers(&g, &out);
  gen_main(&g, &out, ctype(&g, ir->main->ty), mangle(&g, ir->main->ty));
  free(g.types.text);
  free(g.regions.text);
  free(setup.text);
  free(master.text);
  return out.text;
}
