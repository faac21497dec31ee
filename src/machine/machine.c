// machine.c: BSP machine parameters: the papers' Sun HPC 3500 built in, or
// a JSON machine file in the format `vecbsp probe` writes.
#include "machine/machine.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const CostConstants machine_default_constants = {.binop = 1};

// The papers' machine: BSPlib's benchmark on 8 UltraSPARC II processors.
static const Machine sunhpc3500 = {.name = "sunhpc3500", .p = 8, .g = 1.6, .l = 67150, .s = 13e6, .k = {.binop = 1}};

// A shared-memory multicore as `vecbsp probe` measured one (the project's
// 2-vCPU AMD EPYC, threads, p = 2; memory streamed alone as a probe at
// p = 1 measured it; g, l and s from a steadier probe than the units';
// mul, the multiplier's time for one multiplication, from a threads probe
// at p = 1 that fitted it as a bound of its own; store_mem and
// store_mem_shared the medians of eight probes, four of them at p = 2, that
// timed a store stream of their own; copy 0, as in the fit its store
// comes from, which priced copies of rows in store; l1_bytes from sysfs): the
// planner's machine for run, compile and plan when none is given. Probe
// yours for plans made for it. Its cores are this machine's, as the
// processes that run here will have.
static const Machine local = {
    .name = "local", .p = 2, .probed_p = 2, .backend = "threads", .g = 4.5, .l = 156, .s = 3.72e9, .k = {.binop = 1},
    .cal = {.present = true, .cache_bytes = 33554432, .l1_bytes = 32768,
            .unit = {[CAL_OPS] = 7.23e-11, [CAL_DIVS] = 1.51e-09, [CAL_ELEMS] = 2.24e-10, [CAL_STORES] = 1.14e-10,
                     [CAL_LOADS_MEM] = 2.39e-10, [CAL_STORES_MEM] = 3.2e-10, [CAL_UNPACKED] = 1.14e-10,
                     [CAL_UNPACKED_MEM] = 9.41e-10, [CAL_VECTORS] = 3.62e-09, [CAL_MULS] = 2.78e-10,
                     [CAL_LITERAL_DIVS] = 4.3e-10, [CAL_FLOAT_DIVS] = 7.53e-10, [CAL_LOADS_SHARED] = 4.13e-10,
                     [CAL_STORES_SHARED] = 7.25e-10, [CAL_UNPACKED_SHARED] = 9.41e-10, [CAL_ACC_STORES] = 1.28e-10,
                     [CAL_ACC_STORES_MEM] = 3.28e-10, [CAL_LAT_FAST] = 2.76e-10, [CAL_LAT_SELECT] = 5.43e-10,
                     [CAL_LAT_MUL] = 8.14e-10, [CAL_LAT_DIV] = 2.6e-09, [CAL_LAT_FLOAT] = 8.13e-10,
                     [CAL_EXITS] = 3.11e-09, [CAL_WORDS] = 2.69e-10, [CAL_WORDS_MEM] = 5e-10,
                     [CAL_BARRIERS] = 3.2e-07}}};

typedef struct Reader {
  const char *path;  // for messages
  json_t *root;      // the file's object
  char error[256];   // the first problem found ("" while none)
} Reader;

static double number(Reader *r, json_t *obj, const char *key, double fallback, bool required) {
  json_t *v = json_object_get(obj, key);
  if (!v && !required) return fallback;
  if (!r->error[0] && !json_is_number(v))
    snprintf(r->error, sizeof r->error, v ? "\"%s\" must be a number" : "\"%s\" is missing", key);
  return json_is_number(v) ? json_number_value(v) : fallback;
}

static void check(Reader *r, bool ok, const char *what) {
  if (!ok && !r->error[0]) snprintf(r->error, sizeof r->error, "%s", what);
}

static const struct {
  const char *key;
  size_t offset;
} constant_keys[] = {
    {"binop", offsetof(CostConstants, binop)}, {"length", offsetof(CostConstants, length)},
    {"entry", offsetof(CostConstants, entry)}, {"pair", offsetof(CostConstants, pair)},
    {"hd", offsetof(CostConstants, hd)},       {"tl", offsetof(CostConstants, tl)},
    {"fst", offsetof(CostConstants, fst)},     {"snd", offsetof(CostConstants, snd)},
    {"concat", offsetof(CostConstants, concat)}, {"iter", offsetof(CostConstants, iter)},
};

// "constants": {"binop": 1, ...}: the paper model's operation constants.
static void read_constants(Reader *r, json_t *obj, CostConstants *k) {
  if (!obj) return;
  check(r, json_is_object(obj), "\"constants\" must be an object of numbers");
  const char *key;
  json_t *v;
  json_object_foreach(obj, key, v) {
    size_t i = 0;
    while (i < sizeof constant_keys / sizeof *constant_keys && strcmp(constant_keys[i].key, key) != 0) i++;
    if (i == sizeof constant_keys / sizeof *constant_keys) {
      check(r, false, "\"constants\" has an unknown key (known: binop length entry pair hd tl fst snd concat iter)");
      return;
    }
    double x = number(r, obj, key, 0, true);
    check(r, x >= 0, "constants must not be negative");
    *(double *)((char *)k + constant_keys[i].offset) = x;
  }
}

const char *const cal_term_names[CAL_TERMS] = {
    "op", "div", "elem", "load", "store", "load_mem", "store_mem", "unpack", "unpack_mem", "vector", "mul", "literal_div", "float_div",
    "load_mem_shared", "store_mem_shared", "unpack_mem_shared", "acc_store", "acc_store_mem", "copy", "lat_fast", "lat_select", "lat_mul", "lat_div", "lat_float",
    "exit", "word", "word_mem", "barrier"};

// "calibration": {"op": seconds, ...}: the exact model's per-unit times.
static void read_calibration(Reader *r, json_t *root, Machine *m) {
  m->cal.cache_bytes = number(r, root, "cache_bytes", 0, false);
  check(r, m->cal.cache_bytes >= 0, "\"cache_bytes\" must not be negative");
  m->cal.l1_bytes = number(r, root, "l1_bytes", 0, false);
  check(r, m->cal.l1_bytes >= 0, "\"l1_bytes\" must not be negative");
  json_t *curves = json_object_get(root, "memory_curves");
  const char *bad_curves = curves ? memory_curves_read(curves, &m->cal) : NULL;
  check(r, !bad_curves, bad_curves);
  json_t *obj = json_object_get(root, "calibration");
  if (!obj) return;
  check(r, json_is_object(obj), "\"calibration\" must be an object of seconds per unit");
  for (int t = 0; t < CAL_TERMS && !r->error[0]; t++) {
    bool newer = (t >= CAL_LOADS_MEM && t < CAL_WORDS) || t == CAL_WORDS_MEM;  // older files lack them (0)
    m->cal.unit[t] = number(r, obj, cal_term_names[t], 0, !newer);
    check(r, m->cal.unit[t] >= 0, "calibration times must not be negative");
  }
  // A unit is never cheaper than its twin (files of older probes may say
  // otherwise, or lack it): more from memory never predicts less.
  calibration_floor_twins(m->cal.unit);
  // Files of older probes priced a float add's latency as a multiplication's,
  // and a float division as an integer one.
  if (!json_object_get(obj, "lat_float")) m->cal.unit[CAL_LAT_FLOAT] = m->cal.unit[CAL_LAT_MUL];
  if (!json_object_get(obj, "float_div")) m->cal.unit[CAL_FLOAT_DIVS] = m->cal.unit[CAL_DIVS];
  m->cal.present = true;
}

// "topology": the interconnect (docs/topology.md); it has the machine's p.
// Without "g" and "l", the machine's BSP view of it: a barrier costs the
// start-ups of a total exchange, and a word the rest of one per word each
// processor receives; without "s", one operation per time unit.
static void read_topology(Arena *a, Reader *r, json_t *obj, Machine *m) {
  Topology *t = arena_alloc(a, sizeof *t);
  if (!topology_read(obj, t, r->error, sizeof r->error)) return;
  check(r, !json_object_get(r->root, "p") || m->p == t->p, "\"p\" differs from the topology's processors");
  m->p = t->p, m->probed_p = 0, m->topology = t;
  double latency = topology_total_exchange(t, 0);
  if (!json_object_get(r->root, "l")) m->l = latency * m->s;
  if (!json_object_get(r->root, "g") && t->p > 1)
    m->g = (topology_total_exchange(t, t->p * t->element_bytes) - latency) / (t->p - 1) * m->s;
}

static Machine read_machine(Arena *a, const char *path) {
  json_error_t jerr;
  Reader r = {.path = path};
  r.root = json_load_file(path, 0, &jerr);
  if (!r.root) fatal("%s: %s", path, jerr.line > 0 ? arena_printf(a, "line %d: %s", jerr.line, jerr.text) : jerr.text);
  Machine m = sunhpc3500;
  m.name = path;
  check(&r, json_is_object(r.root), "expected a JSON object with the machine parameters p, g, l and s");
  if (!r.error[0]) {
    json_t *name = json_object_get(r.root, "name");
    if (json_is_string(name)) m.name = arena_strndup(a, json_string_value(name), strlen(json_string_value(name)));
    // A hierarchical machine's flat parameters default to its tree's; a
    // topology machine's are optional (its links price the exchanges).
    MachineTree *tree = NULL;
    double flat_g = 0, flat_l = 0, flat_s = 1;
    json_t *levels = json_object_get(r.root, "levels");
    json_t *topology = json_object_get(r.root, "topology");
    check(&r, !(levels && topology), "a machine has \"levels\" or a \"topology\", not both");
    const char *bad_levels = levels ? machine_tree_read(a, levels, &tree) : NULL;
    check(&r, !bad_levels, bad_levels);
    if (tree) machine_tree_flat_params(tree, &flat_g, &flat_l, &flat_s);
    double p = number(&r, r.root, "p", tree ? tree->leaves : 1, !levels && !topology);
    m.g = number(&r, r.root, "g", flat_g, !levels && !topology);
    m.l = number(&r, r.root, "l", flat_l, !levels && !topology);
    m.s = number(&r, r.root, "s", flat_s, !levels && !topology);
    check(&r, p >= 1 && p <= (1 << 20) && p == (int)p, "\"p\" must be an integer in [1, 1048576]");
    check(&r, !tree || p == tree->leaves, "\"p\" must be the number of workers in \"levels\"");
    m.tree = tree;
    check(&r, m.g >= 0 && m.l >= 0, "\"g\" and \"l\" must not be negative");
    check(&r, m.s > 0, "\"s\" (operations per second) must be positive");
    m.p = m.probed_p = (int)p;
    json_t *backend = json_object_get(r.root, "backend");
    if (json_is_string(backend)) m.backend = arena_strndup(a, json_string_value(backend), strlen(json_string_value(backend)));
    double cores = number(&r, r.root, "cores", 0, false);
    bool given = json_object_get(r.root, "cores") != NULL;
    check(&r, !given || (cores >= 1 && cores <= (1 << 20) && cores == (int)cores),
          "\"cores\" must be an integer in [1, 1048576]");
    m.cores = (int)cores;
    read_constants(&r, json_object_get(r.root, "constants"), &m.k);
    read_calibration(&r, r.root, &m);
    if (topology && !r.error[0]) read_topology(a, &r, topology, &m);
  }
  json_decref(r.root);
  if (r.error[0]) fatal("%s: %s", path, r.error);
  return m;
}

Machine machine_select(Arena *a, const char *spec) {
  if (!spec || strcmp(spec, sunhpc3500.name) == 0) return sunhpc3500;
  if (strcmp(spec, local.name) == 0) {
    Machine m = local;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    m.cores = cores > 0 ? (int)cores : 0;
    return m;
  }
  if (!strchr(spec, '.') && !strchr(spec, '/'))
    fatal("unknown machine '%s': the built-in ones are sunhpc3500 and local; otherwise give a machine file "
          "(FILE.json, as vecbsp probe writes)", spec);
  return read_machine(a, spec);
}
