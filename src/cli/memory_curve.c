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

// Repetitions of a run, after its untimed ones; rounds over all runs.
enum { CURVE_REPEAT = 5 };

// One kernel at one footprint.
typedef struct CurveRun {
  char *exe;
  Options opt;
  double n;      // its elements
  double *time;  // its fastest round's seconds per element, once timed
} CurveRun;

uint64_t cli_memory_curve_hash(uint64_t h) {
  for (int kind = 0; kind < STREAM_KINDS; kind++) h = cli_hash(h, kernels[kind]);
  for (int k = 0; k < NFOOTPRINTS; k++) {
    char text[32];
    snprintf(text, sizeof text, "%g", footprints[k]);
    h = cli_hash(h, text);
  }
  return h;
}

// The runs of kind's kernel at p, at every footprint of cache bytes, each
// timing into time[k].
static void prepare(Arena *a, StreamKind kind, int p, double cache, const Options *base, CurveRun *runs,
                    double *time) {
  Program *prog = cli_load_string(a, kind == STREAM_LOADS ? "load kernel" : "store kernel", kernels[kind]);
  const long long sizing = 1000000;  // elements, to find an element's bytes
  Options opt = *base;
  opt.plan = plan_at(p);
  opt.defines = (const char *[]){arena_printf(a, "n=%lld", sizing)}, opt.ndefines = 1;
  int64_t *params = cli_bind_params(a, prog, &opt);
  ExactResult x;
  exact_cost(a, prog, params, cli_plan(a, prog, params, &opt, p, false), &x);
  double bytes = 8 * x.footprint / (double)sizing;  // an element's
  for (int k = 0; k < NFOOTPRINTS; k++) {
    CurveRun *r = &runs[k];
    r->n = (double)(long long)(footprints[k] * cache / bytes);
    r->opt = opt;
    const char **define = arena_calloc(a, 2, sizeof *define);
    define[0] = arena_printf(a, "n=%lld", (long long)r->n);
    r->opt.defines = define;
    params = cli_bind_params(a, prog, &r->opt);
    r->exe = runner_build(a, prog, cli_plan(a, prog, params, &r->opt, p, false), &r->opt);
    r->time = &time[k];
  }
}

// Times every run in rounds, each round from a later place (a slow spell
// meets other footprints in each), keeping each run's fastest round.
static void time_all(Arena *a, CurveRun *runs, int n, const int *p_of, int rounds) {
  double *medians = arena_calloc(a, (size_t)(n * rounds), sizeof *medians);
  progress_begin("probe: timing the memory curves' kernels on threads", n * rounds);
  for (int round = 0; round < rounds; round++)
    for (int k = 0; k < n; k++) {
      int i = (k + round * n / rounds) % n;
      progress_step(round * n + k, runs[i].opt.defines[0]);
      RunOutcome o = runner_measure(a, runs[i].exe, &runs[i].opt, p_of[i]);
      medians[i * rounds + round] = o.median;
      runner_free(&o);
    }
  for (int i = 0; i < n; i++) {
    const double *of_run = medians + i * rounds;
    *runs[i].time = of_run[runner_fastest_round(of_run, rounds)] / runs[i].n;
  }
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
  int several = p > 1 && json_integer_value(json_object_get(machine, "cores")) > 1;
  for (int i = 0; i <= several; i++)
    if (!json_object_get(curve_object(curves, i), "seconds_per_element")) return cli_number(machine, "cache_bytes") <= 0;
  return true;
}

json_t *cli_memory_curves(int p, int rounds, Calibration *cal) {
  int ps[2] = {1, p < cli_cores() ? p : cli_cores()}, npv = ps[1] > 1 ? 2 : 1;
  if (cal->cache_bytes <= 0) return json_array();
  Arena *a = arena_new();
  Options base = {.backend = "threads", .has_seed = true, .seed = 1, .repeat = CURVE_REPEAT};
  CurveRun runs[2 * STREAM_KINDS * NFOOTPRINTS];
  int p_of[2 * STREAM_KINDS * NFOOTPRINTS];
  CurveTimes t;
  int n = 0;
  progress_begin("probe: compiling the memory curves' kernels", 0);
  for (int i = 0; i < npv; i++)
    for (int kind = 0; kind < STREAM_KINDS; kind++) {
      prepare(a, kind, ps[i], cal->cache_bytes, &base, runs + n, t[i][kind]);
      for (int k = 0; k < NFOOTPRINTS; k++) p_of[n++] = ps[i];
    }
  time_all(a, runs, n, p_of, rounds);
  for (int i = 0; i < npv; i++)
    memory_curve_set(&cal->curve[i], ps[i], footprints, t[i][STREAM_LOADS], t[i][STREAM_STORES], NFOOTPRINTS);
  arena_free(a);
  return curves_json(cal, t, (bool[2]){true, npv > 1});
}
