// ops.c: names and arities of the operators and builtins.
#include "lang/lang.h"

const char *op_name(Op op) {
  static const char *const names[] = {
      [OP_ADD] = "+",  [OP_SUB] = "-",  [OP_MUL] = "*",  [OP_DIV] = "/",
      [OP_MOD] = "%",  [OP_EQ] = "==",  [OP_NE] = "!=",  [OP_LT] = "<",
      [OP_LE] = "<=",  [OP_GT] = ">",   [OP_GE] = ">=",  [OP_AND] = "&&",
      [OP_OR] = "||",  [OP_MAX] = "max", [OP_MIN] = "min", [OP_NEG] = "-",
      [OP_NOT] = "not", [OP_FLOAT] = "float",
  };
  return names[op];
}

bool op_is_unary(Op op) { return op == OP_NEG || op == OP_NOT || op == OP_FLOAT; }

const char *builtin_name(Builtin b) {
  static const char *const names[] = {
      [B_MAP] = "map",       [B_FOLD] = "fold",       [B_PAIR_MAP] = "pair_map",
      [B_C_PROD] = "c_prod", [B_PREFIX] = "prefix",   [B_ITER] = "iter",
      [B_INITS] = "inits",   [B_TAILS] = "tails",     [B_REDCONCAT] = "redconcat",
      [B_LENGTH] = "length", [B_ENTRY] = "entry",     [B_HD] = "hd",
      [B_TL] = "tl",         [B_PAIR] = "pair",       [B_FST] = "fst",
      [B_SND] = "snd",       [B_DUMMYVEC] = "dummyvec", [B_FLOAT] = "float",
      [B_IOTA] = "iota",     [B_ZIP] = "zip",         [B_MAP2] = "map2",
      [B_SPLIT] = "split",   [B_MERGE] = "merge",     [B_NEIGHBOURS] = "neighbours",
      [B_REVERSE] = "reverse", [B_DH] = "dh",
  };
  return names[b];
}

int builtin_arity(Builtin b) {
  switch (b) {
  case B_MAP: case B_FOLD: case B_PREFIX: case B_PAIR_MAP: case B_ENTRY: case B_PAIR:
  case B_ZIP: case B_SPLIT: case B_MERGE:
    return 2;
  case B_C_PROD: case B_ITER: case B_MAP2: case B_NEIGHBOURS: case B_DH:
    return 3;
  default:
    return 1;
  }
}
