// sgl.c: Li & Hains' SGL cost model: the cost of a superstep at a master
// (the paper's formula), and the time of a run's supersteps on a
// hierarchical machine, each round of a level pattern synchronising its
// groups apart, so that a master waits for its slowest child only
// (docs/hierarchical.md, "The cost of a plan on a tree").
#include "cost/costint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double sgl_scatter(const MachineNode *master, double words) { return words * master->g_down; }

double sgl_gather(const MachineNode *master, double words) { return words * master->g_up + master->l; }

double sgl_superstep(const MachineNode *master, double work, const double *child, int nchild, double k_down, double k_up) {
  double slowest = 0;
  for (int i = 0; i < nchild; i++) slowest = fmax(slowest, child[i]);
  return work * master->c + (slowest + sgl_scatter(master, k_down) + sgl_gather(master, k_up));
}

// The supersteps of the paper's dh (Table 2) on a master of workers: the
// workers' sequential dh, whose blocks the master gathers; then each stage
// a superstep in which the master scatters every worker its partner's
// block, the workers combine (the lower of each pair with plus, the upper
// with times) and the master gathers the blocks again, but after the last.
double sgl_dh(const MachineNode *master, double m, double w_plus, double w_times) {
  int p = master->p;
  double words = p * m, *child = xmalloc((size_t)p * sizeof *child);
  int stages = 0;
  while ((1 << stages) < p) stages++;
  for (int i = 0; i < p; i++) child[i] = m * log2(m) * (w_plus + w_times) / 2 * master->child[i]->c;
  double cost = sgl_superstep(master, 0, child, p, 0, stages ? words : 0);
  for (int s = 1; s <= stages; s++) {
    for (int i = 0; i < p; i++) child[i] = m * (i >> (s - 1) & 1 ? w_times : w_plus) * master->child[i]->c;
    cost += sgl_superstep(master, 0, child, p, words, s < stages ? words : 0);
  }
  free(child);
  return cost;
}

// Process k's local time in a superstep: its counts at the calibrated
// units, or its operations at the machine's speed; on a tree, at its
// worker's speed relative to the machine's (c s).
static double local_seconds(const Machine *m, const ExactCounts *c, int k, MemoryShares shares) {
  double speed = m->tree ? m->tree->worker[k]->c * m->s : 1;
  if (!m->cal.present) return m->tree ? (double)c->ops * m->tree->worker[k]->c : (double)c->ops / m->s;
  return cost_local_seconds(m->cal.unit, c, shares) * speed;
}

const char *const level_way_names[LEVEL_WAYS] = {"flat", "up", "down", "within"};

// What a group's round costs after its slowest process: a scatter down the
// words its master sends; a gather up the words its master receives and its
// synchronisation; an exchange within the group its h-relation at the
// master's slower per-word time and its synchronisation.
static double group_round(const ExactStep *st, const MachineNode *master) {
  switch (st->way) {
  case LEVEL_DOWN: return sgl_scatter(master, (double)st->sent[master->first]);
  case LEVEL_UP: return sgl_gather(master, (double)st->recv[master->first]);
  default: {
    double h = 0;
    for (int q = master->first; q < master->first + master->leaves; q++)
      h = fmax(h, (double)(st->sent[q] > st->recv[q] ? st->sent[q] : st->recv[q]));
    return h * fmax(master->g_down, master->g_up) + master->l;
  }
  }
}

// The groups of round r of a level step, each waiting for its own processes.
static void level_round(const MachineTree *t, const ExactStep *st, const double *local, double *at) {
  for (int k = 0; k < t->leaves; k++) {
    size_t i = (size_t)st->round * (size_t)t->leaves + (size_t)k;
    const MachineNode *master = t->group[i];
    if (!master) at[k] += local[k];
    if (!master || t->lead[i] != k) continue;
    double done = 0;
    for (int q = k; q < k + master->leaves; q++) done = fmax(done, at[q] + local[q]);
    done += group_round(st, master);
    for (int q = k; q < k + master->leaves; q++) at[q] = done;
  }
}

// A superstep of every process on a tree: its h-relation and barrier at
// the flat parameters (docs/hierarchical.md, "Flat supersteps on a tree").
static void flat_round(const Machine *m, const ExactStep *st, int p, const double *local, double *at) {
  double done = 0;
  for (int k = 0; k < p; k++) done = fmax(done, at[k] + local[k]);
  double h = (double)st->h * cost_shared_cores((double)st->h, cost_relation_total(st, p), p, m->cores);
  done += (h * m->g + m->l) / m->s;
  for (int k = 0; k < p; k++) at[k] = done;
}

static double latest(const double *at, int p) {
  double t = 0;
  for (int k = 0; k < p; k++) t = fmax(t, at[k]);
  return t;
}

// The time on a tree: every process's clock advanced superstep by superstep.
static double tree_seconds(const Machine *m, const ExactStep *st, int n, int p, bool last_closed, MemoryShares shares,
                           double *per_step) {
  Arena *a = arena_new();
  double *at = arena_calloc(a, (size_t)p, sizeof *at), *local = arena_calloc(a, (size_t)p, sizeof *local);
  double before = 0;
  for (int i = 0; i < n; i++) {
    double most = 0, total = 0;
    MemoryShares step_shares = cost_step_shares(shares, &st[i], p);
    for (int k = 0; k < p; k++) {
      local[k] = local_seconds(m, &st[i].procs[k], k, step_shares);
      most = fmax(most, local[k]);
      total += local[k];
    }
    double shared = cost_shared_cores(most, total, p, m->cores);
    for (int k = 0; k < p; k++) local[k] *= shared;
    if (i + 1 == n && !last_closed)
      for (int k = 0; k < p; k++) at[k] += local[k];
    else if (st[i].way != LEVEL_FLAT)
      level_round(m->tree, &st[i], local, at);
    else
      flat_round(m, &st[i], p, local, at);
    double now = latest(at, p);
    if (per_step) per_step[i] = now - before;
    before = now;
  }
  arena_free(a);
  return before;
}

double cost_steps_seconds(const Machine *m, const ExactStep *st, int n, int p, bool last_closed, MemoryShares shares,
                          double *per_step) {
  if (m->tree && m->tree->leaves == p) return tree_seconds(m, st, n, p, last_closed, shares, per_step);
  double t = 0;
  for (int i = 0; i < n; i++) {
    double s = cost_step_seconds(m, &st[i], p, i + 1 < n || last_closed, shares);
    if (per_step) per_step[i] = s;
    t += s;
  }
  return t;
}
