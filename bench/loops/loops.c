// loops.c: hand-written C loops, one per shape of work the exact model
// bounds (a carried chain, the multiplier, the memory stream, stores), in
// the cache and beyond it, timed in interleaved rounds: where a loop's time
// in memory exceeds the largest of its bounds (docs/cost-model.md,
// "Calibration": what the bounds do not overlap). Not a test.
//
// usage: loops [ROUNDS]   (bench/loops/run.sh compiles it as vecbsp compiles
// generated programs)
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Opaque to the compiler, so that a multiplication by it stays one.
static volatile int64_t factor = 3;

// Every kernel reads x[0..n) (and v, a row of 2000 in the cache, or y)
// and may write y; it returns a value the caller keeps. A kernel that
// stores takes the fields into locals first: its stores could otherwise
// alias them, and gcc would load them again every element.
typedef struct {
  const int64_t *x, *v;
  int64_t *y;
  int64_t n;
} Data;

// One carried add an element: the chain of the sum.
static __attribute__((noinline)) int64_t sum(const Data *d) {
  int64_t s = 0;
  for (int64_t i = 0; i < d->n; i++) s += d->x[i];
  return s;
}

// Two chains, each over half the elements (lanes).
static __attribute__((noinline)) int64_t sum_lanes(const Data *d) {
  int64_t s = 0, t = 0;
  for (int64_t i = 0; i + 1 < d->n; i += 2) s += d->x[i], t += d->x[i + 1];
  return s + t;
}

// A multiplication feeding the chain: one a cycle, as the chain.
static __attribute__((noinline)) int64_t scaled_sum(const Data *d) {
  int64_t k = factor, s = 0;
  for (int64_t i = 0; i < d->n; i++) s += d->x[i] * k;
  return s;
}

// The same multiplications over two chains.
static __attribute__((noinline)) int64_t scaled_sum_lanes(const Data *d) {
  int64_t k = factor, s = 0, t = 0;
  for (int64_t i = 0; i + 1 < d->n; i += 2) s += d->x[i] * k, t += d->x[i + 1] * k;
  return s + t;
}

// Two streams into one chain: a dot product.
static __attribute__((noinline)) int64_t dot(const Data *d) {
  int64_t s = 0;
  for (int64_t i = 0; i < d->n; i++) s += d->x[i] * d->y[i];
  return s;
}

// matvec (1)'s loops: rows of length times v, a vector in the cache.
static inline int64_t rows_times_v(const Data *d, int64_t length) {
  int64_t total = 0;
  for (int64_t r = 0; r + length <= d->n; r += length) {
    int64_t s = 0;
    for (int64_t i = 0; i < length; i++) s += d->x[r + i] * d->v[i];
    total += s;
  }
  return total;
}

// Rows of 2000 (v: 16 KB, half a core's first-level cache) and of 250 (2 KB).
static __attribute__((noinline)) int64_t rows_2000(const Data *d) { return rows_times_v(d, 2000); }
static __attribute__((noinline)) int64_t rows_250(const Data *d) { return rows_times_v(d, 250); }

// A chain whose every value is stored: a prefix sum.
static __attribute__((noinline)) int64_t prefix(const Data *d) {
  const int64_t *x = d->x;
  int64_t *y = d->y, n = d->n, s = 0;
  for (int64_t i = 0; i < n; i++) s += x[i], y[i] = s;
  return y[n - 1];
}

// No chain: a load, an add and a store an element.
static __attribute__((noinline)) int64_t map(const Data *d) {
  const int64_t *x = d->x;
  int64_t *y = d->y, n = d->n;
  for (int64_t i = 0; i < n; i++) y[i] = x[i] + 1;
  return y[n - 1];
}

typedef struct {
  const char *name;
  int64_t (*run)(const Data *);
} Kernel;

static const Kernel kernels[] = {
    {"sum", sum},   {"sum in 2 lanes", sum_lanes}, {"scaled sum", scaled_sum}, {"scaled sum in 2 lanes", scaled_sum_lanes},
    {"dot", dot}, {"rows of 2000 times v", rows_2000}, {"rows of 250 times v", rows_250},
    {"prefix", prefix}, {"map", map},
};
enum { NKERNELS = sizeof kernels / sizeof kernels[0], NSIZES = 2 };
// In a core's 1 MB cache (x and y, 480 KB) and far beyond the 32 MB one
// (x alone, 64 MB).
static const int64_t sizes[NSIZES] = {30000, 8000000};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

// The fastest of enough back-to-back calls to last about 10 ms, per element.
static double time_once(const Kernel *k, const Data *d, volatile int64_t *sink) {
  int calls = d->n < 1000000 ? 300 : 1;
  double best = 1e30;
  for (int c = 0; c < calls; c++) {
    double t = now();
    *sink += k->run(d);
    t = now() - t;
    if (t < best) best = t;
  }
  return best / (double)d->n;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 7;
  if (rounds < 1) {
    fprintf(stderr, "loops: error: ROUNDS must be a positive number\n");
    return 2;
  }
  int64_t most = sizes[NSIZES - 1];
  int64_t *x = malloc((size_t)most * sizeof *x), *y = malloc((size_t)most * sizeof *y), *v = malloc(2000 * sizeof *v);
  double *t = malloc((size_t)rounds * NKERNELS * NSIZES * sizeof *t);
  if (!x || !y || !v || !t) {
    fprintf(stderr, "loops: error: out of memory\n");
    return 1;
  }
  for (int64_t i = 0; i < most; i++) x[i] = i * 7 % 13;
  for (int i = 0; i < 2000; i++) v[i] = i % 5;
  memset(y, 0, (size_t)most * sizeof *y);
  volatile int64_t sink = 0;  // each result is written to it: no kernel is optimised away
  // Round after round, every kernel at every size: a slow spell of the
  // machine meets every kernel, not all the rounds of one.
  for (int r = 0; r < rounds; r++)
    for (int s = 0; s < NSIZES; s++)
      for (int k = 0; k < NKERNELS; k++) {
        Data d = {x, v, y, sizes[s]};
        t[(k * NSIZES + s) * rounds + r] = time_once(&kernels[k], &d, &sink);
      }
  printf("ns an element: the fastest round, the median and the spread (max - min) / min of %d rounds\n", rounds);
  printf("%-22s %28s %28s %9s\n", "", "in the cache (n = 3e4)", "beyond it (n = 8e6)", "memory");
  for (int k = 0; k < NKERNELS; k++) {
    printf("%-22s", kernels[k].name);
    double fastest[NSIZES];
    for (int s = 0; s < NSIZES; s++) {
      double *row = t + (k * NSIZES + s) * rounds;
      qsort(row, (size_t)rounds, sizeof *row, by_value);
      fastest[s] = row[0];
      printf("   %6.3f  %6.3f  (%5.1f%%)", 1e9 * row[0], 1e9 * row[rounds / 2], 100 * (row[rounds - 1] - row[0]) / row[0]);
    }
    printf("   %+6.3f\n", 1e9 * (fastest[1] - fastest[0]));
  }
  free(x), free(y), free(v), free(t);
  return 0;
}
