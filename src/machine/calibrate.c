// calibrate.c: per-unit times of the exact model's counts, fitted to
// measured runs by non-negative least squares on relative errors.
#include "machine/machine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Is t a count of words streamed from memory? The memory streams them
// while the core computes: a loop takes the longer of the two.
static bool memory_term(int t) {
  switch (t) {
  case CAL_LOADS_MEM: case CAL_STORES_MEM: case CAL_UNPACKED_MEM: case CAL_LOADS_SHARED: case CAL_STORES_SHARED:
  case CAL_UNPACKED_SHARED: case CAL_ACC_STORES_MEM: return true;
  default: return false;
  }
}

// The in-cache term whose instructions a memory term's words take on the core.
static int core_twin(int t) {
  while (memory_term(t)) t = calibration_twin(t);
  return t;
}

// What may set a process's local time (machine.h, calibration_local_seconds).
typedef enum { CAL_BOUND_CORE, CAL_BOUND_MEMORY, CAL_BOUND_LATENCY, CAL_BOUND_MULTIPLIER, CAL_BOUNDS } CalibrationBound;

// Which bound term t counts in (-1: none, it is added to them: exits, words,
// barriers). A multiplication is one of the core's operations (op), and
// also a turn of its one multiplier: mul is the multiplier's time for one.
static int bound_of(int t) {
  if (t >= CAL_EXITS) return -1;
  if (t >= CAL_LAT_FAST) return CAL_BOUND_LATENCY;
  if (t == CAL_MULS) return CAL_BOUND_MULTIPLIER;
  return memory_term(t) ? CAL_BOUND_MEMORY : CAL_BOUND_CORE;
}

// Each bound's time for these counts.
static void calibration_bounds(const double unit[CAL_TERMS], const double count[CAL_TERMS], double time[CAL_BOUNDS]) {
  for (int b = 0; b < CAL_BOUNDS; b++) time[b] = 0;
  for (int t = 0; t < CAL_EXITS; t++) {
    int b = bound_of(t);
    time[b] += unit[t] * count[t];
    if (b == CAL_BOUND_MEMORY) time[CAL_BOUND_CORE] += unit[core_twin(t)] * count[t];
  }
}

// The bound that sets their local time: the largest.
static CalibrationBound calibration_binding(const double unit[CAL_TERMS], const double count[CAL_TERMS]) {
  double time[CAL_BOUNDS];
  calibration_bounds(unit, count, time);
  CalibrationBound b = CAL_BOUND_CORE;
  for (int k = 1; k < CAL_BOUNDS; k++)
    if (time[k] > time[b]) b = (CalibrationBound)k;
  return b;
}

double calibration_local_seconds(const double unit[CAL_TERMS], const double count[CAL_TERMS]) {
  double time[CAL_BOUNDS];
  calibration_bounds(unit, count, time);
  double largest = 0;
  for (int b = 0; b < CAL_BOUNDS; b++) largest = fmax(largest, time[b]);
  return largest + unit[CAL_EXITS] * count[CAL_EXITS];
}

double calibration_predict(const double unit[CAL_TERMS], const double count[CAL_TERMS]) {
  double exchange = 0;
  for (int t = CAL_WORDS; t < CAL_TERMS; t++) exchange += unit[t] * count[t];
  return calibration_local_seconds(unit, count) + exchange;
}

// Solves the normal equations of the active terms (Gaussian elimination with
// partial pivoting); inactive or degenerate terms get 0.
static void solve_active(const CalibrationRun *runs, int n, const bool *active, double unit[CAL_TERMS]) {
  double a[CAL_TERMS][CAL_TERMS + 1] = {{0}};
  for (int r = 0; r < n; r++) {
    double w = 1 / (runs[r].seconds * runs[r].seconds);  // relative error: each run weighs the same
    for (int i = 0; i < CAL_TERMS; i++) {
      for (int j = 0; j < CAL_TERMS; j++) a[i][j] += w * runs[r].count[i] * runs[r].count[j];
      a[i][CAL_TERMS] += w * runs[r].count[i] * (runs[r].seconds - runs[r].known);
    }
  }
  for (int i = 0; i < CAL_TERMS; i++)
    if (!active[i]) {
      memset(a[i], 0, sizeof a[i]);
      for (int j = 0; j < CAL_TERMS; j++) a[j][i] = 0;
      a[i][i] = 1;
    }
  for (int c = 0; c < CAL_TERMS; c++) {
    int piv = c;
    for (int r = c + 1; r < CAL_TERMS; r++)
      if (fabs(a[r][c]) > fabs(a[piv][c])) piv = r;
    double tmp[CAL_TERMS + 1];
    memcpy(tmp, a[c], sizeof tmp);
    memcpy(a[c], a[piv], sizeof tmp);
    memcpy(a[piv], tmp, sizeof tmp);
    if (fabs(a[c][c]) < 1e-300) continue;
    for (int r = 0; r < CAL_TERMS; r++) {
      if (r == c) continue;
      double f = a[r][c] / a[c][c];
      for (int k = c; k <= CAL_TERMS; k++) a[r][k] -= f * a[c][k];
    }
  }
  for (int i = 0; i < CAL_TERMS; i++)
    unit[i] = active[i] && fabs(a[i][i]) >= 1e-300 ? a[i][CAL_TERMS] / a[i][i] : 0;
}

int calibration_twin(int term) {
  switch (term) {
  case CAL_LOADS_MEM: return CAL_LOADS;
  case CAL_STORES_MEM: return CAL_STORES;
  case CAL_UNPACKED: return CAL_STORES;  // a word copied out of a message is stored
  case CAL_UNPACKED_MEM: return CAL_UNPACKED;
  case CAL_LOADS_SHARED: return CAL_LOADS_MEM;  // sharing the memory's bandwidth is never faster
  case CAL_STORES_SHARED: return CAL_STORES_MEM;
  case CAL_UNPACKED_SHARED: return CAL_UNPACKED_MEM;
  case CAL_ACC_STORES_MEM: return CAL_ACC_STORES;
  case CAL_WORDS_MEM: return CAL_WORDS;
  case CAL_DIVS: return CAL_LITERAL_DIVS;
  case CAL_LITERAL_DIVS: return CAL_MULS;
  case CAL_FLOAT_DIVS: return CAL_MULS;
  default: return -1;
  }
}

// The runs as the fit sees them when a unit is its twin's unit plus an
// excess (and its twin perhaps its own twin's plus another): each count
// counts in its own column and in those of its twins being fitted, up to
// the first twin not being fitted, whose unit is known.
static void excess_runs(const CalibrationRun *runs, int n, const bool fit[CAL_TERMS], const double unit[CAL_TERMS],
                        CalibrationRun *out) {
  for (int r = 0; r < n; r++) {
    out[r] = runs[r];
    for (int m = 0; m < CAL_TERMS; m++) {
      if (!fit[m]) continue;
      int c = calibration_twin(m);
      for (; c >= 0 && fit[c]; c = calibration_twin(c)) out[r].count[c] += runs[r].count[m];
      if (c >= 0) out[r].known += unit[c] * runs[r].count[m];
    }
  }
}

// A fitted unit is its excess over its twin: adds the twin's unit, once
// the twin has its own.
static void add_twins(int m, const bool fit[CAL_TERMS], bool done[CAL_TERMS], double unit[CAL_TERMS]) {
  int c = calibration_twin(m);
  if (done[m] || c < 0 || !fit[m]) return;
  add_twins(c, fit, done, unit);
  unit[m] += unit[c];
  done[m] = true;
}

static double floored(double unit[CAL_TERMS], bool done[CAL_TERMS], int t) {
  int c = calibration_twin(t);
  if (c >= 0 && !done[t]) unit[t] = fmax(unit[t], floored(unit, done, c));
  done[t] = true;
  return unit[t];
}

void calibration_floor_twins(double unit[CAL_TERMS]) {
  bool done[CAL_TERMS] = {0};
  for (int t = 0; t < CAL_TERMS; t++) floored(unit, done, t);
}

// A run's time this term's counts must make, priced at the unit of its
// nearest twin not being fitted, for the runs to tell its unit from noise.
#define DETERMINING_SHARE 0.01

// Whether the runs determine term t's unit: some run counts it, and, if a
// known twin prices it, enough to matter. Counts of a few words beside
// millions (a share of words streamed beside another process's trickle)
// had let the fit price unpack_mem_shared at 0.2 ms a word to absorb
// what else those runs left unexplained.
static bool determined(const CalibrationRun *runs, int n, const bool fit[CAL_TERMS], const double unit[CAL_TERMS],
                       int t) {
  int c = calibration_twin(t);
  while (c >= 0 && fit[c]) c = calibration_twin(c);
  double price = c >= 0 ? unit[c] : 0;
  for (int r = 0; r < n; r++)
    if (runs[r].count[t] > 0 && (price <= 0 || runs[r].count[t] * price >= DETERMINING_SHARE * runs[r].seconds))
      return true;
  return false;
}

CalibrationStatus calibration_fit(const CalibrationRun *runs, int n, const bool fit[CAL_TERMS], double unit[CAL_TERMS]) {
  CalibrationRun *seen = malloc(((size_t)n + 1) * sizeof *seen);
  excess_runs(runs, n, fit, unit, seen);
  bool active[CAL_TERMS];
  double fitted[CAL_TERMS];
  for (int i = 0; i < CAL_TERMS; i++) active[i] = fit[i] && determined(runs, n, fit, unit, i);
  // Drop the most negative term until none is negative (an active-set
  // approximation of NNLS, exact enough for a handful of terms).
  for (;;) {
    solve_active(seen, n, active, fitted);
    int worst = -1;
    for (int i = 0; i < CAL_TERMS; i++)
      if (fitted[i] < 0 && (worst < 0 || fitted[i] < fitted[worst])) worst = i;
    if (worst < 0) break;
    active[worst] = false;
  }
  free(seen);
  CalibrationStatus status = {0};
  for (int i = 0; i < CAL_TERMS; i++)
    if (fit[i]) unit[i] = fitted[i], status.of[i] = fitted[i] > 0 ? CAL_FITTED : CAL_UNDETERMINED;
  bool done[CAL_TERMS] = {0};
  for (int m = 0; m < CAL_TERMS; m++) {
    if (fit[m] && calibration_twin(m) >= 0 && status.of[m] == CAL_UNDETERMINED) status.of[m] = CAL_BOUNDED;
    add_twins(m, fit, done, unit);
  }
  return status;
}

double calibration_r2(const CalibrationRun *runs, int n, const double unit[CAL_TERMS]) {
  double mean = 0, ss_res = 0, ss_tot = 0;
  for (int r = 0; r < n; r++) mean += runs[r].seconds / n;
  for (int r = 0; r < n; r++) {
    double err = calibration_predict(unit, runs[r].count) - runs[r].seconds;
    ss_res += err * err;
    ss_tot += (runs[r].seconds - mean) * (runs[r].seconds - mean);
  }
  return ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
}

// A run as a fit sees it when bound b sets its time: b's counts (a core's
// with the memory's words as its instructions), then exits, words and
// barriers; the units not being fitted price their part.
static CalibrationRun bound_view(const CalibrationRun *run, CalibrationBound b, const bool fit[CAL_TERMS],
                                 const double unit[CAL_TERMS]) {
  CalibrationRun v = {.seconds = run->seconds};
  for (int t = 0; t < CAL_TERMS; t++) {
    int to = b == CAL_BOUND_CORE && memory_term(t) ? core_twin(t) : t;
    if (bound_of(t) < 0 || bound_of(t) == (int)b || to != t) v.count[to] += run->count[t];
  }
  for (int t = 0; t < CAL_TERMS; t++)
    if (!fit[t]) v.known += unit[t] * v.count[t];
  return v;
}

// The first guess of what bounds a run: its latency if its known latencies
// explain most of it, the memory if most of its words stream from memory,
// the multiplier if half its operations or more multiply (a core issues
// several operations a cycle but one multiplication), else the core.
#define LATENCY_BOUND 0.8
static CalibrationBound first_bound(const CalibrationRun *run, const double unit[CAL_TERMS]) {
  double time[CAL_BOUNDS], words = 0, streamed = 0;
  calibration_bounds(unit, run->count, time);
  if (time[CAL_BOUND_LATENCY] >= LATENCY_BOUND * run->seconds) return CAL_BOUND_LATENCY;
  for (int t = 0; t < CAL_LAT_FAST; t++) {
    int c = core_twin(t);
    if (c == CAL_LOADS || c == CAL_STORES || c == CAL_UNPACKED || c == CAL_ACC_STORES) {
      words += run->count[t];
      if (memory_term(t)) streamed += run->count[t];
    }
  }
  if (streamed > words / 2) return CAL_BOUND_MEMORY;
  bool multiplies = run->count[CAL_MULS] > 0 && run->count[CAL_MULS] >= run->count[CAL_OPS] / 2;
  return multiplies ? CAL_BOUND_MULTIPLIER : CAL_BOUND_CORE;
}

// Rounds of fitting before the runs' bounds are taken as settled.
enum { BOUND_ROUNDS = 20 };

CalibrationStatus calibration_fit_bound(const CalibrationRun *runs, int n, const bool fit[CAL_TERMS],
                                        double unit[CAL_TERMS]) {
  CalibrationBound *bound = malloc(((size_t)n + 1) * sizeof *bound);
  CalibrationRun *view = calloc((size_t)n + 1, sizeof *view);
  for (int r = 0; r < n; r++) bound[r] = first_bound(&runs[r], unit);
  CalibrationStatus status = {0};
  for (int round = 0; round < BOUND_ROUNDS; round++) {
    for (int r = 0; r < n; r++) view[r] = bound_view(&runs[r], bound[r], fit, unit);
    status = calibration_fit(view, n, fit, unit);
    bool changed = false;
    for (int r = 0; r < n; r++) {
      CalibrationBound b = calibration_binding(unit, runs[r].count);
      changed |= b != bound[r];
      bound[r] = b;
    }
    if (!changed) break;
  }
  free(view);
  free(bound);
  return status;
}
