/* common.h: what the hand-written benchmark programs share: the inputs of
 * `--random SEED` (the same splitmix64 streams as vecbsp) and a clock. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t stream(uint64_t seed, int input) { return seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(input + 1)); }

static int64_t next_int(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (int64_t)((z ^ (z >> 31)) % 201) - 100;
}

/* n random ints of input number `input`, as vecbsp --random SEED draws them. */
static int64_t *random_ints(uint64_t seed, int input, int64_t n) {
  int64_t *x = malloc((size_t)n * sizeof *x + 8);
  if (!x) abort();
  uint64_t s = stream(seed, input);
  for (int64_t i = 0; i < n; i++) x[i] = next_int(&s);
  return x;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of the n times t (sorted in place). */
static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, by_value);
  return t[n / 2];
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
