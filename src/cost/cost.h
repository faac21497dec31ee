// cost.h: static BSP cost prediction for VEC-BSP programs (Hayashi & Cole):
// machines and the analysis (the exact model is src/exec/exact.c, over the
// plan the code generator follows). docs/cost-model.md defines both models.
#ifndef VECBSP_COST_H
#define VECBSP_COST_H

#include "lang/lang.h"

//
// machine.c: BSP machine parameters.
//

// Operation constants of the paper model; the exact model always uses the
// defaults (binop 1, everything else 0).
typedef struct CostConstants {
  double binop;   // one primitive scalar operation (the papers' binOpConst)
  double length;  // length v
  double entry;   // entry v i
  double pair;    // pair a b, (a, b)
  double hd;      // hd v
  double tl;      // tl v
  double fst;     // fst p
  double snd;     // snd p
  double concat;  // one concatenation step (redconcat, inits, tails)
  double iter;    // starting an iter (iterConst)
} CostConstants;

// The exact model's counts that calibration gives a time each: the
// ExactCounts of exec.h (the share of loads, stores and unpacked words
// served from memory apart, as *_mem; the carried operations by LatClass;
// the mispredicted loop exits), then the words of h-relations (word_mem:
// from memory) and the barriers.
// A process's local time is the larger of its throughput terms (op ..
// vector) and its latency terms (lat_*), plus its mispredicted exits: a loop
// runs at the pace of its work or of its carried dependency, whichever is
// slower, and a mispredicted exit stalls both (docs/cost-model.md,
// "Calibration").
enum {
  CAL_OPS, CAL_DIVS, CAL_ELEMS, CAL_LOADS, CAL_STORES, CAL_LOADS_MEM, CAL_STORES_MEM, CAL_UNPACKED, CAL_UNPACKED_MEM, CAL_VECTORS,
  CAL_MULS,
  CAL_LAT_FAST, CAL_LAT_SELECT, CAL_LAT_MUL, CAL_LAT_DIV,
  CAL_EXITS,
  CAL_WORDS, CAL_WORDS_MEM, CAL_BARRIERS, CAL_TERMS
};
extern const char *const cal_term_names[CAL_TERMS];  // "op", ..., "word", "barrier"

// What `vecbsp probe` measured for the exact model's seconds
// (docs/cost-model.md, "Calibration").
typedef struct Calibration {
  bool present;              // the machine file has "calibration"
  double unit[CAL_TERMS];    // seconds per unit of each count (word: of h; barrier: each)
  double cache_bytes;        // the last-level cache the processes share ("cache_bytes"; 0: unknown)
} Calibration;

typedef struct Machine {
  const char *name;  // "sunhpc3500", or the "name" field of a machine file
  int p;             // number of processes
  double g;          // cost of one word of an h-relation, in operations
  double l;          // cost of a barrier, in operations
  double s;          // operations per second of one process
  CostConstants k;   // paper-model constants ("constants" in a machine file)
  Calibration cal;   // the exact model's per-unit times, when probed
} Machine;

extern const CostConstants cost_default_constants;

// The machine named spec (built-in: sunhpc3500) or read from the JSON file
// spec (the probe format of cli.md); NULL gives sunhpc3500. Errors are
// "vecbsp: error: FILE: ...".
Machine machine_select(Arena *a, const char *spec);

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
} CostStep;

typedef struct CostRequest {
  Program *prog;          // parsed, typechecked and size-checked
  const int64_t *params;  // value of each param by index (ignored where symbolic)
  const bool *symbolic;   // --symbolic: params kept as symbols (NULL: all of them)
  bool closed_form;       // --symbolic: W, H, S as expressions (paper model only)
  CostModel model;        // exact or paper
  Machine machine;        // p, g, l, s and the paper constants
} CostRequest;

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
  const char *W_form;       // closed forms with closed_form (else NULL)
  const char *H_form;
  const char *S_form;
  double analysis_seconds;  // time the analysis took
  int64_t shapes;           // distinct shapes built (the analysis' memory)
  double footprint_bytes;   // exact model: the memory one run touches
  double memory_share;      // exact model: the share of its memory traffic charged at memory rates
} CostResult;

//
// calibrate.c: per-unit times from measured runs.
//

// One measured run: its counts (summed over supersteps, busiest process;
// words of h and barriers) and its measured time.
typedef struct CalibrationRun {
  double count[CAL_TERMS];  // units of each term
  double seconds;           // measured time
  double known;             // of which the terms not being fitted explain this much
} CalibrationRun;

typedef struct ExactCounts ExactCounts;
typedef struct ExactStep ExactStep;
// The share of a run's memory traffic served from memory, not the cache,
// when it touches footprint words at p processes: none up to half the
// last-level cache, all from the whole cache (p = 1) or twice it (p > 1),
// growing linearly in between (docs/cost-model.md, "Calibration").
double cost_memory_share(const Calibration *cal, double footprint, int p);
// The shares of a run's traffic served from memory: of its arrays (the
// footprint's), of the accumulators folds overwrite in place (that of the
// largest, one per process), and of the data read again (the largest set
// one application touches, one per process).
typedef struct MemoryShares {
  double arrays;       // loads, stores, unpacked words, h-relations
  double accumulator;  // acc_loads
  double reloads;      // reloads: those of the largest set read again (ExactResult's reload_set)
} MemoryShares;
typedef struct ExactResult ExactResult;
MemoryShares cost_memory_shares(const Calibration *cal, const ExactResult *x);
// The local time of a process that did c, at these per-unit times.
double cost_local_seconds(const double unit[CAL_TERMS], const ExactCounts *c, MemoryShares shares);
// A superstep's calibration counts: its busiest process's local counts (the
// busiest by local time at cal's units, or by operations if cal is not
// present), the words of its h-relation and its barrier, if it ends in one.
void cost_step_counts(const Calibration *cal, const ExactStep *st, int p, bool barrier, MemoryShares shares,
                      double count[CAL_TERMS]);
// The time of these counts: the larger of work and latency, then words and
// barriers (docs/cost-model.md, "Calibration").
double cost_predict(const double unit[CAL_TERMS], const double count[CAL_TERMS]);

// Non-negative least squares over the terms marked in fit: unit[t] >= 0
// minimising the squared relative error of the runs, whose time less their
// known part the fitted terms are taken to explain; the other units are
// left as they are.
void calibration_fit(const CalibrationRun *runs, int n, const bool fit[CAL_TERMS], double unit[CAL_TERMS]);
// The coefficient of determination (R^2) of the runs' cost_predict times.
double calibration_r2(const CalibrationRun *runs, int n, const double unit[CAL_TERMS]);

// Predicts the cost of req->prog. Errors (shape errors, constructs with no
// closed form, limits) are diagnostics through error_at/fatal.
CostResult cost_analyse(Arena *a, const CostRequest *req);

// The shortest decimal text that reads back as x; integers have no point.
void cost_format_number(char *buf, size_t size, double x);

// Runs the shape analysis alone and reports the first static shape error
// (branches of a data 'if' with different shapes, pair_map on vectors of
// different lengths, fold/hd/tl of an empty vector, entry out of range,
// negative iter counts or dummyvec lengths, ...) through error_at.
void cost_shape_check(Program *prog, const int64_t *params);

#endif
