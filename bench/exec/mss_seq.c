/* mss_seq.c: sequential maximum segment sum (one pass of step 5's operator,
 * counting the empty segment): mss_seq N SEED */
#include "common.h"

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  int64_t n = atoll(argv[1]);
  uint64_t seed = strtoull(argv[2], NULL, 0);
  int64_t *x = random_ints(seed, 0, n);
  double t0 = now();
  int64_t sum = x[0], suffix = x[0] > 0 ? x[0] : 0, best = sum > suffix ? sum : suffix;
  for (int64_t i = 1; i < n; i++) {
    int64_t y = x[i], ly = y > 0 ? y : 0;
    int64_t s2 = suffix + y;
    suffix = s2 > ly ? s2 : ly;
    sum += y;
    int64_t here = sum > suffix ? sum : suffix;
    if (here > best) best = here;
  }
  double t = now() - t0;
  printf("%lld %.9f\n", (long long)best, t);
  return 0;
}
