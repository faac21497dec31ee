/* probe.h: the pieces of bspprobe, the program that measures s, g and l. */
#ifndef BSP_PROBE_H
#define BSP_PROBE_H

#include <stdbool.h>

/* A fit of time = l + g * h. */
struct probe_fit {
    double g;    /* seconds per word */
    double l;    /* seconds per superstep */
    double r2;   /* coefficient of determination of the fit */
    bool direct; /* least squares as is; false when l fell back to the empty sync */
};

struct probe_fit probe_fit_line(const double *h, const double *t, int n, double empty_sync);
double probe_median(double *samples, int n);

/* How steady one process's core was: timings of a fixed loop, summed up
 * against the loop's fast time (the fastest process's). */
struct probe_steadiness {
    int samples;           /* timings of the loop */
    double canary_seconds; /* the loop's fast time */
    double slow_share;     /* share of the timings over PROBE_SLOW times the fast time */
    double slowdown;       /* their median over the fast time; 0 when there are none */
};

/* A timing this many times the fast one is slow: more than a timer's jitter
 * or an interrupt's share of a loop of microseconds. */
#define PROBE_SLOW 1.25

/* The fast time of n > 0 timings: the fastest, the loop's work being fixed
 * (sorts them). A machine fast in only a few percent of them is unsteady
 * all the same: it has two speeds. */
double probe_fast_time(double *seconds, int n);
/* Sums up n > 0 sorted timings against a fast time. */
struct probe_steadiness probe_steadiness(const double *sorted, int n, double fast);

#endif
