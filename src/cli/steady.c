// steady.c: is the machine steady? A fixed loop timed back to back on every
// process (bspprobe --steadiness), summed up over several measurements,
// described in a line and warned about: on a machine whose speed changes
// every few milliseconds no prediction can be closer to a measurement than
// the measurements are to each other, and the user should know which error
// is whose.
#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// More slow timings than this and the machine is not steady: a quiet core
// has a fraction of a percent (interrupts), the cloud hosts that halve a
// vCPU's speed in spells have tens of percents.
#define UNSTEADY_SHARE 0.05

json_t *steady_measure(Arena *a, const char *backend, int p, double seconds) {
  if (p > cli_cores()) p = cli_cores();  // time slicing of our own processes is not the machine's
  if (strcmp(backend, "hybrid") == 0) backend = "mpi";  // no bspprobe runs hybrid; its ranks are MPI's
  const char *args[] = {"--steadiness", arena_printf(a, "%g", seconds), NULL};
  json_t *raw = cli_run_bspprobe(a, backend, p, args);
  if (!raw) exit(1);
  json_t *st = json_incref(json_object_get(raw, "steadiness"));
  json_decref(raw);
  if (!json_is_object(st)) fatal("bspprobe --steadiness reported no steadiness");
  return st;
}

// Each measurement's shares are against its own fast time; a measurement
// made wholly in a slow spell has a fast time over slow_factor times the
// fastest measurement's, and all its timings count as slow, by at least
// that ratio.
json_t *steady_merge(json_t *measurements) {
  double fastest = INFINITY, factor = 0, samples = 0, slow = 0, slowdowns = 0, seconds = 0;
  size_t i;
  json_t *m;
  json_array_foreach(measurements, i, m) {
    fastest = fmin(fastest, cli_number(m, "canary_seconds"));
    factor = cli_number(m, "slow_factor");
  }
  json_array_foreach(measurements, i, m) {
    double n = cli_number(m, "samples"), scale = cli_number(m, "canary_seconds") / fastest;
    double share = scale > factor ? 1 : cli_number(m, "slow_share");
    double slowdown = scale > factor ? scale : scale * cli_number(m, "slowdown");
    samples += n, slow += n * share, slowdowns += n * share * slowdown, seconds += cli_number(m, "seconds");
  }
  return json_pack("{s:f, s:f, s:I, s:f, s:f, s:f, s:O}", "seconds", seconds, "slow_factor", factor, "samples",
                   (json_int_t)samples, "canary_seconds", isfinite(fastest) ? fastest : 0, "slow_share",
                   samples > 0 ? slow / samples : 0, "slowdown", slow > 0 ? slowdowns / slow : 0, "measurements",
                   measurements);
}

bool steady_is_unsteady(const json_t *st) { return cli_number(st, "slow_share") > UNSTEADY_SHARE; }

bool steady_check_holds(const json_t *check, const json_t *merged) {
  double fastest = cli_number(merged, "canary_seconds");
  return !steady_is_unsteady(check) && cli_number(check, "canary_seconds") <= cli_number(check, "slow_factor") * fastest;
}

// "a 8.7 us loop took 2.0 times as long in 66% of 33000 timings", for the
// table's line and the warning alike.
static void print_slow(FILE *out, const json_t *st) {
  fprintf(out, "a %.3g us loop took %.1f times as long in %.0f%% of %lld timings",
          1e6 * cli_number(st, "canary_seconds"), cli_number(st, "slowdown"), 100 * cli_number(st, "slow_share"),
          (long long)cli_number(st, "samples"));
}

void steady_describe(FILE *out, const json_t *st) {
  if (!steady_is_unsteady(st)) {
    fprintf(out, "steady: %.1f%% of %lld timings of a %.3g us loop took over %.3g times its fastest\n",
            100 * cli_number(st, "slow_share"), (long long)cli_number(st, "samples"),
            1e6 * cli_number(st, "canary_seconds"), cli_number(st, "slow_factor"));
    return;
  }
  fputs("not steady: ", out);
  print_slow(out, st);
  fputs("; times measured here vary as much, and no prediction can be closer to them\n", out);
}

void steady_warn(const json_t *st, const char *during) {
  if (!steady_is_unsteady(st)) return;
  fflush(stdout);
  fprintf(stderr, "vecbsp: warning: the machine's speed was not steady %s: ", during);
  print_slow(stderr, st);
  fputs("; predictions cannot be closer than that to what is measured "
        "(docs/user-guide.md, \"A machine that is not steady\")\n", stderr);
}
