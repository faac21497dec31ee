// timeline.c: a run's supersteps, predicted beside measured: the exact
// model's time of each superstep (run --profile's predicted column), and
// the timeline of every process in every superstep, both predicted and
// measured, as a Chrome trace that Perfetto and chrome://tracing open
// (run --trace).
#include "cli/cli.h"
#include "cost/cost.h"

#include <math.h>
#include <stdlib.h>

// The superstep's local times: its calibrated counts' exchange and barrier
// terms, or without a calibration g h / s and l / s.
static void exchange_and_barrier(const Machine *m, const ExactStep *st, int p, bool barrier, MemoryShares shares,
                                 PredictedStep *out) {
  if (!m->cal.present) {
    out->exchange = (double)st->h * m->g / m->s;
    out->barrier = barrier ? m->l / m->s : 0;
    return;
  }
  double count[CAL_TERMS];
  cost_step_counts(&m->cal, m->cores, st, p, barrier, shares, count);
  out->exchange = m->cal.unit[CAL_WORDS] * count[CAL_WORDS] + m->cal.unit[CAL_WORDS_MEM] * count[CAL_WORDS_MEM];
  out->barrier = m->cal.unit[CAL_BARRIERS] * count[CAL_BARRIERS];
}

// Each process's local time: at the calibration's units, or its operations
// over s; scaled so that the busiest one's is the superstep's own (which
// counts the cores shared when there are more processes than cores).
static void local_times(const Machine *m, const ExactStep *st, int p, MemoryShares shares, PredictedStep *out) {
  double most = 0, local = fmax(0, out->seconds - out->exchange - out->barrier);
  shares = cost_step_shares(shares, st, p);
  for (int k = 0; k < p; k++) {
    const ExactCounts *c = &st->procs[k];
    out->work[k] = m->cal.present ? cost_local_seconds(m->cal.unit, c, shares) : (double)c->ops / m->s;
    most = fmax(most, out->work[k]);
  }
  for (int k = 0; k < p && most > 0; k++) out->work[k] *= local / most;
}

Prediction timeline_predict(Arena *a, Program *prog, const int64_t *params, const Plan *pl, const Options *opt, int p) {
  Machine m = cli_planning_machine(a, opt);
  m.p = p;
  ExactResult x;
  exact_cost(a, prog, params, pl, &x);
  Prediction pr = {.machine = m.name, .calibrated = m.cal.present};
  if (x.truncated) return pr;  // more supersteps than listed
  MemoryShares shares = cost_memory_shares(&m.cal, &x);
  pr.steps = arena_calloc(a, (size_t)x.nsteps, sizeof *pr.steps);
  pr.nsteps = x.nsteps;
  for (int i = 0; i < x.nsteps; i++) {
    const ExactStep *st = &x.steps[i];
    PredictedStep *s = &pr.steps[i];
    bool barrier = i + 1 < x.nsteps;
    s->where = arena_printf(a, "%s:%d:%d", st->where.src->name, st->where.line, st->where.col);
    s->what = st->what;
    s->seconds = cost_step_seconds(&m, st, p, barrier, shares);
    s->work = arena_calloc(a, (size_t)p, sizeof *s->work);
    exchange_and_barrier(&m, st, p, barrier, shares, s);
    local_times(&m, st, p, shares, s);
  }
  return pr;
}

//
// The Chrome trace (the JSON object form): complete events ("ph": "X", in
// microseconds) of every process (a thread each), under two trace
// processes, the measured run and the prediction.
//

enum { MEASURED = 0, PREDICTED = 1 };

static void add_span(json_t *events, int group, int pid, const char *name, double start, double seconds, json_t *args) {
  if (seconds <= 0) {
    json_decref(args);
    return;
  }
  json_array_append_new(events, json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:o}", "name", name, "cat",
                                          group == MEASURED ? "measured" : "predicted", "ph", "X", "ts", 1e6 * start,
                                          "dur", 1e6 * seconds, "pid", group, "tid", pid, "args", args));
}

static void add_names(json_t *events, int p, const char *measured, const char *predicted) {
  const char *groups[] = {measured, predicted};
  for (int g = 0; g < 2; g++) {
    json_array_append_new(events, json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "process_name", "ph", "M", "pid",
                                            g, "tid", 0, "args", "name", groups[g]));
    for (int k = 0; k < p; k++) {
      char name[32];
      snprintf(name, sizeof name, "process %d", k);
      json_array_append_new(events, json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "thread_name", "ph", "M",
                                              "pid", g, "tid", k, "args", "name", name));
    }
  }
}

// What a span of superstep i (of repetition rep, 0 for the prediction) says.
static json_t *span_args(const PredictedStep *s, int i, int rep) {
  json_t *args = json_pack("{s:i, s:s, s:s}", "superstep", i + 1, "where", s->where, "what", s->what);
  if (rep > 0) json_object_set_new(args, "repetition", json_integer(rep));
  return args;
}

// Every repetition as it ran: a process works, waits for the last to reach
// the barrier (the superstep's largest work), then the exchange and the
// barrier end the superstep (process 0's time of it).
static void add_measured(json_t *events, const Prediction *pr, const RunOutcome *o, int p) {
  double start = 0;
  size_t g;
  json_t *step;
  json_array_foreach(o->timeline, g, step) {
    json_t *procs = json_object_get(step, "procs");
    double seconds = json_real_value(json_object_get(step, "seconds")), last = 0;
    for (int k = 0; k < p; k++)
      last = fmax(last, json_real_value(json_object_get(json_array_get(procs, (size_t)k), "work_seconds")));
    const PredictedStep *s = &pr->steps[g % (size_t)pr->nsteps];
    int i = (int)(g % (size_t)pr->nsteps), rep = (int)(g / (size_t)pr->nsteps) + 1;
    for (int k = 0; k < p; k++) {
      json_t *c = json_array_get(procs, (size_t)k);
      double work = json_real_value(json_object_get(c, "work_seconds"));
      json_t *args = span_args(s, i, rep);
      json_object_set(args, "w", json_object_get(c, "ops"));
      json_object_set(args, "words_sent", json_object_get(c, "words_sent"));
      json_object_set(args, "words_received", json_object_get(c, "words_received"));
      add_span(events, MEASURED, k, "work", start, work, args);
      add_span(events, MEASURED, k, "wait at the barrier", start + work, last - work, span_args(s, i, rep));
      add_span(events, MEASURED, k, "exchange and barrier", start + last, seconds - last, span_args(s, i, rep));
    }
    start += fmax(seconds, last);
  }
}

static void add_predicted(json_t *events, const Prediction *pr, int p) {
  double start = 0;
  for (int i = 0; i < pr->nsteps; i++) {
    const PredictedStep *s = &pr->steps[i];
    double last = s->seconds - s->exchange - s->barrier;
    for (int k = 0; k < p; k++) {
      add_span(events, PREDICTED, k, "work", start, s->work[k], span_args(s, i, 0));
      add_span(events, PREDICTED, k, "wait at the barrier", start + s->work[k], last - s->work[k], span_args(s, i, 0));
      add_span(events, PREDICTED, k, "exchange", start + last, s->exchange, span_args(s, i, 0));
      add_span(events, PREDICTED, k, "barrier", start + last + s->exchange, s->barrier, span_args(s, i, 0));
    }
    start += s->seconds;
  }
}

void timeline_write_trace(const char *path, const Prediction *pr, const RunOutcome *o, const Options *opt, int p) {
  if (pr->nsteps == 0 || json_array_size(o->timeline) % (size_t)pr->nsteps != 0)
    fatal("--trace: the run's supersteps do not match the model's (%zu measured, %d predicted)",
          json_array_size(o->timeline), pr->nsteps);
  json_t *events = json_array();
  char measured[128], predicted[128];
  snprintf(measured, sizeof measured, "measured: %s, p = %d", opt->backend, p);
  snprintf(predicted, sizeof predicted, "predicted: exact model, machine %s%s", pr->machine,
           pr->calibrated ? "" : " (not calibrated: (w + g h + l) / s)");
  add_names(events, p, measured, predicted);
  add_measured(events, pr, o, p);
  add_predicted(events, pr, p);
  json_t *root = json_pack("{s:o, s:s, s:{s:s, s:i, s:s}}", "traceEvents", events, "displayTimeUnit", "ns", "otherData",
                           "program", opt->files[0], "p", p, "backend", opt->backend);
  char *text = json_dumps(root, JSON_INDENT(1));
  cli_write_file(path, text);
  free(text);
  json_decref(root);
}
