// levels.c: hierarchical machines (Li & Hains' SGL computer): the "levels"
// of a machine file read into a tree of masters and workers, the groups its
// rounds form, its flat BSP parameters, and the one-level tree of a flat
// machine (docs/hierarchical.md, "Machine files").
#include "machine/machine.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct TreeReader {
  Arena *a;
  char error[256];  // the first problem found ("" while none)
  int leaves;       // workers numbered so far
  int depth;        // the deepest worker's depth
} TreeReader;

static void problem(TreeReader *r, const char *where, const char *what) {
  if (!r->error[0]) snprintf(r->error, sizeof r->error, "%s: %s", where, what);
}

// A number of the node: *out unchanged when absent and not required.
static void node_number(TreeReader *r, json_t *obj, const char *where, const char *key, bool required, bool positive,
                        double *out) {
  json_t *v = json_object_get(obj, key);
  if (!v) {
    if (required) problem(r, where, arena_printf(r->a, "\"%s\" is missing", key));
    return;
  }
  double x = json_is_number(v) ? json_number_value(v) : NAN;
  if (!(isfinite(x) && (positive ? x > 0 : x >= 0)))
    problem(r, where, arena_printf(r->a, "\"%s\" must be a %s number of seconds", key, positive ? "positive" : "non-negative"));
  else
    *out = x;
}

static const char *const node_keys[] = {"name", "p", "c", "g", "g_down", "g_up", "l", "children"};

static bool known_keys(TreeReader *r, json_t *obj, const char *where) {
  const char *key;
  json_t *v;
  json_object_foreach(obj, key, v) {
    size_t i = 0;
    while (i < sizeof node_keys / sizeof *node_keys && strcmp(node_keys[i], key) != 0) i++;
    if (i == sizeof node_keys / sizeof *node_keys) {
      problem(r, where, arena_printf(r->a, "unknown key \"%s\" (a level has name, p, c, g or g_down and g_up, l, children)", key));
      return false;
    }
  }
  return true;
}

// The fan-out of a master: "p", or the length of its array of children.
static int fan_out(TreeReader *r, json_t *obj, json_t *children, const char *where) {
  json_t *pv = json_object_get(obj, "p");
  double p = json_is_number(pv) ? json_number_value(pv) : -1;
  if (pv && !(p >= 1 && p <= MACHINE_TREE_LEAVES_MAX && p == floor(p))) {
    problem(r, where, arena_printf(r->a, "\"p\" must be an integer in [1, %d]", MACHINE_TREE_LEAVES_MAX));
    return 0;
  }
  if (json_is_array(children)) {
    size_t n = json_array_size(children);
    if (n == 0 || (pv && n != (size_t)p)) {
      problem(r, where, n ? "\"p\" differs from the number of \"children\"" : "\"children\" is empty");
      return 0;
    }
    return (int)n;
  }
  if (!json_is_object(children)) {
    problem(r, where, "\"children\" must be a level (all children alike) or an array of levels");
    return 0;
  }
  if (!pv) problem(r, where, "\"p\" is missing (the number of children alike)");
  return pv ? (int)p : 0;
}

static MachineNode *read_node(TreeReader *r, json_t *obj, const char *where, int depth);

// A master's costs and children.
static void read_master(TreeReader *r, MachineNode *n, json_t *obj, json_t *children, const char *where) {
  bool symmetric = json_object_get(obj, "g") != NULL;
  if (symmetric && (json_object_get(obj, "g_down") || json_object_get(obj, "g_up")))
    problem(r, where, "give \"g\" or \"g_down\" and \"g_up\", not both");
  node_number(r, obj, where, symmetric ? "g" : "g_down", true, false, &n->g_down);
  node_number(r, obj, where, symmetric ? "g" : "g_up", true, false, &n->g_up);
  if (symmetric) n->g_up = n->g_down;
  node_number(r, obj, where, "l", true, false, &n->l);
  n->p = fan_out(r, obj, children, where);
  if (r->error[0]) return;
  n->child = arena_calloc(r->a, (size_t)n->p, sizeof *n->child);
  for (int i = 0; i < n->p && !r->error[0]; i++) {
    bool alike = json_is_object(children);
    n->child[i] = read_node(r, alike ? children : json_array_get(children, (size_t)i),
                            alike ? arena_printf(r->a, "%s.children", where) : arena_printf(r->a, "%s.children[%d]", where, i),
                            n->depth + 1);
  }
  if (r->error[0]) return;
  n->leaves = r->leaves - n->first;
  if (!json_object_get(obj, "c")) n->c = n->child[0]->c;  // the master is its first worker (docs/hierarchical.md)
}

static MachineNode *read_node(TreeReader *r, json_t *obj, const char *where, int depth) {
  MachineNode *n = arena_alloc(r->a, sizeof *n);
  if (!json_is_object(obj)) {
    problem(r, where, "a level must be an object");
    return n;
  }
  if (depth > MACHINE_TREE_DEPTH_MAX) {
    problem(r, "levels", arena_printf(r->a, "deeper than %d levels", MACHINE_TREE_DEPTH_MAX));
    return n;
  }
  if (!known_keys(r, obj, where)) return n;
  *n = (MachineNode){.depth = depth, .first = r->leaves};
  json_t *name = json_object_get(obj, "name");
  if (name && !json_is_string(name)) problem(r, where, "\"name\" must be a string");
  if (json_is_string(name)) n->name = arena_strndup(r->a, json_string_value(name), strlen(json_string_value(name)));
  json_t *children = json_object_get(obj, "children");
  node_number(r, obj, where, "c", !children, true, &n->c);
  if (children) {
    read_master(r, n, obj, children, where);
    return n;
  }
  static const char *const masters_only[] = {"p", "g", "g_down", "g_up", "l"};
  for (size_t i = 0; i < sizeof masters_only / sizeof *masters_only; i++)
    if (json_object_get(obj, masters_only[i]))
      problem(r, where, arena_printf(r->a, "a worker (a level without \"children\") has no \"%s\"", masters_only[i]));
  if (r->leaves == MACHINE_TREE_LEAVES_MAX)
    problem(r, where, arena_printf(r->a, "more than %d workers", MACHINE_TREE_LEAVES_MAX));
  n->leaves = 1;
  r->leaves++;
  if (depth > r->depth) r->depth = depth;
  return n;
}

// Worker k's groups: at round r, its ancestor at depth rounds - 1 - r.
static void mark_groups(MachineTree *t, MachineNode *n, MachineNode **path) {
  path[n->depth] = n;
  if (n->p) {
    for (int i = 0; i < n->p; i++) mark_groups(t, n->child[i], path);
    return;
  }
  t->worker[n->first] = n;
  for (int r = 0; r < t->rounds; r++) {
    int d = t->rounds - 1 - r;
    size_t at = (size_t)r * (size_t)t->leaves + (size_t)n->first;
    t->group[at] = d < n->depth ? path[d] : NULL;
    t->lead[at] = d < n->depth ? path[d]->first : n->first;
  }
}

static MachineTree *finish_tree(Arena *a, MachineNode *root, int leaves, int depth) {
  MachineTree *t = arena_alloc(a, sizeof *t);
  *t = (MachineTree){.root = root, .leaves = leaves, .rounds = depth};
  t->group = arena_calloc(a, (size_t)depth * (size_t)leaves + 1, sizeof *t->group);
  t->lead = arena_calloc(a, (size_t)depth * (size_t)leaves + 1, sizeof *t->lead);
  t->worker = arena_calloc(a, (size_t)leaves, sizeof *t->worker);
  MachineNode *path[MACHINE_TREE_DEPTH_MAX + 1];
  mark_groups(t, root, path);
  return t;
}

const char *machine_tree_read(Arena *a, json_t *levels, MachineTree **out) {
  TreeReader r = {.a = a};
  MachineNode *root = read_node(&r, levels, "levels", 0);
  if (!r.error[0] && !root->p) problem(&r, "levels", "the root must be a master (a level with \"children\")");
  if (r.error[0]) return arena_strndup(a, r.error, strlen(r.error));
  *out = finish_tree(a, root, r.leaves, r.depth);
  return NULL;
}

MachineTree *machine_tree_of_flat(Arena *a, const Machine *m) {
  MachineNode *root = arena_alloc(a, sizeof *root);
  *root = (MachineNode){.p = m->p, .c = 1 / m->s, .g_down = m->g / m->s, .g_up = m->g / m->s, .l = m->l / m->s,
                        .leaves = m->p};
  root->child = arena_calloc(a, (size_t)m->p, sizeof *root->child);
  for (int k = 0; k < m->p; k++) {
    root->child[k] = arena_alloc(a, sizeof *root->child[k]);
    *root->child[k] = (MachineNode){.c = 1 / m->s, .first = k, .leaves = 1, .depth = 1};
  }
  return finish_tree(a, root, m->p, 1);
}

// The slowest worker's c, the slowest master's per-word time, and the
// synchronisations on the longest path, below n.
static void flat_params(const MachineNode *n, double *c, double *g, double *l) {
  *l = 0;
  if (!n->p) {
    *c = fmax(*c, n->c);
    return;
  }
  *g = fmax(*g, fmax(n->g_down, n->g_up));
  for (int i = 0; i < n->p; i++) {
    double below;
    flat_params(n->child[i], c, g, &below);
    *l = fmax(*l, below);
  }
  *l += n->l;
}

void machine_tree_flat_params(const MachineTree *t, double *g, double *l, double *s) {
  double c = 0, gs = 0, ls;
  flat_params(t->root, &c, &gs, &ls);
  *s = 1 / c;
  *g = gs / c;
  *l = ls / c;
}

// Are the subtrees of n alike level by level (every master of a depth with
// the same fan-out)? Then the fan-outs of the leftmost path describe it.
static bool regular(const MachineNode *n, const MachineNode *like) {
  if (n->p != like->p) return false;
  for (int i = 0; i < n->p; i++)
    if (!regular(n->child[i], like->child[0])) return false;
  return true;
}

char *machine_tree_text(Arena *a, const MachineTree *t) {
  if (!regular(t->root, t->root))
    return arena_printf(a, "%d levels of uneven fan-out (%d workers)", t->rounds, t->leaves);
  char *s = "";
  for (const MachineNode *n = t->root; n->p; n = n->child[0])
    s = arena_printf(a, "%s%s%s%s%d", s, *s ? " x " : "", n->name ? n->name : "", n->name ? " " : "", n->p);
  return arena_printf(a, "%s (%d workers)", s, t->leaves);
}
