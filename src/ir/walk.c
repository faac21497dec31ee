// walk.c: the one traversal of the IR: a node's operands in evaluation
// order, and the questions about a whole subtree that several passes ask.
#include "ir/ir.h"

int ir_max_kids(const Ir *e) { return 4 + e->nelems; }

int ir_kids(const Ir *e, Ir **kids) {
  int n = 0;
  Ir *fixed[] = {e->a, e->b, e->c, e->body};
  for (int i = 0; i < 4; i++)
    if (fixed[i]) kids[n++] = fixed[i];
  for (int i = 0; i < e->nelems; i++) kids[n++] = e->elems[i];
  return n;
}

void ir_visit(Ir *e, IrVisit visit, void *ctx) {
  if (!e) return;
  visit(e, ctx);
  Ir *kids[ir_max_kids(e)];
  int n = ir_kids(e, kids);
  for (int i = 0; i < n; i++) ir_visit(kids[i], visit, ctx);
}

void ir_visit_after(Ir *e, IrVisit visit, void *ctx) {
  if (!e) return;
  Ir *kids[ir_max_kids(e)];
  int n = ir_kids(e, kids);
  for (int i = 0; i < n; i++) ir_visit_after(kids[i], visit, ctx);
  visit(e, ctx);
}

bool ir_holds_region(const Ir *e) { return e->holds_region; }
