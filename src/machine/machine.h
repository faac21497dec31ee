// machine.h: the machines programs are costed for and run on: the BSP
// parameters p, g, l, s, the paper model's operation constants, the exact
// model's calibration (the seconds of each count, fitted to measured runs)
// and, for a hierarchical machine, its tree of levels. docs/cost-model.md,
// "Machines"; docs/hierarchical.md.
#ifndef VECBSP_MACHINE_H
#define VECBSP_MACHINE_H

#include "util/util.h"

#include <jansson.h>

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
// ExactCounts of cost.h (the share of loads, stores and unpacked words
// served from memory apart, as *_mem, and of those the part streamed while
// other processes stream too, as *_mem_shared: the processes then share the
// memory's bandwidth; the carried operations by LatClass;
// the mispredicted loop exits), then the words of h-relations (word_mem:
// from memory) and the barriers.
// A process's local time is the largest of its core's terms (op .. copy
// but mul, a *_mem word priced as its in-cache twin), its memory's (the *_mem
// terms), its latency terms (lat_*) and its multiplier's (mul), plus its
// mispredicted exits: a loop runs at the pace of its instructions, of its
// memory stream, of its carried dependency or of its one integer
// multiplier, whichever is slowest, and a mispredicted exit stalls them all
// (docs/cost-model.md, "Calibration").
enum {
  CAL_OPS, CAL_DIVS, CAL_ELEMS, CAL_LOADS, CAL_STORES, CAL_LOADS_MEM, CAL_STORES_MEM, CAL_UNPACKED, CAL_UNPACKED_MEM, CAL_VECTORS,
  CAL_MULS, CAL_LITERAL_DIVS, CAL_FLOAT_DIVS, CAL_LOADS_SHARED, CAL_STORES_SHARED, CAL_UNPACKED_SHARED, CAL_ACC_STORES, CAL_ACC_STORES_MEM, CAL_COPIES,
  CAL_LAT_FAST, CAL_LAT_SELECT, CAL_LAT_MUL, CAL_LAT_DIV, CAL_LAT_FLOAT,
  CAL_EXITS,
  CAL_WORDS, CAL_WORDS_MEM, CAL_BARRIERS, CAL_TERMS
};
extern const char *const cal_term_names[CAL_TERMS];  // "op", ..., "word", "barrier"

// The streams a memory curve prices apart: words loaded (and sent), words
// stored (and unpacked).
typedef enum { STREAM_LOADS, STREAM_STORES, STREAM_KINDS } StreamKind;
enum { MEMORY_CURVE_POINTS = 16 };
extern const char *const memory_stream_names[STREAM_KINDS];  // "loads", "stores"

// The share of a stream's words the memory serves, not the cache, by the
// run's footprint, as `vecbsp probe` measured it on p processes
// (docs/cost-model.md, "The memory curve").
typedef struct MemoryCurve {
  int n;                                            // points (0: not measured)
  int p;                                            // the processes it was measured on
  double footprint[MEMORY_CURVE_POINTS];            // in cache sizes (cache_bytes), rising
  double share[STREAM_KINDS][MEMORY_CURVE_POINTS];  // from 0, never falling, to 1
} MemoryCurve;

// What `vecbsp probe` measured for the exact model's seconds
// (docs/cost-model.md, "Calibration").
typedef struct Calibration {
  bool present;              // the machine file has "calibration"
  double unit[CAL_TERMS];    // seconds per unit of each count (word: of h; barrier: each)
  double cache_bytes;        // the last-level cache the processes share ("cache_bytes"; 0: unknown)
  double l1_bytes;           // a core's first-level data cache ("l1_bytes"; 0: unknown)
  MemoryCurve curve[2];      // measured on one process, on several ("memory_curves"; n = 0: none)
} Calibration;

typedef struct Topology Topology;
typedef struct MachineTree MachineTree;

typedef struct Machine {
  const char *name;  // "sunhpc3500", or the "name" field of a machine file
  const Topology *topology;  // the interconnect of a topology machine (NULL: a BSP machine)
  int p;             // number of processes
  int cores;         // processors that run processes at once (0: one for every process)
  int probed_p;      // the p its g, l and calibration were measured at (0: not probed)
  const char *backend;  // the backend they were measured on (NULL: not probed)
  double g;          // cost of one word of an h-relation, in operations
  double l;          // cost of a barrier, in operations
  double s;          // operations per second of one process
  CostConstants k;   // paper-model constants ("constants" in a machine file)
  Calibration cal;   // the exact model's per-unit times, when probed
  const MachineTree *tree;  // a hierarchical machine's levels (NULL: a flat BSP machine);
                            // p is then its workers, and g, l, s its flat parameters
} Machine;

extern const CostConstants machine_default_constants;

// The machine named spec (built-in: sunhpc3500, the papers'; local, a
// probed shared-memory multicore) or read from the JSON file spec (the
// probe format of cli.md); NULL gives sunhpc3500. Errors are
// "vecbsp: error: FILE: ...".
Machine machine_select(Arena *a, const char *spec);

//
// topology.c: the interconnects of Rangaswami's thesis (chapter 6) and the
// "topology" object of a machine file (docs/topology.md). Links are
// one-port: a processor takes part in one transfer at a time, and a transfer
// of b bytes between neighbours takes K0 + b / K1.
//

typedef enum { TOPO_HYPERCUBE, TOPO_LINEAR, TOPO_TORUS, TOPO_TORUS_NONUNIFORM, TOPO_TREE, TOPO_KINDS } TopologyKind;

struct Topology {
  TopologyKind kind;
  int p;                 // processors
  int d;                 // hypercube: dimension, p = 2^d; tree: depth, p = (s^(d+1) - 1) / (s - 1)
  int p1, p2;            // torus: processors in a row and in a column (powers of two, 2 <= p1 <= p2),
                         // numbered row by row; the non-uniform torus lacks row 0's wrap-around link
  int s;                 // tree: arity (processors numbered in pre-order)
  double K0;             // start-up of a transfer, in time units (seconds, with "s" in operations per second)
  double K1;             // bandwidth, bytes per time unit
  double element_bytes;  // bytes of one scalar on the links (the thesis's F_t)
};

const char *topology_kind_name(TopologyKind k);  // "hypercube", "linear", "torus", "torus-nonuniform", "tree"
struct json_t;
// Reads a machine file's "topology" object into t; false with the problem in err.
bool topology_read(struct json_t *obj, Topology *t, char *err, size_t size);
struct json_t *topology_json(const Topology *t);  // the description, as the file gives it
char *topology_describe(Arena *a, const Topology *t);  // "hypercube of 16 processors (d = 4)"
// The processor counts of the machines of t's kind and links that fit in
// t (it may be configured smaller: a subcube, the top levels of the tree),
// smallest first, into sizes (room for max); their number (the first max
// written when there are more).
int topology_sizes(const Topology *t, int *sizes, int max);
// The smallest such machine with p processors at least (p <= t->p).
Topology topology_fit(const Topology *t, int p);
// The links on a shortest path between processors a and b.
int topology_hops(const Topology *t, int a, int b);
// The time of a transfer of b bytes between neighbours: K0 + b / K1.
double topology_transfer(const Topology *t, double bytes);
// The thesis's communication routines for B bytes (section 6.1): broadcast
// (all B to every processor), scatter and gather (B / p each), and total
// exchange (every processor's B / p to every other).
double topology_broadcast(const Topology *t, double B);
double topology_scatter(const Topology *t, double B);
double topology_gather(const Topology *t, double B);
double topology_total_exchange(const Topology *t, double B);
// levels.c: hierarchical machines (Li & Hains' SGL computer): a tree whose
// root and inner nodes are masters and whose leaves are the workers, every
// node with costs of its own (docs/hierarchical.md). All in seconds.
//

typedef struct MachineNode MachineNode;
struct MachineNode {
  const char *name;      // what the level is, e.g. "node", "core" (NULL: the file gives none)
  int p;                 // children (0: a worker)
  MachineNode **child;   // by position, left to right
  double c;              // seconds per unit of work (one operation) on its processor
  double g_down, g_up;   // a master's seconds per word scattered to, gathered from its children
  double l;              // a master's seconds to synchronise a gather
  int first, leaves;     // its workers, [first, first + leaves), numbered left to right
  int depth;             // 0 at the root
};

struct MachineTree {
  MachineNode *root;
  int leaves;            // P: the workers, the processes of a plan for the machine
  int rounds;            // levels of masters: the depth of the deepest worker
  MachineNode **worker;  // [k]: worker k
  MachineNode **group;   // [r * leaves + k]: the master of worker k's group at round r (0: the
                         // innermost masters; round r is depth rounds - 1 - r), NULL where k is
                         // above that depth
  int *lead;             // [r * leaves + k]: the first worker of that group (k where none)
};

enum { MACHINE_TREE_LEAVES_MAX = 1 << 16, MACHINE_TREE_DEPTH_MAX = 32 };

// Reads the "levels" object of a machine file into *out; NULL, or what is
// wrong with it (a message naming the node, e.g. "levels.children[1]: ...").
const char *machine_tree_read(Arena *a, json_t *levels, MachineTree **out);
// The one-level tree of a flat BSP machine: a master of p workers with c =
// 1/s, g_down = g_up = g/s and l = l/s (the flat machine is its one-level case).
MachineTree *machine_tree_of_flat(Arena *a, const Machine *m);
// A tree's flat BSP parameters (docs/hierarchical.md, "Flat supersteps on a
// tree"): s = 1/c of the slowest worker, g the slowest level's per-word time
// and l the synchronisation of every level on the longest path (the paper's
// L), both in operations at s.
void machine_tree_flat_params(const MachineTree *t, double *g, double *l, double *s);
// "ranks 2 x threads 2 (4 workers)", or "3 levels, heterogeneous (5 workers)".
char *machine_tree_text(Arena *a, const MachineTree *t);

//
// curve.c: the memory curve, from the probe's times to the share a run's
// footprint gives, and in a machine file's "memory_curves".
//

// The curve on p processes from the probe's kernels' seconds per element
// at footprint[k] cache sizes (rising; the first in the cache, the last in
// memory): a load kernel (one word loaded an element) and a store kernel
// (one loaded, the rest stored). Each stream's share at a point is what
// gives its kernel its time there, where it takes over 5% longer than in
// the cache: the kernel's time (less the store kernel's load, at the load
// share) over its price from memory, the median of its times from 2 cache
// sizes on (docs/cost-model.md, "The memory curve").
void memory_curve_set(MemoryCurve *c, int p, const double *footprint, const double *load_seconds,
                      const double *store_seconds, int n);
// The share of kind's words a run of footprint bytes takes from memory by
// c (of a cache of cache_bytes): linear between its points, none before
// the first, all after the last.
double memory_curve_share(const MemoryCurve *c, StreamKind kind, double cache_bytes, double footprint);
// The curve cal has for a run on p processes (NULL: none).
const MemoryCurve *memory_curve_for(const Calibration *cal, int p);
// Reads a machine file's "memory_curves" (an array of
// {"p", "footprint", "loads", "stores"}) into cal; NULL, or what is wrong.
const char *memory_curves_read(const json_t *curves, Calibration *cal);
// cal's curves as "memory_curves" reads them (an empty array: none).
json_t *memory_curves_json(const Calibration *cal);
// A JSON array of the n numbers of v.
json_t *machine_json_numbers(const double *v, int n);

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

// A process's local time for these counts: the largest of its bounds, its
// core's throughput (every instruction, a word streamed from memory as its
// in-cache twin's), the memory's (the words streamed from it), the latency
// of its loops' carried dependencies and its multiplier's turns; plus its
// mispredicted exits (docs/cost-model.md, "Calibration").
double calibration_local_seconds(const double unit[CAL_TERMS], const double count[CAL_TERMS]);
// The time of these counts: their local time, then words and barriers.
double calibration_predict(const double unit[CAL_TERMS], const double count[CAL_TERMS]);

// The unit a unit is bounded by, its twin, or -1: a memory-resident unit's
// cache-resident one (load_mem: load, ..., word_mem: word), a word
// unpacked's store (unpack: store), a division by data's division by a
// literal (div: literal_div), and a division's multiplication
// (literal_div, float_div: mul). A twin may have its own twin.
int calibration_twin(int term);
// Raises every unit to at least its twin's (twins first).
void calibration_floor_twins(double unit[CAL_TERMS]);

// What a fit made of each unit.
typedef enum {
  CAL_NOT_FITTED,    // not among the units fitted
  CAL_FITTED,        // determined by the runs (> 0)
  CAL_BOUNDED,       // a unit the runs price no dearer than its twin: the twin's value
  CAL_UNDETERMINED,  // the runs do not tell it from the others: 0
} CalibrationFitKind;
typedef struct CalibrationStatus {
  CalibrationFitKind of[CAL_TERMS];
} CalibrationStatus;

// Non-negative least squares over the terms marked in fit: unit[t] >= 0
// minimising the squared relative error of the runs, whose time less their
// known part the fitted terms are taken to explain; the other units are
// left as they are. A unit is never below its twin: it is fitted as the
// twin's unit plus a non-negative excess.
CalibrationStatus calibration_fit(const CalibrationRun *runs, int n, const bool fit[CAL_TERMS], double unit[CAL_TERMS]);
// calibration_fit where the runs' times are their largest bounds: rounds of
// fitting each run's binding bound's terms (and its exits, words and
// barriers), then finding each run's binding bound again, until they
// settle. The first round takes a run as bound by its latency if its known
// latencies explain most of it, by the memory if most of its words stream
// from memory, by the multiplier if half its operations or more multiply,
// else by its core.
CalibrationStatus calibration_fit_bound(const CalibrationRun *runs, int n, const bool fit[CAL_TERMS],
                                        double unit[CAL_TERMS]);
// The coefficient of determination (R^2) of the runs' calibration_predict times.
double calibration_r2(const CalibrationRun *runs, int n, const double unit[CAL_TERMS]);

#endif
