// print.c: a tree back to source text the parser reads again, with the
// parentheses precedence needs, and a hook that may print any node as
// other text (the derivation assistant's rewrites print a program with
// one subtree replaced).
#include "lang/lang.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Printer {
  Arena *arena;
  PrintHook hook;
  void *ctx;
} Printer;

// How loosely an expression binds: it needs parentheses where a tighter
// one is expected (an argument must be an atom, an operand an application).
typedef enum { ATOM, APPLICATION, OPERATION, LOOSE } Level;

static char *expr(Printer *pr, Node *n, Level allowed);

static char *literal_float(Arena *a, double f) {
  char buf[64];
  format_float(buf, sizeof buf, f);
  return arena_strndup(a, buf, strlen(buf));
}

static Level level(Node *n) {
  switch (n->kind) {
  case N_APP: return APPLICATION;
  case N_BINOP: return n->op == OP_MAX || n->op == OP_MIN ? APPLICATION : OPERATION;
  case N_UNOP: return OPERATION;
  case N_LAM: case N_LET: case N_IF: case N_IFS: return LOOSE;
  case N_INT: case N_FLOAT: return n->kind == N_INT ? (n->ival < 0 ? OPERATION : ATOM) : (n->fval < 0 ? OPERATION : ATOM);
  default: return ATOM;
  }
}

// The body of a binder past the lets that take its pattern apart.
static Node *past_pattern(Node *n) {
  while (n->kind == N_LET && n->destructures) n = n->body;
  return n;
}

// n itself, at its own level.
static char *bare(Printer *pr, Node *n) {
  Arena *a = pr->arena;
  switch (n->kind) {
  case N_INT: return arena_printf(a, "%lld", (long long)n->ival);
  case N_FLOAT: return literal_float(a, n->fval);
  case N_BOOL: return n->ival ? "true" : "false";
  case N_VAR: return arena_printf(a, "%s", n->name);
  case N_OPFN:
    return n->op == OP_MAX || n->op == OP_MIN ? arena_printf(a, "%s", op_name(n->op))
                                              : arena_printf(a, "(%s)", op_name(n->op));
  case N_LAM: {  // a pattern's text is its binder's name
    char *params = arena_printf(a, "%s", n->name);
    Node *body = past_pattern(n->body);
    for (; body->kind == N_LAM && !(pr->hook && pr->hook(pr->ctx, body)); body = past_pattern(body->body))
      params = arena_printf(a, "%s %s", params, body->name);
    return arena_printf(a, "\\%s -> %s", params, expr(pr, body, LOOSE));
  }
  case N_APP: return arena_printf(a, "%s %s", expr(pr, n->lhs, APPLICATION), expr(pr, n->rhs, ATOM));
  case N_LET:
    if (n->destructures) return bare(pr, past_pattern(n));
    return arena_printf(a, "let %s = %s in %s", n->name, expr(pr, n->init, LOOSE), expr(pr, past_pattern(n->body), LOOSE));
  case N_IF: case N_IFS:
    return arena_printf(a, "%s %s then %s else %s", n->kind == N_IF ? "if" : "ifs", expr(pr, n->cond, LOOSE),
                        expr(pr, n->then_, LOOSE), expr(pr, n->else_, LOOSE));
  case N_BINOP:
    if (n->op == OP_MAX || n->op == OP_MIN)
      return arena_printf(a, "%s %s %s", op_name(n->op), expr(pr, n->lhs, ATOM), expr(pr, n->rhs, ATOM));
    return arena_printf(a, "%s %s %s", expr(pr, n->lhs, APPLICATION), op_name(n->op), expr(pr, n->rhs, APPLICATION));
  case N_UNOP: return arena_printf(a, n->op == OP_NEG ? "-%s" : "not %s", expr(pr, n->lhs, ATOM));
  case N_PAIR: return arena_printf(a, "(%s, %s)", expr(pr, n->lhs, LOOSE), expr(pr, n->rhs, LOOSE));
  case N_VEC: {
    char *text = "[";
    for (int i = 0; i < n->nelems; i++)
      text = arena_printf(a, "%s%s%s", text, i ? ", " : "", expr(pr, n->elems[i], LOOSE));
    return arena_printf(a, "%s]", text);
  }
  }
  return "?";
}

// Does the "(" that opens text close at its end (so that the parentheses
// wrap all of it)?
static bool wrapped(const char *text) {
  size_t len = strlen(text);
  if (len < 2 || text[0] != '(' || text[len - 1] != ')') return false;
  int depth = 0;
  for (size_t i = 0; i < len; i++) {
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (depth == 0 && i + 1 < len) return false;
  }
  return true;
}

// n where an expression of level allowed may stand: in parentheses if it
// binds more loosely. A hook's text is an atom, inserted as it is, less
// its outer parentheses where anything may stand.
static char *expr(Printer *pr, Node *n, Level allowed) {
  const char *hooked = pr->hook ? pr->hook(pr->ctx, n) : NULL;
  if (hooked && allowed == LOOSE && wrapped(hooked)) return arena_strndup(pr->arena, hooked + 1, strlen(hooked) - 2);
  if (hooked) return arena_printf(pr->arena, "%s", hooked);
  char *text = bare(pr, n);
  return level(n) > allowed ? arena_printf(pr->arena, "(%s)", text) : text;
}

char *print_expr(Arena *a, Node *n, PrintHook hook, void *ctx) {
  Printer pr = {a, hook, ctx};
  return expr(&pr, n, ATOM);
}

char *print_head(Arena *a, Node *n) {
  Printer pr = {a, NULL, NULL};
  return expr(&pr, n, APPLICATION);
}

static char *input_type(Printer *pr, InputType *t) {
  switch (t->kind) {
  case IT_INT: return "int";
  case IT_FLOAT: return "float";
  case IT_BOOL: return "bool";
  case IT_PAIR: return arena_printf(pr->arena, "(%s, %s)", input_type(pr, t->a), input_type(pr, t->b));
  case IT_VEC: return arena_printf(pr->arena, "[%s]%s", expr(pr, t->len, LOOSE), input_type(pr, t->a));
  }
  return "?";
}

char *print_program(Arena *a, Program *prog, PrintHook hook, void *ctx) {
  Printer pr = {a, hook, ctx};
  char *text = "";
  if (prog->nparams) {
    text = "param";
    for (int i = 0; i < prog->nparams; i++) text = arena_printf(a, "%s %s", text, prog->params[i]->name);
    text = arena_printf(a, "%s\n", text);
  }
  for (int i = 0; i < prog->ninputs; i++)
    text = arena_printf(a, "%sinput %s : %s\n", text, prog->inputs[i]->name, input_type(&pr, prog->inputs[i]->itype));
  for (int i = 0; i < prog->ndefs; i++)
    text = arena_printf(a, "%sdef %s = %s\n", text, prog->defs[i]->name, expr(&pr, prog->defs[i]->body, LOOSE));
  return arena_printf(a, "%smain = %s\n", text, expr(&pr, prog->main->body, LOOSE));
}
