/* probe_fit_check.c: the probe's line fit on hand-made exchanges, clean and noisy. */
#include <math.h>
#include <stdio.h>

#include "probe.h"

static int failures;

static void expect(int ok, const char *what, double got)
{
    if (!ok) {
        printf("FAIL %s: %g\n", what, got);
        failures++;
    }
}

int main(void)
{
    double h[5] = {0, 1000, 2000, 3000, 4000}, t[5];
    /* An exact line, l = 1 us, g = 2 ns: recovered by least squares. */
    for (int i = 0; i < 5; i++)
        t[i] = 1e-6 + 2e-9 * h[i];
    struct probe_fit fit = probe_fit_line(h, t, 5, 0.5e-6);
    expect(fit.direct && fabs(fit.g - 2e-9) < 1e-15 && fabs(fit.l - 1e-6) < 1e-12, "a clean line", fit.g);
    /* Times falling with h (noise): l from the empty sync, 1 us, and g through it:
     * sum h (t - 1e-6) / sum h^2 = (1000 * 1e-6 + 3000 * 1e-6) / 3e7 = 1.333e-10. */
    double falling[5] = {3e-6, 2e-6, 1e-6, 2e-6, 1e-6};
    fit = probe_fit_line(h, falling, 5, 1e-6);
    expect(!fit.direct && fit.l == 1e-6 && fabs(fit.g - 4e-3 / 3e7) < 1e-18, "g refitted through the empty sync", fit.g);
    /* Falling times, all below a loaded machine's empty sync (5 us): g is
     * never 0 but the slope through the origin, sum h t / sum h^2. */
    double below[5] = {1.2e-6, 1.1e-6, 1.0e-6, 1.0e-6, 0.9e-6};
    fit = probe_fit_line(h, below, 5, 5e-6);
    double through_origin = (1000 * 1.1 + 2000 * 1.0 + 3000 * 1.0 + 4000 * 0.9) * 1e-6 / 3e7;
    expect(!fit.direct && fit.g > 0 && fabs(fit.g - through_origin) < 1e-18, "g through the origin", fit.g);
    printf("%d failures\n", failures);
    return failures != 0;
}
