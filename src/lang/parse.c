// parse.c: recursive-descent parser for VEC-BSP, followed by name resolution.
//
//   program ::= decl*  where decl is  param NAME+ | input NAME : itype
//                                   | def NAME pat* = e | main = e
//   e       ::= \pat.. -> e | let NAME pat* = e in e | let pat = e in e
//             | if e then e else e | ifs e then e else e | or
//   pat ::= NAME | ( pat , pat , ... )
//   or  ::= and (|| and)*        and ::= cmp (&& cmp)*
//   cmp ::= add (relop add)?     add ::= mul ((+|-) mul)*
//   mul ::= unary ((*|/|%) unary)*
//   unary ::= - unary | not unary | app      app ::= atom atom* [lambda|let|if]
#include "lang/lang.h"

#include <stdio.h>
#include <string.h>

enum { MAX_DEPTH = 1000 };

typedef struct Parser {
  Arena *arena;
  const Source *src;
  Token *tok;      // current token
  Program *prog;   // the program being built
  int nesting;     // current recursion depth of the parser itself
} Parser;

static Node *expr(Parser *ps);

static _Noreturn void unexpected(Parser *ps, const char *wanted) {
  Token *t = ps->tok;
  if (t->kind == TK_EOF) error_at(t->pos, "unexpected end of file, expected %s", wanted);
  error_at(t->pos, "unexpected '%.*s', expected %s", t->len, t->start, wanted);
}

static bool at(Parser *ps, const char *s) { return tok_is(ps->tok, s); }

static bool accept(Parser *ps, const char *s) {
  if (!at(ps, s)) return false;
  ps->tok++;
  return true;
}

static Token *expect(Parser *ps, const char *s) {
  if (!at(ps, s)) {
    char buf[32];
    snprintf(buf, sizeof buf, "'%s'", s);
    unexpected(ps, buf);
  }
  return ps->tok++;
}

static const char *expect_ident(Parser *ps, const char *what) {
  if (ps->tok->kind != TK_IDENT) unexpected(ps, what);
  Token *t = ps->tok++;
  return arena_strndup(ps->arena, t->start, (size_t)t->len);
}

// Guards the parser's own recursion, which deep nesting could overflow.
static void enter(Parser *ps) {
  if (++ps->nesting > MAX_DEPTH)
    error_at(ps->tok->pos, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
}

static Node *new_node(Parser *ps, NodeKind kind, Pos pos) {
  Node *n = arena_alloc(ps->arena, sizeof *n);
  n->kind = kind;
  n->pos = pos;
  n->id = ps->prog->nnodes++;
  return n;
}

// Records that n sits above child; deep trees would overflow the stack of
// the recursive passes that follow, so they are refused here.
static void above(Node *n, const Node *child) {
  if (child->depth + 1 > n->depth) n->depth = child->depth + 1;
  if (n->depth > MAX_DEPTH)
    error_at(n->pos, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
}

static Node *new_binary(Parser *ps, NodeKind kind, Pos pos, Node *lhs, Node *rhs) {
  Node *n = new_node(ps, kind, pos);
  n->lhs = lhs;
  n->rhs = rhs;
  above(n, lhs);
  if (rhs) above(n, rhs);
  return n;
}

//
// Parameters: names, or pair patterns of names, (a, (b, c)) or (a, b, c),
// which bind the components of a pair argument. A pattern binds the whole
// under its own text as a name (no identifier is so spelled), then each of
// its names by a let of fst and snd of the whole (docs/language.md,
// "Patterns"): every later pass sees lambdas and lets only.
//

// A name or a pattern: N_VAR, or N_PAIR of those.
static Node *pattern(Parser *ps) {
  Node *n;
  enter(ps);
  if (at(ps, "(")) {
    Pos pos = expect(ps, "(")->pos;
    PtrVec items = {0};
    ptrvec_push(ps->arena, &items, pattern(ps));
    if (!at(ps, ",")) unexpected(ps, "',' in a pair pattern");
    while (accept(ps, ",")) ptrvec_push(ps->arena, &items, pattern(ps));
    expect(ps, ")");
    n = items.data[items.len - 1];
    for (int i = items.len - 2; i >= 0; i--) n = new_binary(ps, N_PAIR, i == 0 ? pos : ((Node *)items.data[i])->pos, items.data[i], n);
  } else {
    Pos pos = ps->tok->pos;
    n = new_node(ps, N_VAR, pos);
    n->name = expect_ident(ps, "a parameter name or a pair pattern");
  }
  ps->nesting--;
  return n;
}

static char *pattern_text(Arena *a, Node *p) {
  if (p->kind == N_VAR) return (char *)p->name;
  return arena_printf(a, "(%s, %s)", pattern_text(a, p->lhs), pattern_text(a, p->rhs));
}

// The builtin b (fst or snd) applied to x: resolved here, so that no name
// the program defines can stand for it.
static Node *builtin_app(Parser *ps, Builtin b, Node *x, Pos pos) {
  Node *f = new_node(ps, N_VAR, pos);
  f->name = builtin_name(b);
  f->ref = REF_BUILTIN;
  f->builtin = b;
  return new_binary(ps, N_APP, pos, f, x);
}

// The part of the variable whole at path (B_FST or B_SND from the whole
// down, depth of them), a tree of its own.
static Node *pattern_part(Parser *ps, const char *whole, Pos pos, const Builtin *path, int depth) {
  Node *part = new_node(ps, N_VAR, pos);
  part->name = whole;
  for (int i = 0; i < depth; i++) part = builtin_app(ps, path[i], part, pos);
  return part;
}

// let NAME = (the part of whole that the pattern p, at path, stands for)
// in ... for every name of p, around body.
static Node *destructure(Parser *ps, Node *p, const char *whole, Builtin *path, int depth, Node *body, PtrVec *bound) {
  if (p->kind == N_PAIR) {
    path[depth] = B_SND;
    body = destructure(ps, p->rhs, whole, path, depth + 1, body, bound);
    path[depth] = B_FST;
    return destructure(ps, p->lhs, whole, path, depth + 1, body, bound);
  }
  Node *part = pattern_part(ps, whole, p->pos, path, depth);
  for (int i = 0; i < bound->len; i++)
    if (strcmp(bound->data[i], p->name) == 0) error_at(p->pos, "'%s' is bound twice in this pattern", p->name);
  ptrvec_push(ps->arena, bound, (void *)p->name);
  Node *let = new_node(ps, N_LET, p->pos);
  let->name = p->name;
  let->init = part;
  let->body = body;
  let->destructures = true;
  above(let, part);
  above(let, body);
  return let;
}

// The binder b (an N_LAM or N_LET, body not yet set) of the parameter p,
// and the body in which its names are bound.
static Node *bind_param(Parser *ps, Node *b, Node *p, Node *body) {
  if (p->kind == N_VAR) {
    b->name = p->name;
    return body;
  }
  b->name = pattern_text(ps->arena, p);
  b->pattern = true;
  Builtin path[MAX_DEPTH + 1];
  PtrVec bound = {0};
  return destructure(ps, p, b->name, path, 0, body, &bound);
}

// \x y z -> body, built as nested one-parameter lambdas.
static Node *lambda_chain(Parser *ps, Pos pos, Node **params, int n, Node *body) {
  for (int i = n - 1; i >= 0; i--) {
    Node *lam = new_node(ps, N_LAM, pos);
    lam->body = bind_param(ps, lam, params[i], body);
    above(lam, lam->body);
    body = lam;
  }
  return body;
}

// Parameters up to (not including) the token s; returns their count.
static int param_list(Parser *ps, const char *stop, Node ***out) {
  PtrVec v = {0};
  while (!at(ps, stop)) ptrvec_push(ps->arena, &v, pattern(ps));
  *out = (Node **)v.data;
  return v.len;
}

static Node *lambda(Parser *ps) {
  Pos pos = expect(ps, "\\")->pos;
  Node **params;
  if (ps->tok->kind != TK_IDENT && !at(ps, "(")) unexpected(ps, "a parameter name or a pair pattern");
  int n = param_list(ps, "->", &params);
  expect(ps, "->");
  return lambda_chain(ps, pos, params, n, expr(ps));
}

// let x = e in b, let f x y = e in b, let (a, b) = e in b.
static Node *let(Parser *ps) {
  Pos pos = expect(ps, "let")->pos;
  Node *n = new_node(ps, N_LET, pos);
  Node *bound = pattern(ps);
  Node **params = NULL;
  int nparams = bound->kind == N_VAR ? param_list(ps, "=", &params) : 0;
  Pos eq = expect(ps, "=")->pos;
  n->init = lambda_chain(ps, eq, params, nparams, expr(ps));
  expect(ps, "in");
  n->body = bind_param(ps, n, bound, expr(ps));
  above(n, n->init);
  above(n, n->body);
  return n;
}

static Node *conditional(Parser *ps, NodeKind kind) {
  Node *n = new_node(ps, kind, ps->tok->pos);
  ps->tok++;
  n->cond = expr(ps);
  expect(ps, "then");
  n->then_ = expr(ps);
  expect(ps, "else");
  n->else_ = expr(ps);
  above(n, n->cond);
  above(n, n->then_);
  above(n, n->else_);
  return n;
}

static const struct {
  const char *text;
  Op op;
} binary_ops[] = {
    {"+", OP_ADD}, {"-", OP_SUB}, {"*", OP_MUL}, {"/", OP_DIV}, {"%", OP_MOD},
    {"==", OP_EQ}, {"!=", OP_NE}, {"<", OP_LT},  {"<=", OP_LE}, {">", OP_GT},
    {">=", OP_GE}, {"&&", OP_AND}, {"||", OP_OR},
};

static bool binary_op_at(Parser *ps, Op *op) {
  for (size_t i = 0; i < sizeof binary_ops / sizeof *binary_ops; i++)
    if (at(ps, binary_ops[i].text)) {
      *op = binary_ops[i].op;
      return true;
    }
  return false;
}

static bool starts_atom(Parser *ps) {
  TokenKind k = ps->tok->kind;
  return k == TK_INT || k == TK_FLOAT || k == TK_IDENT || at(ps, "true") ||
         at(ps, "false") || at(ps, "(") || at(ps, "[");
}

static bool starts_trailing(Parser *ps) {
  return at(ps, "\\") || at(ps, "let") || at(ps, "if") || at(ps, "ifs");
}

// ( e ), (e, e, ...) as right-nested pairs, or an operator section (+).
static Node *parenthesised(Parser *ps) {
  Pos pos = expect(ps, "(")->pos;
  Op op;
  if (binary_op_at(ps, &op) && tok_is(ps->tok + 1, ")")) {
    ps->tok += 2;
    Node *n = new_node(ps, N_OPFN, pos);
    n->op = op;
    return n;
  }
  PtrVec items = {0};
  do ptrvec_push(ps->arena, &items, expr(ps));
  while (accept(ps, ","));
  expect(ps, ")");
  Node *n = items.data[items.len - 1];
  for (int i = items.len - 2; i >= 0; i--) {
    Node *item = items.data[i];
    n = new_binary(ps, N_PAIR, i == 0 ? pos : item->pos, item, n);
  }
  return n;
}

static Node *vector_literal(Parser *ps) {
  Node *n = new_node(ps, N_VEC, expect(ps, "[")->pos);
  PtrVec items = {0};
  if (!at(ps, "]")) {
    do ptrvec_push(ps->arena, &items, expr(ps));
    while (accept(ps, ","));
  }
  expect(ps, "]");
  n->elems = (Node **)items.data;
  n->nelems = items.len;
  for (int i = 0; i < n->nelems; i++) above(n, n->elems[i]);
  return n;
}

static Node *atom(Parser *ps) {
  Token *t = ps->tok;
  if (t->kind == TK_INT || t->kind == TK_FLOAT) {
    Node *n = new_node(ps, t->kind == TK_INT ? N_INT : N_FLOAT, t->pos);
    n->ival = t->ival;
    n->fval = t->fval;
    ps->tok++;
    return n;
  }
  if (at(ps, "true") || at(ps, "false")) {
    Node *n = new_node(ps, N_BOOL, t->pos);
    n->ival = at(ps, "true");
    ps->tok++;
    return n;
  }
  if (t->kind == TK_IDENT) {
    Node *n = new_node(ps, N_VAR, t->pos);
    n->name = expect_ident(ps, "a name");
    return n;
  }
  if (at(ps, "(")) return parenthesised(ps);
  if (at(ps, "[")) return vector_literal(ps);
  unexpected(ps, "an expression");
}

static Node *application(Parser *ps) {
  Node *n = atom(ps);
  for (;;) {
    Node *arg;
    if (starts_atom(ps))
      arg = atom(ps);
    else if (starts_trailing(ps))
      arg = expr(ps);
    else
      return n;
    n = new_binary(ps, N_APP, n->pos, n, arg);
  }
}

static Node *unary(Parser *ps) {
  Pos pos = ps->tok->pos;
  Op op;
  if (accept(ps, "-"))
    op = OP_NEG;
  else if (accept(ps, "not"))
    op = OP_NOT;
  else if (starts_trailing(ps))
    return expr(ps);
  else
    return application(ps);
  Node *n = new_node(ps, N_UNOP, pos);
  n->op = op;
  enter(ps);
  n->lhs = unary(ps);
  ps->nesting--;
  above(n, n->lhs);
  return n;
}

// Binary operators by precedence level, lowest first.
static const char *const levels[][4] = {
    {"||"}, {"&&"}, {"==", "!=", "<", "<="}, {"+", "-"}, {"*", "/", "%"},
};
enum { NLEVELS = sizeof levels / sizeof *levels };

static bool at_level(Parser *ps, int level) {
  if (level == 2 && (at(ps, ">") || at(ps, ">="))) return true;
  for (int i = 0; i < 4 && levels[level][i]; i++)
    if (at(ps, levels[level][i])) return true;
  return false;
}

static Node *binary(Parser *ps, int level) {
  if (level == NLEVELS) return unary(ps);
  Node *lhs = binary(ps, level + 1);
  while (at_level(ps, level)) {
    Token *t = ps->tok;
    Op op = OP_ADD;
    binary_op_at(ps, &op);
    ps->tok++;
    Node *n = new_binary(ps, N_BINOP, t->pos, lhs, binary(ps, level + 1));
    n->op = op;
    lhs = n;
  }
  return lhs;
}

static Node *expr_inner(Parser *ps) {
  if (at(ps, "\\")) return lambda(ps);
  if (at(ps, "let")) return let(ps);
  if (at(ps, "if")) return conditional(ps, N_IF);
  if (at(ps, "ifs")) return conditional(ps, N_IFS);
  return binary(ps, 0);
}

static Node *expr(Parser *ps) {
  enter(ps);
  Node *n = expr_inner(ps);
  ps->nesting--;
  return n;
}

static InputType *input_type_inner(Parser *ps);

// [len]elem | int | float | bool | (t, t, ...)
static InputType *input_type(Parser *ps) {
  enter(ps);
  InputType *t = input_type_inner(ps);
  ps->nesting--;
  return t;
}

static InputType *input_type_inner(Parser *ps) {
  InputType *t = arena_alloc(ps->arena, sizeof *t);
  t->pos = ps->tok->pos;
  if (accept(ps, "[")) {
    t->kind = IT_VEC;
    t->len = expr(ps);
    expect(ps, "]");
    t->a = input_type(ps);
    return t;
  }
  if (accept(ps, "(")) {
    InputType *first = input_type(ps);
    if (!at(ps, ",")) unexpected(ps, "',' in a tuple type");
    PtrVec items = {0};
    ptrvec_push(ps->arena, &items, first);
    while (accept(ps, ",")) ptrvec_push(ps->arena, &items, input_type(ps));
    expect(ps, ")");
    InputType *r = items.data[items.len - 1];
    for (int i = items.len - 2; i >= 0; i--) {
      InputType *p = arena_alloc(ps->arena, sizeof *p);
      *p = (InputType){.kind = IT_PAIR, .pos = i == 0 ? t->pos : ((InputType *)items.data[i])->pos,
                       .a = items.data[i], .b = r};
      r = p;
    }
    return r;
  }
  static const char *const scalars[] = {"int", "float", "bool"};
  if (ps->tok->kind == TK_IDENT)
    for (int i = 0; i < 3; i++)
      if (ps->tok->len == (int)strlen(scalars[i]) &&
          memcmp(ps->tok->start, scalars[i], (size_t)ps->tok->len) == 0) {
        ps->tok++;
        t->kind = (InputTypeKind)i;
        return t;
      }
  unexpected(ps, "a type (int, float, bool, [size]type or a tuple)");
}

static Decl *new_decl(Parser *ps, DeclKind kind, const char *name, Pos pos) {
  Decl *d = arena_alloc(ps->arena, sizeof *d);
  d->kind = kind;
  d->name = name;
  d->pos = pos;
  return d;
}

static void declarations(Parser *ps, PtrVec *params, PtrVec *inputs, PtrVec *defs) {
  Program *prog = ps->prog;
  for (;;) {
    Token *t = ps->tok;
    if (t->kind == TK_EOF) break;
    if (prog->main)
      error_at(t->pos, at(ps, "main") ? "a program has exactly one 'main'; this is a second one"
                                      : "'main' must be the last declaration");
    if (accept(ps, "param")) {
      if (ps->tok->kind != TK_IDENT) unexpected(ps, "a parameter name");
      while (ps->tok->kind == TK_IDENT) {
        Pos pos = ps->tok->pos;
        Decl *d = new_decl(ps, D_PARAM, expect_ident(ps, "a name"), pos);
        d->index = params->len;
        ptrvec_push(ps->arena, params, d);
      }
    } else if (accept(ps, "input")) {
      Pos pos = ps->tok->pos;
      Decl *d = new_decl(ps, D_INPUT, expect_ident(ps, "an input name"), pos);
      expect(ps, ":");
      d->itype = input_type(ps);
      d->index = inputs->len;
      ptrvec_push(ps->arena, inputs, d);
    } else if (accept(ps, "def")) {
      Pos pos = ps->tok->pos;
      Decl *d = new_decl(ps, D_DEF, expect_ident(ps, "a definition name"), pos);
      Node **params;
      int n = param_list(ps, "=", &params);
      Pos eq = expect(ps, "=")->pos;
      d->body = lambda_chain(ps, eq, params, n, expr(ps));
      d->index = defs->len;
      ptrvec_push(ps->arena, defs, d);
    } else if (at(ps, "main")) {
      Decl *d = new_decl(ps, D_MAIN, "main", ps->tok->pos);
      ps->tok++;
      expect(ps, "=");
      d->body = expr(ps);
      prog->main = d;
    } else {
      unexpected(ps, prog->main ? "end of file" : "a declaration (param, input, def or main)");
    }
  }
  if (!prog->main) error_at(ps->tok->pos, "the program has no 'main = ...'");
}

//
// Name resolution.
//

typedef struct Scope {
  const char *name;      // bound name
  Node *binder;          // N_LAM or N_LET binding it
  struct Scope *outer;   // enclosing bindings
} Scope;

typedef struct Resolver {
  Arena *arena;
  Program *prog;
  Decl *current;   // the declaration being resolved
  bool sizes_only; // in an input's shape: only params and literals
} Resolver;

static const struct {
  const char *name;
  Builtin b;
} builtin_names[] = {
    {"map", B_MAP},         {"fold", B_FOLD},     {"reduce", B_FOLD},
    {"pair_map", B_PAIR_MAP}, {"c_prod", B_C_PROD}, {"prefix", B_PREFIX},
    {"scan", B_PREFIX},     {"iter", B_ITER},     {"inits", B_INITS},
    {"tails", B_TAILS},     {"redconcat", B_REDCONCAT}, {"length", B_LENGTH},
    {"entry", B_ENTRY},     {"hd", B_HD},         {"tl", B_TL},
    {"pair", B_PAIR},       {"fst", B_FST},       {"snd", B_SND},
    {"dummyvec", B_DUMMYVEC}, {"float", B_FLOAT},   {"iota", B_IOTA},
    {"zip", B_ZIP},         {"map2", B_MAP2},     {"split", B_SPLIT},
    {"merge", B_MERGE},     {"neighbours", B_NEIGHBOURS}, {"reverse", B_REVERSE},
    {"dh", B_DH},
};

static Decl *find_global(Program *prog, const char *name) {
  for (int i = 0; i < prog->nparams; i++)
    if (strcmp(prog->params[i]->name, name) == 0) return prog->params[i];
  for (int i = 0; i < prog->ninputs; i++)
    if (strcmp(prog->inputs[i]->name, name) == 0) return prog->inputs[i];
  for (int i = 0; i < prog->ndefs; i++)
    if (strcmp(prog->defs[i]->name, name) == 0) return prog->defs[i];
  return NULL;
}

static void resolve_global(Resolver *r, Node *n) {
  Decl *d = find_global(r->prog, n->name);
  Decl *cur = r->current;
  if (d && r->sizes_only && d->kind != D_PARAM)
    error_at(n->pos, "an input's shape may only use parameters and literals; '%s' is not a parameter", n->name);
  if (d && d->kind == D_DEF) {
    if (d == cur)
      error_at(n->pos, "'%s' refers to itself; VEC-BSP has no recursion", n->name);
    if (cur->kind == D_DEF && d->index > cur->index)
      error_at(n->pos, "'%s' is used before its definition (a def may use only earlier defs)", n->name);
  }
  if (d) {
    n->ref = d->kind == D_PARAM ? REF_PARAM : d->kind == D_INPUT ? REF_INPUT : REF_DEF;
    n->decl = d;
    return;
  }
  if (!r->sizes_only) {
    if (strcmp(n->name, "max") == 0 || strcmp(n->name, "min") == 0) {
      n->kind = N_OPFN;
      n->op = n->name[1] == 'a' ? OP_MAX : OP_MIN;
      return;
    }
    for (size_t i = 0; i < sizeof builtin_names / sizeof *builtin_names; i++)
      if (strcmp(builtin_names[i].name, n->name) == 0) {
        n->ref = REF_BUILTIN;
        n->builtin = builtin_names[i].b;
        return;
      }
  }
  error_at(n->pos, "unknown name '%s'", n->name);
}

static void resolve(Resolver *r, Node *n, Scope *sc) {
  switch (n->kind) {
  case N_INT: case N_FLOAT: case N_BOOL: case N_OPFN:
    return;
  case N_VAR:
    if (n->ref == REF_BUILTIN) return;  // fst and snd of a pattern, resolved when made
    for (Scope *s = sc; s; s = s->outer)
      if (strcmp(s->name, n->name) == 0) {
        n->ref = REF_LOCAL;
        n->binder = s->binder;
        return;
      }
    resolve_global(r, n);
    return;
  case N_LAM: case N_LET: {
    if (n->kind == N_LET) resolve(r, n->init, sc);
    Scope inner = {n->name, n, sc};
    resolve(r, n->body, &inner);
    return;
  }
  case N_IF: case N_IFS:
    resolve(r, n->cond, sc);
    resolve(r, n->then_, sc);
    resolve(r, n->else_, sc);
    return;
  case N_APP: case N_BINOP: case N_PAIR:
    resolve(r, n->lhs, sc);
    resolve(r, n->rhs, sc);
    return;
  case N_UNOP:
    resolve(r, n->lhs, sc);
    return;
  case N_VEC:
    for (int i = 0; i < n->nelems; i++) resolve(r, n->elems[i], sc);
    return;
  }
}

static void resolve_input_type(Resolver *r, InputType *t) {
  if (t->kind == IT_VEC) {
    resolve(r, t->len, NULL);
    resolve_input_type(r, t->a);
  } else if (t->kind == IT_PAIR) {
    resolve_input_type(r, t->a);
    resolve_input_type(r, t->b);
  }
}

static void check_unique_names(Program *prog) {
  Decl **all[] = {prog->params, prog->inputs, prog->defs};
  int counts[] = {prog->nparams, prog->ninputs, prog->ndefs};
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < counts[k]; i++) {
      Decl *d = all[k][i];
      if (find_global(prog, d->name) != d)
        error_at(d->pos, "'%s' is declared twice", d->name);
    }
}

static void resolve_program(Arena *a, Program *prog) {
  check_unique_names(prog);
  Resolver r = {.arena = a, .prog = prog};
  for (int i = 0; i < prog->ninputs; i++) {
    r.current = prog->inputs[i];
    r.sizes_only = true;
    resolve_input_type(&r, prog->inputs[i]->itype);
  }
  r.sizes_only = false;
  for (int i = 0; i < prog->ndefs; i++) {
    r.current = prog->defs[i];
    resolve(&r, prog->defs[i]->body, NULL);
  }
  r.current = prog->main;
  resolve(&r, prog->main->body, NULL);
}

// A parser at the first token of src, building a new (empty) program.
static Parser start_parser(Arena *a, const Source *src) {
  Program *prog = arena_alloc(a, sizeof *prog);
  prog->src = src;
  prog->arena = a;
  return (Parser){.arena = a, .src = src, .tok = lex(a, src).tok, .prog = prog};
}

Program *parse_program(Arena *a, const Source *src) {
  Parser ps = start_parser(a, src);
  Program *prog = ps.prog;
  PtrVec params = {0}, inputs = {0}, defs = {0};
  declarations(&ps, &params, &inputs, &defs);
  prog->params = (Decl **)params.data;
  prog->nparams = params.len;
  prog->inputs = (Decl **)inputs.data;
  prog->ninputs = inputs.len;
  prog->defs = (Decl **)defs.data;
  prog->ndefs = defs.len;
  resolve_program(a, prog);
  return prog;
}

Node *parse_expression(Arena *a, const Source *src) {
  Parser ps = start_parser(a, src);
  Node *n = expr(&ps);
  if (ps.tok->kind != TK_EOF) unexpected(&ps, "end of input");
  return n;
}
