// topology.c: `vecbsp topology FILE.json --bytes B --elements N [-p P]
// [--json]`: the thesis's costs on one topology machine (docs/topology.md),
// to check its formulas line by line: the four communication routines for a
// message of B bytes, and map, s_fold and s_scan of N elements already
// distributed, each application of the function costing 1 (C_f = 1); the
// table to 4 significant digits, --json in full.
#include "cli/cli.h"
#include "cost/cost.h"

#include <string.h>

enum { COSTS = 7 };
static const char *const cost_names[COSTS] = {"broadcast", "scatter", "gather", "total_exchange", "map", "s_fold", "s_scan"};

static void costs_of(const Topology *t, double bytes, double elements, double *out) {
  out[0] = topology_broadcast(t, bytes);
  out[1] = topology_scatter(t, bytes);
  out[2] = topology_gather(t, bytes);
  out[3] = topology_total_exchange(t, bytes);
  out[4] = topo_map(t, elements, 1);
  out[5] = topo_s_fold(t, elements, 1);
  out[6] = topo_s_scan(t, elements, 1);
}

// The machine of the file's topology with p processors (0: all of them).
static Topology chosen(Arena *a, const Machine *m, const char *path, int p) {
  if (!m->topology)
    fatal("%s: the machine has no \"topology\" object (docs/topology.md: {\"topology\": {\"kind\": \"hypercube\", "
          "\"p\": 16, \"K0\": 1, \"K1\": 100}})", path);
  if (!p) return *m->topology;
  if (p <= m->topology->p && topology_fit(m->topology, p).p == p) return topology_fit(m->topology, p);
  int sizes[8], n = topology_sizes(m->topology, sizes, 8);
  char *list = "";
  for (int i = 0; i < n && i < 8; i++) list = arena_printf(a, "%s%s%d", list, i ? ", " : "", sizes[i]);
  fatal("-p %d: the %s of %s is configured with %s%s processors", p, topology_describe(a, m->topology), path, list,
        n > 8 ? ", ..." : "");
}

static void print_text(Arena *a, const Topology *t, double bytes, double elements, const double *c) {
  printf("%s: K0 = %g, K1 = %g, %g bytes per element\n", topology_describe(a, t), t->K0, t->K1, t->element_bytes);
  printf("a message of %g bytes:\n", bytes);
  const char *shown[] = {"broadcast", "scatter", "gather", "total exchange"};
  for (int i = 0; i < 4; i++) printf("  %-16s %s\n", shown[i], cost_figure(c[i]).text);
  printf("%g elements already distributed, C_f = 1:\n", elements);
  for (int i = 4; i < COSTS; i++) printf("  %-16s %s\n", cost_names[i], cost_figure(c[i]).text);
}

int cmd_topology(int argc, char **argv) {
  Options opt;
  cli_parse_options(argc, argv, &opt);
  if (opt.nfiles != 1) fatal("topology expects one machine file: vecbsp topology FILE.json --bytes B --elements N");
  if (opt.bytes < 0 || opt.elements < 0) fatal("topology needs --bytes B (a message) and --elements N (a list)");
  Arena *a = arena_new();
  Machine m = machine_select(a, opt.files[0]);
  Topology t = chosen(a, &m, opt.files[0], opt.p);
  double c[COSTS];
  costs_of(&t, opt.bytes, opt.elements, c);
  if (opt.json) {
    json_t *root = cost_json_checked(json_pack("{s:o, s:o, s:o}", "topology", topology_json(&t), "bytes",
                                               cost_json_number(opt.bytes), "elements", cost_json_number(opt.elements)));
    for (int i = 0; i < COSTS; i++) json_object_set_new(root, cost_names[i], cost_json_number(c[i]));
    json_dumpf(root, stdout, JSON_INDENT(2));
    fputc('\n', stdout);
    json_decref(root);
  } else {
    print_text(a, &t, opt.bytes, opt.elements, c);
  }
  arena_free(a);
  return 0;
}
