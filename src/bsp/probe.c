/* probe.c: bspprobe, a BSPlib program measuring s, g, l and how steady each core
 * is, for the p it runs on, as JSON. */
#include <bsp.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

/* How hard to try: --quick, the default, or --long. */
struct probe_plan {
    int kernel_samples;   /* timings of each s kernel */
    double kernel_time;   /* seconds each of them should last */
    int points;           /* values of h in the g/l fit */
    int max_h;            /* largest h, in words */
    int trials;           /* timings per point (the median is kept) */
    int supersteps;       /* supersteps per timing */
    double steady_time;   /* seconds of the steadiness loop */
};

static const struct probe_plan plans[] = {
    {3, 0.002, 8, 2048, 3, 50, 0.2},       /* quick */
    {11, 0.01, 16, 8192, 7, 200, 0.5},     /* default */
    {21, 0.05, 24, 32768, 15, 500, 2},     /* long */
};

enum { KERNEL_N = 1024 };

/* ---- s: scalar loops like generated code runs ---- */

/* A sink the compiler cannot see through, so loops are not removed. */
static volatile double probe_sink;

/* One kernel: runs reps passes over the arrays, returns operations done. */
typedef double (*kernel_fn)(int64_t *xi, double *xd, double *yd, int reps);

static double k_axpy(int64_t *xi, double *xd, double *yd, int reps)
{
    (void)xi;
    for (int r = 0; r < reps; r++) {
        double a = 1.0 + 1e-9 * r;
        for (int i = 0; i < KERNEL_N; i++)
            yd[i] = yd[i] + a * xd[i];
    }
    probe_sink = yd[reps % KERNEL_N];
    return 2.0 * KERNEL_N * reps;
}

static double k_max(int64_t *xi, double *xd, double *yd, int reps)
{
    (void)xd, (void)yd;
    int64_t m = INT64_MIN;
    for (int r = 0; r < reps; r++) {
        xi[r % KERNEL_N] ^= r; /* a new array each pass, as far as the compiler knows */
        for (int i = 0; i < KERNEL_N; i++)
            m = xi[i] > m ? xi[i] : m;
    }
    probe_sink = (double)m;
    return 1.0 * KERNEL_N * reps;
}

static double k_sum(int64_t *xi, double *xd, double *yd, int reps)
{
    (void)xd, (void)yd;
    int64_t s = 0;
    for (int r = 0; r < reps; r++) {
        xi[r % KERNEL_N] += 1;
        for (int i = 0; i < KERNEL_N; i++)
            s += xi[i];
    }
    probe_sink = (double)s;
    return 1.0 * KERNEL_N * reps;
}

static double k_dot(int64_t *xi, double *xd, double *yd, int reps)
{
    (void)xi;
    double s = 0;
    for (int r = 0; r < reps; r++) {
        yd[r % KERNEL_N] += 1;
        for (int i = 0; i < KERNEL_N; i++)
            s += xd[i] * yd[i];
    }
    probe_sink = s;
    return 2.0 * KERNEL_N * reps;
}

static const kernel_fn kernels[] = {k_axpy, k_max, k_sum, k_dot};
enum { NKERNELS = sizeof kernels / sizeof kernels[0] };

/* Operations per second of one kernel, with reps grown until it lasts. */
static double kernel_rate(kernel_fn k, int64_t *xi, double *xd, double *yd, double seconds)
{
    int reps = 1;
    for (;;) {
        double t0 = bsp_time();
        double ops = k(xi, xd, yd, reps);
        double t = bsp_time() - t0;
        if (t >= seconds || reps >= 1 << 24)
            return ops / t;
        reps *= t > seconds / 16 ? 2 : 8;
    }
}

/* The median rate over all kernels and samples; every process runs them
 * at once, as in a real superstep, and process 0's figure is kept. */
static json_t *measure_s(const struct probe_plan *plan, double *s)
{
    int64_t *xi = malloc(KERNEL_N * sizeof *xi);
    double *xd = malloc(KERNEL_N * sizeof *xd), *yd = malloc(KERNEL_N * sizeof *yd);
    for (int i = 0; i < KERNEL_N; i++)
        xi[i] = (i * 7919) % 1000, xd[i] = 1.0 / (i + 1), yd[i] = 0.5;
    int n = plan->kernel_samples * NKERNELS;
    double *rates = malloc((size_t)n * sizeof *rates);
    json_t *samples = json_array();
    for (int i = 0; i < n; i++) {
        rates[i] = kernel_rate(kernels[i % NKERNELS], xi, xd, yd, plan->kernel_time);
        json_array_append_new(samples, json_real(rates[i]));
    }
    *s = probe_median(rates, n);
    free(rates);
    free(xi);
    free(xd);
    free(yd);
    return samples;
}

/* ---- steadiness: does each core keep its speed? ---- */

/* Passes of k_sum over KERNEL_N words per timing: about 10 us on a core of
 * the 2020s, long enough for the clock, short enough to fit in a spell. */
enum { CANARY_PASSES = 24 };

/* Times k_sum back to back for the given seconds; returns the timings,
 * sorted, and their fast time. Some cloud hosts give a vCPU half its speed
 * in spells of milliseconds (another guest on the other hardware thread of
 * its core): a spread of these timings shows it, where one timing cannot. */
static double *time_canary(double seconds, int *n, double *fast)
{
    int64_t xi[KERNEL_N];
    for (int i = 0; i < KERNEL_N; i++)
        xi[i] = i;
    int cap = 4096;
    double *t = malloc((size_t)cap * sizeof *t);
    double start = bsp_time();
    for (*n = 0; bsp_time() - start < seconds; (*n)++) {
        if (*n == cap)
            t = realloc(t, (size_t)(cap *= 2) * sizeof *t);
        if (!t)
            bsp_abort("bspprobe: out of memory\n");
        ((volatile double *)t)[*n] = 0; /* a new page is touched here, not in the timing */
        double t0 = bsp_time();
        k_sum(xi, NULL, NULL, CANARY_PASSES);
        t[*n] = bsp_time() - t0;
    }
    *fast = probe_fast_time(t, *n);
    return t;
}

static json_t *steadiness_json(const struct probe_steadiness *st)
{
    return json_pack("{s:i, s:f, s:f, s:f}", "samples", st->samples, "canary_seconds", st->canary_seconds,
                     "slow_share", st->slow_share, "slowdown", st->slowdown);
}

/* The fastest of every process's fast time: each puts its own to all. */
static double fastest_everywhere(double mine)
{
    int p = bsp_nprocs();
    double *fast = calloc((size_t)p, sizeof *fast);
    bsp_push_reg(fast, (bsp_size_t)((size_t)p * sizeof *fast));
    bsp_sync();
    for (int k = 0; k < p; k++)
        bsp_put(k, &mine, fast, (bsp_size_t)((size_t)bsp_pid() * sizeof mine), sizeof mine);
    bsp_sync();
    double fastest = fast[0];
    for (int k = 1; k < p; k++)
        fastest = fast[k] < fastest ? fast[k] : fastest;
    bsp_pop_reg(fast);
    bsp_sync();
    free(fast);
    return fastest;
}

/* Process 0's JSON of every process's steadiness, the least steady one's
 * on top: {samples, canary_seconds, slow_share, slowdown, seconds,
 * slow_factor, pid, processes}; NULL on the others. */
static json_t *gather_steadiness(struct probe_steadiness mine, double seconds)
{
    int p = bsp_nprocs();
    struct probe_steadiness *all = calloc((size_t)p, sizeof *all);
    bsp_push_reg(all, (bsp_size_t)((size_t)p * sizeof *all));
    bsp_sync();
    bsp_put(0, &mine, all, (bsp_size_t)((size_t)bsp_pid() * sizeof mine), sizeof mine);
    bsp_sync();
    json_t *result = NULL;
    if (bsp_pid() == 0) {
        int worst = 0;
        json_t *procs = json_array();
        for (int k = 0; k < p; k++) {
            json_array_append_new(procs, steadiness_json(&all[k]));
            worst = all[k].slow_share > all[worst].slow_share ? k : worst;
        }
        result = steadiness_json(&all[worst]);
        json_object_update_new(result, json_pack("{s:f, s:f, s:i, s:o}", "seconds", seconds, "slow_factor",
                                                 PROBE_SLOW, "pid", worst, "processes", procs));
    }
    bsp_pop_reg(all);
    bsp_sync();
    free(all);
    return result;
}

/* Every process times the loop at once, as in a superstep, and sums up its
 * timings against the fastest process's fast time (a process in a slow
 * spell throughout is not steady). */
static json_t *measure_steadiness(double seconds)
{
    int n;
    double mine;
    double *t = time_canary(seconds, &n, &mine);
    struct probe_steadiness st = probe_steadiness(t, n, fastest_everywhere(mine));
    free(t);
    return gather_steadiness(st, seconds);
}

/* ---- g and l: total exchanges of h words ---- */

typedef void (*put_fn)(bsp_pid_t, const void *, void *, bsp_size_t, bsp_size_t);

/* One superstep in which every process sends h words, split evenly over
 * the others (itself at p = 1), each chunk one bulk put. */
static void exchange(put_fn put, const double *src, double *dst, int h)
{
    int p = bsp_nprocs(), me = bsp_pid(), peers = p > 1 ? p - 1 : 1;
    for (int k = 0; k < peers; k++) {
        int to = p > 1 ? (me + 1 + k) % p : me;
        int lo = h * k / peers, hi = h * (k + 1) / peers;
        if (hi > lo)
            put(to, src + lo, dst, (me * h + lo) * (int)sizeof *dst, (hi - lo) * (int)sizeof *dst);
    }
    bsp_sync();
}

/* Seconds of one h-relation superstep, averaged over a batch. */
static double time_relation(const struct probe_plan *plan, put_fn put, const double *src,
                            double *dst, int h)
{
    bsp_sync();
    double t0 = bsp_time();
    for (int r = 0; r < plan->supersteps; r++)
        exchange(put, src, dst, h);
    return (bsp_time() - t0) / plan->supersteps;
}

/* The fit of one kind of put, with its points, as JSON. Trials sweep all
 * points in turn, so a burst of noise from elsewhere on the machine spoils
 * one sample of many points rather than every sample of a few. */
static json_t *measure_g_l(const struct probe_plan *plan, put_fn put, const double *src,
                           double *dst, double empty_sync, struct probe_fit *fit)
{
    int n = plan->points, trials = plan->trials;
    double *h = malloc((size_t)n * sizeof *h), *t = malloc((size_t)n * sizeof *t);
    double *samples = malloc((size_t)(n * trials) * sizeof *samples);
    for (int i = 0; i < n; i++)
        h[i] = (double)plan->max_h * i / (n - 1);
    for (int trial = 0; trial < trials; trial++)
        for (int i = 0; i < n; i++)
            samples[i * trials + trial] = time_relation(plan, put, src, dst, (int)h[i]);
    json_t *points = json_array();
    for (int i = 0; i < n; i++) {
        t[i] = probe_median(samples + i * trials, trials);
        json_array_append_new(points, json_pack("{s:f, s:f}", "h", h[i], "seconds", t[i]));
    }
    *fit = probe_fit_line(h, t, n, empty_sync);
    free(h);
    free(t);
    free(samples);
    return points;
}

/* The empty superstep, warmed up first: the l of last resort. */
static double measure_sync(const struct probe_plan *plan, const double *src, double *dst)
{
    double *t = malloc((size_t)plan->trials * sizeof *t);
    time_relation(plan, bsp_put, src, dst, 0);
    for (int trial = 0; trial < plan->trials; trial++)
        t[trial] = time_relation(plan, bsp_put, src, dst, 0);
    double m = probe_median(t, plan->trials);
    free(t);
    return m;
}

/* ---- the program ---- */

static const struct probe_plan *plan = &plans[1];
static const char *out_path;

static json_t *fit_json(const struct probe_fit *fit, json_t *points)
{
    return json_pack("{s:f, s:f, s:f, s:s, s:o}", "g_seconds", fit->g, "l_seconds", fit->l,
                     "r2", fit->r2, "fit", fit->direct ? "least-squares" : "l-from-empty-sync",
                     "points", points);
}

static void report(json_t *result)
{
    FILE *f = out_path ? fopen(out_path, "w") : stdout;
    if (!f)
        bsp_abort("bspprobe: cannot write %s\n", out_path);
    json_dumpf(result, f, JSON_INDENT(1));
    fputc('\n', f);
    if (f != stdout)
        fclose(f);
}

/* --steadiness SECONDS: that measurement alone, for vecbsp sweep --measure. */
static double steadiness_only;

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    int p = bsp_nprocs();
    if (steadiness_only > 0) {
        json_t *steadiness = measure_steadiness(steadiness_only);
        if (bsp_pid() == 0) {
            json_t *result = json_pack("{s:i, s:s, s:o}", "p", p, "backend", PROBE_BACKEND, "steadiness", steadiness);
            report(result);
            json_decref(result);
        }
        bsp_end();
        return;
    }
    size_t words = (size_t)plan->max_h * (size_t)(p > 1 ? p : 1);
    double *src = calloc((size_t)plan->max_h + 1, sizeof *src);
    double *dst = calloc(words + 1, sizeof *dst);
    bsp_push_reg(dst, (bsp_size_t)(words * sizeof *dst));
    bsp_sync();

    json_t *steadiness = measure_steadiness(plan->steady_time);
    double s;
    json_t *samples = measure_s(plan, &s);
    double empty_sync = measure_sync(plan, src, dst);
    struct probe_fit put_fit, hpput_fit;
    json_t *put_points = measure_g_l(plan, bsp_put, src, dst, empty_sync, &put_fit);
    json_t *hp_points = measure_g_l(plan, bsp_hpput, src, dst, empty_sync, &hpput_fit);
    json_t *result = json_pack("{s:i, s:s, s:f, s:o, s:f, s:f, s:f, s:f, s:o, s:o}",
                               "p", p, "backend", PROBE_BACKEND, "s", s, "s_samples", samples,
                               "g_seconds", put_fit.g, "l_seconds", put_fit.l,
                               "r2", put_fit.r2, "sync_seconds", empty_sync,
                               "put", fit_json(&put_fit, put_points),
                               "hpput", fit_json(&hpput_fit, hp_points));
    if (steadiness) /* process 0's */
        json_object_set_new(result, "steadiness", steadiness);
    if (bsp_pid() == 0)
        report(result);
    json_decref(result);
    bsp_pop_reg(dst);
    bsp_sync();
    free(src);
    free(dst);
    bsp_end();
}

static void usage(void)
{
    fprintf(stderr, "usage: bspprobe [--quick | --long | --steadiness SECONDS] [-o FILE.json]\n");
    exit(2);
}

/* A duration in seconds, more than 0 and at most a minute. */
static double seconds_arg(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v > 0 && v <= 60))
        usage();
    return v;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            plan = &plans[0];
        else if (strcmp(argv[i], "--long") == 0)
            plan = &plans[2];
        else if (strcmp(argv[i], "--steadiness") == 0 && i + 1 < argc)
            steadiness_only = seconds_arg(argv[++i]);
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out_path = argv[++i];
        else
            usage();
    }
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
