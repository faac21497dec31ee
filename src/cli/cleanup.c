// cleanup.c: what an interrupted vecbsp must not leave behind. Temporary
// files are registered while they exist and removed at exit and on
// SIGINT, SIGTERM or SIGHUP; the child being run (bspcc, bsprun, gnuplot)
// runs in a process group of its own, which the signal is passed on to,
// so that its own children (the compiler's, mpirun's) stop too before the
// files are removed.
#define _DEFAULT_SOURCE /* mkstemp */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

// The files to remove (malloc'ed paths; NULL: a free slot). A signal
// handler reads them, so each slot changes by one atomic exchange.
enum { MAX_TEMPS = 256 };
static _Atomic(char *) temps[MAX_TEMPS];
// The process group of the child being waited for (0: none).
static atomic_int child_group;

static const int interrupts[] = {SIGINT, SIGTERM, SIGHUP};
enum { NINTERRUPTS = sizeof interrupts / sizeof *interrupts };

// Removes every registered file, then the registered directories (emptied
// by then); async-signal-safe.
static void remove_temps(void) {
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < MAX_TEMPS; i++) {
      char *path = atomic_load(&temps[i]);
      if (path && (pass == 0 ? unlink(path) == 0 : rmdir(path) == 0)) atomic_store(&temps[i], NULL);
    }
}

// The child's group is asked to stop by the signal (mpirun passes it on to
// its ranks, the compiler removes its own temporary files) and given
// GRACE_TICKS of 10 ms to do so, then killed, so that nothing of it writes a
// file after the files are removed. A shell in the group can take the
// signal for itself just before it starts a program, which then never sees
// it: the kill ends that program. Async-signal-safe.
enum { GRACE_TICKS = 200 };
static void stop_group(int group, int sig) {
  kill(-group, sig);
  for (int tick = 0; tick < GRACE_TICKS && waitpid(group, NULL, WNOHANG) == 0; tick++)
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  kill(-group, SIGKILL);
  waitpid(group, NULL, 0);
}

static void on_interrupt(int sig) {
  int group = atomic_load(&child_group);
  if (group > 0) stop_group(group, sig);
  remove_temps();
  signal(sig, SIG_DFL);
  raise(sig);  // ends as the signal would have: a shell sees 128 + sig
}

static void remove_at_exit(void) { remove_temps(); }

void cli_cleanup_init(void) {
  atexit(remove_at_exit);
  for (int i = 0; i < NINTERRUPTS; i++) {
    struct sigaction old, sa = {.sa_handler = on_interrupt};
    sigfillset(&sa.sa_mask);
    // A signal ignored from the start (nohup, a background job of a
    // script) stays ignored.
    if (sigaction(interrupts[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN) sigaction(interrupts[i], &sa, NULL);
  }
}

void cli_block_interrupts(bool block, sigset_t *saved) {
  sigset_t set;
  sigemptyset(&set);
  for (int i = 0; i < NINTERRUPTS; i++) sigaddset(&set, interrupts[i]);
  if (block) pthread_sigmask(SIG_BLOCK, &set, saved);
  else pthread_sigmask(SIG_SETMASK, saved, NULL);
}

void cli_temp_keep(const char *path) {
  char *copy = xmalloc(strlen(path) + 1);
  strcpy(copy, path);
  for (int i = 0; i < MAX_TEMPS; i++) {
    char *expected = NULL;
    if (atomic_compare_exchange_strong(&temps[i], &expected, copy)) return;
  }
  free(copy);
  fatal("more than %d temporary files at once", MAX_TEMPS);
}

void cli_temp_forget(const char *path) {
  for (int i = 0; i < MAX_TEMPS; i++) {
    char *p = atomic_load(&temps[i]);
    if (p && strcmp(p, path) == 0 && atomic_compare_exchange_strong(&temps[i], &p, NULL)) {
      free(p);
      return;
    }
  }
}

void cli_temp_remove(const char *path) {
  if (unlink(path) != 0) rmdir(path);
  cli_temp_forget(path);
}

char *cli_temp_file(Arena *a, const char *what) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  char *path = arena_printf(a, "%s/vecbsp-%s.XXXXXX", dir, what);
  sigset_t saved;
  cli_block_interrupts(true, &saved);  // registered as soon as it exists
  int fd = mkstemp(path);
  if (fd >= 0) cli_temp_keep(path);
  cli_block_interrupts(false, &saved);
  if (fd < 0) fatal("cannot create a temporary file in %s: %s", dir, strerror(errno));
  close(fd);
  return path;
}

// In the child, before exec: a group of its own, the default signal
// handling, stdin from /dev/null (a process group in the background that
// reads the terminal is stopped: mpirun reads stdin for rank 0), and
// SIGTERM if vecbsp dies without the chance to pass a signal on.
static void become_child(const char *out, const char *err, const char **env, const sigset_t *saved) {
  setpgid(0, 0);
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
  for (int i = 0; i < NINTERRUPTS; i++) signal(interrupts[i], SIG_DFL);
  pthread_sigmask(SIG_SETMASK, saved, NULL);
  int in = open("/dev/null", O_RDONLY);
  int o = out ? open(out, O_WRONLY | O_TRUNC) : dup(2), e = err ? open(err, O_WRONLY | O_TRUNC) : dup(2);
  if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(127);
  for (const char **v = env; v && *v; v++) {
    char name[64];
    size_t len = strcspn(*v, "=");
    snprintf(name, sizeof name, "%.*s", (int)len, *v);
    setenv(name, *v + len + 1, 1);
  }
}

int cli_run_child(char **argv, const char *out, const char *err, const char **env) {
  fflush(NULL);
  sigset_t saved;
  cli_block_interrupts(true, &saved);  // the child's group is known before any signal is handled
  pid_t pid = fork();
  if (pid == 0) {
    become_child(out, err, env, &saved);
    execvp(argv[0], argv);
    _exit(127);
  }
  if (pid > 0) {
    setpgid(pid, pid);  // as the child does: whichever runs first
    atomic_store(&child_group, pid);
  }
  cli_block_interrupts(false, &saved);
  if (pid < 0) fatal("cannot start %s: %s", argv[0], strerror(errno));
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) fatal("waiting for %s: %s", argv[0], strerror(errno));
  atomic_store(&child_group, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
