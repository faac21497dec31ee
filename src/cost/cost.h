// cost.h: static BSP cost prediction for VEC-BSP programs (Hayashi & Cole):
// machines and the analysis (the exact model is src/cost/exact.c, over the
// plan the code generator follows). docs/cost-model.md defines both models.
#ifndef VECBSP_COST_H
#define VECBSP_COST_H

#include "ir/ir.h"
#include "lang/lang.h"
#include "machine/machine.h"

//
// cost.c: the analysis.
//

typedef enum { MODEL_EXACT, MODEL_PAPER } CostModel;

const char *cost_model_name(CostModel m);  // "exact", "paper"

typedef struct CostStep {
  double w;          // operations of the busiest process
  double h;          // the h-relation: max over processes of max(sent, received) words
  Pos where;         // the application whose barrier ends it (main for the last step)
  const char *what;  // what ends it, e.g. "map: gather"
  // Exact model only:
  double count[CAL_TERMS];  // its calibration counts (cost_step_counts)
  double seconds;           // its time with the calibrated machine (0 if not calibrated)
  const struct ExactStep *exact;  // every process's counts
} CostStep;

typedef struct CostRequest {
  Program *prog;          // parsed, typechecked and size-checked
  const int64_t *params;  // value of each param by index (ignored where symbolic)
  const bool *symbolic;   // --symbolic: params kept as symbols (NULL: all of them)
  bool closed_form;       // --symbolic: W, H, S as expressions (paper model only)
  CostModel model;        // exact or paper
  Machine machine;        // p, g, l, s and the paper constants
  const Plan *plan;       // the exact model: the plan it predicts (NULL: chosen by cost_plan with
                          // plan_spec for `planning`, or for the machine)
  const Machine *planning;  // the machine the plan is chosen for, if not the one predicted
  const char *plan_spec;  // --plan (NULL: best)
} CostRequest;

typedef struct CostClosed CostClosed;

typedef struct CostResult {
  CostModel model;          // as requested
  Machine machine;          // as used
  CostStep *steps;          // the supersteps in order, the last (after the last barrier) included
  int nsteps;
  bool steps_truncated;     // more supersteps than listed (W, H, S still count them all)
  double W, H, S;           // totals: sum of w, sum of h, number of barriers
  double ops;               // W + H*g + S*l
  double seconds;           // ops / s, or with a calibrated machine the exact model's calibrated time
  bool calibrated;          // seconds come from the machine's calibration
  bool by_topology;         // seconds come from the machine's topology (exact model)
  bool by_levels;           // exact model on a hierarchical machine: seconds from its levels
  const char *W_form;       // closed forms with closed_form (else NULL)
  const char *H_form;
  const char *S_form;
  const char *where_form;   // closed forms: the definitions of the names they use, one a line (else NULL)
  const char *valid_form;   // closed forms: where they hold, such as "n >= 2" (NULL: everywhere)
  const CostClosed *closed; // closed forms: their values at a point (cost_closed_value)
  double analysis_seconds;  // time the analysis took
  int64_t shapes;           // distinct shapes built (the analysis' memory)
  double footprint_bytes;   // exact model: the memory one run touches
  double memory_share;      // exact model: the share of its loaded words charged at memory rates
  double store_share;       // exact model: the share of its stored words charged at memory rates
  const Plan *plan;         // exact model: the plan predicted
} CostResult;

//
//  exact.c: the exact cost model: the supersteps `vecbsp run` executes at p
// processes with the given params, computed from the IR and its plan
// without running anything (docs/cost-model.md, "The exact model").
//

// What one process does in one superstep, as the plan says the executor
// does it. ops is what the profile counts (w); the others are calibration
// counts that the generated code does not count.
typedef struct ExactCounts {
  int64_t ops;     // primitive scalar operations
  int64_t selects; // a compare's conditional move besides: max, min, a data if (counted once more in
                   // the calibration's op, not in W)
  int64_t shift_ops;  // instructions beyond the one counted of the ints' / and % by a power of two
                      // literal (shifts, adds, masks: plan_shift_extra; counted in the
                      // calibration's op, not in W)
  int64_t packed_ops;     // pairs computed by one vector operation and stored by one
  int64_t packed_stores;  // 16-byte store (plan_packed_pair): an operation and a store
                          // instruction fewer each than counted (W and the words keep them)
  int64_t divs;    // of which / and % by a divisor that is not an integer literal
  int64_t muls;    // of which integer * with no literal operand (by a literal, the compiler shifts and adds)
  int64_t literal_divs;  // / and % by an integer literal: a multiplication by the reciprocal and shifts
  int64_t float_divs;    // float / by anything but a power of two literal: a float division
  int64_t elems;   // skeleton loop iterations (elements mapped, operator applications, iter rounds)
  int64_t loads;   // 8-byte words read from stored arrays (a received block included)
  int64_t stores;  // 8-byte words written to stored arrays (results, copies, packing)
  int64_t unpacked;  // words copied out of received messages (data another core wrote)
  int64_t vectors;   // vectors packed into messages or unpacked from them one by one
  int64_t copies;    // rows redconcat copies, a memcpy each: a call's start-up, beside the
                     // words' loads and stores
  int64_t carried[LAT_CLASSES];  // operations on the carried dependencies of loops, by class, times the iterations
  int64_t exits;     // loop exits mispredicted: of long loops whose trip count changed since their last run
  int64_t acc_loads;   // words read from a fold's accumulator that its body overwrites in place
                       // (and as many stores over them)
  int64_t reloads;     // words read again: an operand bound outside a skeleton's function, read
                       // in full by each application, from its second application on
  int64_t invariant;   // while one application is tallied: its loads of such operands (apply
                       // turns them into one application's loads and the rest's reloads)
} ExactCounts;

// An exchange of a superstep by one of the plan's patterns, as a machine
// with a topology runs it (src/cost/topology.c): the pattern and its size.
typedef struct ExactCollective {
  Exchange xch;  // the pattern (ranges.h)
  int round;     // XCH_TREE's round
  double words;  // XCH_BCAST: the value; XCH_TREE, XCH_BUTTERFLY: the round's largest message;
                 // XCH_NEIGHBOURS: the largest element sent; the others: every process's part
} ExactCollective;
// How a superstep synchronises on a hierarchical machine (docs/hierarchical.md).
typedef enum {
  LEVEL_FLAT,    // every process together: a flat superstep
  LEVEL_UP,      // a round up the levels: each group's children send to its lead, which synchronises them
  LEVEL_DOWN,    // a round down: each lead sends its children; no synchronisation
  LEVEL_WITHIN,  // a round in which the processes of each group exchange among themselves,
                 // synchronised group by group
  LEVEL_WAYS
} LevelWay;
extern const char *const level_way_names[LEVEL_WAYS];  // "flat", "up", "down", "within"

typedef struct ExactStep {
  int64_t w;           // operations of the busiest process (most.ops)
  int64_t h;           // max over processes of max(words sent, words received)
  Pos where;           // the skeleton whose barrier ends it (main, for the last)
  const char *what;    // what ends it: "map: fetch", "fold: partial results", ..., "end"
  ExactCounts most;    // each count's maximum over the processes
  ExactCounts *procs;  // each process's counts, by pid (p entries)
  int64_t *sent;       // words each process sends, by pid
  int64_t *recv;       // words each process receives, by pid
  ExactCollective *collectives;  // its exchanges, in order
  int ncollectives;
  LevelWay way;        // a round of a level pattern (ranges.h), whose groups synchronise apart, or flat
  int round;           // not flat: the round (0: the innermost masters)
} ExactStep;

typedef struct ExactResult {
  ExactStep *steps;  // the supersteps in order, the last (ending the program, h = 0) included
  int nsteps;        // steps listed: S + 1 unless truncated
  bool truncated;    // more supersteps than EXACT_STEPS_LISTED: W, H, S still count them all
  int p;             // processes
  int64_t W, H;      // sums of w and h over all supersteps
  int64_t S;         // barriers
  int64_t shapes;    // distinct shapes the analysis built (its memory)
  double footprint;  // words of memory one run touches: the inputs, every word stored and
                     // every word copied into or out of a message
  double accumulator;  // words of the largest accumulator a fold overwrites in place (on one process)
  double reload_set;   // words one application touches, of the largest that reads an operand again
                       // (on one process): what must stay in the cache for reloads to hit it
} ExactResult;

enum { EXACT_STEPS_LISTED = 100000 };

// Predicts prog into out, building the shapes and out's supersteps in arena a
// (prog's IR is lowered and planned once, in its own arena). Assumes the
// program passes cost_shape_check; limits are diagnostics (error_at).
void exact_cost(Arena *a, Program *prog, const int64_t *params, const Plan *pl, ExactResult *out);

// The shares of a run's traffic served from memory: of its arrays (the
// footprint's), of the accumulators folds overwrite in place (that of the
// largest, one per process), and of the data read again (the largest set
// one application touches, one per process).
typedef struct MemoryShares {
  double loads;        // loads, h-relations' words
  double stores;       // stores, accumulators' stores, unpacked words
  double accumulator;  // acc_loads
  double reloads;      // reloads: those of the largest set read again (ExactResult's reload_set)
  double streaming;    // of a superstep (cost_step_shares): the share of its memory words other
                       // processes stream at the same time, at the shared units (*_mem_shared)
} MemoryShares;

// The exact model's costs of the alternatives, for the planner
// (planner.c): one run under a base plan that, at each region it reaches,
// costs every alternative of that region, and at every top-level node
// every conversion of the node's value, in seconds on a machine, with the
// memory shares of the run the planner expects.
// By way (0: flat, 1: down a hierarchical machine's levels, ROOT to BLOCK or
// ALL only), by layout from, by layout to.
typedef double LayoutCosts[2][LAY_NONE][LAY_NONE];
typedef struct AltCosts {
  const RegionChoice *alt;  // the region's alternatives (given)
  int nalts;
  double *seconds;          // by alternative: its steps, its operands where it reads them, summed over its runs
  LayoutCosts *fetch;       // by fetch item (its captured variables, then its captured inputs): converting it
} AltCosts;
typedef struct PlanCosts {
  AltCosts *region;    // by region id - 1
  LayoutCosts *conv;   // by node id: converting its value, summed over its runs
  bool *reached;       // by node id: evaluated at top level at least once
  MemoryShares shares; // (given) the shares every cost assumes
} PlanCosts;
void exact_plan_costs(Arena *a, Program *prog, const int64_t *params, const Plan *base, const Machine *m,
                      PlanCosts *costs);

//
// cost.c: the exact model's seconds.
//

// A superstep's seconds on machine m: calibrated, or (w + h g + l) / s.
double cost_step_seconds(const Machine *m, const ExactStep *st, int p, bool barrier, MemoryShares shares);
// The seconds of n supersteps run one after the other from a common start,
// the last ending in a barrier only if last_closed: on a flat machine the
// sum of their cost_step_seconds; on a hierarchical one (sgl.c) each round
// of a level pattern synchronises its groups apart. per_step (if given)
// receives what each adds to the run's time.
double cost_steps_seconds(const Machine *m, const ExactStep *st, int n, int p, bool last_closed, MemoryShares shares,
                          double *per_step);

//
// sgl.c: Li & Hains' SGL cost model (docs/hierarchical.md).
//

// The cost of one superstep at a master: its own work (operations, at its
// c), its slowest child's cost, the words it scatters to and gathers from
// its children and its synchronisation: w c + max_i child_i + k_down g_down
// + k_up g_up + l (the paper's formula, section 2.3).
double sgl_superstep(const MachineNode *master, double work, const double *child, int nchild, double k_down, double k_up);
// Its phases (section 2.4): a scatter of k words costs k g_down and needs no
// synchronisation; a gather of k words costs k g_up + l.
double sgl_scatter(const MachineNode *master, double words);
double sgl_gather(const MachineNode *master, double words);
// The paper's dh (section 3.4, Table 2) of p m elements on a master of p
// workers holding m each (p and m powers of two), plus costing w_plus
// operations and times w_times, the communication derived from the
// algorithm (docs/hierarchical.md, "dh"): the workers' sequential dh, then
// log2 p stages, the master moving every block up and down in each.
double sgl_dh(const MachineNode *master, double m, double w_plus, double w_times);

// The share of a run's kind of memory traffic served from memory, not the
// cache, when it touches footprint words at p processes: by the machine's
// measured memory curve; without one, none up to half the last-level
// cache (p = 1) or a quarter of it (p > 1), all from the whole cache
// (p = 1) or 5/4 of it (p > 1), growing linearly in between
// (docs/cost-model.md, "The memory curve").
double cost_memory_share(const Calibration *cal, StreamKind kind, double footprint, int p);
// The share of a set of words read again that costs as memory words: the
// part beyond a core's first-level cache, from 3/4 of it to all of it
// (docs/cost-model.md, "Reloads").
double cost_first_level_share(const Calibration *cal, double words);
MemoryShares cost_memory_shares(const Calibration *cal, const ExactResult *x);
// The local time of a process that did c, at these per-unit times.
double cost_local_seconds(const double unit[CAL_TERMS], const ExactCounts *c, MemoryShares shares);
// The run's shares for superstep st: with its streaming, how much of the
// busiest streamer's memory words the other processes stream beside it
// (the mean over them of their words relative to its, at most 1 each).
MemoryShares cost_step_shares(MemoryShares shares, const ExactStep *st, int p);
// A superstep's calibration counts: its busiest process's local counts (the
// busiest by local time at cal's units, or by operations if cal is not
// present), the words of its h-relation and its barrier, if it ends in one.
// With more processes than cores (cores > 0), the local counts and the words
// grow to the share of the whole superstep's each core runs.
void cost_step_counts(const Calibration *cal, int cores, const ExactStep *st, int p, bool barrier, MemoryShares shares,
                      double count[CAL_TERMS]);


//
// topology.c: costs on a machine with an interconnect topology
// (docs/topology.md): the thesis's functions and a plan's supersteps.
//

// The thesis's costs of its functions on a topology (section 6.2), in its
// time units, for n elements already distributed block by block (those of
// the tree's scan at its leaves), each application of the sequential
// function costing cf: map, s_fold (the partial results one element),
// s_scan, and cross_product of them with ys of m elements on processor 0
// (broadcast first).
double topo_map(const Topology *t, double n, double cf);
double topo_s_fold(const Topology *t, double n, double cf);
double topo_s_scan(const Topology *t, double n, double cf);
double topo_cross_product(const Topology *t, double n, double m, double cf);
// g_fold: the elements are lists of w scalars and the partial results grow
// (merge, append); g(l1, l2) is the function's cost on lists of l1 and l2
// scalars.
typedef double (*TopoListCost)(double l1, double l2, void *ctx);
double topo_g_fold(const Topology *t, double n, double w, TopoListCost g, void *ctx);
// get_neigh: every element with its neighbours, the local work costing
// ce per element (the thesis's G).
double topo_get_neigh(const Topology *t, double n, double ce);
// Its exchange alone: each block's first and last elements, of `bytes`
// each, to the processors holding their neighbours (a plan's
// XCH_NEIGHBOURS).
double topo_neighbours_exchange(const Topology *t, double bytes);

// A superstep's seconds on m's topology with p processes: its busiest
// process's operations at m->s per second, then each of its exchanges by
// the topology's routine for it (docs/topology.md, "Plans").
double topology_step_seconds(const Machine *m, const ExactStep *st, int p);

// planner.c: the plan of prog for the machine m (its p) and these params,
// as spec (--plan) asks: the papers' template ("paper") or the planner's
// choice ("best"), within spec's settings; block_result lets main's value
// stay distributed (written by blocks). Errors in spec are fatal.
Plan *cost_plan(Program *prog, const int64_t *params, const Machine *m, const char *spec, bool block_result);
// The plan and what it was chosen over (vecbsp plan): each region's
// alternatives with the search's estimate of the whole program's seconds
// with that alternative (the rest chosen at their best).
typedef struct RegionReport {
  RegionChoice *alt;
  int nalts;
  double *program;  // by alternative: seconds (HUGE when it cannot be had)
} RegionReport;
typedef struct PlanReport {
  Plan *plan;            // the chosen plan
  double seconds;        // its predicted seconds on the machine (the exact model)
  double paper_seconds;  // the papers' template's
  RegionReport *region;  // by region id - 1 (NULL for the template)
  double margin;         // --plan's margin=
  double set_aside_seconds;  // the cheapest plan on p processes, set aside for the margin: its seconds (0: none)
} PlanReport;
PlanReport cost_plan_report(Program *prog, const int64_t *params, const Machine *m, const char *spec, bool block_result);
// A plan's predicted seconds on machine m (the exact model).
double cost_plan_seconds(Program *prog, const int64_t *params, const Plan *pl, const Machine *m);

// Predicts the cost of req->prog. Errors (shape errors, constructs with no
// closed form, limits) are diagnostics through error_at/fatal.
CostResult cost_analyse(Arena *a, const CostRequest *req);

// A closed form's W, H and S at the params (by index) and p: false where
// its conditions do not hold (the analysis gives the value there).
bool cost_closed_value(const CostClosed *cf, const int64_t *params, int p, double out[3]);
// The conditions as a bound on one parameter: they hold from *from on.
bool cost_closed_from(const CostClosed *cf, int *param, int64_t *from);
// The paper model's closed forms of prog, every param a symbol, with
// machine m's constants (in arena a), or NULL when it has none.
const CostClosed *cost_closed_forms(Arena *a, Program *prog, const Machine *m);
// The paper model's prediction on m (its p) at params (by index) from the
// closed forms, into r (W, H, S, ops, seconds): false where they do not
// hold (or cf is NULL), and the analysis gives it.
bool cost_closed_predict(const CostClosed *cf, const Machine *m, const int64_t *params, CostResult *r);

// The shortest decimal text that reads back as x; integers have no point.
void cost_format_number(char *buf, size_t size, double x);

// Runs the shape analysis alone and reports the first static shape error
// (branches of a data 'if' with different shapes, pair_map on vectors of
// different lengths, fold/hd/tl of an empty vector, entry out of range,
// negative iter counts or dummyvec lengths, ...) through error_at.
void cost_shape_check(Program *prog, const int64_t *params);

#endif
