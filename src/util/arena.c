// arena.c: bump allocation; everything a compilation builds dies together.
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaBlock {
  ArenaBlock *prev;  // the block filled before this one
  size_t size;       // usable bytes in data
  _Alignas(16) unsigned char data[];
};

// Blocks start small (most arenas hold a small program) and double up to 1 MiB.
enum { ARENA_FIRST_BLOCK = 1 << 14, ARENA_MAX_BLOCK = 1 << 20 };

// Blocks of freed arenas, kept (up to SPARE_MAX bytes) for the next ones: a
// sweep builds and frees an arena per prediction, and giving the memory
// back to the system made it fault the same pages in again every time.
enum { SPARE_MAX = 64 << 20 };
static _Thread_local ArenaBlock *spare;
static _Thread_local size_t spare_bytes;

// A spare block of at least cap bytes, or a new one.
static ArenaBlock *block_new(size_t cap) {
  for (ArenaBlock **link = &spare; *link; link = &(*link)->prev)
    if ((*link)->size >= cap) {
      ArenaBlock *b = *link;
      *link = b->prev;
      spare_bytes -= b->size;
      return b;
    }
  ArenaBlock *b = xmalloc(sizeof *b + cap);
  b->size = cap;
  return b;
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) fatal("out of memory (asked for %zu bytes)", n);
  return p;
}

void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) fatal("out of memory (asked for %zu bytes)", n);
  return p;
}

Arena *arena_new(void) {
  Arena *a = xmalloc(sizeof *a);
  a->head = NULL;
  a->used = 0;
  return a;
}

void arena_free(Arena *a) {
  if (!a) return;
  for (ArenaBlock *b = a->head, *prev; b; b = prev) {
    prev = b->prev;
    if (spare_bytes + b->size > SPARE_MAX) {
      free(b);
      continue;
    }
    b->prev = spare;
    spare = b;
    spare_bytes += b->size;
  }
  free(a);
}

void arena_drop_spares(void) {
  while (spare) {
    ArenaBlock *b = spare;
    spare = b->prev;
    free(b);
  }
  spare_bytes = 0;
}

void *arena_alloc(Arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (!a->head || a->used + size > a->head->size) {
    size_t cap = a->head ? 2 * a->head->size : ARENA_FIRST_BLOCK;
    if (cap > ARENA_MAX_BLOCK) cap = ARENA_MAX_BLOCK;
    if (cap < size) cap = size;
    ArenaBlock *b = block_new(cap);
    b->prev = a->head;
    a->head = b;
    a->used = 0;
  }
  void *p = a->head->data + a->used;
  a->used += size;
  memset(p, 0, size);
  return p;
}

void *arena_calloc(Arena *a, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) fatal("out of memory (%zu x %zu bytes)", n, size);
  return arena_alloc(a, n * size);
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = arena_alloc(a, (size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}

void ptrvec_push(Arena *a, PtrVec *v, void *p) {
  if (v->len == v->cap) {
    int cap = v->cap ? 2 * v->cap : 8;
    void **data = arena_calloc(a, (size_t)cap, sizeof *data);
    if (v->len) memcpy(data, v->data, (size_t)v->len * sizeof *data);
    v->data = data;
    v->cap = cap;
  }
  v->data[v->len++] = p;
}
