// help_check.c BUILD_DIR USER_GUIDE: reads the option table the parser reads
// (src/cli/options.c) and checks, for every command and every flag, that
// `vecbsp COMMAND --help` lists the flag exactly when the parser accepts it
// for that command (the parser is run on the flag in a child process), and
// that docs/user-guide.md mentions every flag.
#define _DEFAULT_SOURCE
#include "cli/cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;

static void fail(const char *fmt, const char *a, const char *b) {
  printf("FAIL: ");
  printf(fmt, a, b);
  putchar('\n');
  failures++;
}

static char *read_all(FILE *f) {
  size_t n = 0, cap = 1 << 16;
  char *text = malloc(cap);
  for (size_t got; (got = fread(text + n, 1, cap - n - 1, f)) > 0;)
    if ((n += got) + 1 == cap) text = realloc(text, cap *= 2);
  text[n] = '\0';
  return text;
}

// A value the parser takes for a flag's value name.
static const char *sample(const CliFlag *f) {
  static const char *const samples[][2] = {
      {"NAME=VALUE", "n=3"}, {"SEED", "1"}, {"P", "2"}, {"G", "1.5"}, {"L", "100"}, {"S", "1e9"}, {"K", "3"},
      {"R", "2"}, {"N", "5"}, {"B", "8"}, {"FILE", "x"}, {"FILE.json", "x.json"}, {"NAME=FROM:TO:STEP", "n=1:3:1"}};
  for (size_t i = 0; i < sizeof samples / sizeof *samples; i++)
    if (strcmp(f->value, samples[i][0]) == 0) return samples[i][1];
  static char first[64];  // "exact|paper": the first choice
  snprintf(first, sizeof first, "%.*s", (int)strcspn(f->value, "|["), f->value);
  if (strchr(f->value, '|')) return first;
  fail("no sample value for %s %s: add one to help_check.c", f->name, f->value);
  return "x";
}

// Whether an entry of the table (a flag may have one per group of
// commands) gives cmd the flag name.
static bool takes(const CliCommand *cmd, const char *name) {
  for (int i = 0; i < cli_nflags; i++)
    if ((cli_flags[i].commands & cmd->id) &&
        (strcmp(cli_flags[i].name, name) == 0 || (cli_flags[i].alias && strcmp(cli_flags[i].alias, name) == 0)))
      return true;
  return false;
}

// Whether `cmd` parses `flag value` (in a child: the parser exits on errors).
static bool parses(const CliCommand *cmd, const CliFlag *f, const char *name) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(3);
    char *argv[] = {(char *)cmd->name, (char *)name, f->value ? (char *)sample(f) : NULL, NULL};
    Options opt;
    cli_parse_options(f->value ? 3 : 2, argv, &opt);
    _exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Whether the help text has an option line for name: "  -o, --output FILE  ...".
static bool lists(const char *help, const char *name) {
  for (const char *line = help; *line;) {
    size_t len = strcspn(line, "\n");
    char title[256];
    snprintf(title, sizeof title, "%.*s", (int)len, line);
    char *end = strstr(title + 2, "  ");  // the help text begins after two spaces
    if (end) *end = '\0';
    for (char *tok = strncmp(title, "  -", 3) == 0 ? strtok(title, ", ") : NULL; tok; tok = strtok(NULL, ", "))
      if (strcmp(tok, name) == 0) return true;
    line += len + (line[len] != '\0');
  }
  return false;
}

// Whether text names flag as a word of its own ("-p 2", "`-p`", not "--plan").
static bool mentions(const char *text, const char *flag) {
  size_t n = strlen(flag);
  for (const char *p = strstr(text, flag); p; p = strstr(p + 1, flag)) {
    char before = p == text ? ' ' : p[-1], after = p[n];
    if (before != '-' && !isalnum((unsigned char)before) && !isalnum((unsigned char)after) && after != '-') return true;
  }
  return false;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  FILE *guide_file = fopen(argv[2], "r");
  if (!guide_file) return 2;
  char *guide = read_all(guide_file);
  fclose(guide_file);
  int checked = 0;
  for (int c = 0; c < cli_ncommands; c++) {
    const CliCommand *cmd = &cli_commands[c];
    char command[4096];
    snprintf(command, sizeof command, "%s/vecbsp %s --help", argv[1], cmd->name);
    FILE *p = popen(command, "r");
    char *help = read_all(p);
    if (pclose(p) != 0) fail("%s --help failed%s", cmd->name, "");
    for (int i = 0; i < cli_nflags; i++) {
      const CliFlag *f = &cli_flags[i];
      const char *names[] = {f->name, f->alias};
      for (int k = 0; k < 2 && names[k]; k++, checked++) {
        bool accepted = takes(cmd, names[k]);
        if (lists(help, names[k]) != accepted)
          fail(accepted ? "%s --help does not list %s" : "%s --help lists %s, which it does not accept", cmd->name, names[k]);
        if (parses(cmd, f, names[k]) != accepted)
          fail(accepted ? "%s: the parser refuses %s" : "%s: the parser accepts %s, which the table does not give it",
               cmd->name, names[k]);
      }
    }
    free(help);
  }
  for (int i = 0; i < cli_nflags; i++)
    if (!mentions(guide, cli_flags[i].name)) fail("docs/user-guide.md never mentions %s%s", cli_flags[i].name, "");
  free(guide);
  printf("%d flag spellings of %d commands checked, %d failures\n", checked, cli_ncommands, failures);
  return failures != 0;
}
