// options.c: parsing the flags shared by the vecbsp subcommands.
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

// Flag value either glued ("-Dn=3", "--json=..") or in the next argument.
static const char *flag_value(int argc, char **argv, int *i, const char *flag) {
  const char *arg = argv[*i];
  size_t n = strlen(flag);
  if (arg[n] == '=' && flag[1] == '-') return arg + n + 1;
  if (arg[n] != '\0') return arg + n;  // -Dn=3, -p4
  if (*i + 1 >= argc) fatal("%s needs a value", flag);
  return argv[++*i];
}

// A flag without a value: exactly itself (--json=no is no flag).
static bool is_switch(const char *arg, const char *flag) { return strcmp(arg, flag) == 0; }

static bool is_flag(const char *arg, const char *flag) {
  size_t n = strlen(flag);
  if (strncmp(arg, flag, n) != 0) return false;
  if (arg[n] == '\0') return true;
  if (flag[1] == '-') return arg[n] == '=';
  return strlen(flag) == 2;  // short flags may carry their value glued on
}

void cli_parse_options(int argc, char **argv, Options *opt) {
  memset(opt, 0, sizeof *opt);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || a[1] == '\0') {
      push(&opt->files, &opt->nfiles, a);
    } else if (is_flag(a, "-D")) {
      push(&opt->defines, &opt->ndefines, flag_value(argc, argv, &i, "-D"));
    } else if (is_flag(a, "--input")) {
      push(&opt->inputs, &opt->ninputs, flag_value(argc, argv, &i, "--input"));
    } else if (is_flag(a, "--random")) {
      const char *v = flag_value(argc, argv, &i, "--random");
      char *end;
      errno = 0;
      opt->seed = strtoull(v, &end, 10);
      if (!isdigit((unsigned char)*v) || *end != '\0' || errno)
        fatal("--random expects a non-negative integer seed, got '%s'", v);
      opt->has_seed = true;
    } else if (is_flag(a, "-p")) {
      opt->p = (int)parse_integer("-p", flag_value(argc, argv, &i, "-p"), 1, 1 << 20);
    } else if (is_flag(a, "--machine")) {
      opt->machine = flag_value(argc, argv, &i, "--machine");
    } else if (is_flag(a, "-g")) {
      opt->g = parse_double("-g", flag_value(argc, argv, &i, "-g"));
      opt->has_g = true;
    } else if (is_flag(a, "-l")) {
      opt->l = parse_double("-l", flag_value(argc, argv, &i, "-l"));
      opt->has_l = true;
    } else if (is_flag(a, "-s")) {
      opt->s = parse_double("-s", flag_value(argc, argv, &i, "-s"));
      opt->has_s = true;
    } else if (is_switch(a, "--json")) {
      opt->json = true;
    } else if (is_switch(a, "--csv")) {
      opt->csv = true;
    } else if (is_flag(a, "--model")) {
      opt->model = flag_value(argc, argv, &i, "--model");
      if (strcmp(opt->model, "exact") != 0 && strcmp(opt->model, "paper") != 0)
        fatal("--model must be 'exact' or 'paper', got '%s'", opt->model);
    } else if (is_flag(a, "--steps")) {
      opt->steps = (int)parse_integer("--steps", flag_value(argc, argv, &i, "--steps"), 1, 100000);
    } else if (is_switch(a, "--strict")) {
      opt->strict = true;
    } else if (is_switch(a, "--symbolic")) {
      opt->symbolic = true;
    } else if (is_flag(a, "--vary")) {
      push(&opt->varies, &opt->nvaries, flag_value(argc, argv, &i, "--vary"));
    } else if (is_flag(a, "--plot")) {
      opt->plot = flag_value(argc, argv, &i, "--plot");
    } else if (is_switch(a, "--measure")) {
      opt->measure = true;
    } else if (is_flag(a, "--repeat")) {
      opt->repeat = (int)parse_integer("--repeat", flag_value(argc, argv, &i, "--repeat"), 1, 1000000);
    } else if (is_flag(a, "--rounds")) {
      opt->rounds = (int)parse_integer("--rounds", flag_value(argc, argv, &i, "--rounds"), 1, 1000);
    } else if (is_flag(a, "--backend")) {
      opt->backend = flag_value(argc, argv, &i, "--backend");
      if (strcmp(opt->backend, "threads") != 0 && strcmp(opt->backend, "mpi") != 0)
        fatal("--backend must be 'threads' or 'mpi', got '%s'", opt->backend);
    } else if (is_switch(a, "--profile")) {
      opt->profile = true;
    } else if (is_switch(a, "--quick") || is_switch(a, "--long")) {
      if (opt->effort && strcmp(opt->effort, a) != 0) fatal("--quick and --long exclude each other");
      opt->effort = a;
    } else if (is_flag(a, "--refit")) {
      opt->refit = flag_value(argc, argv, &i, "--refit");
    } else if (is_flag(a, "-o") || is_flag(a, "--output")) {
      opt->output = flag_value(argc, argv, &i, a[1] == 'o' ? "-o" : "--output");
    } else if (is_flag(a, "--plan")) {
      opt->plan = flag_value(argc, argv, &i, "--plan");
    } else {
      fatal("unknown option '%s' for '%s' (see vecbsp --help)", a, argv[0]);
    }
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
  const char *slash = strrchr(target, '/');
  int dirlen = slash ? (int)(slash - target) + 1 : 0;
  size_t n = (size_t)dirlen + 32;
  char *tmp = xmalloc(n);
  snprintf(tmp, n, "%.*s.vecbsp-XXXXXX", dirlen, target);
  int fd = mkstemp(tmp);
  mode_t mask = umask(0);
  umask(mask);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  bool ok = f && fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) == 0 && fputs(text, f) >= 0;
  if (f && fclose(f) != 0) ok = false;
  if (!f && fd >= 0) close(fd);
  if (!ok || rename(tmp, target) != 0) {
    int err = errno;
    if (fd >= 0) unlink(tmp);
    free(tmp);
    free(real);
    fatal("cannot write '%s': %s", path, strerror(err));
  }
  free(tmp);
  free(real);
}

void cli_check_result_file(const Options *opt) {
  size_t len = opt->output ? strlen(opt->output) : 0;
  if (opt->output && (len < 4 || strcmp(opt->output + len - 4, ".npy") != 0))
    fatal("-o %s: only .npy files are supported for results", opt->output);
}
