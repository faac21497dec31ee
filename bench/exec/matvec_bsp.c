/* matvec_bsp.c: matrix-vector product (1) written by hand over BSPlib,
 * after the papers' template: process 0 broadcasts v, scatters the rows of M
 * by blocks, every process computes its inner products, process 0 gathers.
 * matvec_bsp M N SEED (prints the checksum and the seconds of the parallel part) */
#include <bsp.h>
#include <string.h>

#include "common.h"

static int64_t m, n;
static uint64_t seed;

static void spmd(void) {
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
  double t0 = bsp_time();
  if (s == 0) {
    for (int q = 1; q < p; q++) {
      int64_t qlo = m * q / p, qhi = m * (q + 1) / p;
      bsp_hpput(q, v, v, 0, (bsp_size_t)(n * 8));
      if (qhi > qlo) bsp_hpput(q, M + qlo * n, blk, 0, (bsp_size_t)((qhi - qlo) * n * 8));
    }
    memcpy(blk, M, (size_t)(r * n) * 8);
  }
  bsp_sync();
  for (int64_t i = 0; i < r; i++) {
    int64_t acc = 0;
    for (int64_t j = 0; j < n; j++) acc += blk[i * n + j] * v[j];
    part[i] = acc;
  }
  if (r > 0) bsp_hpput(0, part, y, (bsp_size_t)(lo * 8), (bsp_size_t)(r * 8));
  bsp_sync();
  double t = bsp_time() - t0;
  if (s == 0) {
    int64_t check = 0;
    for (int64_t i = 0; i < m; i++) check += y[i] * (i + 1);
    printf("%lld %.9f\n", (long long)check, t);
  }
  bsp_end();
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  m = atoll(argv[1]);
  n = atoll(argv[2]);
  seed = strtoull(argv[3], NULL, 0);
  bsp_init(spmd, argc, argv);
  spmd();
  return 0;
}
