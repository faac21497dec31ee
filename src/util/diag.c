// diag.c: error messages with source positions, and unwinding after them.
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DiagTrap *diag_trap;
bool diag_quiet;

void diag_untrap(DiagTrap *t) { diag_trap = t->outer; }

// Prints the line containing pos and a caret under its column.
static void print_source_line(Pos pos) {
  const char *text = pos.src->text;
  const char *end = text + pos.src->len;
  const char *p = text;
  for (int line = 1; line < pos.line && p < end; p++)
    if (*p == '\n') line++;
  const char *q = p;
  while (q < end && *q != '\n') q++;
  fprintf(stderr, "%.*s\n", (int)(q - p), p);
  for (int i = 1; i < pos.col && p + i - 1 < q; i++)
    fputc(p[i - 1] == '\t' ? '\t' : ' ', stderr);
  fputs("^\n", stderr);
}

static void report(const char *kind, Pos pos, const char *fmt, va_list ap) {
  if (diag_quiet) return;
  if (pos.src)
    fprintf(stderr, "%s:%d:%d: %s: ", pos.src->name, pos.line, pos.col, kind);
  else
    fprintf(stderr, "vecbsp: %s: ", kind);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  if (pos.src) print_source_line(pos);
}

static _Noreturn void unwind(void) {
  if (diag_trap) {
    DiagTrap *t = diag_trap;
    diag_trap = t->outer;
    longjmp(t->env, 1);
  }
  exit(1);
}

void diag_rethrow(void) { unwind(); }

void error_at(Pos pos, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report("error", pos, fmt, ap);
  va_end(ap);
  unwind();
}

void fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report("error", (Pos){0}, fmt, ap);
  va_end(ap);
  unwind();
}

void warn_at(Pos pos, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report("warning", pos, fmt, ap);
  va_end(ap);
}
