// search.c: derivations by predicted cost. Programs are nodes, rewrites
// (rewrite.c) edges; the search expands the cheapest program found so far
// that it has not expanded, so it climbs over a step that costs more when
// nothing cheaper is left, as the mss paper's derivation must (mss (2) and
// (3) cost more than (1)). Every program kept was parsed, checked and
// found to agree with the original on random inputs.
#include "derive/derive.h"

#include <string.h>
#include <time.h>

// Random inputs a rewritten program is checked on, in seconds at most.
#define AGREE_SECONDS 2.0

typedef struct Found {
  DeriveStep step;
  int parent;     // index of the program it was derived from (-1: the original)
  bool expanded;  // its rewrites were tried
} Found;

typedef struct Search {
  Arena *arena;
  Program *start;
  DeriveCost cost;
  void *ctx;
  Found *found;
  int n, cap;
  int rejected;
} Search;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static bool known(Search *s, const char *text) {
  for (int i = 0; i < s->n; i++)
    if (strcmp(s->found[i].step.text, text) == 0) return true;
  return false;
}

typedef struct Attempt {
  Search *s;
  const char *text;  // load: the program's text
  Program *prog;     // load: its result; costed: the program
  double seconds;    // costed: its result
} Attempt;

static void check_text(void *ctx) {
  Attempt *t = ctx;
  char *name = arena_printf(t->s->arena, "%s, step %d", t->s->start->src->name, t->s->n);
  t->prog = program_check(t->s->arena, source_from_string(t->s->arena, name, t->text, strlen(t->text)), NULL);
}

// The program of text, parsed and checked, or NULL if it does not check.
static Program *load(Search *s, const char *text) {
  Attempt t = {s, text, NULL, 0};
  return diag_attempt(check_text, &t, true) ? t.prog : NULL;
}

static void cost_program(void *ctx) {
  Attempt *t = ctx;
  t->seconds = t->s->cost(t->s->ctx, t->prog);
}

static void add(Search *s, DeriveStep step, int parent) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 32;
    Found *more = arena_calloc(s->arena, (size_t)s->cap, sizeof *more);
    if (s->n) memcpy(more, s->found, (size_t)s->n * sizeof *more);
    s->found = more;
  }
  s->found[s->n++] = (Found){step, parent, false};
}

// The predicted cost of prog, or false if the analysis refuses it (a
// rewrite that builds more irregular elements than it holds).
static bool costed(Search *s, Program *prog, double *seconds) {
  Attempt t = {s, NULL, prog, 0};
  bool ok = diag_attempt(cost_program, &t, true);
  *seconds = t.seconds;
  return ok;
}

// Keeps a rewrite of program `parent` if it checks, agrees with the
// original and can be costed.
static void consider(Search *s, const Rewrite *rw, int parent) {
  if (known(s, rw->text)) return;
  Program *prog = load(s, rw->text);
  if (!prog) {
    s->rejected++;
    return;
  }
  Agreement ag = agree_check(s->arena, (Program *[]){s->start, prog}, 2, 1, AGREE_SECONDS);
  double seconds;
  if (!ag.agree || !costed(s, prog, &seconds)) {
    s->rejected++;
    return;
  }
  add(s, (DeriveStep){rw->law, rw->subterm, rw->text, prog, seconds}, parent);
}

static int cheapest_unexpanded(Search *s) {
  int best = -1;
  for (int i = 0; i < s->n; i++)
    if (!s->found[i].expanded && (best < 0 || s->found[i].step.seconds < s->found[best].step.seconds)) best = i;
  return best;
}

Derivation derive_search(Arena *a, Program *start, DeriveCost cost, void *ctx, int max_expand) {
  double t0 = now();
  Search s = {.arena = a, .start = start, .cost = cost, .ctx = ctx};
  add(&s, (DeriveStep){NULL, NULL, print_program(a, start, NULL, NULL), start, cost(ctx, start)}, -1);
  for (int k = 0; k < max_expand; k++) {
    int i = cheapest_unexpanded(&s);
    if (i < 0) break;
    s.found[i].expanded = true;
    Rewrite *rw;
    int n = rewrite_all(a, s.found[i].step.prog, &rw);
    for (int j = 0; j < n; j++) consider(&s, &rw[j], i);
  }
  int best = 0;
  for (int i = 1; i < s.n; i++)
    if (s.found[i].step.seconds < s.found[best].step.seconds) best = i;
  int len = 0;
  for (int i = best; i >= 0; i = s.found[i].parent) len++;
  Derivation d = {arena_calloc(a, (size_t)len, sizeof *d.steps), len, s.n, s.rejected, 0};
  for (int i = best, k = len - 1; i >= 0; i = s.found[i].parent, k--) d.steps[k] = s.found[i].step;
  d.seconds = now() - t0;
  return d;
}
