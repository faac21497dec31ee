// util.h: memory arenas, source files and diagnostics shared by every stage.
#ifndef VECBSP_UTIL_H
#define VECBSP_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

//
// arena.c: bump allocation; everything a compilation builds dies together.
//

typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
  ArenaBlock *head;  // the block being filled; earlier blocks hang off it
  size_t used;       // bytes of head already handed out
} Arena;

Arena *arena_new(void);
void arena_free(Arena *a);
void arena_drop_spares(void);  // frees the blocks freed arenas left to this thread
void *arena_alloc(Arena *a, size_t size);   // zeroed, 16-byte aligned
void *arena_calloc(Arena *a, size_t n, size_t size);  // checks n*size for overflow
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...);

// A growable array of pointers (for lists built while parsing).
typedef struct PtrVec {
  void **data;  // elements
  int len;      // used
  int cap;      // allocated
} PtrVec;
void ptrvec_push(Arena *a, PtrVec *v, void *p);

//
// clock.c: elapsed time.
//

double clock_seconds(void);  // a monotonic clock, in seconds from an arbitrary start

//
// progress.c: a status line on stderr while long work runs, only on a
// terminal: "vecbsp: WHAT DONE/TOTAL: DETAIL (12 s)", from its first second.
//

void progress_begin(const char *what, int64_t total);  // total 0: not known; again before the end: the next stage
void progress_step(int64_t done, const char *detail);  // detail may be NULL
void progress_end(void);    // the line erased
void progress_erase(void);  // for a message: the line is drawn again after it

//
// number.c: floats as the language writes them.
//

// The shortest text that reads back as f and looks like a float: 2.0,
// 300.0, 0.1, 1e20, 1e-05, nan, -inf (size: 32 at least).
void format_float(char *buf, size_t size, double f);

//
// source.c: source texts and positions in them.
//

typedef struct Source {
  const char *name;  // as given on the command line, used in messages
  const char *text;  // NUL-terminated contents
  size_t len;        // bytes in text
} Source;

typedef struct Pos {
  const Source *src;  // file the position is in (NULL: no position)
  int line;           // 1-based
  int col;            // 1-based, in bytes
} Pos;

Source *source_read(Arena *a, const char *path);  // NULL (errno set) on failure
Source *source_from_string(Arena *a, const char *name, const char *text, size_t len);
char *read_whole_file(const char *path, size_t *len);  // malloc'ed; NULL on failure

//
// diag.c: every user error ends here. Errors print
// "FILE:LINE:COL: error: MESSAGE", the line and a caret, then unwind to the
// innermost trap (or exit with status 1 when there is none).
//

typedef struct DiagTrap {
  jmp_buf env;             // where error_at and fatal return to
  struct DiagTrap *outer;  // the trap to restore afterwards
} DiagTrap;

extern DiagTrap *diag_trap;  // innermost active trap, NULL if none
extern bool diag_quiet;      // suppress printing (used by the fuzzer)
extern char diag_last_error[512];  // the last error's "FILE:LINE:COL: MESSAGE", printed or not

_Noreturn void error_at(Pos pos, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_at(Pos pos, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Run code under a trap: if (DIAG_TRY(&t)) { ...; diag_untrap(&t); } else { failed }
#define DIAG_TRY(t) ((t)->outer = diag_trap, diag_trap = (t), setjmp((t)->env) == 0)
void diag_untrap(DiagTrap *t);
// After a trapped error has been handled (say, memory freed), passes it on
// to the next trap out, as the error itself would have.
_Noreturn void diag_rethrow(void);
// Runs fn(ctx) under a trap: false if it ended in an error, whose text is
// then in diag_last_error (printed too, unless quiet).
bool diag_attempt(void (*fn)(void *ctx), void *ctx, bool quiet);

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);

#endif
