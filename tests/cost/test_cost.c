// test_cost.c: the cost analyser's tests, one group per ctest test
// (cost_test GROUP, run from the project root): the papers' formulas for
// both matrix-vector algorithms, every builtin's cost computed by hand in
// both models, the exact model against independent block formulas, closed
// forms, static errors, the hash-consing, the plan and what calibration
// counts and fits.
#include "cost/costint.h"
#include "cost/cost.h"
#include "eval/eval.h"
#include "testing.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool close_to(double x, double want) { return fabs(x - want) <= 1e-9 * fmax(1, fabs(want)); }

//
// Loading and analysing.
//

// Params by name from "n=10 m=3" (missing ones are 0).
static int64_t *params_of(Arena *a, Program *prog, const char *spec) { return params_named(a, prog, spec, 0); }

static CostResult analyse(Arena *a, Program *prog, const char *params, CostModel model, int p) {
  CostRequest req = {.prog = prog, .params = params_of(a, prog, params), .model = model,
                     .machine = machine_select(a, NULL), .plan_spec = "paper"};
  req.machine.p = p;
  return cost_analyse(a, &req);
}

// The exact model under the plan --plan spec asks for.
static CostResult analyse_plan(Arena *a, Program *prog, const char *params, const char *spec, int p) {
  CostRequest req = {.prog = prog, .params = params_of(a, prog, params), .model = MODEL_EXACT,
                     .machine = machine_select(a, "local"), .plan_spec = spec};
  req.machine.p = p;
  return cost_analyse(a, &req);
}

static CostResult symbolic(Arena *a, Program *prog) {
  CostRequest req = {.prog = prog, .params = params_of(a, prog, ""), .model = MODEL_PAPER,
                     .machine = machine_select(a, NULL), .closed_form = true};
  return cost_analyse(a, &req);
}

// The first line the analysis prints on stderr, or "" when it succeeds.
static char *first_error(Arena *a, const char *text, const char *params, bool closed_form) {
  fflush(stderr);
  int saved = dup(2);
  FILE *tmp = tmpfile();
  dup2(fileno(tmp), 2);
  DiagTrap trap;
  if (DIAG_TRY(&trap)) {
    Program *prog = load_text(a, text);
    CostRequest req = {.prog = prog, .params = params_of(a, prog, params), .model = MODEL_PAPER,
                       .machine = machine_select(a, NULL), .closed_form = closed_form};
    cost_analyse(a, &req);
    diag_untrap(&trap);
  }
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  char line[1024] = "";
  rewind(tmp);
  if (!fgets(line, sizeof line, tmp)) line[0] = '\0';
  fclose(tmp);
  line[strcspn(line, "\n")] = '\0';
  return arena_strndup(a, line, strlen(line));
}

//
// The matrix-vector algorithms against the papers' hand analyses.
//

static const int64_t sizes[] = {1, 2, 3, 5, 8, 13, 64, 100, 999, 1000, 4096};
static const int procs[] = {1, 2, 3, 4, 7, 8, 16, 64};
enum { NSIZES = sizeof sizes / sizeof *sizes, NPROCS = sizeof procs / sizeof *procs };

static void test_matvec_paper(void) {
  Arena *a = arena_new();
  Program *mv1 = load_file(a, "examples/matvec1.vec"), *mv2 = load_file(a, "examples/matvec2.vec");
  for (int i = 0; i < NSIZES; i++)
    for (int j = 0; j < NSIZES; j++)
      for (int k = 0; k < NPROCS; k++) {
        double m = (double)sizes[i], n = (double)sizes[j], p = procs[k];
        char *params = arena_printf(a, "m=%lld n=%lld", (long long)sizes[i], (long long)sizes[j]);
        CostResult r = analyse(a, mv1, params, MODEL_PAPER, procs[k]);
        CHECK(close_to(r.W, (2 * n - 1) * m / p), "(1) %s p=%d: W = %g", params, procs[k], r.W);
        CHECK(close_to(r.H, (m * n + m + n * p) * (p - 1) / p), "(1) %s p=%d: H = %g", params, procs[k], r.H);
        CHECK(r.S == 2, "(1) %s p=%d: S = %g", params, procs[k], r.S);
        r = analyse(a, mv2, params, MODEL_PAPER, procs[k]);
        CHECK(close_to(r.W, m * n / p + m * (n / p - 1) + m * (p - 1)), "(2) %s p=%d: W = %g", params, procs[k], r.W);
        CHECK(close_to(r.H, (m * n + n) * (p - 1) / p + m * (p - 1)), "(2) %s p=%d: H = %g", params, procs[k], r.H);
        CHECK(r.S == 2, "(2) %s p=%d: S = %g", params, procs[k], r.S);
        CHECK(close_to(r.ops, r.W + 1.6 * r.H + 67150 * r.S) && close_to(r.seconds, r.ops / 13e6),
              "(2) %s p=%d: ops %g", params, procs[k], r.ops);
      }
  arena_free(a);
}

// The exact model of the matrix-vector algorithms: the same supersteps
// with integer blocks, computed independently here.
static int64_t block(int64_t n, int p, int k) { return (int64_t)((__int128)(k + 1) * n / p) - (int64_t)((__int128)k * n / p); }

static void test_matvec_exact(void) {
  Arena *a = arena_new();
  Program *mv1 = load_file(a, "examples/matvec1.vec"), *mv2 = load_file(a, "examples/matvec2.vec");
  for (int i = 0; i < NSIZES; i++)
    for (int j = 0; j < NSIZES; j++)
      for (int k = 0; k < NPROCS; k++) {
        int64_t m = sizes[i], n = sizes[j];
        int p = procs[k];
        char *params = arena_printf(a, "m=%lld n=%lld", (long long)m, (long long)n);
        int64_t big_m = block(m, p, p - 1), rest_m = m - block(m, p, 0);  // the largest block is the last
        CostResult r = analyse(a, mv1, params, MODEL_EXACT, p);
        if (p == 1) {  // no barrier: one superstep with all the work (docs/compiler.md)
          CHECK(r.nsteps == 1 && r.S == 0 && r.H == 0 && r.W == (double)(m * (2 * n - 1)), "(1) exact %s p=1", params);
          r = analyse(a, mv2, params, MODEL_EXACT, p);
          CHECK(r.nsteps == 1 && r.S == 0 && r.H == 0 && r.W == (double)(n * m + (n - 1) * m), "(2) exact %s p=1", params);
          continue;
        }
        // fetch: v to every worker and their rows; local rows; one word per row back.
        double h1 = (double)((p - 1) * n + rest_m * n);
        CHECK(r.nsteps == 3 && r.steps[0].h == h1 && r.steps[1].w == (double)(big_m * (2 * n - 1)) &&
                  r.steps[1].h == (double)rest_m && r.S == 2,
              "(1) exact %s p=%d", params, p);
        int64_t big_n = block(n, p, p - 1), rest_n = n - block(n, p, 0);
        int nonempty = 0, senders;  // processes with rows; those but 0 send partial results
        for (int q = 0; q < p; q++) nonempty += block(n, p, q) > 0;
        senders = nonempty - (block(n, p, 0) > 0);
        r = analyse(a, mv2, params, MODEL_EXACT, p);
        // fetch: rows of L and elements of v; local scale and fold; partial vectors to 0; 0 adds them.
        CHECK(r.nsteps == 3 && r.steps[0].h == (double)(rest_n * (m + 1)) &&
                  r.steps[1].w == (double)(big_n * m + (big_n - 1) * m) &&
                  r.steps[1].h == (double)(senders * m) && r.steps[2].w == (double)((nonempty - 1) * m),
              "(2) exact %s p=%d: %g %g %g %g", params, p, r.steps[0].h, r.steps[1].w, r.steps[1].h, r.steps[2].w);
      }
  arena_free(a);
}

//
// Every builtin on small shapes, computed by hand (docs/cost-model.md has
// the rules): x has 10 elements on 4 processes, blocks of 2, 3, 2, 3.
//

typedef struct Hand {
  const char *program;  // after "param n m\ninput x : [n]int\ninput y : [m]int\ninput M : [n][m]int\n"
  const char *params;
  int p;
  double W, H, S;             // exact model
  double pW, pH, pS;          // paper model
} Hand;

static const Hand hands[] = {
    {"main = map (\\v -> v + 1) x", "n=10 m=3", 4, 3, 16, 2, 2.5, 15, 2},
    {"main = fold (+) x", "n=10 m=3", 4, 5, 11, 2, 4.5, 10.5, 2},
    {"main = prefix (+) x", "n=10 m=3", 4, 7, 19, 3, 6, 18, 5},
    {"main = inits x", "n=10 m=3", 4, 0, 75, 3, 0, 67, 5},
    {"main = tails x", "n=10 m=3", 4, 0, 76, 3, 0, 67, 5},
    {"main = c_prod (\\a b -> a * b) y x", "n=10 m=3", 4, 9, 41, 2, 7.5, 39, 2},
    {"main = pair_map (+) (x, x)", "n=10 m=3", 4, 3, 24, 2, 2.5, 22.5, 2},
    {"main = iter (\\v -> v * 2) 1 10", "n=10 m=3", 4, 10, 0, 0, 10, 0, 0},
    {"main = hd (tl x) + length x + entry x 3 + fst (1, 2) + snd (3, 4)", "n=10 m=3", 4, 4, 0, 0, 4, 0, 0},
    {"main = fold (+) (redconcat (map (\\r -> map (\\v -> v + 1) r) M))", "n=2 m=3", 2, 6, 10, 4, 6, 10, 4},
    {"main = if hd x > 0 then fold (+) x else 0", "n=10 m=3", 4, 10, 0, 0, 5.5, 10.5, 2},
    // A branch that faults if taken: the paper model keeps the other one, the
    // exact model counts both, count by count (a bound).
    {"main = if hd x > 0 then hd (tl (dummyvec (1, 1))) + fold max x else fold (+) x", "n=10 m=3", 4, 11, 0, 0, 5.5,
     10.5, 2},
    {"main = let s = fold (+) x in map (\\v -> v + s) x", "n=10 m=3", 4, 8, 30, 4, 7, 28.5, 4},
    {"main = map (\\r -> fold (+) r) (dummyvec (n, dummyvec (m, 1)))", "n=10 m=3", 4, 6, 32, 2, 5, 30, 2},
    {"main = iter (map (\\v -> v + 1)) x 3", "n=10 m=3", 4, 9, 48, 6, 7.5, 45, 6},
    {"main = fold (+) (map (\\v -> v * v) x)", "n=10 m=3", 4, 8, 11, 2, 7, 10.5, 2},
    {"main = map (\\v -> v + 1) (tl x)", "n=10 m=3", 4, 3, 14, 2, 2.25, 13.5, 2},
    // float is an operation; iota n a vector made on process 0 (the papers'
    // template), at no operation; a pattern costs nothing.
    {"main = map (\\v -> float v / 2.0) x", "n=10 m=3", 4, 6, 16, 2, 5, 15, 2},
    {"main = fold (+) (map (\\i -> i * 2) (iota n))", "n=10 m=3", 4, 8, 11, 2, 7, 10.5, 2},
    {"main = fold (\\(a, b) (c, d) -> (a + c, b)) (map (\\v -> (v, v)) x)", "n=10 m=3", 4, 5, 14, 2, 4.5, 13.5, 2},
    // A fold whose operator grows what it combines (docs/cost-model.md, "Folds
    // and prefixes that change shape"): partials of 3, 2 and 3 elements to
    // process 0, in the exact model as blocks (their lengths in the tags).
    {"main = fold (\\a b -> redconcat [a, b]) (map (\\v -> [v]) x)", "n=10 m=3", 4, 0, 16, 2, 0, 15.5, 2},
    // zip is pair_map building pairs (no operation; two words each); merge
    // compares once per element of its result; split and reverse rearrange
    // (no operation).
    {"main = zip x x", "n=10 m=3", 4, 0, 32, 2, 0, 30, 2},
    {"main = map2 (+) x x", "n=10 m=3", 4, 3, 24, 2, 2.5, 22.5, 2},
    {"main = merge x y", "n=10 m=3", 4, 13, 0, 0, 13, 0, 0},
    {"main = length (split 3 x) + length (reverse x)", "n=10 m=3", 4, 1, 0, 0, 1, 0, 0},
    // neighbours in the region with the map: x scattered (8 words), the
    // blocks' ends exchanged (processes 1 and 2 send and receive 2), the map
    // (2 operations on the 3 elements of a block), the result gathered (8).
    // The paper model broadcasts the ends (2 words to 3 processes) with its
    // scatter of 7.5 and exchanges 2 words; triples cost nothing (pair = 0).
    {"main = map (\\(a, (b, c)) -> a + b + c) (neighbours 0 0 x)", "n=10 m=3", 4, 6, 18, 3, 5, 23, 3},
    // dh on 8 elements: at p = 4 one local stage of one pair on each block
    // of 2, then two rounds of 2 words and 2 applications; at p = 3 the
    // exact model gathers the blocks to process 0, which runs the 3 stages
    // of 4 pairs, and scatters the result (the paper model, as the SGL
    // paper, assumes a power of two: its real blocks of 8/3).
    {"main = dh (+) (-) x", "n=8 m=3", 4, 6, 16, 4, 6, 16, 4},
    {"main = dh (+) (-) x", "n=8 m=3", 3, 24, 24, 4, 8, 16, 4},
    // Skeletons inside a skeleton's function, sequential on each row.
    {"main = map (\\r -> prefix (+) r) M", "n=10 m=3", 4, 6, 48, 2, 5, 45, 2},
    {"main = map (\\r -> c_prod (\\a b -> a + b) r r) M", "n=2 m=3", 2, 9, 15, 2, 9, 12, 2},
    {"main = map (\\r -> length (inits r) + length (tails r)) M", "n=2 m=3", 2, 1, 4, 2, 1, 4, 2},
    {"main = map (\\r -> fold (+) (map (\\v -> v * 2) r)) M", "n=2 m=3", 2, 5, 4, 2, 5, 4, 2},
};

static void test_builtins(void) {
  for (size_t i = 0; i < sizeof hands / sizeof *hands; i++) {
    const Hand *t = &hands[i];
    Arena *a = arena_new();
    Program *prog = load_text(a, arena_printf(a, "param n m\ninput x : [n]int\ninput y : [m]int\n"
                                                 "input M : [n][m]int\n%s\n", t->program));
    CostResult r = analyse(a, prog, t->params, MODEL_EXACT, t->p);
    CHECK(r.W == t->W && r.H == t->H && r.S == t->S, "exact %s: W %g H %g S %g, want %g %g %g", t->program, r.W,
          r.H, r.S, t->W, t->H, t->S);
    r = analyse(a, prog, t->params, MODEL_PAPER, t->p);
    CHECK(close_to(r.W, t->pW) && close_to(r.H, t->pH) && r.S == t->pS, "paper %s: W %g H %g S %g, want %g %g %g",
          t->program, r.W, r.H, r.S, t->pW, t->pH, t->pS);
    arena_free(a);
  }
}

//
// The exact model against independent block formulas for n mod p != 0.
//

static void test_exact_blocks(void) {
  Arena *a = arena_new();
  Program *mp = load_text(a, "param n\ninput x : [n]int\nmain = map (\\v -> v * v + 1) x\n");
  Program *fd = load_text(a, "param n\ninput x : [n]int\nmain = fold max x\n");
  Program *px = load_text(a, "param n\ninput x : [n]int\nmain = prefix (+) x\n");
  for (int64_t n = 1; n <= 40; n++)
    for (int p = 1; p <= 12; p++) {
      char *params = arena_printf(a, "n=%lld", (long long)n);
      int64_t most = 0, rest = n - block(n, p, 0);
      int nonempty = 0;
      for (int k = 0; k < p; k++) {
        if (block(n, p, k) > most) most = block(n, p, k);
        nonempty += block(n, p, k) > 0;
      }
      CostResult r = analyse(a, mp, params, MODEL_EXACT, p);
      int barriers = p > 1 ? 2 : 0;  // at p = 1 a region runs no barrier
      CHECK(r.W == (double)(2 * most) && r.H == (double)(2 * rest) && r.S == barriers, "map n=%lld p=%d", (long long)n, p);
      r = analyse(a, fd, params, MODEL_EXACT, p);
      int senders = nonempty - (block(n, p, 0) > 0);
      CHECK(r.W == (double)(most - 1 + nonempty - 1) && r.H == (double)(rest + senders) && r.S == barriers,
            "fold n=%lld p=%d: W %g H %g", (long long)n, p, r.W, r.H);
      // prefix: k-th non-empty block waits for the totals of the earlier ones.
      double w2 = 0, totals = 0;
      int before = 0;
      for (int k = 0; k < p; k++) {
        int64_t len = block(n, p, k);
        if (!len) continue;
        if (before) w2 = fmax(w2, (double)(before - 1 + len));
        totals = fmax(totals, fmax(nonempty - before - 1, before));
        before++;
      }
      r = analyse(a, px, params, MODEL_EXACT, p);
      CHECK(r.W == (double)(most - 1) + w2 && r.H == (double)(2 * rest) + totals && r.S == (p > 1 ? 3 : 0),
            "prefix n=%lld p=%d: W %g H %g", (long long)n, p, r.W, r.H);
    }
  arena_free(a);
}

//
// The alternatives, computed by hand: x has 10 elements on 4 processes, in
// blocks of 2, 3, 2 and 3, loaded by blocks (docs/compiler.md, "Steps").
//

typedef struct AltHand {
  const char *program;  // after "param n\ninput x : [n]int\n"
  const char *spec;     // --plan
  double W, H, S;
} AltHand;

static const AltHand alt_hands[] = {
    // The local folds (2 operations at most), the 3 partials to process 0,
    // which adds them (3).
    {"main = fold (+) x", "best,inputs=block,regions=parallel,fold=gather,lanes=1", 5, 3, 1},
    // Every process sends its partial to the 3 others and adds the 4 (3).
    {"main = fold (+) x", "best,inputs=block,regions=parallel,fold=allreduce,lanes=1", 5, 3, 1},
    // Two rounds: 1 to 0 and 3 to 2 (an addition each), then 2 to 0 (one more).
    {"main = fold (+) x", "best,inputs=block,regions=parallel,fold=tree,lanes=1", 4, 2, 2},
    // Lanes need 8 elements a process: the blocks fold as with one.
    {"main = fold (+) x", "best,inputs=block,regions=parallel,fold=gather,lanes=4", 5, 3, 1},
    // Sequentially on process 0: the whole input gathered first (8 words to 0).
    {"main = fold (+) x", "best,inputs=block,regions=sequential", 9, 8, 1},
    // The local prefix (2); totals 0 to 1, 2, 3, 1 to 2, 3 and 2 to 3 (3
    // received by 3); process 3 combines 2 totals (1), applies them (3) and
    // folds (2); the partials to 0 (3), which folds them (3).
    {"main = fold max (prefix (+) x)", "best,inputs=block,regions=parallel,prefix=store,fold=gather,lanes=1", 12, 6, 2},
    // The same counted with the prefix run again from the totals: its
    // first pass folds (2), its second prefixes from the total (3).
    {"main = fold max (prefix (+) x)", "best,inputs=block,regions=parallel,prefix=recompute,fold=gather,lanes=1", 12, 6, 2},
};

static void test_alternatives(void) {
  for (size_t i = 0; i < sizeof alt_hands / sizeof *alt_hands; i++) {
    const AltHand *t = &alt_hands[i];
    Arena *a = arena_new();
    Program *prog = load_text(a, arena_printf(a, "param n\ninput x : [n]int\n%s\n", t->program));
    CostResult r = analyse_plan(a, prog, "n=10", t->spec, 4);
    CHECK(r.W == t->W && r.H == t->H && r.S == t->S, "%s under %s: W %g H %g S %g, want %g %g %g", t->program,
          t->spec, r.W, r.H, r.S, t->W, t->H, t->S);
    arena_free(a);
  }
}

// neighbours in parallel, its input by blocks and its result left there,
// counted by hand at p = 4: one barrier, after which each process applies
// the map (2 operations an element) to its block. Blocks of n = 10: 2, 3,
// 2, 3 (processes 1 and 2 send and receive two ends); n = 3: 0, 1, 1, 1
// (process 2 exchanges with 1 and 3; process 0 is skipped); n = 1: only
// process 3 holds an element (nothing sent); rows of 2 words: 4 words.
static void test_neighbours(void) {
  static const struct {
    const char *program, *params;
    double W, H, S;
  } hand[] = {
      {"main = map (\\(a, (b, c)) -> a * b - c) (neighbours 5 7 x)", "n=10", 6, 2, 1},
      {"main = map (\\(a, (b, c)) -> a * b - c) (neighbours 5 7 x)", "n=3", 2, 2, 1},
      {"main = map (\\(a, (b, c)) -> a * b - c) (neighbours 5 7 x)", "n=1", 2, 0, 1},
      {"main = map (\\(a, (b, c)) -> a * b - c) (neighbours 5 7 x)", "n=0", 0, 0, 1},
      {"main = neighbours [1, 2] [3, 4] (map (\\v -> [v, v + 1]) x)", "n=10", 3, 4, 1},
  };
  for (size_t i = 0; i < sizeof hand / sizeof *hand; i++) {
    Arena *a = arena_new();
    Program *prog = load_text(a, arena_printf(a, "param n\ninput x : [n]int\n%s\n", hand[i].program));
    CostResult r = analyse_plan(a, prog, hand[i].params, "best,inputs=block,regions=parallel,result=block", 4);
    CHECK(r.W == hand[i].W && r.H == hand[i].H && r.S == hand[i].S, "%s at %s: W %g H %g S %g, want %g %g %g",
          hand[i].program, hand[i].params, r.W, r.H, r.S, hand[i].W, hand[i].H, hand[i].S);
    arena_free(a);
  }
}

// Without a margin, the planner's choice is never predicted slower than a
// plan it could have chosen: every combination of the settings that
// restrict it, each planned within its restriction (a brute force over the
// alternatives). With the default margin, it is slower only by a plan on p
// processes set aside for a one-process plan less than the margin slower.
static void test_planner(void) {
  static const char *const programs[][2] = {
      {"examples/mss5.vec", "n=100000"}, {"examples/mss4.vec", "n=300"}, {"examples/matvec1.vec", "m=300 n=300"},
      {"examples/matvec2.vec", "m=8 n=20000"}, {"examples/mss2.vec", "n=100"}};
  static const char *const folds[] = {"gather", "tree", "allreduce"}, *const prefixes[] = {"store", "recompute"};
  static const char *const regions[] = {"parallel", "sequential"}, *const inputs[] = {"root", "all", "block"};
  for (size_t f = 0; f < sizeof programs / sizeof *programs; f++)
    for (int p = 2; p <= 4; p += 2) {
      Arena *a = arena_new();
      Program *prog = load_file(a, programs[f][0]);
      const int64_t *params = params_of(a, prog, programs[f][1]);
      Machine m = machine_select(a, "local");
      m.p = p;
      double best = cost_plan_seconds(prog, params, cost_plan(prog, params, &m, "best,margin=0", false), &m), least = best;
      for (int i = 0; i < 3 * 2 * 2 * 3 * 2; i++) {
        char *spec = arena_printf(a, "best,fold=%s,prefix=%s,regions=%s,inputs=%s,lanes=%d,margin=0", folds[i % 3],
                                  prefixes[i / 3 % 2], regions[i / 6 % 2], inputs[i / 12 % 3], i / 36 % 2 ? 4 : 1);
        least = fmin(least, cost_plan_seconds(prog, params, cost_plan(prog, params, &m, spec, false), &m));
      }
      CHECK(best <= least * 1.01, "%s %s p=%d: the planner's %g s, a restricted plan's %g s", programs[f][0],
            programs[f][1], p, best, least);
      Plan *chosen = cost_plan(prog, params, &m, "best", false);
      double margined = cost_plan_seconds(prog, params, chosen, &m);
      CHECK(margined <= best * 1.0001 || (plan_one_process(chosen) && best >= margined * (1 - PLAN_MARGIN) * 0.9999),
            "%s %s p=%d: the planner's %g s with its margin, %g s without", programs[f][0], programs[f][1], p, margined,
            best);
      arena_free(a);
    }
}

//
// Closed forms: the printed expressions, and their values against the
// numeric paper model.
//

// The printed forms read back: numbers, names (a parameter, p, log2(p),
// a name the forms define), + - * / ^, parentheses, floor() and ceil().
typedef struct Names {
  const char *name[32];
  double value[32];
  int n;
} Names;

static void name_set(Names *t, const char *name, double v) {
  for (int i = 0; i < t->n; i++)
    if (strcmp(t->name[i], name) == 0) {
      t->value[i] = v;
      return;
    }
  t->name[t->n] = name, t->value[t->n++] = v;
}

typedef struct Expr {
  const char *s;   // the rest of the text
  Names *names;
} Expr;

static double expr_sum(Expr *e);

static double expr_name(Expr *e) {
  size_t len = strspn(e->s, "abcdefghijklmnopqrstuvwxyz0123456789");
  if (strncmp(e->s, "log2(p)", 7) == 0) len = 7;
  for (int i = 0; i < e->names->n; i++)
    if (strlen(e->names->name[i]) == len && strncmp(e->names->name[i], e->s, len) == 0) {
      e->s += len;
      return e->names->value[i];
    }
  printf("FAIL: unknown name in %s\n", e->s);
  failures++;
  e->s += len;
  return 0;
}

static double expr_atom(Expr *e) {
  while (*e->s == ' ') e->s++;
  bool fl = strncmp(e->s, "floor(", 6) == 0, ce = strncmp(e->s, "ceil(", 5) == 0;
  if (fl || ce) e->s += fl ? 5 : 4;
  if (*e->s == '(') {
    e->s++;
    double v = expr_sum(e);
    e->s++;  // ')'
    return fl ? floor(v) : ce ? ceil(v) : v;
  }
  if (*e->s >= 'a' && *e->s <= 'z') return expr_name(e);
  char *end;
  double v = strtod(e->s, &end);
  e->s = end;
  return v;
}

static double expr_power(Expr *e) {
  double v = expr_atom(e);
  if (*e->s == '^') {
    e->s++;
    v = pow(v, expr_atom(e));
  }
  return v;
}

static double expr_product(Expr *e) {
  double v = expr_power(e);
  for (;;) {
    while (*e->s == ' ') e->s++;
    if (*e->s == '*') e->s++, v *= expr_power(e);
    else if (*e->s == '/') e->s++, v /= expr_power(e);
    else return v;
  }
}

static double expr_sum(Expr *e) {
  while (*e->s == ' ') e->s++;
  double sign = 1;
  if (*e->s == '-') e->s++, sign = -1;
  double v = sign * expr_product(e);
  for (;;) {
    while (*e->s == ' ') e->s++;
    if (*e->s == '+') e->s++, v += expr_product(e);
    else if (*e->s == '-') e->s++, v -= expr_product(e);
    else return v;
  }
}

static double eval_form(const char *form, Names *names) {
  Expr e = {form, names};
  return expr_sum(&e);
}

// The names the forms define ("where"), in order: "c1 = ceil(...)", or
// "r1 = max{r <= ROWS : T <= M}", the largest r with T(r) <= M, by search.
static void eval_definitions(Arena *a, const char *where, Names *names) {
  for (const char *s = where; s && *s;) {
    size_t len = strcspn(s, "\n");
    char *line = arena_strndup(a, s, len), *eq = strstr(line, " = ");
    s += len + (s[len] == '\n');
    *eq = '\0';
    char *def = eq + 3;
    if (strncmp(def, "max{r <= ", 9) != 0) {
      name_set(names, line, eval_form(def, names));
      continue;
    }
    char *colon = strstr(def, " : "), *le = strstr(colon, " <= ");
    *colon = *le = '\0';
    le[4 + strlen(le + 4) - 1] = '\0';  // the closing brace
    double rows = eval_form(def + 9, names), r = 0;
    for (double k = 0; k <= rows; k++) {
      name_set(names, "r", k);
      if (eval_form(colon + 3, names) <= eval_form(le + 4, names)) r = k;
    }
    name_set(names, line, r);
  }
}

static void test_symbolic(void) {
  Arena *a = arena_new();
  // Horner's rule by iter with an index counter: the counter, a size at
  // every step, is data to a count in closed form.
  Program *horner = load_text(a, "param n\ninput c : [n]int\ninput x : int\n"
                                 "main = fst (iter (\\p -> (fst p * x + entry c (snd p), snd p + 1)) (0, 0) n)\n");
  CostResult h = symbolic(a, horner);
  CHECK(strcmp(h.W_form, "3*n") == 0 && strcmp(h.S_form, "0") == 0, "Horner: W = %s, S = %s", h.W_form, h.S_form);
  struct {
    const char *file, *W, *H, *S;
  } forms[] = {
      {"examples/matvec1.vec", "(2*m*n - m)/p", "(m*n + n*p + m)*(p - 1)/p", "2"},
      {"examples/matvec2.vec", "(m*p^2 + 2*m*n - 2*m*p)/p", "(m*n + m*p + n)*(p - 1)/p", "2"},
      {"examples/mss5.vec", NULL, NULL, "log2(p) + 3"},
  };
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
    Program *prog = load_file(a, forms[i].file);
    CostResult r = symbolic(a, prog);
    CHECK(!forms[i].W || strcmp(r.W_form, forms[i].W) == 0, "%s: W = %s", forms[i].file, r.W_form);
    CHECK(!forms[i].H || strcmp(r.H_form, forms[i].H) == 0, "%s: H = %s", forms[i].file, r.H_form);
    CHECK(strcmp(r.S_form, forms[i].S) == 0, "%s: S = %s", forms[i].file, r.S_form);
    // The closed forms evaluate to the numeric analysis.
    for (int p = 1; p <= 16; p *= 2)
      for (int64_t n = 16; n <= 4096; n *= 4) {
        Names vals = {0};
        name_set(&vals, "m", 24), name_set(&vals, "n", (double)n), name_set(&vals, "p", p);
        name_set(&vals, "log2(p)", log2(p));
        CostResult num = analyse(a, prog, arena_printf(a, "m=24 n=%lld", (long long)n), MODEL_PAPER, p);
        CHECK(close_to(eval_form(r.W_form, &vals), num.W) && close_to(eval_form(r.H_form, &vals), num.H) &&
                  close_to(eval_form(r.S_form, &vals), num.S),
              "%s at n=%lld p=%d: %s = %g, numeric %g", forms[i].file, (long long)n, p, r.W_form,
              eval_form(r.W_form, &vals), num.W);
      }
  }
  arena_free(a);
}

// A program's closed forms against the numeric paper model at n = 1..nmax
// (every n to 20, then every 17th, a different residue at each p) and
// p = 1..16, or every n with full. Where the forms' conditions fail, the
// case --symbolic prints: the analysis with n given. Some points also read
// the printed forms back.
static void check_closed(Arena *a, Program *prog, int64_t nmax, bool full) {
  CostResult r = symbolic(a, prog);
  int points = 0, cases = 0;
  for (int p = 1; p <= 16; p++)
    for (int64_t n = 1; n <= nmax; n++) {
      if (!full && n > 20 && n % 17 != p) continue;
      Arena *pa = arena_new();
      CostResult num = analyse(pa, prog, arena_printf(pa, "n=%lld", (long long)n), MODEL_PAPER, p);
      double v[3];
      bool held = cost_closed_value(r.closed, &n, p, v);
      if (!held) {
        CostRequest req = {.prog = prog, .params = &n, .symbolic = (bool[]){false}, .model = MODEL_PAPER,
                           .machine = machine_select(pa, NULL), .closed_form = true};
        CHECK(cost_closed_value(cost_analyse(pa, &req).closed, &n, p, v), "%s: no case at n=%lld", prog->src->name,
              (long long)n);
        cases++;
      }
      CHECK(close_to(v[0], num.W) && close_to(v[1], num.H) && close_to(v[2], num.S),
            "%s at n=%lld p=%d%s: W %.17g H %.17g S %g, numeric %.17g %.17g %g", prog->src->name, (long long)n, p,
            held ? "" : " (case)", v[0], v[1], v[2], num.W, num.H, num.S);
      if (held && (n % 29 == 0 || n < 5)) {
        Names vals = {0};
        name_set(&vals, "n", (double)n), name_set(&vals, "p", p), name_set(&vals, "log2(p)", ceil(log2(p)));
        eval_definitions(pa, r.where_form, &vals);
        const char *forms[3] = {r.W_form, r.H_form, r.S_form};
        for (int k = 0; k < 3; k++)
          CHECK(close_to(eval_form(forms[k], &vals), v[k]), "%s at n=%lld p=%d: %s reads back as %.17g, not %.17g",
                prog->src->name, (long long)n, p, forms[k], eval_form(forms[k], &vals), v[k]);
      }
      points++;
      arena_free(pa);
    }
  printf("%s: %d points, %d by the case at a given n\n", prog->src->name, points, cases);
}

// The closed forms of mss (1)-(5) (inits, tails and redconcat: families,
// integer blocks), and of other uses of families.
static void test_closed_forms(void) {
  bool full = getenv("VECBSP_CLOSED_FULL");  // every n to 300 at every p: 24000 points for mss, some 20 s
  Arena *a = arena_new();
  for (int f = 1; f <= 5; f++) check_closed(a, load_file(a, arena_printf(a, "examples/mss%d.vec", f)), 300, full);
  static const char *others[] = {
      "main = inits (inits x)",
      "main = map (fold (+)) (tails (map (\\y -> y * y) x))",
      "main = pair_map (\\s t -> fold (+) s + fold (+) t) (inits x, tails x)",
      "main = c_prod (\\s t -> fold (+) s + fold (+) t) (inits x) (tails x)",
      "main = map (\\s -> hd s + entry s 0 + length (tl s)) (inits x)",
      "main = map (map (fold (+))) (map inits (tails x))",
      "main = map (fold max) (redconcat (map inits (inits x)))",
      "main = map (\\t -> fold (+) (map (fold (+)) t)) (tails (inits x))",
      "main = map (fold (+)) (redconcat (map (\\s -> [s, s]) (inits x)))",
      "main = map (fold (+)) (redconcat (map (\\y -> inits x) x))",
      "main = fold (+) (map length (inits x))",
      "main = map (\\s -> fold (+) (map (\\y -> fst y * length s) s)) (tails (map (\\y -> (y, y)) x))",
  };
  for (size_t i = 0; i < sizeof others / sizeof *others; i++)
    check_closed(a, load_text(a, arena_printf(a, "param n\ninput x : [n]int\n%s", others[i])), 60, full);
  arena_free(a);
}

//
// Static errors: message and position.
//

static void test_errors(void) {
  static const struct {
    const char *text, *params;
    bool closed_form;
    const char *want;
  } cases[] = {
      {"param n\ninput x : [n]int\nmain = if hd x > 0 then dummyvec (3, 1) else dummyvec (4, 1)", "n=2", false,
       "test.vec:3:8: error: the branches of 'if' have different shapes: (3, 1) and (4, 1)"},
      {"main = pair_map (+) (dummyvec (3, 1), dummyvec (4, 1))", "", false,
       "test.vec:1:8: error: pair_map on vectors of different lengths (3 and 4)"},
      {"main = 1 + fold (+) (dummyvec (0, 1))", "", false, "test.vec:1:12: error: fold of an empty vector"},
      {"main = hd (dummyvec (0, 1))", "", false, "test.vec:1:8: error: hd of an empty vector"},
      {"main = map tl [dummyvec (0, 1)]", "", false, "test.vec:1:12: error: tl of an empty vector"},
      {"main = entry (dummyvec (3, 1)) 5", "", false,
       "test.vec:1:8: error: entry: index 5 is out of range for a vector of length 3"},
      {"main = iter (\\v -> v) 1 (0 - 3)", "", false, "test.vec:1:8: error: iter with a negative count (-3)"},
      {"main = dummyvec (0 - 1, 1)", "", false, "test.vec:1:8: error: dummyvec of negative length -1"},
      // An operator that changes the shape is followed step by step: here to a fault.
      {"main = fold (\\a b -> tl a) (dummyvec (3, dummyvec (1, 1)))", "", false,
       "test.vec:1:22: error: tl of an empty vector"},
      {"param n\ninput x : [n]int\nmain = prefix (\\a b -> redconcat [a, b]) (map (\\v -> [v]) x)", "", true,
       "test.vec:3:8: error: --symbolic: the operator of 'prefix' changes the shape of what it combines, or its "
       "elements differ in shape: its steps have no closed form (give the parameters with -D)"},
      {"param n\ninput x : [n]int\nmain = map (\\s -> fold (+) (dummyvec (n - length s, 1))) (inits x)", "", true,
       "test.vec:3:8: error: --symbolic: which process is the busiest here has no closed form: the costs of the "
       "elements do not grow along the vector (give the parameters with -D)"},
      {"param n\ninput x : [n]int\nmain = redconcat (redconcat (map inits (inits x)))", "", true,
       "test.vec:3:8: error: --symbolic: 'redconcat' of a joined vector has no closed form (give the parameters "
       "with -D)"},
      {"param n\ninput x : [n]int\nmain = ifs n then 1 else 2", "", true,
       "test.vec:3:12: error: --symbolic: this 'ifs' tests a size that depends on the parameters, so its branch "
       "is not known (give the parameters with -D)"},
      {"param n\ninput x : [n]int\nmain = iter tl x n", "", true,
       "test.vec:3:8: error: --symbolic: iter with a count that depends on the parameters needs a function that "
       "keeps the shape of its value, but this one turns (n, 1) into (n - 1, 1) (give the parameters with -D)"},
      {"param n\nmain = dummyvec (n / 2, 1)", "", true,
       "test.vec:2:8: error: --symbolic: the length given to 'dummyvec' has no closed form: it is a size computed "
       "with /, %, max or min of sizes that depend on the parameters, or the running value of a fold or prefix over "
       "a vector whose length depends on them (give the parameters with -D; a value that decides data, not a shape, "
       "is tested with a data 'if')"},
      {"param n\ninput x : [n]int\nmain = if hd x > 0 then fold (+) x else 0", "", true,
       "test.vec:3:8: error: --symbolic: the branches of this data 'if' cost differently, so its cost (their "
       "maximum) has no closed form"},
      // Both branches of a data if fault: so does the if.
      {"param n\ninput x : [n]int\nmain = if hd x > 0 then hd (dummyvec (0, 1)) else entry x 7", "n=2", false,
       "test.vec:3:25: error: hd of an empty vector"},
      {"param n\nmain = map (\\i -> ifs i * (n - 1 - i) then 1 else 0) [0, 1, 2]", "", true,
       "test.vec:2:54: error: --symbolic: this builds a vector of different sizes (integer literals and lengths are "
       "sizes), whose values have no closed form (give the parameters with -D)"},
      {"param n\ninput x : [n]int\nmain = map (\\i -> ifs i * (n - 1 - i) then 1 else 0) (prefix (+) (map (\\y -> 1) x))",
       "", true,
       "test.vec:3:25: error: --symbolic: the condition of 'ifs' has no closed form: it is a size computed with /, %, "
       "max or min of sizes that depend on the parameters, or the running value of a fold or prefix over a vector "
       "whose length depends on them (give the parameters with -D; a value that decides data, not a shape, is "
       "tested with a data 'if')"},
      {"param n\ninput x : [n]int\nmain = dummyvec (fold (+) (map (\\y -> 1) x), 1)", "n=5000", false,
       "test.vec:3:8: error: the length given to 'dummyvec' is a size the analysis does not know: computing it "
       "overflows 64 bits or divides by zero, or it is the running value of a fold or prefix over more than 4096 "
       "elements, which the analysis takes as data (a vector's length is 'length v'; a value that decides data, "
       "not a shape, is tested with a data 'if')"},
      {"param n\ninput x : [n - 5]int\nmain = x", "n=2", false,
       "test.vec:2:14: error: this vector length is negative (-3)"},
      {"main = inits (inits (dummyvec (10000, 1)))", "", false,
       "test.vec:1:8: error: this builds vectors whose elements have different shapes, more than 16777216 "
       "elements in all, which is more than the analysis holds"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Arena *a = arena_new();
    char *got = first_error(a, cases[i].text, cases[i].params, cases[i].closed_form);
    CHECK(strcmp(got, cases[i].want) == 0, "case %zu:\n  got  %s\n  want %s", i, got, cases[i].want);
    arena_free(a);
  }
}

//
// Shapes: hash-consing keeps the analysis proportional to distinct shapes.
//

static void test_shapes(void) {
  Arena *a = arena_new();
  // A regular program builds the same shapes whatever n.
  Program *mss5 = load_file(a, "examples/mss5.vec");
  CostResult small = analyse(a, mss5, "n=8000", MODEL_EXACT, 8);  // blocks of one length, as at 4e9
  CostResult huge = analyse(a, mss5, "n=4000000000", MODEL_EXACT, 8);
  CHECK(small.shapes == huge.shapes, "mss5: %lld shapes at n=8000, %lld at n=4e9", (long long)small.shapes,
        (long long)huge.shapes);
  // The same where a prefix is run again from the lower blocks' total
  // (prefix=recompute): followed element by element, that took 0.6 s at
  // n = 8e6 and would take minutes and 16 GB at 4e9.
  CostResult seeded = analyse_plan(a, mss5, "n=4000000000", "best,regions=parallel,prefix=recompute", 2);
  CostResult seeded_small = analyse_plan(a, mss5, "n=8000", "best,regions=parallel,prefix=recompute", 2);
  CHECK(seeded.shapes == seeded_small.shapes, "mss5 prefix=recompute: %lld shapes at n=8000, %lld at n=4e9",
        (long long)seeded_small.shapes, (long long)seeded.shapes);
  // Exactly, with blocks of 5e8: 1 + 4 ops per element, 3 ops per prefix step, 7 partial maxima.
  CHECK(huge.W == 4500000021.0 && huge.H == 3500000021.0 && huge.S == 3, "mss5 n=4e9: W %.0f H %.0f S %.0f", huge.W,
        huge.H, huge.S);
  // inits makes n distinct segment shapes: the shapes grow linearly, not with the n(n+1)/2 elements.
  Program *mss4 = load_file(a, "examples/mss4.vec");
  CostResult s1 = analyse(a, mss4, "n=1000", MODEL_PAPER, 8), s2 = analyse(a, mss4, "n=2000", MODEL_PAPER, 8);
  CHECK(s2.shapes < 2 * s1.shapes + 100 && s2.shapes > s1.shapes, "mss4: %lld shapes at n=1000, %lld at n=2000",
        (long long)s1.shapes, (long long)s2.shapes);
  // The running values of a prefix over literals are followed over short
  // vectors only (FOLLOW_MAX, by the whole length, in both models): past it a
  // regular program again, whatever n and p (tests/validation/corpus/stencil3.vec).
  Program *ones = load_text(a, "param n\ninput x : [n]int\nmain = map (\\i -> entry x (i - 1)) (prefix (+) (map (\\y -> 1) x))\n");
  CostResult few = analyse(a, ones, "n=5000", MODEL_EXACT, 2), many = analyse(a, ones, "n=2000000", MODEL_EXACT, 2);
  CHECK(few.shapes == many.shapes && few.shapes < 100, "prefix of ones: %lld shapes at n=5000, %lld at n=2e6",
        (long long)few.shapes, (long long)many.shapes);
  CostResult followed = analyse(a, ones, "n=4096", MODEL_EXACT, 2);
  CHECK(followed.shapes > 4096, "prefix of ones at n=4096: followed, %lld shapes", (long long)followed.shapes);
  // Equal shapes are one pointer; an irregular vector of equal elements is regular.
  Shapes sh = {.arena = a, .budget = IRREGULAR_MAX};
  Shape *e = shape_vec(&sh, sz_of(3), shape_unit(&sh));
  Shape *elems[] = {e, e, e};
  CHECK(shape_vector(&sh, elems, 3) == shape_vec(&sh, sz_of(3), e), "three equal elements make a regular vector");
  CHECK(shape_vec(&sh, sz_of(0), e) == shape_vec(&sh, sz_of(0), shape_unit(&sh)), "empty vectors are one shape");
  arena_free(a);
}

//
// The plan: its predicates, the decisions an analysis reports, and the
// shape check the interpreter runs.
//

// The regions of a program's plan, as "r1: pair_map fold; r2: ..." text.
static char *regions_of(Arena *a, Program *prog) {
  IrProgram *ir = lower_program(prog);
  char *text = "";
  for (int r = 0; r < ir->nregions; r++) {
    text = arena_printf(a, "%s%sr%d:", text, r ? "; " : "", ir->regions[r]->id);
    for (int s = 0; s < ir->regions[r]->nstages; s++)
      text = arena_printf(a, "%s %s", text, builtin_name(ir_builtin(ir->regions[r]->stages[s]->kind)));
  }
  return text;
}

static void test_plan(void) {
  int64_t starts[5];
  for (int k = 0; k <= 4; k++) starts[k] = range_lo(10, 4, k);
  CHECK(starts[0] == 0 && starts[1] == 2 && starts[2] == 5 && starts[3] == 7 && starts[4] == 10, "blocks of 10 on 4");
  CHECK(range_lo(4000000000000000000, 3, 2) == 2666666666666666666, "blocks without overflow");
  CHECK(plan_is_skeleton(B_INITS) && !plan_is_skeleton(B_ITER) && !plan_is_skeleton(B_REDCONCAT), "skeletons");
  CHECK(plan_takes_distributed(B_FOLD) && !plan_takes_distributed(B_PAIR_MAP), "distributed arguments");
  CHECK(plan_leaves_distributed(B_PREFIX) && !plan_leaves_distributed(B_FOLD), "distributed results");
  CHECK(ir_is_skeleton(IR_TAILS) && !ir_is_skeleton(IR_ITER) && ir_builtin(IR_C_PROD) == B_C_PROD, "IR skeletons");
  Arena *a = arena_new();
  Program *prog = load_file(a, "examples/matvec2.vec");
  char *plan = regions_of(a, prog);
  CHECK(strcmp(plan, "r1: pair_map fold") == 0, "matvec2's plan: %s", plan);
  prog = load_text(a, "param n\ninput x : [n]int\nmain = let y = map (\\v -> v + 1) x in fold (+) y\n");
  plan = regions_of(a, prog);
  CHECK(strcmp(plan, "r1: map; r2: fold") == 0, "a variable: %s", plan);
  // cost_shape_check reports through the caller's trap.
  prog = load_text(a, "param n\ninput x : [n]int\nmain = if hd x > 0 then x else tl x\n");
  bool caught = true;
  diag_quiet = true;
  DiagTrap trap;
  if (DIAG_TRY(&trap)) {
    cost_shape_check(prog, params_of(a, prog, "n=3"));
    diag_untrap(&trap);
    caught = false;
  }
  diag_quiet = false;
  CHECK(caught, "cost_shape_check: branches (3, 1) and (2, 1)");
  arena_free(a);
}

//
// What calibration counts, computed by hand (docs/cost-model.md, "Carried
// dependencies" and "Calibration"), and the fit on synthetic runs.
//

// A process's counts summed over the supersteps.
static ExactCounts counts_of(Arena *a, Program *prog, const char *params, int p, int pid, double *footprint) {
  ExactResult x;
  exact_cost(a, prog, params_of(a, prog, params), plan_paper(lower_program(prog), p), &x);
  ExactCounts c = {0};
  for (int i = 0; i < x.nsteps; i++)  // field by field: ExactCounts holds int64_t fields only
    for (size_t f = 0; f < sizeof c / sizeof(int64_t); f++)
      ((int64_t *)&c)[f] += ((const int64_t *)&x.steps[i].procs[pid])[f];
  if (footprint) *footprint = x.footprint;
  return c;
}

typedef struct Carried {
  const char *program;  // after "param n\ninput v : [n]int\n"
  int p;
  int64_t fast, select, mul, div;  // of the busiest (last) process, n = 1000
} Carried;

// Every loop's first 8 steps overlap the code around it and are not counted:
// a fold of n = 1000 elements waits 999 - 8 = 991 times.

// Runs whose time is the largest of their core's, memory's, latency's and
// multiplier's (made by hand here): the fit by bounds finds the units that
// made them, though in each run only one bound shows.
static void test_fit_bound(void) {
  const double op = 1e-9, elem = 2e-10, load = 5e-10, load_mem = 3e-9, lat = 4e-9, mul = 3e-9;
  CalibrationRun runs[12];
  for (int r = 0; r < 12; r++) {
    double k = r % 3 + 1;
    CalibrationRun *x = &runs[r];
    if (r < 3) *x = (CalibrationRun){.count = {[CAL_OPS] = 900 * k, [CAL_ELEMS] = 1000 + 300 * r * r, [CAL_LOADS] = 2000 - 500 * r}};
    else if (r < 6) *x = (CalibrationRun){.count = {[CAL_OPS] = 100 * k, [CAL_ELEMS] = 1000, [CAL_LOADS] = 500 * k,
                                                    [CAL_LOADS_MEM] = 1000 * k}};
    else if (r < 9) *x = (CalibrationRun){.count = {[CAL_OPS] = 1000, [CAL_ELEMS] = 1000, [CAL_LAT_FAST] = 1000 * k}};
    else *x = (CalibrationRun){.count = {[CAL_OPS] = 2000 * k, [CAL_ELEMS] = 250 * k, [CAL_LOADS] = 1000 * k,
                                         [CAL_MULS] = 1000 * k}};
    double core = op * x->count[CAL_OPS] + elem * x->count[CAL_ELEMS] +
                  load * (x->count[CAL_LOADS] + x->count[CAL_LOADS_MEM]);
    x->seconds = fmax(fmax(core, load_mem * x->count[CAL_LOADS_MEM]),
                      fmax(lat * x->count[CAL_LAT_FAST], mul * x->count[CAL_MULS]));
  }
  bool fit[CAL_TERMS] = {[CAL_OPS] = true, [CAL_ELEMS] = true, [CAL_LOADS] = true, [CAL_LOADS_MEM] = true,
                         [CAL_MULS] = true};
  double got[CAL_TERMS] = {[CAL_LAT_FAST] = lat};
  calibration_fit_bound(runs, 12, fit, got);
  CHECK(fabs(got[CAL_OPS] / op - 1) < 1e-9 && fabs(got[CAL_ELEMS] / elem - 1) < 1e-9 &&
            fabs(got[CAL_LOADS] / load - 1) < 1e-9 && fabs(got[CAL_LOADS_MEM] / load_mem - 1) < 1e-9 &&
            fabs(got[CAL_MULS] / mul - 1) < 1e-9,
        "fit by bounds: op %g elem %g load %g load_mem %g mul %g", got[CAL_OPS], got[CAL_ELEMS], got[CAL_LOADS],
        got[CAL_LOADS_MEM], got[CAL_MULS]);
}

static const Carried carried[] = {
    {"main = fold (+) v", 1, 991, 0, 0, 0},
    {"main = fold max v", 1, 0, 991, 0, 0},
    {"main = fold (*) v", 1, 0, 0, 991, 0},
    {"main = fold (\\a b -> a / (b * b + 1) + 1) v", 1, 991, 0, 0, 991},
    {"main = fold (\\a b -> let c = a * 2 in c + b) v", 1, 991, 0, 991, 0},
    {"main = fold (\\a b -> if a > b then a - b else a + b) v", 1, 991, 991, 0, 0},
    // Work on the element alone is off the path: only the add waits.
    {"main = fold (\\a b -> a + b * b * b) v", 1, 991, 0, 0, 0},
    // Fused in one pass, a prefix and a fold wait for the longer of their paths.
    {"main = fold max (prefix (+) v)", 1, 0, 991, 0, 0},
    // In parallel, they are two loops over each block of 500.
    {"main = fold max (prefix (+) v)", 2, 491, 491, 0, 0},
    {"main = fold max (map (\\z -> max (fst z) (snd z)) (prefix (\\a b -> (fst a + fst b, max (snd a + fst b) (snd b))) "
     "(map (\\y -> (y, max y 0)) v)))",
     1, 991, 991, 0, 0},
    // A local fold inside a map: segment i + 1 long waits i - 8 times when i > 8
    // (1 + 2 + ... + 991); then the outer fold max.
    {"main = fold max (map (\\s -> fold (+) s) (inits v))", 1, 991 * 992 / 2, 991, 0, 0},
    // Vector-valued accumulators do not wait element by element.
    {"main = length (iter (\\a -> pair_map (+) (a, v)) v 5)", 1, 0, 0, 0, 0},
};

static void test_calibration(void) {
  Arena *a = arena_new();
  for (size_t i = 0; i < sizeof carried / sizeof *carried; i++) {
    const Carried *t = &carried[i];
    Program *prog = load_text(a, arena_printf(a, "param n\ninput v : [n]int\n%s\n", t->program));
    ExactCounts c = counts_of(a, prog, "n=1000", t->p, t->p - 1, NULL);
    CHECK(c.carried[LAT_FAST] == t->fast && c.carried[LAT_SELECT] == t->select && c.carried[LAT_MUL] == t->mul &&
              c.carried[LAT_DIV] == t->div && c.carried[LAT_FLOAT] == 0,
          "carried %s at p=%d: %lld %lld %lld %lld", t->program, t->p, (long long)c.carried[0],
          (long long)c.carried[1], (long long)c.carried[2], (long long)c.carried[3]);
  }
  // A float add waits in a class of its own.
  Program *float_sum = load_text(a, "param n\ninput v : [n]float\nmain = fold (+) v\n");
  ExactCounts cf = counts_of(a, float_sum, "n=1000", 1, 0, NULL);
  CHECK(cf.carried[LAT_FLOAT] == 991 && cf.carried[LAT_FAST] == 0 && cf.carried[LAT_MUL] == 0,
        "carried by a float sum: %lld fast, %lld mul, %lld float", (long long)cf.carried[LAT_FAST],
        (long long)cf.carried[LAT_MUL], (long long)cf.carried[LAT_FLOAT]);
  // Rows of 8 wait 7 times each, all overlapped; rows of 20 wait 19 - 8 = 11.
  Program *row_folds = load_text(a, "param n m\ninput M : [n][m]int\nmain = fold (+) (map (fold max) M)\n");
  ExactCounts c8 = counts_of(a, row_folds, "n=1000 m=8", 1, 0, NULL), c20 = counts_of(a, row_folds, "n=1000 m=20", 1, 0, NULL);
  CHECK(c8.carried[LAT_SELECT] == 0 && c8.carried[LAT_FAST] == 991, "carried by rows of 8: %lld %lld",
        (long long)c8.carried[LAT_SELECT], (long long)c8.carried[LAT_FAST]);
  CHECK(c20.carried[LAT_SELECT] == 1000 * 11 && c20.carried[LAT_FAST] == 991, "carried by rows of 20: %lld %lld",
        (long long)c20.carried[LAT_SELECT], (long long)c20.carried[LAT_FAST]);
  // One loop iteration per element of a fused pass, however many stages it fuses.
  Program *prog = load_text(a, "param n m\ninput M : [n][m]int\n"
                               "main = map (\\r -> fold (+) (map (\\x -> x + 1) r)) M\n");
  double footprint;
  ExactCounts c = counts_of(a, prog, "n=10 m=7", 1, 0, &footprint);
  CHECK(c.elems == 10 + 10 * 7, "elements of fused loops: %lld", (long long)c.elems);
  CHECK(footprint == 10 * 7 + 10, "footprint: the input and the result stored: %g", footprint);
  // Multiplications by a literal (negated or not: x * -3) are shifts and
  // adds, and so are divisions by a power of two (x / 2, x % -8); divisions by another literal are
  // counted apart (a multiplication by the reciprocal); the others are muls
  // and divs. A float divided by a power of two is multiplied by its exact
  // reciprocal (an op); by anything else it is a float division.
  prog = load_text(a, "param n\ninput v : [n]int\ninput w : [n]float\n"
                      "main = (fold (+) (map (\\x -> x * x + 3 * x + x * 5 + x * -3 + x / 2 + x % -8 + x / 7 + x % (x + 1)) v),\n"
                      "        fold (+) (map (\\y -> y / 2.0 + y / 0.25 + y / 3.0 + 1.0 / y) w))\n");
  c = counts_of(a, prog, "n=10", 1, 0, NULL);
  CHECK(c.muls == 10 && c.literal_divs == 10 && c.divs == 10 && c.float_divs == 20 && c.ops == 10 * 18 + 9 + 10 * 7 + 9,
        "muls %lld literal divs %lld divs %lld float divs %lld ops %lld", (long long)c.muls, (long long)c.literal_divs,
        (long long)c.divs, (long long)c.float_divs, (long long)c.ops);
  // The shifts take gcc's instructions beyond the one operation (plan_shift_extra):
  // x / 2 shr, add, sar; x % -8 sar, shr, lea, and, sub (the sign is the dividend's).
  CHECK(c.shift_ops == 10 * (2 + 4), "shift instructions %lld", (long long)c.shift_ops);
  // x / -4 test, lea, cmov, sar (the neg is the operation -4); x / 1 none;
  // x % 2 shr, lea, and, sub; x / 16 as x / 4. Operations: 4 divisions, 3 adds, a negation.
  prog = load_text(a, "param n\ninput v : [n]int\nmain = map (\\x -> x / -4 + x / 1 + x % 2 + x / 16) v\n");
  c = counts_of(a, prog, "n=10", 1, 0, NULL);
  CHECK(c.shift_ops == 10 * (3 + 0 + 3 + 3) && c.ops == 10 * 8, "shift instructions %lld, ops %lld",
        (long long)c.shift_ops, (long long)c.ops);
  // Messages at p = 2: a block of rows of one length goes by its stride (a
  // descriptor read and built per row) from where the rows lie (no packing:
  // 0 stores at process 0), and the receiver reads the rows where the
  // message holds them; segments are packed one by one.
  prog = load_text(a, "param n m\ninput M : [n][m]int\nmain = map (\\r -> fold (+) r) M\n");
  ExactResult rows, x;
  exact_cost(a, prog, params_of(a, prog, "n=10 m=7"), plan_paper(lower_program(prog), 2), &rows);
  CHECK(rows.nsteps == 3 && rows.steps[0].procs[0].elems == 5 && rows.steps[0].procs[0].loads == 10 &&
            rows.steps[0].procs[0].stores == 0 && rows.steps[1].procs[1].unpacked == 0 && rows.steps[1].procs[1].elems == 5 + 5 + 35 &&
            rows.steps[0].procs[1].unpacked == 0 && rows.steps[1].procs[1].vectors == 0,
        "strided rows: %lld %lld %lld %lld %lld", (long long)rows.steps[0].procs[0].elems, (long long)rows.steps[0].procs[0].loads,
        (long long)rows.steps[0].procs[0].stores, (long long)rows.steps[1].procs[1].unpacked, (long long)rows.steps[1].procs[1].elems);
  // Rows a prefix keeps past its barrier are copied out of the message, in
  // the superstep after the fetch: process 1's 5 rows of 7.
  prog = load_text(a, "param n m\ninput M : [n][m]int\nmain = prefix (\\a b -> pair_map (+) (a, b)) M\n");
  exact_cost(a, prog, params_of(a, prog, "n=10 m=7"), plan_paper(lower_program(prog), 2), &x);
  CHECK(x.steps[1].procs[1].unpacked == 35, "rows kept by a prefix are copied: %lld", (long long)x.steps[1].procs[1].unpacked);
  // The gather: process 0 copies process 1's block of 5 sums into the result
  // after the last barrier.
  CHECK(rows.steps[1].sent[1] == 5 && rows.steps[2].procs[0].unpacked == 5 && rows.steps[2].procs[1].unpacked == 0,
        "the gathered block is copied into the result: %lld", (long long)rows.steps[2].procs[0].unpacked);
  // A gathered block is packed when its rows differ in length: process 1
  // packs inits 3 and 4, (1 + 3) + (1 + 4) words, beside the 2 + 2 * 2
  // stores of its segments (its own part, a descriptor each), which it
  // sends as they are: 15. Rows of one length ([x, x]) are sent from where
  // they lie: 2 * 2 words of rows and 2 * 2 of the block, 8.
  prog = load_text(a, "param n\ninput v : [n]int\nmain = inits v\n");
  exact_cost(a, prog, params_of(a, prog, "n=4"), plan_paper(lower_program(prog), 2), &x);
  int64_t packed_rows = x.steps[x.nsteps - 2].procs[1].stores;
  prog = load_text(a, "param n\ninput v : [n]int\nmain = map (\\x -> [x, x]) v\n");
  exact_cost(a, prog, params_of(a, prog, "n=4"), plan_paper(lower_program(prog), 2), &x);
  CHECK(packed_rows == 15 && x.steps[x.nsteps - 2].procs[1].stores == 8, "stores of a packed and a strided gather: %lld %lld",
        (long long)packed_rows, (long long)x.steps[x.nsteps - 2].procs[1].stores);
  prog = load_text(a, "param n\ninput v : [n]int\nmain = map (\\s -> length s) (inits v)\n");
  exact_cost(a, prog, params_of(a, prog, "n=10"), plan_paper(lower_program(prog), 2), &x);
  // Unpacking the fetched block would be in the next superstep (the exchange).
  CHECK(x.steps[1].procs[1].unpacked == 0 && x.steps[1].procs[1].vectors == 0, "a block of scalars is read in place");
  prog = load_text(a, "param n\ninput v : [n]int\nmain = map (\\s -> tails s) (inits v)\n");
  exact_cost(a, prog, params_of(a, prog, "n=4"), plan_paper(lower_program(prog), 2), &x);
  // Process 1 holds inits 3 and 4; their tails are vectors of 3 and 4 segments: 1 + 3 + 1 + 4 vectors.
  CHECK(x.steps[x.nsteps - 2].procs[1].vectors == 9 && x.steps[x.nsteps - 1].procs[0].vectors == 9,
        "segments packed one by one: %lld, unpacked %lld", (long long)x.steps[x.nsteps - 2].procs[1].vectors,
        (long long)x.steps[x.nsteps - 1].procs[0].vectors);
  // Rows of different lengths scattered to a region that keeps none past a
  // barrier are read where the message holds them, as the generated code
  // does (vr_*): process 1's 5 segments of [1, 4, 3, 2, 1] get a descriptor
  // each (2 stores) and no vector of their own; with its 5 sums, 15 stores.
  prog = load_text(a, "param n\ninput v : [n]int\nmain = map (fold (+)) (redconcat (map tails (inits v)))\n");
  exact_cost(a, prog, params_of(a, prog, "n=4"), plan_paper(lower_program(prog), 2), &x);
  ExactCounts *worker = &x.steps[x.nsteps - 2].procs[1];
  CHECK(worker->vectors == 0 && worker->unpacked == 0 && worker->stores == 5 + 2 * 5,
        "segments read in place: %lld vectors, %lld unpacked, %lld stores", (long long)worker->vectors,
        (long long)worker->unpacked, (long long)worker->stores);
  // A captured vector of 10 words is read where the message holds it by a
  // map's worker, and copied out (10 words unpacked) by a prefix's, whose
  // second pass applies the function after a barrier (plan_full_in_place).
  prog = load_text(a, "param n\ninput v : [n]int\nmain = map (\\x -> fold (+) (map (\\y -> x * y) v)) v\n");
  exact_cost(a, prog, params_of(a, prog, "n=10"), plan_paper(lower_program(prog), 2), &x);
  CHECK(x.steps[1].procs[1].unpacked == 0, "captured vector read in place: %lld unpacked",
        (long long)x.steps[1].procs[1].unpacked);
  prog = load_text(a, "param n\ninput v : [n]int\nmain = prefix (\\a b -> a + b + fold (+) v) v\n");
  exact_cost(a, prog, params_of(a, prog, "n=10"), plan_paper(lower_program(prog), 2), &x);
  CHECK(x.steps[1].procs[1].unpacked == 10, "captured vector copied out for prefix: %lld unpacked",
        (long long)x.steps[1].procs[1].unpacked);
  // Mispredicted loop exits: one per loop over an element longer than 64
  // whose length differs from the element before. Segments of 1..100 (or
  // 100..1) have 36 such; rows of one length none; a function with two
  // loops over its segment twice as many; with 64 elements, none; a fold
  // over rows of one length none.
  const struct {
    const char *program, *params;
    int64_t exits;
  } exits[] = {
      {"param n\ninput v : [n]int\nmain = map (fold (+)) (inits v)\n", "n=100", 36},
      {"param n\ninput v : [n]int\nmain = map (fold (+)) (tails v)\n", "n=100", 36},
      {"param n\ninput v : [n]int\nmain = map (fold (+)) (inits v)\n", "n=64", 0},
      {"param n m\ninput M : [n][m]int\nmain = map (fold (+)) M\n", "n=10 m=100", 0},
      {"param n\ninput v : [n]int\nmain = map (\\s -> fold (+) s + fold max s) (inits v)\n", "n=100", 72},
      {"param n m\ninput M : [n][m]int\nmain = fold (\\a b -> pair_map (+) (a, b)) M\n", "n=10 m=100", 0},
  };
  for (size_t i = 0; i < sizeof exits / sizeof *exits; i++) {
    ExactCounts e = counts_of(a, load_text(a, exits[i].program), exits[i].params, 1, 0, NULL);
    CHECK(e.exits == exits[i].exits, "exits of %s at %s: %lld", exits[i].program, exits[i].params, (long long)e.exits);
  }
  // At p = 2 each process counts the exits of its own block: process 1
  // holds segments 51..100 (36 longer than 64), process 0 none.
  Program *segs = load_text(a, exits[0].program);
  int64_t exits0 = counts_of(a, segs, "n=100", 2, 0, NULL).exits, exits1 = counts_of(a, segs, "n=100", 2, 1, NULL).exits;
  CHECK(exits0 == 0 && exits1 == 36, "exits by block at p = 2: %lld %lld", (long long)exits0, (long long)exits1);
  // A superstep's counts (uncalibrated: the busiest by operations, here
  // process 0, which sends the 5 rows of 7 to process 1 from where they
  // lie) and its time.
  double step[CAL_TERMS];
  cost_step_counts(&(Calibration){0}, 0, &rows.steps[0], 2, true, (MemoryShares){0}, step);
  CHECK(step[CAL_STORES] == 0 && step[CAL_WORDS] == 35 && step[CAL_WORDS_MEM] == 0 && step[CAL_BARRIERS] == 1,
        "fetch step counts: %g %g %g", step[CAL_STORES], step[CAL_WORDS], step[CAL_BARRIERS]);
  // Four processes on two cores: a superstep lasts at least half the
  // total work and half the total words (each process copies its own).
  ExactCounts even[4] = {{.ops = 10}, {.ops = 10}, {.ops = 10}, {.ops = 10}};
  ExactCounts uneven[4] = {{.ops = 30}, {.ops = 10}, {.ops = 10}, {.ops = 10}};
  int64_t sent[4] = {4, 4, 0, 0}, recv[4] = {0, 0, 4, 4};
  ExactStep shared = {.w = 10, .h = 4, .procs = even, .sent = sent, .recv = recv};
  Machine two = {.p = 4, .cores = 2, .g = 1, .l = 0, .s = 1}, many = two;
  many.cores = 0;
  CHECK(cost_step_seconds(&two, &shared, 4, false, (MemoryShares){0}) == 20 + 8,
        "4 processes of 10 operations and 4 words on 2 cores: %g", cost_step_seconds(&two, &shared, 4, false, (MemoryShares){0}));
  CHECK(cost_step_seconds(&many, &shared, 4, false, (MemoryShares){0}) == 10 + 4, "one core each: %g",
        cost_step_seconds(&many, &shared, 4, false, (MemoryShares){0}));
  shared.w = 30, shared.procs = uneven;
  CHECK(cost_step_seconds(&two, &shared, 4, false, (MemoryShares){0}) == 30 + 8, "30, 10, 10, 10 on 2 cores: %g",
        cost_step_seconds(&two, &shared, 4, false, (MemoryShares){0}));
  double some[CAL_TERMS] = {[CAL_OPS] = 3, [CAL_LOADS] = 4, [CAL_LAT_SELECT] = 1, [CAL_WORDS] = 5, [CAL_BARRIERS] = 1};
  double per[CAL_TERMS] = {[CAL_OPS] = 1, [CAL_LOADS] = 2, [CAL_LAT_SELECT] = 10, [CAL_WORDS] = 3, [CAL_BARRIERS] = 7};
  CHECK(calibration_predict(per, some) == 11 + 15 + 7, "max(3 + 8, 10) + 5 words * 3 + a barrier: %g", calibration_predict(per, some));
  some[CAL_EXITS] = 2, per[CAL_EXITS] = 4;
  CHECK(calibration_predict(per, some) == 11 + 8 + 15 + 7, "exits add to the local time: %g", calibration_predict(per, some));
  // A multiplication is an operation of the core and a turn of its one
  // multiplier: 3 of them at 6 each bind at 18, beyond the core's 11.
  some[CAL_MULS] = 3, per[CAL_MULS] = 6;
  CHECK(calibration_predict(per, some) == 18 + 8 + 15 + 7, "max(11, 10, 3 multiplications * 6) + exits, words, barrier: %g",
        calibration_predict(per, some));
  some[CAL_MULS] = 1;
  CHECK(calibration_predict(per, some) == 11 + 8 + 15 + 7, "one multiplication (6) under the core's 11: %g",
        calibration_predict(per, some));
  // The local time: the slowest of the core, the memory and the carried
  // latency. The core loads a word from memory as one in cache.
  double unit[CAL_TERMS] = {[CAL_OPS] = 1, [CAL_LOADS] = 2, [CAL_LOADS_MEM] = 5, [CAL_LAT_SELECT] = 10};
  ExactCounts work = {.ops = 3, .loads = 4, .carried = {[LAT_SELECT] = 1}};
  CHECK(cost_local_seconds(unit, &work, (MemoryShares){0}) == 11 &&
            cost_local_seconds(unit, &work, (MemoryShares){1, 1, 1, 1, 0}) == 20 &&
            cost_local_seconds(unit, &work, (MemoryShares){0.25, 0.25, 0.25, 0.25, 0}) == 11,
        "core-bound: 3 + 4 * 2 in cache or a quarter in memory; memory-bound: 4 * 5 all in memory");
  // A select is a compare and a conditional move: two of the core's operations.
  ExactCounts selecting = {.ops = 3, .selects = 2};
  CHECK(cost_local_seconds(unit, &selecting, (MemoryShares){0}) == 5, "3 operations, 2 of them selects");
  work.carried[LAT_SELECT] = 2;
  CHECK(cost_local_seconds(unit, &work, (MemoryShares){0}) == 20, "latency-bound: 2 * 10");
  Calibration cache = {.cache_bytes = 800};
  CHECK(cost_memory_share(&cache, STREAM_LOADS, 50, 1) == 0 && cost_memory_share(&cache, STREAM_LOADS, 75, 1) == 0.5 &&
            cost_memory_share(&cache, STREAM_LOADS, 100, 1) == 1 && cost_memory_share(&cache, STREAM_LOADS, 1000, 1) == 1 &&
            cost_memory_share(&(Calibration){0}, STREAM_LOADS, 1000, 1) == 0,
        "50 words fill half of 800 bytes, 100 all of them; no cache known: all in cache");
  CHECK(cost_memory_share(&cache, STREAM_LOADS, 25, 2) == 0 && cost_memory_share(&cache, STREAM_LOADS, 75, 2) == 0.5 &&
            cost_memory_share(&cache, STREAM_LOADS, 125, 2) == 1 && cost_memory_share(&cache, STREAM_LOADS, 50, 2) == 0.25,
        "at p > 1 the ramp runs from a quarter of the cache to five quarters: 600 bytes are half way from 200 to 1000, 400 a quarter");
  // The fit finds the units that made synthetic runs, less their known part.
  CalibrationRun runs[6];
  double made[CAL_TERMS] = {[CAL_OPS] = 2e-9, [CAL_ELEMS] = 5e-10, [CAL_STORES] = 3e-9};
  for (int r = 0; r < 6; r++) {
    runs[r] = (CalibrationRun){.count = {[CAL_OPS] = 1000 * (r + 1), [CAL_ELEMS] = 700 * (r % 3 + 1),
                                         [CAL_STORES] = 300 * (r % 2 + 1), [CAL_WORDS] = 50},
                               .known = 1e-6 * r};
    for (int t = 0; t < CAL_TERMS; t++) runs[r].seconds += made[t] * runs[r].count[t];
    runs[r].seconds += runs[r].known;
  }
  bool fit[CAL_TERMS] = {[CAL_OPS] = true, [CAL_ELEMS] = true, [CAL_STORES] = true, [CAL_LOADS] = true};
  double got[CAL_TERMS] = {[CAL_WORDS] = 7};
  calibration_fit(runs, 6, fit, got);
  CHECK(fabs(got[CAL_OPS] - 2e-9) < 1e-15 && fabs(got[CAL_ELEMS] - 5e-10) < 1e-15 &&
            fabs(got[CAL_STORES] - 3e-9) < 1e-15 && got[CAL_LOADS] == 0 && got[CAL_WORDS] == 7,
        "fit: %g %g %g %g %g", got[CAL_OPS], got[CAL_ELEMS], got[CAL_STORES], got[CAL_LOADS], got[CAL_WORDS]);
  test_fit_bound();
  arena_free(a);
}

//
// Units from memory (calibrate.c, machine.c): never cheaper than their
// twins in cache, so that more of any count never predicts less time.
//

// Runs made by the units made, over counts of loads in cache and from memory.
static int twin_runs(CalibrationRun *runs, const double made[CAL_TERMS], bool with_mem) {
  for (int r = 0; r < 6; r++) {
    runs[r] = (CalibrationRun){.count = {[CAL_ELEMS] = 1000 * (r + 1), [CAL_LOADS] = 500 * (r % 3 + 1),
                                         [CAL_LOADS_MEM] = with_mem ? 400 * (r % 2 + 1) : 0}};
    for (int t = 0; t < CAL_TERMS; t++) runs[r].seconds += made[t] * runs[r].count[t];
  }
  return 6;
}

// Memory streamed alone, or beside other processes streaming too: a
// process's memory words at the shared units in proportion to what the
// others stream beside it (worked by hand).
static void test_streaming(void) {
  double unit[CAL_TERMS] = {[CAL_LOADS] = 1, [CAL_LOADS_MEM] = 2, [CAL_LOADS_SHARED] = 4,
                            [CAL_STORES] = 1, [CAL_STORES_MEM] = 3, [CAL_STORES_SHARED] = 5};
  Calibration cal = {.present = true};
  memcpy(cal.unit, unit, sizeof unit);
  ExactCounts procs[3] = {{.loads = 100, .stores = 100}, {.loads = 0}, {.loads = 0}};
  int64_t none[3] = {0};
  ExactStep st = {.w = 0, .procs = procs, .sent = none, .recv = none};
  MemoryShares memory = {.loads = 1, .stores = 1};
  double count[CAL_TERMS];
  // Alone: process 0 streams, 1 and 2 wait.
  cost_step_counts(&cal, 0, &st, 3, false, memory, count);
  CHECK(count[CAL_LOADS_MEM] == 100 && count[CAL_LOADS_SHARED] == 0 && calibration_predict(unit, count) == 100 * 2 + 100 * 3,
        "alone: 100 loads at 2 and 100 stores at 3: %g", calibration_predict(unit, count));
  // Beside one of the two others streaming as much, the other half as much:
  // (1 + 0.5) / 2 of its words shared.
  procs[1] = (ExactCounts){.loads = 200}, procs[2] = (ExactCounts){.stores = 100};
  cost_step_counts(&cal, 0, &st, 3, false, memory, count);
  CHECK(count[CAL_LOADS_SHARED] == 75 && count[CAL_STORES_SHARED] == 75 && count[CAL_LOADS_MEM] == 25,
        "process 0 (200 words, the slowest) beside 200 and 100 words: 0.75 of its words at the shared units: %g %g",
        count[CAL_LOADS_SHARED], count[CAL_STORES_SHARED]);
  // Every process streaming as much: all shared; at p = 1 none.
  procs[1] = procs[0], procs[2] = procs[0];
  cost_step_counts(&cal, 0, &st, 3, false, memory, count);
  CHECK(calibration_predict(unit, count) == 100 * 4 + 100 * 5, "all streaming: %g", calibration_predict(unit, count));
  CHECK(cost_step_shares(memory, &st, 1).streaming == 0, "one process streams alone");
  // The built-in machines obey the twins too (a unit left out of one is 0).
  const char *builtin[] = {"local", "sunhpc3500"};
  for (int m = 0; m < 2; m++) {
    Machine machine = machine_select(NULL, builtin[m]);
    for (int t = 0; t < CAL_TERMS && machine.cal.present; t++)
      CHECK(calibration_twin(t) < 0 || machine.cal.unit[t] >= machine.cal.unit[calibration_twin(t)],
            "%s: %s %g below its twin %s %g", builtin[m], cal_term_names[t], machine.cal.unit[t],
            cal_term_names[calibration_twin(t)], machine.cal.unit[calibration_twin(t)]);
  }
  // In the cache, sharing changes nothing.
  cost_step_counts(&cal, 0, &st, 3, false, (MemoryShares){0}, count);
  CHECK(calibration_predict(unit, count) == 200, "in the cache: %g", calibration_predict(unit, count));
}

static void test_twins(void) {
  bool fit[CAL_TERMS] = {[CAL_ELEMS] = true, [CAL_LOADS] = true, [CAL_LOADS_MEM] = true};
  CalibrationRun runs[6];
  double got[CAL_TERMS] = {0};
  // From memory dearer than from cache: found as made.
  int n = twin_runs(runs, (double[CAL_TERMS]){[CAL_ELEMS] = 1e-9, [CAL_LOADS] = 2e-9, [CAL_LOADS_MEM] = 5e-9}, true);
  CalibrationStatus st = calibration_fit(runs, n, fit, got);
  CHECK(close_to(got[CAL_LOADS] * 1e9, 2) && close_to(got[CAL_LOADS_MEM] * 1e9, 5) && st.of[CAL_LOADS_MEM] == CAL_FITTED,
        "load 2 ns, load_mem 5 ns: %g %g (%d)", got[CAL_LOADS], got[CAL_LOADS_MEM], st.of[CAL_LOADS_MEM]);
  // Runs that price memory below the cache (noise, or a prefetcher the
  // counts do not see): memory gets the cache's unit, and says so.
  n = twin_runs(runs, (double[CAL_TERMS]){[CAL_ELEMS] = 1e-9, [CAL_LOADS] = 2e-9, [CAL_LOADS_MEM] = 1e-9}, true);
  st = calibration_fit(runs, n, fit, got);
  CHECK(got[CAL_LOADS_MEM] == got[CAL_LOADS] && got[CAL_LOADS] > 0 && st.of[CAL_LOADS_MEM] == CAL_BOUNDED,
        "memory priced below cache is bounded by it: %g %g (%d)", got[CAL_LOADS], got[CAL_LOADS_MEM], st.of[CAL_LOADS_MEM]);
  // No run from memory: the memory unit is the cache's, not 0.
  n = twin_runs(runs, (double[CAL_TERMS]){[CAL_ELEMS] = 1e-9, [CAL_LOADS] = 2e-9}, false);
  st = calibration_fit(runs, n, fit, got);
  CHECK(close_to(got[CAL_LOADS_MEM] * 1e9, 2) && st.of[CAL_LOADS_MEM] == CAL_BOUNDED,
        "no memory runs: load_mem = load = 2 ns: %g (%d)", got[CAL_LOADS_MEM], st.of[CAL_LOADS_MEM]);
  // The twin known, the memory unit fitted: its excess over the twin.
  n = twin_runs(runs, (double[CAL_TERMS]){[CAL_ELEMS] = 1e-9, [CAL_LOADS] = 2e-9, [CAL_LOADS_MEM] = 5e-9}, true);
  double known[CAL_TERMS] = {[CAL_ELEMS] = 1e-9, [CAL_LOADS] = 2e-9};
  for (int r = 0; r < n; r++) runs[r].known = 1e-9 * runs[r].count[CAL_ELEMS] + 2e-9 * runs[r].count[CAL_LOADS];
  calibration_fit(runs, n, (bool[CAL_TERMS]){[CAL_LOADS_MEM] = true}, known);
  CHECK(close_to(known[CAL_LOADS_MEM] * 1e9, 5), "load_mem fitted beside a known load: %g", known[CAL_LOADS_MEM]);
  // A unit counted a few words beside millions, in runs the other terms
  // leave 10% unexplained: the runs cannot price it, so it takes its
  // twin's unit (load_mem_shared over the known load_mem), not what
  // absorbs their residual (the fit without the rule: 135 us a word).
  for (int r = 0; r < 6; r++) {
    runs[r] = (CalibrationRun){.count = {[CAL_ELEMS] = 1e6 * (r + 1), [CAL_LOADS_SHARED] = r % 2 ? 2 : 0}};
    runs[r].known = 1e-9 * runs[r].count[CAL_ELEMS];
    runs[r].seconds = runs[r].known * (r % 2 ? 1.1 : 1);
  }
  double trickle[CAL_TERMS] = {[CAL_ELEMS] = 1e-9, [CAL_LOADS_MEM] = 5e-9};
  st = calibration_fit(runs, 6, (bool[CAL_TERMS]){[CAL_LOADS_SHARED] = true}, trickle);
  CHECK(trickle[CAL_LOADS_SHARED] == 5e-9 && st.of[CAL_LOADS_SHARED] == CAL_BOUNDED,
        "a trickle of shared loads: %g (%d), its twin 5e-9", trickle[CAL_LOADS_SHARED], st.of[CAL_LOADS_SHARED]);
  // A chain of twins (div over literal_div over mul): runs that divide by
  // data but never by a literal nor multiply leave literal_div and mul
  // undetermined; div is fitted as made, the others bounded (mul has no
  // twin: an excess over op of 0).
  for (int r = 0; r < 6; r++) {
    runs[r] = (CalibrationRun){.count = {[CAL_ELEMS] = 1000 * (r + 1), [CAL_DIVS] = 300 * (r % 3 + 1)}};
    runs[r].seconds = 1e-9 * runs[r].count[CAL_ELEMS] + 4e-9 * runs[r].count[CAL_DIVS];
  }
  double chain[CAL_TERMS] = {0};
  st = calibration_fit(runs, 6, (bool[CAL_TERMS]){[CAL_ELEMS] = true, [CAL_DIVS] = true, [CAL_LITERAL_DIVS] = true, [CAL_MULS] = true},
                       chain);
  CHECK(close_to(chain[CAL_DIVS] * 1e9, 4) && close_to(chain[CAL_ELEMS] * 1e9, 1) && chain[CAL_LITERAL_DIVS] == 0 &&
            st.of[CAL_DIVS] == CAL_FITTED && st.of[CAL_LITERAL_DIVS] == CAL_BOUNDED && st.of[CAL_MULS] == CAL_UNDETERMINED,
        "chained twins: div %g literal_div %g (%d %d %d)", chain[CAL_DIVS], chain[CAL_LITERAL_DIVS], st.of[CAL_DIVS],
        st.of[CAL_LITERAL_DIVS], st.of[CAL_MULS]);
  // Multiplications dearer than divisions by data in the runs: div is
  // bounded by the chain above it, through literal_div, never below mul.
  for (int r = 0; r < 6; r++) {
    runs[r] = (CalibrationRun){.count = {[CAL_ELEMS] = 1000 * (r + 1), [CAL_MULS] = 200 * (r % 2 + 1), [CAL_DIVS] = 300 * (r % 3 + 1)}};
    runs[r].seconds = 1e-9 * runs[r].count[CAL_ELEMS] + 3e-9 * runs[r].count[CAL_MULS] + 1e-9 * runs[r].count[CAL_DIVS];
  }
  memset(chain, 0, sizeof chain);
  st = calibration_fit(runs, 6, (bool[CAL_TERMS]){[CAL_ELEMS] = true, [CAL_DIVS] = true, [CAL_LITERAL_DIVS] = true, [CAL_MULS] = true},
                       chain);
  CHECK(chain[CAL_DIVS] >= chain[CAL_LITERAL_DIVS] && chain[CAL_LITERAL_DIVS] >= chain[CAL_MULS] && chain[CAL_MULS] > 0,
        "div %g >= literal_div %g >= mul %g", chain[CAL_DIVS], chain[CAL_LITERAL_DIVS], chain[CAL_MULS]);
  // A machine file that prices memory below the cache is read with the cache's price.
  char path[] = "/tmp/vecbsp-twins-XXXXXX";  // a path: machine_select reads it as a file
  int fd = mkstemp(path);
  const char *text = "{\"p\": 2, \"g\": 1, \"l\": 100, \"s\": 1e9, \"calibration\": {\"op\": 0, \"div\": 0, "
                     "\"elem\": 1e-9, \"load\": 3e-9, \"load_mem\": 1e-9, \"store\": 4e-10, \"mul\": 0, \"lat_fast\": 0, "
                     "\"lat_select\": 0, \"lat_mul\": 0, \"lat_div\": 0, \"exit\": 0, \"word\": 2e-9, \"barrier\": 1e-6, "
                     "\"literal_div\": 5e-10, \"unpack\": 1e-10}}";
  CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text), "writing %s", path);
  close(fd);
  Arena *a = arena_new();
  Machine m = machine_select(a, path);
  unlink(path);
  CHECK(m.cal.unit[CAL_LOADS_MEM] == 3e-9 && m.cal.unit[CAL_WORDS_MEM] == 2e-9 && m.cal.unit[CAL_LOADS] == 3e-9,
        "read: load_mem %g, word_mem %g", m.cal.unit[CAL_LOADS_MEM], m.cal.unit[CAL_WORDS_MEM]);
  // Through chains: div is at least literal_div (5e-10) and, the file having
  // no float_div, so is float_div (priced as div); unpack_mem at least
  // unpack, which is at least store (4e-10).
  CHECK(m.cal.unit[CAL_DIVS] == 5e-10 && m.cal.unit[CAL_FLOAT_DIVS] == 5e-10 && m.cal.unit[CAL_UNPACKED] == 4e-10 &&
            m.cal.unit[CAL_UNPACKED_MEM] == 4e-10,
        "read through chains: div %g float_div %g unpack %g unpack_mem %g", m.cal.unit[CAL_DIVS], m.cal.unit[CAL_FLOAT_DIVS],
        m.cal.unit[CAL_UNPACKED], m.cal.unit[CAL_UNPACKED_MEM]);
  arena_free(a);
}

// x < y beyond rounding (a share moved between equal units changes the last bit).
static bool less(double x, double y) { return x < y * (1 - 1e-12); }

// A random count in [0, 1000).
static int64_t some_count(void) { return rand() % 1000; }

// The prediction never falls as a count grows or as a share moves from the
// cache to memory, over random units (memory no cheaper than its twin) and
// random counts. Packed pairs are a discount on operations and stores, no
// more of them than of those; what grows with them is a packed pair: two
// operations and two stored words, one of each packed.
static void test_monotone(void) {
  srand(20);
  int falls = 0;
  for (int trial = 0; trial < 20000; trial++) {
    double unit[CAL_TERMS];
    for (int t = 0; t < CAL_TERMS; t++) unit[t] = (rand() % 4 == 0 ? 0 : rand() % 100) * 1e-10;
    calibration_floor_twins(unit);
    ExactCounts c = {0};
    for (size_t at = 0; at < offsetof(ExactCounts, invariant); at += sizeof(int64_t)) *(int64_t *)((char *)&c + at) = some_count();
    c.packed_ops %= c.ops + 1, c.packed_stores %= c.stores + 1;
    MemoryShares sh = {rand() % 5 / 4.0, rand() % 5 / 4.0, rand() % 5 / 4.0, rand() % 5 / 4.0, 0};
    double before = cost_local_seconds(unit, &c, sh);
    ExactCounts more = c;
    int64_t *field = (int64_t *)&more + rand() % (int)(offsetof(ExactCounts, invariant) / sizeof(int64_t));
    if (field == &more.packed_ops || field == &more.packed_stores)
      more.packed_ops++, more.ops += 2, more.packed_stores++, more.stores += 2;
    else
      *field += 1 + some_count();
    MemoryShares deeper = sh;
    double *choices[] = {&deeper.loads, &deeper.stores, &deeper.accumulator, &deeper.reloads}, *share = choices[rand() % 4];
    *share = fmin(1, *share + 0.25);
    falls += less(cost_local_seconds(unit, &more, sh), before) || less(cost_local_seconds(unit, &c, deeper), before);
    double counts[CAL_TERMS], grown[CAL_TERMS];
    for (int t = 0; t < CAL_TERMS; t++) counts[t] = grown[t] = (double)some_count();
    grown[rand() % CAL_TERMS] += 1 + some_count();
    falls += less(calibration_predict(unit, grown), calibration_predict(unit, counts));
  }
  CHECK(falls == 0, "%d of 20000 random count vectors predicted less time for more counts", falls);
}

//
// Folds of vectors (plan.c): the plan's flags, and the counts by hand.
//

// Four words of c, priced at 2 a word in the cache and 5 from memory, by
// their own share only: all in the cache with every other share at 1
// (others), all from memory with only theirs at 1 (own).
static void check_own_share(ExactCounts c, MemoryShares others, MemoryShares own, const char *what) {
  double unit[CAL_TERMS] = {[CAL_LOADS] = 2, [CAL_LOADS_MEM] = 5};
  CHECK(cost_local_seconds(unit, &c, others) == 8 && cost_local_seconds(unit, &c, own) == 20,
        "4 %s at 2 in cache, at 5 from memory: %g, %g", what, cost_local_seconds(unit, &c, others),
        cost_local_seconds(unit, &c, own));
}

// A process's counts in one superstep, plus the accumulator's.
static void check_counts(const ExactCounts *c, int64_t loads, int64_t stores, int64_t acc_loads, int64_t elems,
                         const char *what) {
  CHECK(c->loads == loads && c->stores == stores && c->acc_loads == acc_loads && c->elems == elems,
        "%s: loads %lld stores %lld acc_loads %lld elems %lld", what, (long long)c->loads, (long long)c->stores,
        (long long)c->acc_loads, (long long)c->elems);
}

static void test_vector_folds(void) {
  Arena *a = arena_new();
  Program *matvec2 = load_file(a, "examples/matvec2.vec");
  IrProgram *ir = lower_program(matvec2);
  Ir *fold = ir->main, *maker = fold->a;
  CHECK(fold->kind == IR_FOLD && fold->fuses_element && fold->body->in_place == 1 && fold->body->b->fused &&
            maker->body->kind == IR_MAP && maker->body->fused,
        "matvec2: the column's map runs in the body's loop, which adds into the accumulator");
  Program *sums = load_text(a, "param n m\ninput M : [n][m]int\nmain = fold (\\a b -> pair_map (+) (a, b)) M\n");
  ir = lower_program(sums);
  CHECK(!ir->main->fuses_element && ir->main->body->in_place == 1, "a fold of stored rows adds in place only");
  Program *twice = load_text(a, "param n m\ninput M : [n][m]int\n"
                                "main = fold (\\a b -> pair_map (+) (a, map (\\z -> z + hd a) b)) M\n");
  ir = lower_program(twice);
  CHECK(ir->main->body->in_place == 0, "an accumulator read twice is not overwritten");
  // p = 1, 10 rows of 7: the rows' 10 descriptors (2 words each) read; then
  // 9 steps reading the accumulator's 7 words in place and the row's 7,
  // writing the 7 over them (no store counted); one loop per row and per step.
  ExactResult x;
  exact_cost(a, sums, params_of(a, sums, "n=10 m=7"), plan_paper(lower_program(sums), 1), &x);
  check_counts(&x.steps[0].procs[0], 20 + 63, 0, 63, 10 + 63, "sums of rows in place");
  CHECK(x.accumulator == 7, "the accumulator: %g words", x.accumulator);
  // matvec2 at p = 1, n = 10 columns of m = 3: the columns' descriptors
  // (20) and v (10) read, and each column's 3 words by the fused map; the
  // first element stored (3 words, a loop of 3); 9 steps in place.
  exact_cost(a, matvec2, params_of(a, matvec2, "m=3 n=10"), plan_paper(lower_program(matvec2), 1), &x);
  check_counts(&x.steps[0].procs[0], 30 + 30, 3, 27, 10 + 3 + 27, "matvec2, p = 1");
  // At p = 2 process 0 folds the partial of process 1 into its own after
  // the barrier, from the message: both read as stored, a new vector stored.
  exact_cost(a, matvec2, params_of(a, matvec2, "m=3 n=10"), plan_paper(lower_program(matvec2), 2), &x);
  const ExactCounts *last = &x.steps[x.nsteps - 1].procs[0];
  check_counts(last, 6, 3, 0, 1 + 3, "matvec2's combine at process 0");
  // Priced: the accumulator's loads at its own share, whatever the others'.
  check_own_share((ExactCounts){.acc_loads = 4}, (MemoryShares){.loads = 1, .stores = 1, .reloads = 1},
                  (MemoryShares){.accumulator = 1}, "accumulator loads");
  Calibration cache = {.cache_bytes = 800};
  MemoryShares shares = cost_memory_shares(&cache, &(ExactResult){.p = 1, .footprint = 1000, .accumulator = 75});
  CHECK(shares.loads == 1 && shares.accumulator == 0.5, "shares: 8000 bytes all in memory, 600 half way from 400 to 800");
  shares = cost_memory_shares(&cache, &(ExactResult){.p = 2, .footprint = 1000, .accumulator = 25});
  CHECK(shares.accumulator == (400 - 200) / 800.0, "two accumulators of 200 bytes at p = 2: %g", shares.accumulator);
  arena_free(a);
}

// Packed pairs (plan_packed_pair), by hand: the running sums and counts of
// n = 10 at p = 1 store 10 pairs, 9 of them made by two additions, each
// pair one vector addition and one store. At p = 2 (the paper's plan, two
// passes) process 1's first pass stores its 5 local sums packed (4
// additions); its second adds the lower total to them, which scalar code
// made: gcc -O2 packs that pass for float pairs (the total is in a vector
// register already) and not for int pairs (read in its code). mss (5)'s
// operator, of two different operations, packs nothing.
static void test_packed_pairs(void) {
  Arena *a = arena_new();
  const char *sums = "main = prefix (\\a b -> (fst a + fst b, snd a + snd b)) (map (\\y -> (y, 1)) x)\n";
  Program *ints = load_text(a, arena_printf(a, "param n\ninput x : [n]int\n%s", sums));
  Program *floats = load_text(a, arena_printf(a, "param n\ninput x : [n]float\n%s",
                                                "main = prefix (\\a b -> (fst a + fst b, snd a + snd b)) "
                                                "(map (\\y -> (y, 1.0)) x)\n"));
  ExactCounts c = counts_of(a, ints, "n=10", 1, 0, NULL);
  CHECK(c.ops == 18 && c.packed_ops == 9 && c.stores == 20 && c.packed_stores == 10,
        "running pairs, p = 1: ops %lld packed %lld, stores %lld packed %lld", (long long)c.ops,
        (long long)c.packed_ops, (long long)c.stores, (long long)c.packed_stores);
  double unit[CAL_TERMS] = {[CAL_OPS] = 1, [CAL_STORES] = 10};
  CHECK(cost_local_seconds(unit, &c, (MemoryShares){0}) == 9 + 10 * 10, "priced: 9 operations, 10 stores");
  c = counts_of(a, ints, "n=10", 2, 1, NULL);
  CHECK(c.packed_ops == 4 && c.packed_stores == 5, "int pairs, p = 2, process 1: %lld packed operations, %lld stores",
        (long long)c.packed_ops, (long long)c.packed_stores);
  c = counts_of(a, floats, "n=10", 2, 1, NULL);
  CHECK(c.packed_ops == 4 + 5 && c.packed_stores == 5 + 5,
        "float pairs, p = 2, process 1: %lld packed operations, %lld stores", (long long)c.packed_ops,
        (long long)c.packed_stores);
  c = counts_of(a, load_file(a, "examples/mss5.vec"), "n=10", 1, 0, NULL);
  CHECK(c.packed_ops == 0 && c.packed_stores == 0, "mss (5): nothing packed");
  arena_free(a);
}

//
// Reloads: an operand each application reads in full, bound outside it.
//

static void test_reloads(void) {
  Arena *a = arena_new();
  Program *matvec1 = load_file(a, "examples/matvec1.vec");
  // p = 1, m = 3 rows of n = 10: the rows' descriptors (6 words), each row
  // (10) and v, read by the first row's product (10) and read again by the
  // other two (20); one application touches a row and v (20 words).
  ExactResult x;
  exact_cost(a, matvec1, params_of(a, matvec1, "m=3 n=10"), plan_paper(lower_program(matvec1), 1), &x);
  const ExactCounts *c = &x.steps[0].procs[0];
  CHECK(c->loads == 6 + 30 + 10 && c->reloads == 20 && c->invariant == 0 && x.reload_set == 20,
        "matvec1: loads %lld reloads %lld invariant %lld, set %g", (long long)c->loads, (long long)c->reloads,
        (long long)c->invariant, x.reload_set);
  // A vector the function makes itself is new in every application.
  Program *own = load_text(a, "param m n\ninput M : [m][n]int\n"
                              "main = map (\\r -> let w = map (\\z -> z + 1) r in fold (+) (pair_map (*) (w, w))) M\n");
  exact_cost(a, own, params_of(a, own, "m=3 n=10"), plan_paper(lower_program(own), 1), &x);
  CHECK(x.steps[0].procs[0].reloads == 0 && x.reload_set == 0, "a vector made per row is not read again: %lld",
        (long long)x.steps[0].procs[0].reloads);
  // In a data if, the dearer branch's: here the one that reads v.
  Program *branch = load_text(a, "param m n\ninput M : [m][n]int\ninput v : [n]int\n"
                                 "main = map (\\r -> if hd r > 0 then 0 else fold (+) (pair_map (*) (r, v))) M\n");
  exact_cost(a, branch, params_of(a, branch, "m=3 n=10"), plan_paper(lower_program(branch), 1), &x);
  CHECK(x.steps[0].procs[0].reloads == 20, "v read again in the else branch: %lld",
        (long long)x.steps[0].procs[0].reloads);
  // At p = 2 (blocks of 2 and 3 rows) each process reads v again for all
  // but its first row.
  exact_cost(a, matvec1, params_of(a, matvec1, "m=5 n=10"), plan_paper(lower_program(matvec1), 2), &x);
  int64_t again[2] = {0, 0};
  for (int i = 0; i < x.nsteps; i++)
    for (int k = 0; k < 2; k++) again[k] += x.steps[i].procs[k].reloads;
  CHECK(again[0] == 10 && again[1] == 20, "matvec1 at p = 2, rows 2 and 3: reloads %lld %lld", (long long)again[0],
        (long long)again[1]);
  // Priced at their own share, from the set one application touches.
  check_own_share((ExactCounts){.reloads = 4}, (MemoryShares){.loads = 1, .stores = 1, .accumulator = 1},
                  (MemoryShares){.reloads = 1}, "reloads");
  Calibration cache = {.cache_bytes = 800};
  MemoryShares shares = cost_memory_shares(&cache, &(ExactResult){.p = 1, .footprint = 1000, .reload_set = 75});
  CHECK(shares.loads == 1 && shares.reloads == 0.5, "a set of 600 bytes: half way from 400 to 800");
  // Beyond a core's first level (here 800 bytes, from 600 to 800), read
  // again at the memory's price, whatever the last level holds and p.
  Calibration l1 = {.cache_bytes = 1e9, .l1_bytes = 800};
  CHECK(cost_first_level_share(&l1, 75) == 0 && cost_first_level_share(&l1, 87.5) == 0.5 &&
            cost_first_level_share(&l1, 100) == 1 && cost_first_level_share(&l1, 1e6) == 1 &&
            cost_first_level_share(&cache, 1e6) == 0,
        "first level: 600 bytes none, 700 half, 800 all; none where its size is unknown");
  shares = cost_memory_shares(&l1, &(ExactResult){.p = 2, .footprint = 1000, .reload_set = 100});
  CHECK(shares.loads == 0 && shares.reloads == 1, "a set of 800 bytes per process at p = 2: arrays %g reloads %g",
        shares.loads, shares.reloads);
  arena_free(a);
}

//
// Invariants: work the same in every application of a function is counted
// where hoist.c moves it, once per application of the function around it;
// a vector of literals, nowhere.
//

typedef struct Invariant {
  const char *main;  // after "param m n\ninput x : [m]int\ninput v : [n]int\ninput M : [n][n]int\n"
  double exact, paper;  // W at p = 1, m = 4, n = 5, worked by hand
} Invariant;

static const Invariant invariants[] = {
    // y * 3 once per y (1 + 5 adds), not once per k (2 operations each)
    {"main = map (\\y -> map (\\k -> k + y * 3) v) x", 4 * (1 + 5), 4 * 5 * 2},
    // a division by data might fault: it stays in the inner loop
    {"main = map (\\y -> map (\\k -> k + 10 / y) v) x", 4 * 5 * 2, 4 * 5 * 2},
    // and so does one by a literal 0 (plan_division's DIVIDE)
    {"main = map (\\y -> map (\\k -> k + y % 0) v) x", 4 * 5 * 2, 4 * 5 * 2},
    // y * 2 out of two functions: once per y (1 + 25 adds)
    {"main = map (\\y -> map (\\r -> map (\\k -> k + y * 2) r) M) x", 4 * (1 + 25), 4 * 25 * 2},
    // s + 1 after s's let: per row 4 adds (the fold), 1, 5 multiplications
    {"main = map (\\r -> let s = fold (+) r in map (\\z -> z * (s + 1)) r) M", 5 * (4 + 1 + 5), 5 * (4 + 5 * 2)},
    // at top level it stays, as the plan places the top level's work
    {"main = map (\\y -> y + m * 2) x", 4 * 2, 4 * 2},
};

static void test_invariants(void) {
  Arena *a = arena_new();
  // A vector of literals is static data: no store, and its negation no
  // operation (plan_static_literal); with a variable in it, it is made
  // (3 words) at each of the 4 applications.
  Program *fixed = load_text(a, "param m\ninput x : [m]int\nmain = map (\\y -> y + fold (+) [1, -2, 3]) x\n");
  Program *made = load_text(a, "param m\ninput x : [m]int\nmain = map (\\y -> fold (+) [1, 2, y]) x\n");
  ExactCounts f = counts_of(a, fixed, "m=4", 1, 0, NULL), v = counts_of(a, made, "m=4", 1, 0, NULL);
  CHECK(f.stores == 4 && f.ops == 4 * 3 && v.stores == 4 + 4 * 3 && v.ops == 4 * 2,
        "static literal: stores %lld ops %lld; made: stores %lld ops %lld", (long long)f.stores, (long long)f.ops,
        (long long)v.stores, (long long)v.ops);
  for (size_t i = 0; i < sizeof invariants / sizeof *invariants; i++) {
    const Invariant *t = &invariants[i];
    Program *prog = load_text(a, arena_printf(a, "param m n\ninput x : [m]int\ninput v : [n]int\n"
                                                 "input M : [n][n]int\n%s\n", t->main));
    CostResult exact = analyse(a, prog, "m=4 n=5", MODEL_EXACT, 1), paper = analyse(a, prog, "m=4 n=5", MODEL_PAPER, 1);
    CHECK(exact.W == t->exact && paper.W == t->paper, "%s: W %g exact (want %g), %g paper (want %g)", t->main, exact.W,
          t->exact, paper.W, t->paper);
  }
  arena_free(a);
}

static bool near(double x, double y) { return fabs(x - y) < 1e-12; }

// The memory curve (docs/cost-model.md, "The memory curve"): shares made
// from kernels' times by hand, looked up between the points, per stream
// and per process count, and read from a machine file's JSON.
static void test_memory_curve(void) {
  double footprint[] = {0.5, 1, 1.5, 2, 4, 8};
  // Loads: 1 ns in the cache, 2 ns from memory (the median from 2 cache
  // sizes on, once 2.2 and 1.8 are pooled): a share of t / 2 where slower
  // than 1 ns. Stores (one load, the rest stored): 4 ns in the cache, 8
  // from memory, of which the load takes 2 at the load share.
  MemoryCurve c = {0};
  memory_curve_set(&c, 1, footprint, (double[]){1, 1, 1.5, 2, 2.2, 1.8}, (double[]){4, 4, 5, 8, 8, 9}, 6);
  const double *l = c.share[STREAM_LOADS], *st = c.share[STREAM_STORES];
  CHECK(c.n == 6 && l[0] == 0 && l[1] == 0 && l[2] == 0.75 && l[3] == 1 && l[4] == 1 && l[5] == 1,
        "loads: 0 0 0.75 1 1 1, got %g %g %g %g %g %g", l[0], l[1], l[2], l[3], l[4], l[5]);
  CHECK(st[1] == 0 && near(st[2], (5 - 0.75 * 2) / (8 - 2)) && st[3] == 1 && st[5] == 1,
        "stores: (5 - 1.5) / 6 at 1.5 cache sizes, got %g", st[2]);
  // A point slower than the next is pooled with it (1.2 and 1.1: 1.15
  // each); one slow point at 8 cache sizes does not move the price; a
  // kernel under 5% slower than in the cache (4.1 against 4) is in it.
  MemoryCurve d = {0};
  memory_curve_set(&d, 1, footprint, (double[]){1, 1.2, 1.1, 2, 2, 3}, (double[]){4, 4.1, 4.1, 8, 8, 8}, 6);
  CHECK(near(d.share[STREAM_LOADS][1], 0.575) && near(d.share[STREAM_LOADS][2], 0.575),
        "pooled: 1.15 / 2 twice, got %g %g", d.share[STREAM_LOADS][1], d.share[STREAM_LOADS][2]);
  CHECK(d.share[STREAM_STORES][1] == 0 && d.share[STREAM_STORES][2] == 0 && d.share[STREAM_STORES][3] == 1,
        "stores 2.5%% slower: in the cache, got %g", d.share[STREAM_STORES][1]);
  // A store kernel cheaper from memory than its load (1.9 against 2): no
  // store share but the last point's (dividing by the difference would
  // give (1.4 - 1.5) / (1.9 - 2) = 1 at 1.5 cache sizes).
  MemoryCurve e = {0};
  memory_curve_set(&e, 2, footprint, (double[]){1, 1, 1.5, 2, 2, 2}, (double[]){1, 1, 1.4, 1.9, 1.9, 1.9}, 6);
  CHECK(e.p == 2 && e.share[STREAM_STORES][2] == 0 && e.share[STREAM_STORES][4] == 0 && e.share[STREAM_STORES][5] == 1,
        "a store price below the load's: %g at 1.5 cache sizes", e.share[STREAM_STORES][2]);
  // Looked up linearly between the points, in bytes of an 800-byte cache.
  CHECK(memory_curve_share(&c, STREAM_LOADS, 800, 400) == 0 && memory_curve_share(&c, STREAM_LOADS, 800, 100) == 0 &&
            near(memory_curve_share(&c, STREAM_LOADS, 800, 1000), 0.375) &&
            near(memory_curve_share(&c, STREAM_LOADS, 800, 1400), 0.875) &&
            memory_curve_share(&c, STREAM_LOADS, 800, 1e6) == 1,
        "1.25 cache sizes half way from 0 to 0.75, 1.75 half way from 0.75 to 1");
  // The exact model reads the curve of one process at p = 1 and of several
  // at p > 1; without one, the fixed ramps.
  Calibration cal = {.cache_bytes = 800, .curve = {c}};
  CHECK(near(cost_memory_share(&cal, STREAM_LOADS, 125, 1), 0.375) &&
            near(cost_memory_share(&cal, STREAM_STORES, 150, 1), c.share[STREAM_STORES][2]) &&
            cost_memory_share(&cal, STREAM_LOADS, 75, 2) == 0.5,
        "125 words (1.25 cache sizes) by the curve at p = 1; at p = 2 the ramp");
  // Through JSON: the curve comes back as it went.
  Calibration back = {.cache_bytes = 800};
  json_t *j = memory_curves_json(&cal);
  const char *bad = memory_curves_read(j, &back);
  CHECK(!bad && back.curve[0].n == 6 && back.curve[1].n == 0 &&
            memcmp(back.curve[0].share, c.share, sizeof c.share) == 0,
        "read back: %s", bad ? bad : "a different curve");
  json_decref(j);
  const char *wrong[][2] = {
      {"[{\"p\": 1, \"footprint\": [1, 0.5], \"loads\": [0, 1], \"stores\": [0, 1]}]",
       "\"footprint\" must be positive and rising"},
      {"[{\"p\": 1, \"footprint\": [0.5, 1, 2], \"loads\": [0, 0.5, 0.2], \"stores\": [0, 1, 1]}]",
       "\"loads\" must rise from 0 to 1"},
      {"[{\"p\": 1, \"footprint\": [0.5, 1], \"loads\": [0.1, 1], \"stores\": [0, 1]}]",
       "\"loads\" must rise from 0 to 1"},
      {"[{\"p\": 1, \"footprint\": [0.5, 1], \"loads\": [0, 1], \"stores\": [0, 0.9]}]",
       "\"stores\" must rise from 0 to 1"},
      {"[{\"p\": 2, \"footprint\": [0.5, 1], \"loads\": [0, 1]}]",
       "\"stores\" must be an array of shares, one per footprint"},
      {"[{\"footprint\": [0.5, 1], \"loads\": [0, 1], \"stores\": [0, 1]}]",
       "each of \"memory_curves\" needs \"p\", an integer in [1, 1048576]"},
      {"[{\"p\": 2, \"footprint\": [0.5, 1], \"loads\": [0, 1], \"stores\": [0, 1]},"
       " {\"p\": 4, \"footprint\": [0.5, 1], \"loads\": [0, 1], \"stores\": [0, 1]}]",
       "\"memory_curves\" has two curves for one process, or two for several"},
  };
  for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
    json_t *w = json_loads(wrong[i][0], 0, NULL);
    Calibration none = {0};
    bad = memory_curves_read(w, &none);
    CHECK(bad && strcmp(bad, wrong[i][1]) == 0, "%s: %s", wrong[i][0], bad ? bad : "accepted");
    json_decref(w);
  }
}

// The counts of process 0 in the last superstep of the program text at
// params, p = 1, under the paper's plan.
static ExactCounts last_counts(Arena *a, const char *text, const char *params) {
  Program *prog = load_text(a, text);
  ExactResult x;
  exact_cost(a, prog, params_of(a, prog, params), plan_paper(lower_program(prog), 1), &x);
  return x.steps[x.nsteps - 1].procs[0];
}

// Copies of rows (redconcat), by hand: the prefixes of v are rows of
// lengths 1..6, which do not lie one after the other, so each is copied by
// a memcpy of its own (6 copies, their 21 words stored, beside the 12
// words of the 6 rows' descriptors that inits stores); the rows of a
// matrix do, and their concatenation is a view (no copy). Rows that hold
// rows of different lengths, the inits of a matrix's rows, are copied
// (the running code copies them when the arena's chunks break them up,
// docs/cost-model.md, "Copies of rows"). A copy's start-up is the core's:
// summed with an operation, not the larger of the two.
static void test_copies(void) {
  Arena *a = arena_new();
  ExactCounts c = last_counts(a, "param n\ninput v : [n]int\nmain = length (redconcat (inits v))\n", "n=6");
  CHECK(c.copies == 6 && c.stores == 21 + 12, "inits of 6, concatenated: %lld copies, %lld words stored",
        (long long)c.copies, (long long)c.stores);
  c = last_counts(a, "param m n\ninput M : [m][n]int\nmain = length (redconcat M)\n", "m=5 n=3");
  CHECK(c.copies == 0 && c.stores == 0, "the rows of a matrix, concatenated: %lld copies, %lld words stored",
        (long long)c.copies, (long long)c.stores);
  c = last_counts(a, "param m n\ninput M : [m][n]int\nmain = length (redconcat (map inits M))\n", "m=5 n=3");
  CHECK(c.copies == 5 && c.stores == 2 * 5 * 3 * 2 + 5 * 2,
        "the inits of 5 rows of 3, concatenated: %lld copies, %lld words stored (want 70: the 15 descriptors inits "
        "stores and their copies, the map's 5)", (long long)c.copies, (long long)c.stores);
  double unit[CAL_TERMS] = {[CAL_COPIES] = 3, [CAL_OPS] = 5};
  double t = cost_local_seconds(unit, &(ExactCounts){.copies = 2, .ops = 1}, (MemoryShares){0});
  CHECK(t == 11, "2 copies at 3 beside an operation at 5, both the core's: %g, want 11", t);
  arena_free(a);
}

static const TestGroup groups[] = {
    {"matvec-paper", test_matvec_paper}, {"matvec-exact", test_matvec_exact}, {"builtins", test_builtins},
    {"exact-blocks", test_exact_blocks}, {"symbolic", test_symbolic},         {"closed-forms", test_closed_forms},     {"errors", test_errors},
    {"shapes", test_shapes},             {"plan", test_plan},                 {"calibration", test_calibration},
    {"vector-folds", test_vector_folds}, {"reloads", test_reloads},       {"alternatives", test_alternatives},
    {"neighbours", test_neighbours},     {"invariants", test_invariants},
    {"planner", test_planner},           {"twins", test_twins}, {"streaming", test_streaming},               {"monotone", test_monotone},
    {"packed-pairs", test_packed_pairs}, {"memory-curve", test_memory_curve},
    {"copies", test_copies},
};

int main(int argc, char **argv) { return run_groups(groups, sizeof groups / sizeof *groups, argc, argv); }
