// test_sgl.c: hierarchical machines and the SGL cost model, one group per
// ctest test (sgl_test GROUP, run from the project root): the paper's cost
// formula and its primitives' costs, machine files with levels, the flat
// machine as the one-level case (the flat model's figures exactly), and
// plans that follow the levels against the SGL formula worked by hand on a
// heterogeneous tree (docs/hierarchical.md).
#include "cost/cost.h"
#include "eval/eval.h"
#include "testing.h"

#include <glob.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool close_to(double x, double want) { return fabs(x - want) <= 1e-12 * fmax(1e-300, fabs(want)); }

// Params by name from "n=10 m=3" (missing ones are 1).
static int64_t *params_of(Arena *a, Program *prog, const char *spec) { return params_named(a, prog, spec, 1); }

// The tree of a "levels" object, or NULL with the reader's message in *err.
static MachineTree *tree_of(Arena *a, const char *levels, const char **err) {
  json_error_t jerr;
  json_t *j = json_loads(levels, 0, &jerr);
  if (!j) fatal("test JSON: %s", jerr.text);
  MachineTree *t = NULL;
  *err = machine_tree_read(a, j, &t);
  json_decref(j);
  return t;
}

// A hierarchical machine: the tree and its flat parameters, uncalibrated.
static Machine tree_machine(Arena *a, const char *levels) {
  const char *err;
  Machine m = {.name = "tree", .k = machine_default_constants};
  m.tree = tree_of(a, levels, &err);
  if (!m.tree) fatal("test tree: %s", err);
  m.p = m.tree->leaves;
  machine_tree_flat_params(m.tree, &m.g, &m.l, &m.s);
  return m;
}

static CostResult predict(Arena *a, Program *prog, const char *params, const Machine *m, const Plan *pl) {
  CostRequest req = {.prog = prog, .params = params_of(a, prog, params), .model = MODEL_EXACT, .machine = *m, .plan = pl};
  return cost_analyse(a, &req);
}

//
// The paper's formula (section 2.3) and the costs of its primitives
// (section 2.4). The paper prints no numbers for them: the formulas are its
// worked examples, evaluated here at parameters chosen so that each term
// shows.
//

static void test_formula(void) {
  MachineNode master = {.p = 3, .c = 2, .g_down = 3, .g_up = 5, .l = 7};
  double child[] = {1, 4, 2};
  // Cost_node = w c + [max_i Cost_child_i + k_down g_down + k_up g_up + l]
  double got = sgl_superstep(&master, 10, child, 3, 6, 8);
  CHECK(got == 10 * 2 + 4 + 6 * 3 + 8 * 5 + 7, "the superstep formula: %g, want 89", got);
  // A heterogeneous machine: the slowest child counts, whichever it is.
  double slow_first[] = {9, 4, 2};
  CHECK(sgl_superstep(&master, 0, slow_first, 3, 0, 0) == 9 + 7, "max over the children");
  // scatter v to X (p scalars): p g_down, no synchronisation; gather X to
  // V (p scalars): p g_up + l; pardo c: the slowest child. A superstep of
  // the three with children working 1, 4, 2 and no work on the master:
  double p = master.p;
  CHECK(sgl_superstep(&master, 0, child, 3, p, p) == p * 3 + 4 + p * 5 + 7, "scatter, pardo, gather of scalars");
  // scatter w to V and gather V to W: the words of all the vectors, here
  // 2, 3 and 4 words to the three children and back.
  double words = 2 + 3 + 4;
  CHECK(sgl_superstep(&master, 0, child, 3, words, words) == words * 3 + 4 + words * 5 + 7, "scatter and gather of vectors");
  // A two-level machine: a child master's cost is its own superstep.
  MachineNode node = {.p = 2, .c = 1, .g_down = 0.5, .g_up = 0.25, .l = 2};
  double workers[] = {10, 12}, nodes[2];
  nodes[0] = sgl_superstep(&node, 1, workers, 2, 4, 4);  // 1 + 12 + 2 + 1 + 2 = 18
  nodes[1] = 15;
  CHECK(nodes[0] == 18 && sgl_superstep(&master, 1, nodes, 2, 8, 2) == 2 + 18 + 24 + 10 + 7, "nested supersteps");
}

// The paper's dh (section 3.4) on a master of p workers holding m elements
// each. Its printed cost, with 2^n = m and c_plus, c_times the operators'
// times:
//   log p (2^n (g_up + g_down) + 2l + 2^n max(c_plus, c_times)) + 2^n n (c_plus + c_times) / 2
// Derived from its algorithm (docs/hierarchical.md, "dh"): every stage moves
// all p blocks up and down through the master, p 2^n words each way, and
// synchronises once (the gather; a scatter needs none), plus the first
// superstep's synchronisation:
//   log p (p 2^n (g_up + g_down) + l + 2^n max(c_plus, c_times)) + l + 2^n n (c_plus + c_times) / 2
static void test_dh(void) {
  Arena *a = arena_new();
  const char *err;
  for (int p = 1; p <= 16; p *= 2)
    for (double m = 1; m <= 1024; m *= 4) {
      MachineTree *t = tree_of(a, arena_printf(a, "{\"p\": %d, \"g_down\": 3e-9, \"g_up\": 5e-9, \"l\": 7e-6, "
                                                  "\"children\": {\"c\": 2e-9}}", p), &err);
      double c_plus = 1 * 2e-9, c_times = 3 * 2e-9, n = log2(m), stages = log2(p);
      double want = stages * (p * m * (5e-9 + 3e-9) + 7e-6 + m * fmax(c_plus, c_times)) + 7e-6 + m * n * (c_plus + c_times) / 2;
      double got = sgl_dh(t->root, m, 1, 3);
      CHECK(close_to(got, want), "dh p=%d m=%g: %.17g, derived %.17g", p, m, got, want);
      double printed = stages * (m * (5e-9 + 3e-9) + 2 * 7e-6 + m * fmax(c_plus, c_times)) + m * n * (c_plus + c_times) / 2;
      // The difference: (p - 1) 2^n more words each way a stage, l less a stage, l more in all.
      double fix = stages * ((p - 1) * m * (5e-9 + 3e-9) - 7e-6) + 7e-6;
      CHECK(close_to(got - printed, fix) || fabs(got - printed - fix) < 1e-18, "dh p=%d m=%g: printed %.17g, difference %g", p, m, printed, got - printed);
    }
  arena_free(a);
}

//
// Machine files: trees, their groups, their flat parameters, their errors.
//

static const char *const tree_2x2 =
    "{\"name\": \"ranks\", \"p\": 2, \"g\": 2e-9, \"l\": 5e-6,"
    " \"children\": {\"name\": \"threads\", \"p\": 2, \"g_down\": 2e-10, \"g_up\": 3e-10, \"l\": 2e-7,"
    " \"children\": {\"c\": 2.5e-10}}}";

// Worker 0 is alone under the root; workers 1 and 2 under a master.
static const char *const tree_uneven =
    "{\"p\": 2, \"g\": 1e-9, \"l\": 1e-6, \"children\": [{\"c\": 1e-9},"
    " {\"g\": 1e-10, \"l\": 1e-7, \"children\": [{\"c\": 1e-9}, {\"c\": 3e-9}]}]}";

static void test_files(void) {
  Arena *a = arena_new();
  const char *err;
  MachineTree *t = tree_of(a, tree_2x2, &err);
  CHECK(t && t->leaves == 4 && t->rounds == 2, "2 x 2: %d workers, %d rounds", t ? t->leaves : 0, t ? t->rounds : 0);
  // Round 0: {0, 1} led by 0, {2, 3} led by 2; round 1: all led by 0.
  static const int lead_2x2[] = {0, 0, 2, 2, 0, 0, 0, 0};
  for (int i = 0; t && i < 8; i++) CHECK(t->lead[i] == lead_2x2[i], "2 x 2 lead[%d] = %d", i, t->lead[i]);
  CHECK(tree_of(a, "{\"p\": 2.0, \"g\": 1, \"l\": 0, \"children\": {\"c\": 1}}", &err), "p = 2.0 is 2");
  CHECK(t && t->root->c == 2.5e-10 && t->root->child[1]->g_up == 3e-10, "a master's c is its first worker's");
  double g, l, s;
  machine_tree_flat_params(t, &g, &l, &s);
  // s = 1/c; g the slowest level's (2e-9 s a word); l both levels' (5.2e-6 s), in operations.
  CHECK(close_to(s, 4e9) && close_to(g, 2e-9 * 4e9) && close_to(l, 5.2e-6 * 4e9), "flat: g %g l %g s %g", g, l, s);
  CHECK(strcmp(machine_tree_text(a, t), "ranks 2 x threads 2 (4 workers)") == 0, "text: %s", machine_tree_text(a, t));

  t = tree_of(a, tree_uneven, &err);
  CHECK(t && t->leaves == 3 && t->rounds == 2, "uneven tree");
  // Round 0: 0 alone, {1, 2} led by 1; round 1: all led by 0.
  static const int lead_uneven[] = {0, 1, 1, 0, 0, 0};
  for (int i = 0; t && i < 6; i++) CHECK(t->lead[i] == lead_uneven[i], "uneven lead[%d] = %d", i, t->lead[i]);
  CHECK(t && !t->group[0] && t->group[1] == t->root->child[1], "worker 0 is in no group at round 0");
  machine_tree_flat_params(t, &g, &l, &s);
  CHECK(close_to(s, 1 / 3e-9) && close_to(l, 1.1e-6 / 3e-9), "uneven flat: the slowest worker, the longest path");
  CHECK(strcmp(machine_tree_text(a, t), "2 levels of uneven fan-out (3 workers)") == 0, "text");

  // The flat machine is the one-level tree.
  Machine flat = {.p = 3, .g = 2, .l = 1024, .s = 0x1p30};
  t = machine_tree_of_flat(a, &flat);
  machine_tree_flat_params(t, &g, &l, &s);
  CHECK(t->leaves == 3 && t->rounds == 1 && g == 2 && l == 1024 && s == 0x1p30, "one level: g %g l %g s %g", g, l, s);

  static const struct {
    const char *json, *error;
  } bad[] = {
      {"[]", "levels: a level must be an object"},
      {"{\"c\": 1e-9}", "levels: the root must be a master (a level with \"children\")"},
      {"{\"p\": 2, \"g\": 1e-9, \"l\": 0, \"children\": {}}", "levels.children: \"c\" is missing"},
      {"{\"p\": 2, \"g\": 1e-9, \"children\": {\"c\": 1}}", "levels: \"l\" is missing"},
      {"{\"p\": 2, \"l\": 0, \"children\": {\"c\": 1}}", "levels: \"g_down\" is missing"},
      {"{\"p\": 2, \"g\": 1, \"g_up\": 1, \"l\": 0, \"children\": {\"c\": 1}}", "levels: give \"g\" or \"g_down\" and \"g_up\", not both"},
      {"{\"p\": 0, \"g\": 1, \"l\": 0, \"children\": {\"c\": 1}}", "levels: \"p\" must be an integer in [1, 65536]"},
      {"{\"p\": 1.5, \"g\": 1, \"l\": 0, \"children\": {\"c\": 1}}", "levels: \"p\" must be an integer in [1, 65536]"},
      {"{\"g\": 1, \"l\": 0, \"children\": {\"c\": 1}}", "levels: \"p\" is missing (the number of children alike)"},
      {"{\"p\": 3, \"g\": 1, \"l\": 0, \"children\": [{\"c\": 1}, {\"c\": 1}]}", "levels: \"p\" differs from the number of \"children\""},
      {"{\"g\": 1, \"l\": 0, \"children\": []}", "levels: \"children\" is empty"},
      {"{\"p\": 2, \"g\": 1, \"l\": 0, \"children\": 3}", "levels: \"children\" must be a level (all children alike) or an array of levels"},
      {"{\"p\": 2, \"g\": -1, \"l\": 0, \"children\": {\"c\": 1}}", "levels: \"g\" must be a non-negative number of seconds"},
      {"{\"p\": 2, \"g\": 1, \"l\": 0, \"children\": [{\"c\": 1}, {\"c\": 0}]}", "levels.children[1]: \"c\" must be a positive number of seconds"},
      {"{\"p\": 2, \"g\": 1, \"l\": 0, \"children\": {\"c\": 1, \"l\": 2}}", "levels.children: a worker (a level without \"children\") has no \"l\""},
      {"{\"p\": 2, \"g\": 1, \"l\": 0, \"gup\": 1, \"children\": {\"c\": 1}}", "levels: unknown key \"gup\" (a level has name, p, c, g or g_down and g_up, l, children)"},
      {"{\"p\": 2, \"g\": 1, \"l\": 0, \"name\": 7, \"children\": {\"c\": 1}}", "levels: \"name\" must be a string"},
      {"{\"p\": 300, \"g\": 1, \"l\": 0, \"children\": {\"p\": 300, \"g\": 1, \"l\": 0, \"children\": {\"c\": 1}}}", "levels.children.children: more than 65536 workers"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    t = tree_of(a, bad[i].json, &err);
    CHECK(!t && err && strcmp(err, bad[i].error) == 0, "%s: got '%s', want '%s'", bad[i].json, err ? err : "(none)", bad[i].error);
  }
  // Deeper than 32 levels.
  char *deep = "{\"c\": 1}";
  for (int d = 0; d < 33; d++) deep = arena_printf(a, "{\"p\": 1, \"g\": 0, \"l\": 0, \"children\": %s}", deep);
  t = tree_of(a, deep, &err);
  CHECK(!t && err && strstr(err, "deeper than 32 levels"), "depth: %s", err ? err : "(none)");
  arena_free(a);
}

//
// The one-level case: a flat machine's one-level tree gives the flat
// model's figures exactly. With g, l and s powers of two nothing rounds,
// so "exactly" is equality of doubles, superstep by superstep.
//


static void test_one_level(void) {
  glob_t examples;
  if (glob("examples/*.vec", 0, NULL, &examples) || glob("examples/builtins/*.vec", GLOB_APPEND, NULL, &examples))
    fatal("no examples (run from the project root)");
  CHECK(examples.gl_pathc >= 30, "%zu examples", examples.gl_pathc);
  for (size_t f = 0; f < examples.gl_pathc; f++)
    for (int p = 1; p <= 4; p++) {
      Arena *a = arena_new();
      const char *file = examples.gl_pathv[f];
      Program *prog = load_file(a, file);
      Machine flat = {.name = "flat", .p = p, .g = 2, .l = 1024, .s = 0x1p30, .k = machine_default_constants};
      Machine one = flat;
      one.tree = machine_tree_of_flat(a, &flat);
      const char *params = "n=32 m=24 k=3";
      int64_t *values = params_of(a, prog, params);
      for (int spec = 0; spec < 2; spec++) {
        Plan *pl = cost_plan(prog, values, &flat, spec ? "best" : "paper", false);
        CostResult want = predict(a, prog, params, &flat, pl), got = predict(a, prog, params, &one, pl);
        CHECK(got.seconds == want.seconds && got.nsteps == want.nsteps, "%s p=%d %s: %.17g s on one level, %.17g flat",
              file, p, pl->name, got.seconds, want.seconds);
        // Each superstep: (w + h g + l) / s, the last without its l.
        for (int i = 0; i < got.nsteps && i < want.nsteps; i++) {
          double bsp = (want.steps[i].w + want.steps[i].h * flat.g + (i + 1 < want.nsteps ? flat.l : 0)) / flat.s;
          CHECK(got.steps[i].seconds == bsp, "%s p=%d step %d: %.17g s, want %.17g", file, p, i + 1,
                got.steps[i].seconds, bsp);
        }
      }
      arena_free(a);
    }
  globfree(&examples);
}

// On one level a fold by levels is the flat fold by gather, superstep for
// superstep, but for the scatter: down a level it needs no synchronisation
// (the paper's rule), one barrier's l less than the flat fetch.
static void test_one_level_fold(void) {
  for (int p = 2; p <= 5; p++) {
    Arena *a = arena_new();
    Program *prog = load_text(a, "param n\ninput x : [n]int\nmain = fold (+) x\n");
    Machine flat = {.name = "flat", .p = p, .g = 2, .l = 1024, .s = 0x1p30, .k = machine_default_constants};
    flat.tree = machine_tree_of_flat(a, &flat);
    int64_t *values = params_of(a, prog, "n=1000");
    for (int root = 0; root < 2; root++) {
      const char *in = root ? "inputs=root" : "inputs=block";
      Plan *gather = cost_plan(prog, values, &flat, arena_printf(a, "best,regions=parallel,lanes=1,fold=gather,levels=flat,%s", in), false);
      Plan *levels = cost_plan(prog, values, &flat, arena_printf(a, "best,regions=parallel,lanes=1,levels=follow,%s", in), false);
      CHECK(levels->region[0].levels && !gather->region[0].levels, "p=%d: the plans asked for", p);
      CostResult g = predict(a, prog, "n=1000", &flat, gather), l = predict(a, prog, "n=1000", &flat, levels);
      CHECK(g.W == l.W && g.H == l.H && g.S == l.S, "p=%d %s: W H S %g %g %g by gather, %g %g %g by levels", p, in, g.W,
            g.H, g.S, l.W, l.H, l.S);
      double less = root ? flat.l / flat.s : 0;
      CHECK(l.seconds == g.seconds - less, "p=%d %s: %.17g s by levels, %.17g by gather", p, in, l.seconds, g.seconds);
    }
    arena_free(a);
  }
}

//
// Plans that follow the levels, on a heterogeneous tree: worker 0 and 1
// under master A (c 1 ns), workers 2, 3, 4 under master B (c 2 ns), both
// under the root; 1000 elements, blocks of 200. The expected times are the
// SGL formula worked by hand, level by level.
//

static const char *const tree_ab =
    "{\"name\": \"root\", \"p\": 2, \"g_down\": 3e-9, \"g_up\": 5e-9, \"l\": 7e-6, \"children\": ["
    " {\"name\": \"A\", \"p\": 2, \"g_down\": 1e-10, \"g_up\": 2e-10, \"l\": 3e-7, \"children\": {\"c\": 1e-9}},"
    " {\"name\": \"B\", \"p\": 3, \"g_down\": 4e-10, \"g_up\": 6e-10, \"l\": 5e-7, \"children\": {\"c\": 2e-9}}]}";

enum { AB_N = 1000 };
static const double cA = 1e-9, cB = 2e-9, gdr = 3e-9, gur = 5e-9, lr = 7e-6, gdA = 1e-10, guA = 2e-10, lA = 3e-7,
                    gdB = 4e-10, guB = 6e-10, lB = 5e-7;

// The input on process 0, the region parallel by levels, its result where
// out says.
static Plan *levels_plan(Program *prog, const Machine *m, Layout out, PrefixMethod prefix) {
  IrProgram *ir = lower_program(prog);
  Plan *pl = plan_paper(ir, m->p);
  pl->levels = (PlanLevels){m->tree->rounds, m->tree->lead};
  pl->region[0] = (RegionChoice){.out = out, .prefix = prefix, .lanes = 1, .levels = true};
  pl->block_result = out == LAY_BLOCK;
  plan_finish(pl);
  return pl;
}

static void test_levels(void) {
  Arena *a = arena_new();
  Machine m = tree_machine(a, tree_ab);
  const char *params = "n=1000";
  // Scatter: the root sends B's 600 elements; A sends 200, B 400. No l.
  double down_A = 600 * gdr + 200 * gdA, down_B = 600 * gdr + 400 * gdB;

  // fold (+): each worker folds 200 (199 additions); A gathers 1 partial
  // and adds it, B gathers 2 and adds them, the root gathers B's and adds it.
  Program *fold = load_text(a, "param n\ninput x : [n]int\nmain = fold (+) x\n");
  CostResult r = predict(a, fold, params, &m, levels_plan(fold, &m, LAY_ROOT, PREFIX_STORE));
  double A = 1 * cA + 199 * cA + 200 * gdA + 1 * guA + lA, B = 2 * cB + 199 * cB + 400 * gdB + 2 * guB + lB;
  double want = 1 * cA + fmax(A, B) + 600 * gdr + 1 * gur + lr;
  CHECK(close_to(r.seconds, want), "fold by levels: %.17g s, the formula %.17g", r.seconds, want);
  double leaves_A[] = {199 * cA, 199 * cA}, leaves_B[] = {199 * cB, 199 * cB, 199 * cB}, nodes[2];
  nodes[0] = sgl_superstep(m.tree->root->child[0], 1, leaves_A, 2, 200, 1);
  nodes[1] = sgl_superstep(m.tree->root->child[1], 2, leaves_B, 3, 400, 2);
  CHECK(close_to(r.seconds, sgl_superstep(m.tree->root, 1, nodes, 2, 600, 1)), "fold by levels: sgl_superstep");
  static const double fold_h[] = {600, 400, 2, 1, 0};  // fetch down 2 rounds, partials up 2, end
  CHECK(r.nsteps == 5 && r.S == 4, "fold: %d steps", r.nsteps);
  for (int i = 0; i < r.nsteps && i < 5; i++) CHECK(r.steps[i].h == fold_h[i], "fold step %d: h %g", i + 1, r.steps[i].h);

  // map, gathered up the levels: A receives 200 words, B 400, the root 600.
  Program *map = load_text(a, "param n\ninput x : [n]int\nmain = map (\\y -> y * y + 1) x\n");
  r = predict(a, map, params, &m, levels_plan(map, &m, LAY_ROOT, PREFIX_STORE));
  want = fmax(down_A + 400 * cA + 200 * guA + lA, down_B + 400 * cB + 400 * guB + lB) + 600 * gur + lr;
  CHECK(close_to(r.seconds, want), "map by levels: %.17g s, the formula %.17g", r.seconds, want);

  // prefix (+), stored, left distributed: each worker scans 200 (199).
  // Up: A gets 1 total and adds it (1), B gets 2 (2 additions), the root
  // gets B's (and adds nothing: nothing needs the whole total). Down: the
  // root sends B A's total (no addition: it is the first); A sends 1 its
  // block total (none), B sends 3 A's total plus its block (1) and 4 that
  // plus 3's (1). Then 1 to 4 add their offset to 200 elements.
  Program *prefix = load_text(a, "param n\ninput x : [n]int\nmain = prefix (+) x\n");
  r = predict(a, prefix, params, &m, levels_plan(prefix, &m, LAY_BLOCK, PREFIX_STORE));
  double up_A = down_A + 199 * cA + 1 * guA + lA, up_B = down_B + 199 * cB + 2 * guB + lB;
  double root = fmax(up_A + 1 * cA, up_B + 2 * cB) + 1 * gur + lr + 1 * gdr;
  want = fmax(root + 1 * gdA + 200 * cA, root + 2 * cB + 2 * gdB + 200 * cB);
  CHECK(close_to(r.seconds, want), "prefix by levels: %.17g s, by hand %.17g", r.seconds, want);
  CHECK(r.W == 199 + 2 + 0 + 2 + 200, "prefix W %g", r.W);
  arena_free(a);
}

// dh by levels: the butterfly's rounds whose partners lie within one node
// synchronise each node apart, at its master's costs. On 2 ranks x 2
// threads, 16 elements, blocks of 4: each worker's dh of its block (2
// stages of 4 operations), round 1 with its node's other thread (4 words
// each way, 4 operations), round 2 with the other node's (the same at the
// root's costs). Within a group the exchange is an h-relation at the
// master's slower per-word time (docs/hierarchical.md, "dh").
static void test_dh_levels(void) {
  Arena *a = arena_new();
  Machine m = tree_machine(a, tree_2x2);
  Program *dh = load_text(a, "param n\ninput x : [n]int\nmain = dh (+) (-) x\n");
  int64_t *n = params_of(a, dh, "n=16");
  Plan *pl = cost_plan(dh, n, &m, "best,regions=parallel,inputs=block,result=block,levels=follow", true);
  CHECK(pl->region[0].levels, "dh by levels");
  CostResult r = predict(a, dh, "n=16", &m, pl);
  double c = 2.5e-10, node = 4 * 3e-10 + 2e-7, root = 4 * 2e-9 + 5e-6;
  double want = 8 * c + node + 4 * c + root + 4 * c;
  CHECK(close_to(r.seconds, want), "dh by levels: %.17g s, by hand %.17g", r.seconds, want);
  CHECK(r.nsteps == 3 && r.steps[0].exact->way == LEVEL_WITHIN && r.steps[0].exact->round == 0 &&
            r.steps[1].exact->round == 1, "dh's rounds: within the nodes, then at the root");
  // On one level, dh by levels is the flat butterfly, superstep for superstep.
  for (int p = 2; p <= 8; p *= 2) {
    Machine flat = {.name = "flat", .p = p, .g = 2, .l = 1024, .s = 0x1p30, .k = machine_default_constants};
    flat.tree = machine_tree_of_flat(a, &flat);
    Plan *levels = cost_plan(dh, n, &flat, "best,regions=parallel,inputs=block,result=block,levels=follow", true);
    Plan *butterfly = cost_plan(dh, n, &flat, "best,regions=parallel,inputs=block,result=block,levels=flat", true);
    CostResult l = predict(a, dh, "n=16", &flat, levels), b = predict(a, dh, "n=16", &flat, butterfly);
    CHECK(levels->region[0].levels && l.seconds == b.seconds && l.W == b.W && l.H == b.H && l.S == b.S,
          "p=%d: dh by levels %.17g s, flat %.17g s", p, l.seconds, b.seconds);
  }
  arena_free(a);
}

//
// The planner: on a tree whose inner level is fast, a gathered map goes up
// the levels; held to flat regions it does not, and is predicted slower.
//

typedef struct PlanTry {
  Program *prog;
  int64_t *params;
  const Machine *m;
} PlanTry;

static void try_plan(void *ctx) {
  PlanTry *t = ctx;
  cost_plan(t->prog, t->params, t->m, "best", false);
}

static void test_planner(void) {
  Arena *a = arena_new();
  Machine m = tree_machine(a, "{\"p\": 2, \"g\": 2e-9, \"l\": 5e-6, \"children\": {\"p\": 2, \"g\": 1e-10, \"l\": 2e-7,"
                              " \"children\": {\"c\": 1e-8}}}");
  Program *map = load_text(a, "param n\ninput x : [n]int\nmain = map (\\y -> y * y + 1) x\n");
  int64_t *n = params_of(a, map, "n=100000");
  Plan *best = cost_plan(map, n, &m, "best,inputs=root", false), *flat = cost_plan(map, n, &m, "best,inputs=root,levels=flat", false);
  CHECK(best->region[0].levels && !best->region[0].alone && !flat->region[0].levels, "the map by levels");
  double t_best = cost_plan_seconds(map, n, best, &m), t_flat = cost_plan_seconds(map, n, flat, &m);
  // Flat: 75000 words scattered and gathered through process 0 at the
  // network's 2 ns; by levels 50000 of them, the rest at 0.1 ns.
  CHECK(t_best < t_flat, "by levels %g s, flat %g s", t_best, t_flat);
  // Its plans are for its 4 workers.
  Machine three = m;
  three.p = 3;
  PlanTry bad = {map, n, &three};
  CHECK(!diag_attempt(try_plan, &bad, true) && strstr(diag_last_error, "hierarchical with 4 workers: its plans and costs are for p = 4, not 3"),
        "p = 3: %s", diag_last_error);
  arena_free(a);
}

static const TestGroup groups[] = {
    {"formula", test_formula}, {"dh", test_dh}, {"files", test_files},   {"one-level", test_one_level},
    {"one-level-fold", test_one_level_fold}, {"levels", test_levels}, {"dh-levels", test_dh_levels},
    {"planner", test_planner},
};

int main(int argc, char **argv) { return run_groups(groups, sizeof groups / sizeof *groups, argc, argv); }
