/* rt/input.c: the generated program's command line (-D, --input, --random,
 * --repeat) and its inputs, read from literals, data files or a seed with
 * the messages and the random data of vecbsp eval (src/eval/input.c). */
#include <ctype.h>
#include <sys/stat.h>

/* An input's declared type with its lengths evaluated. */
typedef enum { RT_INT, RT_FLOAT, RT_BOOL, RT_PAIR, RT_VEC } rt_kind;
typedef struct rt_shape {
  rt_kind kind;               /* what it is */
  int64_t len;                /* RT_VEC: the length */
  const struct rt_shape *a;   /* RT_PAIR: first component; RT_VEC: element */
  const struct rt_shape *b;   /* RT_PAIR: second component */
} rt_shape;

static inline rt_shape *rt_shape_new(rt_kind kind, int64_t len, const rt_shape *a, const rt_shape *b) {
  rt_shape *s = rt_alloc(sizeof *s);
  *s = (rt_shape){kind, len, a, b};
  return s;
}

/* A declared length, which must not be negative. */
static inline int64_t rt_length(int64_t n, const rt_site *s) {
  if (n < 0) rt_error(s, "this vector length is negative (%" PRId64 ")", n);
  return n;
}

/* The shape as vecbsp prints it, e.g. "[3][4]int". */
static inline void rt_shape_text(const rt_shape *s, char *buf, size_t size) {
  size_t n = strlen(buf);
  switch (s->kind) {
  case RT_INT: snprintf(buf + n, size - n, "int"); return;
  case RT_FLOAT: snprintf(buf + n, size - n, "float"); return;
  case RT_BOOL: snprintf(buf + n, size - n, "bool"); return;
  case RT_PAIR:
    snprintf(buf + n, size - n, "(");
    rt_shape_text(s->a, buf, size);
    n = strlen(buf);
    snprintf(buf + n, size - n, ", ");
    rt_shape_text(s->b, buf, size);
    n = strlen(buf);
    snprintf(buf + n, size - n, ")");
    return;
  case RT_VEC:
    snprintf(buf + n, size - n, "[%" PRId64 "]", s->len);
    rt_shape_text(s->a, buf, size);
    return;
  }
}

static inline const char *rt_shape_str(const rt_shape *s) {
  static _Thread_local char buf[512];
  buf[0] = '\0';
  rt_shape_text(s, buf, sizeof buf);
  return buf;
}

/* Words of the packed form of a value of this shape. */
/* Words of an input of shape s; more than memory holds is out of memory
 * (lengths of up to 2^62 multiply past int64_t). */
static inline int64_t rt_shape_words(const rt_shape *s) {
  int64_t n;
  switch (s->kind) {
  case RT_PAIR:
    if (__builtin_add_overflow(rt_shape_words(s->a), rt_shape_words(s->b), &n)) rt_out_of_memory();
    return n;
  case RT_VEC:
    if (__builtin_mul_overflow(s->len, rt_shape_words(s->a), &n) || __builtin_add_overflow(n, 1, &n))
      rt_out_of_memory();
    return n;
  default: return 1;
  }
}

/* ---- the command line ---- */

typedef struct rt_args {
  const char **inputs; /* --input NAME=VALUE, in order */
  int ninputs;
  bool has_seed;       /* --random SEED given */
  uint64_t seed;
  int repeat;          /* --repeat K (default 1) */
} rt_args;

/* The program's parameters, inputs and their source positions. */
typedef struct rt_decls {
  const char *const *params;    /* parameter names */
  const rt_site *param_sites;   /* where each is declared */
  int nparams;
  const char *const *inputs;    /* input names */
  const rt_site *input_sites;   /* where each is declared */
  int ninputs;
} rt_decls;

static inline long long rt_integer(const char *flag, const char *s, long long lo, long long hi) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (*s == '\0' || *end != '\0' || errno || v < lo || v > hi)
    rt_error(NULL, "%s expects an integer in [%lld, %lld], got '%s'", flag, lo, hi, s);
  return v;
}

/* The value of a flag, glued (-Dn=3, --input=v=..) or in the next argument. */
static inline const char *rt_flag(int argc, char **argv, int *i, const char *flag) {
  const char *arg = argv[*i];
  size_t n = strlen(flag);
  if (strncmp(arg, flag, n) != 0) return NULL;
  if (arg[n] == '=' && flag[1] == '-') return arg + n + 1;
  if (arg[n] != '\0') return flag[1] == '-' ? NULL : arg + n;
  if (*i + 1 >= argc) rt_error(NULL, "%s needs a value", flag);
  return argv[++*i];
}

static inline void rt_bind_param(const rt_decls *d, const char *text, int64_t *params, bool *bound) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text) rt_error(NULL, "-D expects NAME=VALUE, got '%s'", text);
  int k = 0;
  size_t len = (size_t)(eq - text);
  while (k < d->nparams && (strlen(d->params[k]) != len || strncmp(d->params[k], text, len) != 0)) k++;
  if (k == d->nparams)
    rt_error(NULL, "-D %s: the program has no parameter named '%.*s'", text, (int)len, text);
  char flag[256];
  snprintf(flag, sizeof flag, "-D %s", d->params[k]);
  params[k] = rt_integer(flag, eq + 1, 0, (long long)1 << 62);
  bound[k] = true;
}

/* Parses the command line (process 0). */
static inline void rt_parse_args(int argc, char **argv, const rt_decls *d, int64_t *params, rt_args *a) {
  bool *bound = rt_array(d->nparams + 1, sizeof *bound);
  memset(bound, 0, (size_t)(d->nparams + 1) * sizeof *bound);
  memset(a, 0, sizeof *a);
  a->repeat = 1;
  a->inputs = rt_array(argc, sizeof *a->inputs);
  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = rt_flag(argc, argv, &i, "-D"))) {
      rt_bind_param(d, v, params, bound);
    } else if ((v = rt_flag(argc, argv, &i, "--input"))) {
      a->inputs[a->ninputs++] = v;
    } else if ((v = rt_flag(argc, argv, &i, "--random"))) {
      char *end;
      errno = 0;
      a->seed = strtoull(v, &end, 0);
      if (*v == '\0' || *end != '\0' || errno || *v == '-')
        rt_error(NULL, "--random expects a non-negative integer seed, got '%s'", v);
      a->has_seed = true;
    } else if ((v = rt_flag(argc, argv, &i, "--repeat"))) {
      a->repeat = (int)rt_integer("--repeat", v, 1, 1000000);
    } else {
      rt_error(NULL, "unknown option '%s'", argv[i]);
    }
  }
  for (int k = 0; k < d->nparams; k++)
    if (!bound[k])
      rt_error(&d->param_sites[k], "parameter '%s' is not bound; give it a value with -D %s=VALUE",
               d->params[k], d->params[k]);
}

/* ---- random inputs: splitmix64, one stream per input ---- */

static inline uint64_t rt_random_next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static inline int64_t *rt_random_words(const rt_shape *s, uint64_t *state, int64_t *w) {
  switch (s->kind) {
  case RT_INT: *w = (int64_t)(rt_random_next(state) % 201) - 100; return w + 1;
  case RT_FLOAT: {
    double f = (double)(rt_random_next(state) >> 11) * 0x1.0p-52 - 1.0;
    memcpy(w, &f, 8);
    return w + 1;
  }
  case RT_BOOL: *w = (int64_t)(rt_random_next(state) >> 63); return w + 1;
  case RT_PAIR: return rt_random_words(s->b, state, rt_random_words(s->a, state, w));
  case RT_VEC:
    *w++ = s->len;
    for (int64_t i = 0; i < s->len; i++) w = rt_random_words(s->a, state, w);
    return w;
  }
  return w;
}

/* ---- literals: --input v=[1, 2, 3] ---- */

/* A literal's syntax tree. */
typedef enum { LIT_INT, LIT_FLOAT, LIT_BOOL, LIT_NEG, LIT_PAIR, LIT_VEC } rt_lit_kind;
typedef struct rt_lit {
  rt_lit_kind kind;        /* what it is */
  int col;                 /* where it starts (1-based) */
  int64_t i;               /* LIT_INT, LIT_BOOL */
  double f;                /* LIT_FLOAT */
  struct rt_lit **elems;   /* LIT_VEC elements; LIT_PAIR and LIT_NEG use elems[0..] */
  int64_t n;               /* number of elems */
} rt_lit;

typedef struct rt_parser {
  const char *text;  /* the literal */
  const char *p;     /* next character */
  rt_site site;      /* for messages: --input NAME */
  const char *input; /* the input's name */
} rt_parser;

static inline _Noreturn void rt_lit_error(rt_parser *ps, int col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ps->site.col = col;
  rt_verror(&ps->site, fmt, ap);
}

static inline int rt_col(rt_parser *ps) { return (int)(ps->p - ps->text) + 1; }

static inline void rt_skip(rt_parser *ps) {
  while (isspace((unsigned char)*ps->p)) ps->p++;
}

static inline _Noreturn void rt_unexpected(rt_parser *ps, const char *wanted) {
  rt_skip(ps);
  if (!*ps->p) rt_lit_error(ps, rt_col(ps), "unexpected end of file, expected %s", wanted);
  int len = 1;
  while (isalnum((unsigned char)ps->p[0]) && isalnum((unsigned char)ps->p[len])) len++;
  rt_lit_error(ps, rt_col(ps), "unexpected '%.*s', expected %s", len, ps->p, wanted);
}

static inline bool rt_accept(rt_parser *ps, char c) {
  rt_skip(ps);
  if (*ps->p != c) return false;
  ps->p++;
  return true;
}

static inline rt_lit *rt_lit_new(rt_lit_kind kind, int col) {
  rt_lit *l = rt_alloc(sizeof *l);
  *l = (rt_lit){.kind = kind, .col = col};
  return l;
}

static inline rt_lit *rt_lit_expr(rt_parser *ps);

/* Items separated by commas up to close. */
static inline void rt_lit_items(rt_parser *ps, rt_lit *l, char close) {
  int64_t cap = 4;
  l->elems = rt_array(cap, sizeof *l->elems);
  if (close == ']' && rt_accept(ps, ']')) return;
  do {
    if (l->n == cap) {
      rt_lit **grown = rt_array(cap * 2, sizeof *grown);
      memcpy(grown, l->elems, (size_t)cap * sizeof *grown);
      l->elems = grown;
      cap *= 2;
    }
    l->elems[l->n++] = rt_lit_expr(ps);
  } while (rt_accept(ps, ','));
  if (!rt_accept(ps, close)) rt_unexpected(ps, close == ']' ? "']'" : "')'");
}

static inline rt_lit *rt_lit_number(rt_parser *ps) {
  const char *q = ps->p;
  int col = rt_col(ps);
  while (isdigit((unsigned char)*q)) q++;
  bool is_float = false;
  if (*q == '.' && isdigit((unsigned char)q[1])) {
    is_float = true;
    for (q++; isdigit((unsigned char)*q);) q++;
  }
  if ((*q == 'e' || *q == 'E') && (isdigit((unsigned char)q[1]) ||
                                   ((q[1] == '+' || q[1] == '-') && isdigit((unsigned char)q[2])))) {
    is_float = true;
    for (q += 2; isdigit((unsigned char)*q);) q++;
  }
  rt_lit *l = rt_lit_new(is_float ? LIT_FLOAT : LIT_INT, col);
  errno = 0;
  if (is_float) {
    l->f = strtod(ps->p, NULL);
    if (errno == ERANGE && isinf(l->f)) rt_lit_error(ps, col, "float literal out of range");
  } else {
    unsigned long long v = strtoull(ps->p, NULL, 10);
    if (errno == ERANGE || v > (unsigned long long)INT64_MAX)
      rt_lit_error(ps, col, "integer literal out of range (at most %lld)", (long long)INT64_MAX);
    l->i = (int64_t)v;
  }
  ps->p = q;
  return l;
}

static inline rt_lit *rt_lit_expr(rt_parser *ps) {
  rt_skip(ps);
  int col = rt_col(ps);
  if (isdigit((unsigned char)*ps->p)) return rt_lit_number(ps);
  if (*ps->p == '-') {
    ps->p++;
    rt_lit *l = rt_lit_new(LIT_NEG, col);
    l->elems = rt_array(1, sizeof *l->elems);
    l->elems[l->n++] = rt_lit_expr(ps);
    return l;
  }
  if (strncmp(ps->p, "true", 4) == 0 || strncmp(ps->p, "false", 5) == 0) {
    rt_lit *l = rt_lit_new(LIT_BOOL, col);
    l->i = *ps->p == 't';
    ps->p += l->i ? 4 : 5;
    return l;
  }
  if (rt_accept(ps, '[')) {
    rt_lit *l = rt_lit_new(LIT_VEC, col);
    rt_lit_items(ps, l, ']');
    return l;
  }
  if (rt_accept(ps, '(')) {
    rt_lit *l = rt_lit_new(LIT_PAIR, col);
    rt_lit_items(ps, l, ')');
    return l;
  }
  rt_unexpected(ps, "an expression");
}

static inline int64_t *rt_lit_words(rt_parser *ps, rt_lit *l, const rt_shape *s, int64_t *w);

static inline int64_t *rt_lit_scalar(rt_parser *ps, rt_lit *l, const rt_shape *s, int64_t *w) {
  bool negate = false;
  rt_lit *x = l;
  while (x->kind == LIT_NEG) {
    negate = !negate;
    x = x->elems[0];
  }
  if (s->kind == RT_BOOL && x->kind == LIT_BOOL && !negate) return pk_i(w, x->i);
  if (s->kind == RT_INT && x->kind == LIT_INT) return pk_i(w, negate ? rt_neg(x->i) : x->i);
  if (s->kind == RT_FLOAT && (x->kind == LIT_FLOAT || x->kind == LIT_INT)) {
    double f = x->kind == LIT_FLOAT ? x->f : (double)x->i;
    return pk_f(w, negate ? -f : f);
  }
  rt_lit_error(ps, l->col, "input '%s': expected %s here", ps->input, rt_shape_str(s));
}

static inline int64_t *rt_lit_words(rt_parser *ps, rt_lit *l, const rt_shape *s, int64_t *w) {
  if (l->kind == LIT_PAIR && l->n == 1) l = l->elems[0];  /* ( e ) */
  switch (s->kind) {
  case RT_PAIR: {
    if (l->kind != LIT_PAIR)
      rt_lit_error(ps, l->col, "input '%s': expected a tuple %s here", ps->input, rt_shape_str(s));
    rt_lit *rest = l->elems[1];
    if (l->n > 2) {  /* (a, b, c) is (a, (b, c)) */
      rest = rt_lit_new(LIT_PAIR, rest->col);
      rest->elems = l->elems + 1;
      rest->n = l->n - 1;
    }
    w = rt_lit_words(ps, l->elems[0], s->a, w);
    return rt_lit_words(ps, rest, s->b, w);
  }
  case RT_VEC:
    if (l->kind != LIT_VEC)
      rt_lit_error(ps, l->col, "input '%s': expected a vector %s here", ps->input, rt_shape_str(s));
    if (l->n != s->len)
      rt_lit_error(ps, l->col, "input '%s': this vector has %d elements, the declared shape %s needs %" PRId64,
                   ps->input, (int)l->n, rt_shape_str(s), s->len);
    *w++ = s->len;
    for (int64_t i = 0; i < l->n; i++) w = rt_lit_words(ps, l->elems[i], s->a, w);
    return w;
  default: return rt_lit_scalar(ps, l, s, w);
  }
}

/* ---- data files: whitespace-separated scalars in row-major order ---- */

typedef struct rt_reader {
  const char *text, *end; /* the file */
  const char *p;          /* next character */
  const char *line_start; /* start of the current line */
  int line;               /* current line */
  int64_t count;          /* scalars read */
  rt_site last;           /* just after the last scalar read (text: NULL) */
  rt_site at;             /* the scalar being read (text: NULL) */
  const char *last_line;  /* the start of last's line */
  const char *at_line;    /* the start of at's line */
  const char *input;      /* the input's name */
  const rt_shape *whole;  /* its shape */
} rt_reader;

/* The line that starts at start, as a string of its own. */
static inline const char *rt_line_text(rt_reader *r, const char *start) {
  const char *q = start;
  while (q < r->end && *q != '\n') q++;
  char *s = rt_alloc((size_t)(q - start) + 1);
  memcpy(s, start, (size_t)(q - start));
  s[q - start] = '\0';
  return s;
}

static inline bool rt_next_word(rt_reader *r, const char **start, int *len) {
  for (;;) {
    if (r->p < r->end && *r->p == '\n') {
      r->line++;
      r->line_start = ++r->p;
    } else if (r->p < r->end && isspace((unsigned char)*r->p)) {
      r->p++;
    } else {
      break;
    }
  }
  if (r->p >= r->end) return false;
  *start = r->p;
  r->at = (rt_site){r->at.file, r->line, (int)(r->p - r->line_start) + 1, NULL};
  r->at_line = r->line_start;
  while (r->p < r->end && !isspace((unsigned char)*r->p)) r->p++;
  *len = (int)(r->p - *start);
  r->last = r->at;
  r->last.col += *len;
  r->last_line = r->at_line;
  return true;
}

/* A site of the reader with the text of its line, made only for an error:
 * a data file can be one line of millions of values. */
static inline const rt_site *rt_reader_site(rt_reader *r, rt_site *site, const char *line) {
  site->text = rt_line_text(r, line);
  return site;
}

static inline int64_t *rt_file_words(rt_reader *r, const rt_shape *s, int64_t *w) {
  if (s->kind == RT_PAIR) return rt_file_words(r, s->b, rt_file_words(r, s->a, w));
  if (s->kind == RT_VEC) {
    *w++ = s->len;
    for (int64_t i = 0; i < s->len; i++) w = rt_file_words(r, s->a, w);
    return w;
  }
  const char *word;
  int len;
  if (!rt_next_word(r, &word, &len)) {
    rt_site at = r->last.file ? r->last : (rt_site){r->at.file, 1, 1, NULL};
    rt_error(rt_reader_site(r, &at, r->last.file ? r->last_line : r->text), "input '%s': the file ends after %" PRId64 " values; the declared shape %s needs more",
             r->input, r->count, rt_shape_str(r->whole));
  }
  r->count++;
  char buf[64];
  if (len >= (int)sizeof buf)
    rt_error(rt_reader_site(r, &r->at, r->at_line), "input '%s': this value is too long", r->input);
  memcpy(buf, word, (size_t)len);
  buf[len] = '\0';
  if (strlen(buf) != (size_t)len)
    rt_error(rt_reader_site(r, &r->at, r->at_line), "input '%s': a NUL byte in this value", r->input);
  char *end;
  errno = 0;
  if (s->kind == RT_BOOL) {
    if (strcmp(buf, "true") == 0 || strcmp(buf, "1") == 0) return pk_i(w, 1);
    if (strcmp(buf, "false") == 0 || strcmp(buf, "0") == 0) return pk_i(w, 0);
  } else if (s->kind == RT_INT) {
    long long v = strtoll(buf, &end, 10);
    if (*end == '\0' && errno == 0) return pk_i(w, v);
  } else {
    double v = strtod(buf, &end);  /* ERANGE below the smallest normal is a denormal or 0, as printed */
    if (*end == '\0' && (errno == 0 || (errno == ERANGE && !isinf(v)))) return pk_f(w, v);
  }
  rt_error(rt_reader_site(r, &r->at, r->at_line), "input '%s': expected %s, found '%s'", r->input,
           s->kind == RT_INT ? "an int" : s->kind == RT_FLOAT ? "a float" : "a bool (true, false, 1, 0)", buf);
}

static inline char *rt_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *grown = realloc(buf, cap * 2 + 1);
      if (!grown) free(buf);
      buf = grown;
      cap *= 2;
    }
  }
  bool failed = ferror(f);
  fclose(f);
  if (!buf) rt_out_of_memory();
  if (failed) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

static inline void rt_file_input(const char *name, const char *path, const rt_shape *s, int64_t *w) {
  size_t len;
  char *text = rt_read_file(path, &len);
  if (!text) rt_error(NULL, "input '%s': cannot read '%s': %s", name, path, strerror(errno));
  rt_reader r = {.text = text, .end = text + len, .p = text, .line_start = text, .line = 1,
                 .at = {path, 1, 1, ""}, .input = name, .whole = s};
  r.last.file = NULL;
  rt_file_words(&r, s, w);
  const char *word;
  int n;
  if (rt_next_word(&r, &word, &n))
    rt_error(rt_reader_site(&r, &r.at, r.at_line), "input '%s': extra value '%.*s' after the %" PRId64 " values of the declared shape %s",
             name, n > 20 ? 20 : n, word, r.count, rt_shape_str(s));
  free(text);
}

/* ---- binding every input ---- */

static inline bool rt_is_literal(const char *text) {
  struct stat st;
  if (text[0] == '[' || text[0] == '(') return true;
  if (stat(text, &st) == 0) return false;
  return isdigit((unsigned char)text[0]) || text[0] == '-' || strcmp(text, "true") == 0 ||
         strcmp(text, "false") == 0;
}

static inline void rt_literal_input(const char *name, const char *text, const rt_shape *s, int64_t *w) {
  char *file = rt_alloc(strlen(name) + 16);
  sprintf(file, "--input %s", name);
  rt_parser ps = {.text = text, .p = text, .site = {file, 1, 1, text}, .input = name};
  rt_lit *l = rt_lit_expr(&ps);
  rt_skip(&ps);
  if (*ps.p) rt_unexpected(&ps, "end of input");
  rt_lit_words(&ps, l, s, w);
}

/* Which input an assignment NAME=VALUE names; its value through value. */
static inline int rt_input_index(const rt_decls *d, const char *text, const char **value) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text) rt_error(NULL, "--input expects NAME=VALUE, got '%s'", text);
  size_t len = (size_t)(eq - text);
  for (int k = 0; k < d->ninputs; k++)
    if (strlen(d->inputs[k]) == len && strncmp(d->inputs[k], text, len) == 0) {
      *value = eq + 1;
      return k;
    }
  rt_error(NULL, "--input %s: the program has no input named '%.*s'", text, (int)len, text);
}

/* The packed words of input k (its shape s), from --input or the seed;
 * in the arena. */
static inline int64_t *rt_input_words(const rt_decls *d, const rt_args *a, int k, const rt_shape *s) {
  int64_t words;
  if (__builtin_add_overflow(rt_shape_words(s), 1, &words)) rt_out_of_memory();
  int64_t *w = rt_array(words, 8);  /* in the arena: freed with the process */
  const char *value = NULL;
  for (int i = 0; i < a->ninputs; i++) {
    const char *v;
    if (rt_input_index(d, a->inputs[i], &v) != k) continue;
    if (value) rt_error(NULL, "input '%s' is given twice", d->inputs[k]);
    value = v;
  }
  if (value && rt_is_literal(value)) {
    rt_literal_input(d->inputs[k], value, s, w);
  } else if (value) {
    rt_file_input(d->inputs[k], value, s, w);
  } else if (a->has_seed) {
    uint64_t state = a->seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(k + 1));
    rt_random_words(s, &state, w);
  } else {
    rt_error(&d->input_sites[k], "input '%s' is not given; supply it with --input %s=... or use --random SEED",
             d->inputs[k], d->inputs[k]);
  }
  return w;
}

/* Checks every --input names an input, in order, before any is read. */
static inline void rt_check_inputs(const rt_decls *d, const rt_args *a) {
  for (int i = 0; i < a->ninputs; i++) {
    const char *v;
    rt_input_index(d, a->inputs[i], &v);
  }
}
