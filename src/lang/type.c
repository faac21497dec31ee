// type.c: Hindley-Milner type inference with the VEC-BSP restrictions: no
// vectors of functions, data conditionals over data only, sizes are ints.
#include "lang/lang.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GENERIC_LEVEL = 1 << 30 };

typedef struct Infer {
  Arena *arena;
  Program *prog;
  Type **bound;   // by binder node id: type of the variable it binds
  int level;      // current let-nesting level
  int next_var;   // numbering for printing type variables
} Infer;

static Type int_type = {.kind = T_INT};
static Type float_type = {.kind = T_FLOAT};
static Type bool_type = {.kind = T_BOOL};

static Type *new_type(Infer *in, TypeKind kind, Type *a, Type *b) {
  Type *t = arena_alloc(in->arena, sizeof *t);
  t->kind = kind;
  t->a = a;
  t->b = b;
  return t;
}

static Type *fresh(Infer *in, unsigned cls) {
  Type *t = new_type(in, T_VAR, NULL, NULL);
  t->id = in->next_var++;
  t->cls = cls;
  t->level = in->level;
  return t;
}

static Type *fun(Infer *in, Type *a, Type *b) { return new_type(in, T_FUN, a, b); }
static Type *vec(Infer *in, Type *a) { return new_type(in, T_VEC, a, NULL); }
static Type *pair(Infer *in, Type *a, Type *b) { return new_type(in, T_PAIR, a, b); }

Type *type_resolve(Type *t) {
  while (t->kind == T_VAR && t->link) t = t->link;
  return t;
}

bool type_is_data(Type *t) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_FUN: return false;
  case T_PAIR: return type_is_data(t->a) && type_is_data(t->b);
  case T_VEC: return type_is_data(t->a);
  default: return true;
  }
}

//
// Printing.
//

// Type variables are named a, b, c, ... in order of appearance, shared by
// the types printed in one message.
typedef struct VarNames {
  Type *vars[64];  // variables named so far
  int count;
} VarNames;

// A variable restricted to numbers (an integer literal's, an operand of +)
// is printed as int, which it is unless something makes it a float.
static void print_var(FILE *out, Type *t, VarNames *names) {
  if ((t->cls & TC_SCALAR) == TC_NUM) {
    fputs("int", out);
    return;
  }
  int k = 0;
  while (k < names->count && names->vars[k] != t) k++;
  if (k == names->count && k < 64) names->vars[names->count++] = t;
  if (k < 26) fputc('a' + k, out);
  else fprintf(out, "t%d", k);
}

static void print_type(FILE *out, Type *t, int prec, VarNames *names) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_INT: fputs("int", out); return;
  case T_FLOAT: fputs("float", out); return;
  case T_BOOL: fputs("bool", out); return;
  case T_VAR: print_var(out, t, names); return;
  case T_PAIR:
    fputc('(', out);
    print_type(out, t->a, 0, names);
    fputs(", ", out);
    print_type(out, t->b, 0, names);
    fputc(')', out);
    return;
  case T_VEC:
    fputs(prec > 1 ? "(vec " : "vec ", out);
    print_type(out, t->a, 2, names);
    if (prec > 1) fputc(')', out);
    return;
  case T_FUN:
    if (prec > 0) fputc('(', out);
    print_type(out, t->a, 1, names);
    fputs(" -> ", out);
    print_type(out, t->b, 0, names);
    if (prec > 0) fputc(')', out);
    return;
  }
}

// The types printed one after the other into the arena, with one naming of
// their variables (a memory stream: a type can be thousands of levels deep).
static void types_to_strings(Arena *a, Type **types, char **strings, int n) {
  VarNames names = {0};
  for (int i = 0; i < n; i++) {
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) fatal("out of memory");
    print_type(out, types[i], 0, &names);
    if (fclose(out) != 0) fatal("out of memory");
    strings[i] = arena_strndup(a, text, len);
    free(text);
  }
}

char *type_to_string(Arena *a, Type *t) {
  char *s;
  types_to_strings(a, &t, &s, 1);
  return s;
}

//
// Unification. Type variables carry class constraints (which scalar kinds
// they may become, and whether they must be data); binding a variable
// checks and propagates them.
//

typedef enum { U_OK, U_MISMATCH, U_INFINITE, U_FUNCTION_IN_DATA } UnifyResult;

static bool occurs(Type *v, Type *t) {
  t = type_resolve(t);
  if (t == v) return true;
  if (t->kind == T_VAR) return false;
  return (t->a && occurs(v, t->a)) || (t->b && occurs(v, t->b));
}

// Makes t satisfy cls and lowers the level of its variables to level.
static UnifyResult constrain(Type *t, unsigned cls, int level) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_VAR:
    if ((t->cls & TC_SCALAR) && (cls & TC_SCALAR)) {
      if (!(t->cls & cls & TC_SCALAR)) return U_MISMATCH;
      t->cls = (t->cls & cls & TC_SCALAR) | ((t->cls | cls) & TC_DATA);
    } else {
      t->cls |= cls;
    }
    if (t->level > level) t->level = level;
    return U_OK;
  case T_INT: return !(cls & TC_SCALAR) || (cls & TC_INT) ? U_OK : U_MISMATCH;
  case T_FLOAT: return !(cls & TC_SCALAR) || (cls & TC_FLOAT) ? U_OK : U_MISMATCH;
  case T_BOOL: return !(cls & TC_SCALAR) || (cls & TC_BOOL) ? U_OK : U_MISMATCH;
  case T_FUN:
    if (cls & TC_DATA) return U_FUNCTION_IN_DATA;
    if (cls & TC_SCALAR) return U_MISMATCH;
    break;
  case T_PAIR: case T_VEC:
    if (cls & TC_SCALAR) return U_MISMATCH;
    break;
  }
  UnifyResult r = constrain(t->a, cls & TC_DATA, level);
  if (r == U_OK && t->b) r = constrain(t->b, cls & TC_DATA, level);
  return r;
}

static UnifyResult unify(Type *x, Type *y) {
  x = type_resolve(x);
  y = type_resolve(y);
  if (x == y) return U_OK;
  if (y->kind == T_VAR && x->kind != T_VAR) {
    Type *t = x; x = y; y = t;
  }
  if (x->kind == T_VAR) {
    if (occurs(x, y)) return U_INFINITE;
    UnifyResult r = constrain(y, x->cls, x->level);
    if (r != U_OK) return r;
    x->link = y;
    return U_OK;
  }
  if (x->kind != y->kind) return U_MISMATCH;
  switch (x->kind) {
  case T_PAIR: case T_FUN: {
    UnifyResult r = unify(x->a, y->a);
    return r != U_OK ? r : unify(x->b, y->b);
  }
  case T_VEC: return unify(x->a, y->a);
  default: return U_OK;
  }
}

// Unifies and reports failure at pos as "WHAT: expected X, found Y".
// The message shows both types as they were before unify bound any of
// their variables, so they are printed first; into a scratch arena, as
// most unifications succeed and a type can be large.
// The scalar kinds a class allows, in words ("int or float"), or NULL for any.
static const char *class_words(unsigned cls) {
  switch (cls & TC_SCALAR) {
  case TC_NUM: return "int or float";
  case TC_INT: return "int";
  case TC_FLOAT: return "float";
  case TC_BOOL: return "bool";
  case TC_INT | TC_BOOL: return "int or bool";
  case TC_FLOAT | TC_BOOL: return "float or bool";
  default: return NULL;
  }
}

// The types as a message shows them: a type variable that must be a
// scalar of some kinds is named by them, not by its letter, when it is the
// whole type.
static void message_types(Arena *a, Type **types, char **strings, int n) {
  types_to_strings(a, types, strings, n);
  for (int i = 0; i < n; i++) {
    Type *t = type_resolve(types[i]);
    const char *words = t->kind == T_VAR ? class_words(t->cls) : NULL;
    if (words) strings[i] = arena_strndup(a, words, strlen(words));
  }
}

static void unify_at(Infer *in, Pos pos, Type *expected, Type *found, const char *what) {
  Arena *scratch = arena_new();
  char *s[2];
  message_types(scratch, (Type *[]){expected, found}, s, 2);
  UnifyResult r = unify(expected, found);
  char *e = NULL, *f = NULL;
  if (r != U_OK)
    e = arena_strndup(in->arena, s[0], strlen(s[0])), f = arena_strndup(in->arena, s[1], strlen(s[1]));
  arena_free(scratch);
  switch (r) {
  case U_OK: return;
  case U_MISMATCH:
    error_at(pos, "type mismatch %s: expected %s, found %s", what, e, f);
  case U_INFINITE:
    error_at(pos, "type mismatch %s: %s and %s would make an infinite type", what, e, f);
  case U_FUNCTION_IN_DATA:
    error_at(pos, "%s: a function cannot be data here (no vectors of functions, "
                  "inputs or data conditionals over functions); expected %s, found %s",
             what, e, f);
  }
}

static void require_class(Infer *in, Pos pos, Type *t, unsigned cls, const char *what) {
  if (constrain(t, cls, GENERIC_LEVEL) == U_OK) return;
  const char *kinds = (cls & TC_SCALAR) == TC_NUM ? "int or float"
                    : (cls & TC_SCALAR) == TC_SCALAR ? "int, float or bool"
                    : (cls & TC_SCALAR) == TC_INT ? "int" : "data";
  char *found;
  message_types(in->arena, &t, &found, 1);
  error_at(pos, "%s must be %s, found %s", what, kinds, found);
}

//
// Generalisation and instantiation (levels, as in OCaml).
//

static void generalize(Infer *in, Type *t) {
  t = type_resolve(t);
  if (t->kind == T_VAR) {
    if (t->level > in->level) t->level = GENERIC_LEVEL;
    return;
  }
  if (t->a) generalize(in, t->a);
  if (t->b) generalize(in, t->b);
}

typedef struct Subst {
  Type *from, *to;
  struct Subst *next;
} Subst;

static Type *instantiate_rec(Infer *in, Type *t, Subst **s) {
  t = type_resolve(t);
  if (t->kind == T_VAR) {
    if (t->level != GENERIC_LEVEL) return t;
    for (Subst *p = *s; p; p = p->next)
      if (p->from == t) return p->to;
    Subst *p = arena_alloc(in->arena, sizeof *p);
    *p = (Subst){t, fresh(in, t->cls), *s};
    *s = p;
    return p->to;
  }
  if (!t->a) return t;
  Type *a = instantiate_rec(in, t->a, s);
  Type *b = t->b ? instantiate_rec(in, t->b, s) : NULL;
  return new_type(in, t->kind, a, b);
}

static Type *instantiate(Infer *in, Type *t) {
  Subst *s = NULL;
  return instantiate_rec(in, t, &s);
}

//
// Types of the builtins and operators, fresh at every use.
//

static Type *builtin_type(Infer *in, Builtin b) {
  Type *a = fresh(in, TC_DATA), *c = fresh(in, TC_DATA), *d = fresh(in, TC_DATA);
  switch (b) {
  case B_MAP: return fun(in, fun(in, a, c), fun(in, vec(in, a), vec(in, c)));
  case B_FOLD: case B_PREFIX: {
    Type *op = fun(in, a, fun(in, a, a));
    return fun(in, op, fun(in, vec(in, a), b == B_FOLD ? a : vec(in, a)));
  }
  case B_PAIR_MAP:
    return fun(in, fun(in, a, fun(in, c, d)),
               fun(in, pair(in, vec(in, a), vec(in, c)), vec(in, d)));
  case B_C_PROD:
    return fun(in, fun(in, a, fun(in, c, d)),
               fun(in, vec(in, a), fun(in, vec(in, c), vec(in, vec(in, d)))));
  case B_ITER: return fun(in, fun(in, a, a), fun(in, a, fun(in, &int_type, a)));
  case B_INITS: case B_TAILS: return fun(in, vec(in, a), vec(in, vec(in, a)));
  case B_REDCONCAT: return fun(in, vec(in, vec(in, a)), vec(in, a));
  case B_LENGTH: return fun(in, vec(in, a), &int_type);
  case B_ENTRY: return fun(in, vec(in, a), fun(in, &int_type, a));
  case B_HD: return fun(in, vec(in, a), a);
  case B_TL: return fun(in, vec(in, a), vec(in, a));
  case B_PAIR: {
    Type *x = fresh(in, 0), *y = fresh(in, 0);
    return fun(in, x, fun(in, y, pair(in, x, y)));
  }
  case B_FST: case B_SND: {
    Type *x = fresh(in, 0), *y = fresh(in, 0);
    return fun(in, pair(in, x, y), b == B_FST ? x : y);
  }
  case B_DUMMYVEC: return fun(in, pair(in, &int_type, a), vec(in, a));
  case B_FLOAT: return fun(in, &int_type, &float_type);
  case B_ZIP: return fun(in, vec(in, a), fun(in, vec(in, c), vec(in, pair(in, a, c))));
  case B_MAP2: return fun(in, fun(in, a, fun(in, c, d)), fun(in, vec(in, a), fun(in, vec(in, c), vec(in, d))));
  case B_SPLIT: return fun(in, &int_type, fun(in, vec(in, a), vec(in, vec(in, a))));
  case B_MERGE: {  // of numbers, compared with <=
    Type *e = fresh(in, TC_NUM | TC_DATA);
    return fun(in, vec(in, e), fun(in, vec(in, e), vec(in, e)));
  }
  case B_NEIGHBOURS: return fun(in, a, fun(in, a, fun(in, vec(in, a), vec(in, pair(in, a, pair(in, a, a))))));
  case B_REVERSE: return fun(in, vec(in, a), vec(in, a));
  case B_DH: {
    Type *op = fun(in, a, fun(in, a, a));
    return fun(in, op, fun(in, fun(in, a, fun(in, a, a)), fun(in, vec(in, a), vec(in, a))));
  }
  case B_IOTA: return fun(in, &int_type, vec(in, &int_type));
  case B_COUNT_: break;
  }
  return NULL;
}

// Operand class and result type of an operator applied to operands of type t.
static unsigned op_class(Op op) {
  switch (op) {
  case OP_MOD: return TC_INT;
  case OP_AND: case OP_OR: case OP_NOT: return TC_BOOL;
  case OP_EQ: case OP_NE: return TC_SCALAR;
  default: return TC_NUM;
  }
}

static Type *op_result(Op op, Type *operand) {
  switch (op) {
  case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
    return &bool_type;
  default: return operand;
  }
}

static Type *opfn_type(Infer *in, Op op) {
  Type *a = fresh(in, op_class(op) | TC_DATA);
  return fun(in, a, fun(in, a, op_result(op, a)));
}

//
// Inference.
//

static Type *infer(Infer *in, Node *n);

// An integer literal is an int, or a float where its context needs one
// (7 / 2.0, [1.5, 2]): a number type of its own, decided by inference
// (int when nothing decides). It has that one type wherever it is used, so
// it is never generalised: a def using it at float and at int is an error,
// as if it were written once per type (docs/language.md, "Types").
static Type *int_literal(Infer *in) {
  Type *t = fresh(in, TC_NUM | TC_DATA);
  t->level = 0;
  return t;
}

// After inference: the integer literals that are floats are float literals.
static void float_literal(Node *n, void *unused) {
  (void)unused;
  if (n->kind != N_INT || !n->ty || type_resolve(n->ty)->kind != T_FLOAT) return;
  n->kind = N_FLOAT;
  n->fval = (double)n->ival;
}

static Type *infer_var(Infer *in, Node *n) {
  switch (n->ref) {
  case REF_LOCAL: return instantiate(in, in->bound[n->binder->id]);
  case REF_PARAM: return &int_type;
  case REF_INPUT: case REF_DEF: return instantiate(in, n->decl->type);
  case REF_BUILTIN: return builtin_type(in, n->builtin);
  }
  return NULL;
}

// Types nest at most MAX_TYPE_DEPTH levels and have at most MAX_TYPE_PARTS
// parts written out: definitions that apply each other can double a type
// at each step (def g1 x = g0 (g0 x)), and every pass over a type (unify,
// printing) recurses into it.
enum { MAX_TYPE_DEPTH = 1000, MAX_TYPE_PARTS = 100000 };

static bool too_large(Type *t, int depth_left, long *parts_left) {
  t = type_resolve(t);
  if (--*parts_left < 0 || depth_left < 0) return true;
  if (t->kind != T_PAIR && t->kind != T_VEC && t->kind != T_FUN) return false;
  return too_large(t->a, depth_left - 1, parts_left) || (t->b && too_large(t->b, depth_left - 1, parts_left));
}

// An application's result is where types grow: it is checked before
// anything passes over it again.
static Type *checked_size(Node *n, Type *t) {
  long parts = MAX_TYPE_PARTS;
  if (too_large(t, MAX_TYPE_DEPTH, &parts))
    error_at(n->pos, "the type of this application is too large (more than %d levels or %d parts)",
             MAX_TYPE_DEPTH, MAX_TYPE_PARTS);
  return t;
}

static Type *infer_app(Infer *in, Node *n) {
  Type *tf = infer(in, n->lhs);
  Type *ta = infer(in, n->rhs);
  Type *r = type_resolve(tf);
  if (r->kind == T_FUN) {
    unify_at(in, n->rhs->pos, r->a, ta, "in this argument");
    return checked_size(n, r->b);
  }
  if (r->kind != T_VAR || (r->cls & TC_SCALAR)) {
    char *type;
    message_types(in->arena, &tf, &type, 1);
    error_at(n->lhs->pos, "this is applied to an argument but is not a function (it has type %s)", type);
  }
  Type *res = fresh(in, 0);
  unify_at(in, n->pos, tf, fun(in, ta, res), "in this application");
  return checked_size(n, res);
}

static Type *infer_let(Infer *in, Node *n) {
  in->level++;
  Type *t = infer(in, n->init);
  in->level--;
  generalize(in, t);
  in->bound[n->id] = t;
  return infer(in, n->body);
}

static Type *infer_binop(Infer *in, Node *n) {
  Type *a = infer(in, n->lhs);
  Type *b = infer(in, n->rhs);
  const char *name = op_name(n->op);
  char what[64];
  snprintf(what, sizeof what, "the operands of '%s'", name);
  require_class(in, n->lhs->pos, a, op_class(n->op), what);
  require_class(in, n->rhs->pos, b, op_class(n->op), what);
  unify_at(in, n->rhs->pos, a, b, "between the operands");
  return op_result(n->op, a);
}

static Type *infer_vec(Infer *in, Node *n) {
  Type *elem = fresh(in, TC_DATA);
  for (int i = 0; i < n->nelems; i++)
    unify_at(in, n->elems[i]->pos, elem, infer(in, n->elems[i]),
             i == 0 ? "for a vector element" : "between vector elements");
  return vec(in, elem);
}

static Type *infer_node(Infer *in, Node *n) {
  switch (n->kind) {
  case N_INT: return int_literal(in);
  case N_FLOAT: return &float_type;
  case N_BOOL: return &bool_type;
  case N_VAR: return infer_var(in, n);
  case N_OPFN: return opfn_type(in, n->op);
  case N_LAM: {
    Type *param = fresh(in, 0);
    in->bound[n->id] = param;
    return fun(in, param, infer(in, n->body));
  }
  case N_APP: return infer_app(in, n);
  case N_LET: return infer_let(in, n);
  case N_IF: {
    unify_at(in, n->cond->pos, &bool_type, infer(in, n->cond), "in the condition of 'if'");
    Type *t = infer(in, n->then_);
    require_class(in, n->then_->pos, t, TC_DATA, "the branches of a data conditional 'if'");
    unify_at(in, n->else_->pos, t, infer(in, n->else_), "between the branches of 'if'");
    return t;
  }
  case N_IFS: {
    unify_at(in, n->cond->pos, &int_type, infer(in, n->cond),
             "in the condition of 'ifs' (a size)");
    Type *t = infer(in, n->then_);
    unify_at(in, n->else_->pos, t, infer(in, n->else_), "between the branches of 'ifs'");
    return t;
  }
  case N_BINOP: return infer_binop(in, n);
  case N_UNOP: {
    Type *a = infer(in, n->lhs);
    require_class(in, n->lhs->pos, a, op_class(n->op),
                  n->op == OP_NOT ? "the operand of 'not'" : "the operand of '-'");
    return a;
  }
  case N_PAIR: {  // left to right, as everything is read: C leaves the order of arguments open
    Type *a = infer(in, n->lhs);
    return pair(in, a, infer(in, n->rhs));
  }
  case N_VEC: return infer_vec(in, n);
  }
  return NULL;
}

static Type *infer(Infer *in, Node *n) { return n->ty = infer_node(in, n); }

//
// Inputs, defaulting and the driver.
//

// An input's length is read before anything runs, by the interpreter and
// by the generated code alike: integer literals, parameters, unary minus
// and + - * / mod, nothing else.
static void require_length_form(Node *n) {
  bool ok = n->kind == N_INT || (n->kind == N_VAR && n->ref == REF_PARAM) ||
            (n->kind == N_UNOP && n->op == OP_NEG) ||
            (n->kind == N_BINOP && (n->op == OP_ADD || n->op == OP_SUB || n->op == OP_MUL || n->op == OP_DIV ||
                                    n->op == OP_MOD));
  if (!ok)
    error_at(n->pos, "an input's length is made of integer literals, parameters, unary - and + - * / %%, "
                     "nothing else");
  if (n->kind == N_UNOP || n->kind == N_BINOP) require_length_form(n->lhs);
  if (n->kind == N_BINOP) require_length_form(n->rhs);
}

static Type *input_type_of(Infer *in, InputType *it) {
  switch (it->kind) {
  case IT_INT: return &int_type;
  case IT_FLOAT: return &float_type;
  case IT_BOOL: return &bool_type;
  case IT_PAIR: return pair(in, input_type_of(in, it->a), input_type_of(in, it->b));
  case IT_VEC:
    require_length_form(it->len);
    unify_at(in, it->len->pos, &int_type, infer(in, it->len), "in a vector length");
    return vec(in, input_type_of(in, it->a));
  }
  return NULL;
}

// Unconstrained or numeric variables left in a closed type become int.
static void default_vars(Type *t) {
  t = type_resolve(t);
  if (t->kind == T_VAR) {
    t->link = (t->cls & TC_SCALAR) == TC_BOOL ? &bool_type : &int_type;
    return;
  }
  if (t->a) default_vars(t->a);
  if (t->b) default_vars(t->b);
}

static void default_node_types(Node *n, bool inside_generic) {
  if (!n) return;
  if (n->ty && !inside_generic) default_vars(n->ty);
  default_node_types(n->lhs, inside_generic);
  default_node_types(n->rhs, inside_generic);
  default_node_types(n->body, inside_generic);
  default_node_types(n->init, inside_generic);
  default_node_types(n->cond, inside_generic);
  default_node_types(n->then_, inside_generic);
  default_node_types(n->else_, inside_generic);
  for (int i = 0; i < n->nelems; i++) default_node_types(n->elems[i], inside_generic);
}

void typecheck_program(Program *prog) {
  Infer in = {.arena = prog->arena, .prog = prog};
  in.bound = arena_calloc(prog->arena, (size_t)prog->nnodes + 1, sizeof *in.bound);
  for (int i = 0; i < prog->ninputs; i++) {
    Decl *d = prog->inputs[i];
    d->type = input_type_of(&in, d->itype);
  }
  for (int i = 0; i < prog->ndefs; i++) {
    Decl *d = prog->defs[i];
    in.level = 1;
    d->type = infer(&in, d->body);
    in.level = 0;
    generalize(&in, d->type);
  }
  in.level = 0;
  Type *t = infer(&in, prog->main->body);
  if (!type_is_data(t))
    error_at(prog->main->body->pos, "'main' must be data, but it is a function of type %s",
             type_to_string(prog->arena, t));
  prog->main->type = t;
  default_node_types(prog->main->body, false);
  for (int i = 0; i < prog->ndefs; i++) node_visit(prog->defs[i]->body, float_literal, NULL);
  node_visit(prog->main->body, float_literal, NULL);
}
