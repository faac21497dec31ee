// curve.c: the memory curve: the share of a stream's words the memory
// serves by the run's footprint, made from the probe's kernels' times,
// looked up by the exact model, kept in a machine file's "memory_curves".
#include "machine/machine.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const memory_stream_names[STREAM_KINDS] = {"loads", "stores"};

// v made non-decreasing by pooling adjacent violators: the least-squares
// fit of a rising sequence, so one slow point does not lift all after it.
static void non_decreasing(double *v, int n) {
  double sum[MEMORY_CURVE_POINTS];
  int count[MEMORY_CURVE_POINTS], blocks = 0;
  for (int i = 0; i < n; i++) {
    sum[blocks] = v[i], count[blocks++] = 1;
    while (blocks > 1 && sum[blocks - 2] * count[blocks - 1] > sum[blocks - 1] * count[blocks - 2]) {
      sum[blocks - 2] += sum[blocks - 1], count[blocks - 2] += count[blocks - 1];
      blocks--;
    }
  }
  for (int b = 0, i = 0; b < blocks; b++)
    for (int k = 0; k < count[b]; k++) v[i++] = sum[b] / count[b];
}

// The footprint, in cache sizes, from which the memory's price has nearly
// stopped rising (within 7% of 8 cache sizes' on this machine's threads:
// bench/memory/footprint.py): the median time of the points from there
// on is the price of a kernel's words from memory, which one slow point
// does not move.
#define MEMORY_PLATEAU 2.0

static int by_value(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

// The median of t over the points from the plateau on (the last if none).
static double memory_price(const double *footprint, const double *t, int n) {
  double v[MEMORY_CURVE_POINTS];
  int m = 0;
  for (int k = 0; k < n; k++)
    if (footprint[k] >= MEMORY_PLATEAU) v[m++] = t[k];
  if (m == 0) return t[n - 1];
  qsort(v, (size_t)m, sizeof *v, by_value);
  return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

// A kernel counts as slower than in the cache from 5% over its time there.
// A share jumps from 0 to over t[0] / price where it does; with no
// threshold, a store kernel 0.3% slower at C/4 than at C/8 (in two
// probes) had a store share of 0.43 there, and the probe's own runs fitted
// worse than under the fixed ramps (r^2 0.984 / 0.988 against 0.996 /
// 0.994 at threads p = 1 / 2). With 2% to 20% they fit better (0.9965 /
// 0.9947), the same within 0.0002.
#define MEMORY_NOISE 0.05

// The share of a kernel's words from memory, by its seconds per element t
// (made rising) less part, what its other words take from memory at each
// point, over the same at the memory's price (part_price): the model takes
// the longer of a loop's core time and its memory time (the shares of its
// words times their price from memory), and this share gives the kernel
// its own time wherever it is slower than in the cache (MEMORY_NOISE);
// else none. A kernel whose own words cost nothing from memory (its price
// at most its other words'), as flat or noisy times may make it, has none
// but at the last point. Returns its price from memory.
static double shares_of(const double *footprint, double *t, const double *part, double part_price, int n,
                        double *share) {
  non_decreasing(t, n);
  double price = memory_price(footprint, t, n);
  for (int k = 0; k < n; k++) {
    double s = price > part_price ? (t[k] - part[k]) / (price - part_price) : 0;
    share[k] = t[k] > (1 + MEMORY_NOISE) * t[0] && s > 0 ? fmin(1, s) : 0;
  }
  non_decreasing(share, n);
  share[n - 1] = 1;
  return price;
}

void memory_curve_set(MemoryCurve *c, int p, const double *footprint, const double *load_seconds,
                      const double *store_seconds, int n) {
  double t[MEMORY_CURVE_POINTS], part[MEMORY_CURVE_POINTS] = {0};
  c->n = n, c->p = p;
  memmove(c->footprint, footprint, (size_t)n * sizeof *footprint);  // a refit gives the curve's own
  memcpy(t, load_seconds, (size_t)n * sizeof *t);
  double load_price = shares_of(footprint, t, part, 0, n, c->share[STREAM_LOADS]);
  for (int k = 0; k < n; k++) part[k] = c->share[STREAM_LOADS][k] * load_price;  // its one load an element
  memcpy(t, store_seconds, (size_t)n * sizeof *t);
  shares_of(footprint, t, part, load_price, n, c->share[STREAM_STORES]);
}

double memory_curve_share(const MemoryCurve *c, StreamKind kind, double cache_bytes, double footprint) {
  double x = footprint / cache_bytes;
  if (x <= c->footprint[0]) return 0;
  for (int k = 1; k < c->n; k++)
    if (x < c->footprint[k]) {
      double at = (x - c->footprint[k - 1]) / (c->footprint[k] - c->footprint[k - 1]);
      return c->share[kind][k - 1] + at * (c->share[kind][k] - c->share[kind][k - 1]);
    }
  return 1;
}

const MemoryCurve *memory_curve_for(const Calibration *cal, int p) {
  const MemoryCurve *c = &cal->curve[p > 1];
  return c->n > 0 && cal->cache_bytes > 0 ? c : NULL;
}

// An array of n numbers of obj[key] into v; false if it is not one.
static bool numbers(const json_t *obj, const char *key, double *v, int *n) {
  json_t *arr = json_object_get(obj, key), *x;
  size_t i;
  if (!json_is_array(arr) || json_array_size(arr) < 2 || json_array_size(arr) > MEMORY_CURVE_POINTS) return false;
  json_array_foreach(arr, i, x) {
    if (!json_is_number(x)) return false;
    v[i] = json_number_value(x);
  }
  *n = (int)json_array_size(arr);
  return true;
}

// What is wrong, in a buffer of its own.
static const char *problem(const char *fmt, ...) {
  static char text[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  return text;
}

// One curve object into c; NULL, or what is wrong. Its shares rise from
// 0 at the first footprint to 1 at the last, as the lookup takes them
// before and after.
static const char *read_curve(const json_t *obj, MemoryCurve *c) {
  int n, m;
  if (!numbers(obj, "footprint", c->footprint, &n))
    return problem("\"footprint\" must be an array of 2 to %d numbers", MEMORY_CURVE_POINTS);
  for (int k = 0; k < n; k++)
    if (!(c->footprint[k] > (k ? c->footprint[k - 1] : 0))) return "\"footprint\" must be positive and rising";
  for (int kind = 0; kind < STREAM_KINDS; kind++) {
    const char *name = memory_stream_names[kind];
    double *share = c->share[kind];
    if (!numbers(obj, name, share, &m) || m != n)
      return problem("\"%s\" must be an array of shares, one per footprint", name);
    bool rising = share[0] == 0 && share[n - 1] == 1;
    for (int k = 1; k < n; k++) rising = rising && share[k] >= share[k - 1];
    if (!rising) return problem("\"%s\" must rise from 0 to 1", name);
  }
  c->n = n;
  return NULL;
}

const char *memory_curves_read(const json_t *curves, Calibration *cal) {
  const json_t *obj;
  size_t i;
  if (!json_is_array(curves)) return "\"memory_curves\" must be an array";
  json_array_foreach(curves, i, obj) {
    json_t *p = json_object_get(obj, "p");
    if (!json_is_integer(p) || json_integer_value(p) < 1 || json_integer_value(p) > (1 << 20))
      return "each of \"memory_curves\" needs \"p\", an integer in [1, 1048576]";
    MemoryCurve *c = &cal->curve[json_integer_value(p) > 1];
    if (c->n) return "\"memory_curves\" has two curves for one process, or two for several";
    const char *bad = read_curve(obj, c);
    if (bad) return bad;
    c->p = (int)json_integer_value(p);
  }
  return NULL;
}

json_t *machine_json_numbers(const double *v, int n) {
  json_t *arr = json_array();
  for (int k = 0; k < n; k++) json_array_append_new(arr, json_real(v[k]));
  return arr;
}

json_t *memory_curves_json(const Calibration *cal) {
  json_t *curves = json_array();
  for (int i = 0; i < 2; i++) {
    const MemoryCurve *c = &cal->curve[i];
    if (!c->n) continue;
    json_t *obj = json_pack("{s:i, s:o}", "p", c->p, "footprint", machine_json_numbers(c->footprint, c->n));
    for (int kind = 0; kind < STREAM_KINDS; kind++)
      json_object_set_new(obj, memory_stream_names[kind], machine_json_numbers(c->share[kind], c->n));
    json_array_append_new(curves, obj);
  }
  return curves;
}
