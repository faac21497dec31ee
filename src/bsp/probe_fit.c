/* probe_fit.c: the probe's statistics: the line time = l + g * h, guarded
 * against nonsense, and the steadiness of a fixed loop's timings. */
#include <stdbool.h>
#include <stdlib.h>

#include "probe.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double sorted_median(const double *sorted, int n)
{
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double probe_median(double *samples, int n)
{
    qsort(samples, (size_t)n, sizeof *samples, cmp_double);
    return sorted_median(samples, n);
}

static double r_squared(const double *h, const double *t, int n, double g, double l)
{
    double mean = 0, total = 0, residual = 0;
    for (int i = 0; i < n; i++)
        mean += t[i] / n;
    for (int i = 0; i < n; i++) {
        double e = t[i] - (l + g * h[i]);
        residual += e * e;
        total += (t[i] - mean) * (t[i] - mean);
    }
    return total > 0 ? 1 - residual / total : 1;
}

/* Ordinary least squares over the points with keep[i] set. */
static bool least_squares(const double *h, const double *t, const bool *keep, int n,
                          double *g, double *l)
{
    double m = 0, sh = 0, st = 0, shh = 0, sht = 0;
    for (int i = 0; i < n; i++) {
        if (!keep[i])
            continue;
        m++, sh += h[i], st += t[i], shh += h[i] * h[i], sht += h[i] * t[i];
    }
    double det = m * shh - sh * sh;
    if (m < 2 || det <= 0)
        return false;
    *g = (m * sht - sh * st) / det;
    *l = (st - *g * sh) / m;
    return true;
}

/* Drops the points more than 25% above the first fit: on a shared machine
 * noise only ever makes a superstep slower. */
static void drop_outliers(const double *h, const double *t, bool *keep, int n, double g, double l)
{
    for (int i = 0; i < n; i++)
        keep[i] = t[i] <= 1.25 * (l + g * h[i]) + 1e-9;
}

/* Least squares, once more without the outliers; when noise still makes
 * l or g negative, or l larger than every time measured, l is taken as the
 * empty-sync time instead and g refitted through it. When every time is at
 * or below that (a loaded machine's empty sync), g is the slope through the
 * origin: an upper bound, but never a free word. */
struct probe_fit probe_fit_line(const double *h, const double *t, int n, double empty_sync)
{
    bool *keep = calloc((size_t)n, sizeof *keep);
    double tmax = t[0];
    for (int i = 0; i < n; i++) {
        keep[i] = true;
        tmax = t[i] > tmax ? t[i] : tmax;
    }
    struct probe_fit fit = {0};
    fit.direct = least_squares(h, t, keep, n, &fit.g, &fit.l);
    if (fit.direct) {
        drop_outliers(h, t, keep, n, fit.g, fit.l);
        fit.direct = least_squares(h, t, keep, n, &fit.g, &fit.l);
    }
    if (!fit.direct || fit.l <= 0 || fit.l > tmax || fit.g <= 0) {
        double num = 0, den = 0;
        fit.direct = false;
        fit.l = empty_sync;
        for (int i = 0; i < n; i++)
            num += h[i] * (t[i] - fit.l), den += h[i] * h[i];
        fit.g = den > 0 && num > 0 ? num / den : 0;
        if (fit.g <= 0 && den > 0) {
            num = 0;
            for (int i = 0; i < n; i++)
                num += h[i] * t[i];
            fit.g = num / den;
        }
    }
    fit.r2 = r_squared(h, t, n, fit.g, fit.l);
    free(keep);
    return fit;
}

double probe_fast_time(double *seconds, int n)
{
    qsort(seconds, (size_t)n, sizeof *seconds, cmp_double);
    return seconds[0];
}

struct probe_steadiness probe_steadiness(const double *sorted, int n, double fast)
{
    struct probe_steadiness st = {.samples = n, .canary_seconds = fast};
    int first_slow = n;
    while (first_slow > 0 && sorted[first_slow - 1] > PROBE_SLOW * fast)
        first_slow--;
    int slow = n - first_slow;
    st.slow_share = (double)slow / n;
    if (slow > 0)
        st.slowdown = sorted_median(sorted + first_slow, slow) / fast;
    return st;
}
