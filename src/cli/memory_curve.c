// memory_curve.c: `vecbsp probe`'s memory curves: a load kernel and a
// store kernel, each timed at footprints from an eighth of the last-level
// cache to eight times it, on one process and on several, and the share
// of their words the memory serves made of their times (memory_curve_set;
// docs/cost-model.md, "The memory curve").
#include "cli/cli.h"
#include "cost/cost.h"

#include <stdio.h>

// In cache sizes: the first in the cache, the last where the price of
// memory has stopped rising (bench/memory/footprint.py: 3 to 4 times the
// cache on this machine's threads).
static const double footprints[] = {0.125, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 8};
enum { NFOOTPRINTS = sizeof footprints / sizeof *footprints };

// The probe's "sum" and "stores" kernels: one word loaded an element, or
// one loaded and four stored.
static const char *const kernels[STREAM_KINDS] = {[STREAM_LOADS] = CLI_SUM_KERNEL, [STREAM_STORES] = CLI_STORES_KERNEL};

// Seconds per element of each curve's kernels: [one process, several][stream][point].
typedef double CurveTimes[2][STREAM_KINDS][MEMORY_CURVE_POINTS];
_Static_assert((int)NFOOTPRINTS <= (int)MEMORY_CURVE_POINTS, "a curve holds every footprint");

// Each process streams its own block of the input (inputs=block): nothing
// but the stream is timed; the sum in 4 lanes, not bound by its chain.
static const char *plan_at(int p) { return p > 1 ? "paper,lanes=4,inputs=block" : "paper,lanes=4"; }

// Repetitions of a run, after its untimed ones.
enum { CURVE_REPEAT = 5 };

// Every kernel at every footprint, on one process and on several: the
// runs, and each one's elements.
struct CurveSet {
  int ps[2], npv;  // the processes of the curves, and how many curves
  TimedRun runs[2][STREAM_KINDS][NFOOTPRINTS];
  double n[2][STREAM_KINDS][NFOOTPRINTS];
};

uint64_t cli_memory_curve_hash(uint64_t h) {
  for (int kind = 0; kind < STREAM_KINDS; kind++) h = cli_hash(h, kernels[kind]);
  for (int k = 0; k < NFOOTPRINTS; k++) {
    char text[32];
    snprintf(text, sizeof text, "%g", footprints[k]);
    h = cli_hash(h, text);
  }
  return h;
}

// The runs of kind's kernel at p, at every footprint of cache bytes, and
// their elements.
static void prepare(Arena *a, StreamKind kind, int p, double cache, TimedRun *runs, double *elements) {
  Program *prog = cli_load_string(a, kind == STREAM_LOADS ? "load kernel" : "store kernel", kernels[kind]);
  const long long sizing = 1000000;  // elements, to find an element's bytes
  Options opt = {.backend = "threads", .has_seed = true, .seed = 1, .repeat = CURVE_REPEAT, .plan = plan_at(p)};
  opt.defines = (const char *[]){arena_printf(a, "n=%lld", sizing)}, opt.ndefines = 1;
  int64_t *params = cli_bind_params(a, prog, &opt);
  ExactResult x;
  exact_cost(a, prog, params, cli_plan(a, prog, params, &opt, p, false), &x);
  double bytes = 8 * x.footprint / (double)sizing;  // an element's
  for (int k = 0; k < NFOOTPRINTS; k++) {
    TimedRun *r = &runs[k];
    elements[k] = (double)(long long)(footprints[k] * cache / bytes);
    const char **define = arena_calloc(a, 2, sizeof *define);
    define[0] = arena_printf(a, "n=%lld", (long long)elements[k]);
    *r = (TimedRun){.opt = opt, .p = p};
    r->opt.defines = define;
    r->what = arena_printf(a, "%s, %s on %d", prog->src->name, define[0], p);
    progress_step(0, r->what);
    params = cli_bind_params(a, prog, &r->opt);
    r->exe = runner_build(a, prog, cli_plan(a, prog, params, &r->opt, p, false), &r->opt);
  }
}

// The processes of a probe's curve of several (at p, on so many cores):
// none over 1 means it has only the curve of one.
static int several_processes(int p, int cores) { return p < cores ? p : cores; }

CurveSet *cli_curve_runs(Arena *a, int p, double cache_bytes, TimedRun ***runs, int *n) {
  *runs = NULL, *n = 0;
  if (cache_bytes <= 0) return NULL;
  CurveSet *s = arena_calloc(a, 1, sizeof *s);
  s->ps[0] = 1, s->ps[1] = several_processes(p, cli_cores()), s->npv = s->ps[1] > 1 ? 2 : 1;
  *runs = arena_calloc(a, 2 * STREAM_KINDS * NFOOTPRINTS, sizeof **runs);
  for (int i = 0; i < s->npv; i++)
    for (int kind = 0; kind < STREAM_KINDS; kind++) {
      prepare(a, kind, s->ps[i], cache_bytes, s->runs[i][kind], s->n[i][kind]);
      for (int k = 0; k < NFOOTPRINTS; k++) (*runs)[(*n)++] = &s->runs[i][kind][k];
    }
  return s;
}

// The curve object of curves for one process (i = 0) or several (1).
static json_t *curve_object(const json_t *curves, int i) {
  size_t k;
  json_t *obj;
  json_array_foreach(curves, k, obj) {
    if ((json_integer_value(json_object_get(obj, "p")) > 1) == i) return obj;
  }
  return NULL;
}

// cal's curves, each with its kernels' seconds where timed.
static json_t *curves_json(const Calibration *cal, CurveTimes t, const bool timed[2]) {
  json_t *curves = memory_curves_json(cal);
  for (int i = 0; i < 2; i++) {
    if (!timed[i]) continue;
    json_t *seconds = json_object();
    for (int kind = 0; kind < STREAM_KINDS; kind++)
      json_object_set_new(seconds, memory_stream_names[kind], machine_json_numbers(t[i][kind], cal->curve[i].n));
    json_object_set_new(curve_object(curves, i), "seconds_per_element", seconds);
  }
  return curves;
}

// A curve's recorded "seconds_per_element" of n points into t; false
// unless it has n positive numbers for each stream.
static bool recorded_times(const json_t *per, int n, double t[STREAM_KINDS][MEMORY_CURVE_POINTS]) {
  for (int kind = 0; kind < STREAM_KINDS; kind++) {
    json_t *arr = json_object_get(per, memory_stream_names[kind]);
    if (json_array_size(arr) != (size_t)n) return false;
    for (int k = 0; k < n; k++)
      if (!((t[kind][k] = json_number_value(json_array_get(arr, (size_t)k))) > 0)) return false;
  }
  return true;
}

json_t *cli_memory_curves_again(const json_t *recorded, Calibration *cal) {
  const char *bad = memory_curves_read(recorded, cal);
  if (bad) fatal("the machine file's %s", bad);
  CurveTimes t;
  bool timed[2] = {false, false};
  for (int i = 0; i < 2; i++) {
    MemoryCurve *c = &cal->curve[i];
    json_t *per = c->n ? json_object_get(curve_object(recorded, i), "seconds_per_element") : NULL;
    if (!per) continue;  // an older probe's curve: its shares as they are
    if (!recorded_times(per, c->n, t[i]))
      fatal("the machine file's memory curve on %d process%s: \"seconds_per_element\" must have a positive time "
            "for each footprint of each stream", c->p, c->p > 1 ? "es" : "");
    memory_curve_set(c, c->p, c->footprint, t[i][STREAM_LOADS], t[i][STREAM_STORES], c->n);
    timed[i] = true;
  }
  return curves_json(cal, t, timed);
}

bool cli_memory_curves_timed(const json_t *machine, int p) {
  const json_t *curves = json_object_get(machine, "memory_curves");
  int several = several_processes(p, (int)json_integer_value(json_object_get(machine, "cores"))) > 1;
  for (int i = 0; i <= several; i++)
    if (!json_object_get(curve_object(curves, i), "seconds_per_element")) return cli_number(machine, "cache_bytes") <= 0;
  return true;
}

json_t *cli_curves_measured(const CurveSet *s, Calibration *cal) {
  if (!s) return json_array();
  CurveTimes t;
  for (int i = 0; i < s->npv; i++) {
    for (int kind = 0; kind < STREAM_KINDS; kind++)
      for (int k = 0; k < NFOOTPRINTS; k++) t[i][kind][k] = s->runs[i][kind][k].seconds / s->n[i][kind][k];
    memory_curve_set(&cal->curve[i], s->ps[i], footprints, t[i][STREAM_LOADS], t[i][STREAM_STORES], NFOOTPRINTS);
  }
  return curves_json(cal, t, (bool[2]){true, s->npv > 1});
}
