// tree.c: walking the syntax tree: a node's children in one order for
// every pass that needs them, and applications of builtins by their spine.
#include "lang/lang.h"

Node *node_kid(const Node *n, int i) {
  Node *fixed[] = {n->lhs, n->rhs, n->init, n->body, n->cond, n->then_, n->else_};
  for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++)
    if (fixed[k] && i-- == 0) return fixed[k];
  return i < n->nelems ? n->elems[i] : NULL;
}

void node_visit(Node *n, void (*visit)(Node *n, void *ctx), void *ctx) {
  visit(n, ctx);
  Node *kid;
  for (int i = 0; (kid = node_kid(n, i)); i++) node_visit(kid, visit, ctx);
}

bool node_within(const Node *n, const Node *x) {
  if (n == x) return true;
  Node *kid;
  for (int i = 0; (kid = node_kid(n, i)); i++)
    if (node_within(kid, x)) return true;
  return false;
}

bool node_applies(const Node *n, Builtin b, int nargs, Node **args) {
  int k = 0;
  const Node *head = n;
  while (head->kind == N_APP) head = head->lhs, k++;
  if (k != nargs || head->kind != N_VAR || head->ref != REF_BUILTIN || head->builtin != b) return false;
  for (const Node *m = n; m->kind == N_APP; m = m->lhs) args[--k] = m->rhs;
  return true;
}
