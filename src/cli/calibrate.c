// calibrate.c: `vecbsp probe`'s calibration: small VEC-BSP programs, each
// stressing one kind of work, are compiled, run and predicted by the exact
// model; the per-unit times of its counts are fitted to the measurements.
#include "cli/cli.h"
#include "exec/exec.h"

#include <string.h>

// A calibration program and the sizes it runs at.
typedef struct CalProgram {
  const char *name;    // for the report
  const char *source;  // VEC-BSP text
  const char *sizes[2][2];  // two runs, each up to two -D NAME=VALUE
} CalProgram;

static const CalProgram programs[] = {
    {"sum", "param n\ninput v : [n]int\nmain = fold (+) v\n", {{"n=2000000"}, {"n=8000000"}}},
    {"map", "param n\ninput v : [n]int\nmain = length (map (\\x -> x * 3 + 1) v)\n", {{"n=2000000"}, {"n=8000000"}}},
    {"divide", "param n\ninput v : [n]int\nmain = fold (+) (map (\\x -> x / 7 + x % 5) v)\n",
     {{"n=2000000"}, {"n=8000000"}}},
    {"scan", "param n\ninput v : [n]int\nmain = fold max (prefix (+) v)\n", {{"n=2000000"}, {"n=8000000"}}},
    {"rows", "param m n\ninput M : [m][n]int\nmain = fold (+) (map (fold (+)) M)\n",
     {{"m=1000", "n=2000"}, {"m=4000", "n=2000"}}},
    {"vector fold", "param m n\ninput M : [m][n]int\nmain = fold (+) (fold (\\a b -> pair_map (+) (a, b)) M)\n",
     {{"m=1000", "n=2000"}, {"m=4000", "n=2000"}}},
    {"segments", "param n\ninput v : [n]int\nmain = length (redconcat (inits v))\n", {{"n=1500"}, {"n=3000"}}},
    {"short rows", "param m n\ninput M : [m][n]int\nmain = fold (+) (map (fold (+)) M)\n",
     {{"m=250000", "n=8"}, {"m=1000000", "n=8"}}},
    {"segment sums", "param n\ninput v : [n]int\nmain = fold max (map (fold (+)) (inits v))\n",
     {{"n=1500"}, {"n=3000"}}},
    {"tiny sum", "param n\ninput v : [n]int\nmain = fold (+) v\n", {{"n=500"}, {"n=2000"}}},
    {"tiny scan", "param n\ninput v : [n]int\nmain = fold max (prefix (+) v)\n", {{"n=500"}, {"n=2000"}}},
    {"dot", "param n\ninput a : [n]int\ninput b : [n]int\nmain = fold (+) (pair_map (*) (a, b))\n",
     {{"n=2000000"}, {"n=8000000"}}},
    {"broadcast",
     "param m n\ninput v : [n]int\ninput w : [m]int\n"
     "main = fold (+) (map (\\x -> fold (+) (map (\\y -> y * x) v)) w)\n",
     {{"m=4", "n=1000000"}, {"m=4", "n=4000000"}}},
};
enum { NPROGRAMS = sizeof programs / sizeof *programs };

// The counts of each superstep's busiest process (by a first guess of the
// per-unit times), summed, with the words of the h-relations and the barriers.
static CalibrationRun model_run(const ExactResult *x, const double guess[CAL_TERMS]) {
  CalibrationRun run = {0};
  for (int i = 0; i < x->nsteps; i++) {
    const ExactStep *st = &x->steps[i];
    int busiest = 0;
    for (int k = 1; k < x->p; k++)
      if (cost_local_seconds(guess, &st->procs[k]) > cost_local_seconds(guess, &st->procs[busiest])) busiest = k;
    const ExactCounts *c = &st->procs[busiest];
    double n[CAL_WORDS] = {(double)c->ops, (double)c->divs, (double)c->elems, (double)c->loads, (double)c->stores};
    for (int t = 0; t < CAL_WORDS; t++) run.count[t] += n[t];
    run.count[CAL_WORDS] += (double)st->h;
    run.count[CAL_BARRIERS] += i + 1 < x->nsteps;
  }
  return run;
}

// Runs one program at one size: the measured local time and its counts.
static CalibrationRun measure_one(Arena *a, const CalProgram *cp, int size, const Options *base, int p,
                                  const double guess[CAL_TERMS]) {
  Program *prog = cli_load_string(a, cp->name, cp->source);
  Options opt = *base;
  opt.defines = (const char **)cp->sizes[size];
  opt.ndefines = cp->sizes[size][1] ? 2 : 1;
  int64_t *params = cli_bind_params(a, prog, &opt);
  ExactResult x;
  exact_cost(prog, params, p, &x);
  CalibrationRun run = model_run(&x, guess);
  RunOutcome o = runner_measure(a, runner_build(a, prog, &opt), &opt, p);
  run.seconds = o.median;
  runner_free(&o);
  return run;
}

json_t *cli_calibrate(const char *backend, int p, double s, const char *effort) {
  Arena *a = arena_new();
  Options base = {.backend = backend, .has_seed = true, .seed = 1};
  base.repeat = effort && strcmp(effort, "--quick") == 0 ? 1 : effort && strcmp(effort, "--long") == 0 ? 15 : 5;
  int sizes = effort && strcmp(effort, "--quick") == 0 ? 1 : 2;
  CalibrationRun runs[NPROGRAMS * 2];
  int n = 0;
  json_t *report = json_array();
  // The busiest process is chosen by operations first (one per 1/s seconds).
  double guess[CAL_TERMS] = {1 / s, 1 / s};
  for (int i = 0; i < NPROGRAMS; i++)
    for (int size = 0; size < sizes; size++) {
      CalibrationRun r = measure_one(a, &programs[i], size, &base, p, guess);
      json_t *row = json_pack("{s:s, s:f}", "program", programs[i].name, "seconds", r.seconds);
      for (int t = 0; t < CAL_TERMS; t++) json_object_set_new(row, cal_term_names[t], json_real(r.count[t]));
      json_array_append_new(report, row);
      if (r.seconds > 0) runs[n++] = r;
    }
  double unit[CAL_TERMS];
  double r2 = calibration_fit(runs, n, unit);
  json_t *cal = json_object();
  for (int t = 0; t < CAL_TERMS; t++) json_object_set_new(cal, cal_term_names[t], json_real(unit[t]));
  arena_free(a);
  return json_pack("{s:o, s:f, s:o}", "calibration", cal, "calibration_r2", r2, "calibration_runs", report);
}
