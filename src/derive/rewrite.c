// rewrite.c: the laws of the Bird-Meertens formalism as rewrite rules on
// VEC-BSP programs. A rule looks at one subtree and, if its law applies,
// gives the subtree's replacement as source text; the rewritten program is
// the original printed with that subtree replaced (print.c), then parsed
// and checked again by the caller. Rules are sound when their side
// conditions hold; the caller still checks every step on random inputs.
#include "derive/derive.h"

#include <string.h>

typedef struct Rules {
  Arena *arena;
  Program *prog;
  char *program_text;  // the program as printed: fresh names avoid its words
  int fresh;           // the last fresh name's number
} Rules;

// How often the variable bound by binder occurs in n.
static int occurrences(Node *n, Node *binder) {
  int k = n->kind == N_VAR && n->ref == REF_LOCAL && n->binder == binder;
  Node *kid;
  for (int i = 0; (kid = node_kid(n, i)); i++) k += occurrences(kid, binder);
  return k;
}

// The text of n with the variable bound by binder (if any) printed as
// with, and the subtrees target and second (if any) printed as their texts.
typedef struct Subst {
  Node *binder;
  const char *with;
  Node *target;
  const char *target_text;
  Node *second;
  const char *second_text;
} Subst;

static const char *subst_hook(void *ctx, Node *n) {
  Subst *s = ctx;
  if (n == s->target) return s->target_text;
  if (n == s->second) return s->second_text;
  if (s->binder && n->kind == N_VAR && n->ref == REF_LOCAL && n->binder == s->binder) return s->with;
  return NULL;
}

static char *text(Rules *r, Node *n) { return print_expr(r->arena, n, NULL, NULL); }

static char *text_with(Rules *r, Node *n, Subst s) { return print_expr(r->arena, n, subst_hook, &s); }

// A name used nowhere in the program.
static char *fresh(Rules *r, const char *stem) {
  for (;;) {
    char *name = arena_printf(r->arena, "%s%d", stem, ++r->fresh);
    if (!strstr(r->program_text, name)) return name;
  }
}

//
// The rules: each gives n's replacement text, or NULL.
//

// map f (map g x) = map (f . g) x
static char *map_fusion(Rules *r, Node *n) {
  Node *outer[2], *inner[2];
  if (!node_applies(n, B_MAP, 2, outer) || !node_applies(outer[1], B_MAP, 2, inner)) return NULL;
  char *v = fresh(r, "v");
  return arena_printf(r->arena, "(map (\\%s -> %s (%s %s)) %s)", v, print_head(r->arena, outer[0]),
                      print_head(r->arena, inner[0]), v, text(r, inner[1]));
}

// (\x -> b) e = b[x := e], when x occurs once in b or e is a name or literal.
static char *beta(Rules *r, Node *n) {
  if (n->kind != N_APP || n->lhs->kind != N_LAM) return NULL;
  Node *lam = n->lhs, *arg = n->rhs;
  bool atom = arg->kind == N_VAR || arg->kind == N_INT || arg->kind == N_FLOAT || arg->kind == N_BOOL;
  if (!atom && occurrences(lam->body, lam) > 1) return NULL;
  return text_with(r, lam->body, (Subst){.binder = lam, .with = text(r, arg)});
}

// map f (redconcat xs) = redconcat (map (map f) xs)
static char *map_promotion(Rules *r, Node *n) {
  Node *m[2], *c[1];
  if (!node_applies(n, B_MAP, 2, m) || !node_applies(m[1], B_REDCONCAT, 1, c)) return NULL;
  return arena_printf(r->arena, "(redconcat (map (map %s) %s))", text(r, m[0]), text(r, c[0]));
}

// fold op (redconcat xs) = fold op (map (fold op) xs), xs of non-empty vectors
static char *fold_promotion(Rules *r, Node *n) {
  Node *f[2], *c[1];
  if (!node_applies(n, B_FOLD, 2, f) || !node_applies(f[1], B_REDCONCAT, 1, c)) return NULL;
  char *op = text(r, f[0]);
  return arena_printf(r->arena, "(fold %s (map (fold %s) %s))", op, op, text(r, c[0]));
}

// Horner's rule, for an operator times that distributes over plus:
//   fold plus (map (fold times) (tails v)) = snd (fold odot (map (\y -> (y, y)) v))
//   with odot a b = (fst a times fst b, (snd a times fst b) plus snd b),
// and over inits, with the prefix instead of the suffix:
//   fold plus (map (fold times) (inits v)) = snd (fold odot' (map (\y -> (y, y)) v))
//   with odot' a b = (fst a times fst b, snd a plus (fst a times snd b)).
static char *horner(Rules *r, Node *n) {
  Node *f[2], *m[2], *g[2], *seg[1];
  if (!node_applies(n, B_FOLD, 2, f) || !node_applies(f[1], B_MAP, 2, m) || !node_applies(m[0], B_FOLD, 1, g)) return NULL;
  bool tails = node_applies(m[1], B_TAILS, 1, seg);
  if (!tails && !node_applies(m[1], B_INITS, 1, seg)) return NULL;
  if (!laws_distribute(r->arena, r->prog, g[0], f[0])) return NULL;
  char *plus = text(r, f[0]), *times = text(r, g[0]), *a = fresh(r, "a"), *b = fresh(r, "b"), *y = fresh(r, "y");
  char *second = tails ? arena_printf(r->arena, "%s (%s (snd %s) (fst %s)) (snd %s)", plus, times, a, b, b)
                       : arena_printf(r->arena, "%s (snd %s) (%s (fst %s) (snd %s))", plus, a, times, a, b);
  return arena_printf(r->arena, "(snd (fold (\\%s %s -> (%s (fst %s) (fst %s), %s)) (map (\\%s -> (%s, %s)) %s)))", a, b,
                      times, a, b, second, y, y, y, text(r, seg[0]));
}

// The first part of body that is fold op v or fold op (map h v) for the
// variable v of lam; its pieces in op, h (NULL: no map). The caller checks
// that v occurs nowhere else.
static Node *fold_of(Node *body, Node *lam, Node **op, Node **h) {
  Node *f[2], *m[2];
  if (node_applies(body, B_FOLD, 2, f)) {
    *h = node_applies(f[1], B_MAP, 2, m) ? m[0] : NULL;
    Node *v = *h ? m[1] : f[1];
    if (v->kind == N_VAR && v->ref == REF_LOCAL && v->binder == lam) {
      *op = f[0];
      return body;
    }
  }
  Node *kid, *found = NULL;
  for (int i = 0; !found && (kid = node_kid(body, i)); i++) found = fold_of(kid, lam, op, h);
  return found;
}

// The scan lemma: the folds of every prefix are a prefix.
//   map (\v -> E[fold op (map h v)]) (inits x) = map (\w -> E[w]) (prefix op (map h x))
// when v occurs only there (map (fold op) (inits x) = prefix op x).
static char *scan_lemma(Rules *r, Node *n) {
  Node *m[2], *seg[1], *op, *h;
  if (!node_applies(n, B_MAP, 2, m) || !node_applies(m[1], B_INITS, 1, seg)) return NULL;
  Node *f = m[0];
  if (f->kind == N_LAM) {
    Node *part = fold_of(f->body, f, &op, &h);
    if (!part || occurrences(f->body, f) != 1) return NULL;
    char *input = h ? arena_printf(r->arena, "(map %s %s)", text(r, h), text(r, seg[0])) : text(r, seg[0]);
    char *scanned = arena_printf(r->arena, "(prefix %s %s)", text(r, op), input);
    if (part == f->body) return scanned;
    char *w = fresh(r, "w");
    return arena_printf(r->arena, "(map (\\%s -> %s) %s)", w, text_with(r, f->body, (Subst){.target = part, .target_text = w}),
                        scanned);
  }
  Node *g[1];
  if (!node_applies(f, B_FOLD, 1, g)) return NULL;
  return arena_printf(r->arena, "(prefix %s %s)", text(r, g[0]), text(r, seg[0]));
}

// fold op (map f x), or fold op x (f NULL).
static bool fold_over(Node *n, Node **op, Node **f, Node **x) {
  Node *a[2], *m[2];
  if (!node_applies(n, B_FOLD, 2, a)) return false;
  bool mapped = node_applies(a[1], B_MAP, 2, m);
  *op = a[0], *f = mapped ? m[0] : NULL, *x = mapped ? m[1] : a[1];
  return true;
}

// f y, or y when there is no f.
static char *applied(Rules *r, Node *f, const char *y) {
  return f ? arena_printf(r->arena, "%s %s", text(r, f), y) : (char *)y;
}

// Tupling (the banana split law): two folds over the same vector, the
// halves of a pair or the operands of an operator, are one fold over pairs,
//   E[fold op1 (map f x), fold op2 (map g x)]
//     = (\t -> E[fst t, snd t]) (fold (\a b -> (op1 (fst a) (fst b), op2 (snd a) (snd b))) (map (\y -> (f y, g y)) x))
// (for a pair, E[fst t, snd t] is t): one pass over x, one reduction.
static char *tupling(Rules *r, Node *n) {
  Node *op1, *f1, *x1, *op2, *f2, *x2;
  if ((n->kind != N_PAIR && n->kind != N_BINOP) || !fold_over(n->lhs, &op1, &f1, &x1) ||
      !fold_over(n->rhs, &op2, &f2, &x2) || strcmp(text(r, x1), text(r, x2)) != 0)
    return NULL;
  char *a = fresh(r, "a"), *b = fresh(r, "b"), *y = fresh(r, "y");
  char *folded = arena_printf(r->arena, "(fold (\\%s %s -> (%s (fst %s) (fst %s), %s (snd %s) (snd %s))) (map (\\%s -> (%s, %s)) %s))",
                              a, b, text(r, op1), a, b, text(r, op2), a, b, y, applied(r, f1, y), applied(r, f2, y),
                              text(r, x1));
  if (n->kind == N_PAIR) return folded;
  char *t = fresh(r, "t");
  // An operand of an operator or a pair: fst t needs no parentheses there.
  Subst halves = {.target = n->lhs, .target_text = arena_printf(r->arena, "fst %s", t), .second = n->rhs,
                  .second_text = arena_printf(r->arena, "snd %s", t)};
  return arena_printf(r->arena, "((\\%s -> %s) %s)", t, text_with(r, n, halves), folded);
}

// The halves of a pair written (a, b) or pair a b.
static bool halves(Node *n, Node **a, Node **b) {
  Node *args[2];
  if (n->kind == N_PAIR) {
    *a = n->lhs, *b = n->rhs;
    return true;
  }
  if (!node_applies(n, B_PAIR, 2, args)) return false;
  *a = args[0], *b = args[1];
  return true;
}

// map f x as f and x, or x alone as x (f NULL).
static void mapped(Node *n, Node **f, Node **x) {
  Node *m[2];
  bool is_map = node_applies(n, B_MAP, 2, m);
  *f = is_map ? m[0] : NULL, *x = is_map ? m[1] : n;
}

// Tupling of maps: pair_map over two maps of the same vector is one map,
//   pair_map h (map f x, map g x) = map (\y -> h (f y) (g y)) x
// (either map may be missing: x itself).
static char *pair_map_fusion(Rules *r, Node *n) {
  Node *pm[2], *left, *right, *f, *g, *x1, *x2;
  if (!node_applies(n, B_PAIR_MAP, 2, pm) || !halves(pm[1], &left, &right)) return NULL;
  mapped(left, &f, &x1);
  mapped(right, &g, &x2);
  if ((!f && !g) || strcmp(text(r, x1), text(r, x2)) != 0) return NULL;
  char *y = fresh(r, "y");
  char *fy = f ? arena_printf(r->arena, "(%s)", applied(r, f, y)) : y, *gy = g ? arena_printf(r->arena, "(%s)", applied(r, g, y)) : y;
  return arena_printf(r->arena, "(map (\\%s -> %s %s %s) %s)", y, print_head(r->arena, pm[0]), fy, gy, text(r, x1));
}

// Does e read a variable bound in lam but outside e?
static bool reads_bound(const Node *e, const Node *top, const Node *lam) {
  if (e->kind == N_VAR && e->ref == REF_LOCAL && node_within(lam, e->binder) && !node_within(top, e->binder)) return true;
  Node *kid;
  for (int i = 0; (kid = node_kid(e, i)); i++)
    if (reads_bound(kid, top, lam)) return true;
  return false;
}

// Does e apply a builtin that runs over a vector (not length, which is
// known, nor a pair's accessors)?
static bool loops(const Node *e) {
  if (e->kind == N_VAR && e->ref == REF_BUILTIN)
    switch (e->builtin) {
    case B_LENGTH: case B_PAIR: case B_FST: case B_SND: case B_FLOAT: case B_HD: case B_ENTRY: case B_TL: return false;
    default: return true;
    }
  Node *kid;
  for (int i = 0; (kid = node_kid(e, i)); i++)
    if (loops(kid)) return true;
  return false;
}

// The kids of n that every evaluation of n evaluates: not the branches of
// an if or ifs, the right operand of && or ||, or a lambda's body.
static int evaluated_kids(const Node *n, Node **kids) {
  if (n->kind == N_LAM) return 0;
  if (n->kind == N_IF || n->kind == N_IFS) return kids[0] = n->cond, 1;
  if (n->kind == N_BINOP && (n->op == OP_AND || n->op == OP_OR)) return kids[0] = n->lhs, 1;
  int k = 0;
  for (Node *kid; (kid = node_kid(n, k)); k++) kids[k] = kid;
  return k;
}

// The first data value that e evaluates at every evaluation, outermost
// first, that runs over a vector and reads nothing bound in lam, or NULL.
static Node *invariant_in(Node *e, Node *lam) {
  if (e->ty && type_is_data(e->ty) && loops(e) && !reads_bound(e, e, lam)) return e;
  Node *kids[7 + e->nelems], *found = NULL;
  int n = evaluated_kids(e, kids);
  for (int i = 0; !found && i < n; i++) found = invariant_in(kids[i], lam);
  return found;
}

// The skeletons whose function float_invariant looks into, and their
// arguments' number.
static const struct {
  Builtin b;
  int nargs;
} floatable[] = {{B_MAP, 2}, {B_PAIR_MAP, 2}, {B_MAP2, 3}, {B_FOLD, 2}, {B_PREFIX, 2}, {B_C_PROD, 3}, {B_ITER, 3}};

// A size that is nonzero when skeleton b applies its function to args: a
// fold or prefix applies it to vectors of two elements or more, c_prod to
// every pair, iter k times.
static char *applies(Rules *r, Builtin b, Node **args) {
  const char *x = text(r, args[1]);  // an application is printed in parentheses
  switch (b) {
  case B_PAIR_MAP: return arena_printf(r->arena, "length (fst %s)", x);
  case B_FOLD: case B_PREFIX: return arena_printf(r->arena, "length %s / 2", x);
  case B_C_PROD: return arena_printf(r->arena, "length %s * length %s", x, text(r, args[2]));
  case B_ITER: return text(r, args[2]);
  default: return arena_printf(r->arena, "length %s", x);
  }
}

// Floating an invariant out of a skeleton's function: work that reads
// nothing the function binds is done once, before the skeleton,
//   map (\y -> E[e]) x = ifs length x then (\t -> map (\y -> E[t]) x) e else map (\y -> E[e]) x
// (and so for the skeletons above): fold (+) v in a map over x is one
// fold, not one per element. The function evaluates e whenever it runs (e
// is under no if), so where the skeleton applies it, e runs, or faults,
// either way; where it does not (an empty x), e must not run: it might
// fault. The ifs is decided by sizes, as the analysis decides it. The
// compiler moves scalar work itself (src/ir/hoist.c).
static char *float_invariant(Rules *r, Node *n) {
  Node *args[3], *lam = NULL;
  size_t k = 0;
  for (; k < sizeof floatable / sizeof *floatable; k++)
    if (node_applies(n, floatable[k].b, floatable[k].nargs, args) && args[0]->kind == N_LAM) {
      lam = args[0];
      break;
    }
  if (!lam) return NULL;
  Node *body = lam;
  while (body->kind == N_LAM) body = body->body;  // \x y -> is \x -> \y ->
  Node *e = invariant_in(body, lam);
  if (!e) return NULL;
  char *t = fresh(r, "t"), *at = applies(r, floatable[k].b, args);
  char *floated = arena_printf(r->arena, "(\\%s -> %s) %s", t, text_with(r, n, (Subst){.target = e, .target_text = t}), text(r, e));
  return arena_printf(r->arena, "(ifs %s then %s else %s)", at, floated, text(r, n));
}

static const struct {
  const char *law;
  char *(*apply)(Rules *r, Node *n);
} rules[] = {
    {"map fusion", map_fusion},         {"beta reduction", beta}, {"map promotion", map_promotion},
    {"fold promotion", fold_promotion}, {"Horner's rule", horner}, {"scan lemma", scan_lemma},
    {"tupling", tupling},               {"tupling of maps", pair_map_fusion},
    {"floating an invariant", float_invariant},
};
enum { NRULES = sizeof rules / sizeof *rules };

//
// Every rewrite of a program.
//

typedef struct Collect {
  Rules *rules;
  PtrVec out;  // Rewrite *
} Collect;

static void try_rules(Node *n, void *ctx) {
  Collect *c = ctx;
  Rules *r = c->rules;
  for (int k = 0; k < NRULES; k++) {
    char *replacement = rules[k].apply(r, n);
    if (!replacement) continue;
    Rewrite *rw = arena_alloc(r->arena, sizeof *rw);
    Subst s = {.target = n, .target_text = replacement};
    *rw = (Rewrite){rules[k].law, text(r, n), print_program(r->arena, r->prog, subst_hook, &s)};
    ptrvec_push(r->arena, &c->out, rw);
  }
}

PtrVec rewrite_all(Arena *a, Program *prog) {
  Rules r = {a, prog, print_program(a, prog, NULL, NULL), 0};
  Collect c = {&r, {0}};
  node_visit(prog->main->body, try_rules, &c);
  return c.out;
}
