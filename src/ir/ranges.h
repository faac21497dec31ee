/* ranges.h: who owns which elements and who sends what to whom: the block
 * distribution and the message pattern of every exchange the plan uses.
 * One source of truth: the exact cost model (src/cost/exact.c) calls these
 * functions to count the messages, and the code generator embeds this file
 * in every generated program, whose loops call them to send and receive
 * (docs/compiler.md, "Steps"). Plain C, no dependencies beyond stdint. */
#ifndef VECBSP_RANGES_H
#define VECBSP_RANGES_H

#include <stdbool.h>
#include <stdint.h>

/* Process k of p owns elements [range_lo(n, p, k), range_lo(n, p, k + 1))
 * of a vector of n elements: floor(k n / p). */
static inline int64_t range_lo(int64_t n, int p, int k) { return (int64_t)((__int128)n * k / p); }

static inline bool range_empty(int64_t n, int p, int k) { return range_lo(n, p, k) == range_lo(n, p, k + 1); }

/* The process that owns element i (0 <= i < n): the last k with
 * range_lo(n, p, k) <= i, which is ceil((i + 1) p / n) - 1. Its block is
 * never empty. */
static inline int range_owner(int64_t n, int p, int64_t i) { return (int)(((__int128)(i + 1) * p - 1) / n); }

/* The message patterns. A vector pattern moves elements [lo, hi) of a
 * vector of n elements; a value pattern (a fold's partial result, a
 * prefix's block total) moves one value, [0, 1). */
typedef enum {
  XCH_SCATTER,    /* process 0 sends every other process its block, even empty (the tag carries n) */
  XCH_BCAST,      /* process 0 sends every other process the whole vector (or value) */
  XCH_GATHER,     /* every other process with elements sends them to process 0 */
  XCH_ALLGATHER,  /* every process with elements sends them to every other process */
  XCH_INITS,      /* inits: every process with elements sends them to every higher one with elements */
  XCH_TAILS,      /* tails: each process with elements sends every other one with elements the part
                   * of its block among the last hi_to elements, which that one's segments need */
  XCH_PARTIALS,   /* fold, gather method: every other process with elements sends its partial to 0 */
  XCH_ALLREDUCE,  /* fold, total exchange: every process with elements sends its partial to all */
  XCH_TREE,       /* fold, tree method, one round: a process at an odd multiple of 2^round sends the
                   * combination of the blocks it holds, if any, 2^round processes down */
  XCH_TOTALS,     /* prefix: every process with elements sends its block total to every higher one
                   * with elements */
  XCH_BUTTERFLY,  /* dh, one round: every process sends its block to the one whose number differs
                   * from its own in bit `round` (range_butterfly holds) */
  XCH_NEIGHBOURS, /* neighbours: every process with elements sends its first element to the owner of
                   * the element before its block and its last to the owner of the one after it (the
                   * nearest processes with elements: blocks of length 0 are skipped) */
  /* The patterns of a hierarchical machine's levels, in rounds (range_level_exchange): */
  XCH_LEVEL_SCATTER,  /* down: each lead sends each child its group's elements */
  XCH_LEVEL_BCAST,    /* down: each lead sends each child the whole vector (or value) */
  XCH_LEVEL_GATHER,   /* up: each child sends its lead its group's elements */
  XCH_LEVEL_PARTIALS, /* up: each child holding a partial (its group has elements) sends it to its lead */
  XCH_LEVEL_TOTALS,   /* prefix: up as XCH_LEVEL_PARTIALS with the groups' totals, then down: each lead
                       * sends each child with elements the total of the elements before its group */
  XCH_COUNT
} Exchange;

/* In one round of the tree, the processes whose partials process k holds:
 * [k, range_tree_end(p, k, round)). */
static inline int range_tree_end(int p, int k, int round) {
  int64_t end = (int64_t)k + ((int64_t)1 << round);
  return end < p ? (int)end : p;
}

/* Does process k hold a partial result in a round of the tree (some of the
 * blocks it has combined so far is not empty)? */
static inline bool range_tree_holds(int64_t n, int p, int k, int round) {
  return range_lo(n, p, k) < range_lo(n, p, range_tree_end(p, k, round));
}

/* The rounds of the tree over p processes: ceil(log2 p). */
static inline int range_tree_rounds(int p) {
  int r = 0;
  while (((int64_t)1 << r) < p) r++;
  return r;
}

/* Does dh run as a butterfly on the blocks of n elements over p processes
 * (p a power of two and every block of the same power-of-two length, so
 * that the element an element is combined with in a round lies at the same
 * place in the partner's block)? Else the blocks are gathered to process 0,
 * which runs dh alone, and scattered back. */
static inline bool range_butterfly(int64_t n, int p) {
  return (p & (p - 1)) == 0 && n >= p && (n & (n - 1)) == 0;
}

/* What process `from` sends process `to` under pattern x (round: XCH_TREE's):
 * the elements [*lo, *hi); nothing when *lo >= *hi. */
static inline void range_exchange(Exchange x, int64_t n, int p, int from, int to, int round, int64_t *lo, int64_t *hi) {
  int64_t from_lo = range_lo(n, p, from), from_hi = range_lo(n, p, from + 1);
  bool has = from_lo < from_hi, to_has = !range_empty(n, p, to);
  *lo = 0, *hi = 0;
  if (from == to) return;
  switch (x) {
  case XCH_SCATTER:
    if (from == 0) *lo = range_lo(n, p, to), *hi = range_lo(n, p, to + 1);
    return;
  case XCH_BCAST: if (from == 0) *hi = n; return;
  case XCH_GATHER: if (to == 0 && has) *lo = from_lo, *hi = from_hi; return;
  case XCH_ALLGATHER: if (has) *lo = from_lo, *hi = from_hi; return;
  case XCH_INITS: if (has && to > from && to_has) *lo = from_lo, *hi = from_hi; return;
  case XCH_TAILS: {
    int64_t need = n - range_lo(n, p, to + 1); /* the first element to's segments need */
    if (has && to_has && need < from_hi) *lo = need > from_lo ? need : from_lo, *hi = from_hi;
    return;
  }
  case XCH_PARTIALS: if (to == 0 && has) *hi = 1; return;
  case XCH_ALLREDUCE: if (has) *hi = 1; return;
  case XCH_TREE: {
    int64_t step = (int64_t)1 << round;
    if (from % (2 * step) == step && to == from - step && range_tree_holds(n, p, from, round)) *hi = 1;
    return;
  }
  case XCH_TOTALS: if (has && to > from && to_has) *hi = 1; return;
  case XCH_BUTTERFLY: if (range_butterfly(n, p) && to == (from ^ (1 << round))) *lo = from_lo, *hi = from_hi; return;
  case XCH_NEIGHBOURS:
    if (has && from_lo > 0 && to == range_owner(n, p, from_lo - 1)) *lo = from_lo, *hi = from_lo + 1;
    else if (has && from_hi < n && to == range_owner(n, p, from_hi)) *lo = from_hi - 1, *hi = from_hi;
    return;
  default: return;
  }
}

/* Does a message go from `from` to `to`? An empty scattered block does: it
 * tells its receiver n. */
static inline bool range_sends(Exchange x, int64_t n, int p, int from, int to, int round) {
  int64_t lo, hi;
  range_exchange(x, n, p, from, to, round, &lo, &hi);
  return lo < hi || (x == XCH_SCATTER && from == 0 && to != 0);
}

/* Hierarchical machines (docs/hierarchical.md): the processes are the
 * workers of a tree, in order. At round r (0: the innermost masters) a
 * process is in the group of its ancestor master at that level, which the
 * group's first process leads: lead[r * p + k] (k itself where the process
 * is in none). Round r of a level pattern moves messages between each
 * lead and its children: the leads of round r - 1 in its group (at round 0,
 * the group's processes). Rounds go up from 0 (gathering) and down to 0
 * (scattering). */
static inline int range_level_lead(const int *lead, int p, int round, int k) {
  return round < 0 ? k : lead[(int64_t)round * p + k];
}

/* Is process k a child in round `round`: it leads its group of the round
 * before and is in a group it does not lead? */
static inline bool range_level_child(const int *lead, int p, int round, int k) {
  return range_level_lead(lead, p, round - 1, k) == k && range_level_lead(lead, p, round, k) != k;
}

/* The end of the group k leads (or is alone in) at a round: it holds the
 * processes [k, range_level_end(lead, p, round, k)). */
static inline int range_level_end(const int *lead, int p, int round, int k) {
  int end = k + 1;
  while (end < p && range_level_lead(lead, p, round, end) == k) end++;
  return end;
}

/* What process `from` sends process `to` in round `round` of level pattern
 * x (down: the second half of XCH_LEVEL_TOTALS): the elements [*lo, *hi) of
 * a vector of n, or [0, 1) for a value. */
static inline void range_level_exchange(Exchange x, bool down, const int *lead, int64_t n, int p, int from, int to,
                                        int round, int64_t *lo, int64_t *hi) {
  *lo = 0, *hi = 0;
  int child = down ? to : from, parent = down ? from : to;
  if (!range_level_child(lead, p, round, child) || range_level_lead(lead, p, round, child) != parent) return;
  int64_t group_lo = range_lo(n, p, child), group_hi = range_lo(n, p, range_level_end(lead, p, round - 1, child));
  switch (x) {
  case XCH_LEVEL_SCATTER: case XCH_LEVEL_GATHER: *lo = group_lo, *hi = group_hi; return;
  case XCH_LEVEL_BCAST: *hi = n; return;
  case XCH_LEVEL_PARTIALS: case XCH_LEVEL_TOTALS: *hi = group_lo < group_hi; return;
  default: return;
  }
}

/* The first round whose groups hold every pair of processes whose numbers
 * differ in bit `bit` (a butterfly's round that follows the levels
 * synchronises those groups only); the top round, whose group is every
 * process, when no lower one does. */
static inline int range_level_meet(const int *lead, int p, int rounds, int bit) {
  for (int round = 0; round < rounds - 1; round++) {
    bool all = true;
    for (int k = 0; k < p && all; k++)
      all = (k ^ (1 << bit)) >= p || range_level_lead(lead, p, round, k) == range_level_lead(lead, p, round, k ^ (1 << bit));
    if (all) return round;
  }
  return rounds - 1;
}

/* Does a message go from `from` to `to` in that round? A scattered group
 * without elements does: it tells its receiver n. */
static inline bool range_level_sends(Exchange x, bool down, const int *lead, int64_t n, int p, int from, int to,
                                     int round) {
  int64_t lo, hi;
  range_level_exchange(x, down, lead, n, p, from, to, round, &lo, &hi);
  if (lo < hi) return true;
  return x == XCH_LEVEL_SCATTER && range_level_child(lead, p, round, to) && range_level_lead(lead, p, round, to) == from;
}

/* A fold of n elements with `lanes` accumulators runs them side by side
 * when every lane gets two elements at least; lane j starts at
 * range_lane_lo(n, lanes, j) = j * floor(n / lanes), and the last lane
 * takes the rest (range_lane_lo(n, lanes, lanes) = n). */
static inline bool range_laned(int lanes, int64_t n) { return lanes > 1 && n >= 2 * (int64_t)lanes; }
static inline int64_t range_lane_lo(int64_t n, int lanes, int j) { return j == lanes ? n : n / lanes * j; }

#endif
