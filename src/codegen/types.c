// types.c: the C types of the program's data (docs/compiler.md, "Data
// layout") and, per type, its helpers: packing into words, printing,
// zeroing, sending and receiving blocks, loading inputs.
#include "codegen/cgint.h"

// Names: int t_i, float t_f, bool t_b, pairs t_p<a><b>, vectors t_v<a>.
const char *mangle(Cg *g, Type *t) {
  switch (t->kind) {
  case T_INT: return "i";
  case T_FLOAT: return "f";
  case T_BOOL: return "b";
  case T_PAIR: return fmt(g, "p%s%s", mangle(g, t->a), mangle(g, t->b));
  default: return fmt(g, "v%s", mangle(g, t->a));
  }
}

const char *ctype(Cg *g, Type *t) { return fmt(g, "t_%s", mangle(g, t)); }

int words_of(Type *t) { return t->kind == T_PAIR ? words_of(t->a) + words_of(t->b) : 1; }

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

void gen_types(Cg *g) {
  for (int i = 0; i < g->ir->types.len; i++) {
    Type *t = g->ir->types.data[i];
    if (t->kind == T_PAIR) pair_helpers(g, t);
    if (t->kind == T_VEC) vec_helpers(g, t);
    if (t->kind != T_VEC) value_message_helpers(g, t);
  }
}


const char *in_place_view(Type *t) { return ir_word_flat(t->a) ? "vb" : "vr"; }
