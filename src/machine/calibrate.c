// calibrate.c: per-unit times of the exact model's counts, fitted to
// measured runs by non-negative least squares on relative errors.
#include "machine/machine.h"

#include <math.h>
#include <string.h>

double calibration_local_seconds(const double unit[CAL_TERMS], const double count[CAL_TERMS]) {
  double work = 0, latency = 0;
  for (int t = 0; t < CAL_LAT_FAST; t++) work += unit[t] * count[t];
  for (int t = CAL_LAT_FAST; t < CAL_EXITS; t++) latency += unit[t] * count[t];
  return fmax(work, latency) + unit[CAL_EXITS] * count[CAL_EXITS];
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

void calibration_fit(const CalibrationRun *runs, int n, const bool fit[CAL_TERMS], double unit[CAL_TERMS]) {
  bool active[CAL_TERMS];
  double fitted[CAL_TERMS];
  for (int i = 0; i < CAL_TERMS; i++) {
    active[i] = false;
    for (int r = 0; r < n && fit[i]; r++) active[i] |= runs[r].count[i] > 0;  // a term never counted stays 0
  }
  // Drop the most negative term until none is negative (an active-set
  // approximation of NNLS, exact enough for a handful of terms).
  for (;;) {
    solve_active(runs, n, active, fitted);
    int worst = -1;
    for (int i = 0; i < CAL_TERMS; i++)
      if (fitted[i] < 0 && (worst < 0 || fitted[i] < fitted[worst])) worst = i;
    if (worst < 0) break;
    active[worst] = false;
  }
  for (int i = 0; i < CAL_TERMS; i++)
    if (fit[i]) unit[i] = fitted[i];
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
