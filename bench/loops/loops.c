// loops.c: hand-written C loops, one per shape of work the exact model
// bounds (a carried chain, the multiplier, the memory stream, stores), in
// the cache and beyond it, timed in interleaved rounds: where a loop's time
// in memory exceeds the largest of its bounds (docs/cost-model.md,
// "Calibration": what the bounds do not overlap); and matvec (1)'s rows
// times a vector that each row reads again, as that vector outgrows each
// level of the cache ("Reloads"). Not a test.
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

// Every kernel reads x[0..n) (and v, a row of the rows' length, or y)
// and may write y; it returns a value the caller keeps. A kernel that
// stores takes the fields into locals first: its stores could otherwise
// alias them, and gcc would load them again every element.
typedef struct {
  const int64_t *x, *v;
  int64_t *y;
  int64_t n, length;  // length: rows_times_v's rows
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

// matvec (1)'s loops: rows of d->length times v, which each row reads again.
static __attribute__((noinline)) int64_t rows_times_v(const Data *d) {
  int64_t total = 0, length = d->length;
  for (int64_t r = 0; r + length <= d->n; r += length) {
    int64_t s = 0;
    for (int64_t i = 0; i < length; i++) s += d->x[r + i] * d->v[i];
    total += s;
  }
  return total;
}

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
  int64_t length;  // rows_times_v's rows (0: not rows)
} Kernel;

static const Kernel kernels[] = {
    {"sum", sum, 0},   {"sum in 2 lanes", sum_lanes, 0}, {"scaled sum", scaled_sum, 0},
    {"scaled sum in 2 lanes", scaled_sum_lanes, 0},     {"dot", dot, 0},
    {"rows of 2000 times v", rows_times_v, 2000},     {"rows of 250 times v", rows_times_v, 250},
    {"prefix", prefix, 0}, {"map", map, 0},
};
enum { NKERNELS = sizeof kernels / sizeof kernels[0], NSIZES = 2 };
// The rows' lengths of the second table: v of 2 KB to 8 MB, read again by
// every row of x at 64 MB. Where v and a row no longer fit a core's
// first-level cache (32 KB here), v comes from the second level (1 MB) or
// the third.
static const int64_t lengths[] = {250, 1000, 1500, 2000, 2500, 4000, 16000, 65536, 262144, 1048576};
enum { NLENGTHS = sizeof lengths / sizeof lengths[0] };
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

// The fastest of rounds times (sorted here), their median and their spread
// (max - min) / min, in ns; returns the fastest.
static double print_times(double *row, int rounds) {
  qsort(row, (size_t)rounds, sizeof *row, by_value);
  printf("   %6.3f  %6.3f  (%5.1f%%)", 1e9 * row[0], 1e9 * row[rounds / 2], 100 * (row[rounds - 1] - row[0]) / row[0]);
  return row[0];
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 7;
  if (rounds < 1) {
    fprintf(stderr, "loops: error: ROUNDS must be a positive number\n");
    return 2;
  }
  int64_t most = sizes[NSIZES - 1], longest = lengths[NLENGTHS - 1];
  int64_t *x = malloc((size_t)most * sizeof *x), *y = malloc((size_t)most * sizeof *y), *v = malloc((size_t)longest * sizeof *v);
  double *t = malloc((size_t)rounds * (NKERNELS * NSIZES + NLENGTHS) * sizeof *t), *rows_t = t + rounds * NKERNELS * NSIZES;
  if (!x || !y || !v || !t) {
    fprintf(stderr, "loops: error: out of memory\n");
    return 1;
  }
  for (int64_t i = 0; i < most; i++) x[i] = i * 7 % 13;
  for (int64_t i = 0; i < longest; i++) v[i] = i % 5;
  memset(y, 0, (size_t)most * sizeof *y);
  volatile int64_t sink = 0;  // each result is written to it: no kernel is optimised away
  // Round after round, every kernel at every size: a slow spell of the
  // machine meets every kernel, not all the rounds of one.
  const Kernel rows = {"rows", rows_times_v, 0};  // the length is each Data's
  for (int r = 0; r < rounds; r++) {
    for (int s = 0; s < NSIZES; s++)
      for (int k = 0; k < NKERNELS; k++) {
        Data d = {x, v, y, sizes[s], kernels[k].length};
        t[(k * NSIZES + s) * rounds + r] = time_once(&kernels[k], &d, &sink);
      }
    for (int l = 0; l < NLENGTHS; l++) {
      Data d = {x, v, y, most, lengths[l]};
      rows_t[l * rounds + r] = time_once(&rows, &d, &sink);
    }
  }
  printf("ns an element: the fastest round, the median and the spread (max - min) / min of %d rounds\n", rounds);
  printf("%-22s %28s %28s %9s\n", "", "in the cache (n = 3e4)", "beyond it (n = 8e6)", "memory");
  double stream = 0;  // the sum in 2 lanes at 8e6: memory streamed alone
  for (int k = 0; k < NKERNELS; k++) {
    printf("%-22s", kernels[k].name);
    double fastest[NSIZES];
    for (int s = 0; s < NSIZES; s++) fastest[s] = print_times(t + (k * NSIZES + s) * rounds, rounds);
    printf("   %+6.3f\n", 1e9 * (fastest[1] - fastest[0]));
    if (kernels[k].run == sum_lanes) stream = fastest[1];
  }
  printf("\nrows of L times v (v of L words, read again by every row), n = 8e6\n");
  printf("%-22s %28s %12s\n", "", "ns an element", "the stream's");
  for (int l = 0; l < NLENGTHS; l++) {
    printf("L = %-18lld", (long long)lengths[l]);
    printf("   %9.2f\n", print_times(rows_t + l * rounds, rounds) / stream);
  }
  free(x), free(y), free(v), free(t);
  return 0;
}
