// testing.h: what the C unit tests of the analyser share: CHECK, which
// counts checks and failures and goes on, and programs loaded from text or
// files with their parameters given by name.
#ifndef VECBSP_TESTING_H
#define VECBSP_TESTING_H

#include "eval/eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...)                          \
  do {                                            \
    checks++;                                     \
    if (!(cond)) {                                \
      failures++;                                 \
      printf("FAIL %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__);                        \
      printf("\n");                               \
    }                                             \
  } while (0)

static inline Program *load_text(Arena *a, const char *text) {
  return program_check(a, source_from_string(a, "test.vec", text, strlen(text)), NULL);
}

static inline Program *load_file(Arena *a, const char *path) {
  Source *src = source_read(a, path);
  if (!src) fatal("cannot read %s", path);
  return program_check(a, src, NULL);
}

// Params by name from "n=10 m=3"; those not named are `missing`.
static inline int64_t *params_named(Arena *a, Program *prog, const char *spec, int64_t missing) {
  int64_t *v = arena_calloc(a, (size_t)prog->nparams + 1, sizeof *v);
  for (int k = 0; k < prog->nparams; k++) {
    const char *name = prog->params[k]->name, *s = spec;
    size_t n = strlen(name);
    v[k] = missing;
    for (; (s = strstr(s, name)); s++)
      if ((s == spec || s[-1] == ' ') && s[n] == '=') {
        v[k] = atoll(s + n + 1);
        break;
      }
  }
  return v;
}

// A test program's groups, one per ctest test: main runs the one named by
// its argument (all without one) and exits 1 if a check failed.
typedef struct TestGroup {
  const char *name;
  void (*run)(void);
} TestGroup;

static inline int run_groups(const TestGroup *groups, size_t n, int argc, char **argv) {
  int ran = 0;
  for (size_t i = 0; i < n; i++)
    if (argc < 2 || strcmp(argv[1], groups[i].name) == 0) {
      groups[i].run();
      ran++;
    }
  if (!ran) {
    fprintf(stderr, "unknown test group '%s'\n", argv[1]);
    return 2;
  }
  if (failures) printf("%d failures\n", failures);
  return failures != 0;
}

#endif
