// probe.c: `vecbsp probe`: runs bspprobe through bsprun and writes the machine JSON.
#include "cli/cli.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the command line asked for. */
struct probe_opts {
    int p;               /* processes; 0 means the core count */
    const char *backend; /* "threads" or "mpi" */
    const char *out;     /* -o FILE.json, or NULL */
    int json;            /* --json: the JSON on stdout */
    const char *effort;  /* "--quick", "--long" or NULL */
    const char *refit;   /* --refit FILE.json: an earlier probe to refit, or NULL */
    const char *levels;  /* --levels RANKSxTHREADS, or NULL */
    Arena *arena;        /* for paths */
};

static int probe_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("vecbsp: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

static void parse_opts(int argc, char **argv, struct probe_opts *o)
{
    Options opt;
    cli_parse_options(argc, argv, &opt);
    if (opt.nfiles)
        fatal("probe takes no file (vecbsp probe --help lists its options)");
    if (opt.levels && (opt.p || opt.backend || opt.refit))
        fatal("--levels measures MPI between the ranks and threads within one: it takes no -p, --backend or --refit");
    if (opt.refit && (opt.p || opt.backend || opt.effort))
        fatal("--refit takes the processes, the backend and the runs from its file");
    *o = (struct probe_opts){
        .p = opt.p ? opt.p : cli_cores(),
        .backend = opt.backend ? opt.backend : "threads",
        .out = opt.output, .json = opt.json, .effort = opt.effort, .refit = opt.refit, .levels = opt.levels,
        .arena = arena_new()};
}

/* Runs bsprun -n p bspprobe -o tmp ARGS... and returns bspprobe's JSON;
 * NULL, after an error message, if it fails. */
json_t *cli_run_bspprobe(Arena *a, const char *backend, int p, const char *const *args)
{
    char *tmp = cli_temp_file(a, "probe");
    const char *argv[16] = {cli_tool_path(a, "bsprun"), arena_printf(a, "--backend=%s", backend), "-n",
                            arena_printf(a, "%d", p),
                            cli_tool_path(a, strcmp(backend, "mpi") ? "bspprobe" : "bspprobe-mpi"), "-o", tmp};
    for (int i = 7; i < 15 && args && *args; i++)
        argv[i] = *args++;
    if (cli_run_child((char **)argv, NULL, NULL, NULL) != 0) { /* its output on our stderr: stdout is the result's */
        cli_temp_remove(tmp);
        return probe_error("probe: bspprobe failed on %d processes with the %s backend", p, backend), NULL;
    }
    json_error_t err;
    json_t *result = json_load_file(tmp, 0, &err);
    cli_temp_remove(tmp);
    if (!result)
        probe_error("probe: cannot read bspprobe's result: %s", err.text);
    return result;
}

double cli_number(const json_t *obj, const char *key)
{
    return json_number_value(json_object_get(obj, key));
}

/* The first line of cpu0's cache indexN/FILE in sysfs into buf ("" if none). */
static bool sysfs_cache_line(int index, const char *file, char *buf, int size)
{
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", index, file);
    FILE *f = fopen(path, "r");
    buf[0] = 0;
    if (!f)
        return false;
    if (!fgets(buf, size, f))
        buf[0] = 0;
    fclose(f);
    return true;
}

/* cpu0's data caches from sysfs, else sysconf (0 where neither knows): the
 * largest (the processes share it on one host) and the first level's. */
Calibration cli_probe_caches(void)
{
    Calibration caches = {0};
    char type[32], level[8], size[32];
    for (int i = 0; i < 16 && sysfs_cache_line(i, "type", type, sizeof type); i++) {
        if (strncmp(type, "Instruction", 11) == 0 || !sysfs_cache_line(i, "size", size, sizeof size))
            continue;
        char *unit;
        double bytes = strtod(size, &unit);
        bytes *= *unit == 'K' ? 1024 : *unit == 'M' ? 1024 * 1024 : 1;
        caches.cache_bytes = bytes > caches.cache_bytes ? bytes : caches.cache_bytes;
        if (sysfs_cache_line(i, "level", level, sizeof level) && atoi(level) == 1)
            caches.l1_bytes = bytes;
    }
    long last = sysconf(_SC_LEVEL3_CACHE_SIZE), first = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    if (caches.cache_bytes <= 0 && last > 0)
        caches.cache_bytes = (double)last;
    if (caches.l1_bytes <= 0 && first > 0)
        caches.l1_bytes = (double)first;
    return caches;
}

/* A machine file's cache sizes: "cache_bytes" and "l1_bytes". */
void cli_set_caches(json_t *machine, Calibration caches)
{
    json_object_set_new(machine, "cache_bytes", json_real(caches.cache_bytes));
    json_object_set_new(machine, "l1_bytes", json_real(caches.l1_bytes));
}

/* A probed machine's name, HOST-BACKEND-pP (its cached file's too). */
static const char *machine_name(Arena *a, const char *backend, int p)
{
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    return arena_printf(a, "%s-%s-p%d", host, backend, p);
}

/* The machine description of cli.md, plus the fit's quality, the cache
 * size and the raw measurement for whoever wants to look closer. */
static json_t *machine_json(const struct probe_opts *o, json_t *raw)
{
    const char *name = machine_name(o->arena, o->backend, o->p);
    double s = cli_number(raw, "s"), g = cli_number(raw, "g_seconds"), l = cli_number(raw, "l_seconds");
    json_t *hp = json_object_get(raw, "hpput"), *put = json_object_get(raw, "put");
    json_t *m = json_pack("{s:s, s:s, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:f, s:f, s:O}",
                     "name", name, "backend", o->backend, "p", o->p, "s", s,
                     "g", g * s, "l", l * s, "g_seconds", g, "l_seconds", l,
                     "r2", cli_number(raw, "r2"), "sync_seconds", cli_number(raw, "sync_seconds"),
                     "fit", json_string_value(json_object_get(put, "fit")),
                     "g_hpput", cli_number(hp, "g_seconds") * s, "l_hpput", cli_number(hp, "l_seconds") * s,
                     "measurement", raw);
    cli_set_caches(m, cli_probe_caches());
    json_object_set_new(m, "cores", json_integer(cli_cores()));
    /* More processes than cores slow the loop by their own time slicing:
     * the machine's steadiness is measured again on as many as the cores. */
    json_t *steadiness = json_object_get(raw, "steadiness");
    if (o->p > cli_cores())
        json_object_set_new(m, "steadiness", steady_measure(o->arena, o->backend, o->p,
                                                            cli_number(steadiness, "seconds")));
    else
        json_object_set(m, "steadiness", steadiness);
    return m;
}

/* The machine file of an earlier probe, for --refit: its calibration runs
 * are checked here, the rest by check_result. */
static json_t *load_recorded(struct probe_opts *o)
{
    json_error_t err;
    json_t *m = json_load_file(o->refit, 0, &err);
    if (!m)
        return probe_error("%s: %s", o->refit, err.text), NULL;
    const char *backend = json_string_value(json_object_get(m, "backend"));
    json_t *runs = json_object_get(m, "calibration_runs"), *row;
    bool ok = backend && (strcmp(backend, "threads") == 0 || strcmp(backend, "mpi") == 0) &&
              json_integer_value(json_object_get(m, "p")) >= 1 && json_is_array(runs);
    size_t i;
    json_array_foreach(runs, i, row) {
        ok = ok && json_is_string(json_object_get(row, "program")) && json_is_integer(json_object_get(row, "p")) &&
             cli_number(row, "seconds") >= 0;
    }
    if (!ok) {
        json_decref(m);
        return probe_error("%s: not a machine file of `vecbsp probe` (backend, p and calibration_runs)",
                           o->refit), NULL;
    }
    o->backend = backend;
    o->p = (int)json_integer_value(json_object_get(m, "p"));
    return m;
}

static int check_result(json_t *m)
{
    const char *keys[] = {"s", "g", "l", "g_seconds", "l_seconds"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        double v = cli_number(m, keys[i]);
        if (!isfinite(v) || v <= 0)
            return probe_error("probe: measured %s = %g; the machine was too noisy, try --long",
                               keys[i], v);
    }
    return 0;
}

/* The memory curves' shares, a row per stream under their footprints. */
static void print_curves(json_t *curves)
{
    size_t i, k;
    json_t *c, *x;
    json_array_foreach(curves, i, c) {
        int p = (int)json_integer_value(json_object_get(c, "p"));
        printf("memory     share from memory on %d process%s, by footprint in cache sizes:\n", p, p > 1 ? "es" : "");
        const char *rows[] = {"footprint", "loads", "stores"};
        for (int r = 0; r < 3; r++) {
            printf("  %-9s", rows[r]);
            json_array_foreach(json_object_get(c, rows[r]), k, x) printf(" %5.3g", json_number_value(x));
            printf("\n");
        }
    }
}

static void print_table(json_t *m)
{
    printf("machine    %s\n", json_string_value(json_object_get(m, "name")));
    printf("s          %.4g operations/s\n", cli_number(m, "s"));
    printf("g          %.4g operations/word  (%.4g s/word)\n", cli_number(m, "g"), cli_number(m, "g_seconds"));
    printf("l          %.4g operations       (%.4g s)\n", cli_number(m, "l"), cli_number(m, "l_seconds"));
    printf("fit        %s, r^2 = %.3f; empty sync %.4g s\n",
           json_string_value(json_object_get(m, "fit")), cli_number(m, "r2"), cli_number(m, "sync_seconds"));
    json_t *steadiness = json_object_get(m, "steadiness");
    if (json_is_object(steadiness)) {
        printf("speed      ");
        steady_describe(stdout, steadiness);
    }
    print_curves(json_object_get(m, "memory_curves"));
    json_t *cal = json_object_get(m, "calibration");
    printf("calibration (seconds per unit, for the exact model), r^2 = %.3f:\n", cli_number(m, "calibration_r2"));
    json_t *how = json_object_get(m, "calibration_fit");
    for (int t = 0; t < CAL_TERMS; t++) {
        const char *found = json_string_value(json_object_get(how, cal_term_names[t]));
        printf("  %-10s %-10.4g %s\n", cal_term_names[t], cli_number(cal, cal_term_names[t]), found ? found : "");
    }
}

/* The machine file's JSON: bspprobe's BSP parameters and the calibration
 * (or, with --refit, the recorded runs refitted); NULL after a message. */
static json_t *probe_machine(struct probe_opts *o)
{
    json_t *machine;
    if (o->refit) {
        machine = load_recorded(o);
    } else {
        const char *effort[] = {o->effort, NULL};
        progress_begin(arena_printf(o->arena, "probe: measuring s, g and l on %d processes", o->p), 0);
        json_t *raw = cli_run_bspprobe(o->arena, o->backend, o->p, effort);
        progress_end();
        machine = raw ? machine_json(o, raw) : NULL;
        json_decref(raw);
    }
    if (!machine || check_result(machine) != 0) {
        json_decref(machine);
        return NULL;
    }
    Calibration caches = {.cache_bytes = cli_number(machine, "cache_bytes"),
                          .l1_bytes = cli_number(machine, "l1_bytes")};
    json_t *cal = cli_calibrate(o->backend, o->p, cli_number(machine, "s"), caches, o->effort,
                                o->refit ? machine : NULL);
    json_object_del(machine, "calibration_programs"); /* a refit's stands only if cli_calibrate gives it again */
    json_object_update(machine, cal);
    json_decref(cal);
    return machine;
}

static void write_machine(const char *path, const json_t *machine)
{
    char *text = json_dumps(machine, JSON_INDENT(2));
    cli_write_file(path, text);
    free(text);
}

int cmd_probe(int argc, char **argv)
{
    struct probe_opts o;
    parse_opts(argc, argv, &o);
    if (o.levels) {
        arena_free(o.arena);
        return cli_probe_levels(o.levels, o.effort, o.out, o.json);
    }
    json_t *machine = probe_machine(&o);
    if (!machine)
        return 1;
    if (o.out)
        write_machine(o.out, machine);
    if (o.json) {
        json_dumpf(machine, stdout, JSON_INDENT(2));
        putchar('\n');
    } else if (!o.out) {
        print_table(machine);
    }
    if (o.json || o.out) /* else the table says it */
        steady_warn(json_object_get(machine, "steadiness"), "during the probe");
    json_decref(machine);
    arena_free(o.arena);
    return 0;
}

/* Was the machine file m probed with this vecbsp's calibration programs?
 * An earlier version's programs timed other runs. */
static bool probed_by_these_programs(Arena *a, const json_t *m)
{
    const char *by = json_string_value(json_object_get(m, "calibration_programs"));
    return by && strcmp(by, cli_calibration_programs(a)) == 0;
}

/* The first unit this version fits that the machine file m's calibration
 * lacks (an older model's fit, which read it as 0 and priced what it
 * counts in its other units), or NULL. */
static const char *missing_unit(const json_t *m)
{
    const json_t *units = json_object_get(m, "calibration");
    for (int t = 0; t < CAL_TERMS; t++)
        if (!json_object_get(units, cal_term_names[t]))
            return cal_term_names[t];
    return NULL;
}

/* The machine file at path fitted again by this version (its runs were
 * timed by this version's programs): whether the refit stands as this
 * version's probe, and then written over it. */
static bool refitted_in_place(Arena *a, const char *path)
{
    struct probe_opts o = {.refit = path, .arena = a};
    json_t *machine = probe_machine(&o);
    bool stands = machine && json_object_get(machine, "calibration_programs");
    if (stands)
        write_machine(path, machine);
    json_decref(machine);
    return stands;
}

const char *cli_host_machine(Arena *a, const char *backend, int p)
{
    const char *path = arena_printf(a, "%s/machine-%s.json", cli_cache_dir(a), machine_name(a, backend, p));
    bool cached = access(path, R_OK) == 0;
    json_t *m = cached ? json_load_file(path, 0, NULL) : NULL;
    bool ours = m && probed_by_these_programs(a, m);
    const char *missing = ours ? missing_unit(m) : NULL;
    json_decref(m);
    if (missing) {
        fprintf(stderr, "vecbsp: note: this host's probe %s lacks this version's unit %s: fitting it again to its "
                        "recorded runs\n", path, missing);
        ours = refitted_in_place(a, path);
    }
    if (ours) {
        fprintf(stderr, "vecbsp: note: predicting for %s, this host's probe (--machine chooses another)\n", path);
        return path;
    }
    if (cached)
        fprintf(stderr, "vecbsp: note: this host's probe %s was made by another version's calibration programs: "
                        "probing it again (%s, p = %d; a minute or two)\n", path, backend, p);
    else
        fprintf(stderr, "vecbsp: note: no machine given and this host not probed yet: probing it once (%s, p = %d; "
                        "a minute or two) into %s\n", backend, p, path);
    struct probe_opts o = {.p = p, .backend = backend, .arena = a};
    json_t *machine = probe_machine(&o);
    if (!machine)
        fatal("the probe of this host failed: give a machine with --machine");
    cli_make_dirs(cli_cache_dir(a));
    write_machine(path, machine);
    steady_warn(json_object_get(machine, "steadiness"), "during the probe");
    json_decref(machine);
    return path;
}
