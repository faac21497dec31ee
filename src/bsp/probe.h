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

#endif
