// test_topology.c: every closed form of src/machine/topology.c and
// src/cost/topology.c against the step-by-step algorithm it summarises
// (Rangaswami's thesis, chapter 6), on every topology up to 64 processors.
// The test writes each algorithm as its own schedule of transfers over the
// links, which it defines itself, and sums it with its own simulator:
// processors run their operations in order, a transfer happens when the
// sender and the receiver both reach it (one port: one transfer at a time,
// except the ring shifts the thesis's torus exchange assumes), takes
// K0 + bytes / K1, and the thesis's steps are phases that start together.
#include "cost/cost.h"
#include "lang/lang.h"
#include "testing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool close_to(double x, double want) { return fabs(x - want) <= 1e-9 * fmax(1, fabs(want)); }

enum { MAXP = 64 };

//
// The links, as the thesis draws them (figure 6.1), defined here.
//

typedef struct Net {
  Topology t;                 // the closed forms' description
  bool link[MAXP][MAXP];      // the test's own links
  int parent[MAXP];           // tree: pre-order numbering
  int child[MAXP][MAXP], nchildren[MAXP], depth[MAXP];
} Net;

static int numbered;

static void tree_node(Net *n, int parent, int depth) {
  int me = numbered++;
  n->parent[me] = parent, n->depth[me] = depth, n->nchildren[me] = 0;
  if (parent >= 0) n->child[parent][n->nchildren[parent]++] = me, n->link[me][parent] = n->link[parent][me] = true;
  if (depth < n->t.d)
    for (int c = 0; c < n->t.s; c++) tree_node(n, me, depth + 1);
}

static int at(const Net *n, int row, int col) { return row * n->t.p1 + col; }

static void build(Net *n, Topology t) {
  memset(n, 0, sizeof *n);
  n->t = t;
  int p = t.p;
  for (int a = 0; a < p; a++)
    for (int b = 0; b < p; b++) {
      if (a == b) continue;
      switch (t.kind) {
      case TOPO_HYPERCUBE: n->link[a][b] = __builtin_popcount((unsigned)(a ^ b)) == 1; break;
      case TOPO_LINEAR: n->link[a][b] = abs(a - b) == 1; break;
      case TOPO_TORUS: case TOPO_TORUS_NONUNIFORM: {
        int ra = a / t.p1, ca = a % t.p1, rb = b / t.p1, cb = b % t.p1;
        bool across = ra == rb && ((ca + 1) % t.p1 == cb || (cb + 1) % t.p1 == ca);
        bool down = ca == cb && ((ra + 1) % t.p2 == rb || (rb + 1) % t.p2 == ra);
        // processor 0 lacks its link to processor p1 - 1 (unless they are next to each other)
        if (t.kind == TOPO_TORUS_NONUNIFORM && t.p1 > 2 && ra == 0 && rb == 0 && abs(ca - cb) == t.p1 - 1) across = false;
        n->link[a][b] = across || down;
        break;
      }
      default: break;
      }
    }
  if (t.kind == TOPO_TREE) {
    numbered = 0;
    tree_node(n, -1, 0);
  }
}

//
// The simulator.
//

typedef enum { OP_SEND, OP_RECV, OP_SHIFT, OP_WORK } SimOpKind;

typedef struct SimOp {
  SimOpKind kind;
  int to, from;      // SEND: to; RECV: from; SHIFT: both (-1: none)
  double bytes;      // SEND, SHIFT: what is sent
  double work;       // WORK: its time
  bool sent, received;
  double end;        // when its last part ended
} SimOp;

typedef struct Phase {
  SimOp *ops[MAXP];
  int nops[MAXP], cap[MAXP];
} Phase;

typedef struct Sim {
  const Net *net;
  Phase *phases;
  int nphases, cap;
  bool bad;  // a transfer not over a link, or a deadlock
} Sim;

static Sim sim_new(const Net *net) { return (Sim){.net = net}; }

static void sim_free(Sim *s) {
  for (int i = 0; i < s->nphases; i++)
    for (int k = 0; k < MAXP; k++) free(s->phases[i].ops[k]);
  free(s->phases);
}

static void phase(Sim *s) {
  if (s->nphases == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 8;
    s->phases = realloc(s->phases, (size_t)s->cap * sizeof *s->phases);
  }
  memset(&s->phases[s->nphases++], 0, sizeof(Phase));
}

static void add(Sim *s, int k, SimOp op) {
  if (!s->nphases) phase(s);
  Phase *ph = &s->phases[s->nphases - 1];
  if (ph->nops[k] == ph->cap[k]) {
    ph->cap[k] = ph->cap[k] ? 2 * ph->cap[k] : 8;
    ph->ops[k] = realloc(ph->ops[k], (size_t)ph->cap[k] * sizeof(SimOp));
  }
  ph->ops[k][ph->nops[k]++] = op;
}

static void check_link(Sim *s, int a, int b) {
  if (a >= 0 && b >= 0 && !s->net->link[a][b]) {
    if (!s->bad) printf("  no link %d-%d on the %s of %d\n", a, b, topology_kind_name(s->net->t.kind), s->net->t.p);
    s->bad = true;
  }
}

static void send(Sim *s, int from, int to, double bytes) {
  check_link(s, from, to);
  add(s, from, (SimOp){.kind = OP_SEND, .to = to, .from = -1, .bytes = bytes});
}
static void recv(Sim *s, int to, int from) { add(s, to, (SimOp){.kind = OP_RECV, .to = -1, .from = from}); }
static void xfer(Sim *s, int from, int to, double bytes) {
  send(s, from, to, bytes);
  recv(s, to, from);
}
static void work(Sim *s, int k, double w) { add(s, k, (SimOp){.kind = OP_WORK, .work = w}); }
// Sends to `to` and receives from `from` at once (the thesis's ring steps).
static void shift(Sim *s, int k, int to, int from, double bytes) {
  check_link(s, k, to);
  add(s, k, (SimOp){.kind = OP_SHIFT, .to = to, .from = from, .bytes = bytes, .sent = to < 0, .received = from < 0});
}

static double transfer(const Net *n, double bytes) { return n->t.K0 + bytes / n->t.K1; }

static bool op_done(const SimOp *o) {
  return o->kind == OP_WORK || (o->kind == OP_SEND && o->sent) || (o->kind == OP_RECV && o->received) ||
         (o->kind == OP_SHIFT && o->sent && o->received);
}

// The phases one after another; in each, transfers whenever both ends are
// ready. The total time.
static double run(Sim *s) {
  int p = s->net->t.p;
  double start = 0;
  for (int ph = 0; ph < s->nphases; ph++) {
    Phase *f = &s->phases[ph];
    int pc[MAXP] = {0};
    double clock[MAXP];
    for (int k = 0; k < p; k++) clock[k] = start;
    bool progress = true;
    while (progress) {
      progress = false;
      for (int k = 0; k < p; k++) {
        while (pc[k] < f->nops[k]) {
          SimOp *o = &f->ops[k][pc[k]];
          if (o->kind == OP_WORK) {
            clock[k] += o->work;
          } else if ((o->kind == OP_SEND || o->kind == OP_SHIFT) && !o->sent) {
            int j = o->to;
            SimOp *r = pc[j] < f->nops[j] ? &f->ops[j][pc[j]] : NULL;
            if (!r || (r->kind != OP_RECV && r->kind != OP_SHIFT) || r->from != k || r->received) break;
            double end = fmax(clock[k], clock[j]) + transfer(s->net, o->bytes);
            o->sent = r->received = progress = true;
            o->end = fmax(o->end, end), r->end = fmax(r->end, end);
            if (op_done(r)) clock[j] = fmax(clock[j], r->end), pc[j]++;
          } else if (!op_done(o)) {
            break;  // waits for its sender
          }
          if (!op_done(o)) continue;
          if (o->kind != OP_WORK) clock[k] = fmax(clock[k], o->end);
          pc[k]++;
          progress = true;
        }
      }
    }
    for (int k = 0; k < p; k++) {
      if (pc[k] < f->nops[k]) {
        if (!s->bad) printf("  deadlock in phase %d at processor %d\n", ph, k);
        s->bad = true;
        return NAN;
      }
      start = fmax(start, clock[k]);
    }
  }
  return start;
}

// The schedule run backwards, every transfer reversed (a gather from a
// scatter).
static Sim reversed(const Sim *s) {
  Sim r = sim_new(s->net);
  int p = s->net->t.p;
  for (int ph = s->nphases - 1; ph >= 0; ph--) {
    const Phase *f = &s->phases[ph];
    phase(&r);
    for (int k = 0; k < p; k++)
      for (int i = f->nops[k] - 1; i >= 0; i--) {
        const SimOp *o = &f->ops[k][i];
        if (o->kind == OP_WORK) {
          work(&r, k, o->work);
        } else if (o->kind == OP_SEND) {
          recv(&r, k, o->to);
        } else {  // a receive: the matching send's bytes (the n-th from that sender)
          int nth = 0, from = o->from;
          for (int j = 0; j < i; j++) nth += f->ops[k][j].kind == OP_RECV && f->ops[k][j].from == from;
          for (int j = 0; j < f->nops[from]; j++)
            if (f->ops[from][j].kind == OP_SEND && f->ops[from][j].to == k && nth-- == 0) send(&r, k, from, f->ops[from][j].bytes);
        }
      }
  }
  return r;
}

static double simulate(Sim *s) {
  double t = run(s);
  bool bad = s->bad;
  sim_free(s);
  return bad ? NAN : t;
}

//
// The schedules of the communication routines (thesis, section 6.1).
//

static int half(int x) { return x / 2; }

// The torus's column 0 (or row r) as two pipelines from processor 0 (or
// the row's first): the far end first over the wrap-around link, then both
// halves. sizes(i): the bytes the i-th processor from each end passes on.
typedef double (*Passed)(int hop, int length, double B);
static double same(int hop, int length, double B) { return B; }
static double dwindling(int hop, int length, double B) { return (length - 1 - hop) * B / length; }  // a scatter

static void ring_halves(Sim *s, int *line, int n, double first, Passed passed, double B) {
  if (n == 1) return;
  xfer(s, line[0], line[n - 1], first);
  int q = half(n);
  for (int i = 0; i + 1 < q; i++) xfer(s, line[i], line[i + 1], passed(i, q, B));
  for (int i = n - 1; i - 1 >= q; i--) xfer(s, line[i], line[i - 1], passed(n - 1 - i, q, B));
}

static void line_pass(Sim *s, int *line, int n, Passed passed, double B) {
  for (int i = 0; i + 1 < n; i++) xfer(s, line[i], line[i + 1], passed(i, n, B));
}

static void column(const Net *n, int col, int *line) {
  for (int r = 0; r < n->t.p2; r++) line[r] = at(n, r, col);
}
static void row(const Net *n, int r, int *line) {
  for (int c = 0; c < n->t.p1; c++) line[c] = at(n, r, c);
}

static void tree_broadcast(Sim *s, const Net *n, int v, double B) {
  for (int c = 0; c < n->nchildren[v]; c++) xfer(s, v, n->child[v][c], B);
  for (int c = 0; c < n->nchildren[v]; c++) tree_broadcast(s, n, n->child[v][c], B);
}

static int subtree(const Net *n, int v) {
  int k = 1;
  for (int c = 0; c < n->nchildren[v]; c++) k += subtree(n, n->child[v][c]);
  return k;
}

static void tree_scatter(Sim *s, const Net *n, int v, double B) {
  for (int c = 0; c < n->nchildren[v]; c++) xfer(s, v, n->child[v][c], subtree(n, n->child[v][c]) * B / n->t.p);
  for (int c = 0; c < n->nchildren[v]; c++) tree_scatter(s, n, n->child[v][c], B);
}

// The linear array's broadcast in r packets, pipelined.
static double linear_broadcast_in(const Net *n, double B, int r) {
  Sim s = sim_new(n);
  for (int k = 0; k < r; k++)
    for (int i = 0; i + 1 < n->t.p; i++) xfer(&s, i, i + 1, B / r);
  return simulate(&s);
}

static Sim broadcast_schedule(const Net *n, double B) {
  Sim s = sim_new(n);
  int p = n->t.p, line[MAXP];
  switch (n->t.kind) {
  case TOPO_HYPERCUBE:
    for (int j = 0; (1 << j) < p; j++) {
      phase(&s);
      for (int i = 0; i < (1 << j); i++) xfer(&s, i, i + (1 << j), B);
    }
    break;
  case TOPO_TREE: tree_broadcast(&s, n, 0, B); break;
  default:  // the torus: column 0, then every row
    phase(&s);
    column(n, 0, line);
    ring_halves(&s, line, n->t.p2, B, same, B);
    phase(&s);
    for (int r = 0; r < n->t.p2; r++) {
      row(n, r, line);
      if (n->t.kind == TOPO_TORUS_NONUNIFORM && r == 0) line_pass(&s, line, n->t.p1, same, B);
      else ring_halves(&s, line, n->t.p1, B, same, B);
    }
    break;
  }
  return s;
}

// The broadcast's time: on the linear array, with the best number of
// packets (tried from one up, until the time has grown three times in a
// row: it falls, then rises).
static double broadcast_time(const Net *n, double B) {
  if (n->t.kind != TOPO_LINEAR) {
    Sim s = broadcast_schedule(n, B);
    return simulate(&s);
  }
  double best = INFINITY;
  for (int r = 1, worse = 0; r <= B && worse < 3; r++) {
    double t = linear_broadcast_in(n, B, r);
    worse = t < best ? 0 : worse + 1;
    best = fmin(best, t);
  }
  return best;
}

static Sim scatter_schedule(const Net *n, double B) {
  Sim s = sim_new(n);
  int p = n->t.p, line[MAXP];
  switch (n->t.kind) {
  case TOPO_HYPERCUBE:  // halving: the higher half of what a holder has, across the top dimension left
    for (int j = n->t.d - 1; j >= 0; j--) {
      phase(&s);
      for (int i = 0; i < p; i += 2 << j) xfer(&s, i, i + (1 << j), B * (1 << j) / p);
    }
    break;
  case TOPO_LINEAR:
    for (int i = 0; i < p; i++) line[i] = i;
    line_pass(&s, line, p, dwindling, B);
    break;
  case TOPO_TREE: tree_scatter(&s, n, 0, B); break;
  default:
    phase(&s);
    column(n, 0, line);
    ring_halves(&s, line, n->t.p2, B / 2, dwindling, B / 2);
    phase(&s);
    for (int r = 0; r < n->t.p2; r++) {
      double mine = B / n->t.p2;
      row(n, r, line);
      if (n->t.kind == TOPO_TORUS_NONUNIFORM && r == 0) line_pass(&s, line, n->t.p1, dwindling, mine);
      else ring_halves(&s, line, n->t.p1, mine / 2, dwindling, mine / 2);
    }
    break;
  }
  return s;
}

// Every processor of each ring (or line: `ring` false) passes on what it
// got, steps times, sending and receiving at once.
static void ring_steps(Sim *s, int *line, int n, bool ring, int steps, int dir, double bytes) {
  for (int t = 0; t < steps; t++)
    for (int i = 0; i < n; i++) {
      int to = i + dir, from = i - dir;
      if (ring) to = (to + n) % n, from = (from + n) % n;
      shift(s, line[i], to >= 0 && to < n ? line[to] : -1, from >= 0 && from < n ? line[from] : -1, bytes);
    }
}

static Sim exchange_schedule(const Net *n, double B) {
  Sim s = sim_new(n);
  int p = n->t.p, line[MAXP];
  double u = B / p;
  switch (n->t.kind) {
  case TOPO_HYPERCUBE:  // doubling: partners swap all they hold, one way then the other
    for (int j = 0; (1 << j) < p; j++) {
      phase(&s);
      for (int i = 0; i < p; i++)
        if (!(i >> j & 1)) xfer(&s, i, i + (1 << j), (1 << j) * u), xfer(&s, i + (1 << j), i, (1 << j) * u);
    }
    break;
  case TOPO_LINEAR: {  // gather to the middle two, swap, pass back
    int a = p / 2;
    if (!a) break;
    phase(&s);
    for (int i = 0; i + 1 < a; i++) xfer(&s, i, i + 1, (i + 1) * u);
    for (int i = p - 1; i - 1 >= a; i--) xfer(&s, i, i - 1, (p - i) * u);
    phase(&s);
    xfer(&s, a - 1, a, a * u);
    xfer(&s, a, a - 1, (p - a) * u);
    phase(&s);
    for (int i = a - 1; i >= 1; i--) xfer(&s, i, i - 1, (p - i) * u);
    for (int i = a; i + 1 < p; i++) xfer(&s, i, i + 1, (i + 1) * u);
    break;
  }
  case TOPO_TREE: {
    Sim g = scatter_schedule(n, B);
    s = reversed(&g);
    sim_free(&g);
    phase(&s);
    tree_broadcast(&s, n, 0, B);
    break;
  }
  case TOPO_TORUS:  // round the column rings, then the row rings
    phase(&s);
    for (int c = 0; c < n->t.p1; c++) column(n, c, line), ring_steps(&s, line, n->t.p2, true, n->t.p2 - 1, 1, u);
    phase(&s);
    for (int r = 0; r < n->t.p2; r++) row(n, r, line), ring_steps(&s, line, n->t.p1, true, n->t.p1 - 1, 1, B / n->t.p1);
    break;
  default:  // row 0 along the line there and back (the others round their rings), then the columns
    phase(&s);
    for (int r = 0; r < n->t.p2; r++) {
      row(n, r, line);
      if (r > 0) {
        ring_steps(&s, line, n->t.p1, true, n->t.p1 - 1, 1, u);
        continue;
      }
      ring_steps(&s, line, n->t.p1, false, n->t.p1 - 1, 1, u);
      ring_steps(&s, line, n->t.p1, false, n->t.p1 - 1, -1, u);
    }
    phase(&s);
    for (int c = 0; c < n->t.p1; c++) column(n, c, line), ring_steps(&s, line, n->t.p2, true, n->t.p2 - 1, 1, B / n->t.p2);
    break;
  }
  return s;
}

static void check_routines(const Net *n) {
  const Topology *t = &n->t;
  const char *kind = topology_kind_name(t->kind);
  double sizes[] = {100, 1000, 3000};
  for (int i = 0; i < 3; i++) {
    double B = sizes[i];
    double b = broadcast_time(n, B);
    CHECK(close_to(topology_broadcast(t, B), b), "broadcast on the %s of %d, B = %g: %.10g, the algorithm %.10g", kind,
          t->p, B, topology_broadcast(t, B), b);
    Sim sc = scatter_schedule(n, B), ga = reversed(&sc);
    double scatter = simulate(&sc), gather = simulate(&ga);
    CHECK(close_to(topology_scatter(t, B), scatter), "scatter on the %s of %d, B = %g: %.10g, the algorithm %.10g", kind,
          t->p, B, topology_scatter(t, B), scatter);
    CHECK(close_to(topology_gather(t, B), gather), "gather on the %s of %d, B = %g: %.10g, the algorithm %.10g", kind,
          t->p, B, topology_gather(t, B), gather);
    Sim ex = exchange_schedule(n, B);
    double exchange = simulate(&ex);
    CHECK(close_to(topology_total_exchange(t, B), exchange),
          "total exchange on the %s of %d, B = %g: %.10g, the algorithm %.10g", kind, t->p, B,
          topology_total_exchange(t, B), exchange);
  }
}

//
// The schedules of the functions (thesis, section 6.2).
//

typedef struct FoldCase {
  double elem;   // scalars of an element
  bool grows;
  double cf;     // s_fold: the function's cost
} FoldCase;

static double partial_of(const FoldCase *f, double k) { return f->grows ? k * f->elem : f->elem; }

// g_fold's function: merging lists costs in their lengths.
static double merge_cost(double l1, double l2, void *ctx) { return 0.5 + 0.01 * (l1 + l2); }
static double fold_g(const FoldCase *f, double l1, double l2) { return f->grows ? merge_cost(l1, l2, NULL) : f->cf; }

// One combination: `from` holding `right` elements sends its partial
// result over the path to `to` (holding `left`), which applies f.
static void fold_combine(Sim *s, const FoldCase *f, const int *path, int hops, double left, double right) {
  double bytes = partial_of(f, right) * s->net->t.element_bytes;
  for (int h = 0; h < hops; h++) xfer(s, path[h], path[h + 1], bytes);
  work(s, path[hops], fold_g(f, partial_of(f, left), partial_of(f, right)));
}

// A line of processors folding toward line[0]: rounds of pairs 2^r apart.
static void line_fold_rounds(Sim *s, const FoldCase *f, int *line, int q, double each) {
  for (int r = 0; (1 << r) < q; r++) {
    phase(s);
    int apart = 1 << r;
    for (int k = 0; k + apart < q; k += 2 * apart) {
      int path[MAXP];
      for (int h = 0; h <= apart; h++) path[h] = line[k + apart - h];
      double right = fmin(apart, q - k - apart) * each;
      fold_combine(s, f, path, apart, apart * each, right);
    }
  }
}

static void tree_fold(Sim *s, const Net *n, const FoldCase *f, int v, double m) {
  for (int c = 0; c < n->nchildren[v]; c++) tree_fold(s, n, f, n->child[v][c], m);
  double held = m;
  for (int c = 0; c < n->nchildren[v]; c++) {
    int path[2] = {n->child[v][c], v};
    double below = subtree(n, n->child[v][c]) * m;
    fold_combine(s, f, path, 1, held, below);
    held += below;
  }
}

static Sim fold_schedule(const Net *n, const FoldCase *f, double nelems) {
  Sim s = sim_new(n);
  int p = n->t.p, line[MAXP];
  double m = ceil(nelems / p);
  phase(&s);
  for (int k = 0; k < p; k++)
    for (double i = 1; i < m; i++) work(&s, k, fold_g(f, partial_of(f, i), partial_of(f, 1)));
  switch (n->t.kind) {
  case TOPO_HYPERCUBE:
    for (int j = 0; (1 << j) < p; j++) {
      phase(&s);
      for (int i = 0; i < p; i += 2 << j) {
        int path[2] = {i + (1 << j), i};
        fold_combine(&s, f, path, 1, (1 << j) * m, (1 << j) * m);
      }
    }
    break;
  case TOPO_LINEAR:
    for (int i = 0; i < p; i++) line[i] = i;
    line_fold_rounds(&s, f, line, p, m);
    break;
  case TOPO_TREE:
    phase(&s);
    tree_fold(&s, n, f, 0, m);
    break;
  default: {
    int p1 = n->t.p1, p2 = n->t.p2, q1 = p1 / 2, q2 = p2 / 2;
    if (n->t.kind == TOPO_TORUS) {
      // both halves of every row as linear arrays toward the row's ends, the
      // same rounds together, then across the wrap-around link
      for (int r = 0; (1 << r) < q1; r++) {
        phase(&s);
        int apart = 1 << r;
        for (int y = 0; y < p2; y++)
          for (int k = 0; k + apart < q1; k += 2 * apart) {
            int left[MAXP], right[MAXP];
            for (int h = 0; h <= apart; h++) left[h] = at(n, y, k + apart - h), right[h] = at(n, y, p1 - 1 - (k + apart - h));
            fold_combine(&s, f, left, apart, apart * m, apart * m);
            fold_combine(&s, f, right, apart, apart * m, apart * m);
          }
      }
      phase(&s);
      for (int y = 0; y < p2; y++) {
        int path[2] = {at(n, y, p1 - 1), at(n, y, 0)};
        fold_combine(&s, f, path, 1, q1 * m, q1 * m);
      }
    } else {
      for (int r = 0; (1 << r) < p1; r++) {
        phase(&s);
        int apart = 1 << r;
        for (int y = 0; y < p2; y++)
          for (int k = 0; k + apart < p1; k += 2 * apart) {
            int path[MAXP];
            for (int h = 0; h <= apart; h++) path[h] = at(n, y, k + apart - h);
            fold_combine(&s, f, path, apart, apart * m, apart * m);
          }
      }
    }
    double each = p1 * m;  // column 0: the same with the rows' results
    for (int r = 0; (1 << r) < q2; r++) {
      phase(&s);
      int apart = 1 << r;
      for (int k = 0; k + apart < q2; k += 2 * apart) {
        int top[MAXP], bottom[MAXP];
        for (int h = 0; h <= apart; h++) top[h] = at(n, k + apart - h, 0), bottom[h] = at(n, p2 - 1 - (k + apart - h), 0);
        fold_combine(&s, f, top, apart, apart * each, apart * each);
        fold_combine(&s, f, bottom, apart, apart * each, apart * each);
      }
    }
    phase(&s);
    int path[2] = {at(n, p2 - 1, 0), 0};
    fold_combine(&s, f, path, 1, q2 * each, q2 * each);
    break;
  }
  }
  return s;
}

static Sim scan_schedule(const Net *n, double nelems, double cf) {
  Sim s = sim_new(n);
  int p = n->t.p;
  double e = n->t.element_bytes, m = ceil(nelems / p);
  if (n->t.kind != TOPO_TREE || p == 1) {
    phase(&s);
    for (int k = 0; k < p; k++) work(&s, k, (m - 1) * cf);
  }
  if (p == 1) return s;
  switch (n->t.kind) {
  case TOPO_LINEAR:  // each processor's total passed along, combined on the way, then the update
    phase(&s);
    for (int i = 0; i + 1 < p; i++) xfer(&s, i, i + 1, e), work(&s, i + 1, cf);
    for (int k = 1; k < p; k++) work(&s, k, (m - 1) * cf);
    break;
  case TOPO_HYPERCUBE: {
    int d = n->t.d;
    for (int j = 0; j < d; j++) {  // step 2: up each dimension, combined
      phase(&s);
      for (int i = 0; i < p; i++)
        if (!(i >> j & 1)) xfer(&s, i, i | 1 << j, e), work(&s, i | 1 << j, cf);
    }
    for (int j = 1; j < d; j++) {  // step 3: the lower subcubes' results, one transfer a dimension
      phase(&s);
      for (int i = 0; i < p; i++)
        if (!(i >> j & 1)) xfer(&s, i, i | 1 << j, e);
    }
    phase(&s);  // step 4: the received results folded, the elements updated
    for (int k = 0; k < p; k++) work(&s, k, (d - 1 + m - 1) * cf);
    break;
  }
  case TOPO_TREE: {  // at the leaves; up the tree, then down
    double leaf = ceil(nelems / pow(n->t.s, n->t.d));
    phase(&s);
    for (int v = 0; v < p; v++)
      if (!n->nchildren[v]) work(&s, v, (leaf - 1) * cf), send(&s, v, n->parent[v], e);
    for (int lvl = n->t.d - 1; lvl >= 0; lvl--)
      for (int v = 0; v < p; v++) {
        if (n->depth[v] != lvl) continue;
        for (int c = 0; c < n->nchildren[v]; c++) recv(&s, v, n->child[v][c]);
        work(&s, v, (n->t.s - 1) * cf);
        if (v) send(&s, v, n->parent[v], e);
      }
    for (int v = 0; v < p; v++) {
      if (v) recv(&s, v, n->parent[v]);
      for (int c = 0; c < n->nchildren[v]; c++) {
        if (c && v) work(&s, v, cf);
        send(&s, v, n->child[v][c], e);
      }
      if (!n->nchildren[v]) work(&s, v, (leaf - 1) * cf);
    }
    break;
  }
  default: {
    int p1 = n->t.p1, p2 = n->t.p2, line[MAXP];
    phase(&s);  // step 2: along every row
    for (int y = 0; y < p2; y++)
      for (int c = 0; c + 1 < p1; c++) xfer(&s, at(n, y, c), at(n, y, c + 1), e), work(&s, at(n, y, c + 1), cf);
    phase(&s);  // step 3: down the last column, then along each row from both its ends
    for (int y = 0; y + 1 < p2; y++) xfer(&s, at(n, y, p1 - 1), at(n, y + 1, p1 - 1), e), work(&s, at(n, y + 1, p1 - 1), cf);
    for (int y = 1; y < p2; y++) {
      row(n, y, line);
      int rotated[MAXP];  // from the last column: over the wrap-around link first
      for (int c = 0; c < p1; c++) rotated[c] = line[p1 - 1 - c];
      ring_halves(&s, rotated, p1, e, same, e);
    }
    phase(&s);
    for (int k = 0; k < p; k++) work(&s, k, m * cf);
    break;
  }
  }
  return s;
}

// get_neigh's exchanges on a line of n (a ring: the ends neighbours too).
static void neighbour_swaps(Sim *s, const int *line, int n, bool ring, double e) {
  for (int i = 0; i < n; i++) {
    int left = i > 0 ? line[i - 1] : ring ? line[n - 1] : -1, right = i + 1 < n ? line[i + 1] : ring ? line[0] : -1;
    if (i % 2) {
      send(s, line[i], left, e), recv(s, line[i], left);
      if (right >= 0) send(s, line[i], right, e), recv(s, line[i], right);
    } else {
      if (right >= 0) recv(s, line[i], right), send(s, line[i], right, e);
      if (left >= 0) recv(s, line[i], left), send(s, line[i], left, e);
    }
  }
}

// A column's values shifted one along it: two pipelines meeting in the middle.
static void column_shift(Sim *s, const int *line, int n, double e) {
  int h = n / 2;
  for (int r = n - 2; r >= h; r--) xfer(s, line[r], line[r + 1], e);
  for (int r = 0; r < h; r++) xfer(s, line[r], line[r + 1], e);
}

static void tree_neighbours(Sim *s, const Net *n, double bytes) {
  for (int lvl = n->t.d; lvl >= 0; lvl--)
    for (int v = 0; v < n->t.p; v++) {
      if (n->depth[v] != lvl) continue;
      for (int c = 0; c < n->nchildren[v]; c++) recv(s, v, n->child[v][c]);
      if (v) send(s, v, n->parent[v], bytes);
    }
  for (int v = 0; v < n->t.p; v++) {
    if (v) recv(s, v, n->parent[v]);
    for (int c = 0; c < n->nchildren[v]; c++) send(s, v, n->child[v][c], bytes);
  }
}

static Sim neighbours_schedule(const Net *n, double nelems, double ce) {
  Sim s = sim_new(n);
  int p = n->t.p, line[MAXP];
  double e = n->t.element_bytes;
  phase(&s);
  switch (n->t.kind) {
  case TOPO_LINEAR:
    for (int i = 0; i < p; i++) line[i] = i;
    neighbour_swaps(&s, line, p, false, e);
    break;
  case TOPO_HYPERCUBE: {
    int d = n->t.d;
    for (int i = 0; i < d; i++) {  // forward, then (the last dimension) both ways, then back
      phase(&s);
      for (int q = 0; q < p; q++) {
        bool ones = (q & ((1 << i) - 1)) == (1 << i) - 1;
        if (!ones || (q >> i & 1)) continue;
        xfer(&s, q, q + (1 << i), 2 * e);
        if (i == d - 1) xfer(&s, q + (1 << i), q, 2 * e);
      }
    }
    for (int i = d - 2; i >= 0; i--) {
      phase(&s);
      for (int q = 0; q < p; q++)
        if ((q & ((1 << i) - 1)) == (1 << i) - 1 && !(q >> i & 1)) xfer(&s, q + (1 << i), q, 2 * e);
    }
    break;
  }
  case TOPO_TREE: tree_neighbours(&s, n, 2 * e); break;
  default:
    for (int y = 0; y < n->t.p2; y++) {
      row(n, y, line);
      neighbour_swaps(&s, line, n->t.p1, !(n->t.kind == TOPO_TORUS_NONUNIFORM && y == 0), e);
    }
    phase(&s);
    int col[MAXP], up[MAXP];
    column(n, 0, col);
    column_shift(&s, col, n->t.p2, e);
    column(n, n->t.p1 - 1, col);
    for (int r = 0; r < n->t.p2; r++) up[r] = col[n->t.p2 - 1 - r];
    column_shift(&s, up, n->t.p2, e);
    break;
  }
  phase(&s);
  for (int k = 0; k < p; k++) work(&s, k, ceil(nelems / p) * ce);
  return s;
}

static void check_functions(const Net *n) {
  const Topology *t = &n->t;
  const char *kind = topology_kind_name(t->kind);
  int p = t->p;
  double lengths[] = {5.0 * p, 7.0 * p + 3};
  for (int i = 0; i < 2; i++) {
    double N = lengths[i], cf = 1.3, m = ceil(N / p);
    CHECK(close_to(topo_map(t, N, cf), m * cf), "map on the %s of %d", kind, p);
    FoldCase sf = {.elem = 1, .cf = cf}, gf = {.elem = 3, .grows = true};
    Sim a = fold_schedule(n, &sf, N), b = fold_schedule(n, &gf, N);
    double s_fold = simulate(&a), g_fold = simulate(&b);
    CHECK(close_to(topo_s_fold(t, N, cf), s_fold), "s_fold on the %s of %d, n = %g: %.10g, the algorithm %.10g", kind, p,
          N, topo_s_fold(t, N, cf), s_fold);
    CHECK(close_to(topo_g_fold(t, N, 3, merge_cost, NULL), g_fold),
          "g_fold on the %s of %d, n = %g: %.10g, the algorithm %.10g", kind, p, N, topo_g_fold(t, N, 3, merge_cost, NULL),
          g_fold);
    Sim c = scan_schedule(n, N, cf);
    double scan = simulate(&c);
    CHECK(close_to(topo_s_scan(t, N, cf), scan), "s_scan on the %s of %d, n = %g: %.10g, the algorithm %.10g", kind, p,
          N, topo_s_scan(t, N, cf), scan);
    double ys = 17, cross = broadcast_time(n, ys * t->element_bytes) + m * ys * cf;
    CHECK(close_to(topo_cross_product(t, N, ys, cf), cross), "cross_product on the %s of %d: %.10g, the algorithm %.10g",
          kind, p, topo_cross_product(t, N, ys, cf), cross);
    Sim g = neighbours_schedule(n, N, 0.25);
    double neighbours = simulate(&g);
    CHECK(close_to(topo_get_neigh(t, N, 0.25), neighbours), "get_neigh on the %s of %d: %.10g, the algorithm %.10g",
          kind, p, topo_get_neigh(t, N, 0.25), neighbours);
    static Net wide;  // its exchange alone, of elements of 5 words: a plan's XCH_NEIGHBOURS
    wide = *n;
    wide.t.element_bytes = 5 * t->element_bytes;
    Sim w = neighbours_schedule(&wide, N, 0);
    double exchange = simulate(&w);
    CHECK(close_to(topo_neighbours_exchange(t, wide.t.element_bytes), exchange),
          "get_neigh's exchange on the %s of %d: %.10g, the algorithm %.10g", kind, p,
          topo_neighbours_exchange(t, wide.t.element_bytes), exchange);
  }
}

//
// Distances and sizes.
//

static void check_hops(const Net *n) {
  int p = n->t.p;
  for (int a = 0; a < p; a++) {
    int dist[MAXP], queue[MAXP], head = 0, tail = 0;
    for (int k = 0; k < p; k++) dist[k] = -1;
    dist[a] = 0, queue[tail++] = a;
    while (head < tail) {
      int v = queue[head++];
      for (int w = 0; w < p; w++)
        if (n->link[v][w] && dist[w] < 0) dist[w] = dist[v] + 1, queue[tail++] = w;
    }
    for (int b = 0; b < p; b++)
      CHECK(topology_hops(&n->t, a, b) == dist[b], "hops %d-%d on the %s of %d: %d, by search %d", a, b,
            topology_kind_name(n->t.kind), p, topology_hops(&n->t, a, b), dist[b]);
  }
}

static Topology base(TopologyKind kind) { return (Topology){.kind = kind, .K0 = 0.7, .K1 = 37, .element_bytes = 4}; }

static void check_all(Topology t) {
  static Net n;
  build(&n, t);
  check_hops(&n);
  check_routines(&n);
  check_functions(&n);
}

static void check_configurations(void) {
  Topology cube = base(TOPO_HYPERCUBE), torus = base(TOPO_TORUS), tree = base(TOPO_TREE);
  cube.p = 16, cube.d = 4;
  torus.p1 = 2, torus.p2 = 16, torus.p = 32;
  tree.s = 3, tree.d = 2, tree.p = 13;
  int sizes[16], n = topology_sizes(&cube, sizes, 16);
  CHECK(n == 5 && sizes[0] == 1 && sizes[4] == 16, "hypercube sizes");
  n = topology_sizes(&torus, sizes, 16);
  CHECK(n == 5 && sizes[1] == 4 && sizes[4] == 32, "torus sizes");
  Topology eight = topology_fit(&torus, 7);
  CHECK(eight.p == 8 && eight.p1 == 2 && eight.p2 == 4, "a torus of 8 in a 2 x 16: %d x %d", eight.p1, eight.p2);
  n = topology_sizes(&tree, sizes, 16);
  CHECK(n == 3 && sizes[1] == 4 && sizes[2] == 13, "tree sizes");
  CHECK(topology_fit(&tree, 5).p == 13 && topology_fit(&tree, 5).d == 2, "the tree that holds 5");
}

//
// A plan's supersteps on a topology machine: the exchanges of each of the
// plan's patterns, by the routines above (whose formulas are checked), for
// a vector of 8 ints at p = 4 (dh: blocks of 2).
//

static double plan_seconds(Machine *m, const char *text, const char *spec, double *work) {
  Arena *a = arena_new();
  Program *prog = program_check(a, source_from_string(a, "test.vec", text, strlen(text)), NULL);
  int64_t n = 8;
  CostRequest req = {.prog = prog, .params = &n, .model = MODEL_EXACT, .machine = *m, .plan_spec = spec};
  CostResult r = cost_analyse(a, &req);
  *work = 0;
  for (int i = 0; i < r.nsteps; i++) *work += r.steps[i].w / m->s;
  arena_free(a);
  return r.seconds;
}

static void check_plans(void) {
  Topology cube = base(TOPO_HYPERCUBE), line = base(TOPO_LINEAR), tree = base(TOPO_TREE);
  cube.p = 4, cube.d = 2, line.p = 4, tree.p = 4, tree.s = 3, tree.d = 1;
  Topology *machines[] = {&cube, &line, &tree};
  double tree_hops[] = {2, 3, 3};  // rounds of a fold's tree at p = 4: 1->0 and 3->2, then 2->0
  double butterfly_hops[] = {2, 3, 4};  // rounds of dh at p = 4: partners 1 apart, then 2 apart (each way)
  // neighbours at p = 4 (the thesis's get_neigh): 2d = 4 transfers of two
  // elements on the hypercube, 4 of one on the linear array (odd and even
  // processors in turn), 2 d s = 6 of two on the tree of depth 1.
  double neighbours_transfers[] = {4, 4, 6}, neighbours_elements[] = {2, 1, 2};
  const char *fold = "param n\ninput x : [n]int\nmain = fold (+) x\n";
  for (int i = 0; i < 3; i++) {
    Topology *t = machines[i];
    Machine m = {.name = "t", .topology = t, .p = 4, .s = 1e3, .k = {.binop = 1}};
    double e = t->element_bytes, work, got;
    got = plan_seconds(&m, fold, "best,regions=parallel,inputs=block,fold=tree", &work);
    CHECK(close_to(got, work + tree_hops[i] * topology_transfer(t, e)), "fold by a tree on the %s: %g", topology_kind_name(t->kind), got);
    got = plan_seconds(&m, fold, "best,regions=parallel,inputs=block,fold=gather", &work);
    CHECK(close_to(got, work + topology_gather(t, 4 * e)), "fold by gather on the %s: %g", topology_kind_name(t->kind), got);
    got = plan_seconds(&m, fold, "best,regions=parallel,inputs=block,fold=allreduce", &work);
    CHECK(close_to(got, work + topology_total_exchange(t, 4 * e)), "fold by allreduce on the %s", topology_kind_name(t->kind));
    got = plan_seconds(&m, "param n\ninput x : [n]int\nmain = prefix (+) x\n", "best,regions=parallel,inputs=block,result=block,prefix=store", &work);
    CHECK(close_to(got, work + topology_total_exchange(t, 4 * e)), "prefix's totals on the %s", topology_kind_name(t->kind));
    got = plan_seconds(&m, "param n\ninput x : [n]int\nmain = map (fold (+)) (inits x)\n", "best,regions=parallel,inputs=block,result=block", &work);
    CHECK(close_to(got, work + topology_total_exchange(t, 8 * e)), "inits's blocks on the %s: %g", topology_kind_name(t->kind), got);
    got = plan_seconds(&m, "param n\ninput x : [n]int\nmain = dh (+) (-) x\n", "best,regions=parallel,inputs=block,result=block", &work);
    CHECK(close_to(got, work + 2 * butterfly_hops[i] * topology_transfer(t, 2 * e)), "dh's rounds on the %s: %g",
          topology_kind_name(t->kind), got);
    for (int words = 1; words <= 3; words += 2) {  // ints, then rows of 3 ints
      const char *text = words == 1 ? "param n\ninput x : [n]int\nmain = neighbours 0 0 x\n"
                                    : "param n\ninput x : [n]int\nmain = neighbours [0, 0, 0] [0, 0, 0] (map (\\y -> [y, y, y]) x)\n";
      got = plan_seconds(&m, text, "best,regions=parallel,inputs=block,result=block", &work);
      CHECK(close_to(got, work + neighbours_transfers[i] * topology_transfer(t, neighbours_elements[i] * words * e)),
            "neighbours' ends (%d words) on the %s: %g", words, topology_kind_name(t->kind), got);
    }
    got = plan_seconds(&m, "param n\ninput x : [n]int\nmain = map (\\y -> y + 1) x\n", "best,regions=parallel,inputs=block,result=root", &work);
    CHECK(close_to(got, work + topology_gather(t, 8 * e)), "the result gathered on the %s", topology_kind_name(t->kind));
  }
}

int main(void) {
  for (int d = 0; (1 << d) <= MAXP; d++) {
    Topology t = base(TOPO_HYPERCUBE);
    t.d = d, t.p = 1 << d;
    check_all(t);
  }
  for (int p = 1; p <= MAXP; p++) {
    Topology t = base(TOPO_LINEAR);
    t.p = p;
    check_all(t);
  }
  for (int k = 0; k < 2; k++)
    for (int p1 = 2; p1 * p1 <= MAXP; p1 *= 2)
      for (int p2 = p1; p1 * p2 <= MAXP; p2 *= 2) {
        Topology t = base(k ? TOPO_TORUS_NONUNIFORM : TOPO_TORUS);
        t.p1 = p1, t.p2 = p2, t.p = p1 * p2;
        check_all(t);
      }
  for (int s = 2; s < MAXP; s++)
    for (int d = 0;; d++) {
      int p = 0, level = 1;
      for (int j = 0; j <= d; j++) p += level, level *= s;
      if (p > MAXP) break;
      Topology t = base(TOPO_TREE);
      t.s = s, t.d = d, t.p = p;
      check_all(t);
    }
  check_configurations();
  check_plans();
  printf("%d checks, %d failed\n", checks, failures);
  return failures != 0;
}
