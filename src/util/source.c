// source.c: source texts and the files they come from.
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *read_whole_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = xmalloc(cap);
  for (;;) {
    if (n + 1 >= cap) buf = xrealloc(buf, cap *= 2);
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  int failed = ferror(f);
  fclose(f);
  if (failed) {
    free(buf);
    errno = EIO;
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

Source *source_from_string(Arena *a, const char *name, const char *text, size_t len) {
  Source *s = arena_alloc(a, sizeof *s);
  s->name = arena_strndup(a, name, strlen(name));
  s->text = arena_strndup(a, text, len);
  s->len = len;
  return s;
}

Source *source_read(Arena *a, const char *path) {
  size_t len;
  char *text = read_whole_file(path, &len);
  if (!text) return NULL;
  Source *s = source_from_string(a, path, text, len);
  free(text);
  return s;
}
