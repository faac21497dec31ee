// run.c: `vecbsp run FILE`: compile the program to C over BSPlib (cached),
// run it on P processes with bsprun, print its result, and with --json,
// --repeat and --profile its times and its counted supersteps beside the
// predicted ones; --trace writes its timeline (timeline.c).
#include "cli/cli.h"
#include "eval/eval.h"

#include <stdlib.h>
#include <string.h>

//
// Output.
//

// The predicted time and source position of each superstep beside the
// counted ones (nothing if the model lists another number of them).
static void add_predictions(json_t *steps, const Prediction *pr) {
  if ((size_t)pr->nsteps != json_array_size(steps)) return;
  for (int i = 0; i < pr->nsteps; i++) {
    json_t *s = json_array_get(steps, (size_t)i);
    json_object_set_new(s, "where", json_string(pr->steps[i].where));
    json_object_set_new(s, "what", json_string(pr->steps[i].what));
    json_object_set_new(s, "predicted_seconds", json_real(pr->steps[i].seconds));
  }
}

static void print_json(const RunOutcome *o, const Options *opt, const Prediction *pr, int p, int processes) {
  json_t *root = json_pack("{s:s, s:i, s:i, s:s, s:f, s:f, s:f, s:i}", "result", o->result, "p", p, "processes",
                           processes, "backend", opt->backend, "seconds", o->median, "seconds_min", o->min,
                           "seconds_median", o->median, "repeat", o->nseconds);
  if (o->steps) {
    json_int_t W = 0, H = 0;
    size_t i;
    json_t *s;
    json_array_foreach(o->steps, i, s) {
      W += json_integer_value(json_object_get(s, "w"));
      H += json_integer_value(json_object_get(s, "h"));
    }
    json_object_set(root, "supersteps", o->steps);
    json_object_set_new(root, "predicted_machine", json_string(pr->machine));
    json_object_set_new(root, "W", json_integer(W));
    json_object_set_new(root, "H", json_integer(H));
    json_object_set_new(root, "S", json_integer((json_int_t)json_array_size(o->steps) - 1));
  }
  char *text = json_dumps(root, JSON_INDENT(2));
  puts(text);
  free(text);
  json_decref(root);
}

// The process that worked longest in a superstep (its work_seconds).
static size_t busiest(json_t *work) {
  size_t best = 0, pid;
  json_t *w;
  json_array_foreach(work, pid, w) {
    if (json_real_value(w) > json_real_value(json_array_get(work, best))) best = pid;
  }
  return best;
}

// Without --json: the result on stdout, times and supersteps on stderr
// (a measured time is the median over the repetitions).
static void print_human(const RunOutcome *o, const Options *opt, const Prediction *pr) {
  puts(o->result);
  if (opt->repeat)
    fprintf(stderr, "time: min %.4g s, median %.4g s over %d runs\n", o->min, o->median, o->nseconds);
  if (!opt->profile) return;
  fprintf(stderr, "seconds predicted by the exact model for machine %s%s\n", pr->machine,
          pr->calibrated ? "" : " (not calibrated: (w + g h + l) / s)");
  fprintf(stderr, "%9s  %-24s %12s %10s %11s %11s %11s %6s\n", "superstep", "where", "w", "h", "predicted", "measured",
          "max work", "of pid");
  size_t i;
  json_t *s;
  json_array_foreach(o->steps, i, s) {
    json_t *work = json_object_get(s, "work_seconds"), *where = json_object_get(s, "where");
    size_t pid = busiest(work);
    json_t *predicted = json_object_get(s, "predicted_seconds");
    char predicted_text[32] = "?";
    if (predicted) snprintf(predicted_text, sizeof predicted_text, "%.4g", json_real_value(predicted));
    fprintf(stderr, "%9zu  %-24s %12lld %10lld %11s %11.4g %11.4g %6zu\n", i + 1,
            where ? json_string_value(where) : "?", (long long)json_integer_value(json_object_get(s, "w")),
            (long long)json_integer_value(json_object_get(s, "h")), predicted_text,
            json_real_value(json_object_get(s, "seconds")), json_real_value(json_array_get(work, pid)), pid);
  }
}

int cmd_run(int argc, char **argv) {
  Options opt;
  cli_parse_options(argc, argv, &opt);
  if (opt.nfiles != 1) fatal("run expects one program file");
  if (!opt.backend) opt.backend = "threads";
  cli_check_result_file(&opt);
  Arena *a = arena_new();
  Program *prog = cli_load_program(a, opt.files[0], NULL);
  int64_t *params = cli_bind_params(a, prog, &opt);
  cost_shape_check(prog, params);  // the static shape errors eval reports
  if (opt.output) npy_check_result(opt.output, prog->main->type);  // before any work
  int p = opt.p ? opt.p : cli_cores();
  if (opt.trace) cli_check_writable("--trace", opt.trace);
  progress_begin("run", 0);
  progress_step(0, "planning");
  Plan *pl = cli_plan(a, prog, params, &opt, p, opt.output != NULL);
  Options counted = opt;
  counted.profile = opt.profile || opt.trace;  // the trace is the profile's timeline
  counted.nodes = runner_nodes(pl, &opt);
  // A plan that sends nothing runs on one process: the others would only
  // wait at its barriers, for the CPU that other programs took meanwhile.
  // It runs as the program made for one process (runner_executed_plan).
  int processes = runner_processes(pl, &counted, p);
  const Plan *executed =
      runner_executed_plan(prog, params, pl, processes, cli_plan_machine(a, &opt), opt.plan, opt.output != NULL);
  progress_step(0, "generating and compiling the program");
  char *exe = runner_build(a, prog, executed, &counted);
  progress_step(0, arena_printf(a, "running on %d process%s", processes, processes == 1 ? "" : "es"));
  // Repetitions and a profile are set beside the model's warm prediction:
  // they are taken after the untimed repetitions that touch the program's
  // fresh memory. A single run is the program as it runs once.
  RunOutcome o = runner_execute(a, exe, &counted, processes, counted.profile || opt.repeat);
  progress_end();
  Prediction pr = counted.profile ? timeline_predict(a, prog, params, pl, &opt, p) : (Prediction){0};
  if (o.steps) add_predictions(o.steps, &pr);
  if (opt.trace) timeline_write_trace(opt.trace, &pr, &o, &opt, p);
  if (opt.json)
    print_json(&o, &opt, &pr, p, processes);
  else if (!opt.output || opt.repeat || opt.profile)
    print_human(&o, &opt, &pr);
  runner_free(&o);
  arena_free(a);
  return 0;
}
