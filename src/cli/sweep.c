// sweep.c: `vecbsp sweep A.vec B.vec ... --vary NAME=FROM:TO:STEP`: the
// predicted cost of each program over a range of sizes, the points where
// the cheapest program changes, as a table, --csv, --json or --plot.
#include "cli/cli.h"
#include "cost/cost.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Shared with cost.c, which defines them.

enum { MAX_POINTS = 1000000 };

// One --vary: NAME takes FROM, FROM+STEP, ... up to TO. "p" varies the
// number of processes.
typedef struct Range {
  const char *name;  // a parameter, or "p"
  int64_t from;      // first value
  int64_t step;      // increment (> 0)
  int64_t count;     // number of values
} Range;

// One prediction: a program at a point of the ranges.
typedef struct Sample {
  double W, H, S, ops;  // as cost reports them
  double predicted;     // seconds
} Sample;

typedef struct Sweep {
  Arena *arena;        // owns the programs and the results
  Options opt;         // the command line
  Program **progs;     // the programs compared
  int nprogs;
  Range *ranges;       // the --vary ranges, advanced together
  int nranges;
  int64_t npoints;     // values of each range
  CostModel model;     // as for cost
  Machine machine;     // before -p is varied
  Sample *samples;     // by point * nprogs + program
} Sweep;

static int64_t parse_bound(const char *text, const char *spec) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || (*end != '\0' && *end != ':') || errno || v != floor(v) || fabs(v) > 4e18)
    fatal("--vary %s: expected integers NAME=FROM:TO:STEP (such as n=1000:100000:1000 or n=1e3:1e5:1e3)", spec);
  return (int64_t)v;
}

static Range parse_range(Arena *a, const char *spec) {
  char *name;
  const char *value;
  cli_split_assignment(spec, "--vary", &name, &value, a);
  const char *c1 = strchr(value, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  if (!c2) fatal("--vary %s: expected NAME=FROM:TO:STEP", spec);
  int64_t from = parse_bound(value, spec), to = parse_bound(c1 + 1, spec), step = parse_bound(c2 + 1, spec);
  if (step <= 0 || to < from) fatal("--vary %s: STEP must be positive and TO at least FROM", spec);
  int64_t count = (to - from) / step + 1;
  if (count > MAX_POINTS) fatal("--vary %s: more than %d points", spec, MAX_POINTS);
  if (strcmp(name, "p") == 0 && (from < 1 || to > (1 << 20))) fatal("--vary %s: p must be in [1, 1048576]", spec);
  return (Range){name, from, step, count};
}

static int64_t range_value(const Range *r, int64_t i) { return r->from + i * r->step; }

static void setup(Sweep *sw, int argc, char **argv) {
  Options *opt = &sw->opt;
  cli_parse_options(argc, argv, opt);
  if (opt->measure) fatal("sweep --measure needs `vecbsp run` (not available yet)");
  if (opt->nfiles == 0) fatal("sweep expects program files: vecbsp sweep A.vec B.vec --vary NAME=FROM:TO:STEP");
  if (opt->nvaries == 0) fatal("sweep needs --vary NAME=FROM:TO:STEP");
  if (opt->symbolic) fatal("--symbolic is an option of 'vecbsp cost'");
  if (opt->json && opt->csv) fatal("--json and --csv are exclusive");
  sw->arena = arena_new();
  sw->model = cost_model_from_options(opt);
  sw->machine = cost_machine_from_options(sw->arena, opt);
  sw->nranges = opt->nvaries;
  sw->ranges = arena_calloc(sw->arena, (size_t)sw->nranges, sizeof *sw->ranges);
  for (int i = 0; i < sw->nranges; i++) {
    sw->ranges[i] = parse_range(sw->arena, opt->varies[i]);
    if (sw->ranges[i].count != sw->ranges[0].count)
      fatal("--vary %s: every --vary advances together, so each needs as many values (%lld here, %lld for %s)",
            opt->varies[i], (long long)sw->ranges[i].count, (long long)sw->ranges[0].count, sw->ranges[0].name);
  }
  sw->npoints = sw->ranges[0].count;
  sw->nprogs = opt->nfiles;
  sw->progs = arena_calloc(sw->arena, (size_t)sw->nprogs, sizeof *sw->progs);
  for (int j = 0; j < sw->nprogs; j++) sw->progs[j] = cli_load_program(sw->arena, opt->files[j], NULL);
}

static bool is_p(const Range *r) { return strcmp(r->name, "p") == 0; }

// The number of processes at point i.
static int point_p(Sweep *sw, int64_t i) {
  for (int r = 0; r < sw->nranges; r++)
    if (is_p(&sw->ranges[r])) return (int)range_value(&sw->ranges[r], i);
  return sw->machine.p;
}

// The options of point i: the -D given plus the varied params.
static Options point_options(Sweep *sw, Arena *a, int64_t i) {
  Options o = sw->opt;
  const char **defines = arena_calloc(a, (size_t)(o.ndefines + sw->nranges) + 1, sizeof *defines);
  if (o.ndefines) memcpy((void *)defines, o.defines, (size_t)o.ndefines * sizeof *defines);
  for (int r = 0; r < sw->nranges; r++)
    if (!is_p(&sw->ranges[r]))
      defines[o.ndefines++] = arena_printf(a, "%s=%lld", sw->ranges[r].name, (long long)range_value(&sw->ranges[r], i));
  o.defines = defines;
  return o;
}

static void predict(Sweep *sw) {
  sw->samples = arena_calloc(sw->arena, (size_t)(sw->npoints * sw->nprogs), sizeof *sw->samples);
  for (int64_t i = 0; i < sw->npoints; i++)
    for (int j = 0; j < sw->nprogs; j++) {
      Arena *a = arena_new();
      CostRequest req = {.prog = sw->progs[j], .model = sw->model, .machine = sw->machine};
      req.machine.p = point_p(sw, i);
      Options o = point_options(sw, a, i);
      req.params = cli_bind_params(a, sw->progs[j], &o);
      CostResult r = cost_analyse(a, &req);
      sw->samples[i * sw->nprogs + j] = (Sample){r.W, r.H, r.S, r.ops, r.seconds};
      arena_free(a);
    }
}

static Sample *sample(Sweep *sw, int64_t i, int j) { return &sw->samples[i * sw->nprogs + j]; }

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

// Where the cheapest program changes between points i and i+1: the first
// range's value at which the two cost the same (linear in between).
static double crossing(Sweep *sw, int64_t i, int before, int after) {
  double d0 = sample(sw, i, before)->predicted - sample(sw, i, after)->predicted;
  double d1 = sample(sw, i + 1, before)->predicted - sample(sw, i + 1, after)->predicted;
  double x0 = (double)range_value(&sw->ranges[0], i), x1 = (double)range_value(&sw->ranges[0], i + 1);
  return d1 == d0 ? x0 : x0 + (x1 - x0) * (-d0) / (d1 - d0);
}

//
// Output.
//

static void print_point(Sweep *sw, FILE *out, int64_t i, const char *sep, bool json) {
  for (int r = 0; r < sw->nranges; r++)
    fprintf(out, json ? "%s\"%s\": %lld" : "%s%s = %lld", r ? sep : "", sw->ranges[r].name,
            (long long)range_value(&sw->ranges[r], i));
}

static void print_table(Sweep *sw, FILE *out) {
  fprintf(out, "%s model, machine %s (p = %d), seconds predicted\n", cost_model_name(sw->model), sw->machine.name,
          sw->machine.p);
  for (int r = 0; r < sw->nranges; r++) fprintf(out, "%14s", sw->ranges[r].name);
  for (int j = 0; j < sw->nprogs; j++) fprintf(out, "%16s", prog_name(sw, j));
  fprintf(out, "%s\n", sw->nprogs > 1 ? "  cheapest" : "");
  for (int64_t i = 0; i < sw->npoints; i++) {
    for (int r = 0; r < sw->nranges; r++) fprintf(out, "%14lld", (long long)range_value(&sw->ranges[r], i));
    for (int j = 0; j < sw->nprogs; j++) fprintf(out, "%16.6g", sample(sw, i, j)->predicted);
    if (sw->nprogs > 1) fprintf(out, "  %s", prog_name(sw, cheapest(sw, i)));
    fputc('\n', out);
  }
  if (sw->nprogs < 2) return;
  bool any = false;
  for (int64_t i = 0; i + 1 < sw->npoints; i++) {
    int a = cheapest(sw, i), b = cheapest(sw, i + 1);
    if (a == b) continue;
    if (!any) fputs("\ncrossovers:\n", out);
    any = true;
    fprintf(out, "  between ");
    print_point(sw, out, i, ", ", false);
    fputs(" and ", out);
    print_point(sw, out, i + 1, ", ", false);
    fprintf(out, ": %s becomes cheaper than %s (equal at %s = %.6g)\n", prog_name(sw, b), prog_name(sw, a),
            sw->ranges[0].name, crossing(sw, i, a, b));
  }
  if (!any) fprintf(out, "\nno crossover: %s is the cheapest throughout\n", prog_name(sw, cheapest(sw, 0)));
}

static void print_csv(Sweep *sw, FILE *out) {
  fputs("program", out);
  for (int r = 0; r < sw->nranges; r++) fprintf(out, ",%s", sw->ranges[r].name);
  fputs(",p,model,W,H,S,ops,predicted\n", out);
  for (int64_t i = 0; i < sw->npoints; i++)
    for (int j = 0; j < sw->nprogs; j++) {
      fprintf(out, "%s", prog_name(sw, j));
      for (int r = 0; r < sw->nranges; r++) fprintf(out, ",%lld", (long long)range_value(&sw->ranges[r], i));
      fprintf(out, ",%d,%s", point_p(sw, i), cost_model_name(sw->model));
      Sample *s = sample(sw, i, j);
      double vals[] = {s->W, s->H, s->S, s->ops, s->predicted};
      for (int k = 0; k < 5; k++) {
        fputc(',', out);
        cost_print_number(out, vals[k]);
      }
      fputc('\n', out);
    }
}

static void print_json(Sweep *sw, FILE *out) {
  fprintf(out, "{ \"model\": \"%s\", \"machine\": ", cost_model_name(sw->model));
  cost_print_json_string(out, sw->machine.name);
  fputs(",\n  \"rows\": [", out);
  for (int64_t i = 0; i < sw->npoints; i++)
    for (int j = 0; j < sw->nprogs; j++) {
      Arena *a = arena_new();
      Options o = point_options(sw, a, i);
      int64_t *params = cli_bind_params(a, sw->progs[j], &o);
      fputs(i || j ? ",\n    { \"program\": " : "\n    { \"program\": ", out);
      cost_print_json_string(out, prog_name(sw, j));
      fputs(", \"params\": { ", out);
      for (int k = 0; k < sw->progs[j]->nparams; k++)
        fprintf(out, "%s\"%s\": %lld", k ? ", " : "", sw->progs[j]->params[k]->name, (long long)params[k]);
      fprintf(out, " }, \"p\": %d", point_p(sw, i));
      Sample *s = sample(sw, i, j);
      const char *keys[] = {"predicted", "W", "H", "S", "ops"};
      double vals[] = {s->predicted, s->W, s->H, s->S, s->ops};
      for (int k = 0; k < 5; k++) {
        fprintf(out, ", \"%s\": ", keys[k]);
        cost_print_number(out, vals[k]);
      }
      fputs(" }", out);
      arena_free(a);
    }
  fputs("\n  ],\n  \"crossovers\": [", out);
  bool any = false;
  for (int64_t i = 0; sw->nprogs > 1 && i + 1 < sw->npoints; i++) {
    int a = cheapest(sw, i), b = cheapest(sw, i + 1);
    if (a == b) continue;
    fputs(any ? ",\n    { \"from\": { " : "\n    { \"from\": { ", out);
    any = true;
    print_point(sw, out, i, ", ", true);
    fputs(" }, \"to\": { ", out);
    print_point(sw, out, i + 1, ", ", true);
    fputs(" }, \"was_cheapest\": ", out);
    cost_print_json_string(out, prog_name(sw, a));
    fputs(", \"becomes_cheapest\": ", out);
    cost_print_json_string(out, prog_name(sw, b));
    fprintf(out, ", \"equal_at\": { \"%s\": ", sw->ranges[0].name);
    cost_print_number(out, crossing(sw, i, a, b));
    fputs(" } }", out);
  }
  fputs(any ? "\n  ]\n}\n" : "]\n}\n", out);
}

//
// --plot: the curves through gnuplot.
//

static char *temp_file(Arena *a) {
  const char *dir = getenv("TMPDIR");
  char *path = arena_printf(a, "%s/vecbsp-sweep-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) fatal("--plot: cannot create a temporary file: %s", strerror(errno));
  close(fd);
  return path;
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
    for (int j = 0; j < sw->nprogs; j++) fprintf(f, " %.10g", sample(sw, i, j)->predicted);
    fputc('\n', f);
  }
  fclose(f);
}

static void write_plot_script(Sweep *sw, const char *path, const char *data) {
  FILE *f = fopen(path, "w");
  if (!f) fatal("--plot: cannot write '%s': %s", path, strerror(errno));
  fputs("set terminal svg size 720,480 dynamic font 'Helvetica,13'\nset output ", f);
  put_quoted(f, sw->opt.plot);
  char *title = arena_printf(sw->arena, "predicted time, %s model, %s, p = %d", cost_model_name(sw->model),
                             sw->machine.name, sw->machine.p);
  for (int i = 0; i < sw->opt.ndefines; i++) title = arena_printf(sw->arena, "%s, %s", title, sw->opt.defines[i]);
  fputs("\nset title ", f);
  put_quoted(f, title);
  fputs(" noenhanced\nset xlabel ", f);
  put_quoted(f, sw->ranges[0].name);
  fputs(" noenhanced\nset ylabel 'seconds'\nset key left top noenhanced\nset grid\nset yrange [0:*]\nplot ", f);
  for (int j = 0; j < sw->nprogs; j++) {
    fputs(j ? ", " : "", f);
    put_quoted(f, data);
    fprintf(f, " using 1:%d with linespoints lw 2 title ", j + 2);
    put_quoted(f, prog_name(sw, j));
  }
  fputc('\n', f);
  fclose(f);
}

static void plot(Sweep *sw) {
  char *data = temp_file(sw->arena), *script = temp_file(sw->arena);
  write_plot_data(sw, data);
  write_plot_script(sw, script, data);
  int status = system(arena_printf(sw->arena, "gnuplot '%s' 2>&1", script));
  unlink(data);
  unlink(script);
  if (status != 0) fatal("--plot: gnuplot failed or is not installed (status %d)", status);
}

int cmd_sweep(int argc, char **argv) {
  Sweep sw = {0};
  setup(&sw, argc, argv);
  predict(&sw);
  if (sw.opt.json) print_json(&sw, stdout);
  else if (sw.opt.csv) print_csv(&sw, stdout);
  else print_table(&sw, stdout);
  if (sw.opt.plot) plot(&sw);
  arena_free(sw.arena);
  return 0;
}
