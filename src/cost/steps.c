// steps.c: the supersteps the paper model predicts so far, and their
// totals W, H and S (the exact model keeps its own, src/cost/exact.c).
#include "cost/costint.h"

#include <string.h>

// Supersteps listed at most; beyond, only the totals count them.
enum { STEPS_LISTED = 100000 };

void steps_init(Analysis *a) {
  Steps *st = &a->st;
  memset(st, 0, sizeof *st);
  st->W = st->H = st->S = st->w = num_of(0);
}

// Lists row after the others (beyond STEPS_LISTED, only counts it).
static void list_row(Analysis *a, CostStep row) {
  Steps *st = &a->st;
  if (st->nrows == STEPS_LISTED) {
    st->truncated = true;
    return;
  }
  if (st->nrows == st->cap) {
    int cap = st->cap ? st->cap * 2 : 16;
    CostStep *rows = arena_calloc(a->arena, (size_t)cap, sizeof *rows);
    if (st->nrows) memcpy(rows, st->rows, (size_t)st->nrows * sizeof *rows);
    st->rows = rows;
    st->cap = cap;
  }
  st->rows[st->nrows++] = row;
}

void steps_close(Analysis *a, Num w, Num h, Site *site, const char *what) {
  Steps *st = &a->st;
  list_row(a, (CostStep){.w = w.v, .h = h.v, .where = site->pos, .what = what});
  st->W = num_add(a->pc, st->W, w);
  st->H = num_add(a->pc, st->H, h);
  st->S = num_add(a->pc, st->S, num_of(1));
  st->closed++;
}

void steps_close_times(Analysis *a, Num w, Num h, Num times, Site *site, const char *what) {
  if (!times.sym) {
    for (double i = 0; i < times.v; i++) steps_close(a, w, h, site, what);
    return;
  }
  Steps *st = &a->st;
  st->W = num_add(a->pc, st->W, num_mul(a->pc, w, times));
  st->H = num_add(a->pc, st->H, num_mul(a->pc, h, times));
  st->S = num_add(a->pc, st->S, times);
}

void steps_final(Analysis *a, Num w, Pos where) {
  list_row(a, (CostStep){.w = w.v, .where = where, .what = "end"});
  a->st.W = num_add(a->pc, a->st.W, w);
}

// Open work of process 0.
static Num open_work(Analysis *a) { return a->st.w; }

StepsMark steps_mark(Analysis *a) {
  Steps *st = &a->st;
  return (StepsMark){st->nrows, st->closed, st->truncated, st->W, st->H, st->S, open_work(a)};
}

void steps_reset(Analysis *a, StepsMark m) {
  Steps *st = &a->st;
  st->nrows = m.nrows;
  st->closed = m.closed;
  st->truncated = m.truncated;
  st->W = m.W, st->H = m.H, st->S = m.S;
  st->w = m.w;
}

void steps_replay(Analysis *a, StepsMark end, const CostStep *rows, int n) {
  for (int i = 0; i < n; i++) list_row(a, rows[i]);
  int nrows = a->st.nrows;
  steps_reset(a, end);
  a->st.nrows = nrows;
}

Num steps_delta(Analysis *a, StepsMark m, Num *dW, Num *dH, Num *dS) {
  PolyCtx *c = a->pc;
  Steps *st = &a->st;
  *dW = num_add(c, num_sub(c, st->W, m.W), num_sub(c, open_work(a), m.w));
  *dH = num_sub(c, st->H, m.H);
  *dS = num_sub(c, st->S, m.S);
  Num g = num_of(a->machine.g), l = num_of(a->machine.l);
  return num_add(c, *dW, num_add(c, num_mul(c, *dH, g), num_mul(c, *dS, l)));
}

void steps_add(Analysis *a, Num dW, Num dH, Num dS) {
  Steps *st = &a->st;
  st->W = num_add(a->pc, st->W, dW);
  st->H = num_add(a->pc, st->H, dH);
  st->S = num_add(a->pc, st->S, dS);
}

void steps_repeat(Analysis *a, StepsMark from, int64_t times) {
  Steps *st = &a->st;
  PolyCtx *c = a->pc;
  Num t = num_of((double)times);
  if (st->closed == from.closed) {  // work on process 0 only
    paper_work(a, num_mul(c, num_sub(c, open_work(a), from.w), t));
    return;
  }
  steps_add(a, num_mul(c, num_sub(c, st->W, from.W), t), num_mul(c, num_sub(c, st->H, from.H), t),
            num_mul(c, num_sub(c, st->S, from.S), t));
  int64_t block = st->closed - from.closed, more;
  // A count of supersteps (S, in doubles, is the total): past 2^63 it stays there.
  if (__builtin_mul_overflow(block, times, &more) || __builtin_add_overflow(st->closed, more, &st->closed))
    st->closed = INT64_MAX;
  if (from.truncated || st->truncated) {
    st->truncated = true;
    return;
  }
  int end = st->nrows;
  for (int64_t k = 0; k < times && !st->truncated; k++)
    for (int i = from.nrows; i < end && !st->truncated; i++) list_row(a, st->rows[i]);
}
