// oracles.c: the interpreter against independent C computations: the five
// mss programs against Kadane's algorithm, matvec (1) and (2) against a loop.
#include "eval/eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static Program *load(Arena *a, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/%s", SOURCE_DIR, name);
  Source *src = source_read(a, path);
  if (!src) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  return program_check(a, src, NULL);
}

// Maximum sum of a non-empty segment.
static int64_t kadane(const int64_t *x, int n) {
  int64_t best = x[0], here = x[0];
  for (int i = 1; i < n; i++) {
    here = here + x[i] > x[i] ? here + x[i] : x[i];
    if (here > best) best = here;
  }
  return best;
}

static Value int_vector(Arena *a, const int64_t *x, int64_t n) {
  Value v = value_vec(a, n);
  for (int64_t i = 0; i < n; i++) v.vec->elems[i] = value_int(x[i]);
  return v;
}

static void test_mss(int trials) {
  const char *names[] = {"mss1.vec", "mss2.vec", "mss3.vec", "mss4.vec", "mss5.vec"};
  Arena *pa = arena_new();
  Program *progs[5];
  for (int k = 0; k < 5; k++) progs[k] = load(pa, names[k]);
  uint64_t state = 12345;
  int64_t x[64];
  for (int t = 0; t < trials; t++) {
    int n = 1 + (int)(random_next(&state) % 40);
    for (int i = 0; i < n; i++) x[i] = random_int(&state);
    x[random_next(&state) % (uint64_t)n] = (int64_t)(random_next(&state) % 50);  // one element >= 0
    int64_t want = kadane(x, n);
    for (int k = 0; k < 5; k++) {
      Arena *a = arena_new();
      int64_t params[1] = {n};
      Value inputs[1] = {int_vector(a, x, n)};
      Value r = interp_run(a, progs[k], params, inputs);
      if (r.kind != V_INT || r.i != want) {
        fprintf(stderr, "FAIL %s n=%d trial %d: got %lld, Kadane gives %lld\n", names[k], n, t,
                (long long)r.i, (long long)want);
        failures++;
      }
      arena_free(a);
    }
  }
  arena_free(pa);
}

static void test_matvec(int trials) {
  Arena *pa = arena_new();
  Program *p1 = load(pa, "matvec1.vec"), *p2 = load(pa, "matvec2.vec");
  uint64_t state = 777;
  for (int t = 0; t < trials; t++) {
    int m = 1 + (int)(random_next(&state) % 12), n = 1 + (int)(random_next(&state) % 12);
    int64_t M[144], L[144], v[12], want[12];
    for (int i = 0; i < m * n; i++) M[i] = random_int(&state);
    for (int j = 0; j < n; j++) v[j] = random_int(&state);
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) L[j * m + i] = M[i * n + j];
    for (int i = 0; i < m; i++) {
      want[i] = 0;
      for (int j = 0; j < n; j++) want[i] += M[i * n + j] * v[j];
    }
    Arena *a = arena_new();
    int64_t params[2] = {m, n};
    Value rowsM = value_vec(a, m), rowsL = value_vec(a, n);
    for (int i = 0; i < m; i++) rowsM.vec->elems[i] = int_vector(a, M + i * n, n);
    for (int j = 0; j < n; j++) rowsL.vec->elems[j] = int_vector(a, L + j * m, m);
    Value in1[2] = {rowsM, int_vector(a, v, n)}, in2[2] = {rowsL, int_vector(a, v, n)};
    Value r1 = interp_run(a, p1, params, in1), r2 = interp_run(a, p2, params, in2);
    for (int i = 0; i < m; i++)
      if (r1.vec->elems[i].i != want[i] || r2.vec->elems[i].i != want[i]) {
        fprintf(stderr, "FAIL matvec m=%d n=%d row %d: (1) %lld (2) %lld, loop %lld\n", m, n, i,
                (long long)r1.vec->elems[i].i, (long long)r2.vec->elems[i].i, (long long)want[i]);
        failures++;
        break;
      }
    arena_free(a);
  }
  arena_free(pa);
}

int main(int argc, char **argv) {
  int trials = argc > 1 ? atoi(argv[1]) : 1000;
  test_mss(trials);
  test_matvec(trials);
  printf("%d trials: %s\n", trials, failures ? "FAILED" : "all equal");
  return failures != 0;
}
