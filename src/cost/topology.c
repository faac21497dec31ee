// topology.c: costs on a machine with an interconnect topology
// (Rangaswami's thesis, chapter 6; docs/topology.md): the thesis's closed
// forms for its functions, each the sum of the steps of the algorithm it
// summarises (where the printed simplification differs, the algorithm's),
// and the seconds of a plan's superstep, whose exchanges run by the
// topology's communication routines (src/machine/topology.c).
#include "cost/cost.h"

#include <math.h>

// The elements each processor holds: n rounded up to a multiple of the
// processors (the thesis's n').
static double share(double n, double processors) { return ceil(n / processors); }

double topo_map(const Topology *t, double n, double cf) { return share(n, t->p) * cf; }

double topo_cross_product(const Topology *t, double n, double m, double cf) {
  return topology_broadcast(t, m * t->element_bytes) + share(n, t->p) * m * cf;
}

//
// Folds (thesis 6.2.2): locally, then the partial results combined along
// the topology's links toward processor 0. s_fold's partial results are one
// element; g_fold's grow by the elements they hold.
//

typedef struct Fold {
  const Topology *t;
  double elem;      // scalars in one element
  bool grows;       // the partial result of k elements has k * elem scalars (else elem)
  TopoListCost g;   // the function's cost on partial results of l1 and l2 scalars
  void *ctx;
} Fold;

static double partial(const Fold *f, double elements) { return f->grows ? elements * f->elem : f->elem; }

// One combination: the partial result of `right` elements sent over `hops`
// links to the holder of `left` elements, which applies the function.
static double combine(const Fold *f, double hops, double left, double right) {
  return hops * topology_transfer(f->t, partial(f, right) * f->t->element_bytes) +
         f->g(partial(f, left), partial(f, right), f->ctx);
}

// A linear array of q processors holding `each` elements: in round r the
// pairs 2^r apart combine, the right one's partial result sent over 2^r
// links (the thesis's PAR_FOLD (linear array); with q not a power of two
// the last pair's right part holds fewer blocks).
static double line_fold(const Fold *f, int q, double each) {
  double c = 0;
  for (int r = 0; (1 << r) < q; r++) {
    double apart = 1 << r;
    c += combine(f, apart, apart * each, fmin(apart, q - apart) * each);
  }
  return c;
}

static double fold_cost(const Fold *f, double n) {
  const Topology *t = f->t;
  double m = share(n, t->p), c = 0;
  for (double i = 1; i < m; i++) c += f->g(partial(f, i), partial(f, 1), f->ctx);  // the local fold
  if (t->p == 1) return c;
  switch (t->kind) {
  case TOPO_HYPERCUBE:  // dimension by dimension, the higher subcube's result down
    for (int i = 0; i < t->d; i++) c += combine(f, 1, ldexp(m, i), ldexp(m, i));
    return c;
  case TOPO_LINEAR: return c + line_fold(f, t->p, m);
  case TOPO_TREE:  // level by level up, each parent taking its s children in turn
    for (int j = t->d - 1; j >= 0; j--) {
      double below = (pow(t->s, t->d - j) - 1) / (t->s - 1);  // processors under a child of level j + 1
      for (int i = 0; i < t->s; i++) c += combine(f, 1, m + i * below * m, below * m);
    }
    return c;
  default: {
    // Each row: both halves as linear arrays toward its ends, then the
    // wrap-around link (the non-uniform torus: the whole row as one); then
    // column 0 the same way.
    double row = t->p1 * m;
    if (t->kind == TOPO_TORUS) c += line_fold(f, t->p1 / 2, m) + combine(f, 1, row / 2, row / 2);
    else c += line_fold(f, t->p1, m);
    return c + line_fold(f, t->p2 / 2, row) + combine(f, 1, t->p2 / 2 * row, t->p2 / 2 * row);
  }
  }
}

static double constant_cost(double l1, double l2, void *cf) { return *(double *)cf; }

double topo_s_fold(const Topology *t, double n, double cf) {
  return fold_cost(&(Fold){.t = t, .elem = 1, .g = constant_cost, .ctx = &cf}, n);
}

double topo_g_fold(const Topology *t, double n, double w, TopoListCost g, void *ctx) {
  return fold_cost(&(Fold){.t = t, .elem = w, .grows = true, .g = g, .ctx = ctx}, n);
}

//
// s_scan (thesis 6.2.3): a local scan, the partial results passed along,
// and the local elements updated. Each printed formula counts one
// application fewer than its algorithm updates on the linear array and the
// hypercube; the tree's simplification drops terms; the torus's improved
// step 3 is one transfer shorter and one application longer than printed
// (docs/topology.md, "Where the thesis's formulas and algorithms differ").
//

double topo_s_scan(const Topology *t, double n, double cf) {
  double m = share(n, t->p), T = topology_transfer(t, t->element_bytes);
  if (t->p == 1) return (m - 1) * cf;
  switch (t->kind) {
  case TOPO_HYPERCUBE: return cf * (2 * m + 2 * t->d - 3) + T * (2 * t->d - 1);
  case TOPO_LINEAR: return cf * (2 * m + t->p - 3) + T * (t->p - 1);  // pipelined along the array
  case TOPO_TREE: {  // the elements at the leaves; up the tree and down again
    double leaf = share(n, pow(t->s, t->d));
    return cf * (2 * leaf - 2 + (t->s - 1) * (2 * t->d - 1)) + T * 2 * t->d * t->s;
  }
  default:  // along the rows, down the last column, back along the rows from both ends
    return cf * (2 * m + t->p1 + t->p2 - 3) + T * (1.5 * t->p1 + t->p2 - 2);
  }
}

//
// get_neigh (thesis 6.2.12): the first and last elements of each block to
// the processors that hold their neighbours, then the local work. Its
// exchange alone, of elements of `bytes`, is a plan's XCH_NEIGHBOURS.
//

double topo_neighbours_exchange(const Topology *t, double bytes) {
  double one = topology_transfer(t, bytes), two = topology_transfer(t, 2 * bytes);
  if (t->p == 1) return 0;
  switch (t->kind) {
  case TOPO_HYPERCUBE: return 2 * t->d * two;  // forward, exchange, back: 2d transfers of two
  case TOPO_LINEAR: return (t->p == 2 ? 2 : 4) * one;  // odd and even processors in turn
  case TOPO_TREE: return 2.0 * t->d * t->s * two;  // up the tree and down
  default: return (4 + t->p2 / 2.0) * one;  // the rows as rings, then the columns' ends shifted
  }
}

double topo_get_neigh(const Topology *t, double n, double ce) {
  return share(n, t->p) * ce + topo_neighbours_exchange(t, t->element_bytes);
}

//
// A plan's superstep on a topology machine.
//

// The seconds of one exchange of a superstep: the thesis's routine for its
// pattern, or for a round of a fold's tree or of dh's butterfly, every
// pair's messages over their paths (the pairs' paths taken to share no link).
static double exchange_seconds(const Topology *t, const ExactCollective *c, int p) {
  double bytes = c->words * t->element_bytes;
  switch (c->xch) {
  case XCH_BCAST: return topology_broadcast(t, bytes);
  case XCH_SCATTER: return topology_scatter(t, bytes);
  case XCH_GATHER: case XCH_PARTIALS: return topology_gather(t, bytes);
  case XCH_TREE: {
    int step = 1 << c->round, hops = 0;
    for (int k = step; k < p; k += 2 * step) {
      int h = topology_hops(t, k, k - step);
      if (h > hops) hops = h;
    }
    return hops * topology_transfer(t, bytes);
  }
  case XCH_BUTTERFLY: {  // partners swap their blocks, one way then the other (one port)
    int hops = 0;
    for (int k = 0; k < p; k++) {
      int h = topology_hops(t, k, k ^ (1 << c->round));
      if (h > hops) hops = h;
    }
    return 2 * hops * topology_transfer(t, bytes);
  }
  case XCH_NEIGHBOURS: return topo_neighbours_exchange(t, bytes);  // the thesis's get_neigh, of the largest end
  default: return topology_total_exchange(t, bytes);  // every process's part to every other (or to the higher ones)
  }
}

double topology_step_seconds(const Machine *m, const ExactStep *st, int p) {
  Topology t = topology_fit(m->topology, p);
  double seconds = (double)st->w / m->s;
  for (int i = 0; i < st->ncollectives; i++) seconds += exchange_seconds(&t, &st->collectives[i], p);
  return seconds;
}
