// probe_levels.c: `vecbsp probe --levels RANKSxTHREADS`: a two-level
// machine, MPI ranks between nodes and threads within one, measured level
// by level with bspprobe (MPI at RANKS processes of one thread, threads at
// THREADS in one process) and its workers calibrated, written as a machine
// file with "levels" (docs/hierarchical.md, "Probing a hierarchical machine").
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// "2x2": ranks and threads, each in [1, 1024], not both 1.
static void parse_shape(const char *text, int *ranks, int *threads) {
  char x, end;
  if (sscanf(text, "%d%c%d%c", ranks, &x, threads, &end) != 3 || (x != 'x' && x != 'X') || *ranks < 1 || *threads < 1 ||
      *ranks > 1024 || *threads > 1024)
    fatal("--levels expects RANKSxTHREADS, each from 1 to 1024 (e.g. 2x2), got '%s'", text);
  if (*ranks == 1 && *threads == 1) fatal("--levels 1x1: a machine of one worker has no levels to measure");
}

// bspprobe on backend at p (ends vecbsp if it fails or finds nonsense).
static json_t *measure_level(Arena *a, const char *backend, int p, const char *effort) {
  const char *args[] = {effort, NULL};
  json_t *raw = cli_run_bspprobe(a, backend, p, args);
  if (!raw) fatal("probe --levels: measuring the %s level failed", backend);
  double g = cli_number(raw, "g_seconds"), l = cli_number(raw, "l_seconds"), s = cli_number(raw, "s");
  if (!(g > 0 && l > 0 && s > 0))
    fatal("probe --levels: the %s level measured g = %g s, l = %g s, s = %g; the machine was too noisy, try --long",
          backend, g, l, s);
  return raw;
}

// A master of p children alike: its g both ways (a word of an h-relation
// one process sends and receives, at the level's p) and its l.
static json_t *level_json(const char *name, int p, const json_t *raw, json_t *children) {
  return json_pack("{s:s, s:i, s:f, s:f, s:o}", "name", name, "p", p, "g", cli_number(raw, "g_seconds"), "l",
                   cli_number(raw, "l_seconds"), "children", children);
}

static void print_levels(const json_t *m) {
  printf("machine    %s (%s)\n", json_string_value(json_object_get(m, "name")), json_string_value(json_object_get(m, "shape")));
  for (const json_t *n = json_object_get(m, "levels"); json_object_get(n, "children"); n = json_object_get(n, "children"))
    printf("%-10s %lld children, g = %.4g s/word (down and up), l = %.4g s\n", json_string_value(json_object_get(n, "name")),
           json_integer_value(json_object_get(n, "p")), cli_number(n, "g"), cli_number(n, "l"));
  printf("worker     c = %.4g s per operation; calibration r^2 = %.3f\n", cli_number(m, "worker_c"),
         cli_number(m, "calibration_r2"));
}

int cli_probe_levels(const char *shape, const char *effort, const char *out, bool json_out) {
  Arena *a = arena_new();
  int ranks, threads;
  parse_shape(shape, &ranks, &threads);
  json_t *outer = ranks > 1 ? measure_level(a, "mpi", ranks, effort) : NULL;
  json_t *inner = threads > 1 ? measure_level(a, "threads", threads, effort) : NULL;
  double s = cli_number(inner ? inner : outer, "s");
  // A level of one child moves nothing: it is left out.
  json_t *tree = json_pack("{s:s, s:f}", "name", "core", "c", 1 / s);
  if (inner) tree = level_json("threads", threads, inner, tree);
  if (outer) tree = level_json("ranks", ranks, outer, tree);
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  json_t *m = json_pack("{s:s, s:s, s:s, s:i, s:o}", "name", arena_printf(a, "%s-levels-%dx%d", host, ranks, threads),
                        "shape", arena_printf(a, "%d ranks x %d threads", ranks, threads), "backend", "hybrid", "cores",
                        cli_cores(), "levels", tree);
  json_object_set_new(m, "worker_c", json_real(1 / s));
  json_t *measured = json_object();
  if (outer) json_object_set_new(measured, "ranks", outer);
  if (inner) json_object_set_new(measured, "threads", inner);
  json_object_set_new(m, "measurement", measured);
  // The workers' local work: a calibration on threads at as many workers
  // as stream from this host's memory at once (all of them, up to its
  // cores), so that the units of memory streamed beside other workers are
  // measured. At one thread a node, a calibration of one process had
  // priced them as a process streaming alone: hybrid 2 x 1 predicted
  // dot-float at n = 2e6 0.83 times flat MPI p = 2's time, and measured it
  // at 1.2-1.7 times.
  int workers = ranks * threads < cli_cores() ? ranks * threads : cli_cores();
  Calibration caches = cli_probe_caches();
  json_t *cal = cli_calibrate("threads", workers, s, caches, effort, NULL);
  json_object_update(m, cal);
  json_decref(cal);
  cli_set_caches(m, caches);
  if (out) {
    char *text = json_dumps(m, JSON_INDENT(2));
    cli_write_file(out, text);
    free(text);
  }
  if (json_out) {
    json_dumpf(m, stdout, JSON_INDENT(2));
    putchar('\n');
  } else if (!out) {
    print_levels(m);
  }
  if (outer) steady_warn(json_object_get(outer, "steadiness"), "while the ranks were measured");
  if (inner) steady_warn(json_object_get(inner, "steadiness"), "while the threads were measured");
  json_decref(m);
  arena_free(a);
  return 0;
}
