/* matvec_bsp.c: matrix-vector products (1) and (2) written by hand over
 * BSPlib, after the papers' templates.
 * matvec_bsp 1|2 M N SEED REPS (prints the checksum and the median seconds of
 * the parallel part over REPS repetitions) */
#include <bsp.h>

#include "common.h"

static int64_t m, n;
static uint64_t seed;
static int reps;  // repetitions of the parallel part, the median reported

// The result's checksum (sum of y_i * (i + 1)) and the time, on process 0.
static void report(const int64_t *y, double seconds) {
  int64_t check = 0;
  for (int64_t i = 0; i < m; i++) check += y[i] * (i + 1);
  printf("%lld %.9f\n", (long long)check, seconds);
}

// (1): process 0 broadcasts v and scatters the rows of M by blocks; every
// process computes its inner products; process 0 gathers them.
static void rows(void) {
  bsp_begin(bsp_nprocs());
  int p = bsp_nprocs(), s = bsp_pid();
  int64_t lo = m * s / p, hi = m * (s + 1) / p, r = hi - lo;
  int64_t *M = NULL, *y = NULL;
  int64_t *v = malloc((size_t)n * 8 + 8), *blk = malloc((size_t)(r * n) * 8 + 8), *part = malloc((size_t)r * 8 + 8);
  if (s == 0) {
    M = random_ints(seed, 0, m * n);
    free(v);
    v = random_ints(seed, 1, n);
    y = malloc((size_t)m * 8 + 8);
  }
  bsp_push_reg(v, (bsp_size_t)(n * 8));
  bsp_push_reg(blk, (bsp_size_t)(r * n * 8));
  bsp_push_reg(y, s == 0 ? (bsp_size_t)(m * 8) : 0);
  bsp_sync();
  double *times = malloc((size_t)reps * sizeof *times);
  for (int rep = 0; rep < reps; rep++) {
    double t0 = bsp_time();
    if (s == 0) {
      for (int q = 1; q < p; q++) {
        int64_t qlo = m * q / p, qhi = m * (q + 1) / p;
        bsp_hpput(q, v, v, 0, (bsp_size_t)(n * 8));
        if (qhi > qlo) bsp_hpput(q, M + qlo * n, blk, 0, (bsp_size_t)((qhi - qlo) * n * 8));
      }
    }
    bsp_sync();
    const int64_t *mine = s == 0 ? M : blk;  // process 0 reads its rows in place
    for (int64_t i = 0; i < r; i++) {
      int64_t acc = 0;
      for (int64_t j = 0; j < n; j++) acc += mine[i * n + j] * v[j];
      part[i] = acc;
    }
    if (r > 0) bsp_hpput(0, part, y, (bsp_size_t)(lo * 8), (bsp_size_t)(r * 8));
    bsp_sync();
    times[rep] = bsp_time() - t0;
  }
  if (s == 0) report(y, median(times, reps));
  bsp_end();
}

// (2): process 0 scatters the columns of M (the rows of its transpose L)
// and the matching elements of v by blocks; every process adds its columns,
// scaled, into one vector of m; process 0 sums the p vectors.
static void columns(void) {
  bsp_begin(bsp_nprocs());
  int p = bsp_nprocs(), s = bsp_pid();
  int64_t lo = n * s / p, hi = n * (s + 1) / p, c = hi - lo;
  int64_t *L = NULL, *V = NULL, *parts = NULL;
  int64_t *blk = malloc((size_t)(c * m) * 8 + 8), *v = malloc((size_t)c * 8 + 8), *acc = calloc((size_t)m + 1, 8);
  if (s == 0) {
    L = random_ints(seed, 0, n * m);
    V = random_ints(seed, 1, n);
    parts = malloc((size_t)(p * m) * 8 + 8);
  }
  bsp_push_reg(blk, (bsp_size_t)(c * m * 8));
  bsp_push_reg(v, (bsp_size_t)(c * 8));
  bsp_push_reg(parts, s == 0 ? (bsp_size_t)(p * m * 8) : 0);
  bsp_sync();
  double *times = malloc((size_t)reps * sizeof *times);
  for (int rep = 0; rep < reps; rep++) {
    double t0 = bsp_time();
    if (s == 0) {
      for (int q = 1; q < p; q++) {
        int64_t qlo = n * q / p, qhi = n * (q + 1) / p;
        if (qhi == qlo) continue;
        bsp_hpput(q, L + qlo * m, blk, 0, (bsp_size_t)((qhi - qlo) * m * 8));
        bsp_hpput(q, V + qlo, v, 0, (bsp_size_t)((qhi - qlo) * 8));
      }
    }
    bsp_sync();
    const int64_t *mine = s == 0 ? L : blk, *w = s == 0 ? V : v;  // process 0 reads its columns in place
    for (int64_t j = 0; j < m; j++) acc[j] = 0;
    for (int64_t i = 0; i < c; i++)
      for (int64_t j = 0; j < m; j++) acc[j] += w[i] * mine[i * m + j];
    bsp_hpput(0, acc, parts, (bsp_size_t)(s * m * 8), (bsp_size_t)(m * 8));
    bsp_sync();
    if (s == 0)
      for (int q = 1; q < p; q++)
        for (int64_t j = 0; j < m; j++) acc[j] += parts[q * m + j];
    times[rep] = bsp_time() - t0;
  }
  if (s == 0) report(acc, median(times, reps));
  bsp_end();
}

int main(int argc, char **argv) {
  if (argc != 6 || (argv[1][0] != '1' && argv[1][0] != '2')) return 2;
  void (*spmd)(void) = argv[1][0] == '1' ? rows : columns;
  m = atoll(argv[2]);
  n = atoll(argv[3]);
  seed = strtoull(argv[4], NULL, 0);
  reps = atoi(argv[5]) > 0 ? atoi(argv[5]) : 1;
  bsp_init(spmd, argc, argv);
  spmd();
  return 0;
}
