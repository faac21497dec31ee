// calibrate.c: `vecbsp probe`'s calibration: small VEC-BSP programs, each
// stressing one kind of work, are compiled, run and predicted by the exact
// model; the per-unit times of its counts are fitted to the measurements:
// first the latencies, from loops bound by their carried dependency, then
// the core's, the memory's and the multiplier's terms, each from the runs
// it binds.
#include "cli/cli.h"
#include "cost/cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// A calibration program and the sizes it runs at.
typedef struct CalProgram {
  const char *name;    // for the report
  const char *source;  // VEC-BSP text
  const char *sizes[3][2];  // up to three runs (in cache, in the last-level cache, in memory),
                            // each up to two -D NAME=VALUE
  const char *plan;         // its plan (NULL: the papers' template)
} CalProgram;

static const CalProgram programs[] = {
    {"sum", CLI_SUM_KERNEL, {{"n=250000"}, {"n=2000000"}, {"n=8000000"}}, NULL},
    {"map", "param n\ninput v : [n]int\nmain = length (map (\\x -> x * 3 + 1) v)\n", {{"n=250000"}, {"n=2000000"}, {"n=8000000"}}, NULL},
    {"divide", "param n\ninput v : [n]int\nmain = fold (+) (map (\\x -> 1000003 / (x * x + 1) + x % (x * x + 2)) v)\n",
     {{"n=250000"}, {"n=2000000"}, {"n=8000000"}}, NULL},
    {"float divide", "param n\ninput v : [n]float\nmain = length (map (\\x -> 1.5 / (x * x + 1.0)) v)\n",
     {{"n=250000"}, {"n=2000000"}, {"n=8000000"}}, NULL},
    {"selects", "param n\ninput v : [n]int\nmain = fold (+) (map (\\x -> max (x + 3) (7 - x) + min (x - 5) (2 - x)) v)\n",
     {{"n=250000"}, {"n=2000000"}, {"n=8000000"}}, NULL},
    {"divide by literals", "param n\ninput v : [n]int\nmain = fold (+) (map (\\x -> x / 7 + x % 5) v)\n",
     {{"n=250000"}, {"n=2000000"}, {"n=8000000"}}, NULL},
    {"scan", "param n\ninput v : [n]int\nmain = fold max (prefix (+) v)\n", {{"n=250000"}, {"n=2000000"}, {"n=8000000"}}, NULL},
    {"rows", "param m n\ninput M : [m][n]int\nmain = fold (+) (map (fold (+)) M)\n",
     {{"m=125", "n=2000"}, {"m=1000", "n=2000"}, {"m=4000", "n=2000"}}, NULL},
    {"vector fold", "param m n\ninput M : [m][n]int\nmain = fold (+) (fold (\\a b -> pair_map (+) (a, b)) M)\n",
     {{"m=125", "n=2000"}, {"m=1000", "n=2000"}, {"m=4000", "n=2000"}}, NULL},
    // Only in the cache: beyond it (n = 3000) its stores go to memory, but
    // its loads reread v (24 KB) from the cache, and the model prices them
    // at the run's memory share (docs/cost-model.md, "Calibration").
    {"segments", "param n\ninput v : [n]int\nmain = length (redconcat (inits v))\n", {{"n=500"}, {"n=1500"}}, NULL},
    {"short rows", "param m n\ninput M : [m][n]int\nmain = fold (+) (map (fold (+)) M)\n",
     {{"m=31250", "n=8"}, {"m=250000", "n=8"}, {"m=1000000", "n=8"}}, NULL},
    {"segment sums", "param n\ninput v : [n]int\nmain = fold max (map (fold (+)) (inits v))\n",
     {{"n=1500"}, {"n=3000"}}, NULL},
    {"row prefixes", "param m n\ninput M : [m][n]int\nmain = length (redconcat (map inits M))\n",
     {{"m=10000", "n=4"}, {"m=100000", "n=4"}}, NULL},
    {"prefix sums of rows",
     "param m n\ninput M : [m][n]int\nmain = fold max (map (\\r -> fold max (map (fold (+)) (inits r))) M)\n",
     {{"m=1700", "n=48"}, {"m=242", "n=128"}, {"m=60", "n=256"}}, NULL},
    {"tiny sum", CLI_SUM_KERNEL, {{"n=500"}, {"n=2000"}}, NULL},
    {"tiny scan", "param n\ninput v : [n]int\nmain = fold max (prefix (+) v)\n", {{"n=500"}, {"n=2000"}}, NULL},
    {"dot", "param n\ninput a : [n]int\ninput b : [n]int\nmain = fold (+) (pair_map (*) (a, b))\n",
     {{"n=250000"}, {"n=2000000"}, {"n=8000000"}}, NULL},
    {"sum in lanes", CLI_SUM_KERNEL, {{"n=250000"}, {"n=2000000"}, {"n=8000000"}},
     "paper,lanes=4"},
    {"dot in lanes", "param n\ninput a : [n]int\ninput b : [n]int\nmain = fold (+) (pair_map (*) (a, b))\n",
     {{"n=250000"}, {"n=2000000"}, {"n=8000000"}}, "paper,lanes=4"},
    {"selects in lanes", "param n\ninput v : [n]int\nmain = fold (+) (map (\\x -> max (x + 3) (7 - x) + min (x - 5) (2 - x)) v)\n",
     {{"n=250000"}, {"n=2000000"}, {"n=8000000"}}, "paper,lanes=4"},
    {"cubes in lanes", "param n\ninput v : [n]int\nmain = fold (+) (map (\\x -> x * x * x) v)\n",
     {{"n=250000"}, {"n=2000000"}, {"n=8000000"}}, "paper,lanes=4"},
    // Four words stored for each one loaded: beyond the cache the memory,
    // not the core, bounds it, which "map" (one of each) never shows.
    {"stores", CLI_STORES_KERNEL,
     {{"n=250000"}, {"n=2000000"}, {"n=8000000"}}, NULL},
    {"broadcast",
     "param m n\ninput v : [n]int\ninput w : [m]int\n"
     "main = fold (+) (map (\\x -> fold (+) (map (\\y -> y * x) v)) w)\n",
     {{"m=4", "n=125000"}, {"m=4", "n=1000000"}, {"m=4", "n=4000000"}}, NULL},
};
enum { NPROGRAMS = sizeof programs / sizeof *programs };

// At p > 1, kernels whose every process loads its own block of the input
// in place (plan inputs=block), so that nothing is distributed while they
// are timed: their time is the shared memory stream alone. On MPI, the
// kernels above spend most of theirs sending their input from process 0
// (4.5 of the 6.0 ms of the sum of 8e6), which left the shared units
// loosely determined beside the words'.
static const CalProgram in_place_programs[] = {
    {"sum in place", CLI_SUM_KERNEL, {{"n=2000000"}, {"n=4000000"}, {"n=8000000"}},
     "paper,inputs=block"},
    {"dot in place", "param n\ninput a : [n]int\ninput b : [n]int\nmain = fold (+) (pair_map (*) (a, b))\n",
     {{"n=1000000"}, {"n=2000000"}, {"n=4000000"}}, "paper,inputs=block"},
    {"stores in place", CLI_STORES_KERNEL,
     {{"n=1000000"}, {"n=2000000"}, {"n=4000000"}}, "paper,inputs=block"},
    {"scan in place", "param n\ninput v : [n]int\nmain = fold max (prefix (+) v)\n",
     {{"n=2000000"}, {"n=4000000"}, {"n=8000000"}}, "paper,inputs=block"},
};
enum { NIN_PLACE = sizeof in_place_programs / sizeof *in_place_programs };

// Loops whose every iteration waits for the one before, on data in cache:
// their time is the latency of their carried operations. A core's latencies
// do not depend on p, so they run at p = 1.
static const CalProgram latency_programs[] = {
    {"add chain", CLI_SUM_KERNEL, {{"n=20000"}, {"n=80000"}}, NULL},
    {"max chain", "param n\ninput v : [n]int\nmain = fold max v\n", {{"n=20000"}, {"n=80000"}}, NULL},
    {"multiply chain", "param n\ninput v : [n]int\nmain = fold (*) v\n", {{"n=20000"}, {"n=80000"}}, NULL},
    {"float add chain", "param n\ninput v : [n]float\nmain = fold (+) v\n", {{"n=20000"}, {"n=80000"}}, NULL},
    {"divide chain", "param n\ninput v : [n]int\nmain = fold (\\a b -> (a + 1000003) / (b * b + 1)) v\n",
     {{"n=20000"}, {"n=80000"}}, NULL},
};
enum { NLATENCY = sizeof latency_programs / sizeof *latency_programs };

// A run's counts: those of its supersteps (cost_step_counts), summed.
static CalibrationRun model_run(const ExactResult *x, const Calibration *guess) {
  CalibrationRun run = {0};
  MemoryShares shares = cost_memory_shares(guess, x);
  for (int i = 0; i < x->nsteps; i++) {
    double count[CAL_TERMS];
    cost_step_counts(guess, 0, &x->steps[i], x->p, i + 1 < x->nsteps, shares, count);
    for (int t = 0; t < CAL_TERMS; t++) run.count[t] += count[t];
  }
  return run;
}

// The time an earlier probe recorded for the size-th run of program at p
// (its "calibration_runs"), or 0 if it has none.
static double recorded_seconds(const json_t *recorded, const char *program, int p, int size) {
  size_t i;
  json_t *row;
  json_array_foreach(recorded, i, row) {
    const char *name = json_string_value(json_object_get(row, "program"));
    if (name && strcmp(name, program) == 0 && json_integer_value(json_object_get(row, "p")) == p && size-- == 0)
      return cli_number(row, "seconds");
  }
  return 0;
}

// Rounds over all the runs of a probe (--quick: one).
enum { PROBE_ROUNDS = 3 };

// One run of a calibration program: what its counts are made of, and how
// it runs.
typedef struct CalRun {
  const CalProgram *cp;  // the program
  ExactResult x;         // its exact costs, which its counts are made of
  TimedRun timed;        // how it runs, its seconds (recorded: no executable)
} CalRun;

// One program at one size at p: its costs, and its executable or recorded time.
static CalRun prepare_run(Arena *a, const CalProgram *cp, int size, const Options *base, int p,
                          const json_t *recorded) {
  CalRun r = {.cp = cp, .timed = {.opt = *base, .p = p}};
  Options *opt = &r.timed.opt;
  Program *prog = cli_load_string(a, cp->name, cp->source);
  opt->defines = (const char **)cp->sizes[size];
  opt->ndefines = cp->sizes[size][1] ? 2 : 1;
  int64_t *params = cli_bind_params(a, prog, opt);
  // The papers' template (or the program's own plan, as for the lanes
  // kernels), as the calibration runs recorded by earlier probes were
  // measured (--refit refits them).
  Options as_recorded = *opt;
  as_recorded.plan = cp->plan ? cp->plan : "paper";
  Plan *pl = cli_plan(a, prog, params, &as_recorded, p, false);
  exact_cost(a, prog, params, pl, &r.x);
  r.timed.what = arena_printf(a, "%s, %s%s", cp->name, opt->defines[0],
                              opt->ndefines > 1 ? arena_printf(a, " %s", opt->defines[1]) : "");
  if (recorded)
    r.timed.seconds = recorded_seconds(recorded, cp->name, p, size);
  else
    r.timed.exe = runner_build(a, prog, pl, opt);
  return r;
}

// Programs measured together: a table of them.
typedef struct CalTable {
  const CalProgram *progs;
  int n;
} CalTable;

// The order a round times the runs in (their tables' runs one after the
// other in table_of): the tables merged in proportion, run j of a table of
// c at (j + 1/2) / c of the way, so that a slow spell of the machine meets
// some runs of every table, not all the runs of one. The latency runs,
// timed on their own in a second, had all been slowed twofold by one
// (lat_fast 0.51 ns against 0.28) and fitted as well as if they had not.
static void interleave(Arena *a, const int *table_of, int n, int ntables, int *order) {
  int *size = arena_calloc(a, (size_t)ntables, sizeof *size), *seen = arena_calloc(a, (size_t)ntables, sizeof *seen);
  double *at = arena_calloc(a, (size_t)n + 1, sizeof *at);
  for (int i = 0; i < n; i++) size[table_of[i]]++;
  for (int i = 0; i < n; i++) at[i] = (seen[table_of[i]]++ + 0.5) / size[table_of[i]];
  for (int i = 0; i < n; i++) {  // insertion sort by place, stable
    int k = i;
    for (; k > 0 && at[order[k - 1]] > at[i]; k--) order[k] = order[k - 1];
    order[k] = i;
  }
}

// The runs of each table's programs at p, at their first `sizes` sizes,
// into all, their tables into table_of; returns how many.
static int prepare_all(Arena *a, const CalTable *tables, int ntables, int sizes, const Options *base, int p,
                       const json_t *recorded, CalRun *all, int *table_of) {
  int nall = 0;
  if (!recorded) progress_begin("probe: compiling the calibration programs", 0);
  for (int k = 0; k < ntables; k++)
    for (int i = 0; i < tables[k].n; i++)
      for (int size = 0; size < sizes && tables[k].progs[i].sizes[size][0]; size++) {
        progress_step(0, tables[k].progs[i].name);
        table_of[nall] = k;
        all[nall++] = prepare_run(a, &tables[k].progs[i], size, base, p, recorded);
      }
  return nall;
}

// Times the runs of ntables tables, and the extra runs as one table more,
// in the same rounds (interleave), under a progress line titled title.
static void time_all(Arena *a, CalRun *all, const int *table_of, int nall, int ntables, TimedRun *const *extra,
                     int nextra, int rounds, const char *title) {
  int n = nall + nextra, *tables = arena_calloc(a, (size_t)n + 1, sizeof *tables);
  int *order = arena_calloc(a, (size_t)n + 1, sizeof *order);
  TimedRun **runs = arena_calloc(a, (size_t)n + 1, sizeof *runs);
  for (int i = 0; i < n; i++) tables[i] = i < nall ? table_of[i] : ntables;
  interleave(a, tables, n, ntables + (nextra > 0), order);
  for (int k = 0; k < n; k++) runs[k] = order[k] < nall ? &all[order[k]].timed : extra[order[k] - nall];
  runner_time_rounds(a, runs, n, rounds, title);
}

// The runs' counts, with guess's memory shares; their rows into report
// (the recorded ones only where a time was recorded), those with a time
// into runs, how many of each table into counts. Returns how many.
static int count_all(const CalRun *all, const int *table_of, int nall, int ntables, int p, const Options *base,
                     const Calibration *guess, bool recorded, CalibrationRun *runs, json_t *report, int *counts) {
  int n = 0;
  for (int k = 0; k < ntables; k++) counts[k] = 0;
  for (int i = 0; i < nall; i++) {
    CalibrationRun r = model_run(&all[i].x, guess);
    r.seconds = all[i].timed.seconds;
    if (recorded && r.seconds <= 0) continue;
    json_t *row = json_pack("{s:s, s:i, s:s, s:f}", "program", all[i].cp->name, "p", p, "backend", base->backend,
                            "seconds", r.seconds);
    for (int t = 0; t < CAL_TERMS; t++) json_object_set_new(row, cal_term_names[t], json_real(r.count[t]));
    json_array_append_new(report, row);
    if (r.seconds > 0) runs[n++] = r, counts[table_of[i]]++;
  }
  return n;
}

// Room for the runs of the tables (three sizes each).
static int room(const CalTable *tables, int ntables) {
  int most = 0;
  for (int k = 0; k < ntables; k++) most += tables[k].n * 3;
  return most + 1;
}

// Measures each program of each table at each size (at p processes), all
// in the same rounds (interleave), appending the runs and their report
// rows, and in counts[k] how many runs table k has; with recorded, the
// runs it has. With curves (and nothing recorded), the memory curves'
// runs on one process and on curve_p are timed in the same rounds, and
// their curves, from which the runs' counts take their shares, go into
// guess and *curves.
static int measure_all(Arena *a, const CalTable *tables, int ntables, int sizes, const Options *base, int p,
                       Calibration *guess, const json_t *recorded, CalibrationRun *runs, json_t *report, int *counts,
                       int curve_p, json_t **curves) {
  size_t most = (size_t)room(tables, ntables);
  CalRun *all = arena_calloc(a, most, sizeof *all);
  int *table_of = arena_calloc(a, most, sizeof *table_of);
  int nall = prepare_all(a, tables, ntables, sizes, base, p, recorded, all, table_of);
  if (!recorded) {
    TimedRun **curve_runs = NULL;
    int ncurve_runs = 0;
    CurveSet *set = curves ? cli_curve_runs(a, curve_p, guess->cache_bytes, &curve_runs, &ncurve_runs) : NULL;
    const char *title = arena_printf(a, "probe: timing the calibration programs at p = %d%s on %s", p,
                                     ncurve_runs ? " and the memory curves" : "", base->backend);
    time_all(a, all, table_of, nall, ntables, curve_runs, ncurve_runs, base->rounds, title);
    if (curves) *curves = cli_curves_measured(set, guess);
  }
  return count_all(all, table_of, nall, ntables, p, base, guess, recorded != NULL, runs, report, counts);
}

// The later fit of a unit decides how it was found.
static void merge_status(CalibrationStatus *into, CalibrationStatus later) {
  for (int t = 0; t < CAL_TERMS; t++)
    if (later.of[t] != CAL_NOT_FITTED) into->of[t] = later.of[t];
}

// How unit t was found, for the machine file: "fitted", "bounded by load",
// "undetermined", followed by " on threads" when the runs that found it
// ran on threads for a probe of another backend.
static const char *status_text(Arena *a, CalibrationFitKind kind, int t, const char *on) {
  const char *how = kind == CAL_FITTED    ? "fitted"
                    : kind == CAL_BOUNDED ? arena_printf(a, "bounded by %s", cal_term_names[calibration_twin(t)])
                                          : "undetermined";
  return on ? arena_printf(a, "%s on %s", how, on) : how;
}

// Fits the latencies to the latency runs, then the throughput terms (the
// core's, the memory's and the multiplier's) to the throughput runs, each
// run's time being its largest bound (calibration_fit_bound).
static CalibrationStatus fit_local(const CalibrationRun *lat, int nlat, const CalibrationRun *thr, int nthr,
                                   double unit[CAL_TERMS]) {
  bool terms[CAL_TERMS];
  for (int t = 0; t < CAL_TERMS; t++) terms[t] = t >= CAL_LAT_FAST && t < CAL_EXITS;
  CalibrationStatus status = calibration_fit(lat, nlat, terms, unit);
  for (int t = 0; t < CAL_TERMS; t++) terms[t] = t < CAL_LAT_FAST;
  merge_status(&status, calibration_fit_bound(thr, nthr, terms, unit));
  return status;
}

// Fits the given terms to the runs, the rest of their time being known.
static CalibrationStatus fit_rest(CalibrationRun *runs, int n, const bool terms[CAL_TERMS], double unit[CAL_TERMS]) {
  double known[CAL_TERMS];
  for (int t = 0; t < CAL_TERMS; t++) known[t] = terms[t] ? 0 : unit[t];
  for (int r = 0; r < n; r++) runs[r].known = calibration_predict(known, runs[r].count);
  return calibration_fit(runs, n, terms, unit);
}

// Moves the runs with mispredicted loop exits after the others; returns
// how many have none. Those runs fit the exit time once the rest is known.
static int exits_last(CalibrationRun *runs, int n) {
  int plain = 0;
  for (int r = 0; r < n; r++)
    if (runs[r].count[CAL_EXITS] == 0) {
      CalibrationRun t = runs[plain];
      runs[plain++] = runs[r];
      runs[r] = t;
    }
  return plain;
}

// At p > 1 the local terms are the core's, measured at p = 1 (a process
// streaming from memory alone included), but for memory streamed while the
// other processes stream too, whose bandwidth they share, and for packing
// and unpacking messages (none at p = 1): the runs at p fit those, the
// h-relations and the barriers.
static CalibrationStatus fit_exchange(CalibrationRun *runs, int n, double unit[CAL_TERMS]) {
  bool terms[CAL_TERMS] = {0};
  terms[CAL_LOADS_SHARED] = terms[CAL_STORES_SHARED] = terms[CAL_UNPACKED_SHARED] = true;
  terms[CAL_UNPACKED] = terms[CAL_UNPACKED_MEM] = true;
  terms[CAL_VECTORS] = terms[CAL_WORDS] = terms[CAL_WORDS_MEM] = terms[CAL_BARRIERS] = true;
  return calibration_fit_bound(runs, n, terms, unit);
}

// The programs of the core's runs (at p = 1) and of the exchange's (at p > 1).
static const CalTable core_tables[] = {{latency_programs, NLATENCY}, {programs, NPROGRAMS}};
static const CalTable exchange_tables[] = {{programs, NPROGRAMS}, {in_place_programs, NIN_PLACE}};

// The core's units, fitted to the runs at p = 1 (measured, or looked up in
// recorded) into guess, with the memory curves measured beside them (on
// one process and on p) into guess and *curves (a recorded probe's are in
// guess already): the runs go to runs, their rows to report. Returns how
// many runs, and in *r2 how well the units explain them.
static int calibrate_core(Arena *a, int sizes, int p, const Options *base, const json_t *recorded,
                          Calibration *guess, CalibrationRun *runs, json_t *report, json_t **curves, double *r2,
                          CalibrationStatus *status) {
  int counts[2];
  measure_all(a, core_tables, 2, sizes, base, 1, guess, recorded, runs, report, counts, p, curves);
  int nlat = counts[0], nthr = counts[1];
  int plain = exits_last(runs + nlat, nthr);
  *status = fit_local(runs, nlat, runs + nlat, plain, guess->unit);
  merge_status(status, fit_rest(runs + nlat + plain, nthr - plain, (bool[CAL_TERMS]){[CAL_EXITS] = true}, guess->unit));
  *r2 = calibration_r2(runs, nlat + nthr, guess->unit);
  return nlat + nthr;
}

// A run the machine disturbed (another tenant, a slow spell) spoils the
// core's units, which every prediction uses: the runs at p = 1 are measured
// again while their fit explains less than CORE_R2, CORE_ATTEMPTS times at
// most, and the best attempt is kept. Undisturbed, the fit explains 0.995
// to 0.998 of them on this VM; one disturbed probe explained 0.954 and
// predicted matvec 21-34% high.
#define CORE_R2 0.98
enum { CORE_ATTEMPTS = 3, CORE_RUNS = (NLATENCY + NPROGRAMS) * 3 };

// calibrate_core until it fits, at most max_attempts times (recorded times
// are fitted once): the best attempt's units and curves into guess (which
// starts it), its runs into runs, its rows into *report and its curves into
// *curves (new; kept when recorded). Returns how many runs; *attempts, how
// many attempts.
static int calibrate_core_best(Arena *a, int sizes, int max_attempts, int p, const Options *base,
                               const json_t *recorded, Calibration *guess, CalibrationRun *runs, json_t **report,
                               json_t **curves, int *attempts, CalibrationStatus *status) {
  const Calibration start = *guess;
  CalibrationRun tried[CORE_RUNS];
  double best = -INFINITY;
  int n = 0;
  *report = NULL;
  for (*attempts = 0; *attempts < (recorded ? 1 : max_attempts) && best < CORE_R2; ++*attempts) {
    Calibration g = start;
    json_t *rows = json_array(), *measured = NULL;
    double r2;
    CalibrationStatus st;
    int k = calibrate_core(a, sizes, p, base, recorded, &g, tried, rows, &measured, &r2, &st);
    if (r2 <= best) {
      json_decref(rows);
      json_decref(measured);
      continue;
    }
    best = r2, *guess = g, n = k, *status = st;
    memcpy(runs, tried, (size_t)k * sizeof *runs);
    json_decref(*report);
    *report = rows;
    if (measured) json_decref(*curves), *curves = measured;
  }
  return n;
}

// The backend an earlier probe measured its runs at p = 1 on: threads
// since the core's units are measured there, else (older files) its own.
static const char *recorded_core_backend(const json_t *recorded, const char *backend) {
  size_t i;
  json_t *row;
  json_array_foreach(recorded, i, row) {
    const char *on = json_string_value(json_object_get(row, "backend"));
    if (json_integer_value(json_object_get(row, "p")) == 1 && on) return strcmp(on, "mpi") ? "threads" : "mpi";
  }
  return backend;
}

// The machine file's "calibration_fit": the exchange's units as fitted at
// p, the core's as fitted at p = 1, saying so when that ran on core_backend
// for a probe of another backend.
static json_t *fit_report(Arena *a, CalibrationStatus core, CalibrationStatus exchange, const char *core_backend,
                          const char *backend) {
  json_t *how = json_object();
  const char *on = strcmp(core_backend, backend) ? core_backend : NULL;
  for (int t = 0; t < CAL_TERMS; t++) {
    bool at_p = exchange.of[t] != CAL_NOT_FITTED;
    const char *text = at_p ? status_text(a, exchange.of[t], t, NULL)
                            : status_text(a, core.of[t], t, core.of[t] != CAL_NOT_FITTED ? on : NULL);
    json_object_set_new(how, cal_term_names[t], json_string(text));
  }
  return how;
}

const char *cli_calibration_programs(Arena *a) {
  const CalTable tables[] = {{latency_programs, NLATENCY}, {programs, NPROGRAMS}, {in_place_programs, NIN_PLACE}};
  uint64_t h = CLI_HASH_SEED;
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < tables[k].n; i++) {
      const CalProgram *cp = &tables[k].progs[i];
      h = cli_hash(cli_hash(cli_hash(h, cp->name), cp->source), cp->plan);
      for (int s = 0; s < 3; s++) h = cli_hash(cli_hash(h, cp->sizes[s][0]), cp->sizes[s][1]);
    }
  h = cli_memory_curve_hash(h);
  return arena_printf(a, "%016llx", (unsigned long long)h);
}

// The programs of tables that recorded has no time for at p (at any of
// their first `sizes` sizes), added to missing[0 .. *n) if not there yet.
static void unrecorded(const json_t *recorded, const CalTable *tables, int ntables, int p, int sizes,
                       const char **missing, int *n) {
  for (int k = 0; k < ntables; k++)
    for (int i = 0; i < tables[k].n; i++) {
      const CalProgram *cp = &tables[k].progs[i];
      bool lacks = false;
      for (int size = 0; size < sizes && cp->sizes[size][0]; size++)
        lacks |= recorded_seconds(recorded, cp->name, p, size) <= 0;
      if (!lacks) continue;
      int j = 0;
      while (j < *n && strcmp(missing[j], cp->name) != 0) j++;
      if (j == *n) missing[(*n)++] = cp->name;
    }
}

// The mark of the calibration programs that timed the runs (NULL: not this
// version's, or not known): this version's when it times them now, or when
// an earlier probe that they timed has a time for each of its runs (else a
// note says why the refit is not marked; cli_host_machine trusts the mark).
static const char *programs_mark(Arena *a, const json_t *earlier, int p, int sizes) {
  const char *now = cli_calibration_programs(a);
  if (!earlier) return now;
  const char *then = json_string_value(json_object_get(earlier, "calibration_programs")), *why = NULL;
  if (!then) {
    why = "the file does not say which calibration programs timed its runs";
  } else if (strcmp(then, now) != 0) {
    why = "the recorded runs were timed by another version's calibration programs";
  } else if (!cli_memory_curves_timed(earlier, p)) {
    why = "the file lacks the memory curves' kernel times (\"memory_curves\")";
  } else {
    const json_t *recorded = json_object_get(earlier, "calibration_runs");
    const char *missing[NLATENCY + NPROGRAMS + NIN_PLACE];
    int n = 0;
    unrecorded(recorded, core_tables, 2, 1, sizes, missing, &n);
    if (p > 1) unrecorded(recorded, exchange_tables, 2, p, sizes, missing, &n);
    const char *names = n ? missing[0] : "";
    for (int i = 1; i < n; i++) names = arena_printf(a, "%s, %s", names, missing[i]);
    if (n)
      why = arena_printf(a, "the recorded runs have no time for %d of this version's calibration programs (%s)", n,
                         names);
  }
  if (why) fprintf(stderr, "vecbsp: note: %s: refitted, and not marked as this version's probe\n", why);
  return why ? NULL : now;
}

// The core's units do not depend on how the processes talk: they are
// measured at p = 1 on threads whatever the backend (with MPI, a launch of
// mpirun for each of the 150-odd runs of each attempt made most of the
// probe's time), and only the exchange's runs at p > 1 on the backend.
json_t *cli_calibrate(const char *backend, int p, double s, Calibration caches, const char *effort,
                      const json_t *earlier) {
  Arena *a = arena_new();
  const json_t *recorded = earlier ? json_object_get(earlier, "calibration_runs") : NULL;
  Options base = {.backend = backend, .has_seed = true, .seed = 1};
  bool quick = effort && strcmp(effort, "--quick") == 0;
  base.repeat = quick ? 1 : effort && strcmp(effort, "--long") == 0 ? 21 : 11;
  base.rounds = quick ? 1 : PROBE_ROUNDS;
  Options core = base;
  core.backend = recorded ? recorded_core_backend(recorded, backend) : "threads";
  int sizes = quick && !recorded ? 1 : 3;
  CalibrationRun runs[CORE_RUNS + (NPROGRAMS + NIN_PLACE) * 3];
  json_t *report;
  int attempts;
  // The busiest process is chosen by operations first (one per 1/s seconds),
  // then by the units fitted at p = 1.
  Calibration guess = {.present = true, .unit = {1 / s, 1 / s}, .cache_bytes = caches.cache_bytes,
                       .l1_bytes = caches.l1_bytes};
  CalibrationStatus core_status, exchange_status = {0};
  // A recorded probe's memory curves first: the runs' counts take their
  // shares from them (a new probe measures them with the runs at p = 1).
  json_t *had = recorded ? json_object_get(earlier, "memory_curves") : NULL;
  json_t *curves = had ? cli_memory_curves_again(had, &guess) : json_array();
  // A quick probe takes its one attempt, however well it fits (on a loaded
  // machine every attempt may fit badly, and three tripled its time).
  int n = calibrate_core_best(a, sizes, quick ? 1 : CORE_ATTEMPTS, p, &core, recorded, &guess, runs, &report, &curves,
                              &attempts, &core_status);
  if (p > 1) {
    // The in-place kernels measure memory streamed beyond the cache: a
    // quick probe's one size (16 MB) is not.
    int counts[2];
    int np = measure_all(a, exchange_tables, sizes > 1 ? 2 : 1, sizes, &base, p, &guess, recorded, runs + n, report,
                         counts, 0, NULL);
    exchange_status = fit_exchange(runs + n, np, guess.unit);
    n += np;
  }
  progress_end();
  double r2 = calibration_r2(runs, n, guess.unit);
  json_t *cal = json_object();
  for (int t = 0; t < CAL_TERMS; t++) json_object_set_new(cal, cal_term_names[t], json_real(guess.unit[t]));
  json_t *out = json_pack("{s:o, s:o, s:f, s:i, s:o, s:o}", "calibration", cal, "calibration_fit",
                          fit_report(a, core_status, exchange_status, core.backend, backend), "calibration_r2", r2,
                          "calibration_attempts", attempts, "calibration_runs", report, "memory_curves", curves);
  const char *mark = programs_mark(a, earlier, p, sizes);
  if (mark) json_object_set_new(out, "calibration_programs", json_string(mark));
  arena_free(a);
  return out;
}
