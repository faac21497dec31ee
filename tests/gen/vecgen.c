// vecgen SEED: prints a random well-typed VEC-BSP program, the same one for
// the same SEED, for run-random.sh (eval against run, the exact model
// against the profile). Standalone: it shares no code with vecbsp, so a
// misreading of the language shows up as a program `vecbsp check` rejects.
//
// Programs are built by type: to make a value of type T the generator picks
// among the productions that yield T. Beside each type it tracks what it
// knows of every vector's length (n, m, a literal, or other, and the fewest
// elements it can have when n, m >= 1), so that pair_map gets two vectors
// of one length, fold, hd and entry get non-empty ones, and the branches of
// a data `if` have one shape. Operators given to fold and prefix are
// associative, floats are folded only with max and min, and nothing is
// divided but by a non-zero literal, so eval and a parallel run must agree.
// Three programs in ten may decide on data (a data if, && and || written as
// operators), where the exact model is only an upper bound; one in 25 may
// fold or take hd of a possibly empty vector, where eval and run must fault
// alike. The first comment line of a program says which it is. The
// builtins added since the papers appear too (zip, map2, iota, float,
// split, merge and fold merge, neighbours, reverse, dh), with pair patterns in
// lambdas and integer literals where floats are asked for.
//
// The program is tiny and exits after printing: nothing is freed.
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// ---------------------------------------------------------------- randomness

static uint64_t rng_state;

static uint64_t next_random(void) {  // splitmix64
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int roll(int n) { return (int)(next_random() % (uint64_t)n); }
static bool chance(int percent) { return roll(100) < percent; }

// ---------------------------------------------------------------- text

static char *text(const char *format, ...) {
  va_list ap, again;
  va_start(ap, format);
  va_copy(again, ap);
  int len = vsnprintf(NULL, 0, format, ap);
  va_end(ap);
  char *s = malloc((size_t)len + 1);
  if (!s) abort();
  vsnprintf(s, (size_t)len + 1, format, again);
  va_end(again);
  return s;
}

// ---------------------------------------------------------------- types

typedef enum { K_INT, K_FLOAT, K_BOOL, K_PAIR, K_VEC } Kind;
// What the generator knows of a vector's length. LEN_ANY is only ever
// asked for (no requirement); a generated vector has one of the others.
typedef enum { LEN_ANY, LEN_N, LEN_M, LEN_LIT, LEN_OTHER } Len;

typedef struct Type {
  Kind kind;
  const struct Type *a, *b;  // pair: its components; vector: a is the element
  Len len;                   // vector: its length
  int lit;                   // LEN_LIT: the length
  int minlen;                // vector: the fewest elements it has when n, m >= 1
} Type;

static const Type T_INT = {.kind = K_INT}, T_FLOAT = {.kind = K_FLOAT},
                  T_BOOL = {.kind = K_BOOL};

static const Type *new_type(Type t) {
  Type *p = malloc(sizeof *p);
  if (!p) abort();
  *p = t;
  return p;
}

static const Type *pair_of(const Type *a, const Type *b) {
  return new_type((Type){.kind = K_PAIR, .a = a, .b = b});
}

static const Type *vec_of(const Type *elem, Len len, int lit, int minlen) {
  if (len == LEN_N || len == LEN_M) minlen = minlen > 1 ? minlen : 1;
  if (len == LEN_LIT) minlen = lit;
  return new_type((Type){.kind = K_VEC, .a = elem, .len = len, .lit = lit, .minlen = minlen});
}

// A vector of `elem` with the length of `like` (a vector).
static const Type *vec_like(const Type *like, const Type *elem) {
  return vec_of(elem, like->len, like->lit, like->minlen);
}

static bool known_len(const Type *t) { return t->len == LEN_N || t->len == LEN_M || t->len == LEN_LIT; }

static bool same_len(const Type *x, const Type *y) {
  return known_len(x) && x->len == y->len && (x->len != LEN_LIT || x->lit == y->lit);
}

static bool is_scalar(const Type *t) { return t->kind <= K_BOOL; }

static bool has_vec(const Type *t) {
  if (t->kind == K_VEC) return true;
  return t->kind == K_PAIR && (has_vec(t->a) || has_vec(t->b));
}

// Does a generated value of type `have` meet the request `want`?
static bool fits(const Type *have, const Type *want) {
  if (have->kind != want->kind) return false;
  if (have->kind == K_PAIR) return fits(have->a, want->a) && fits(have->b, want->b);
  if (have->kind != K_VEC) return true;
  return fits(have->a, want->a) && have->minlen >= want->minlen &&
         (want->len == LEN_ANY || same_len(have, want));
}

// A request that `t`'s values meet: unknown lengths become "any".
static const Type *as_request(const Type *t) {
  if (t->kind == K_PAIR) return pair_of(as_request(t->a), as_request(t->b));
  if (t->kind != K_VEC) return t;
  Len len = known_len(t) ? t->len : LEN_ANY;
  return vec_of(as_request(t->a), len, t->lit, t->minlen);
}

// What is known of a value that is either `x` or `y` (of one type).
static const Type *merge(const Type *x, const Type *y) {
  if (x->kind == K_PAIR) return pair_of(merge(x->a, y->a), merge(x->b, y->b));
  if (x->kind != K_VEC) return x;
  int minlen = x->minlen < y->minlen ? x->minlen : y->minlen;
  const Type *elem = merge(x->a, y->a);
  return same_len(x, y) ? vec_like(x, elem) : vec_of(elem, LEN_OTHER, 0, minlen);
}

// A type asked for a value in between: mostly ints, sometimes deeper.
// (Draws are never two arguments of one call, whose order C leaves open:
// the program for a seed must not depend on the compiler.)
static const Type *random_type(int depth) {
  int r = roll(100);
  if (r < 45) return &T_INT;
  if (r < 53) return &T_BOOL;
  if (r < 60) return &T_FLOAT;
  if (r < 75 && depth > 0) {
    const Type *a = random_type(depth - 1), *b = random_type(depth - 1);
    return pair_of(a, b);
  }
  if (r < 92 || depth == 0) return vec_of(&T_INT, LEN_ANY, 0, 0);
  return vec_of(random_type(depth - 1), LEN_ANY, 0, 0);
}

// ---------------------------------------------------------------- state

typedef struct {
  const char *text;
  const Type *type;
  bool atom;  // needs no parentheses as an operand or argument
} Expr;

static const Expr NONE = {0};

typedef struct { const char *name; const Type *type; } Var;
typedef struct {
  const char *name;
  int arity;
  const Type *param[2];
  const Type *result;
} Fun;

static Var vars[512];
static int nvars;
static Fun funs[128];
static int nfuns;

static struct {
  int nodes, node_limit;  // expressions made, and how many before only leaves
  int skel;               // skeleton functions around the point being generated
  int max_skel;           // the deepest nesting of skeletons allowed (1..4)
  int segments;           // inits/tails still allowed in this program
  int fresh;              // for fresh names
  bool faulty;            // this program may fold, hd or tl possibly empty vectors
  bool on_data;           // it may decide on data: if, and && / || as operators
  const Var *prefer;      // a let-bound value the leaves use whenever they can
  bool have_m, have_plus, have_otimes, have_twice;
} g;

// Names a compiler to C might mangle into a clash: C keywords and library
// names, and the short names its temporaries are likely to have (a variable
// t once became t1 beside a temporary t1). Each is used once in a program
// at most, so no name shadows another and the scope stays exact; none is a
// name of VEC-BSP, of the inputs or helpers, or one fresh() makes.
static const char *const tricky_names[] = {
    "t", "t1", "t2", "r", "s", "i", "j", "k", "e", "q", "w", "u", "o", "l", "len", "at", "tag",
    "int", "for", "do", "double", "char", "return", "tmp", "acc", "res", "buf", "rt", "bsp",
    "free", "exit", "NULL", "x_1", "T1"};
enum { NTRICKY = sizeof tricky_names / sizeof tricky_names[0] };
static bool tricky_used[NTRICKY];

// A name not in use: now and then a tricky one, else prefix and a number.
static const char *fresh(const char *prefix) {
  int k = roll(NTRICKY);
  if (chance(15) && !tricky_used[k]) {
    tricky_used[k] = true;
    return tricky_names[k];
  }
  return text("%s%d", prefix, ++g.fresh);
}

static void push_var(const char *name, const Type *t) {
  if (nvars == (int)(sizeof vars / sizeof vars[0])) abort();
  vars[nvars++] = (Var){name, t};
}

static void push_fun(Fun f) {
  if (nfuns == (int)(sizeof funs / sizeof funs[0])) abort();
  funs[nfuns++] = f;
}

static Expr make(const char *s, const Type *t, bool atom) { return (Expr){s, t, atom}; }
static const char *wrap(Expr e) { return e.atom ? e.text : text("(%s)", e.text); }

static bool skeleton_allowed(void) { return g.skel < g.max_skel; }

// The fewest elements to ask of a vector given to fold, hd or entry.
static int nonempty(void) { return g.faulty && chance(40) ? 0 : 1; }

static _Noreturn void generator_bug(const char *what) {
  fprintf(stderr, "vecgen: internal error: %s\n", what);
  exit(3);
}

// ---------------------------------------------------------------- leaves

static Expr gen(const Type *want, int budget);

// A variable in scope that meets `want`, the innermost ones likelier.
static Expr pick_var(const Type *want) {
  if (g.prefer && fits(g.prefer->type, want) && chance(80)) return make(g.prefer->name, g.prefer->type, true);
  int found = -1;
  for (int i = 0; i < nvars; i++)
    if (fits(vars[i].type, want) && (found < 0 || chance(60))) found = i;
  return found < 0 ? NONE : make(vars[found].name, vars[found].type, true);
}

static Expr int_literal(void) {
  int k = roll(10);
  return chance(15) ? make(text("(-%d)", k + 1), &T_INT, true) : make(text("%d", k), &T_INT, true);
}

// A float literal, or now and then an integer literal that is a float.
static Expr float_literal(void) {
  static const char *const lits[] = {"0.5", "1.5", "2.0", "(-0.25)", "0.1", "(-3.0)", "2", "(-1)"};
  return make(lits[roll(chance(20) ? 8 : 6)], &T_FLOAT, true);
}

static Expr leaf(const Type *want);

// The text of a size: a parameter or a literal (for dummyvec's length).
static const char *len_text(const Type *t) {
  if (t->len == LEN_N) return "n";
  if (t->len == LEN_M) return "m";
  return text("%d", t->lit);
}

// A value of the shape `want` asks for, contents irrelevant (dummyvec's second argument).
static Expr shape_literal(const Type *want) {
  switch (want->kind) {
  case K_INT: return make("1", &T_INT, true);
  case K_FLOAT: return make("1.0", &T_FLOAT, true);
  case K_BOOL: return make("true", &T_BOOL, true);
  case K_PAIR: {
    Expr a = shape_literal(want->a), b = shape_literal(want->b);
    return make(text("(%s, %s)", a.text, b.text), pair_of(a.type, b.type), true);
  }
  case K_VEC: {
    const Type *len = want->len == LEN_ANY ? vec_of(&T_INT, LEN_LIT, want->minlen > 2 ? want->minlen : 2, 0) : want;
    Expr e = shape_literal(want->a);
    return make(text("dummyvec (%s, %s)", len_text(len), e.text), vec_like(len, e.type), false);
  }
  }
  return NONE;
}

// A vector literal of k elements meeting want->a.
static Expr vector_literal(const Type *want, int k, int budget) {
  char *s = text("[");
  const Type *elem = NULL;
  for (int i = 0; i < k; i++) {
    Expr e = budget > 0 ? gen(want->a, budget) : leaf(want->a);
    s = text("%s%s%s", s, i ? ", " : "", e.text);
    elem = elem ? merge(elem, e.type) : e.type;
  }
  return make(text("%s]", s), vec_of(elem, LEN_LIT, k, k), true);
}

// A vector of length n or m: each element made from one of the input's.
static Expr leaf_sized_vector(const Type *want) {
  const char *source = want->len == LEN_N ? "x" : "M";
  const Type *src = want->len == LEN_N ? vec_of(&T_INT, LEN_N, 0, 1)
                                       : vec_of(vec_of(&T_INT, LEN_N, 0, 1), LEN_M, 0, 1);
  if (chance(25)) {
    Expr e = shape_literal(want->a);
    return make(text("dummyvec (%s, %s)", len_text(want), e.text), vec_like(want, e.type), false);
  }
  const char *z = fresh("z");
  push_var(z, src->a);
  Expr e = leaf(want->a);
  nvars--;
  return make(text("map (\\%s -> %s) %s", z, e.text, source), vec_like(src, e.type), false);
}

static Expr leaf(const Type *want) {
  Expr v = g.prefer || chance(70) ? pick_var(want) : NONE;
  if (v.text) return v;
  switch (want->kind) {
  case K_INT: return int_literal();
  case K_FLOAT: return float_literal();
  case K_BOOL: return make(chance(50) ? "true" : "false", &T_BOOL, true);
  case K_PAIR: {
    Expr a = leaf(want->a), b = leaf(want->b);
    return make(text("(%s, %s)", a.text, b.text), pair_of(a.type, b.type), true);
  }
  case K_VEC:
    if (want->len == LEN_N || want->len == LEN_M) return leaf_sized_vector(want);
    if (want->len == LEN_LIT) return vector_literal(want, want->lit, 0);
    return vector_literal(want, want->minlen > 1 ? want->minlen : 1 + roll(3), 0);
  }
  return NONE;
}

// ---------------------------------------------------------------- sizes

// A size for ifs: parameters, literals and lengths.
static const char *size_condition(void) {
  static const char *const forms[] = {"n", "n - 3", "n % 2", "n - 1", "0", "1", "length x", "n * 2 - 9"};
  if (g.have_m && chance(25)) return chance(50) ? "m - 2" : "m * n - 4";
  return forms[roll(8)];
}

// A small iteration count for iter.
static const char *iter_count(void) {
  static const char *const forms[] = {"0", "1", "2", "3", "n % 3", "n / 4"};
  if (g.have_m && chance(20)) return "m";
  return forms[roll(6)];
}

// ---------------------------------------------------------------- operators

static Expr assoc_op(const Type *t);

// An associative operator on t applied to operands a and b (atoms), as text; NULL if none.
static const char *assoc_apply(const Type *t, const char *a, const char *b) {
  switch (t->kind) {
  case K_INT: {
    static const char *const forms[] = {"%s + %s", "%s * %s", "max %s %s", "min %s %s"};
    return text(forms[roll(4)], a, b);
  }
  case K_FLOAT: return text(chance(50) ? "max %s %s" : "min %s %s", a, b);
  case K_BOOL: {
    // (&&) as a function evaluates both operands, as the model counts; && written
    // as an operator skips its right one, which makes the model a bound only.
    static const char *const forms[] = {"%s == %s", "%s != %s", "(&&) %s %s", "(||) %s %s", "%s && %s"};
    return text(forms[roll(g.on_data ? 5 : 4)], a, b);
  }
  case K_PAIR: {
    const char *x = assoc_apply(t->a, text("(fst %s)", a), text("(fst %s)", b));
    const char *y = assoc_apply(t->b, text("(snd %s)", a), text("(snd %s)", b));
    return x && y ? text("(%s, %s)", x, y) : NULL;
  }
  case K_VEC: {
    // Element-wise, so every element of the folded vector must have one length.
    if (!known_len(t) || g.skel + 1 >= g.max_skel) return NULL;
    g.skel++;
    Expr op = assoc_op(t->a);
    g.skel--;
    return op.text ? text("pair_map %s (%s, %s)", wrap(op), a, b) : NULL;
  }
  }
  return NULL;
}

// A section, when t has one that is associative.
static const char *assoc_section(const Type *t) {
  static const char *const ints[] = {"(+)", "(*)", "max", "min"};
  static const char *const bools[] = {"(&&)", "(||)", "(==)", "(!=)"};
  if (t->kind == K_INT) return g.have_plus && chance(25) ? "plus" : ints[roll(4)];
  if (t->kind == K_FLOAT) return chance(50) ? "max" : "min";
  if (t->kind == K_BOOL) return bools[roll(4)];
  bool int_pair = t->kind == K_PAIR && t->a->kind == K_INT && t->b->kind == K_INT;
  return int_pair && g.have_otimes && chance(40) ? "otimes" : NULL;
}

// An int operator with a captured value, associative all the same:
// (a + b + c) + d + c = a + (b + d + c) + c, and max likewise.
static Expr captured_int_op(void) {
  Expr c = pick_var(&T_INT);
  if (!c.text) c = int_literal();
  const char *a = fresh("a"), *b = fresh("b");
  const char *body = chance(50) ? text("%s + %s + %s", a, b, c.text) : text("max (max %s %s) %s", a, b, c.text);
  return make(text("\\%s %s -> %s", a, b, body), &T_INT, false);
}

// An associative operator on t, as a function; its type is t. NONE if there is none.
static Expr assoc_op(const Type *t) {
  if (t->kind == K_INT && chance(15)) return captured_int_op();
  const char *section = chance(50) ? assoc_section(t) : NULL;
  if (section) return make(section, t, true);
  const char *a = fresh("a"), *b = fresh("b");
  const char *body = assoc_apply(t, a, b);
  return body ? make(text("\\%s %s -> %s", a, b, body), t, false) : NONE;
}

// ---------------------------------------------------------------- functions

static Expr gen_fun1(const Type *param, const Type *want, int budget, bool of_skeleton);

// \z -> body, or for a pair parameter now and then \(a, b) -> body.
static Expr lambda1(const Type *param, const Type *want, int budget, bool of_skeleton) {
  bool pattern = param->kind == K_PAIR && chance(30);
  const char *z = pattern ? NULL : fresh("z"), *a = pattern ? fresh("a") : NULL, *b = pattern ? fresh("b") : NULL;
  if (pattern) push_var(a, param->a), push_var(b, param->b);
  else push_var(z, param);
  g.skel += of_skeleton;
  Expr body = gen(want, budget);
  g.skel -= of_skeleton;
  nvars -= pattern ? 2 : 1;
  return make(pattern ? text("\\(%s, %s) -> %s", a, b, body.text) : text("\\%s -> %s", z, body.text), body.type, false);
}

static Expr lambda2(const Type *p1, const Type *p2, const Type *want, int budget, bool of_skeleton) {
  const char *a = fresh("a"), *b = fresh("b");
  push_var(a, p1);
  push_var(b, p2);
  g.skel += of_skeleton;
  Expr body = gen(want, budget);
  g.skel -= of_skeleton;
  nvars -= 2;
  return make(text("\\%s %s -> %s", a, b, body.text), body.type, false);
}

// A named function (def or let) of `arity` taking these parameters, giving `want`.
static Expr named_fun(int arity, const Type *p1, const Type *p2, const Type *want) {
  for (int i = nfuns - 1; i >= 0; i--) {
    Fun *f = &funs[i];
    if (f->arity != arity || !fits(f->result, want) || !fits(p1, as_request(f->param[0]))) continue;
    if (arity == 2 && !fits(p2, as_request(f->param[1]))) continue;
    if (chance(70)) return make(f->name, f->result, true);
  }
  return NONE;
}

// int -> int as a section partly applied: (+) 3, max k.
static Expr int_section(void) {
  static const char *const ops[] = {"(+)", "(*)", "(-)", "max", "min"};
  Expr k = leaf(&T_INT);
  return make(text("%s %s", ops[roll(5)], wrap(k)), &T_INT, false);
}

// A builtin partly applied, taking a vector: fold op, hd, prefix op, inits, redconcat, map f.
static Expr builtin_on_vector(const Type *param, const Type *want, int budget, bool of_skeleton) {
  const Type *elem = param->a;
  bool nested_ok = of_skeleton ? g.skel + 1 < g.max_skel : skeleton_allowed();
  int r = roll(6);
  g.skel += of_skeleton;
  Expr e = NONE;
  if (r == 0 && nested_ok && param->minlen >= 1 && fits(elem, want)) {
    Expr op = assoc_op(elem);
    if (op.text) e = make(text("fold %s", wrap(op)), elem, false);
  } else if (r == 1 && param->minlen >= 1 && fits(elem, want)) {
    e = make("hd", elem, true);
  } else if (r == 2 && nested_ok && fits(param, want)) {
    Expr op = assoc_op(elem);
    if (op.text) e = make(text("prefix %s", wrap(op)), param, false);
  } else if (r == 3 && nested_ok && g.segments > 0) {
    const Type *t = vec_like(param, vec_of(elem, LEN_OTHER, 0, 1));
    if (fits(t, want)) { g.segments--; e = make(chance(50) ? "inits" : "tails", t, true); }
  } else if (r == 4 && elem->kind == K_VEC) {
    const Type *t = vec_of(elem->a, LEN_OTHER, 0, param->minlen * elem->minlen);
    if (fits(t, want)) e = make("redconcat", t, true);
  } else if (r == 5 && nested_ok && want->kind == K_VEC && (want->len == LEN_ANY || same_len(param, want))) {
    Expr f = gen_fun1(elem, want->a, budget, true);
    e = make(text("map %s", wrap(f)), vec_like(param, f.type), false);
  }
  g.skel -= of_skeleton;
  return e;
}

// A function from param to a value meeting want; its type is the result's.
// of_skeleton: it is a skeleton's function (skeletons inside it nest deeper).
static Expr gen_fun1(const Type *param, const Type *want, int budget, bool of_skeleton) {
  int r = roll(10);
  Expr e = NONE;
  if (r < 2) e = named_fun(1, param, NULL, want);
  else if (r < 4 && param->kind == K_INT && want->kind == K_INT) e = int_section();
  else if (r < 5 && g.have_twice && param->kind == K_INT && want->kind == K_INT) {
    Expr f = chance(50) ? int_section() : lambda1(&T_INT, &T_INT, budget / 2, false);
    e = make(text("twice (%s)", f.text), &T_INT, false);
  } else if (r < 7 && param->kind == K_VEC) e = builtin_on_vector(param, want, budget, of_skeleton);
  if (e.text && fits(e.type, want)) return e;
  return lambda1(param, want, budget, of_skeleton);
}

// A section of two arguments giving want, if the types allow one.
static Expr section2(const Type *p1, const Type *p2, const Type *want) {
  bool same_scalar = is_scalar(p1) && p1->kind == p2->kind;
  bool numeric = same_scalar && p1->kind != K_BOOL;
  if (numeric && want->kind == p1->kind) {
    static const char *const ops[] = {"(+)", "(-)", "(*)", "max", "min"};
    return make(ops[roll(5)], p1, true);
  }
  if (numeric && want->kind == K_BOOL) {
    static const char *const ops[] = {"(<)", "(<=)", "(>)", "(>=)", "(==)", "(!=)"};
    return make(ops[roll(6)], &T_BOOL, true);
  }
  if (same_scalar && want->kind == K_BOOL) {
    static const char *const ops[] = {"(&&)", "(||)", "(==)", "(!=)"};
    return make(ops[roll(4)], &T_BOOL, true);
  }
  const Type *both = pair_of(p1, p2);
  return fits(both, want) ? make("pair", both, true) : NONE;
}

static Expr gen_fun2(const Type *p1, const Type *p2, const Type *want, int budget, bool of_skeleton) {
  int r = roll(10);
  Expr e = NONE;
  if (r < 2) e = named_fun(2, p1, p2, want);
  else if (r < 5) e = section2(p1, p2, want);
  if (e.text && fits(e.type, want)) return e;
  return lambda2(p1, p2, want, budget, of_skeleton);
}

// A function t -> t that keeps the shape of its argument (for iter and for
// the second branch of a data if, which must have the first one's shape).
static Expr shape_keeping(const Type *t, int budget) {
  const char *z = fresh("z");
  if (t->kind == K_PAIR) {
    Expr a = shape_keeping(t->a, budget), b = shape_keeping(t->b, budget);
    return make(text("\\%s -> ((%s) (fst %s), (%s) (snd %s))", z, a.text, z, b.text, z), t, false);
  }
  if (t->kind == K_VEC && skeleton_allowed() && chance(80)) {
    g.skel++;
    Expr op = chance(40) ? assoc_op(t->a) : NONE;
    if (op.text) {
      g.skel--;
      return make(text("prefix %s", wrap(op)), t, false);
    }
    Expr f = shape_keeping(t->a, budget);
    g.skel--;
    return make(text("map (%s)", f.text), t, false);
  }
  if (t->kind == K_VEC) return make(text("\\%s -> %s", z, z), t, false);
  return lambda1(t, t, budget, false);
}

// ---------------------------------------------------------------- productions
// Each takes a request and a budget and returns an expression meeting it,
// or NONE when it does not apply.

typedef Expr (*Production)(const Type *, int);

static Expr p_var(const Type *want, int budget) { return pick_var(want); }

// let v = e in body; a third of the time the body uses v wherever it can,
// so that one (often parallel) result is used several times.
static Expr p_let_value(const Type *want, int budget) {
  Expr e = gen(random_type(2), budget);
  const char *v = fresh("v");
  push_var(v, e.type);
  const Var *outer = g.prefer;
  if (chance(35)) g.prefer = &vars[nvars - 1];
  Expr body = gen(want, budget);
  g.prefer = outer;
  nvars--;
  return make(text("let %s = %s in %s", v, e.text, body.text), body.type, false);
}

static Expr p_let_function(const Type *want, int budget) {
  const Type *param = as_request(random_type(1));
  Expr arg = leaf(param);  // the parameter's type as a real value would have it
  const char *h = fresh("h"), *z = fresh("z");
  push_var(z, arg.type);
  Expr body = gen(random_type(1), budget / 2);
  nvars--;
  push_fun((Fun){h, 1, {arg.type, NULL}, body.type});
  Expr rest = gen(want, budget);
  nfuns--;
  const char *form = chance(50) ? "let %s %s = %s in %s" : "let %s = \\%s -> %s in %s";
  return make(text(form, h, z, body.text, rest.text), rest.type, false);
}

static Expr p_let(const Type *want, int budget) {
  return chance(75) ? p_let_value(want, budget) : p_let_function(want, budget);
}

static Expr p_if(const Type *want, int budget) {
  if (!g.on_data) return NONE;
  Expr c = gen(&T_BOOL, budget);
  if (!has_vec(want)) {
    Expr a = gen(want, budget), b = gen(want, budget);
    return make(text("if %s then %s else %s", c.text, a.text, b.text), merge(a.type, b.type), false);
  }
  Expr e = gen(want, budget);
  const char *v = fresh("v");
  Expr f = shape_keeping(e.type, budget / 2);
  return make(text("let %s = %s in if %s then %s else (%s) %s", v, e.text, c.text, v, f.text, v), e.type,
              false);
}

static Expr p_ifs(const Type *want, int budget) {
  const char *c = size_condition();
  Expr a = gen(want, budget), b = gen(want, budget);
  return make(text("ifs %s then %s else %s", c, a.text, b.text), merge(a.type, b.type), false);
}

static Expr p_call(const Type *want, int budget) {
  for (int i = nfuns - 1; i >= 0; i--) {
    Fun *f = &funs[i];
    if (!fits(f->result, want) || !chance(60)) continue;
    Expr a = gen(as_request(f->param[0]), budget);
    if (f->arity == 1) return make(text("%s %s", f->name, wrap(a)), f->result, false);
    Expr b = gen(as_request(f->param[1]), budget);
    return make(text("%s %s %s", f->name, wrap(a), wrap(b)), f->result, false);
  }
  return NONE;
}

static Expr p_project(const Type *want, int budget) {
  bool first = chance(50);
  const Type *other = random_type(1);
  Expr p = gen(first ? pair_of(want, other) : pair_of(other, want), budget);
  return make(text("%s %s", first ? "fst" : "snd", wrap(p)), first ? p.type->a : p.type->b, false);
}

// An index surely inside v (non-empty), as text.
static const char *index_into(Expr v) {
  const Type *t = v.type;
  if (t->minlen >= 2 && chance(30)) return text("%d", roll(t->minlen));
  if (t->len == LEN_N && chance(50)) return chance(50) ? "(n - 1)" : "(n / 2)";
  if (t->len == LEN_M && chance(50)) return "(m - 1)";
  if (v.atom && chance(60)) return text("(length %s - 1)", v.text);
  return "0";
}

static Expr p_element(const Type *want, int budget) {
  Expr v = gen(vec_of(want, LEN_ANY, 0, nonempty()), budget);
  if (chance(40)) return make(text("hd %s", wrap(v)), v.type->a, false);
  return make(text("entry %s %s", wrap(v), index_into(v)), v.type->a, false);
}

static Expr p_apply(const Type *want, int budget) {
  Expr a = gen(random_type(1), budget);
  Expr f = lambda1(a.type, want, budget, false);
  return make(text("(%s) %s", f.text, wrap(a)), f.type, false);
}

static Expr p_iter(const Type *want, int budget) {
  Expr a = gen(want, budget);
  Expr f = shape_keeping(a.type, budget / 2);
  return make(text("iter (%s) %s (%s)", f.text, wrap(a), iter_count()), a.type, false);
}

static bool has_assoc(const Type *t) {
  if (t->kind == K_PAIR) return has_assoc(t->a) && has_assoc(t->b);
  return t->kind != K_VEC || has_assoc(t->a);
}

static Expr p_fold(const Type *want, int budget) {
  if (!skeleton_allowed() || !has_assoc(want)) return NONE;
  Expr v = gen(vec_of(want, LEN_ANY, 0, nonempty()), budget);
  g.skel++;
  Expr op = assoc_op(v.type->a);
  g.skel--;
  if (!op.text) return NONE;
  return make(text("%s %s %s", chance(15) ? "reduce" : "fold", wrap(op), wrap(v)), v.type->a, false);
}

static Expr p_arith(const Type *want, int budget) {
  static const char *const ops[] = {"+", "-", "*"};
  Expr a = gen(want, budget);
  if (chance(10)) return make(text("-%s", wrap(a)), want, false);
  Expr b = gen(want, budget);
  return make(text("%s %s %s", wrap(a), ops[roll(3)], wrap(b)), want, false);
}

static Expr p_divide(const Type *want, int budget) {
  Expr a = gen(want, budget);
  if (want->kind == K_FLOAT) return make(text("%s / %s", wrap(a), chance(50) ? "4.0" : "0.5"), want, false);
  static const char *const by[] = {"2", "3", "5", "7", "(-3)"};
  const char *op = chance(50) ? "/" : "%";
  return make(text("%s %s %s", wrap(a), op, by[roll(5)]), want, false);
}

static Expr p_maxmin(const Type *want, int budget) {
  Expr a = gen(want, budget), b = gen(want, budget);
  return make(text("%s %s %s", chance(50) ? "max" : "min", wrap(a), wrap(b)), want, false);
}

// A size used as an int: a parameter or the length of a vector.
static Expr p_size(const Type *want, int budget) {
  int r = roll(4);
  if (r == 0) return make(g.have_m && chance(40) ? "m" : "n", &T_INT, true);
  if (r == 1) {
    Expr a = gen(&T_INT, budget);
    return make(text("%s + n", wrap(a)), &T_INT, false);
  }
  Expr v = gen(vec_of(random_type(1), LEN_ANY, 0, 0), budget);
  return make(text("length %s", wrap(v)), &T_INT, false);
}

static Expr p_compare(const Type *want, int budget) {
  static const char *const ops[] = {"<", "<=", ">", ">=", "==", "!="};
  int r = roll(100);
  const Type *t = r < 60 ? &T_INT : r < 85 ? &T_FLOAT : &T_BOOL;
  Expr a = gen(t, budget), b = gen(t, budget);
  const char *op = t == &T_BOOL ? ops[4 + roll(2)] : ops[roll(6)];
  return make(text("%s %s %s", wrap(a), op, wrap(b)), &T_BOOL, false);
}

static Expr p_logic(const Type *want, int budget) {
  Expr a = gen(&T_BOOL, budget), b = gen(&T_BOOL, budget);
  const char *op = chance(50) ? "&&" : "||";
  if (!g.on_data || chance(50)) return make(text("(%s) %s %s", op, wrap(a), wrap(b)), &T_BOOL, false);
  return make(text("%s %s %s", wrap(a), op, wrap(b)), &T_BOOL, false);
}

static Expr p_not(const Type *want, int budget) {
  Expr a = gen(&T_BOOL, budget);
  return make(text("not %s", wrap(a)), &T_BOOL, false);
}

static Expr p_tuple(const Type *want, int budget) {
  Expr a = gen(want->a, budget), b = gen(want->b, budget);
  const char *form = chance(80) ? "(%s, %s)" : "pair %s %s";
  bool tuple = form[0] == '(';
  return make(tuple ? text(form, a.text, b.text) : text(form, wrap(a), wrap(b)), pair_of(a.type, b.type), tuple);
}

// map f v for a v already made.
static Expr map_over(Expr v, const Type *want_elem, int budget) {
  Expr f = gen_fun1(v.type->a, want_elem, budget, true);
  return make(text("map %s %s", wrap(f), wrap(v)), vec_like(v.type, f.type), false);
}

// A request for a vector of elem with the length `want` (a vector request) asks.
static const Type *same_length_request(const Type *want, const Type *elem) {
  return vec_of(elem, want->len, want->lit, want->minlen);
}

static Expr p_segments(const Type *want, int budget);

static Expr p_map(const Type *want, int budget) {
  if (!skeleton_allowed()) return NONE;
  int r = roll(100);
  const Type *src = r < 45 ? &T_INT : r < 70 ? vec_of(&T_INT, LEN_ANY, 0, 0) : random_type(1);
  Expr v = src->kind == K_VEC && chance(50) ? p_segments(same_length_request(want, src), budget) : NONE;
  if (!v.text) v = gen(same_length_request(want, src), budget);
  return map_over(v, want->a, budget);
}

static Expr p_pair_map(const Type *want, int budget) {
  if (!skeleton_allowed()) return NONE;
  Expr a = gen(same_length_request(want, chance(60) ? &T_INT : random_type(1)), budget);
  const char *prelude = "";
  if (!known_len(a.type)) {  // b is made from a, so a is bound to a name
    const char *v = fresh("v");
    prelude = text("let %s = %s in ", v, a.text);
    a = make(v, a.type, true);
  }
  Expr b = known_len(a.type) ? gen(vec_like(as_request(a.type), chance(60) ? &T_INT : random_type(1)), budget)
                             : map_over(a, random_type(1), budget);
  Expr f = gen_fun2(a.type->a, b.type->a, want->a, budget, true);
  const Type *t = vec_like(a.type, f.type);
  if (chance(25)) {
    const char *p = fresh("p");
    return make(text("%slet %s = (%s, %s) in pair_map %s %s", prelude, p, a.text, b.text, wrap(f), p), t, false);
  }
  return make(text("%spair_map %s (%s, %s)", prelude, wrap(f), a.text, b.text), t, false);
}

static Expr p_c_prod(const Type *want, int budget) {
  if (!skeleton_allowed() || want->a->kind != K_VEC) return NONE;
  Expr y = gen(same_length_request(want, chance(60) ? &T_INT : random_type(1)), budget);
  Expr x = gen(same_length_request(want->a, chance(60) ? &T_INT : random_type(1)), budget);
  Expr f = gen_fun2(x.type->a, y.type->a, want->a->a, budget, true);
  return make(text("c_prod %s %s %s", wrap(f), wrap(x), wrap(y)), vec_like(y.type, vec_like(x.type, f.type)), false);
}

static Expr p_prefix(const Type *want, int budget) {
  if (!skeleton_allowed() || !has_assoc(want->a)) return NONE;
  Expr v = gen(want, budget);
  g.skel++;
  Expr op = assoc_op(v.type->a);
  g.skel--;
  if (!op.text) return NONE;
  return make(text("%s %s %s", chance(15) ? "scan" : "prefix", wrap(op), wrap(v)), v.type, false);
}

static Expr p_segments(const Type *want, int budget) {
  const Type *seg = want->a;
  if (!skeleton_allowed() || g.segments == 0 || seg->kind != K_VEC || seg->len != LEN_ANY || seg->minlen > 1)
    return NONE;
  g.segments--;
  Expr v = gen(same_length_request(want, seg->a), budget);
  const Type *t = vec_like(v.type, vec_of(v.type->a, LEN_OTHER, 0, 1));
  return make(text("%s %s", chance(50) ? "inits" : "tails", wrap(v)), t, false);
}

static Expr p_redconcat(const Type *want, int budget) {
  if (want->len != LEN_ANY || want->minlen > 1) return NONE;
  int least = want->minlen;
  Expr vv = gen(vec_of(vec_of(want->a, LEN_ANY, 0, least), LEN_ANY, 0, least), budget);
  const Type *inner = vv.type->a;
  const Type *t = vec_of(inner->a, LEN_OTHER, 0, vv.type->minlen * inner->minlen);
  return make(text("redconcat %s", wrap(vv)), t, false);
}

static Expr p_tl(const Type *want, int budget) {
  if (want->len != LEN_ANY) return NONE;
  int least = g.faulty && want->minlen == 0 && chance(40) ? 0 : want->minlen + 1;
  Expr v = gen(vec_of(want->a, LEN_ANY, 0, least), budget);
  int minlen = v.type->minlen > 0 ? v.type->minlen - 1 : 0;
  return make(text("tl %s", wrap(v)), vec_of(v.type->a, LEN_OTHER, 0, minlen), false);
}

static Expr p_list(const Type *want, int budget) {
  if (want->len == LEN_LIT) return vector_literal(want, want->lit, budget);
  if (want->len != LEN_ANY) return NONE;
  int k = 1 + roll(3);
  return vector_literal(want, k > want->minlen ? k : want->minlen, budget);
}

static Expr p_dummyvec(const Type *want, int budget) {
  if (want->len == LEN_ANY && want->minlen > 1) return NONE;
  const Type *len = want;
  if (want->len == LEN_ANY) {
    Len kind = chance(70) ? LEN_N : LEN_LIT;
    len = vec_of(&T_INT, kind, 1 + roll(3), 0);
  }
  Expr e = shape_literal(want->a);
  return make(text("dummyvec (%s, %s)", len_text(len), e.text), vec_like(len, e.type), false);
}

// A request like want, of a length known to both operands of zip or map2
// (n when want asks for any, and for no more than n >= 1 elements); NULL if none.
static const Type *known_length(const Type *want) {
  if (known_len(want)) return want;
  return want->minlen <= 1 ? vec_of(want->a, LEN_N, 0, 1) : NULL;
}

static Expr p_zip(const Type *want, int budget) {
  const Type *len = known_length(want);
  if (!skeleton_allowed() || want->a->kind != K_PAIR || !len) return NONE;
  Expr a = gen(same_length_request(len, want->a->a), budget);
  Expr b = gen(same_length_request(len, want->a->b), budget);
  return make(text("zip %s %s", wrap(a), wrap(b)), vec_like(a.type, pair_of(a.type->a, b.type->a)), false);
}

static Expr p_map2(const Type *want, int budget) {
  const Type *len = known_length(want);
  if (!skeleton_allowed() || !len) return NONE;
  Expr a = gen(same_length_request(len, chance(60) ? &T_INT : random_type(1)), budget);
  Expr b = gen(same_length_request(len, chance(60) ? &T_INT : random_type(1)), budget);
  Expr f = gen_fun2(a.type->a, b.type->a, want->a, budget, true);
  return make(text("map2 %s %s %s", wrap(f), wrap(a), wrap(b)), vec_like(a.type, f.type), false);
}

static Expr p_iota(const Type *want, int budget) {
  const Type *len = known_length(want);
  if (want->a->kind != K_INT || !len || len->minlen < want->minlen) return NONE;
  if (len->len == LEN_LIT) return make(text("iota %d", len->lit), vec_of(&T_INT, LEN_LIT, len->lit, 0), false);
  return make(len->len == LEN_M ? "iota m" : "iota n", vec_of(&T_INT, len->len, 0, 1), false);
}

static Expr p_reverse(const Type *want, int budget) {
  Expr v = gen(want, budget);
  return make(text("reverse %s", wrap(v)), v.type, false);
}

static Expr p_float(const Type *want, int budget) {
  Expr i = gen(&T_INT, budget);
  return make(text("float %s", wrap(i)), &T_FLOAT, false);
}

// neighbours l r v, of scalars.
static Expr p_neighbours(const Type *want, int budget) {
  const Type *t = want->a;
  if (t->kind != K_PAIR || t->b->kind != K_PAIR || !is_scalar(t->a) || t->a->kind != t->b->a->kind ||
      t->a->kind != t->b->b->kind)
    return NONE;
  Expr l = leaf(t->a), r = leaf(t->a), v = gen(same_length_request(want, t->a), budget);
  return make(text("neighbours %s %s %s", wrap(l), wrap(r), wrap(v)),
              vec_like(v.type, pair_of(v.type->a, pair_of(v.type->a, v.type->a))), false);
}

// split k v: sublists of lengths no request names.
static Expr p_split(const Type *want, int budget) {
  const Type *part = want->a;
  if (part->kind != K_VEC || part->len != LEN_ANY || part->minlen > 1 || want->len != LEN_ANY || want->minlen > 1)
    return NONE;
  Expr v = gen(vec_of(part->a, LEN_ANY, 0, want->minlen), budget);
  return make(text("split %d %s", 1 + roll(3), wrap(v)),
              vec_of(vec_of(v.type->a, LEN_OTHER, 0, 1), LEN_OTHER, 0, v.type->minlen > 0), false);
}

// merge a b, or a fold of merge over vectors (it grows what it combines).
static Expr p_merge(const Type *want, int budget) {
  if ((want->a->kind != K_INT && want->a->kind != K_FLOAT) || want->len != LEN_ANY) return NONE;
  const Type *part = vec_of(want->a, LEN_ANY, 0, 0);
  if (skeleton_allowed() && chance(40)) {
    Expr vv = gen(vec_of(part, LEN_ANY, 0, nonempty()), budget);
    return want->minlen > 0 ? NONE : make(text("fold merge %s", wrap(vv)), vec_of(want->a, LEN_OTHER, 0, 0), false);
  }
  Expr a = gen(part, budget), b = gen(part, budget);
  int least = a.type->minlen + b.type->minlen;
  return least < want->minlen ? NONE : make(text("merge %s %s", wrap(a), wrap(b)), vec_of(want->a, LEN_OTHER, 0, least), false);
}

// dh f g v, v a literal of 1, 2 or 4 scalars (a power of two: any other
// length faults); f and g need not be associative, as every process
// applies them as the definition does.
static Expr p_dh(const Type *want, int budget) {
  int k = want->len == LEN_LIT ? want->lit : want->len == LEN_ANY ? 1 << roll(3) : 0;
  if (!skeleton_allowed() || !is_scalar(want->a) || !k || (k & (k - 1)) || k < want->minlen) return NONE;
  const Type *e = want->a;
  Expr v = vector_literal(vec_of(e, LEN_LIT, k, k), k, budget);
  Expr f = gen_fun2(e, e, e, budget, true), g2 = gen_fun2(e, e, e, budget, true);
  return make(text("dh %s %s %s", wrap(f), wrap(g2), v.text), vec_of(e, LEN_LIT, k, k), false);
}

enum { ANY = 31, INT = 1 << K_INT, FLT = 1 << K_FLOAT, BOOL = 1 << K_BOOL, PAIR = 1 << K_PAIR, VEC = 1 << K_VEC };

typedef struct {
  Production make;
  int weight;
  unsigned kinds;  // the kinds of value it makes
} Rule;

static const Rule rules[] = {
    {p_var, 4, ANY},      {p_let, 3, ANY},         {p_if, 2, ANY},         {p_ifs, 1, ANY},
    {p_call, 2, ANY},     {p_project, 1, ANY},     {p_element, 2, ANY},    {p_apply, 1, ANY},
    {p_iter, 1, ANY},     {p_fold, 6, ANY},        {p_arith, 4, INT | FLT}, {p_divide, 1, INT | FLT},
    {p_maxmin, 2, INT | FLT}, {p_size, 1, INT},    {p_compare, 4, BOOL},   {p_logic, 2, BOOL},
    {p_not, 1, BOOL},     {p_tuple, 6, PAIR},      {p_map, 7, VEC},        {p_pair_map, 4, VEC},
    {p_c_prod, 3, VEC},   {p_prefix, 3, VEC},      {p_segments, 3, VEC},   {p_redconcat, 1, VEC},
    {p_tl, 1, VEC},       {p_list, 1, VEC},        {p_dummyvec, 1, VEC},
    {p_zip, 2, VEC},      {p_map2, 2, VEC},        {p_iota, 1, VEC},       {p_reverse, 1, VEC},
    {p_float, 1, FLT},    {p_neighbours, 2, VEC},  {p_split, 1, VEC},      {p_merge, 1, VEC},
    {p_dh, 1, VEC},
};
enum { NRULES = sizeof rules / sizeof rules[0] };

static Production pick_rule(Kind kind) {
  int total = 0;
  for (int i = 0; i < NRULES; i++)
    if (rules[i].kinds & (1u << kind)) total += rules[i].weight;
  int r = roll(total);
  for (int i = 0; i < NRULES; i++) {
    if (!(rules[i].kinds & (1u << kind))) continue;
    if (r < rules[i].weight) return rules[i].make;
    r -= rules[i].weight;
  }
  return p_var;
}

// An expression meeting `want`, at most `budget` productions deep.
static Expr gen(const Type *want, int budget) {
  g.nodes++;
  Expr e = NONE;
  for (int tries = 0; budget > 0 && g.nodes < g.node_limit && !e.text && tries < 10; tries++)
    e = pick_rule(want->kind)(want, budget - 1);
  if (!e.text) e = leaf(want);
  if (!fits(e.type, want)) generator_bug(text("'%s' does not have the type asked for", e.text));
  return e;
}

// ---------------------------------------------------------------- the program

static void declare_input(const char *name, const char *shape, const Type *t) {
  printf("input %s : %s\n", name, shape);
  push_var(name, t);
}

static void declare_inputs(void) {
  const Type *xs = vec_of(&T_INT, LEN_N, 0, 1);
  declare_input("x", "[n]int", xs);
  if (chance(50)) declare_input("y", "[n]int", xs);
  if (g.have_m && chance(85)) declare_input("M", "[m][n]int", vec_of(xs, LEN_M, 0, 1));
  if (chance(30)) declare_input("f", "[n]float", vec_of(&T_FLOAT, LEN_N, 0, 1));
  if (chance(30)) declare_input("ps", "[n](int, int)", vec_of(pair_of(&T_INT, &T_INT), LEN_N, 0, 1));
  if (chance(12)) declare_input("bs", "[n]bool", vec_of(&T_BOOL, LEN_N, 0, 1));
  if (chance(12)) declare_input("c", "int", &T_INT);
}

// Defs with fixed bodies the productions know how to use.
static void declare_helpers(void) {
  const Type *ii = pair_of(&T_INT, &T_INT);
  if ((g.have_plus = chance(25))) {
    printf("def plus a b = a + b\n");
    push_fun((Fun){"plus", 2, {&T_INT, &T_INT}, &T_INT});
  }
  if ((g.have_otimes = chance(20))) {
    printf("def otimes a b = (fst a + fst b, max (snd a + fst b) (snd b))\n");
    push_fun((Fun){"otimes", 2, {ii, ii}, ii});
  }
  if (chance(20)) {
    printf("def lift y = (y, max y 0)\n");
    push_fun((Fun){"lift", 1, {&T_INT}, ii});
  }
  if ((g.have_twice = chance(15))) printf("def twice g z = g (g z)\n");
}

// A def of a function of one parameter, with a body of its own.
static void declare_function_def(void) {
  const Type *param = as_request(random_type(1));
  Expr arg = leaf(param);  // a type such as a real argument has
  const char *name = fresh("d"), *z = fresh("z");
  push_var(z, arg.type);
  g.nodes = 0;
  Expr body = gen(random_type(1), 3);
  nvars--;
  printf("def %s %s = %s\n", name, z, body.text);
  push_fun((Fun){name, 1, {arg.type, NULL}, body.type});
}

static void declare_value_def(void) {
  g.nodes = 0;
  Expr e = gen(random_type(2), 3);
  const char *name = fresh("c");
  printf("def %s = %s\n", name, e.text);
  push_var(name, e.type);
}

static void generate(uint64_t seed) {
  rng_state = seed;
  g.have_m = chance(40);
  g.max_skel = 1 + roll(4);
  g.segments = chance(20) ? 0 : 1 + roll(2);
  g.faulty = chance(4);
  g.on_data = chance(30);
  printf("# vecgen %llu: skeletons nested %d deep at most%s%s\n", (unsigned long long)seed, g.max_skel,
         g.on_data ? ", decides on data" : "", g.faulty ? ", may fault" : "");
  printf(g.have_m ? "param n m\n" : "param n\n");
  declare_inputs();
  declare_helpers();
  g.node_limit = 12;
  for (int i = roll(3); i > 0; i--) declare_function_def();
  for (int i = roll(3) - 1; i > 0; i--) declare_value_def();  // none twice as often as one
  g.nodes = 0;
  g.node_limit = 15 + roll(40);
  const Type *main_type = random_type(2);
  Expr main_expr = gen(main_type, 4 + roll(4));
  printf("main = %s\n", main_expr.text);
}

int main(int argc, char **argv) {
  char *end = NULL;
  unsigned long long seed = argc == 2 ? strtoull(argv[1], &end, 10) : 0;
  if (argc != 2 || !end || *end || end == argv[1]) {
    fprintf(stderr, "usage: vecgen SEED\n");
    return 2;
  }
  generate(seed);
  return 0;
}
