// progress.c: what long work is doing, on a terminal: one status line on
// stderr, redrawn in place by a thread of its own, shown once the work has
// taken a second ($VECBSP_PROGRESS: another delay in seconds, 0 for at
// once and at every step, or "off"), and only when stderr is a terminal:
// logs and pipes never see it.
#define _DEFAULT_SOURCE
#include "util/util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// Redraws a second: often enough to see it move, rarely enough to cost nothing.
#define REDRAW_SECONDS 0.25

static struct {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pthread_t thread;
  bool running;      // the drawing thread exists
  bool active;       // between progress_begin and progress_end
  bool shown;        // the line is on the terminal
  char what[96];     // "sweep: measuring"
  char detail[96];   // "mss5.vec at n = 600"
  int64_t done, total;  // total 0: unknown
  double start;      // clock_seconds() at progress_begin
  double delay;      // seconds before the line shows
} progress = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

// The delay, or a negative number when no line is ever drawn.
static double delay_seconds(void) {
  const char *v = getenv("VECBSP_PROGRESS");
  if (v && strcmp(v, "off") == 0) return -1;
  if (!isatty(STDERR_FILENO)) return -1;
  char *end;
  double d = v && *v ? strtod(v, &end) : 1;
  return v && *v && (*end || d < 0) ? 1 : d;
}

static void erase_locked(void) {
  if (progress.shown) fputs("\r\033[K", stderr);
  progress.shown = false;
}

static void draw_locked(void) {
  double elapsed = clock_seconds() - progress.start;
  if (!progress.active || elapsed < progress.delay) return;
  char count[48] = "";
  if (progress.total > 0) snprintf(count, sizeof count, " %lld/%lld", (long long)progress.done, (long long)progress.total);
  fprintf(stderr, "\r\033[Kvecbsp: %s%s%s%s (%.0f s)", progress.what, count, progress.detail[0] ? ": " : "",
          progress.detail, elapsed);
  fflush(stderr);
  progress.shown = true;
}

static void *draw_loop(void *unused) {
  (void)unused;
  pthread_mutex_lock(&progress.lock);
  while (progress.running) {
    draw_locked();
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long ns = until.tv_nsec + (long)(REDRAW_SECONDS * 1e9);
    until.tv_sec += ns / 1000000000L;
    until.tv_nsec = ns % 1000000000L;
    pthread_cond_timedwait(&progress.wake, &progress.lock, &until);
  }
  pthread_mutex_unlock(&progress.lock);
  return NULL;
}

void progress_begin(const char *what, int64_t total) {
  double delay = delay_seconds();
  if (delay < 0) return;
  pthread_mutex_lock(&progress.lock);
  snprintf(progress.what, sizeof progress.what, "%s", what);
  progress.detail[0] = '\0';
  progress.done = 0;
  progress.total = total;
  if (!progress.active) progress.start = clock_seconds();  // a new stage of the same work keeps its clock
  progress.delay = delay;
  progress.active = true;
  if (delay == 0) draw_locked();
  if (!progress.running && pthread_create(&progress.thread, NULL, draw_loop, NULL) == 0) progress.running = true;
  pthread_mutex_unlock(&progress.lock);
}

void progress_step(int64_t done, const char *detail) {
  pthread_mutex_lock(&progress.lock);
  progress.done = done;
  snprintf(progress.detail, sizeof progress.detail, "%s", detail ? detail : "");
  if (progress.active && progress.delay == 0) draw_locked();
  pthread_mutex_unlock(&progress.lock);
}

void progress_end(void) {
  pthread_mutex_lock(&progress.lock);
  bool running = progress.running;
  erase_locked();
  progress.active = progress.running = false;
  pthread_cond_signal(&progress.wake);
  pthread_mutex_unlock(&progress.lock);
  if (running) pthread_join(progress.thread, NULL);
}

void progress_erase(void) {
  pthread_mutex_lock(&progress.lock);
  erase_locked();
  pthread_mutex_unlock(&progress.lock);
}
