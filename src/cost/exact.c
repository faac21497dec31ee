// exact.c: the exact model: what `vecbsp run` executes (docs/compiler.md),
// superstep by superstep, with the integer block distribution of plan.c.
// Each process's work and words in the open superstep are kept; a barrier
// turns their maxima into the superstep's w and h. A region (a chain of
// skeletons, each the distributed argument of the next) starts with one
// fetch superstep carrying the data of all its functions, so that superstep
// is listed when the region ends. docs/cost-model.md ("exact model") states
// every rule implemented here.
#include "cost/costint.h"

static int64_t lo(Analysis *a, int64_t n, int k) { return plan_block_start(n, a->p, k); }

static int64_t len_of(Analysis *a, int64_t n, int k) { return lo(a, n, k + 1) - lo(a, n, k); }

static void send(Analysis *a, int from, int to, double words) {
  if (from == to) return;
  a->st.sent[from] += words;
  a->st.recv[to] += words;
}

//
// Words as the executor sends data (docs/compiler.md, "What is counted"):
// a value is packed with one word per scalar and one length word per
// vector in it; a block of vector elements drops the elements' own length
// words when they all have one length (the stride travels in the tag).
//

static double packed(Shape *s) {
  if (s->packed) return s->packed;
  double w = 1;
  switch (s->kind) {
  case SH_PAIR: w = packed(s->a) + packed(s->b); break;
  case SH_VEC: w = 1 + (sz_is(s->n, 0) ? 0 : (double)s->n.k * packed(s->a)); break;
  case SH_IRR:
    for (int64_t i = 0; i < s->n.k; i++) w += packed(s->elems[i]);
    break;
  default: break;
  }
  return s->packed = w;
}

// SH_IRR caches: packed words of elements before i; end of i's run of
// equal lengths (vectors) or i itself.
static void index_irregular(Analysis *a, Shape *v) {
  int64_t n = v->n.k;
  v->bprefix = arena_calloc(a->arena, (size_t)n + 1, sizeof *v->bprefix);
  v->run_end = arena_calloc(a->arena, (size_t)n + 1, sizeof *v->run_end);
  for (int64_t i = 0; i < n; i++) v->bprefix[i + 1] = v->bprefix[i] + packed(v->elems[i]);
  for (int64_t i = n - 1; i >= 0; i--) {
    Shape *e = v->elems[i];
    bool same = i + 1 < n && shape_is_vector(e) && shape_is_vector(v->elems[i + 1]) &&
                sz_equal(e->n, v->elems[i + 1]->n);
    v->run_end[i] = same ? v->run_end[i + 1] : i;
  }
}

// Words of the block [from, to) of vector v (of both halves of a pair).
static double block_words(Analysis *a, Shape *v, int64_t from, int64_t to) {
  if (v->kind == SH_PAIR) return block_words(a, v->a, from, to) + block_words(a, v->b, from, to);
  if (from >= to) return 0;
  if (v->kind == SH_VEC) return (double)(to - from) * (packed(v->a) - shape_is_vector(v->a));
  if (!v->bprefix) index_irregular(a, v);
  bool regular = shape_is_vector(v->elems[from]) && v->run_end[from] >= to - 1;
  return v->bprefix[to] - v->bprefix[from] - (regular ? (double)(to - from) : 0);
}

// A whole value as one message: a vector as a block, the rest packed.
static double value_words(Analysis *a, Shape *v) {
  return shape_is_vector(v) ? block_words(a, v, 0, v->n.k) : packed(v);
}

//
// Supersteps.
//

static const char *label(Analysis *a, Site *site, const char *what) {
  return arena_printf(a->arena, "%s: %s", builtin_name(site->b), what);
}

static void barrier(Analysis *a, Site *site, const char *what) {
  Steps *st = &a->st;
  double w = 0, h = 0;
  for (int k = 0; k < a->p; k++) {
    if (st->pw[k] > w) w = st->pw[k];
    if (st->sent[k] > h) h = st->sent[k];
    if (st->recv[k] > h) h = st->recv[k];
    st->pw[k] = st->sent[k] = st->recv[k] = 0;
  }
  steps_close(a, num_of(w), num_of(h), site, label(a, site, what));
}

static void work(Analysis *a, Num w) { a->st.pw[0] += w.v; }

// Length of the vector a region distributes (pair_map: of either half).
static int64_t dist_len(Shape *x) { return x->kind == SH_PAIR ? x->a->n.k : x->n.k; }

// A region starts with x, or the skeleton f joins the running one: the
// data its function carries (each once) and its operands (c_prod's x) are
// added to what the fetch superstep sends.
static void start(Analysis *a, Shape *f, Shape *x, Site *site) {
  Region *g = &a->st.region;
  if (x) {
    *g = (Region){.site = site, .w0 = a->st.pw[0], .scatter = g->scatter, .row = a->st.nrows};
    a->st.pw[0] = 0;
    int64_t n = dist_len(x);
    for (int k = 1; k < a->p; k++) g->scatter[k] = block_words(a, x, lo(a, n, k), lo(a, n, k + 1));
  }
  for (int i = 0; i < f->nargs; i++) {
    if (shape_is_function(f->elems[i])) eval_function_items(a, f->elems[i], &g->items);
    else g->operands += value_words(a, f->elems[i]);
  }
}

// The fetch superstep, listed before the region's others: process 0 sends
// every other process the region's data in full and its block.
static void end_region(Analysis *a) {
  Region *g = &a->st.region;
  double full = g->operands, sent = 0, h = 0;
  for (int i = 0; i < g->items.len; i++) full += value_words(a, ((Origin *)g->items.data[i])->value);
  for (int k = 1; k < a->p; k++) {
    sent += full + g->scatter[k];
    if (full + g->scatter[k] > h) h = full + g->scatter[k];
  }
  if (sent > h) h = sent;
  steps_insert(a, g->row, num_of(g->w0), num_of(h), g->site, label(a, g->site, "fetch"));
}

static void local(Analysis *a, const ElemCosts *ec, Site *site) {
  int64_t n = ec->n.k;
  for (int k = 0; k < a->p; k++) {
    int64_t i = lo(a, n, k), end = lo(a, n, k + 1);
    if (!ec->each) {
      a->st.pw[k] += (double)(end - i) * ec->each1.v;
      continue;
    }
    for (; i < end; i++) a->st.pw[k] += ec->each[i].v;
  }
}

static void gather(Analysis *a, Shape *v, Site *site) {
  int64_t n = v->n.k;
  for (int k = 1; k < a->p; k++) send(a, k, 0, block_words(a, v, lo(a, n, k), lo(a, n, k + 1)));
  barrier(a, site, "gather");
  end_region(a);
}

// Each process with elements folds them and sends its partial result to
// process 0, which folds the partial results after the barrier.
static void fold(Analysis *a, Shape *x, Num c, Shape *e, Site *site) {
  int64_t n = x->n.k;
  int nonempty = 0;
  for (int k = 0; k < a->p; k++) {
    int64_t len = len_of(a, n, k);
    if (len == 0) continue;
    nonempty++;
    a->st.pw[k] += (double)(len - 1) * c.v;
    send(a, k, 0, value_words(a, e));
  }
  barrier(a, site, "partial results");
  end_region(a);
  a->st.pw[0] += (double)(nonempty - 1) * c.v;
}

// Local prefixes; every block's total goes to every later process with
// elements, which combines those it receives and offsets its elements.
static void prefix(Analysis *a, Shape *x, Num c, Shape *e, Site *site) {
  int64_t n = x->n.k;
  int total = 0;
  for (int k = 0; k < a->p; k++) total += len_of(a, n, k) > 0;
  double ew = value_words(a, e);
  int before = 0;
  for (int k = 0; k < a->p; k++) {
    int64_t len = len_of(a, n, k);
    if (len == 0) continue;
    a->st.pw[k] += (double)(len - 1) * c.v;
    a->st.sent[k] += (double)(total - before - 1) * ew;
    a->st.recv[k] += (double)before * ew;
    before++;
  }
  barrier(a, site, "block totals");
  before = 0;
  for (int k = 0; k < a->p; k++) {
    int64_t len = len_of(a, n, k);
    if (len == 0) continue;
    if (before > 0) a->st.pw[k] += (double)(before - 1 + len) * c.v;
    before++;
  }
}

// The process whose block holds element i (i < n).
static int owner(Analysis *a, int64_t n, int64_t i) {
  int low = 0, high = a->p - 1;
  while (low < high) {
    int mid = low + (high - low + 1) / 2;
    if (lo(a, n, mid) <= i) low = mid;
    else high = mid - 1;
  }
  return low;
}

// The first process k whose needs [n - end(k), n) start before limit
// (they start earlier as k grows).
static int first_needing(Analysis *a, int64_t n, int64_t limit) {
  int low = 0, high = a->p;
  while (low < high) {
    int mid = low + (high - low) / 2;
    if (n - lo(a, n, mid + 1) < limit) high = mid;
    else low = mid + 1;
  }
  return low;
}

// inits and tails: every process with elements sends every other process
// with elements the part of its block the other's segments need: inits,
// process k needs [0, end(k)) so blocks go to higher processes; tails,
// process k needs [n - end(k), n).
static void segments(Analysis *a, Shape *x, Site *site) {
  int p = a->p;
  int64_t n = x->n.k;
  bool inits = site->b == B_INITS;
  double *whole = arena_calloc(a->arena, (size_t)p + 1, sizeof *whole);  // words of blocks 0..k-1
  int *count = arena_calloc(a->arena, (size_t)p + 1, sizeof *count);     // blocks with elements among 0..k-1
  for (int k = 0; k < p; k++) {
    whole[k + 1] = whole[k] + block_words(a, x, lo(a, n, k), lo(a, n, k + 1));
    count[k + 1] = count[k] + (len_of(a, n, k) > 0);
  }
  for (int k = 0; k < p; k++) {
    int64_t start = lo(a, n, k), end = lo(a, n, k + 1);
    if (start == end) continue;
    if (inits) {
      a->st.recv[k] += whole[k];
      a->st.sent[k] += (double)(count[p] - count[k + 1]) * (whole[k + 1] - whole[k]);
      continue;
    }
    // Receives: the end of the block holding n - end (unless its own), then whole blocks.
    int64_t from = n - end;
    int q = owner(a, n, from);
    if (q != k) a->st.recv[k] += block_words(a, x, from, lo(a, n, q + 1));
    a->st.recv[k] += whole[p] - whole[q + 1] - (k > q ? whole[k + 1] - whole[k] : 0);
    // Sends: all of its block to [whole_from, p), a part to [part_from, whole_from).
    int part_from = first_needing(a, n, end), whole_from = first_needing(a, n, start + 1);
    double block = whole[k + 1] - whole[k];
    a->st.sent[k] += (double)(count[p] - count[whole_from] - (k >= whole_from)) * block;
    for (int r = part_from; r < whole_from; r++)
      if (r != k && len_of(a, n, r) > 0) a->st.sent[k] += block_words(a, x, n - lo(a, n, r + 1), end);
  }
  barrier(a, site, "exchange");
}

static void end(Analysis *a, Pos where) {
  double w = 0;
  for (int k = 0; k < a->p; k++)
    if (a->st.pw[k] > w) w = a->st.pw[k];
  steps_final(a, num_of(w), where);
}

const ModelOps cost_exact_model = {work, start, local, gather, fold, prefix, segments, end};
