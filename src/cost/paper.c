// paper.c: the paper model: the cost functions of Hayashi & Cole, with
// real division by p, laid out as supersteps. A regular vector's block is
// len/p elements; an irregular vector (the maximum segment sum paper's
// vector shapes) uses the integer blocks of plan.c for maxsum, scatsz and
// gath_sz. docs/cost-model.md ("paper model") lists where we read the
// papers and where we deviate.
#include "cost/costint.h"
#include "ir/ir.h"

static Num add(Analysis *a, Num x, Num y) { return num_add(a->pc, x, y); }
static Num sub(Analysis *a, Num x, Num y) { return num_sub(a->pc, x, y); }
static Num mul(Analysis *a, Num x, Num y) { return num_mul(a->pc, x, y); }

// len / p
static Num per_process(Analysis *a, Sz len, Site *site) { return num_div(a->pc, num_sz(len), a->P, site->pos); }

static Num p_minus_1(Analysis *a) { return sub(a, a->P, num_of(1)); }

static const char *label(Analysis *a, Site *site, const char *what) {
  return arena_printf(a->arena, "%s: %s", builtin_name(site->b), what);
}

static void close_step(Analysis *a, Num h, Site *site, const char *what) {
  steps_close(a, a->st.w, h, site, label(a, site, what));
  a->st.w = num_of(0);
}

void paper_work(Analysis *a, Num w) { a->st.w = add(a, a->st.w, w); }

// Words of the first integer block of an irregular vector.
static double first_block_words(Analysis *a, Shape *x) {
  return shape_block_words(x, 0, range_lo(x->n.k, a->p, 1));
}

// scatsz: the words process 0 sends when it scatters x (gath_sz when it gathers).
static Num scatter_words(Analysis *a, Shape *x, Site *site) {
  switch (x->kind) {
  case SH_PAIR: return add(a, scatter_words(a, x->a, site), scatter_words(a, x->b, site));
  case SH_VEC: return num_div(a->pc, mul(a, x->words, p_minus_1(a)), a->P, site->pos);
  case SH_IRR: return num_of(x->words.v - first_block_words(a, x));
  case SH_FAM: case SH_CAT: return sub(a, x->words, family_first_words(a, x));
  default: return num_of(0);
  }
}

// comm_cost of bspapp: broadcast the function's data and scatter the
// argument, then synchronise; when the argument was left distributed
// (data pattern 1) only the broadcast remains, with its barrier only when
// there is data to send (the paper's hand analysis of algorithm (2)).
void paper_start(Analysis *a, Shape *f, Shape *x, Site *site) {
  if (!x && num_is_zero(f->words)) return;
  Num h = mul(a, f->words, p_minus_1(a));
  if (x) h = add(a, h, scatter_words(a, x, site));
  close_step(a, h, site, x ? "broadcast and scatter" : "broadcast");
}

// apcost_map: the per-element cost times len/p, or maxsum over blocks.
void paper_local(Analysis *a, const ElemCosts *ec, Site *site) {
  if (ec->over) {
    paper_work(a, family_busiest(a, ec, site->pos));
    return;
  }
  if (!ec->each) {
    paper_work(a, mul(a, ec->each1, per_process(a, ec->n, site)));
    return;
  }
  double most = 0;
  for (int k = 0; k < a->p; k++) {
    double sum = 0;
    for (int64_t i = range_lo(ec->n.k, a->p, k); i < range_lo(ec->n.k, a->p, k + 1); i++)
      sum += ec->each[i].v;
    if (sum > most) most = sum;
  }
  paper_work(a, num_of(most));
}

void paper_gather(Analysis *a, Shape *v, Site *site) { close_step(a, scatter_words(a, v, site), site, "gather"); }

// ap_cost_fold: len/p - 1 local steps, t_size(iter_rlt)*(p-1) words to
// process 0, then p-1 steps there.
void paper_fold(Analysis *a, Shape *x, Num c, Shape *e, Site *site) {
  paper_work(a, mul(a, c, sub(a, per_process(a, x->n, site), num_of(1))));
  close_step(a, mul(a, e->words, p_minus_1(a)), site, "gather partial results");
  paper_work(a, mul(a, c, p_minus_1(a)));
}

// shape_prefix: local prefix, log p tree rounds and a shift (one element
// each), then the offsets; the gather comes when the result is needed.
void paper_prefix(Analysis *a, Shape *x, Num c, Shape *e, Site *site) {
  Num np = per_process(a, x->n, site);
  paper_work(a, mul(a, c, sub(a, np, num_of(1))));
  close_step(a, e->words, site, "tree round");
  steps_close_times(a, c, e->words, a->LOG2P, site, label(a, site, "tree round or shift"));
  paper_work(a, mul(a, c, np));
}

// A fold whose operator changes the shape of what it combines (merge) or
// over elements of different shapes: as ap_cost_fold, with the steps
// followed block by block (builtin.c) instead of c * (len/p - 1) and
// t_size * (p-1).
void paper_fold_blocks(Analysis *a, Num work, Num words, Num joins, Site *site) {
  paper_work(a, work);
  close_step(a, words, site, "gather partial results");
  paper_work(a, joins);
}

// A prefix likewise: as shape_prefix, with the block totals' words for
// size(e), the dearest combination for c in the rounds, and the offsets
// applied for c * len/p.
void paper_prefix_blocks(Analysis *a, Num work, Num words, Num join, Num finish, Site *site) {
  paper_work(a, work);
  close_step(a, words, site, "tree round");
  steps_close_times(a, join, words, a->LOG2P, site, label(a, site, "tree round or shift"));
  paper_work(a, finish);
}

// dh f g x on a distributed x of 2^k elements of shape e, p a power of two
// at most 2^k (Li and Hains' DH, its cost corrected: docs/cost-model.md,
// "dh"): log2(n/p) local stages, each applying f and g to half the block's
// elements each; then log2 p rounds: the block to the partner (n/p words of
// e), a barrier, n/p applications of f (the lower process) or g (the upper
// one): the dearer counts. The result is left distributed. With f and g of
// one application each (cf, cg, at e), this is the flat cost the
// hierarchical model calls for a node's children.
void paper_dh(Analysis *a, int64_t log2n, Shape *e, Num cf, Num cg, Site *site) {
  Num np = num_div(a->pc, num_of((double)((int64_t)1 << log2n)), a->P, site->pos);
  Num local = sub(a, num_of((double)log2n), a->LOG2P);
  paper_work(a, mul(a, mul(a, np, local), mul(a, add(a, cf, cg), num_of(0.5))));
  if (!a->pc && a->LOG2P.v == 0) return;  // one process: no round
  if ((cf.sym || cg.sym) && !num_equal(a->pc, cf, cg))
    error_at(site->pos, "--symbolic: the operators of 'dh' cost differently, so a round's cost (the dearer) "
                        "has no closed form");
  Num dearer = cf.sym || cf.v >= cg.v ? cf : cg, words = mul(a, np, e->words), round = mul(a, np, dearer);
  close_step(a, words, site, "round");
  steps_close_times(a, round, words, sub(a, a->LOG2P, num_of(1)), site, label(a, site, "round"));
  paper_work(a, round);
}

// dh whose operators change the shape of what they combine: gathered to
// process 0, which runs it alone (work), and its result r scattered back.
void paper_dh_alone(Analysis *a, Shape *x, Num work, Shape *r, Site *site) {
  close_step(a, scatter_words(a, x, site), site, "gather");
  paper_work(a, work);
  close_step(a, scatter_words(a, r, site), site, "scatter");
}

// neighbours l r x on a distributed x (beyond the papers: docs/cost-model.md,
// "neighbours"): every process makes its block's triples, two pairs an
// element, and sends its block's first and last elements to the processes
// holding their neighbours, one superstep of h = 2 elements' words (none on
// one process). The result is left distributed.
void paper_neighbours(Analysis *a, Shape *x, Site *site) {
  paper_work(a, mul(a, num_of(2 * a->k.pair), per_process(a, x->n, site)));
  if (!a->pc && a->p == 1) return;
  Num end = num_of(0);
  if (x->kind == SH_VEC) {
    end = x->a->words;
  } else {
    for (int64_t i = 0; i < x->n.k; i++)
      if (shape_elem(x, i)->words.v > end.v) end = shape_elem(x, i)->words;
  }
  close_step(a, mul(a, num_of(2), end), site, "the ends exchanged");
}

// shape_inits / shape_tails: local segments, then p-1 shifts of a block
// to the right neighbour, each prepended to every local segment.
void paper_segments(Analysis *a, Shape *x, Site *site) {
  Num np = per_process(a, x->n, site);
  Num build = mul(a, num_of(a->k.concat), np);
  Num shift = x->kind == SH_VEC ? mul(a, x->a->words, np)
            : x->kind == SH_FAM ? family_first_words(a, x) : num_of(first_block_words(a, x));
  paper_work(a, build);
  if (a->pc) {  // p symbolic: the open work ends up in W all the same
    steps_close_times(a, build, shift, p_minus_1(a), site, label(a, site, "shift"));
    return;
  }
  for (int k = 1; k < a->p; k++) {
    close_step(a, shift, site, "shift");
    paper_work(a, build);
  }
}

void paper_end(Analysis *a, Pos where) {
  steps_final(a, a->st.w, where);
  a->st.w = num_of(0);
}
