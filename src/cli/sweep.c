// sweep.c: `vecbsp sweep A.vec B.vec ... --vary NAME=FROM:TO:STEP`: the
// predicted cost of each program over a range of sizes, the points where
// the cheapest program changes, and with --measure the measured times
// beside them; as a table, --csv, --json or --plot.
#include "cli/cli.h"
#include "cost/cost.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

// Shared with cost.c, which defines them.

enum { MAX_POINTS = 1000000 };

// One program at one point of the ranges: predicted and (--measure) measured.
typedef struct Sample {
  double W, H, S, ops;   // as cost reports them
  double predicted;      // seconds
  double measured;       // --measure: seconds, the fastest round's median of the runs
  double measured_min;   // --measure: fastest run
  double *round_medians; // --measure: each round's median (--rounds of them)
  json_t **round_checks; // --measure: the steadiness check before each round's run
  bool unsteady;         // --measure: its fastest round's check was not steady (steady_check_holds)
  const Plan *plan;      // the plan predicted, and measured (as its runner_executed_plan)
} Sample;

typedef struct Sweep {
  Arena *arena;        // owns the programs and the results
  Options opt;         // the command line
  Program **progs;     // the programs compared
  int nprogs;
  VaryRange *ranges;   // the --vary ranges, advanced together
  int nranges;
  int64_t npoints;     // values of each range
  CostModel model;     // as for cost
  Machine machine;     // before -p is varied
  Machine planning;    // the machine the plans are made for (cli_planning_machine)
  const CostClosed **closed;  // by program: the paper model's closed forms (NULL: none)
  Sample *samples;     // by point * nprogs + program
  json_t *steadiness;  // --measure: the machine's, checked before every run (steady.c)
} Sweep;

static const char range_syntax[] =
    "expected integers NAME=FROM:TO:STEP (such as n=1000:100000:1000 or n=1e3:1e5:1e3; STEP 1 may be left out), or a "
    "factor NAME=FROM:TO:*F (such as n=1e3:1e7:*10)";

static int64_t parse_bound(const char *text, const char *spec) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || (*end != '\0' && *end != ':') || errno || v != floor(v) || fabs(v) > 4e18)
    fatal("--vary %s: %s", spec, range_syntax);
  return (int64_t)v;
}

// FROM, FROM*factor, ... up to TO, rounded; a value that rounds to the one
// before is left out.
static int64_t geometric_values(Arena *a, const char *spec, int64_t from, int64_t to, const char *factor_text,
                                int64_t **values) {
  char *end;
  errno = 0;
  double factor = strtod(factor_text, &end);
  if (end == factor_text || *end || errno || !isfinite(factor)) fatal("--vary %s: %s", spec, range_syntax);
  if (factor <= 1) fatal("--vary %s: the factor must be above 1", spec);
  if (from < 1) fatal("--vary %s: with a factor, FROM must be at least 1", spec);
  int64_t count = 0, most = (int64_t)ceil(log((double)to / (double)from) / log(factor)) + 1;
  if (most > MAX_POINTS) fatal("--vary %s: more than %d points", spec, MAX_POINTS);
  *values = arena_calloc(a, (size_t)most + 1, sizeof **values);
  for (double x = (double)from; x < 4.5e18 && llround(x) <= to; x *= factor)
    if (count == 0 || llround(x) > (*values)[count - 1]) (*values)[count++] = llround(x);
  return count;
}

VaryRange sweep_parse_vary(Arena *a, const char *spec) {
  char *name;
  const char *value;
  cli_split_assignment(spec, "--vary", &name, &value, a);
  const char *c1 = strchr(value, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  if (!c1 || (c2 && strchr(c2 + 1, ':'))) fatal("--vary %s: %s", spec, range_syntax);
  int64_t from = parse_bound(value, spec), to = parse_bound(c1 + 1, spec);
  if (to < from) fatal("--vary %s: TO must be at least FROM", spec);
  if (strcmp(name, "p") == 0 && (from < 1 || to > (1 << 20))) fatal("--vary %s: p must be in [1, 1048576]", spec);
  VaryRange r = {.name = name, .geometric = c2 && c2[1] == '*'};
  if (r.geometric) {
    r.count = geometric_values(a, spec, from, to, c2 + 2, &r.values);
    return r;
  }
  int64_t step = c2 ? parse_bound(c2 + 1, spec) : 1;
  if (step <= 0) fatal("--vary %s: STEP must be positive", spec);
  r.count = (to - from) / step + 1;
  if (r.count > MAX_POINTS) fatal("--vary %s: more than %d points", spec, MAX_POINTS);
  r.values = arena_calloc(a, (size_t)r.count, sizeof *r.values);
  for (int64_t i = 0; i < r.count; i++) r.values[i] = from + i * step;
  return r;
}

static int64_t range_value(const VaryRange *r, int64_t i) { return r->values[i]; }

static void setup(Sweep *sw) {
  Options *opt = &sw->opt;
  if (opt->measure && !opt->backend) opt->backend = "threads";
  if (opt->measure && !opt->has_seed) opt->has_seed = true, opt->seed = 1;  // inputs: --random 1
  if (opt->measure && !opt->repeat) opt->repeat = 3;
  if (opt->measure && !opt->rounds) opt->rounds = 1;
  if (opt->nfiles == 0) fatal("sweep expects program files: vecbsp sweep A.vec B.vec --vary NAME=FROM:TO:STEP");
  if (opt->nvaries == 0) fatal("sweep needs --vary NAME=FROM:TO:STEP");
  if (opt->rounds && !opt->measure) fatal("--rounds is an option of --measure");
  if (opt->json && opt->csv) fatal("--json and --csv are exclusive");
  if (opt->plot) sweep_check_plot(opt->plot);
  sw->arena = arena_new();
  sw->model = cost_model_from_options(opt);
  // Measured here, predicted for here: the machine given, else this host's probe.
  if (opt->measure) opt->machine = cli_given_machine(opt);
  if (opt->measure && !opt->machine && strcmp(opt->backend, "hybrid") == 0)
    fatal("sweep --measure --backend hybrid: give the machine with --machine (vecbsp probe --levels RANKSxTHREADS "
          "measures one)");
  if (opt->measure && !opt->machine) opt->machine = cli_host_machine(sw->arena, opt->backend, opt->p ? opt->p : cli_cores());
  sw->machine = cost_machine_from_options(sw->arena, opt);
  sw->planning = cli_planning_machine(sw->arena, opt);
  if (opt->measure && (sw->machine.tree || sw->planning.tree) && strcmp(opt->backend, "hybrid") != 0)
    fatal("sweep --measure: machine %s has levels, whose plans run on --backend hybrid (docs/hierarchical.md)",
          (sw->machine.tree ? sw->machine : sw->planning).name);
  sw->nranges = opt->nvaries;
  sw->ranges = arena_calloc(sw->arena, (size_t)sw->nranges, sizeof *sw->ranges);
  for (int i = 0; i < sw->nranges; i++) {
    sw->ranges[i] = sweep_parse_vary(sw->arena, opt->varies[i]);
    for (int k = 0; k < i; k++)
      if (strcmp(sw->ranges[k].name, sw->ranges[i].name) == 0)
        fatal("--vary %s: %s varies twice", opt->varies[i], sw->ranges[i].name);
    size_t len = strlen(sw->ranges[i].name);
    for (int k = 0; k < opt->ndefines; k++)
      if (strncmp(opt->defines[k], sw->ranges[i].name, len) == 0 && opt->defines[k][len] == '=')
        fatal("--vary %s: %s is bound by -D %s too", opt->varies[i], sw->ranges[i].name, opt->defines[k]);
    if (sw->ranges[i].count != sw->ranges[0].count)
      fatal("--vary %s: every --vary advances together, so each needs as many values (%lld here, %lld for %s)",
            opt->varies[i], (long long)sw->ranges[i].count, (long long)sw->ranges[0].count, sw->ranges[0].name);
  }
  for (int i = 0; i < sw->nranges && sw->machine.tree; i++)
    if (strcmp(sw->ranges[i].name, "p") == 0)
      fatal("machine %s is hierarchical: its plans are for its %d workers, so p does not vary", sw->machine.name,
            sw->machine.tree->leaves);
  sw->npoints = sw->ranges[0].count;
  sw->nprogs = opt->nfiles;
  sw->progs = arena_calloc(sw->arena, (size_t)sw->nprogs, sizeof *sw->progs);
  for (int j = 0; j < sw->nprogs; j++) sw->progs[j] = cli_load_program(sw->arena, opt->files[j], NULL);
}

static bool is_p(const VaryRange *r) { return strcmp(r->name, "p") == 0; }

// The number of processes at point i.
static int point_p(Sweep *sw, int64_t i) {
  for (int r = 0; r < sw->nranges; r++)
    if (is_p(&sw->ranges[r])) return (int)range_value(&sw->ranges[r], i);
  return sw->machine.p;
}

// One warning if the machine was probed at another p than a point of the
// sweep's (the first such point), or on another backend than the one measured.
static void warn_machine_once(Sweep *sw) {
  int p = point_p(sw, 0);
  for (int64_t i = 1; i < sw->npoints && (p == sw->machine.probed_p || p == 1); i++) p = point_p(sw, i);
  cost_warn_machine(&sw->machine, p, sw->opt.measure ? sw->opt.backend : NULL);
}

// o with -D name=value added.
static Options with_define(Arena *a, Options o, const char *name, int64_t value) {
  const char **defines = arena_calloc(a, (size_t)o.ndefines + 2, sizeof *defines);
  if (o.ndefines) memcpy((void *)defines, o.defines, (size_t)o.ndefines * sizeof *defines);
  defines[o.ndefines++] = arena_printf(a, "%s=%lld", name, (long long)value);
  o.defines = defines;
  return o;
}

// The options of point i: the -D given plus the varied params.
static Options point_options(Sweep *sw, Arena *a, int64_t i) {
  Options o = sw->opt;
  for (int r = 0; r < sw->nranges; r++)
    if (!is_p(&sw->ranges[r])) o = with_define(a, o, sw->ranges[r].name, range_value(&sw->ranges[r], i));
  return o;
}

// The paper model's closed forms of each program, when it has them: a
// prediction at any size then costs as much as at a small one (programs
// without them are analysed at each point), and the leading terms.
static void find_closed_forms(Sweep *sw) {
  sw->closed = arena_calloc(sw->arena, (size_t)sw->nprogs, sizeof *sw->closed);
  for (int j = 0; j < sw->nprogs; j++) sw->closed[j] = cost_closed_forms(sw->arena, sw->progs[j], &sw->machine);
}

// Program j's prediction on p processes with the params of o.
static Sample predict_one(Sweep *sw, int j, int p, const Options *o) {
  Arena *a = arena_new();
  CostRequest req = {.prog = sw->progs[j], .model = sw->model, .machine = sw->machine};
  req.machine.p = p;
  req.params = cli_bind_params(a, sw->progs[j], o);
  CostResult closed;
  if (sw->model == MODEL_PAPER && !sw->opt.measure && cost_closed_predict(sw->closed[j], &req.machine, req.params, &closed)) {
    arena_free(a);
    return (Sample){.W = closed.W, .H = closed.H, .S = closed.S, .ops = closed.ops, .predicted = closed.seconds};
  }
  Machine planning = sw->planning;
  planning.p = p;
  if (sw->model == MODEL_EXACT || sw->opt.measure)  // what runs; the paper model predicts its template
    req.plan = cost_plan(sw->progs[j], req.params, &planning, sw->opt.plan, false);
  CostResult r = cost_analyse(a, &req);
  arena_free(a);
  return (Sample){.W = r.W, .H = r.H, .S = r.S, .ops = r.ops, .predicted = r.seconds, .plan = req.plan};
}

// The progress line's detail: program j at point i.
static char *point_text(Sweep *sw, Arena *a, int64_t i, int j);

static void predict(Sweep *sw) {
  sw->samples = arena_calloc(sw->arena, (size_t)(sw->npoints * sw->nprogs), sizeof *sw->samples);
  progress_begin("sweep: predicting", sw->npoints * sw->nprogs);
  for (int64_t i = 0; i < sw->npoints; i++)
    for (int j = 0; j < sw->nprogs; j++) {
      Arena *a = arena_new();
      progress_step(i * sw->nprogs + j, point_text(sw, a, i, j));
      Options o = point_options(sw, a, i);
      sw->samples[i * sw->nprogs + j] = predict_one(sw, j, point_p(sw, i), &o);
      arena_free(a);
    }
  progress_end();
}

static Sample *sample(Sweep *sw, int64_t i, int j) { return &sw->samples[i * sw->nprogs + j]; }

// Seconds of the steadiness check before each run: at some 10 us a timing,
// thousands. A slow spell of this VM can start or end within a round, so a
// check a round tells little about the runs after it.
#define CHECK_SECONDS 0.05

// Sample k's options as it runs: its point's, with the --nodes its plan takes.
static Options run_options(Sweep *sw, Arena *a, int64_t k) {
  Options o = point_options(sw, a, k / sw->nprogs);
  o.nodes = runner_nodes(sw->samples[k].plan, &o);
  return o;
}

// Sample k compiled as it runs (runner_executed_plan), and in *processes
// how many processes it runs on.
static char *build_sample(Sweep *sw, Arena *a, int64_t k, int *processes) {
  Program *prog = sw->progs[k % sw->nprogs];
  const Plan *pl = sw->samples[k].plan;
  Options o = run_options(sw, a, k);
  *processes = runner_processes(pl, &o, point_p(sw, k / sw->nprogs));
  const Plan *executed =
      runner_executed_plan(prog, cli_bind_params(a, prog, &o), pl, *processes, sw->planning, sw->opt.plan, false);
  return runner_build(a, prog, executed, &sw->opt);
}

// --measure: every program compiled once, measured at every point
// (--repeat K, 3 by default) on as many processes as the point predicts for,
// in --rounds R rounds over all the points (1 by default), keeping the
// fastest round's median, as the probe does (runner_fastest_round). The
// programs are measured one after the other at each point, so that the
// alternatives the ranking compares run seconds apart, not minutes: a
// machine whose speed drifts shifts them alike. Rounds see a machine whose
// speed changes from one second to the next (this VM's) in several of its
// states. The machine's steadiness is checked before every run, on threads
// (the cores'; mpirun would take half a second a check) on as many
// processes as the largest point runs, and a sample is marked by the check
// before its fastest round.
static void measure(Sweep *sw) {
  int rounds = sw->opt.rounds, p = 1;
  Arena *a = arena_new();
  int64_t runs = sw->npoints * sw->nprogs;
  char **exe = arena_calloc(a, (size_t)runs, sizeof *exe);
  int *processes = arena_calloc(a, (size_t)runs, sizeof *processes);
  progress_begin("sweep: compiling", runs);
  for (int64_t k = 0; k < runs; k++) {
    progress_step(k, point_text(sw, a, k / sw->nprogs, (int)(k % sw->nprogs)));
    exe[k] = build_sample(sw, a, k, &processes[k]);
  }
  progress_begin("sweep: measuring", rounds * runs);
  for (int64_t i = 0; i < sw->npoints; i++) p = point_p(sw, i) > p ? point_p(sw, i) : p;
  json_t *steadiness = json_array();
  double *medians = arena_calloc(sw->arena, (size_t)(runs * rounds), sizeof *medians);
  json_t **checks = arena_calloc(sw->arena, (size_t)(runs * rounds), sizeof *checks);
  for (int round = 0; round < rounds; round++) {
    for (int64_t i = 0; i < sw->npoints; i++) {
      Arena *point = arena_new();
      for (int j = 0; j < sw->nprogs; j++) {
        int64_t k = i * sw->nprogs + j;
        progress_step(round * runs + k,
                      rounds > 1 ? arena_printf(point, "round %d, %s", round + 1, point_text(sw, point, i, j))
                                 : point_text(sw, point, i, j));
        Sample *s = sample(sw, i, j);
        Options run = run_options(sw, point, k);
        checks[k * rounds + round] = steady_measure(a, "threads", p, CHECK_SECONDS);
        json_array_append_new(steadiness, checks[k * rounds + round]);  // kept alive by sw->steadiness
        RunOutcome r = runner_measure(point, exe[k], &run, processes[k]);
        medians[k * rounds + round] = r.median;
        s->measured_min = round == 0 ? r.min : fmin(s->measured_min, r.min);
        runner_free(&r);
      }
      arena_free(point);
    }
  }
  progress_end();
  sw->steadiness = steady_merge(steadiness);
  json_decref(steadiness);
  for (int64_t k = 0; k < runs; k++) {
    Sample *s = &sw->samples[k];
    s->round_medians = medians + k * rounds;
    s->round_checks = checks + k * rounds;
    int best = runner_fastest_round(s->round_medians, rounds);
    s->measured = s->round_medians[best];
    s->unsteady = !steady_check_holds(s->round_checks[best], sw->steadiness);
  }
  arena_free(a);
}

static double rel_error(const Sample *s) { return (s->predicted - s->measured) / s->measured; }


// How well the predictions match the measurements.
typedef struct Accuracy {
  double median_abs;  // median of |relative error|
  double max_abs;     // largest |relative error|
  int pairs;          // pairs of programs at a point whose times differ by > 10%
  int ranked_right;   // of those, pairs the prediction orders as measured
} Accuracy;

static Accuracy accuracy(Sweep *sw) {
  int64_t n = sw->npoints * sw->nprogs;
  double *errs = arena_calloc(sw->arena, (size_t)n, sizeof *errs);
  Accuracy acc = {0};
  for (int64_t k = 0; k < n; k++) errs[k] = fabs(rel_error(&sw->samples[k]));
  acc.median_abs = runner_median(errs, n);
  acc.max_abs = errs[n - 1];
  for (int64_t i = 0; i < sw->npoints; i++)
    for (int j = 0; j < sw->nprogs; j++)
      for (int k = j + 1; k < sw->nprogs; k++) {
        Sample *x = sample(sw, i, j), *y = sample(sw, i, k);
        double lo = fmin(x->measured, y->measured), hi = fmax(x->measured, y->measured);
        if (hi <= 1.1 * lo) continue;
        acc.pairs++;
        acc.ranked_right += (x->measured < y->measured) == (x->predicted < y->predicted);
      }
  return acc;
}

static int cheapest(Sweep *sw, int64_t i) {
  int best = 0;
  for (int j = 1; j < sw->nprogs; j++)
    if (sample(sw, i, j)->predicted < sample(sw, i, best)->predicted) best = j;
  return best;
}

static const char *prog_name(Sweep *sw, int j) {
  const char *slash = strrchr(sw->progs[j]->src->name, '/');
  return slash ? slash + 1 : sw->progs[j]->src->name;
}

static char *point_text(Sweep *sw, Arena *a, int64_t i, int j) {
  char *text = arena_printf(a, "%s at", prog_name(sw, j));
  for (int r = 0; r < sw->nranges; r++)
    text = arena_printf(a, "%s%s %s = %lld", text, r ? "," : "", sw->ranges[r].name, (long long)range_value(&sw->ranges[r], i));
  return text;
}

// Where the cheapest program changes between points i and i+1: the first
// range's value at which the two cost the same (linear in between).
static double crossing(Sweep *sw, int64_t i, int before, int after) {
  double d0 = sample(sw, i, before)->predicted - sample(sw, i, after)->predicted;
  double d1 = sample(sw, i + 1, before)->predicted - sample(sw, i + 1, after)->predicted;
  double x0 = (double)range_value(&sw->ranges[0], i), x1 = (double)range_value(&sw->ranges[0], i + 1);
  return d1 == d0 ? x0 : x0 + (x1 - x0) * (-d0) / (d1 - d0);
}

// The same as an exact size: the first value of the one range varied (a
// param) from which `after` is predicted cheaper than `before`, found by
// bisection on the model between points i and i+1 (it assumes one change
// of sign in between); -1 when several ranges vary together or p varies.
static int64_t first_cheaper(Sweep *sw, int64_t i, int before, int after) {
  if (sw->nranges != 1 || is_p(&sw->ranges[0])) return -1;
  int64_t lo = range_value(&sw->ranges[0], i), hi = range_value(&sw->ranges[0], i + 1);  // after: not cheaper, cheaper
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    Arena *a = arena_new();
    Options o = with_define(a, sw->opt, sw->ranges[0].name, mid);
    bool cheaper = predict_one(sw, after, sw->machine.p, &o).predicted < predict_one(sw, before, sw->machine.p, &o).predicted;
    arena_free(a);
    *(cheaper ? &hi : &lo) = mid;
  }
  return hi;
}

//
// Output.
//

static void print_point(Sweep *sw, FILE *out, int64_t i, const char *sep, bool json) {
  for (int r = 0; r < sw->nranges; r++)
    fprintf(out, json ? "%s\"%s\": %lld" : "%s%s = %lld", r ? sep : "", sw->ranges[r].name,
            (long long)range_value(&sw->ranges[r], i));
}

static void print_crossovers(Sweep *sw, FILE *out) {
  bool any = false;
  for (int64_t i = 0; i + 1 < sw->npoints; i++) {
    int a = cheapest(sw, i), b = cheapest(sw, i + 1);
    if (a == b) continue;
    if (!any) fputs("\ncrossovers (predicted):\n", out);
    any = true;
    fprintf(out, "  between ");
    print_point(sw, out, i, ", ", false);
    fputs(" and ", out);
    print_point(sw, out, i + 1, ", ", false);
    fprintf(out, ": %s becomes cheaper than %s", prog_name(sw, b), prog_name(sw, a));
    int64_t from = first_cheaper(sw, i, a, b);
    if (from >= 0) fprintf(out, " from %s = %lld on", sw->ranges[0].name, (long long)from);
    double at = crossing(sw, i, a, b);  // a size: whole past 4 digits
    fprintf(out, fabs(at) >= 1e4 ? " (equal at %s = %.0f, linear between the points)\n"
                                 : " (equal at %s = %.4g, linear between the points)\n",
            sw->ranges[0].name, at);
  }
  if (!any) fprintf(out, "\nno crossover: %s is the cheapest throughout\n", prog_name(sw, cheapest(sw, 0)));
}

static int fastest_measured(Sweep *sw, int64_t i) {
  int best = 0;
  for (int j = 1; j < sw->nprogs; j++)
    if (sample(sw, i, j)->measured < sample(sw, i, best)->measured) best = j;
  return best;
}

static void print_accuracy(Sweep *sw, FILE *out) {
  Accuracy acc = accuracy(sw);
  fprintf(out, "\nerror of the prediction: median |error| %.1f%%, largest %.1f%% (%lld runs, median of %d each%s)\n",
          100 * acc.median_abs, 100 * acc.max_abs, (long long)(sw->npoints * sw->nprogs), sw->opt.repeat,
          sw->opt.rounds > 1 ? arena_printf(sw->arena, ", the fastest of %d rounds", sw->opt.rounds) : "");
  if (sw->nprogs > 1)
    fprintf(out, "ranking: right for %d of the %d pairs of programs whose measured times differ by more than 10%%\n",
            acc.ranked_right, acc.pairs);
  int64_t unsteady = 0;
  for (int64_t k = 0; k < sw->npoints * sw->nprogs; k++) unsteady += sw->samples[k].unsteady;
  if (unsteady)
    fprintf(out, "* measured just after a check that found the machine not steady (%lld of %lld)\n",
            (long long)unsteady, (long long)(sw->npoints * sw->nprogs));
  fputs("machine speed, checked before every run: ", out);
  steady_describe(out, sw->steadiness);
}

// A program's column: its name and two spaces, at least as wide as its numbers.
static int column_width(Sweep *sw, int j) {
  int name = (int)strlen(prog_name(sw, j)) + 2, numbers = sw->opt.measure ? 34 : 16;
  return name > numbers ? name : numbers;
}

// The leading term c*t^d of a program's predicted seconds (paper model,
// from its closed forms, at the machine's p) as the varied params grow
// together, t the first and the others in the ratio of their last values.
typedef struct Leading {
  bool found;
  double coefficient;  // seconds
  double power;        // a multiple of 1/2
} Leading;

// Seconds at t, or a negative number where the closed forms do not hold.
static double closed_seconds(Sweep *sw, int j, double t) {
  Program *prog = sw->progs[j];
  Arena *a = arena_new();
  Options o = sw->opt;
  for (int r = 0; r < sw->nranges; r++) {
    const VaryRange *rg = &sw->ranges[r], *first = &sw->ranges[0];
    double last = (double)range_value(rg, rg->count - 1), last0 = (double)range_value(first, first->count - 1);
    o = with_define(a, o, rg->name, (int64_t)llround(t * last / last0));
  }
  CostResult res;
  double seconds = cost_closed_predict(sw->closed[j], &sw->machine, cli_bind_params(a, prog, &o), &res) ? res.seconds : -1;
  arena_free(a);
  return seconds;
}

// The growth d = log2(s(2t)/s(t)) tends to the power as t doubles (a
// polynomial's lower terms fade like 1/t; the barriers' l can make them
// large at first): t grows until d is within 1e-7 of a multiple of 1/2, or
// as far as the forms evaluate (within 1e-3 then).
static Leading leading_term(Sweep *sw, int j) {
  Leading lead = {0};
  if (!sw->closed[j]) return lead;
  for (int r = 0; r < sw->nranges; r++)
    if (is_p(&sw->ranges[r])) return lead;
  for (int k = 16; k <= 60; k += 2) {
    double t = ldexp(1, k), s1 = closed_seconds(sw, j, t), s2 = closed_seconds(sw, j, 2 * t);
    if (!(s1 > 0 && s2 > 0 && isfinite(s2))) return lead;
    double d = log2(s2 / s1), power = round(2 * d) / 2;
    if (fabs(d - power) < (k < 60 ? 1e-7 : 1e-3)) return (Leading){true, s2 / pow(2 * t, power), power};
  }
  return lead;
}

static char *leading_text(Sweep *sw, Leading lead) {
  const char *t = sw->ranges[0].name;
  if (lead.power == 0) return arena_printf(sw->arena, "%.4g s", lead.coefficient);
  if (lead.power == 1) return arena_printf(sw->arena, "%.4g*%s s", lead.coefficient, t);
  return arena_printf(sw->arena, "%.4g*%s^%g s", lead.coefficient, t, lead.power);
}

// The others' ratio to the first varied param, when several vary.
static char *growth_text(Sweep *sw) {
  const VaryRange *first = &sw->ranges[0];
  char *s = arena_printf(sw->arena, "as %s grows", first->name);
  for (int r = 1; r < sw->nranges; r++) {
    double ratio = (double)range_value(&sw->ranges[r], sw->ranges[r].count - 1) /
                   (double)range_value(first, first->count - 1);
    s = arena_printf(sw->arena, "%s%s%s = %.4g*%s", s, r == 1 ? " (" : ", ", sw->ranges[r].name, ratio, first->name);
  }
  return sw->nranges > 1 ? arena_printf(sw->arena, "%s)", s) : s;
}

static void print_leading(Sweep *sw, FILE *out) {
  for (int r = 0; r < sw->nranges; r++)
    if (is_p(&sw->ranges[r])) return;
  fprintf(out, "\nleading terms (the paper model's closed forms, p = %d, %s):\n", sw->machine.p, growth_text(sw));
  for (int j = 0; j < sw->nprogs; j++) {
    Leading lead = leading_term(sw, j);
    fprintf(out, "  %-*s  %s\n", column_width(sw, j) - 2, prog_name(sw, j),
            lead.found ? leading_text(sw, lead) : sw->closed[j] ? "no term found" : "no closed form");
  }
}

static json_t *leading_json(Sweep *sw) {
  json_t *list = json_array();
  for (int r = 0; r < sw->nranges; r++)
    if (is_p(&sw->ranges[r])) return list;
  for (int j = 0; j < sw->nprogs; j++) {
    Leading lead = leading_term(sw, j);
    json_t *row = json_pack("{s:s}", "program", prog_name(sw, j));
    if (lead.found) {
      json_object_set_new(row, "coefficient", json_real(lead.coefficient));
      json_object_set_new(row, "power", json_real(lead.power));
      json_object_set_new(row, "of", json_string(sw->ranges[0].name));
      json_object_set_new(row, "text", json_string(leading_text(sw, lead)));
    } else {
      json_object_set_new(row, "none", json_string(sw->closed[j] ? "no term found" : "no closed form"));
    }
    json_array_append_new(list, row);
  }
  return list;
}

static void print_table(Sweep *sw, FILE *out) {
  bool m = sw->opt.measure;
  fprintf(out, "%s model, machine %s (p = %d), seconds %s\n", cost_model_name(sw->model), sw->machine.name,
          sw->machine.p, m ? "predicted / measured (error)" : "predicted");
  for (int r = 0; r < sw->nranges; r++) fprintf(out, "%14s", sw->ranges[r].name);
  for (int j = 0; j < sw->nprogs; j++) fprintf(out, "%*s", column_width(sw, j), prog_name(sw, j));
  fprintf(out, "%s\n", sw->nprogs < 2 ? "" : m ? "  fastest (predicted / measured)" : "  cheapest");
  for (int64_t i = 0; i < sw->npoints; i++) {
    for (int r = 0; r < sw->nranges; r++) fprintf(out, "%14lld", (long long)range_value(&sw->ranges[r], i));
    for (int j = 0; j < sw->nprogs; j++) {
      Sample *x = sample(sw, i, j);
      int pad = column_width(sw, j) - (m ? 34 : 16);
      if (m)
        fprintf(out, "%*s  %10.4g / %10.4g%c(%+6.1f%%)", pad, "", x->predicted, x->measured, x->unsteady ? '*' : ' ',
                100 * rel_error(x));
      else fprintf(out, "%*s%16.4g", pad, "", x->predicted);
    }
    if (sw->nprogs > 1) fprintf(out, "  %s", prog_name(sw, cheapest(sw, i)));
    if (sw->nprogs > 1 && m) fprintf(out, " / %s", prog_name(sw, fastest_measured(sw, i)));
    fputc('\n', out);
  }
  if (sw->nprogs > 1) print_crossovers(sw, out);
  print_leading(sw, out);
  if (m) print_accuracy(sw, out);
}

static void print_csv(Sweep *sw, FILE *out) {
  bool m = sw->opt.measure;
  fputs("program", out);
  for (int r = 0; r < sw->nranges; r++) fprintf(out, ",%s", sw->ranges[r].name);
  fprintf(out, ",p,model,W,H,S,ops,predicted%s\n", m ? ",measured,measured_min,error" : "");
  for (int64_t i = 0; i < sw->npoints; i++)
    for (int j = 0; j < sw->nprogs; j++) {
      fprintf(out, "%s", prog_name(sw, j));
      for (int r = 0; r < sw->nranges; r++) fprintf(out, ",%lld", (long long)range_value(&sw->ranges[r], i));
      fprintf(out, ",%d,%s", point_p(sw, i), cost_model_name(sw->model));
      Sample *x = sample(sw, i, j);
      double vals[] = {x->W, x->H, x->S, x->ops, x->predicted, x->measured, x->measured_min, m ? rel_error(x) : 0};
      for (int k = 0; k < (m ? 8 : 5); k++) {
        fputc(',', out);
        cost_print_number(out, vals[k]);
      }
      fputc('\n', out);
    }
}

static json_t *point_json(Sweep *sw, int64_t i) {
  json_t *pt = json_object();
  for (int r = 0; r < sw->nranges; r++)
    json_object_set_new(pt, sw->ranges[r].name, json_integer(range_value(&sw->ranges[r], i)));
  return pt;
}

static json_t *row_json(Sweep *sw, int64_t i, int j) {
  Arena *a = arena_new();
  Options o = point_options(sw, a, i);
  int64_t *values = cli_bind_params(a, sw->progs[j], &o);
  json_t *params = json_object();
  for (int k = 0; k < sw->progs[j]->nparams; k++)
    json_object_set_new(params, sw->progs[j]->params[k]->name, json_integer(values[k]));
  arena_free(a);
  Sample *x = sample(sw, i, j);
  json_t *row = cost_json_checked(json_pack("{s:s, s:o, s:i, s:o, s:o, s:o, s:o, s:o}", "program", prog_name(sw, j),
                                            "params", params, "p", point_p(sw, i), "predicted",
                                            cost_json_number(x->predicted), "W", cost_json_number(x->W), "H",
                                            cost_json_number(x->H), "S", cost_json_number(x->S), "ops",
                                            cost_json_number(x->ops)));
  if (sw->opt.measure) {
    json_object_set_new(row, "measured", json_real(x->measured));
    json_object_set_new(row, "measured_min", json_real(x->measured_min));
    json_t *rounds = json_array();
    for (int r = 0; r < sw->opt.rounds; r++) json_array_append_new(rounds, json_real(x->round_medians[r]));
    json_object_set_new(row, "measured_rounds", rounds);
    json_t *checks = json_array();
    for (int r = 0; r < sw->opt.rounds; r++)
      json_array_append_new(checks, json_pack("{s:O, s:O}", "slow_share", json_object_get(x->round_checks[r], "slow_share"),
                                              "canary_seconds", json_object_get(x->round_checks[r], "canary_seconds")));
    json_object_set_new(row, "round_checks", checks);
    json_object_set_new(row, "steady", json_boolean(!x->unsteady));
    json_object_set_new(row, "error", json_real(rel_error(x)));
  }
  return row;
}

static void print_json(Sweep *sw, FILE *out, json_t *extra) {
  json_t *rows = json_array(), *crossovers = json_array();
  for (int64_t i = 0; i < sw->npoints; i++)
    for (int j = 0; j < sw->nprogs; j++) json_array_append_new(rows, row_json(sw, i, j));
  for (int64_t i = 0; sw->nprogs > 1 && i + 1 < sw->npoints; i++) {
    int a = cheapest(sw, i), b = cheapest(sw, i + 1);
    if (a == b) continue;
    json_t *at = json_object();
    json_object_set_new(at, sw->ranges[0].name, json_real(crossing(sw, i, a, b)));
    json_t *crossover = json_pack("{s:o, s:o, s:s, s:s, s:o}", "from", point_json(sw, i), "to", point_json(sw, i + 1),
                                  "was_cheapest", prog_name(sw, a), "becomes_cheapest", prog_name(sw, b), "equal_at", at);
    int64_t from = first_cheaper(sw, i, a, b);
    if (from >= 0) json_object_set_new(crossover, "cheaper_from", json_pack("{s:I}", sw->ranges[0].name, (json_int_t)from));
    json_array_append_new(crossovers, crossover);
  }
  json_t *root = cost_json_checked(json_pack("{s:s, s:s, s:o, s:o}", "model", cost_model_name(sw->model), "machine",
                                             sw->machine.name, "rows", rows, "crossovers", crossovers));
  if (sw->opt.measure) {
    Accuracy acc = accuracy(sw);
    json_object_set_new(root, "accuracy",
                        json_pack("{s:f, s:f, s:i, s:i}", "median_abs_error", acc.median_abs, "max_abs_error",
                                  acc.max_abs, "pairs_differing", acc.pairs, "pairs_ranked_right", acc.ranked_right));
    json_object_set(root, "steadiness", sw->steadiness);
  }
  json_object_set_new(root, "leading", leading_json(sw));
  if (extra) json_object_update(root, extra);
  json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
  fputc('\n', out);
  json_decref(root);
}

//
// --plot: the curves through gnuplot.
//

// gnuplot's terminal for the format the file's extension names.
static const char *plot_terminal(const char *path) {
  static const char *const formats[][2] = {
      {".svg", "svg size 720,480 dynamic font 'Helvetica,13'"},
      {".png", "pngcairo size 960,640 font 'Helvetica,12'"},
      {".pdf", "pdfcairo size 7.5in,5in font 'Helvetica,11'"},
  };
  const char *dot = strrchr(path, '.');
  for (size_t i = 0; dot && i < sizeof formats / sizeof *formats; i++)
    if (strcasecmp(dot, formats[i][0]) == 0) return formats[i][1];
  fatal("--plot %s: the file's extension names the format: .svg, .png or .pdf", path);
}

void sweep_check_plot(const char *path) {
  cli_check_writable("--plot", path);
  plot_terminal(path);
}

// s as a gnuplot string in single quotes (a quote is doubled).
static void put_quoted(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) fputs(*s == '\'' ? "''" : (char[]){*s, 0}, f);
  fputc('\'', f);
}

static void write_plot_data(Sweep *sw, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) fatal("--plot: cannot write '%s': %s", path, strerror(errno));
  for (int64_t i = 0; i < sw->npoints; i++) {
    fprintf(f, "%lld", (long long)range_value(&sw->ranges[0], i));
    for (int j = 0; j < sw->nprogs; j++)
      fprintf(f, " %.10g %.10g", sample(sw, i, j)->predicted, sample(sw, i, j)->measured);
    fputc('\n', f);
  }
  fclose(f);
}

// How many powers of ten the predictions span.
static double decades(Sweep *sw) {
  double lo = INFINITY, hi = 0;
  for (int64_t i = 0; i < sw->npoints * sw->nprogs; i++)
    if (sw->samples[i].predicted > 0) lo = fmin(lo, sw->samples[i].predicted), hi = fmax(hi, sw->samples[i].predicted);
  return hi > 0 ? log10(hi / lo) : 0;
}

static void write_plot_script(Sweep *sw, const char *path, const char *data, const char *out) {
  FILE *f = fopen(path, "w");
  if (!f) fatal("--plot: cannot write '%s': %s", path, strerror(errno));
  fprintf(f, "set terminal %s\nset output ", plot_terminal(sw->opt.plot));
  put_quoted(f, out);
  char *title = arena_printf(sw->arena, "%s time, %s model, %s, p = %d",
                             sw->opt.measure ? "predicted (lines) and measured (points)" : "predicted",
                             cost_model_name(sw->model), sw->machine.name, sw->machine.p);
  for (int i = 0; i < sw->opt.ndefines; i++) title = arena_printf(sw->arena, "%s, %s", title, sw->opt.defines[i]);
  fputs("\nset title ", f);
  put_quoted(f, title);
  fputs(" noenhanced\nset xlabel ", f);
  put_quoted(f, sw->ranges[0].name);
  fputs(" noenhanced\nset ylabel 'seconds'\nset key left top noenhanced\nset grid\n", f);
  // Over more than two powers of ten the cheap curves would lie flat on 0.
  fputs(decades(sw) > 2 ? "set logscale y\nset format y '%g'\n" : "set yrange [0:*]\n", f);
  if (sw->ranges[0].geometric) fputs("set logscale x\n", f);
  fputs("plot ", f);
  for (int j = 0; j < sw->nprogs; j++) {
    fputs(j ? ", " : "", f);
    put_quoted(f, data);
    fprintf(f, " using 1:%d with lines lw 2 lc %d title ", 2 * j + 2, j + 1);
    put_quoted(f, prog_name(sw, j));
    if (!sw->opt.measure) continue;
    fputs(", ", f);
    put_quoted(f, data);
    fprintf(f, " using 1:%d with points pt 7 lc %d title ", 2 * j + 3, j + 1);
    put_quoted(f, arena_printf(sw->arena, "%s measured", prog_name(sw, j)));
  }
  fputc('\n', f);
  fclose(f);
}

// gnuplot draws into a file beside OUT, renamed into place when complete;
// what it says goes to a log that is not shown (vecbsp says what failed).
static void plot(Sweep *sw) {
  const char *target = sw->opt.plot;
  char *data = cli_temp_file(sw->arena, "plot-data"), *script = cli_temp_file(sw->arena, "plot"),
       *log = cli_temp_file(sw->arena, "gnuplot"), *out;
  int fd = cli_create_beside(target, -1, &out);
  if (fd < 0) fatal("--plot %s: cannot write it: %s", target, strerror(errno));
  close(fd);
  write_plot_data(sw, data);
  write_plot_script(sw, script, data, out);
  char *argv[] = {"gnuplot", script, NULL};
  int status = cli_run_child(argv, log, log, NULL);
  if (status == 0 && rename(out, target) == 0) cli_temp_forget(out);
  else if (status == 0) fatal("--plot %s: cannot write it: %s", target, strerror(errno));  // the files go at exit
  else if (status == 127) fatal("--plot: gnuplot is not installed (scripts/setup-deps.sh installs it)");
  else fatal("--plot %s: gnuplot could not draw it (status %d)", target, status);
  free(out);
  cli_temp_remove(data);
  cli_temp_remove(script);
  cli_temp_remove(log);
}

void sweep_programs(const Options *opt, json_t *extra, FILE *out) {
  Sweep sw = {.opt = *opt};
  setup(&sw);
  warn_machine_once(&sw);
  find_closed_forms(&sw);
  predict(&sw);
  if (sw.opt.measure) measure(&sw);
  if (out && sw.opt.json) print_json(&sw, out, extra);
  else if (out && sw.opt.csv) print_csv(&sw, out);
  else if (out) print_table(&sw, out);
  if (sw.opt.plot) plot(&sw);
  if (sw.opt.measure && (sw.opt.json || sw.opt.csv))  // else the table says it
    steady_warn(sw.steadiness, "during the measurement");
  json_decref(sw.steadiness);
  json_decref(extra);
  arena_free(sw.arena);
}

int cmd_sweep(int argc, char **argv) {
  Options opt;
  cli_parse_options(argc, argv, &opt);
  sweep_programs(&opt, NULL, stdout);
  return 0;
}
