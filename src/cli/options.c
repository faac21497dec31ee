// options.c: the table of the vecbsp subcommands and their flags, which the
// parser below, --help and the manual page (help.c) read; and what the
// subcommands share to read their arguments (params, files, paths).
#define _DEFAULT_SOURCE /* realpath */
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// Options live as long as the process: their lists come from this arena.
static Arena *option_arena;

//
// The table: every subcommand and every flag, with the commands that take
// it. The parser, each command's --help and the manual page read it.
//

const CliCommand cli_commands[] = {
    {"check", CMD_CHECK, cmd_check, "FILE [-D NAME=VALUE...]",
     "parse, infer types, check shapes and that fold operators associate; print main's type"},
    {"eval", CMD_EVAL, cmd_eval, "FILE [-D NAME=VALUE...] [--input NAME=VALUE...] [--random SEED]",
     "run the sequential reference interpreter and print the result"},
    {"cost", CMD_COST, cmd_cost, "FILE [-D NAME=VALUE...] [--machine M] [--model exact|paper]",
     "predict the BSP cost of a program from its shapes alone: supersteps, W, H, S and the time"},
    {"sweep", CMD_SWEEP, cmd_sweep, "FILE... --vary NAME=FROM:TO:STEP [--measure]",
     "predicted (and measured) cost of programs over a range of sizes, and where the cheapest changes"},
    {"derive", CMD_DERIVE, cmd_derive, "FILE -D NAME=VALUE... [-o OUT.vec]",
     "search the Bird-Meertens rewrites for a cheaper program that computes the same"},
    {"compare", CMD_COMPARE, cmd_compare, "A.vec B.vec... [--vary NAME=FROM:TO:STEP]",
     "do the programs compute the same (a shrunk counterexample if not), and which is cheaper where"},
    {"run", CMD_RUN, cmd_run, "FILE [-D NAME=VALUE...] [--input NAME=VALUE...] [--random SEED] [-p P]",
     "compile to C over BSPlib (cached), run on P processes, print the result"},
    {"compile", CMD_COMPILE, cmd_compile, "FILE [-o OUT.c] [-D NAME=VALUE...] [-p P] [--backend hybrid]",
     "emit the standalone C program over the BSPlib API"},
    {"plan", CMD_PLAN, cmd_plan, "FILE [-D NAME=VALUE...] [-p P] [--vary p=FROM:TO]",
     "the implementation chosen for every skeleton application, and the alternatives' predicted times"},
    {"probe", CMD_PROBE, cmd_probe, "[-p P] [--backend threads|mpi] [--levels RxT] [-o FILE.json]",
     "measure this machine's BSP parameters (s, g, l) and calibrate the exact model"},
    {"topology", CMD_TOPOLOGY, cmd_topology, "FILE.json --bytes B --elements N [-p P]",
     "a topology machine's communication routines and map, s_fold, s_scan, by Rangaswami's formulas"},
};
const int cli_ncommands = sizeof cli_commands / sizeof *cli_commands;

// Commands that predict for a machine (and plan for one).
#define MACHINE_CMDS (CMD_COST | CMD_SWEEP | CMD_DERIVE | CMD_COMPARE | CMD_RUN | CMD_COMPILE | CMD_PLAN)
// Commands that measure compiled programs.
#define MEASURE_CMDS (CMD_SWEEP | CMD_COMPARE)

const CliFlag cli_flags[] = {
    {FLAG_DEFINE, "-D", NULL, "NAME=VALUE", true,
     CMD_CHECK | CMD_EVAL | MACHINE_CMDS, "binds a param (each param once)"},
    {FLAG_INPUT, "--input", NULL, "NAME=VALUE", true, CMD_EVAL | CMD_RUN | MEASURE_CMDS,
     "an input: a literal ([1,2]), or a text, .csv or .npy file"},
    {FLAG_RANDOM, "--random", NULL, "SEED", false, CMD_EVAL | CMD_RUN | MEASURE_CMDS,
     "fills every input not given with random data"},
    // The commands that read no data take run's data arguments too, so that
    // scripts give every command the same ones.
    {FLAG_INPUT, "--input", NULL, "NAME=VALUE", true, CMD_COST | CMD_PLAN | CMD_COMPILE,
     "ignored: no data is read here (taken as run takes it)"},
    {FLAG_RANDOM, "--random", NULL, "SEED", false, CMD_COST | CMD_PLAN | CMD_COMPILE,
     "ignored: no data is read here (taken as run takes it)"},
    {FLAG_PROCS, "-p", NULL, "P", false, CMD_EVAL | MACHINE_CMDS | CMD_PROBE | CMD_TOPOLOGY,
     "processes (default: the machine's p; run and probe: the cores; topology: its configuration of P)"},
    {FLAG_MACHINE, "--machine", NULL, "NAME|FILE.json", false, MACHINE_CMDS,
     "the machine predicted and planned for (a file of vecbsp probe)"},
    {FLAG_G, "-g", NULL, "G", false, MACHINE_CMDS, "overrides the machine's g (operations per word)"},
    {FLAG_L, "-l", NULL, "L", false, MACHINE_CMDS, "overrides the machine's l (operations per barrier)"},
    {FLAG_S, "-s", NULL, "S", false, MACHINE_CMDS, "overrides the machine's s (operations per second)"},
    {FLAG_MODEL, "--model", NULL, "exact|paper", false, CMD_COST | CMD_SWEEP | CMD_DERIVE | CMD_COMPARE,
     "what run executes (exact, the default) or the papers' calculus"},
    {FLAG_SYMBOLIC, "--symbolic", NULL, NULL, false, CMD_COST, "W, H and S as closed forms in the unbound params and p"},
    {FLAG_PLAN, "--plan", NULL, "paper|best[,SETTING...]", false, MACHINE_CMDS,
     "the papers' template or the planner's best (settings: fold=tree,...)"},
    {FLAG_VARY, "--vary", NULL, "NAME=FROM:TO:STEP", true, CMD_SWEEP | CMD_DERIVE | CMD_COMPARE | CMD_PLAN,
     "a range of a param or of p (several advance together); a STEP of *F multiplies (n=1e3:1e7:*10)"},
    {FLAG_MEASURE, "--measure", NULL, NULL, false, MEASURE_CMDS, "also compile and run every program at every point"},
    {FLAG_REPEAT, "--repeat", NULL, "K", false, CMD_RUN | MEASURE_CMDS, "timed runs, after two untimed ones (the median is reported)"},
    {FLAG_ROUNDS, "--rounds", NULL, "R", false, MEASURE_CMDS,
     "measure all the points R times, keep the fastest round"},
    {FLAG_BACKEND, "--backend", NULL, "threads|mpi", false, CMD_PROBE, "the BSPlib runtime's backend (default threads)"},
    {FLAG_BACKEND, "--backend", NULL, "threads|mpi|hybrid", false, CMD_RUN | CMD_COMPILE | MEASURE_CMDS,
     "the BSPlib runtime's backend (default threads; hybrid: MPI ranks, each running threads, "
     "planned for the machine's levels)"},
    {FLAG_NODES, "--nodes", NULL, "N", false, CMD_RUN | MEASURE_CMDS,
     "with --backend hybrid: N MPI ranks of P/N threads each, rounded up (default: the machine's top fan-out, or 1)"},
    {FLAG_PROFILE, "--profile", NULL, NULL, false, CMD_RUN,
     "each superstep's counts, source position, predicted and measured time"},
    {FLAG_TRACE, "--trace", NULL, "FILE.json", false, CMD_RUN,
     "the run's timeline as a Chrome trace (Perfetto, chrome://tracing)"},
    {FLAG_STEPS, "--steps", NULL, "N", false, CMD_DERIVE, "programs whose rewrites are tried, at most (default 60)"},
    {FLAG_STRICT, "--strict", NULL, NULL, false, CMD_CHECK, "an operator that is not associative is an error"},
    {FLAG_QUICK, "--quick", NULL, NULL, false, CMD_PROBE, "a probe of a few seconds, less accurate"},
    {FLAG_LONG, "--long", NULL, NULL, false, CMD_PROBE, "a longer, more accurate probe"},
    {FLAG_REFIT, "--refit", NULL, "FILE.json", false, CMD_PROBE,
     "refit an earlier probe's recorded runs, running nothing"},
    {FLAG_LEVELS, "--levels", NULL, "RANKSxTHREADS", false, CMD_PROBE,
     "a two-level machine: MPI between the ranks, threads within one (docs/hierarchical.md)"},
    {FLAG_JSON, "--json", NULL, NULL, false,
     CMD_EVAL | CMD_COST | CMD_SWEEP | CMD_DERIVE | CMD_COMPARE | CMD_RUN | CMD_PLAN | CMD_PROBE | CMD_TOPOLOGY,
     "machine-readable output on stdout, numbers in full precision"},
    {FLAG_CSV, "--csv", NULL, NULL, false, MEASURE_CMDS, "the table as CSV on stdout"},
    {FLAG_PLOT, "--plot", NULL, "OUT.svg|OUT.png|OUT.pdf", false, CMD_SWEEP | CMD_DERIVE | CMD_COMPARE,
     "draw the curves with gnuplot, in the format the extension names"},
    {FLAG_OUTPUT, "-o", "--output", "FILE", false, CMD_EVAL | CMD_RUN | CMD_COMPILE | CMD_DERIVE | CMD_PROBE,
     "the output: a .npy result (compile: C, derive: VEC-BSP, probe: JSON)"},
    {FLAG_BYTES, "--bytes", NULL, "B", false, CMD_TOPOLOGY, "the bytes of the message broadcast, scattered, exchanged"},
    {FLAG_ELEMENTS, "--elements", NULL, "N", false, CMD_TOPOLOGY, "the elements of the list mapped, folded, scanned"},
    {FLAG_HELP, "-h", "--help", NULL, false, CMD_ALL, "this help"},
};
const int cli_nflags = sizeof cli_flags / sizeof *cli_flags;

const CliCommand *cli_find_command(const char *name) {
  for (int i = 0; i < cli_ncommands; i++)
    if (strcmp(cli_commands[i].name, name) == 0) return &cli_commands[i];
  return NULL;
}

static void push(const char ***list, int *n, const char *s) {
  if (!option_arena) option_arena = arena_new();
  const char **grown = arena_calloc(option_arena, (size_t)*n + 1, sizeof *grown);
  if (*n) memcpy(grown, *list, (size_t)*n * sizeof *grown);
  grown[(*n)++] = s;
  *list = grown;
}

static double parse_double(const char *flag, const char *s) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);  // ERANGE below the smallest normal is a denormal: a number all the same
  if (*s == '\0' || *end != '\0' || (errno && !(errno == ERANGE && fabs(v) < 1)) || !isfinite(v))
    fatal("%s expects a finite number, got '%s'", flag, s);
  return v;
}

static long long parse_integer(const char *flag, const char *s, long long lo, long long hi) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (*s == '\0' || *end != '\0' || errno || v < lo || v > hi)
    fatal("%s expects an integer in [%lld, %lld], got '%s'", flag, lo, hi, s);
  return v;
}

static const char *one_of(const char *flag, const char *value, const char *a, const char *b) {
  if (strcmp(value, a) != 0 && strcmp(value, b) != 0) fatal("%s must be '%s' or '%s', got '%s'", flag, a, b, value);
  return value;
}

// The spelling of arg that names flag f (its name or its long alias), or NULL.
// A flag with a value matches glued ("-Dn=3", "-p4", "--input=v=[1]");
// a switch only exactly (--json=no is no flag).
static const char *spelling(const CliFlag *f, const char *arg) {
  const char *names[] = {f->name, f->alias};
  for (int k = 0; k < 2 && names[k]; k++) {
    size_t n = strlen(names[k]);
    if (strncmp(arg, names[k], n) != 0) continue;
    if (arg[n] == '\0') return names[k];
    if (f->value && names[k][1] == '-' && arg[n] == '=') return names[k];
    if (f->value && names[k][1] != '-') return names[k];  // a short flag with its value glued on
  }
  return NULL;
}

// The entry of the flag arg spells for cmd; else any entry it spells (which
// cmd does not take); else NULL.
static const CliFlag *find_flag(const char *arg, const CliCommand *cmd, const char **name) {
  const CliFlag *other = NULL;
  for (int i = 0; i < cli_nflags; i++) {
    const char *spelled = spelling(&cli_flags[i], arg);
    if (spelled && (cli_flags[i].commands & cmd->id)) return *name = spelled, &cli_flags[i];
    if (spelled && !other) *name = spelled, other = &cli_flags[i];
  }
  return other;
}

// The flag's value, glued on or in the next argument.
static const char *flag_value(int argc, char **argv, int *i, const char *name) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (arg[n] == '=' && name[1] == '-') return arg + n + 1;
  if (arg[n] != '\0') return arg + n;
  if (*i + 1 >= argc) fatal("%s needs a value", name);
  return argv[++*i];
}

static void apply(Options *opt, const CliFlag *f, const char *name, const char *v, const CliCommand *cmd) {
  switch (f->id) {
  case FLAG_DEFINE: push(&opt->defines, &opt->ndefines, v); break;
  case FLAG_INPUT: push(&opt->inputs, &opt->ninputs, v); break;
  case FLAG_VARY: push(&opt->varies, &opt->nvaries, v); break;
  case FLAG_RANDOM: {
    char *end;
    errno = 0;
    opt->seed = strtoull(v, &end, 10);
    if (!isdigit((unsigned char)*v) || *end != '\0' || errno)
      fatal("--random expects a non-negative integer seed, got '%s'", v);
    opt->has_seed = true;
    break;
  }
  case FLAG_PROCS: opt->p = (int)parse_integer(name, v, 1, 1 << 20); break;
  case FLAG_MACHINE: opt->machine = v; break;
  case FLAG_G: opt->g = parse_double(name, v), opt->has_g = true; break;
  case FLAG_L: opt->l = parse_double(name, v), opt->has_l = true; break;
  case FLAG_S: opt->s = parse_double(name, v), opt->has_s = true; break;
  case FLAG_MODEL: opt->model = one_of(name, v, "exact", "paper"); break;
  case FLAG_SYMBOLIC: opt->symbolic = true; break;
  case FLAG_PLAN: opt->plan = v; break;
  case FLAG_MEASURE: opt->measure = true; break;
  case FLAG_REPEAT: opt->repeat = (int)parse_integer(name, v, 1, 1000000); break;
  case FLAG_ROUNDS: opt->rounds = (int)parse_integer(name, v, 1, 1000); break;
  case FLAG_BACKEND:
    if (cmd->id & (CMD_RUN | CMD_COMPILE | MEASURE_CMDS)) {
      if (strcmp(v, "threads") && strcmp(v, "mpi") && strcmp(v, "hybrid"))
        fatal("%s must be 'threads', 'mpi' or 'hybrid', got '%s'", name, v);
      opt->backend = v;
    } else {
      opt->backend = one_of(name, v, "threads", "mpi");
    }
    break;
  case FLAG_NODES: opt->nodes = (int)parse_integer(name, v, 1, 1 << 20); break;
  case FLAG_PROFILE: opt->profile = true; break;
  case FLAG_TRACE: opt->trace = v; break;
  case FLAG_STEPS: opt->steps = (int)parse_integer(name, v, 1, 100000); break;
  case FLAG_STRICT: opt->strict = true; break;
  case FLAG_QUICK:
  case FLAG_LONG:
    if (opt->effort) fatal("--quick and --long exclude each other");
    opt->effort = f->name;
    break;
  case FLAG_REFIT: opt->refit = v; break;
  case FLAG_LEVELS: opt->levels = v; break;
  case FLAG_JSON: opt->json = true; break;
  case FLAG_CSV: opt->csv = true; break;
  case FLAG_PLOT: opt->plot = v; break;
  case FLAG_OUTPUT: opt->output = v; break;
  case FLAG_BYTES:
  case FLAG_ELEMENTS: {
    double x = parse_double(name, v);
    if (x < 0 || x > 0x1p53) fatal("%s expects a number in [0, 2^53], got '%s'", name, v);
    *(f->id == FLAG_BYTES ? &opt->bytes : &opt->elements) = x;
    break;
  }
  case FLAG_HELP: exit(cli_print_command_help(stdout, cmd));
  }
}

void cli_parse_options(int argc, char **argv, Options *opt) {
  memset(opt, 0, sizeof *opt);
  opt->bytes = opt->elements = -1;
  const CliCommand *cmd = cli_find_command(argv[0]);
  bool given[FLAG_COUNT] = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *name;
    if (a[0] != '-' || a[1] == '\0') {
      push(&opt->files, &opt->nfiles, a);
      continue;
    }
    const CliFlag *f = find_flag(a, cmd, &name);
    if (!f || !(f->commands & cmd->id))
      fatal("%s option '%s' for '%s' (vecbsp %s --help lists its options)", f ? "no" : "unknown", a, cmd->name,
            cmd->name);
    if (given[f->id] && !f->repeatable) fatal("%s is given twice", name);
    given[f->id] = true;
    apply(opt, f, name, f->value ? flag_value(argc, argv, &i, name) : NULL, cmd);
  }
}

void cli_split_assignment(const char *text, const char *flag, char **name, const char **value, Arena *a) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text) fatal("%s expects NAME=VALUE, got '%s'", flag, text);
  *name = arena_strndup(a, text, (size_t)(eq - text));
  *value = eq + 1;
}

Program *cli_load_program(Arena *a, const char *path, char **main_type) {
  Source *src = source_read(a, path);
  if (!src) fatal("cannot read '%s': %s", path, strerror(errno));
  return program_check(a, src, main_type);
}

Program *cli_load_string(Arena *a, const char *name, const char *text) {
  return program_check(a, source_from_string(a, name, text, strlen(text)), NULL);
}

int64_t *cli_bind_params(Arena *a, const Program *prog, const Options *opt) {
  int64_t *vals = arena_calloc(a, (size_t)prog->nparams + 1, sizeof *vals);
  bool *bound = arena_calloc(a, (size_t)prog->nparams + 1, sizeof *bound);
  for (int i = 0; i < opt->ndefines; i++) {
    char *name;
    const char *value;
    cli_split_assignment(opt->defines[i], "-D", &name, &value, a);
    int k = 0;
    while (k < prog->nparams && strcmp(prog->params[k]->name, name) != 0) k++;
    if (k == prog->nparams) fatal("-D %s: the program has no parameter named '%s'", opt->defines[i], name);
    if (bound[k]) fatal("-D %s: the parameter '%s' is bound twice", opt->defines[i], name);
    char flag[256];
    snprintf(flag, sizeof flag, "-D %s", name);
    vals[k] = parse_integer(flag, value, 0, (long long)1 << 62);
    bound[k] = true;
  }
  for (int k = 0; k < prog->nparams; k++)
    if (!bound[k])
      error_at(prog->params[k]->pos, "parameter '%s' is not bound; give it a value with -D %s=VALUE",
               prog->params[k]->name, prog->params[k]->name);
  return vals;
}

int cli_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

char *cli_tool_path(Arena *a, const char *name) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) fatal("cannot locate the vecbsp executable to find %s", name);
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash) *slash = '\0';
  char *path = arena_printf(a, "%s/%s", exe, name);
  if (access(path, X_OK) != 0) fatal("%s is missing (expected next to vecbsp, at %s)", name, path);
  return path;
}

// Writes text to an existing file that is not a regular one (a device, a
// pipe: /dev/stdout), which a rename would replace.
static void write_in_place(const char *path, const char *shown, const char *text) {
  FILE *f = fopen(path, "w");
  bool ok = f && fputs(text, f) >= 0;
  if (f && fclose(f) != 0) ok = false;
  if (!ok) fatal("cannot write '%s': %s", shown, strerror(errno));
}

int cli_create_beside(const char *target, int mode, char **tmp) {
  const char *slash = strrchr(target, '/');
  int dirlen = slash ? (int)(slash - target) + 1 : 0;
  size_t n = (size_t)dirlen + 32;
  *tmp = xmalloc(n);
  snprintf(*tmp, n, "%.*s.vecbsp-XXXXXX", dirlen, target);
  sigset_t saved;
  cli_block_interrupts(true, &saved);  // registered as soon as it exists
  int fd = mkstemp(*tmp);
  if (fd >= 0) cli_temp_keep(*tmp);
  cli_block_interrupts(false, &saved);
  mode_t mask = umask(0);
  umask(mask);
  if (fd >= 0 && fchmod(fd, mode >= 0 ? (mode_t)mode : 0666 & ~mask) != 0) {
    int err = errno;
    close(fd);
    cli_temp_remove(*tmp);
    errno = err;
    return -1;
  }
  return fd;
}

// A regular file is written beside itself under a temporary name and
// renamed into place, so a failure never leaves half of it; through a
// symbolic link the file it points at is written, and an existing file
// keeps its permissions (a new one gets the usual 0666 less the umask).
void cli_write_file(const char *path, const char *text) {
  struct stat st;
  char *real = realpath(path, NULL);  // the target of a link, if it exists
  const char *target = real ? real : path;
  bool exists = stat(target, &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    write_in_place(target, path, text);
    free(real);
    return;
  }
  char *tmp;
  int fd = cli_create_beside(target, exists ? (int)(st.st_mode & 07777) : -1, &tmp);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  bool ok = f && fputs(text, f) >= 0;
  if (f && fclose(f) != 0) ok = false;
  if (!f && fd >= 0) close(fd);
  if (!ok || rename(tmp, target) != 0) {
    int err = errno;
    cli_temp_remove(tmp);
    free(tmp);
    free(real);
    fatal("cannot write '%s': %s", path, strerror(err));
  }
  cli_temp_forget(tmp);
  free(tmp);
  free(real);
}

void cli_check_writable(const char *flag, const char *path) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) fatal("%s %s: is a directory; give a file", flag, path);
  const char *slash = strrchr(path, '/');
  char dir[4096];
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
  if (access(dir, W_OK) != 0) fatal("%s %s: cannot write it: %s", flag, path, strerror(errno));
}

void cli_check_result_file(const Options *opt) {
  size_t len = opt->output ? strlen(opt->output) : 0;
  if (opt->output && (len < 4 || strcmp(opt->output + len - 4, ".npy") != 0))
    fatal("-o %s: only .npy files are supported for results", opt->output);
}
