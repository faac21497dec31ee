// lex.c: splits VEC-BSP source text into tokens.
#include "lang/lang.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const keywords[] = {
    "param", "input", "def", "main", "let", "in", "if", "then",
    "else", "ifs", "true", "false", "not",
};

// Longest first, so that "->" wins over "-".
static const char *const punctuators[] = {
    "->", "==", "!=", "<=", ">=", "&&", "||", "(", ")", "[", "]", ",",
    ":",  "=",  "\\", "+",  "-",  "*",  "/",  "%",  "<", ">",
};

bool tok_is(const Token *t, const char *s) {
  return (t->kind == TK_KEYWORD || t->kind == TK_PUNCT) &&
         (int)strlen(s) == t->len && memcmp(t->start, s, (size_t)t->len) == 0;
}

typedef struct Lexer {
  Arena *arena;
  const Source *src;
  const char *p;          // next character
  const char *line_start; // first character of the current line
  int line;               // current line number
  Token *tok;             // tokens so far
  int len, cap;
} Lexer;

static Pos here(Lexer *lx, const char *at) {
  return (Pos){lx->src, lx->line, (int)(at - lx->line_start) + 1};
}

static Token *push(Lexer *lx, TokenKind kind, const char *start, int len) {
  if (lx->len == lx->cap) {
    int cap = lx->cap ? lx->cap * 2 : 256;
    Token *t = arena_calloc(lx->arena, (size_t)cap, sizeof *t);
    if (lx->len) memcpy(t, lx->tok, (size_t)lx->len * sizeof *t);
    lx->tok = t;
    lx->cap = cap;
  }
  Token *t = &lx->tok[lx->len++];
  *t = (Token){.kind = kind, .pos = here(lx, start), .start = start, .len = len};
  return t;
}

static bool is_ident_start(int c) { return isalpha(c) || c == '_'; }
static bool is_ident_char(int c) { return isalnum(c) || c == '_' || c == '\''; }

static void lex_number(Lexer *lx) {
  const char *start = lx->p, *q = lx->p;
  while (isdigit((unsigned char)*q)) q++;
  bool is_float = false;
  if (*q == '.' && isdigit((unsigned char)q[1])) {
    is_float = true;
    for (q++; isdigit((unsigned char)*q);) q++;
  }
  if ((*q == 'e' || *q == 'E') &&
      (isdigit((unsigned char)q[1]) ||
       ((q[1] == '+' || q[1] == '-') && isdigit((unsigned char)q[2])))) {
    is_float = true;
    for (q += 2; isdigit((unsigned char)*q);) q++;
  }
  if (is_ident_start((unsigned char)*q))
    error_at(here(lx, q), "unexpected character '%c' in a number", *q);
  Token *t = push(lx, is_float ? TK_FLOAT : TK_INT, start, (int)(q - start));
  const char *buf = arena_strndup(lx->arena, start, (size_t)(q - start));  // the source runs on
  errno = 0;
  if (is_float) {
    t->fval = strtod(buf, NULL);
    if (errno == ERANGE && isinf(t->fval))
      error_at(t->pos, "float literal out of range");
  } else {
    unsigned long long v = strtoull(buf, NULL, 10);
    if (errno == ERANGE || v > (unsigned long long)INT64_MAX)
      error_at(t->pos, "integer literal out of range (at most %lld)", (long long)INT64_MAX);
    t->ival = (int64_t)v;
  }
  lx->p = q;
}

static void lex_word(Lexer *lx) {
  const char *start = lx->p;
  while (is_ident_char((unsigned char)*lx->p)) lx->p++;
  int len = (int)(lx->p - start);
  TokenKind kind = TK_IDENT;
  for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
    if ((int)strlen(keywords[i]) == len && memcmp(start, keywords[i], (size_t)len) == 0)
      kind = TK_KEYWORD;
  push(lx, kind, start, len);
}

static bool lex_punct(Lexer *lx) {
  for (size_t i = 0; i < sizeof punctuators / sizeof *punctuators; i++) {
    size_t n = strlen(punctuators[i]);
    if (strncmp(lx->p, punctuators[i], n) == 0) {
      push(lx, TK_PUNCT, lx->p, (int)n);
      lx->p += n;
      return true;
    }
  }
  return false;
}

TokenList lex(Arena *a, const Source *src) {
  Lexer lx = {.arena = a, .src = src, .p = src->text, .line_start = src->text, .line = 1};
  const char *end = src->text + src->len;
  while (lx.p < end) {
    char c = *lx.p;
    if (c == '\n') {
      lx.p++;
      lx.line++;
      lx.line_start = lx.p;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      lx.p++;
    } else if (c == '#') {
      while (lx.p < end && *lx.p != '\n') lx.p++;
    } else if (isdigit((unsigned char)c)) {
      lex_number(&lx);
    } else if (is_ident_start((unsigned char)c)) {
      lex_word(&lx);
    } else if (!lex_punct(&lx)) {
      if (c == '\0')
        error_at(here(&lx, lx.p), "unexpected NUL byte in source");
      if ((unsigned char)c >= 0x80)
        error_at(here(&lx, lx.p), "unexpected non-ASCII character");
      error_at(here(&lx, lx.p), "unexpected character '%c'", c);
    }
  }
  Token *eof = push(&lx, TK_EOF, lx.p, 0);
  if (lx.len > 1) {  // point just past the last token, not at an empty last line
    Token *last = &lx.tok[lx.len - 2];
    eof->pos = last->pos;
    eof->pos.col += last->len;
  }
  return (TokenList){lx.tok, lx.len};
}
