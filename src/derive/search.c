// search.c: derivations by predicted cost. Programs are nodes, rewrites
// (rewrite.c) edges; the search expands the cheapest program found so far
// that it has not expanded, so it climbs over a step that costs more when
// nothing cheaper is left, as the mss paper's derivation must (mss (2) and
// (3) cost more than (1)). Every program kept was parsed, checked and
// found to agree with the original on random inputs.
#include "derive/derive.h"

#include <string.h>

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
  PtrVec found;  // Found *, in the order found
  int rejected;
} Search;

static Found *nth(Search *s, int i) { return s->found.data[i]; }

static bool known(Search *s, const char *text) {
  for (int i = 0; i < s->found.len; i++)
    if (strcmp(nth(s, i)->step.text, text) == 0) return true;
  return false;
}

static void add(Search *s, DeriveStep step, int parent) {
  Found *f = arena_alloc(s->arena, sizeof *f);
  *f = (Found){step, parent, false};
  ptrvec_push(s->arena, &s->found, f);
}

// A rewrite's program: parsed and checked, compared with the original on
// random inputs, and if it agrees, costed.
typedef struct Candidate {
  Search *s;
  const char *text;
  Program *prog;
  bool agrees;
  double seconds;
} Candidate;

static void vet(void *ctx) {
  Candidate *c = ctx;
  Search *s = c->s;
  char *name = arena_printf(s->arena, "%s, step %d", s->start->src->name, s->found.len);
  c->prog = program_check(s->arena, source_from_string(s->arena, name, c->text, strlen(c->text)), NULL);
  c->agrees = agree_check(s->arena, (Program *[]){s->start, c->prog}, 2, 1, AGREE_SECONDS).agree;
  if (c->agrees) c->seconds = s->cost(s->ctx, c->prog);
}

// Keeps a rewrite of program `parent` if it checks, agrees with the
// original and can be costed (the analysis may refuse a rewrite that builds
// more irregular elements than it holds).
static void consider(Search *s, const Rewrite *rw, int parent) {
  if (known(s, rw->text)) return;
  Candidate c = {s, rw->text, NULL, false, 0};
  if (!diag_attempt(vet, &c, true) || !c.agrees) {
    s->rejected++;
    return;
  }
  add(s, (DeriveStep){rw->law, rw->subterm, rw->text, c.prog, c.seconds}, parent);
}

// The cheapest program found, of those not yet expanded if unexpanded (-1: none).
static int cheapest(Search *s, bool unexpanded) {
  int best = -1;
  for (int i = 0; i < s->found.len; i++)
    if (!(unexpanded && nth(s, i)->expanded) &&
        (best < 0 || nth(s, i)->step.seconds < nth(s, best)->step.seconds))
      best = i;
  return best;
}

Derivation derive_search(Arena *a, Program *start, DeriveCost cost, void *ctx, int max_expand) {
  double t0 = clock_seconds();
  Search s = {.arena = a, .start = start, .cost = cost, .ctx = ctx};
  add(&s, (DeriveStep){NULL, NULL, print_program(a, start, NULL, NULL), start, cost(ctx, start)}, -1);
  for (int k = 0, i; k < max_expand && (i = cheapest(&s, true)) >= 0; k++) {
    nth(&s, i)->expanded = true;
    PtrVec rewrites = rewrite_all(a, nth(&s, i)->step.prog);
    for (int j = 0; j < rewrites.len; j++) consider(&s, rewrites.data[j], i);
  }
  int best = cheapest(&s, false), len = 0;
  for (int i = best; i >= 0; i = nth(&s, i)->parent) len++;
  Derivation d = {arena_calloc(a, (size_t)len, sizeof *d.steps), len, s.found.len, s.rejected, 0};
  for (int i = best, k = len - 1; i >= 0; i = nth(&s, i)->parent, k--) d.steps[k] = nth(&s, i)->step;
  d.seconds = clock_seconds() - t0;
  return d;
}
