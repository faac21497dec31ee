// number.c: floats as the language writes them.
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void format_float(char *buf, size_t size, double f) {
  if (isnan(f) || isinf(f)) {
    snprintf(buf, size, "%s", isnan(f) ? "nan" : f < 0 ? "-inf" : "inf");
    return;
  }
  int prec = 1;
  for (;; prec++) {  // 17 digits always read back
    snprintf(buf, size, "%.*g", prec, f);
    if (prec == 17 || strtod(buf, NULL) == f) break;
  }
  // %g writes 300 as 3e+02 at one digit: whole numbers below 1e16 are
  // written out (300.0), larger and tiny ones keep their exponent (1e20).
  char *e = strchr(buf, 'e');
  int exponent = e ? atoi(e + 1) : 0;
  if (e && exponent >= 0 && exponent < 16) snprintf(buf, size, "%.*f", prec - 1 > exponent ? prec - 1 - exponent : 0, f);
  e = strchr(buf, 'e');
  if (e && e[1] == '+') memmove(e + 1, e + 2, strlen(e + 2) + 1);
  if (!strpbrk(buf, ".e")) strncat(buf, ".0", size - strlen(buf) - 1);
}
