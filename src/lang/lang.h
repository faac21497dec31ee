// lang.h: the VEC-BSP front end: tokens, syntax tree, parser, name
// resolution and type inference.
#ifndef VECBSP_LANG_H
#define VECBSP_LANG_H

#include "util/util.h"

//
// lex.c
//

typedef enum {
  TK_INT,      // 123
  TK_FLOAT,    // 1.5, 2e10
  TK_IDENT,    // names
  TK_KEYWORD,  // param input def main let in if then else ifs true false not
  TK_PUNCT,    // ( ) [ ] , : = \ -> and the operators
  TK_EOF,
} TokenKind;

typedef struct Token {
  TokenKind kind;     // what it is
  Pos pos;            // where it starts
  const char *start;  // its text in the source
  int len;            // length of that text
  int64_t ival;       // value of TK_INT
  double fval;        // value of TK_FLOAT
} Token;

typedef struct TokenList {
  Token *tok;  // tokens, ending with TK_EOF
  int len;     // count including TK_EOF
} TokenList;

TokenList lex(Arena *a, const Source *src);
bool tok_is(const Token *t, const char *s);  // keyword or punctuator s?

//
// The syntax tree.
//

// Primitive scalar operations (binary operators, unary operators, max/min).
typedef enum {
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
  OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
  OP_AND, OP_OR, OP_MAX, OP_MIN,
  OP_NEG, OP_NOT, OP_FLOAT,  // unary: negation, not, an int as a float (the builtin float)
} Op;

const char *op_name(Op op);  // "+", "max", ...
bool op_is_unary(Op op);

// Builtin functions other than the scalar operations.
typedef enum {
  B_MAP, B_FOLD, B_PAIR_MAP, B_C_PROD, B_PREFIX, B_ITER,
  B_INITS, B_TAILS, B_REDCONCAT, B_LENGTH, B_ENTRY, B_HD, B_TL,
  B_PAIR, B_FST, B_SND, B_DUMMYVEC, B_FLOAT, B_IOTA,
  B_ZIP, B_MAP2, B_SPLIT, B_MERGE, B_NEIGHBOURS, B_REVERSE, B_DH,
  B_COUNT_
} Builtin;

const char *builtin_name(Builtin b);
int builtin_arity(Builtin b);  // arguments before it does its work

typedef enum {
  N_INT,    // integer literal: ival
  N_FLOAT,  // float literal: fval
  N_BOOL,   // true/false: ival
  N_VAR,    // a name: see ref
  N_OPFN,   // an operator as a function value, (+) or max: op
  N_LAM,    // \name -> body (one parameter; \x y -> e nests)
  N_APP,    // fn arg
  N_LET,    // let name = init in body
  N_IF,     // if cond then then_ else else_ (data conditional)
  N_IFS,    // ifs cond then then_ else else_ (shape conditional)
  N_BINOP,  // lhs op rhs
  N_UNOP,   // op lhs
  N_PAIR,   // (lhs, rhs)
  N_VEC,    // [elems...]
} NodeKind;

typedef enum {
  REF_LOCAL,    // bound by a lambda or let: binder
  REF_PARAM,    // a size parameter: decl
  REF_INPUT,    // an input: decl
  REF_DEF,      // a top-level def: decl
  REF_BUILTIN,  // a builtin: builtin
} RefKind;

typedef struct Node Node;
typedef struct Decl Decl;
typedef struct Type Type;

struct Node {
  NodeKind kind;      // which of the forms above
  Pos pos;            // first character (for N_APP: the applied function's)
  Type *ty;           // inferred type (after type inference)
  int64_t ival;       // N_INT, N_BOOL
  double fval;        // N_FLOAT
  Op op;              // N_OPFN, N_BINOP, N_UNOP
  const char *name;   // N_VAR, N_LAM (parameter), N_LET (bound name)
  RefKind ref;        // N_VAR: what the name refers to
  Node *binder;       // N_VAR with REF_LOCAL: the N_LAM or N_LET binding it
  Decl *decl;         // N_VAR with REF_PARAM/INPUT/DEF
  Builtin builtin;    // N_VAR with REF_BUILTIN
  Node *lhs, *rhs;    // N_BINOP, N_UNOP (lhs), N_PAIR; N_APP: lhs=fn, rhs=arg
  Node *body;         // N_LAM, N_LET
  Node *init;         // N_LET: bound expression
  Node *cond, *then_, *else_;  // N_IF, N_IFS
  Node **elems;       // N_VEC
  int nelems;         // N_VEC
  int id;             // unique per program, for tables indexed by node
  int depth;          // height of the subtree (bounded, so later passes can recurse)
  bool pattern;       // N_LAM, N_LET: binds a pair pattern, whose text is name; the
                      // lets that take it apart (destructures) come first in its body
  bool destructures;  // N_LET: made from a pattern, binding one of its names
};

// The declared type of an input, with sizes (e.g. [m][n]int).
typedef enum { IT_INT, IT_FLOAT, IT_BOOL, IT_PAIR, IT_VEC } InputTypeKind;
typedef struct InputType InputType;
struct InputType {
  InputTypeKind kind;     // scalar, pair or vector
  Pos pos;                // where it is written
  InputType *a, *b;       // IT_PAIR: components; IT_VEC: a = element type
  Node *len;              // IT_VEC: length, an expression over params and literals
};

typedef enum { D_PARAM, D_INPUT, D_DEF, D_MAIN } DeclKind;

struct Decl {
  DeclKind kind;      // what it declares
  const char *name;   // declared name ("main" for main)
  Pos pos;            // where the name is written
  Node *body;         // D_DEF, D_MAIN: the expression (parameters as lambdas)
  InputType *itype;   // D_INPUT: declared type
  int index;          // position among the declarations of its kind
  Type *type;         // inferred type; for D_DEF a generic type scheme
};

typedef struct Program {
  const Source *src;  // the text it was parsed from
  Decl **params;      // size parameters in declaration order
  int nparams;
  Decl **inputs;      // inputs in declaration order
  int ninputs;
  Decl **defs;        // defs in declaration order
  int ndefs;
  Decl *main;         // the main expression
  int nnodes;         // Node ids are 0..nnodes-1
  Arena *arena;       // owns everything above
  struct IrProgram *ir;  // its IR, lowered once on first use (ir/lower.c)
} Program;

//
// parse.c: text to tree; names resolved, errors at their position.
//

Program *parse_program(Arena *a, const Source *src);
// An expression alone (used for literals given on the command line).
Node *parse_expression(Arena *a, const Source *src);

//
// tree.c: walking the tree.
//

// Child i of n (operands, then a vector literal's elements), NULL past the last.
Node *node_kid(const Node *n, int i);
// Calls visit on n and every node below it, parents first.
void node_visit(Node *n, void (*visit)(Node *n, void *ctx), void *ctx);
// Is n the builtin b applied to exactly nargs arguments? They go to args.
bool node_applies(const Node *n, Builtin b, int nargs, Node **args);
// Is x n or a node below it (a binder inside a subtree, say)?
bool node_within(const Node *n, const Node *x);

//
// print.c: a tree back to source text, with the parentheses precedence needs.
//

// The text to print for n instead of n itself, or NULL to print n as it is.
typedef const char *(*PrintHook)(void *ctx, Node *n);
char *print_expr(Arena *a, Node *n, PrintHook hook, void *ctx);  // an atom: in parentheses if compound
char *print_head(Arena *a, Node *n);  // the function of an application: `fold max`, not `(fold max)`
// The whole program: params, inputs as declared, defs, main.
char *print_program(Arena *a, Program *prog, PrintHook hook, void *ctx);

//
// type.c: Hindley-Milner inference with the VEC-BSP restrictions.
//

typedef enum { T_INT, T_FLOAT, T_BOOL, T_PAIR, T_VEC, T_FUN, T_VAR } TypeKind;

struct Type {
  TypeKind kind;   // constructor, or T_VAR
  Type *a, *b;     // T_PAIR: components; T_VEC: a = element; T_FUN: a -> b
  Type *link;      // T_VAR: the type it was unified with, or NULL
  int id;          // T_VAR: number for printing
  unsigned cls;    // T_VAR: TC_* constraints on what it may become
  int level;       // T_VAR: let-nesting level, GENERIC_LEVEL when quantified
};

enum {
  TC_INT = 1, TC_FLOAT = 2, TC_BOOL = 4,   // scalar kinds allowed
  TC_SCALAR = TC_INT | TC_FLOAT | TC_BOOL,
  TC_NUM = TC_INT | TC_FLOAT,
  TC_DATA = 8,                            // may not contain a function
};

void typecheck_program(Program *prog);
Type *type_resolve(Type *t);           // follow links
bool type_is_data(Type *t);            // contains no function
char *type_to_string(Arena *a, Type *t);

//
// sizes.c: data never decides a shape.
//

// Checks iter counts, dummyvec lengths and ifs conditions; returns the type
// of main as printed by `vecbsp check` (with sz for sizes).
char *check_sizes(Program *prog);

//
// check.c: the front end in one call.
//

// Parses, infers types and checks sizes; main_type (if not NULL) receives
// main's type as `vecbsp check` prints it. Errors are diagnostics.
Program *program_check(Arena *a, const Source *src, char **main_type);

#endif
