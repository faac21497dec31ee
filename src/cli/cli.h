// cli.h: the vecbsp command line: options shared by the subcommands, and
// the subcommands themselves (one file each).
#ifndef VECBSP_CLI_H
#define VECBSP_CLI_H

#include "cost/cost.h"
#include "lang/lang.h"

#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

typedef struct Options {
  const char **files;      // positional arguments (programs)
  int nfiles;
  const char **defines;    // -D NAME=VALUE, in order
  int ndefines;
  const char **inputs;     // --input NAME=VALUE, in order
  int ninputs;
  bool has_seed;           // --random SEED given
  uint64_t seed;
  int p;                   // -p P (0: not given)
  const char *machine;     // --machine NAME|FILE.json (NULL: not given)
  bool has_g, has_l, has_s;
  double g, l, s;          // -g -l -s overrides
  bool json;               // --json
  bool csv;                // --csv (sweep)
  const char *model;       // --model exact|paper (NULL: default)
  bool symbolic;           // --symbolic (cost)
  bool strict;             // --strict (check): a law that fails is an error
  int steps;               // --steps N (derive): programs whose rewrites are tried (0: not given)
  const char **varies;     // --vary NAME=FROM:TO:STEP (sweep), in order
  int nvaries;
  const char *plot;        // --plot OUT.svg (sweep)
  bool measure;            // --measure (sweep)
  int repeat;              // --repeat K (0: not given)
  int rounds;              // --rounds R (sweep --measure; 0: not given)
  const char *backend;     // --backend threads|mpi|hybrid (hybrid: run only)
  int nodes;               // --nodes N (run --backend hybrid): MPI ranks (0: not given)
  bool profile;            // --profile (run)
  const char *trace;       // --trace FILE.json (run)
  const char *output;      // -o FILE, --output FILE
  const char *plan;        // --plan paper|best[,SETTING...] (NULL: best)
  const char *effort;      // --quick or --long (probe), NULL for the default
  const char *refit;       // --refit FILE.json (probe): refit its recorded calibration runs
  double bytes;            // --bytes B (topology; < 0: not given)
  double elements;         // --elements N (topology; < 0: not given)
  const char *levels;      // --levels RANKSxTHREADS (probe): a two-level machine, level by level
} Options;

//
// options.c: the table of subcommands and flags, which the parser, each
// command's --help and the manual page read, and the parser.
//

// The subcommands, as bits: the commands a flag is accepted by.
enum {
  CMD_CHECK = 1 << 0, CMD_EVAL = 1 << 1, CMD_COST = 1 << 2, CMD_SWEEP = 1 << 3, CMD_DERIVE = 1 << 4,
  CMD_COMPARE = 1 << 5, CMD_RUN = 1 << 6, CMD_COMPILE = 1 << 7, CMD_PLAN = 1 << 8, CMD_PROBE = 1 << 9,
  CMD_TOPOLOGY = 1 << 10, CMD_ALL = (1 << 11) - 1
};

typedef struct CliCommand {
  const char *name;          // as typed: "cost"
  unsigned id;               // its CMD_ bit
  int (*run)(int, char **);  // argv[0] is the command's name; returns the exit status
  const char *synopsis;      // the arguments, after "vecbsp NAME"
  const char *summary;       // what it does, one line
} CliCommand;

typedef enum FlagId {
  FLAG_DEFINE, FLAG_INPUT, FLAG_RANDOM, FLAG_PROCS, FLAG_MACHINE, FLAG_G, FLAG_L, FLAG_S, FLAG_MODEL,
  FLAG_SYMBOLIC, FLAG_PLAN, FLAG_VARY, FLAG_MEASURE, FLAG_REPEAT, FLAG_ROUNDS, FLAG_BACKEND, FLAG_PROFILE,
  FLAG_TRACE, FLAG_STEPS, FLAG_STRICT, FLAG_QUICK, FLAG_LONG, FLAG_REFIT, FLAG_LEVELS, FLAG_NODES, FLAG_JSON, FLAG_CSV, FLAG_PLOT,
  FLAG_OUTPUT, FLAG_BYTES, FLAG_ELEMENTS, FLAG_HELP
} FlagId;
enum { FLAG_COUNT = FLAG_HELP + 1 };

typedef struct CliFlag {
  FlagId id;
  const char *name;   // "-o"
  const char *alias;  // another spelling ("--output"), or NULL
  const char *value;  // the value's name in the help ("FILE"), NULL for a switch
  bool repeatable;    // may be given several times (-D, --input, --vary)
  unsigned commands;  // the CMD_ bits of the commands that accept it
  const char *help;   // one line
} CliFlag;

extern const CliCommand cli_commands[];
extern const int cli_ncommands;
extern const CliFlag cli_flags[];
extern const int cli_nflags;

const CliCommand *cli_find_command(const char *name);

// Parses argv[1..] (argv[0] is the subcommand name). Flags the command does
// not take, flags given twice (but -D, --input, --vary) and missing values
// are errors; -h or --help prints the command's help and exits.
void cli_parse_options(int argc, char **argv, Options *opt);

//
// help.c: what the table says, for people: vecbsp --help, COMMAND --help,
// --version and the manual page.
//

// The list of commands (status 0 on stdout, 2 on stderr: a usage error).
int cli_print_usage(FILE *out);
// One command's synopsis and every flag it accepts; returns 0.
int cli_print_command_help(FILE *out, const CliCommand *cmd);
// The manual page vecbsp(1), in roff.
void cli_print_man(FILE *out);
// "vecbsp VERSION".
void cli_print_version(FILE *out);

// Reads, parses and checks a program; exits with a diagnostic on error.
// Returns the type of main as `check` prints it through main_type.
Program *cli_load_program(Arena *a, const char *path, char **main_type);

// The same for a program given as text (name is used in messages).
Program *cli_load_string(Arena *a, const char *name, const char *text);

// Values of the program's params from -D, by param index; every param must
// be bound, every -D must name a param. Values are sizes: 0 <= v < 2^62.
int64_t *cli_bind_params(Arena *a, const Program *prog, const Options *opt);

// The processors online (at least 1): the default p, and the most
// processes that run without time slicing one another.
int cli_cores(void);

// The path of a companion program (bsprun, bspcc, bspprobe) installed next
// to the running vecbsp executable; fatal if it is missing.
char *cli_tool_path(Arena *a, const char *name);

// plan.c: the machine the user gave: --machine, else $VECBSP_MACHINE, else NULL.
const char *cli_given_machine(const Options *opt);
// The machine `run` plans for: the one given, else the built-in local one
// (cost and sweep predict run's plan with it), at opt's p.
Machine cli_planning_machine(Arena *a, const Options *opt);
// The same at any p, as cli_plan plans with it: with its levels on the
// hybrid backend only.
Machine cli_plan_machine(Arena *a, const Options *opt);
// The plan of prog for p processes and these params (NULL: not
// bound, the planner's default guess) as --plan asks: the papers' template
// or the planner's best for the machine of opt, within --plan's settings;
// block_result lets main's value stay distributed (written by blocks).
Plan *cli_plan(Arena *a, Program *prog, const int64_t *params, const Options *opt, int p, bool block_result);

// Writes text to path atomically (a temporary file renamed into place), so
// a failure never leaves a half-written file.
void cli_write_file(const char *path, const char *text);

// A new file beside target (in its directory, named .vecbsp-XXXXXX), removed
// at exit or interrupt until forgotten, with mode (< 0: a new file's, 0666
// less the umask); its descriptor and *tmp its malloc'ed name, or -1 with
// errno set.
int cli_create_beside(const char *target, int mode, char **tmp);

// An error unless a file can be written at path (before any work): not a
// directory, in a directory that can be written (flag names the option).
void cli_check_writable(const char *flag, const char *path);

// -o FILE for a result (eval, run): only .npy files.
void cli_check_result_file(const Options *opt);

// Parses "NAME=VALUE" into its two halves (errors mention flag).
void cli_split_assignment(const char *text, const char *flag, char **name, const char **value, Arena *a);

//
// cleanup.c: nothing left behind by an interrupt (SIGINT, SIGTERM, SIGHUP)
// or an error: temporary files are removed, the child is stopped.
//

// Installs the handlers (not for a signal ignored from the start) and the
// removal at exit.
void cli_cleanup_init(void);
// Blocks the interrupts (saving the mask), or restores the saved mask.
void cli_block_interrupts(bool block, sigset_t *saved);
// A new empty file TMPDIR/vecbsp-WHAT.XXXXXX, removed at exit or interrupt.
char *cli_temp_file(Arena *a, const char *what);
// path, made otherwise (a file or an empty directory), removed at exit or
// interrupt unless forgotten or removed first.
void cli_temp_keep(const char *path);
void cli_temp_forget(const char *path);  // the file stays (renamed into place, say)
void cli_temp_remove(const char *path);  // removed now
// Runs argv (found on PATH if it has no slash) in a process group of its
// own with stdout and stderr into files (NULL: our stderr), stdin from
// /dev/null and extra environment variables (NAME=VALUE, NULL-terminated);
// an interrupt is passed on to it. Returns its exit status (128 + signal).
int cli_run_child(char **argv, const char *out, const char *err, const char **env);

//
// runner.c: compiled programs, cached, run with bsprun.
//

typedef struct RunOutcome {
  char *result;        // the printed result (no newline), malloc'ed
  double *seconds;     // the time of each repetition, sorted
  int nseconds;
  double min, median;  // of seconds
  json_t *steps;       // with opt->profile: [{w, h, seconds}] of one repetition
  json_t *timeline;    // with opt->profile: the runtime's supersteps of every repetition in turn
                       // ({seconds, procs: [{ops, work_seconds, ...}]}), the setup's left out
} RunOutcome;

// A run to time in rounds (runner_time_rounds).
typedef struct TimedRun {
  const char *exe;
  Options opt;       // its options (its sizes bound)
  int p;             // its processes
  const char *what;  // for the progress line
  double seconds;    // its fastest round's median, once timed
} TimedRun;

// Times the runs in rounds, each round in their order, each run keeping
// its fastest round's median (runner_fastest_round), under a progress
// line titled title.
void runner_time_rounds(Arena *a, TimedRun *const *runs, int n, int rounds, const char *title);

// The executable of prog for opt->backend (and opt->profile): generated,
// compiled by bspcc -O2 into the cache, or found there.
char *runner_build(Arena *a, Program *prog, const Plan *pl, const Options *opt);
// Runs exe on p processes with opt's -D, --input, --random and --repeat,
// after untimed repetitions when warmup is set (they are in no time nor
// profile returned); a failing program's error is reported and ends
// vecbsp (status 1).
RunOutcome runner_execute(Arena *a, const char *exe, const Options *opt, int p, bool warmup);
// The same for measuring the steady state (sweep --measure, calibration):
// two untimed repetitions first, and runs of microseconds repeated until they add
// up to 10 ms, so that their median is not noise.
RunOutcome runner_measure(Arena *a, const char *exe, const Options *opt, int p);
// The processes a plan made for p runs on: 1 when it sends nothing
// (plan_one_process), on any backend (hybrid: runner_execute starts one
// rank for one process), unless its supersteps are being counted
// (--profile, --trace: each process's counts are compared with the
// model's at p); else p.
int runner_processes(const Plan *pl, const Options *opt, int p);
// The plan that runs for pl (made on the machine `planning` as --plan spec
// asks) on `processes` (runner_processes): pl, or on one process, the plan
// for one process (flat), so that such a run at -p P is the run at -p 1.
// The two programs run every region whole on process 0, but their code
// around the regions differs (inputs read whole or by blocks), and gcc
// compiled the same region slower in one (running-pairs at p = 2 took
// 1.13-1.33 times as long as at p = 1).
const Plan *runner_executed_plan(Program *prog, const int64_t *params, const Plan *pl, int processes, Machine planning,
                                 const char *spec, bool block_result);
// The --nodes a run of a plan takes: the one given; on the hybrid backend
// without one, for a plan of a machine with levels, the root's children
// (so that each MPI rank is a node of the machine).
int runner_nodes(const Plan *pl, const Options *opt);
void runner_free(RunOutcome *o);
// The median of n values (sorted in place); of an even count, the mean of
// the middle two.
double runner_median(double *v, int64_t n);
// The round whose median times a run measured in rounds: its fastest (the
// first of equals).
int runner_fastest_round(const double *round_medians, int rounds);

//
// timeline.c: a run's supersteps predicted (the exact model, on the machine
// the run is planned for) beside measured.
//

typedef struct PredictedStep {
  char *where;       // "FILE:LINE:COL": the application whose barrier ends it
  const char *what;  // what ends it ("fold: partial results", "end")
  double seconds;    // the whole superstep
  double exchange;   // of which its h-relation
  double barrier;    // and its barrier
  double *work;      // each process's local time, by pid (the largest: seconds - exchange - barrier)
} PredictedStep;

typedef struct Prediction {
  const char *machine;   // its name
  bool calibrated;       // seconds from its calibration, else (w + g h + l) / s
  PredictedStep *steps;  // as the run's, the last (after the last barrier) included
  int nsteps;            // 0 if the model lists fewer than there are
} Prediction;

// The supersteps of prog under plan pl at p processes, as the exact model
// predicts them for the machine of opt (cli_planning_machine).
Prediction timeline_predict(Arena *a, Program *prog, const int64_t *params, const Plan *pl, const Options *opt, int p);
// Writes the run o (run with profile) and the prediction pr as a Chrome
// trace (JSON) to path.
void timeline_write_trace(const char *path, const Prediction *pr, const RunOutcome *o, const Options *opt, int p);

// calibrate.c: the exact model's per-unit times on this machine, fitted to
// runs of small programs at p processes (s: operations per second): {"calibration": {...},
// "calibration_r2": R2, "calibration_runs": [...], "memory_curves": [...],
// "calibration_programs": MARK}. With earlier (an earlier probe's machine
// file) nothing runs: its recorded times are refitted, and marked as this
// version's only if this version's programs timed them all. caches: the
// sizes the runs' memory shares are found by.
json_t *cli_calibrate(const char *backend, int p, double s, Calibration caches, const char *effort,
                      const json_t *earlier);

// memory_curve.c: the runs that measure this host's memory curves
// (docs/cost-model.md, "The memory curve"): a load and a store kernel on
// threads at footprints of 1/8 to 8 times cache_bytes, on one process and
// on p (at most the cores), into *runs (*n of them), to be timed in
// rounds; NULL (none) when the cache is not known.
typedef struct CurveSet CurveSet;
CurveSet *cli_curve_runs(Arena *a, int p, double cache_bytes, TimedRun ***runs, int *n);
// memory_curve.c: once its runs are timed, the curves of s into cal;
// their "memory_curves", with each point's seconds per element.
json_t *cli_curves_measured(const CurveSet *s, Calibration *cal);
// memory_curve.c: a machine file's recorded "memory_curves" into cal, each
// curve's shares made again from its kernels' recorded seconds where it
// has them (probe --refit); the curves as they now stand.
json_t *cli_memory_curves_again(const json_t *recorded, Calibration *cal);
// memory_curve.c: has the machine file the kernels' times of every curve a
// probe at p makes (none when its cache is not known)?
bool cli_memory_curves_timed(const json_t *machine, int p);
// memory_curve.c: h and the kernels and footprints of the curves.
uint64_t cli_memory_curve_hash(uint64_t h);

// The probe's load and store kernels (calibrate.c, memory_curve.c): one
// word loaded an element; one loaded and four stored.
#define CLI_SUM_KERNEL "param n\ninput v : [n]int\nmain = fold (+) v\n"
#define CLI_STORES_KERNEL "param n\ninput v : [n]int\nmain = length (map (\\x -> ((x, x + 1), (x + 2, x + 3))) v)\n"

// calibrate.c: a fingerprint of the calibration programs (their names,
// texts, sizes and plans), which a machine file records: a probe made by
// other programs is made again before it stands in for this host.
const char *cli_calibration_programs(Arena *a);
// probe.c: a number in a JSON object (0 if it is missing or not a number).
double cli_number(const json_t *obj, const char *key);
// probe.c: this host's data caches, in bytes (0: unknown): cache_bytes the
// largest (the processes share it), l1_bytes a core's first level.
Calibration cli_probe_caches(void);
// probe.c: writes them into a machine file's object.
void cli_set_caches(json_t *machine, Calibration caches);
// probe_levels.c: `vecbsp probe --levels RANKSxTHREADS` (effort: --quick,
// --long or NULL; out: -o FILE or NULL; json_out: --json).
int cli_probe_levels(const char *shape, const char *effort, const char *out, bool json_out);
// runner.c: the cache of compiled programs and probed machines
// ($VECBSP_CACHE, else $XDG_CACHE_HOME/vecbsp, else ~/.cache/vecbsp), and
// mkdir -p.
char *cli_cache_dir(Arena *a);
void cli_make_dirs(char *path);
// runner.c: h followed by the text s (NULL: none), FNV-1a, for the cache's
// keys and fingerprints; start from CLI_HASH_SEED.
#define CLI_HASH_SEED 0xcbf29ce484222325ull
uint64_t cli_hash(uint64_t h, const char *s);
// probe.c: this host's machine file for backend at p, probed into the
// cache the first time (saying so on stderr).
const char *cli_host_machine(Arena *a, const char *backend, int p);
// probe.c: runs bsprun -n p bspprobe ARGS... (NULL-terminated, at most 8)
// on backend and returns its JSON; NULL after an error message if it failed.
json_t *cli_run_bspprobe(Arena *a, const char *backend, int p, const char *const *args);

//
// steady.c: whether the machine keeps its speed, from a fixed loop timed
// back to back on every process (bspprobe --steadiness). A steadiness is
// {seconds, slow_factor, samples, canary_seconds (the loop's fast time),
// slow_share (of timings over slow_factor times that), slowdown (their
// median over it)}.
//

// Measures for seconds on min(p, cores) processes (the hybrid backend's on
// MPI): an oversubscribed run's own time slicing is not the machine's.
// Ends vecbsp if bspprobe fails.
json_t *steady_measure(Arena *a, const char *backend, int p, double seconds);
// Several measurements as one (samples and slow timings added up), the list
// kept under "measurements" (a reference is taken).
json_t *steady_merge(json_t *measurements);
// More than 5% of the timings slow.
bool steady_is_unsteady(const json_t *steadiness);
// One of the measurements steady_merge made `merged` of was steady: no more
// than 5% of its timings slow, and its loop's fast time not that of a slow
// spell throughout (over slow_factor times the fastest of them all).
bool steady_check_holds(const json_t *check, const json_t *merged);
// One line saying how steady the machine was.
void steady_describe(FILE *out, const json_t *steadiness);
// A warning on stderr if the machine was not steady `during` something.
void steady_warn(const json_t *steadiness, const char *during);

// Shared by cost and sweep (cost.c): the model and machine the options ask
// for, and output helpers.
CostModel cost_model_from_options(const Options *opt);
Machine cost_machine_from_options(Arena *a, const Options *opt);
// A warning when a probed machine's p (or backend, if given) is not the one
// it is used for.
void cost_warn_machine(const Machine *m, int p, const char *backend);
void cost_print_number(FILE *out, double x);  // in full (CSV)
// A figure in a table: a count exactly, any other number to 4 significant
// digits (--json and --csv give them in full).
typedef struct Figure {
  char text[32];
} Figure;
Figure cost_figure(double x);
json_t *cost_json_number(double x);  // an integer while x is one exactly; not finite: an error
json_t *cost_json_checked(json_t *packed);  // json_pack's result, or an error if it failed

// sweep.c: the predicted (and with --measure, measured) cost of opt's
// programs over its --vary ranges, printed on out as opt asks (NULL: only
// the --plot); extra (taken, may be NULL) is merged into the --json object
// (compare's agreement).
void sweep_programs(const Options *opt, json_t *extra, FILE *out);
// An error unless --plot's path can be drawn: a file whose extension names
// the format (.svg, .png, .pdf), not a directory.
void sweep_check_plot(const char *path);
// One --vary NAME=FROM:TO:STEP (STEP 1 if left out), or NAME=FROM:TO:*F
// (FROM times the powers of F, rounded half up, each value once): its
// values, increasing.
typedef struct VaryRange {
  const char *name;  // a parameter, or "p"
  int64_t *values;
  int64_t count;
  bool geometric;    // a STEP of *F: a sweep's plot has a logarithmic x axis
} VaryRange;
VaryRange sweep_parse_vary(Arena *a, const char *spec);

// Subcommands (cli_commands runs them): argv[0] is the subcommand's name.
// Each returns the exit status.
int cmd_check(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_cost(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_derive(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_topology(int argc, char **argv);

#endif
