/* rt/core.c: the prelude of every generated program: memory, faults,
 * scalar helpers, messages and printing. vecbsp embeds the files of src/codegen/rt,
 * in name order, at the top of the C it generates. BSPlib API only (bsp.h). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* madvise */
#endif
#include <bsp.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Counting operations (vecbsp run --profile): only with -DVECBSP_PROFILE,
 * otherwise the generated code carries no counters at all. */
#ifdef VECBSP_PROFILE
#include <bsp_profile.h>
#define VB_OPS(k) bsp_profile_ops((unsigned long long)(k))
#else
#define VB_OPS(k) ((void)0)
#endif

typedef int64_t t_i;
typedef double t_f;
typedef bool t_b;

/* ---- memory: one bump arena per process, released as a stack ---- */

typedef struct rt_chunk {
  struct rt_chunk *prev; /* the chunk filled before this one (in the spares: the next spare) */
  size_t size;           /* bytes of data */
  size_t base;           /* arena offset of data[0] */
  char data[];           /* the memory handed out */
} rt_chunk;

typedef struct rt_arena {
  rt_chunk *top;   /* the chunk being filled */
  size_t used;     /* arena offset of the next free byte */
  rt_chunk *spare; /* the chunks released, kept for reuse: their pages are
                    * mapped already, so a repetition does not fault them in again */
} rt_arena;

static _Thread_local rt_arena rt_mem;

static inline _Noreturn void rt_out_of_memory(void) {
  bsp_abort("vecbsp: error: out of memory\n");
}

/* A chunk of bytes in all, a power of 2. From 2 MB on, aligned to 2 MB and
 * backed by huge pages where the kernel has them (THP, "madvise" mode on
 * Debian): a program's large arrays then miss the TLB 512 times less
 * often. Best effort: without THP the advice fails and the pages are
 * ordinary. */
static inline rt_chunk *rt_chunk_alloc(size_t bytes) {
  const size_t huge = (size_t)2 << 20;
  rt_chunk *n = bytes < huge ? malloc(bytes) : aligned_alloc(huge, bytes);
  if (!n) rt_out_of_memory();
  if (bytes >= huge) madvise(n, bytes, MADV_HUGEPAGE);
  n->size = bytes - sizeof *n;
  return n;
}

/* A chunk of at least size bytes after c: a spare if one is large enough. */
static inline rt_chunk *rt_chunk_new(rt_chunk *c, size_t size) {
  rt_chunk **link = &rt_mem.spare, *n;
  while ((n = *link) && n->size < size) link = &n->prev;
  if (n) {
    *link = n->prev;
  } else {
    size_t bytes = c ? 2 * (sizeof *c + c->size) : (size_t)1 << 20;
    while (bytes - sizeof *n < size) bytes *= 2;
    n = rt_chunk_alloc(bytes);
  }
  n->prev = c;
  n->base = rt_mem.used;
  return n;
}

static inline void *rt_alloc(size_t size) {
  size = (size + 15) & ~(size_t)15;
  rt_chunk *c = rt_mem.top;
  if (!c || rt_mem.used + size > c->base + c->size) rt_mem.top = c = rt_chunk_new(c, size);
  void *p = c->data + (rt_mem.used - c->base);
  rt_mem.used += size;
  return p;
}

/* Frees everything allocated since rt_mark() returned mark (the chunks
 * freed become spares: no more than the peak is ever held). */
static inline size_t rt_mark(void) { return rt_mem.used; }
static inline void rt_release(size_t mark) {
  while (rt_mem.top && rt_mem.top->base >= mark && rt_mem.top->base > 0) {
    rt_chunk *c = rt_mem.top;
    rt_mem.top = c->prev;
    c->prev = rt_mem.spare;
    rt_mem.spare = c;
  }
  rt_mem.used = mark;
}

/* n elements of size bytes, checking the product (a quarter of the address
 * space at most: the arena's chunk, a power of 2, must not overflow). */
static inline void *rt_array(int64_t n, size_t size) {
  if (n < 0 || (uint64_t)n > SIZE_MAX / 4 / (size ? size : 1)) rt_out_of_memory();
  return rt_alloc((size_t)n * size);
}

/* ---- errors, located as vecbsp reports them ---- */

/* A place in a source text: the program, a --input literal or a data file. */
typedef struct rt_site {
  const char *file; /* name used in messages */
  int line, col;    /* 1-based */
  const char *text; /* the whole line */
} rt_site;

/* printf into a new string, however long. */
static inline char *rt_vformat(const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!text) rt_out_of_memory();
  vsnprintf(text, (size_t)n + 1, fmt, ap);
  return text;
}

static inline char *rt_format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *text = rt_vformat(fmt, ap);
  va_end(ap);
  return text;
}

/* "FILE:LINE:COL: error: MESSAGE", the line and a caret under the column
 * (site NULL: "vecbsp: error: MESSAGE"), whole, as vecbsp eval prints it. */
static inline char *rt_error_text(const rt_site *s, const char *fmt, va_list ap) {
  char *msg = rt_vformat(fmt, ap), *text;
  if (!s) {
    text = rt_format("vecbsp: error: %s\n", msg);
  } else {
    size_t n = 0;
    while ((int64_t)n + 1 < s->col && s->text[n]) n++;
    char *caret = malloc(n + 1);
    if (!caret) rt_out_of_memory();
    for (size_t i = 0; i < n; i++) caret[i] = s->text[i] == '\t' ? '\t' : ' ';
    caret[n] = '\0';
    text = rt_format("%s:%d:%d: error: %s\n%s\n%s^\n", s->file, s->line, s->col, msg, s->text, caret);
    free(caret);
  }
  free(msg);
  return text;
}

/* Prints text whole (bsp_abort keeps 4 KB of a message) and ends every
 * process with status 1. */
static inline _Noreturn void rt_abort_with(const char *text) {
  fflush(stdout);
  fputs(text, stderr);
  fflush(stderr);
  bsp_abort("%s", "");
}

/* Reports text, a fault, when every process has reached the next sync (below). */
static inline _Noreturn void rt_fail(char *text);

/* A fault of the program, or a bad input: gathered (rt_fail). */
static inline _Noreturn void rt_verror(const rt_site *s, const char *fmt, va_list ap) {
  rt_fail(rt_error_text(s, fmt, ap));
}

static inline _Noreturn void rt_error(const rt_site *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rt_verror(s, fmt, ap);
}

/* An error of one process after the last sync (writing the result): at once. */
static inline _Noreturn void rt_error_now(const rt_site *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rt_abort_with(rt_error_text(s, fmt, ap));
}

/* ---- scalar operations with the semantics of docs/language.md ---- */

static inline t_i rt_add(t_i x, t_i y) { return (t_i)((uint64_t)x + (uint64_t)y); }
static inline t_i rt_sub(t_i x, t_i y) { return (t_i)((uint64_t)x - (uint64_t)y); }
static inline t_i rt_mul(t_i x, t_i y) { return (t_i)((uint64_t)x * (uint64_t)y); }
static inline t_i rt_neg(t_i x) { return (t_i)(0 - (uint64_t)x); }

static inline t_i rt_div(t_i x, t_i y, const rt_site *s) {
  if (y == 0) rt_error(s, "division by zero");
  return y == -1 ? rt_neg(x) : x / y;
}

static inline t_i rt_mod(t_i x, t_i y, const rt_site *s) {
  if (y == 0) rt_error(s, "remainder by zero");
  return y == -1 ? 0 : x % y;
}

static inline int64_t rt_index(int64_t i, int64_t len, const rt_site *s) {
  if (i < 0 || i >= len)
    rt_error(s, "entry: index %" PRId64 " is out of range for a vector of length %" PRId64, i, len);
  return i;
}

static inline void rt_nonempty(int64_t len, const char *what, const rt_site *s) {
  if (len == 0) rt_error(s, "%s of an empty vector", what);
}

/* ---- printing, as vecbsp eval prints ---- */

/* The shortest form that reads back exactly, always looking like a float:
   eval's format_float (src/util/number.c), which generated programs do not
   link. */
static inline void rt_print_float(FILE *out, double f) {
  char buf[64];
  if (isnan(f) || isinf(f)) {
    fputs(isnan(f) ? "nan" : f < 0 ? "-inf" : "inf", out);
    return;
  }
  int prec = 1;
  for (;; prec++) {  // 17 digits always read back
    snprintf(buf, sizeof buf, "%.*g", prec, f);
    if (prec == 17 || strtod(buf, NULL) == f) break;
  }
  char *e = strchr(buf, 'e');
  int exponent = e ? atoi(e + 1) : 0;
  if (e && exponent >= 0 && exponent < 16) snprintf(buf, sizeof buf, "%.*f", prec - 1 > exponent ? prec - 1 - exponent : 0, f);
  e = strchr(buf, 'e');
  if (e && e[1] == '+') memmove(e + 1, e + 2, strlen(e + 2) + 1);
  if (!strpbrk(buf, ".e")) strcat(buf, ".0");
  fputs(buf, out);
}

static inline void pr_i(FILE *out, t_i v) { fprintf(out, "%" PRId64, v); }
static inline void pr_f(FILE *out, t_f v) { rt_print_float(out, v); }
static inline void pr_b(FILE *out, t_b v) { fputs(v ? "true" : "false", out); }

/* ---- packing: values as 8-byte words (docs/compiler.md, "What is counted") ---- */

static inline int64_t wc_i(t_i v) { (void)v; return 1; }
static inline int64_t wc_f(t_f v) { (void)v; return 1; }
static inline int64_t wc_b(t_b v) { (void)v; return 1; }
static inline int64_t *pk_i(int64_t *w, t_i v) { *w = v; return w + 1; }
static inline int64_t *pk_f(int64_t *w, t_f v) { memcpy(w, &v, 8); return w + 1; }
static inline int64_t *pk_b(int64_t *w, t_b v) { *w = v; return w + 1; }
static inline const int64_t *un_i(const int64_t *w, t_i *v) { *v = *w; return w + 1; }
static inline const int64_t *un_f(const int64_t *w, t_f *v) { memcpy(v, w, 8); return w + 1; }
static inline const int64_t *un_b(const int64_t *w, t_b *v) { *v = *w != 0; return w + 1; }
static inline t_i zero_i(t_i v) { (void)v; return 0; }
static inline t_f zero_f(t_f v) { (void)v; return 0; }
static inline t_b zero_b(t_b v) { (void)v; return false; }

/* ---- messages ---- */

/* Every message's tag: who sends what, and the layout of its payload. */
typedef struct rt_tag {
  int64_t head;   /* region << 32 | field << 20 | sending pid */
  int64_t n;      /* a vector's global length (0 for other values) */
  int64_t stride; /* a block of regular nested vectors: their common length, else -1 */
} rt_tag;

typedef struct rt_msg {
  rt_tag tag;           /* its tag */
  const int64_t *words; /* its payload, valid until the next sync */
  int64_t nwords;       /* payload length in words */
} rt_msg;

/* The messages received in the current superstep. */
typedef struct rt_inbox {
  rt_msg *msg; /* the messages */
  int n;       /* how many */
  int cap;     /* allocated */
} rt_inbox;

static _Thread_local rt_inbox rt_box;

static inline int64_t rt_head(int region, int field, int pid) {
  return (int64_t)region << 32 | (int64_t)field << 20 | pid;
}
static inline int rt_head_region(int64_t head) { return (int)(head >> 32); }
static inline int rt_head_field(int64_t head) { return (int)(head >> 20 & 0xfff); }
static inline int rt_head_pid(int64_t head) { return (int)(head & 0xfffff); }

/* ---- faults: the same one reported, whatever p and the timing ----
 * A process that faults sends its message to every process and ends its
 * superstep at once, in the sync where the others end theirs (every
 * repetition of the program ends in one): there the faults of the
 * superstep are gathered, and process 0 reports the one of the lowest pid,
 * whose block comes first in the order of the elements, which is eval's.
 * Before its first sync a process reports at once (process 0 alone checks
 * the command line and the inputs then). */
#define RT_FAULT_FIELD 4094
static _Thread_local bool rt_gathering; /* past the first rt_sync */

/* The faults sent in the superstep just ended (rt_fail): process 0 reports
 * that of the lowest pid, the others wait to be ended with it. */
static inline void rt_gather_faults(void) {
  const rt_msg *first = NULL;
  for (int i = 0; i < rt_box.n; i++)
    if (rt_head_field(rt_box.msg[i].tag.head) == RT_FAULT_FIELD &&
        (!first || rt_head_pid(rt_box.msg[i].tag.head) < rt_head_pid(first->tag.head)))
      first = &rt_box.msg[i];
  if (!first) return;
  if (bsp_pid() == 0) rt_abort_with((const char *)first->words);
  for (;;) pause();
}

/* After a sync: the new messages into rt_box; a fault of any process in
 * the superstep ends the program here. */
static inline void rt_collect(void) {
  int n;
  bsp_size_t bytes;
  bsp_qsize(&n, &bytes);
  if (n > rt_box.cap) {
    free(rt_box.msg);
    rt_box.cap = n * 2;
    rt_box.msg = malloc((size_t)rt_box.cap * sizeof *rt_box.msg);
    if (!rt_box.msg) rt_out_of_memory();
  }
  rt_box.n = n;
  for (int i = 0; i < n; i++) {
    void *tag, *payload;
    bsp_size_t size = bsp_hpmove(&tag, &payload);
    memcpy(&rt_box.msg[i].tag, tag, sizeof(rt_tag));
    rt_box.msg[i].words = payload;
    rt_box.msg[i].nwords = size / 8;
  }
  rt_gather_faults();
  rt_gathering = true;
}

static inline void rt_sync(void) {
  bsp_sync();
  rt_collect();
}

/* Set around a plan's rounds by levels, whose syncs may be of groups
 * alone (bsp_group.h): a fault there cannot wait for a sync of all, and
 * its process reports it at once. */
static _Thread_local bool rt_fail_at_once;

static inline _Noreturn void rt_fail(char *text) {
  if (!rt_gathering || rt_fail_at_once) rt_abort_with(text);
  int64_t nbytes = (int64_t)strlen(text) + 1;
  if (nbytes > INT32_MAX) text[(nbytes = INT32_MAX) - 1] = '\0';
  for (int q = 0; q < bsp_nprocs(); q++) {
    rt_tag tag = {rt_head(0, RT_FAULT_FIELD, bsp_pid()), 0, -1};
    bsp_send(q, &tag, text, (bsp_size_t)nbytes);
  }
  rt_sync(); /* does not return: a fault is there */
  rt_abort_with(text);
}

/* The message of a field from a pid (NULL if there is none). */
static inline const rt_msg *rt_find(int field, int pid) {
  for (int i = 0; i < rt_box.n; i++)
    if (rt_head_field(rt_box.msg[i].tag.head) == field && rt_head_pid(rt_box.msg[i].tag.head) == pid)
      return &rt_box.msg[i];
  return NULL;
}

static inline void rt_send(int pid, rt_tag tag, const void *words, int64_t nwords) {
  if (nwords > INT32_MAX / 8) bsp_abort("vecbsp: error: a message of %" PRId64 " words is too long\n", nwords);
  bsp_send(pid, &tag, words, (bsp_size_t)(nwords * 8));
}

/* A word buffer for packing messages, reused by the process. */
static _Thread_local int64_t *rt_buf;
static _Thread_local int64_t rt_buf_cap;
static inline int64_t *rt_words(int64_t n) {
  if (n > rt_buf_cap) {
    free(rt_buf);
    rt_buf_cap = n * 2 + 16;
    rt_buf = malloc((size_t)rt_buf_cap * 8);
    if (!rt_buf) rt_out_of_memory();
  }
  return rt_buf;
}

/* Gives back everything this process still holds (its arena, its inbox and
 * packing buffer) before bsp_end. */
static void rt_end_process(void) {
  for (rt_chunk *c = rt_mem.top, *prev; c; c = prev) {
    prev = c->prev;
    free(c);
  }
  for (rt_chunk *c = rt_mem.spare, *next; c; c = next) {
    next = c->prev;
    free(c);
  }
  rt_mem = (rt_arena){0};
  free(rt_box.msg);
  rt_box = (rt_inbox){0};
  free(rt_buf);
  rt_buf = NULL;
  rt_buf_cap = 0;
}

/* Block [lo, hi) of process k when n elements are spread over p processes. */
static inline int64_t rt_lo(int64_t n, int p, int k) { return (int64_t)((__int128)n * k / p); }

/* ---- the parallel program's side channel: repetition times ---- */

static inline void rt_write_times(const double *seconds, int reps) {
  const char *path = getenv("VECBSP_TIMES");
  if (!path || !*path) return;
  FILE *f = fopen(path, "w");
  if (!f) return;
  for (int i = 0; i < reps; i++) fprintf(f, "%.9g\n", seconds[i]);
  fclose(f);
}
