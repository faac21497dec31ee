/* matvec_seq.c: sequential matrix-vector product: matvec_seq M N SEED */
#include "common.h"

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  int64_t m = atoll(argv[1]), n = atoll(argv[2]);
  uint64_t seed = strtoull(argv[3], NULL, 0);
  int64_t *M = random_ints(seed, 0, m * n), *v = random_ints(seed, 1, n), *y = malloc((size_t)m * 8 + 8);
  double t0 = now();
  for (int64_t i = 0; i < m; i++) {
    int64_t s = 0;
    for (int64_t j = 0; j < n; j++) s += M[i * n + j] * v[j];
    y[i] = s;
  }
  double t = now() - t0;
  int64_t check = 0;
  for (int64_t i = 0; i < m; i++) check += y[i] * (i + 1);
  printf("%lld %.9f\n", (long long)check, t);
  return 0;
}
