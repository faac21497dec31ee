// value.c: run-time values and their literal syntax.
#include "eval/eval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

Value value_int(int64_t i) { return (Value){.kind = V_INT, .i = i}; }
Value value_float(double f) { return (Value){.kind = V_FLOAT, .f = f}; }
Value value_bool(bool b) { return (Value){.kind = V_BOOL, .b = b}; }

Value value_pair(Arena *a, Value x, Value y) {
  PairVal *p = arena_alloc(a, sizeof *p);
  p->a = x;
  p->b = y;
  return (Value){.kind = V_PAIR, .pair = p};
}

Value value_vec(Arena *a, int64_t len) {
  VecVal *v = arena_alloc(a, sizeof *v);
  v->len = len;
  v->elems = arena_calloc(a, (size_t)len, sizeof *v->elems);
  return (Value){.kind = V_VEC, .vec = v};
}

bool value_same_shape(Value x, Value y) {
  if (x.kind != y.kind) return false;
  switch (x.kind) {
  case V_PAIR: return value_same_shape(x.pair->a, y.pair->a) && value_same_shape(x.pair->b, y.pair->b);
  case V_VEC:
    if (x.vec->len != y.vec->len) return false;
    for (int64_t i = 0; i < x.vec->len; i++)
      if (!value_same_shape(x.vec->elems[i], y.vec->elems[i])) return false;
    return true;
  default: return true;
  }
}

// Printing goes through a small growable buffer so that value_to_string and
// value_print share one writer.
typedef struct Out {
  FILE *file;   // destination, or NULL to build a string
  char *buf;    // the string being built
  size_t len, cap;
} Out;

static void out_puts(Out *o, const char *s) {
  if (o->file) {
    fputs(s, o->file);
    return;
  }
  size_t n = strlen(s);
  if (o->len + n + 1 > o->cap) {
    o->cap = (o->len + n + 1) * 2;
    o->buf = xrealloc(o->buf, o->cap);
  }
  memcpy(o->buf + o->len, s, n + 1);
  o->len += n;
}

static void write_value(Out *o, Value v) {
  char buf[64];
  switch (v.kind) {
  case V_INT:
    snprintf(buf, sizeof buf, "%lld", (long long)v.i);
    out_puts(o, buf);
    return;
  case V_FLOAT:
    format_float(buf, sizeof buf, v.f);
    out_puts(o, buf);
    return;
  case V_BOOL: out_puts(o, v.b ? "true" : "false"); return;
  case V_PAIR:
    out_puts(o, "(");
    write_value(o, v.pair->a);
    out_puts(o, ", ");
    write_value(o, v.pair->b);
    out_puts(o, ")");
    return;
  case V_VEC:
    out_puts(o, "[");
    for (int64_t i = 0; i < v.vec->len; i++) {
      if (i) out_puts(o, ", ");
      write_value(o, v.vec->elems[i]);
    }
    out_puts(o, "]");
    return;
  case V_FUN: out_puts(o, "<function>"); return;
  }
}

void value_print(FILE *out, Value v) {
  Out o = {.file = out};
  write_value(&o, v);
}

char *value_to_string(Value v) {
  Out o = {0};
  out_puts(&o, "");
  write_value(&o, v);
  return o.buf;
}
