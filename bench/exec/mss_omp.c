/* mss_omp.c: maximum segment sum (5) with OpenMP, as a programmer would write
 * it for shared memory: each thread folds its block with (x) to its total;
 * after a barrier it runs the fused loop (prefix with (x) from the lower
 * blocks' total, max (fst, snd), running maximum) over its block.
 * mss_omp N SEED REPS THREADS (prints the result and the median seconds) */
#include <omp.h>

#include "common.h"

typedef struct { int64_t sum, suffix; } Pair;

static inline Pair otimes(Pair a, Pair b) {
  int64_t s = a.suffix + b.sum;
  return (Pair){a.sum + b.sum, s > b.suffix ? s : b.suffix};
}

static inline Pair lift(int64_t y) { return (Pair){y, y > 0 ? y : 0}; }

static int64_t mss(const int64_t *x, int64_t n, int threads) {
  Pair totals[256];
  int64_t best[256];
#pragma omp parallel num_threads(threads)
  {
    int t = omp_get_thread_num(), p = omp_get_num_threads();
    int64_t lo = n * t / p, hi = n * (t + 1) / p;
    Pair acc = lo < hi ? lift(x[lo]) : (Pair){0, 0};
    for (int64_t i = lo + 1; i < hi; i++) acc = otimes(acc, lift(x[i]));
    totals[t] = acc;
#pragma omp barrier
    Pair off = {0, 0};
    int got = 0;
    for (int q = 0; q < t; q++)
      if (n * (q + 1) / p > n * q / p) off = got++ ? otimes(off, totals[q]) : totals[q];
    int64_t m = INT64_MIN;
    Pair run = off;
    for (int64_t i = lo; i < hi; i++) {
      run = (i > lo || got) ? otimes(run, lift(x[i])) : lift(x[i]);
      int64_t here = run.sum > run.suffix ? run.sum : run.suffix;
      if (here > m) m = here;
    }
    best[t] = lo < hi ? m : INT64_MIN;
  }
  int64_t m = INT64_MIN;
  for (int t = 0; t < threads; t++)
    if (best[t] > m) m = best[t];
  return m;
}

int main(int argc, char **argv) {
  if (argc != 5) return 2;
  int64_t n = atoll(argv[1]);
  uint64_t seed = strtoull(argv[2], NULL, 0);
  int reps = atoi(argv[3]) > 0 ? atoi(argv[3]) : 1, threads = atoi(argv[4]);
  if (threads < 1 || threads > 256) return 2;
  int64_t *x = random_ints(seed, 0, n), r = 0;
  double *times = malloc((size_t)reps * sizeof *times);
  for (int rep = 0; rep < reps; rep++) {
    double t0 = now();
    r = mss(x, n, threads);
    times[rep] = now() - t0;
  }
  printf("%lld %.9f\n", (long long)r, median(times, reps));
  return 0;
}
