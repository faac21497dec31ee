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

char diag_last_error[512];

static void report(const char *kind, Pos pos, const char *fmt, va_list ap) {
  if (strcmp(kind, "error") == 0) {
    va_list copy;
    va_copy(copy, ap);
    int at = pos.src ? snprintf(diag_last_error, sizeof diag_last_error, "%s:%d:%d: ", pos.src->name, pos.line, pos.col) : 0;
    at = at < 0 ? 0 : at >= (int)sizeof diag_last_error ? (int)sizeof diag_last_error - 1 : at;
    vsnprintf(diag_last_error + at, sizeof diag_last_error - (size_t)at, fmt, copy);
    va_end(copy);
  }
  if (diag_quiet) return;
  if (strcmp(kind, "error") == 0) progress_end();  // the work it told of is over
  else progress_erase();
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

bool diag_attempt(void (*fn)(void *ctx), void *ctx, bool quiet) {
  bool was_quiet = diag_quiet;
  diag_quiet = was_quiet || quiet;
  DiagTrap trap;
  volatile bool done = false;  // set after setjmp, read after a longjmp
  if (DIAG_TRY(&trap)) {
    fn(ctx);
    done = true;
    diag_untrap(&trap);
  }
  diag_quiet = was_quiet;
  return done;
}

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
