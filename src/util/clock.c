// clock.c: elapsed time, for the analyses and searches that report theirs.
#include "util/util.h"

#include <time.h>

double clock_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
