// topology.c: the interconnect of a topology machine (Rangaswami's thesis,
// chapter 6): the "topology" object of a machine file, checked, the
// machines of the same kind that fit in it, and distances along its links.
// The costs on it are src/cost/topology.c.
#include "machine/machine.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { MAX_PROCESSORS = 1 << 20 };

static const char *const kind_names[TOPO_KINDS] = {"hypercube", "linear", "torus", "torus-nonuniform", "tree"};

// The keys each kind takes besides "kind", K0, K1 and element_bytes.
static const char *const kind_keys[TOPO_KINDS] = {"p d", "p", "p p1 p2", "p p1 p2", "p s d"};

const char *topology_kind_name(TopologyKind k) { return kind_names[k]; }

typedef struct Reader {
  json_t *obj;
  char *err;
  size_t size;
} Reader;

// The first problem found is kept, after "topology": .
static bool fail(Reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(Reader *r, const char *fmt, ...) {
  if (r->err[0]) return false;
  int n = snprintf(r->err, r->size, "\"topology\": ");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err + n, r->size - (size_t)n, fmt, ap);
  va_end(ap);
  return false;
}

// A number key: false (with the problem) if it is given but no finite number.
static bool number_at(Reader *r, const char *key, double *out) {
  json_t *v = json_object_get(r->obj, key);
  if (!v) return false;
  if (!json_is_number(v) || !isfinite(json_number_value(v)))
    return fail(r, "\"%s\" must be a number", key);
  *out = json_number_value(v);
  return true;
}

// An integer key in [lo, MAX_PROCESSORS]: false if it is missing or bad.
static bool integer_at(Reader *r, const char *key, int lo, int *out) {
  double x = 0;
  if (!number_at(r, key, &x)) return false;
  if (x != floor(x) || x < lo || x > MAX_PROCESSORS)
    return fail(r, "\"%s\" must be an integer in [%d, %d]", key, lo, MAX_PROCESSORS);
  *out = (int)x;
  return true;
}

static bool required(Reader *r, const char *key, int lo, int *out) {
  if (integer_at(r, key, lo, out)) return true;
  if (!json_object_get(r->obj, key)) fail(r, "\"%s\" is missing", key);
  return false;
}

static bool power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

static int log2_exact(int x) {
  int k = 0;
  while ((1 << k) < x) k++;
  return k;
}

// (s^(d+1) - 1) / (s - 1), or 0 past MAX_PROCESSORS.
static int tree_size(int s, int d) {
  int64_t p = 0, level = 1;
  for (int j = 0; j <= d; j++) {
    p += level;
    if (p > MAX_PROCESSORS) return 0;
    level *= s;
  }
  return (int)p;
}

// Is key one of the space-separated words of list?
static bool listed(const char *list, const char *key) {
  size_t n = strlen(key);
  for (const char *w = list; *w; w += strcspn(w, " "), w += strspn(w, " "))
    if (strncmp(w, key, n) == 0 && (w[n] == ' ' || w[n] == '\0')) return n > 0;
  return false;
}

// Every key belongs to the kind (or to every kind).
static bool keys_known(Reader *r, TopologyKind k) {
  const char *key;
  json_t *v;
  json_object_foreach(r->obj, key, v) {
    if (listed(kind_keys[k], key) || listed("kind K0 K1 element_bytes", key)) continue;
    return fail(r, "\"%s\" is not a key of a %s topology (its keys: kind %s K0 K1 element_bytes)", key, kind_names[k],
                kind_keys[k]);
  }
  return true;
}

// "p", when given beside the keys that fix it, must agree with them.
static bool p_agrees(Reader *r, int p) {
  int given = 0;
  if (!integer_at(r, "p", 1, &given)) return !json_object_get(r->obj, "p");
  return given == p || fail(r, "\"p\" is %d but the other keys make %d processors", given, p);
}

static bool read_hypercube(Reader *r, Topology *t) {
  bool has_p = json_object_get(r->obj, "p"), has_d = json_object_get(r->obj, "d");
  if (!has_p && !has_d) return fail(r, "a hypercube needs \"p\" (a power of two) or \"d\"");
  if (has_d) {
    if (!integer_at(r, "d", 0, &t->d)) return false;
    if (t->d > 20) return fail(r, "\"d\" must be at most 20");
    t->p = 1 << t->d;
    return p_agrees(r, t->p);
  }
  if (!integer_at(r, "p", 1, &t->p)) return false;
  if (!power_of_two(t->p)) return fail(r, "a hypercube's \"p\" must be a power of two");
  t->d = log2_exact(t->p);
  return true;
}

static bool read_torus(Reader *r, Topology *t) {
  if (!required(r, "p1", 2, &t->p1) || !required(r, "p2", 2, &t->p2)) return false;
  if (!power_of_two(t->p1) || !power_of_two(t->p2) || t->p1 > t->p2)
    return fail(r, "a torus needs \"p1\" <= \"p2\", both powers of two (the thesis's p1 = 2^k1 <= p2 = 2^k2)");
  if ((int64_t)t->p1 * t->p2 > MAX_PROCESSORS) return fail(r, "p1 * p2 is too large");
  t->p = t->p1 * t->p2;
  return p_agrees(r, t->p);
}

static bool read_tree(Reader *r, Topology *t) {
  if (!required(r, "s", 2, &t->s) || !required(r, "d", 0, &t->d)) return false;
  t->p = tree_size(t->s, t->d);
  if (!t->p) return fail(r, "the tree has more than 1048576 processors");
  return p_agrees(r, t->p);
}

bool topology_read(json_t *obj, Topology *t, char *err, size_t size) {
  Reader r = {obj, err, size};
  err[0] = '\0';
  *t = (Topology){.element_bytes = 8};
  if (!json_is_object(obj)) return fail(&r, "must be an object: {\"kind\": \"hypercube\", \"p\": 16, \"K0\": ..., \"K1\": ...}");
  json_t *kind = json_object_get(obj, "kind");
  int k = 0;
  while (k < TOPO_KINDS && !(json_is_string(kind) && strcmp(json_string_value(kind), kind_names[k]) == 0)) k++;
  if (k == TOPO_KINDS)
    return fail(&r, "\"kind\" must be one of hypercube, linear, torus, torus-nonuniform, tree");
  t->kind = (TopologyKind)k;
  if (!keys_known(&r, t->kind)) return false;
  bool ok = t->kind == TOPO_HYPERCUBE ? read_hypercube(&r, t)
            : t->kind == TOPO_LINEAR  ? required(&r, "p", 1, &t->p)
            : t->kind == TOPO_TREE    ? read_tree(&r, t)
                                      : read_torus(&r, t);
  if (!ok) return false;
  if (!number_at(&r, "K0", &t->K0)) return fail(&r, "\"K0\" (the start-up of a transfer) is missing");
  if (!number_at(&r, "K1", &t->K1)) return fail(&r, "\"K1\" (bytes per time unit) is missing");
  if (json_object_get(obj, "element_bytes") && !number_at(&r, "element_bytes", &t->element_bytes)) return false;
  if (t->K0 < 0) return fail(&r, "\"K0\" must not be negative");
  if (t->K1 <= 0) return fail(&r, "\"K1\" must be positive");
  if (t->element_bytes <= 0) return fail(&r, "\"element_bytes\" must be positive");
  return !r.err[0];
}

json_t *topology_json(const Topology *t) {
  json_t *o = json_pack("{s:s, s:i}", "kind", kind_names[t->kind], "p", t->p);
  if (t->kind == TOPO_HYPERCUBE || t->kind == TOPO_TREE) json_object_set_new(o, "d", json_integer(t->d));
  if (t->kind == TOPO_TREE) json_object_set_new(o, "s", json_integer(t->s));
  if (t->kind == TOPO_TORUS || t->kind == TOPO_TORUS_NONUNIFORM) {
    json_object_set_new(o, "p1", json_integer(t->p1));
    json_object_set_new(o, "p2", json_integer(t->p2));
  }
  json_object_set_new(o, "K0", json_real(t->K0));
  json_object_set_new(o, "K1", json_real(t->K1));
  json_object_set_new(o, "element_bytes", json_real(t->element_bytes));
  return o;
}

char *topology_describe(Arena *a, const Topology *t) {
  switch (t->kind) {
  case TOPO_HYPERCUBE: return arena_printf(a, "hypercube of %d processors (d = %d)", t->p, t->d);
  case TOPO_LINEAR: return arena_printf(a, "linear array of %d processors", t->p);
  case TOPO_TORUS: return arena_printf(a, "torus of %d x %d processors", t->p1, t->p2);
  case TOPO_TORUS_NONUNIFORM:
    return arena_printf(a, "non-uniform torus of %d x %d processors (no wrap-around in row 0)", t->p1, t->p2);
  default: return arena_printf(a, "%d-ary tree of depth %d (%d processors)", t->s, t->d, t->p);
  }
}

// The machine of t's kind with the i-th size of topology_sizes.
static Topology sized(const Topology *t, int i) {
  Topology u = *t;
  switch (t->kind) {
  case TOPO_HYPERCUBE: u.d = i, u.p = 1 << i; break;
  case TOPO_LINEAR: u.p = i + 1; break;
  case TOPO_TREE: u.d = i, u.p = tree_size(t->s, i); break;
  default:  // one processor, then 2^(i+1) as square as t allows
    if (i == 0) {
      u.p = u.p1 = u.p2 = 1;
      break;
    }
    u.p = 1 << (i + 1);
    u.p1 = 1 << ((i + 1) / 2);
    if (u.p1 > t->p1) u.p1 = t->p1;
    u.p2 = u.p / u.p1;
    break;
  }
  return u;
}

static int count_sizes(const Topology *t) {
  switch (t->kind) {
  case TOPO_HYPERCUBE: case TOPO_TREE: return t->d + 1;
  case TOPO_LINEAR: return t->p;
  default: return log2_exact(t->p);  // 1, 4, 8, ..., p
  }
}

int topology_sizes(const Topology *t, int *sizes, int max) {
  int n = count_sizes(t);
  for (int i = 0; i < n && i < max; i++) sizes[i] = sized(t, i).p;
  return n;
}

Topology topology_fit(const Topology *t, int p) {
  if (p > t->p) fatal("the %s has %d processors: it cannot run %d processes", kind_names[t->kind], t->p, p);
  int i = 0;
  while (sized(t, i).p < p) i++;
  return sized(t, i);
}

static int ring_distance(int a, int b, int n) {
  int d = a > b ? a - b : b - a;
  return d < n - d ? d : n - d;
}

// The depth of pre-order node k of an s-ary tree of depth d, and its
// ancestors' numbers, root first (path[depth] = k).
static int tree_path(const Topology *t, int k, int *path) {
  int node = 0, depth = 0;
  path[0] = 0;
  while (node != k) {
    int below = tree_size(t->s, t->d - depth - 1);  // nodes in a child's subtree
    int child = (k - node - 1) / below;
    node += 1 + child * below;
    path[++depth] = node;
  }
  return depth;
}

int topology_hops(const Topology *t, int a, int b) {
  switch (t->kind) {
  case TOPO_HYPERCUBE: return __builtin_popcount((unsigned)(a ^ b));
  case TOPO_LINEAR: return a > b ? a - b : b - a;
  case TOPO_TREE: {
    int pa[32], pb[32];
    int da = tree_path(t, a, pa), db = tree_path(t, b, pb), common = 0;
    while (common + 1 <= da && common + 1 <= db && pa[common + 1] == pb[common + 1]) common++;
    return da + db - 2 * common;
  }
  default: {
    int ra = a / t->p1, ca = a % t->p1, rb = b / t->p1, cb = b % t->p1;
    int across = ring_distance(ca, cb, t->p1), down = ring_distance(ra, rb, t->p2);
    // Without row 0's wrap-around link, two of its processors go round it
    // through the next row, unless straight along row 0 is shorter.
    if (t->kind == TOPO_TORUS_NONUNIFORM && ra == 0 && rb == 0 && t->p2 > 1) {
      int straight = ca > cb ? ca - cb : cb - ca;
      return straight < across + 2 ? straight : across + 2;
    }
    return across + down;
  }
  }
}

//
// The communication routines (thesis, section 6.1), for a message of B
// bytes: a broadcast sends all of it to every processor; a scatter gives
// each processor its B / p, a gather collects them, and a total exchange
// gives every processor the B / p of every other. Every formula is the sum
// of the steps of the thesis's algorithm, each step as long as its longest
// transfer (docs/topology.md shows each one beside the thesis's).
//

double topology_transfer(const Topology *t, double bytes) { return t->K0 + bytes / t->K1; }

// The linear array pipelines B in r packets: the first reaches the far end
// after p - 1 transfers, the others every second transfer after it (no
// processor sends and receives at once): (p + 2r - 3) transfers of B / r.
// The best r is the integer next to sqrt((p - 3) B / (2 K0 K1)), below or
// above it (the thesis rounds up); a packet holds a byte at least.
static double pipelined(const Topology *t, double B, double r) {
  return (t->p + 2 * r - 3) * topology_transfer(t, B / r);
}

static double linear_broadcast(const Topology *t, double B) {
  if (t->p <= 3) return (t->p - 1) * topology_transfer(t, B);
  double most = B >= 1 ? floor(B) : 1;
  double best = t->K0 > 0 ? sqrt((t->p - 3) * B / (2 * t->K0 * t->K1)) : most;
  double lo = fmin(fmax(floor(best), 1), most), hi = fmin(fmax(ceil(best), 1), most);
  return fmin(pipelined(t, B, lo), pipelined(t, B, hi));
}

double topology_broadcast(const Topology *t, double B) {
  if (t->p == 1) return 0;
  double T = topology_transfer(t, B);
  switch (t->kind) {
  case TOPO_HYPERCUBE: return t->d * T;
  case TOPO_LINEAR: return linear_broadcast(t, B);
  case TOPO_TORUS: return (t->p1 + t->p2) / 2.0 * T;  // down column 0 both ways round, then the rows
  case TOPO_TORUS_NONUNIFORM: return (t->p1 + t->p2 / 2.0 - 1) * T;  // row 0 the long way
  default: return (double)t->s * t->d * T;  // s children in turn, level by level
  }
}

double topology_scatter(const Topology *t, double B) {
  if (t->p == 1) return 0;
  double p = t->p, p1 = t->p1, p2 = t->p2, s = t->s;
  switch (t->kind) {
  case TOPO_HYPERCUBE: return t->d * t->K0 + B / t->K1 * (p - 1) / p;  // halving, dimension by dimension
  case TOPO_LINEAR: return (p - 1) * (t->K0 + B / (2 * t->K1));        // down the line, each keeping its part
  case TOPO_TORUS:  // half round the column's wrap-around, the halves down and up; the same in every row
    return topology_transfer(t, B / 2) + (p2 / 2 - 1) * topology_transfer(t, B / 4) +
           topology_transfer(t, B / (2 * p2)) + (p1 / 2 - 1) * topology_transfer(t, B / (4 * p2));
  case TOPO_TORUS_NONUNIFORM:  // the rows as linear arrays
    return topology_transfer(t, B / 2) + (p2 / 2 - 1) * topology_transfer(t, B / 4) +
           (p1 - 1) * topology_transfer(t, B / (2 * p2));
  default:  // each child its subtree's part, s children in turn, level by level
    return s * t->d * t->K0 + B / t->K1 / p * s / (s - 1) * (p - 1 - t->d);
  }
}

double topology_gather(const Topology *t, double B) { return topology_scatter(t, B); }  // the scatter reversed

double topology_total_exchange(const Topology *t, double B) {
  if (t->p == 1) return 0;
  double p = t->p, p1 = t->p1, p2 = t->p2;
  switch (t->kind) {
  case TOPO_HYPERCUBE: return 2 * t->d * t->K0 + 2 * B / t->K1 * (p - 1) / p;  // doubling: both ways, one at a time
  case TOPO_LINEAR:  // gathered to the middle two, exchanged, passed back (an odd p takes one step more)
    return (t->p % 2 ? p + 1 : p) * (t->K0 + B / (2 * t->K1));
  case TOPO_TORUS:  // round the column rings, then round the row rings
    return (p2 - 1) * topology_transfer(t, B / p) + (p1 - 1) * topology_transfer(t, B / p1);
  case TOPO_TORUS_NONUNIFORM:  // along the rows there and back, then round the column rings
    return (2 * p1 - 2) * topology_transfer(t, B / p) + (p2 - 1) * topology_transfer(t, B / p2);
  default: return topology_gather(t, B) + topology_broadcast(t, B);  // to the root and back
  }
}
