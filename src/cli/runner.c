// runner.c: compiling a program to a cached executable over BSPlib and
// running it with bsprun; shared by `run` and `sweep --measure`.
#include "bsp/bsp_limits.h"
#include "cli/cli.h"
#include "codegen/codegen.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int by_value(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

double runner_median(double *v, int64_t n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A run measured in rounds (the probe's calibration, sweep --measure) takes
// its fastest round's median, so that prediction and measurement keep the
// same state of the machine. This VM's vCPUs compute at half speed in
// spells of a tenth of a second to minutes (mss2 at n = 40, threads p = 1:
// 5.4 us in some rounds, 10 us in others); the median of three rounds
// took a slow spell whenever two rounds fell in one, the probe's too, and
// predictions then missed by up to 89%. The fastest of R rounds misses the
// machine's undisturbed state only if all R fall in a spell.
int runner_fastest_round(const double *round_medians, int rounds) {
  int best = 0;
  for (int r = 1; r < rounds; r++)
    if (round_medians[r] < round_medians[best]) best = r;
  return best;
}

//
// What a run leaves.
//

static char *slurp(const char *path) {
  size_t n;
  char *text = read_whole_file(path, &n);
  return text ? text : calloc(1, 1);
}

// A failed program's stderr: its first error message (with the source line
// and caret of a located one), without what the MPI launcher adds.
static void report_failure(const char *err) {
  progress_end();
  const char *line = err;
  while (*line) {
    const char *end = strchr(line, '\n');
    if (!end) end = line + strlen(line);
    if (strstr(line, ": error: ") && strstr(line, ": error: ") < end) {
      bool located = strncmp(line, "vecbsp: ", 8) != 0 && strncmp(line, "bsp: ", 5) != 0;
      const char *stop = end;
      for (int k = 0; located && k < 2 && *stop; k++) {
        const char *next = strchr(stop + 1, '\n');
        stop = next ? next : stop + strlen(stop);
      }
      fprintf(stderr, "%.*s\n", (int)(stop - line), line);
      return;
    }
    line = *end ? end + 1 : end;
  }
  fputs(err, stderr);
}

//
// The cache: one binary per C text, backend and profile flag.
//

uint64_t cli_hash(uint64_t h, const char *s) {
  for (; s && *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return (h ^ 0xff) * 0x100000001b3ull;  // an end mark: ("ab", "") and ("a", "b") differ
}

char *cli_cache_dir(Arena *a) {
  const char *dir = getenv("VECBSP_CACHE");
  if (dir && *dir) return arena_printf(a, "%s", dir);
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (xdg && *xdg) return arena_printf(a, "%s/vecbsp", xdg);
  if (home && *home) return arena_printf(a, "%s/.cache/vecbsp", home);
  fatal("no cache directory: set VECBSP_CACHE, XDG_CACHE_HOME or HOME");
}

void cli_make_dirs(char *path) {
  for (char *p = path + 1;; p++) {
    if (*p != '/' && *p != '\0') continue;
    char c = *p;
    *p = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST) fatal("cannot create '%s': %s", path, strerror(errno));
    *p = c;
    if (!c) break;
  }
}

// Which build of the runtime library the backend links (beside bspcc):
// a cached executable linked against another is stale.
static char *runtime_stamp(Arena *a, const char *bspcc, const char *backend) {
  char *lib = arena_printf(a, "%s", bspcc);
  *strrchr(lib, '/') = '\0';
  struct stat st;
  if (stat(arena_printf(a, "%s/libbsp_%s.a", lib, backend), &st) != 0) return "";
  return arena_printf(a, "%lld.%09ld:%lld", (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_size);
}

// How generated programs are compiled. Aligned loop heads make a loop's
// speed independent of where the linker puts it: the same program linked
// against the two backends ran 10-25% apart without. Registers allocated
// loop by loop keep a fold's accumulator in a register inside its loop even
// when its value lives on across calls: gcc's default kept a float one on
// the stack (no xmm register survives a call), and a float fold stored and
// reloaded it at every step, 2.8 ns an element against 0.47 in C.
// $VECBSP_CC_OPT replaces -O2 (tests of many small programs compile them
// with -O0, five times faster).
static const char *const cc_align = "-falign-loops=64", *const cc_regions = "-fira-region=all";

static const char *cc_optimise(void) {
  const char *o = getenv("VECBSP_CC_OPT");
  return o && *o ? o : "-O2";
}

// Writes text to a new file at path (registered for removal until it is
// renamed into place).
static void write_new(const char *path, const char *text) {
  cli_temp_keep(path);
  FILE *f = fopen(path, "w");
  bool ok = f && fputs(text, f) >= 0;
  if (f && fclose(f) != 0) ok = false;
  if (!ok) fatal("cannot write '%s': %s", path, strerror(errno));
}

// The executable for the C text, compiled by bspcc unless cached. An entry
// is the executable and its C source (to read), both compiled and written
// under temporary names and renamed into place together, interrupts
// blocked: the cache never holds half an entry.
static char *build(Arena *a, const char *text, const Options *opt) {
  char *dir = cli_cache_dir(a), *bspcc = cli_tool_path(a, "bspcc");
  cli_make_dirs(dir);
  uint64_t h = cli_hash(cli_hash(cli_hash(CLI_HASH_SEED, text), opt->backend), opt->profile ? "profile" : "");
  h = cli_hash(cli_hash(h, runtime_stamp(a, bspcc, opt->backend)), cc_optimise());
  h = cli_hash(cli_hash(h, cc_align), cc_regions);
  char *exe = arena_printf(a, "%s/%016llx-%s%s", dir, (unsigned long long)h, opt->backend,
                           opt->profile ? "-profile" : "");
  if (access(exe, X_OK) == 0) return exe;
  char *tmp = arena_printf(a, "%s.tmp%ld", exe, (long)getpid()), *tmp_src = arena_printf(a, "%s.c", tmp);
  write_new(tmp_src, text);
  cli_temp_keep(tmp);
  char *log = cli_temp_file(a, "cc");
  char *argv[] = {bspcc, arena_printf(a, "--backend=%s", opt->backend), (char *)cc_optimise(), (char *)cc_align, (char *)cc_regions,
                  opt->profile ? "-DVECBSP_PROFILE" : "-DVECBSP_NO_PROFILE", "-o", tmp, tmp_src, NULL};
  int status = cli_run_child(argv, log, log, NULL);
  sigset_t saved;
  cli_block_interrupts(true, &saved);
  bool placed = status == 0 && rename(tmp_src, arena_printf(a, "%s.c", exe)) == 0 && rename(tmp, exe) == 0;
  if (placed) cli_temp_forget(tmp), cli_temp_forget(tmp_src);
  cli_block_interrupts(false, &saved);
  if (!placed) {
    char *msg = slurp(log);
    fprintf(stderr, "%s", msg);
    free(msg);
    fatal("compiling the generated program failed (vecbsp compile writes it)");  // the files go at exit
  }
  cli_temp_remove(log);
  return exe;
}

//
// Running and reading what the run left.
//

static void read_times(const char *path, RunOutcome *o) {
  FILE *f = fopen(path, "r");
  double s;
  while (f && fscanf(f, "%lf", &s) == 1) {
    o->seconds = xrealloc(o->seconds, (size_t)(o->nseconds + 1) * sizeof *o->seconds);
    o->seconds[o->nseconds++] = s;
  }
  if (f) fclose(f);
}

static json_int_t max_ops(json_t *procs) {
  json_int_t w = 0;
  size_t i;
  json_t *p;
  json_array_foreach(procs, i, p) {
    json_int_t ops = json_integer_value(json_object_get(p, "ops"));
    if (ops > w) w = ops;
  }
  return w;
}

// The median over the repetitions of a superstep's field: field of the
// superstep itself (pid < 0) or of process pid. step is the first
// repetition's; the others follow every per supersteps.
static double median_over(json_t *all, size_t step, size_t per, int reps, int pid, const char *field,
                          double *scratch) {
  for (int r = 0; r < reps; r++) {
    json_t *s = json_array_get(all, step + (size_t)r * per);
    if (pid >= 0) s = json_array_get(json_object_get(s, "procs"), (size_t)pid);
    scratch[r] = json_real_value(json_object_get(s, field));
  }
  return runner_median(scratch, reps);
}

// The runtime's profile has two setup supersteps first (tag size, inputs),
// then each repetition's supersteps (the last ending at the sync without a
// request), then the empty one after it. Keeps each superstep's w and h
// (the same in every repetition), the median of its times over the
// repetitions after the first `skip` (a cold one can take several times
// as long) and the median of each process's work in it (its time before
// the barrier).
enum { SETUP_STEPS = 3 };
static bool read_profile(const char *path, int reps, int skip, bool output, RunOutcome *o) {
  json_error_t err;
  json_t *root = json_load_file(path, 0, &err);
  json_t *all = json_object_get(root, "supersteps");
  size_t n = json_array_size(all), extra = SETUP_STEPS + 1 + output;  // writing the result: a superstep
  if (!root || n < extra + (size_t)reps || (n - extra) % (size_t)reps != 0) {
    json_decref(root);
    return false;
  }
  size_t per = (n - extra) / (size_t)reps, first = SETUP_STEPS + per * (size_t)skip;
  reps -= skip;
  double *scratch = calloc((size_t)reps, sizeof *scratch);
  if (!scratch) fatal("out of memory");
  o->timeline = json_array();
  for (size_t k = first; k < first + per * (size_t)reps; k++)
    json_array_append(o->timeline, json_array_get(all, k));
  o->steps = json_array();
  for (size_t k = first; k < first + per; k++) {
    json_t *s = json_array_get(all, k), *work = json_array(), *procs = json_array(), *c;
    size_t pid;
    json_array_foreach(json_object_get(s, "procs"), pid, c) {
      json_array_append_new(work, json_real(median_over(all, k, per, reps, (int)pid, "work_seconds", scratch)));
      json_array_append_new(procs, json_pack("{s:O, s:O, s:O}", "w", json_object_get(c, "ops"), "sent",
                                             json_object_get(c, "words_sent"), "received", json_object_get(c, "words_received")));
    }
    json_array_append_new(o->steps, json_pack("{s:I, s:I, s:f, s:o, s:o}", "w", max_ops(json_object_get(s, "procs")),
                                              "h", json_integer_value(json_object_get(s, "h_words")),
                                              "seconds", median_over(all, k, per, reps, -1, "seconds", scratch),
                                              "work_seconds", work, "procs", procs));
  }
  free(scratch);
  json_decref(root);
  return true;
}

// Untimed repetitions before a measurement: the first touches every page
// the program uses, the second the runtime's buffers of the other parity
// of supersteps.
enum { WARMUP_REPS = 2 };

// The MPI ranks a hybrid run of p processes starts: --nodes (default 1),
// but one for one process.
static int ranks_of(const Options *opt, int p) { return p == 1 ? 1 : opt->nodes ? opt->nodes : 1; }

// Ends vecbsp when opt's backend cannot run p processes on `nodes` ranks.
static void check_processes(const Options *opt, int p, int nodes) {
  bool hybrid = strcmp(opt->backend, "hybrid") == 0;
  if (opt->nodes && !hybrid) fatal("--nodes is for --backend hybrid (MPI ranks, each running threads)");
  if (hybrid && nodes > p) fatal("--nodes %d: more MPI ranks than the %d processes", nodes, p);
  if (strcmp(opt->backend, "threads") == 0 && p > BSP_THREADS_MAX_PROCS)
    fatal("-p %d: the threads backend runs at most %d processes (MPI: --backend mpi)", p, BSP_THREADS_MAX_PROCS);
  if (hybrid && (p + nodes - 1) / nodes > BSP_THREADS_MAX_PROCS)
    fatal("-p %d: the hybrid backend runs at most %d threads a rank (more --nodes, or --backend mpi)", p,
          BSP_THREADS_MAX_PROCS);
}

// Runs exe once with opt->repeat timed repetitions, after WARMUP_REPS
// untimed ones when warmup is set.
RunOutcome runner_execute(Arena *a, const char *exe, const Options *opt, int p, bool warmup) {
  int nodes = ranks_of(opt, p);
  check_processes(opt, p, nodes);
  bool hybrid = strcmp(opt->backend, "hybrid") == 0;
  int nargs = 0;
  char **argv = arena_calloc(a, (size_t)(2 * (opt->ndefines + opt->ninputs) + 14), sizeof *argv);
  argv[nargs++] = cli_tool_path(a, "bsprun");
  argv[nargs++] = arena_printf(a, "--backend=%s", opt->backend);
  if (hybrid) argv[nargs++] = "--nodes", argv[nargs++] = arena_printf(a, "%d", nodes);
  argv[nargs++] = "-n";
  argv[nargs++] = arena_printf(a, "%d", p);
  argv[nargs++] = (char *)exe;
  for (int i = 0; i < opt->ndefines; i++) argv[nargs++] = "-D", argv[nargs++] = (char *)opt->defines[i];
  for (int i = 0; i < opt->ninputs; i++) argv[nargs++] = "--input", argv[nargs++] = (char *)opt->inputs[i];
  if (opt->has_seed) argv[nargs++] = arena_printf(a, "--random=%llu", (unsigned long long)opt->seed);
  int repeat = (opt->repeat ? opt->repeat : 1) + (warmup ? WARMUP_REPS : 0);
  argv[nargs++] = arena_printf(a, "--repeat=%d", repeat);
  char *out = cli_temp_file(a, "out"), *err = cli_temp_file(a, "err"), *times = cli_temp_file(a, "times");
  char *profile = opt->profile ? cli_temp_file(a, "profile") : NULL;
  char *partial = opt->output ? arena_printf(a, "%s.partial", opt->output) : NULL;  // the program's, renamed when complete
  if (partial) cli_temp_keep(partial);
  const char *env[] = {arena_printf(a, "VECBSP_TIMES=%s", times),
                       profile ? "BSPRUN_MPI_FLAGS=-x VECBSP_TIMES -x VECBSP_OUTPUT -x BSP_PROFILE"
                               : "BSPRUN_MPI_FLAGS=-x VECBSP_TIMES -x VECBSP_OUTPUT",
                       arena_printf(a, "VECBSP_OUTPUT=%s", opt->output ? opt->output : ""),
                       profile ? arena_printf(a, "BSP_PROFILE=%s", profile) : NULL, NULL};
  int status = cli_run_child(argv, out, err, env);
  RunOutcome o = {0};
  bool profile_read = true;
  if (status != 0) {
    char *text = slurp(err);
    report_failure(text);
    free(text);
  } else {
    o.result = slurp(out);
    o.result[strcspn(o.result, "\n")] = '\0';
    read_times(times, &o);
    if (profile) profile_read = read_profile(profile, repeat, warmup ? WARMUP_REPS : 0, opt->output != NULL, &o);
  }
  const char *files[] = {out, err, times, profile};
  for (int i = 0; i < 4; i++)
    if (files[i]) cli_temp_remove(files[i]);
  if (partial && status) cli_temp_remove(partial);
  else if (partial) cli_temp_forget(partial);
  if (status != 0) exit(1);
  if (!profile_read) fatal("the program's profile is unreadable (was it cut short? out of memory or disk?)");
  if (warmup && o.nseconds > WARMUP_REPS) {
    o.nseconds -= WARMUP_REPS;
    memmove(o.seconds, o.seconds + WARMUP_REPS, (size_t)o.nseconds * sizeof *o.seconds);
  }
  if (o.nseconds == 0) fatal("the program did not report its time");
  o.median = runner_median(o.seconds, o.nseconds);
  o.min = o.seconds[0];
  return o;
}

// A measurement shorter than this in all is noise: it is taken again with
// more repetitions (at most MAX_REPEAT).
#define MIN_MEASURED_SECONDS 0.01
enum { MAX_REPEAT = 2000 };

RunOutcome runner_measure(Arena *a, const char *exe, const Options *opt, int p) {
  RunOutcome o = runner_execute(a, exe, opt, p, true);
  int repeat = opt->repeat ? opt->repeat : 1;
  if (o.median * repeat >= MIN_MEASURED_SECONDS) return o;
  Options more = *opt;
  more.repeat = (int)fmin(MAX_REPEAT, ceil(MIN_MEASURED_SECONDS / fmax(o.median, 1e-7)));
  runner_free(&o);
  return runner_execute(a, exe, &more, p, true);
}

// Each run keeps its fastest round: this VM slows for seconds at a time,
// and a probe that timed each run once, in a row, put the add chain at
// 0.304 ns a step (0.242-0.245 in two others) and every prediction of its
// machine file with it.
void runner_time_rounds(Arena *a, TimedRun *const *runs, int n, int rounds, const char *title) {
  double *medians = arena_calloc(a, (size_t)(n * rounds) + 1, sizeof *medians);
  progress_begin(title, n * rounds);
  for (int round = 0; round < rounds; round++)
    for (int i = 0; i < n; i++) {
      progress_step(round * n + i, runs[i]->what);
      RunOutcome o = runner_measure(a, runs[i]->exe, &runs[i]->opt, runs[i]->p);
      medians[i * rounds + round] = o.median;
      runner_free(&o);
    }
  for (int i = 0; i < n; i++) {
    const double *of_run = medians + i * rounds;
    runs[i]->seconds = of_run[runner_fastest_round(of_run, rounds)];
  }
}

char *runner_build(Arena *a, Program *prog, const Plan *pl, const Options *opt) {
  char *text = codegen_program(lower_program(prog), pl);
  char *exe = build(a, text, opt);
  free(text);
  return exe;
}

// The root's children of a plan's levels: the groups of the round below
// the top (workers, on one level).
static int root_fanout(const Plan *pl) {
  int below = pl->levels.rounds - 2, groups = 0;
  if (below < 0) return pl->p;
  for (int k = 0; k < pl->p; k++) groups += range_level_lead(pl->levels.lead, pl->p, below, k) == k;
  return groups;
}

int runner_nodes(const Plan *pl, const Options *opt) {
  bool hybrid = strcmp(opt->backend, "hybrid") == 0;
  return hybrid && !opt->nodes && pl->levels.rounds > 0 ? root_fanout(pl) : opt->nodes;
}

int runner_processes(const Plan *pl, const Options *opt, int p) {
  check_processes(opt, p, opt->nodes ? opt->nodes : 1);  // what -p and --nodes ask must be possible, whatever runs
  bool counted = opt->profile || opt->trace;
  return !counted && plan_one_process(pl) ? 1 : p;
}

const Plan *runner_executed_plan(Program *prog, const int64_t *params, const Plan *pl, int processes, Machine planning,
                                 const char *spec, bool block_result) {
  if (processes == pl->p) return pl;
  planning.p = 1;
  planning.tree = NULL;  // a machine's levels are for all its workers
  return cost_plan(prog, params, &planning, spec, block_result);
}

void runner_free(RunOutcome *o) {
  free(o->result);
  free(o->seconds);
  json_decref(o->steps);
  json_decref(o->timeline);
}

