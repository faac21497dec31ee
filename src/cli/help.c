// help.c: the table of options.c, for people: `vecbsp --help`, `vecbsp
// COMMAND --help`, `--version` and the manual page vecbsp(1) in roff
// (`vecbsp help --man`, which the build installs).
#include "cli/cli.h"

#include <string.h>

#ifndef VECBSP_VERSION
#define VECBSP_VERSION "unknown"
#endif

void cli_print_version(FILE *out) { fprintf(out, "vecbsp %s\n", VECBSP_VERSION); }

int cli_print_usage(FILE *out) {
  fputs("usage: vecbsp COMMAND [OPTIONS]\n\ncommands:\n", out);
  for (int i = 0; i < cli_ncommands; i++) fprintf(out, "  %-9s %s\n", cli_commands[i].name, cli_commands[i].summary);
  fputs("\nvecbsp COMMAND --help lists a command's options; vecbsp --version; vecbsp help --man prints\n"
        "the manual page. Guide: docs/user-guide.md.\n",
        out);
  return out == stdout ? 0 : 2;
}

// "-o, --output FILE": a flag's spellings and its value.
static void flag_title(const CliFlag *f, char *buf, size_t size) {
  snprintf(buf, size, "%s%s%s%s%s", f->name, f->alias ? ", " : "", f->alias ? f->alias : "", f->value ? " " : "",
           f->value ? f->value : "");
}

int cli_print_command_help(FILE *out, const CliCommand *cmd) {
  fprintf(out, "usage: vecbsp %s %s\n\n%s\n\noptions:\n", cmd->name, cmd->synopsis, cmd->summary);
  for (int i = 0; i < cli_nflags; i++) {
    const CliFlag *f = &cli_flags[i];
    if (!(f->commands & cmd->id)) continue;
    char title[80];
    flag_title(f, title, sizeof title);
    if (strlen(title) > 28) fprintf(out, "  %s\n  %-28s %s\n", title, "", f->help);
    else fprintf(out, "  %-28s %s\n", title, f->help);
  }
  return 0;
}

//
// The manual page.
//

// Text for roff: backslashes and hyphens escaped (a hyphen is a minus in
// options), a leading period or quote neutralised.
static void roff(FILE *out, const char *s) {
  if (*s == '.' || *s == '\'') fputs("\\&", out);
  for (; *s; s++) {
    if (*s == '\\') fputs("\\e", out);
    else if (*s == '-') fputs("\\-", out);
    else fputc(*s, out);
  }
}

// The variables vecbsp reads (the runtime's are in bsprun(1)).
static const char *const environment[][2] = {
    {"VECBSP_CACHE", "where compiled programs and probed machines are kept (default $XDG_CACHE_HOME/vecbsp or ~/.cache/vecbsp)"},
    {"VECBSP_MACHINE", "the machine file plans and predictions are made for when --machine is not given"},
    {"VECBSP_CC_OPT", "replaces -O2 when generated programs are compiled"},
    {"TMPDIR", "where run, probe and sweep keep their temporary files (default /tmp); none is left behind"},
};

void cli_print_man(FILE *out) {
  fprintf(out, ".TH VECBSP 1 \"\" \"vecbsp %s\" \"User Commands\"\n.SH NAME\n", VECBSP_VERSION);
  fputs("vecbsp \\- check, evaluate, predict the BSP cost of, compile and run VEC\\-BSP programs\n"
        ".SH SYNOPSIS\n.B vecbsp\n.I COMMAND\n[\\fIOPTIONS\\fR]\n.br\n.B vecbsp\n.BR \\-\\-help \" | \" \\-\\-version\n"
        ".SH DESCRIPTION\nVEC\\-BSP is a small functional language whose only parallelism is skeletons and in "
        "which every size is known statically. vecbsp predicts a program's BSP cost (work, h\\-relations, "
        "barriers) for any machine and size without running it, compiles it to C over BSPlib and runs it on "
        "P processes. Every error is reported as FILE:LINE:COL: error: MESSAGE or vecbsp: error: MESSAGE "
        "with a non\\-zero exit status.\n.SH COMMANDS\n",
        out);
  for (int i = 0; i < cli_ncommands; i++) {
    const CliCommand *c = &cli_commands[i];
    fprintf(out, ".SS \"vecbsp %s\"\n", c->name);
    fprintf(out, ".B vecbsp %s\n", c->name);
    roff(out, c->synopsis);
    fputs("\n.PP\n", out);
    roff(out, c->summary);
    fputs(".\n", out);
    for (int k = 0; k < cli_nflags; k++) {
      const CliFlag *f = &cli_flags[k];
      if (!(f->commands & c->id)) continue;
      char title[80];
      flag_title(f, title, sizeof title);
      fputs(".TP\n.B ", out);
      roff(out, title);
      fputs("\n", out);
      roff(out, f->help);
      fputs("\n", out);
    }
  }
  fputs(".SH ENVIRONMENT\n", out);
  for (size_t i = 0; i < sizeof environment / sizeof *environment; i++) {
    fprintf(out, ".TP\n.B %s\n", environment[i][0]);
    roff(out, environment[i][1]);
    fputs("\n", out);
  }
  fputs(".SH EXIT STATUS\n0 on success; 1 after an error (compare: when the programs differ); 2 for a usage error.\n"
        ".SH SEE ALSO\n.BR bspcc (1),\n.BR bsprun (1);\nthe user guide, docs/user\\-guide.md, in the source tree.\n",
        out);
}
