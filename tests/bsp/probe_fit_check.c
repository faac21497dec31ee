/* probe_fit_check.c: the probe's statistics on hand-made timings: the line
 * fit of exchanges, clean and noisy, and the steadiness of a loop. */
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

/* Timings in units of 1 (exact in binary): the slow threshold is 1.25 of
 * the fast time, the slowdown the slow timings' median over it. */
static void check_steadiness(void)
{
    /* 7 fast timings and 3 slow ones, shuffled: 30% slow, twice as long. */
    double mixed[10] = {16, 8, 8.5, 16, 8, 9, 8, 16, 8, 8.25};
    double fast = probe_fast_time(mixed, 10);
    struct probe_steadiness st = probe_steadiness(mixed, 10, fast);
    expect(fast == 8 && st.samples == 10, "the fast time is the fastest", fast);
    expect(st.slow_share == 0.3 && st.slowdown == 2, "30% twice as slow", st.slow_share);
    /* 1.25 times the fast time is not slow, just over it is; the slow
     * median of an even count is the mean of the middle two (10.5, 14). */
    double edge[5] = {10, 14, 8, 10.5, 10};
    st = probe_steadiness(edge, 5, probe_fast_time(edge, 5));
    expect(st.slow_share == 0.4 && st.slowdown == 1.53125, "the threshold and an even median", st.slowdown);
    /* Against another process's fast time: a process slow throughout. */
    double slow[3] = {16, 16, 17};
    st = probe_steadiness(slow, 3, 8);
    expect(st.slow_share == 1 && st.slowdown == 2 && st.canary_seconds == 8, "slow throughout", st.slow_share);
    /* A steady loop: no slow timing, no slowdown. */
    double steady[4] = {9, 8, 9.5, 10};
    st = probe_steadiness(steady, 4, probe_fast_time(steady, 4));
    expect(st.slow_share == 0 && st.slowdown == 0, "steady", st.slow_share);
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
    check_steadiness();
    printf("%d failures\n", failures);
    return failures != 0;
}
