/* prelude_driver.c: the generated programs' prelude (src/codegen/rt/ *.c)
 * under test as a BSPlib program of its own, on a fixed set of inputs:
 *   prelude_driver blocks   -- ARGS  rt_input_block equals the slice of rt_input_words
 *   prelude_driver print    -- ARGS  every input in literal syntax, as eval prints it
 *   prelude_driver validate -- ARGS  rt_validate_input on every input
 *   prelude_driver output KIND PATH N  rt_output_npy of a made-up result
 * ARGS are the generated programs' own (-D, --input, --random). */
#include "rt_prelude_all.h"

static const char *const param_names[] = {"n", "m", "c", NULL};
static const char *const input_names[] = {"x", "f", "b", "pr", "M", "F", "B", "s", "q", "E", "T", NULL};
enum { NPARAMS = 3, NINPUTS = 11 };

static int g_argc;
static char **g_argv;

static rt_shape *scalar(rt_kind k) { return rt_shape_new(k, 0, NULL, NULL); }
static rt_shape *vec(int64_t len, const rt_shape *elem) { return rt_shape_new(RT_VEC, len, elem, NULL); }
static rt_shape *pair(const rt_shape *a, const rt_shape *b) { return rt_shape_new(RT_PAIR, 0, a, b); }

/* The inputs' shapes, in the order of input_names. */
static void make_shapes(const int64_t *p, const rt_shape **s) {
  int64_t n = p[0], m = p[1], c = p[2];
  s[0] = vec(n, scalar(RT_INT));
  s[1] = vec(n, scalar(RT_FLOAT));
  s[2] = vec(n, scalar(RT_BOOL));
  s[3] = vec(n, pair(scalar(RT_INT), scalar(RT_FLOAT)));
  s[4] = vec(m, vec(c, scalar(RT_INT)));
  s[5] = vec(m, vec(c, scalar(RT_FLOAT)));
  s[6] = vec(m, vec(c, scalar(RT_BOOL)));
  s[7] = scalar(RT_INT);
  s[8] = pair(scalar(RT_INT), scalar(RT_BOOL));
  s[9] = vec(n, vec(0, scalar(RT_INT)));
  s[10] = vec(m, vec(2, vec(c, scalar(RT_INT))));
}

static _Noreturn void failed(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  bsp_abort("prelude_driver: check failed: %s\n", msg);
}

/* Block starts worth trying: every one for short vectors, else the edges,
 * the middle and a third. */
static int positions(int64_t len, int64_t *at) {
  int n = 0;
  if (len <= 12) {
    for (int64_t i = 0; i <= len; i++) at[n++] = i;
    return n;
  }
  int64_t pick[] = {0, 1, 2, len / 3, len / 2, len - 2, len - 1, len};
  for (int i = 0; i < 8; i++) at[n++] = pick[i];
  return n;
}

static int64_t check_blocks(const rt_decls *d, const rt_args *a, int k, const rt_shape *s) {
  int64_t *whole = rt_input_words(d, a, k, s), checks = 0;
  if (s->kind != RT_VEC) {
    int64_t *w = rt_input_block(d, a, k, s, 0, 0);
    if (memcmp(w, whole, (size_t)rt_shape_words(s) * 8) != 0) failed("input %s: the block is not the whole input", d->inputs[k]);
    return 1;
  }
  int64_t per = rt_shape_words(s->a), at[16];
  int np = positions(s->len, at);
  int64_t me_lo = rt_lo(s->len, bsp_nprocs(), bsp_pid()), me_hi = rt_lo(s->len, bsp_nprocs(), bsp_pid() + 1);
  for (int i = 0; i <= np; i++)
    for (int j = 0; j <= np; j++) {
      int64_t lo = i < np ? at[i] : me_lo, hi = j < np ? at[j] : me_hi;
      if ((i == np) != (j == np) || lo > hi) continue;
      size_t mark = rt_mark();
      int64_t *w = rt_input_block(d, a, k, s, lo, hi);
      if (w[0] != hi - lo) failed("input %s [%lld, %lld): count %lld", d->inputs[k], (long long)lo, (long long)hi, (long long)w[0]);
      if (memcmp(w + 1, whole + 1 + lo * per, (size_t)((hi - lo) * per) * 8) != 0)
        failed("input %s [%lld, %lld): the words differ from the whole input's", d->inputs[k], (long long)lo, (long long)hi);
      rt_release(mark);
      checks++;
    }
  return checks;
}

/* Packed words in literal syntax, as vecbsp eval prints values. */
static const int64_t *print_words(const rt_shape *s, const int64_t *w) {
  switch (s->kind) {
  case RT_INT: pr_i(stdout, *w); return w + 1;
  case RT_FLOAT: {
    t_f f;
    un_f(w, &f);
    pr_f(stdout, f);
    return w + 1;
  }
  case RT_BOOL: pr_b(stdout, *w != 0); return w + 1;
  case RT_PAIR:
    putchar('(');
    w = print_words(s->a, w);
    fputs(", ", stdout);
    w = print_words(s->b, w);
    putchar(')');
    return w;
  case RT_VEC: {
    int64_t len = *w++;
    putchar('[');
    for (int64_t i = 0; i < len; i++) {
      if (i) fputs(", ", stdout);
      w = print_words(s->a, w);
    }
    putchar(']');
    return w;
  }
  }
  return w;
}

/* ---- results for rt_output_npy: element i of each kind ---- */

static int64_t *pack_result(const char *kind, int64_t lo, int64_t hi, int64_t n, const rt_shape **elem, int64_t *nwords) {
  int64_t *w = rt_array((hi - lo) * 16 + 1, 8), *p = w;
  const rt_shape *I = scalar(RT_INT);
  if (strcmp(kind, "int1") == 0) {
    *elem = I;
    for (int64_t i = lo; i < hi; i++) *p++ = i * 7 - 3;
  } else if (strcmp(kind, "float2") == 0) {
    *elem = vec(-1, scalar(RT_FLOAT));
    for (int64_t i = lo; i < hi; i++) {
      *p++ = 3;
      for (int j = 0; j < 3; j++) p = pk_f(p, (double)i + j / 8.0 - (i == 0 && j == 0 ? 0.5 : 0));
    }
  } else if (strcmp(kind, "bool2") == 0) {
    *elem = vec(-1, scalar(RT_BOOL));
    for (int64_t i = lo; i < hi; i++) {
      *p++ = 4;
      for (int j = 0; j < 4; j++) *p++ = (i + j) % 3 == 0;
    }
  } else if (strcmp(kind, "int3") == 0) {
    *elem = vec(-1, vec(-1, I));
    for (int64_t i = lo; i < hi; i++) {
      *p++ = 2;
      for (int j = 0; j < 2; j++) {
        *p++ = 3;
        for (int k = 0; k < 3; k++) *p++ = i * 100 + j * 10 + k;
      }
    }
  } else if (strcmp(kind, "empty2") == 0) {
    *elem = vec(-1, I);
    for (int64_t i = lo; i < hi; i++) *p++ = 0;
  } else if (strcmp(kind, "ragged") == 0) {  /* the last row is one longer */
    *elem = vec(-1, I);
    for (int64_t i = lo; i < hi; i++) {
      *p++ = 2 + (i == n - 1);
      for (int j = 0; j < 2 + (i == n - 1); j++) *p++ = j;
    }
  } else if (strcmp(kind, "ragged3") == 0) {  /* the last row's second vector is one shorter */
    *elem = vec(-1, vec(-1, I));
    for (int64_t i = lo; i < hi; i++) {
      *p++ = 2;
      for (int j = 0; j < 2; j++) {
        int len = 2 - (i == n - 1 && j == 1);
        *p++ = len;
        for (int k = 0; k < len; k++) *p++ = k;
      }
    }
  } else if (strcmp(kind, "pairs") == 0) {
    *elem = pair(I, scalar(RT_FLOAT));
    for (int64_t i = lo; i < hi; i++) {
      *p++ = i;
      p = pk_f(p, 0.5);
    }
  } else {
    failed("unknown result kind '%s'", kind);
  }
  *nwords = p - w;
  return w;
}

static void run(void) {
  const char *mode = g_argv[1];
  if (strcmp(mode, "output") == 0) {
    if (g_argc != 5) failed("output KIND PATH N");
    int64_t n = atoll(g_argv[4]), lo = rt_lo(n, bsp_nprocs(), bsp_pid()), hi = rt_lo(n, bsp_nprocs(), bsp_pid() + 1);
    const rt_shape *elem;
    int64_t nwords;
    int64_t *w = pack_result(g_argv[2], lo, hi, n, &elem, &nwords);
    rt_output_npy(g_argv[3], elem, w, nwords, lo, hi - lo, n);
    if (bsp_pid() == 0) printf("written\n");
    return;
  }
  /* the generated program's arguments follow "--" */
  int first = 2;
  if (g_argc < 3 || strcmp(g_argv[2], "--") != 0) failed("usage: prelude_driver MODE -- ARGS...");
  char **argv = g_argv + first;
  int argc = g_argc - first;
  rt_site site = {"prelude_driver", 1, 1, ""};
  rt_site sites[NINPUTS + NPARAMS];
  for (int i = 0; i < NINPUTS + NPARAMS; i++) sites[i] = site;
  rt_decls d = {param_names, sites, NPARAMS, input_names, sites, NINPUTS};
  int64_t params[NPARAMS];
  rt_args a;
  rt_parse_args(argc, argv, &d, params, &a);
  rt_check_inputs(&d, &a);
  const rt_shape *shapes[NINPUTS];
  make_shapes(params, shapes);
  if (strcmp(mode, "validate") == 0) {
    if (bsp_pid() == 0)
      for (int k = 0; k < NINPUTS; k++) rt_validate_input(&d, &a, k, shapes[k]);
    if (bsp_pid() == 0) printf("valid\n");
  } else if (strcmp(mode, "print") == 0) {
    for (int k = 0; k < NINPUTS && bsp_pid() == 0; k++) {
      printf("%s=", input_names[k]);
      print_words(shapes[k], rt_input_words(&d, &a, k, shapes[k]));
      putchar('\n');
    }
  } else if (strcmp(mode, "blocks") == 0) {
    if (bsp_pid() == 0)
      for (int k = 0; k < NINPUTS; k++) rt_validate_input(&d, &a, k, shapes[k]);
    rt_sync();
    int64_t checks = 0;
    for (int k = 0; k < NINPUTS; k++) checks += check_blocks(&d, &a, k, shapes[k]);
    rt_sync();
    if (bsp_pid() == 0) printf("blocks: ok (%lld blocks on process 0)\n", (long long)checks);
  } else {
    failed("unknown mode '%s'", mode);
  }
}

static void spmd(void) {
  bsp_begin(bsp_nprocs());
  bsp_size_t tag = sizeof(rt_tag);
  bsp_set_tagsize(&tag);
  bsp_sync();
  if (g_argc < 2) failed("usage: prelude_driver blocks|print|validate|output ...");
  run();
  fflush(stdout);
  rt_end_process();
  bsp_end();
}

int main(int argc, char **argv) {
  g_argc = argc;
  g_argv = argv;
  bsp_init(spmd, argc, argv);
  spmd();
  return 0;
}
