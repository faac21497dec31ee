/* mss_bsp.c: maximum segment sum (5) written by hand over BSPlib, after the
 * papers' template: scatter x; local prefix with (x) over (y, max y 0);
 * block totals to the higher processes; combine, take max (fst, snd) and the
 * local maximum; partial maxima to process 0.  mss_bsp N SEED REPS (prints the
 * result and the median seconds of the parallel part over REPS repetitions) */
#include <bsp.h>

#include "common.h"

typedef struct { int64_t sum, suffix; } Pair;

static Pair otimes(Pair a, Pair b) {
  int64_t s = a.suffix + b.sum;
  return (Pair){a.sum + b.sum, s > b.suffix ? s : b.suffix};
}

static int64_t n;
static uint64_t seed;
static int reps;  // repetitions of the parallel part, the median reported

static void spmd(void) {
  bsp_begin(bsp_nprocs());
  int p = bsp_nprocs(), s = bsp_pid();
  int64_t lo = n * s / p, hi = n * (s + 1) / p, r = hi - lo;
  int64_t *x = NULL, *blk = malloc((size_t)r * 8 + 8);
  Pair *pre = malloc((size_t)r * sizeof *pre + 16), *totals = calloc((size_t)p, sizeof *totals);
  int64_t *best = calloc((size_t)p, sizeof *best);
  if (s == 0) x = random_ints(seed, 0, n);
  bsp_push_reg(blk, (bsp_size_t)(r * 8));
  bsp_push_reg(totals, (bsp_size_t)(p * sizeof *totals));
  bsp_push_reg(best, (bsp_size_t)(p * 8));
  bsp_sync();
  double *times = malloc((size_t)reps * sizeof *times);
  for (int rep = 0; rep < reps; rep++) {
    double t0 = bsp_time();
    if (s == 0) {
      for (int q = 1; q < p; q++) {
        int64_t qlo = n * q / p, qhi = n * (q + 1) / p;
        if (qhi > qlo) bsp_hpput(q, x + qlo, blk, 0, (bsp_size_t)((qhi - qlo) * 8));
      }
    }
    bsp_sync();
    const int64_t *mine = s == 0 ? x : blk;  // process 0 reads its block in place
    for (int64_t i = 0; i < r; i++) {
      Pair e = {mine[i], mine[i] > 0 ? mine[i] : 0};
      pre[i] = i ? otimes(pre[i - 1], e) : e;
    }
    if (r > 0)
      for (int q = s + 1; q < p; q++)
        if (n * (q + 1) / p > n * q / p) bsp_put(q, &pre[r - 1], totals, (bsp_size_t)(s * sizeof(Pair)), sizeof(Pair));
    bsp_sync();
    int64_t local = INT64_MIN;
    if (r > 0) {
      Pair acc = {0, 0};
      int got = 0;
      for (int q = 0; q < s; q++)
        if (n * (q + 1) / p > n * q / p) acc = got++ ? otimes(acc, totals[q]) : totals[q];
      for (int64_t i = 0; i < r; i++) {
        Pair e = got ? otimes(acc, pre[i]) : pre[i];
        int64_t m = e.sum > e.suffix ? e.sum : e.suffix;
        if (m > local) local = m;
      }
      bsp_put(0, &local, best, (bsp_size_t)(s * 8), 8);
    }
    bsp_sync();
    times[rep] = bsp_time() - t0;
  }
  if (s == 0) {
    int64_t m = INT64_MIN;
    for (int q = 0; q < p; q++)
      if (n * (q + 1) / p > n * q / p && best[q] > m) m = best[q];
    printf("%lld %.9f\n", (long long)m, median(times, reps));
  }
  bsp_end();
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  n = atoll(argv[1]);
  seed = strtoull(argv[2], NULL, 0);
  reps = atoi(argv[3]) > 0 ? atoi(argv[3]) : 1;
  bsp_init(spmd, argc, argv);
  spmd();
  return 0;
}
