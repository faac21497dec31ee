/* rt/input.c: the generated program's command line (-D, --input, --random,
 * --repeat) and its inputs, read from literals, text data files, .npy files
 * or a seed with the messages and the random data of vecbsp eval
 * (src/eval/input.c), whole or by blocks of their outermost vector
 * (docs/user-guide.md, "Inputs"). */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Words of the packed form of a value of shape s; more than memory holds is
 * out of memory (lengths of up to 2^62 multiply past int64_t). */
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

/* Scalars of a value of shape s (the values a data file gives for it). */
static inline int64_t rt_shape_scalars(const rt_shape *s) {
  int64_t n;
  switch (s->kind) {
  case RT_PAIR:
    if (__builtin_add_overflow(rt_shape_scalars(s->a), rt_shape_scalars(s->b), &n)) rt_out_of_memory();
    return n;
  case RT_VEC:
    if (__builtin_mul_overflow(s->len, rt_shape_scalars(s->a), &n)) rt_out_of_memory();
    return n;
  default: return 1;
  }
}

/* Whether a value of shape s has any scalar at all ([1000000][0]int has none). */
static inline bool rt_shape_has_scalars(const rt_shape *s) {
  switch (s->kind) {
  case RT_PAIR: return rt_shape_has_scalars(s->a) || rt_shape_has_scalars(s->b);
  case RT_VEC: return s->len > 0 && rt_shape_has_scalars(s->a);
  default: return true;
  }
}

/* Random draws for a value of shape s, modulo 2^64: all a stream's position
 * needs (its state advances by a constant per draw). */
static inline uint64_t rt_shape_draws(const rt_shape *s) {
  switch (s->kind) {
  case RT_PAIR: return rt_shape_draws(s->a) + rt_shape_draws(s->b);
  case RT_VEC: return (uint64_t)s->len * rt_shape_draws(s->a);
  default: return 1;
  }
}

/* Stores a word where w points, unless w is NULL (a value only checked). */
static inline int64_t *rt_put_word(int64_t *w, int64_t v) {
  if (!w) return NULL;
  *w = v;
  return w + 1;
}

static inline int64_t *rt_put_float(int64_t *w, double f) {
  if (!w) return NULL;
  memcpy(w, &f, 8);
  return w + 1;
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
  if (bound[k]) rt_error(NULL, "-D %s: the parameter '%s' is bound twice", text, d->params[k]);
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

/* Input k's stream before its first draw. */
static inline uint64_t rt_random_stream(uint64_t seed, int k) {
  return seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(k + 1));
}

/* Elements [lo, hi) of the vector input k of shape s after w: splitmix64's
 * state after j draws is the first state plus j times its increment, so
 * element lo starts at draw lo * (draws of an element), computed in O(1). */
static inline int64_t *rt_random_block(uint64_t seed, int k, const rt_shape *s, int64_t lo, int64_t hi, int64_t *w) {
  uint64_t state = rt_random_stream(seed, k) + (uint64_t)lo * rt_shape_draws(s->a) * 0x9E3779B97F4A7C15ull;
  for (int64_t i = lo; i < hi; i++) w = rt_random_words(s->a, &state, w);
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

/* The packed words of literal l, of shape s, after w (NULL: only checked). */
static inline int64_t *rt_lit_words(rt_parser *ps, rt_lit *l, const rt_shape *s, int64_t *w);

static inline int64_t *rt_lit_scalar(rt_parser *ps, rt_lit *l, const rt_shape *s, int64_t *w) {
  bool negate = false;
  rt_lit *x = l;
  while (x->kind == LIT_NEG) {
    negate = !negate;
    x = x->elems[0];
  }
  if (s->kind == RT_BOOL && x->kind == LIT_BOOL && !negate) return rt_put_word(w, x->i);
  if (s->kind == RT_INT && x->kind == LIT_INT) return rt_put_word(w, negate ? rt_neg(x->i) : x->i);
  if (s->kind == RT_FLOAT && (x->kind == LIT_FLOAT || x->kind == LIT_INT)) {
    double f = x->kind == LIT_FLOAT ? x->f : (double)x->i;
    return rt_put_float(w, negate ? -f : f);
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
    w = rt_put_word(w, s->len);
    for (int64_t i = 0; i < l->n; i++) w = rt_lit_words(ps, l->elems[i], s->a, w);
    return w;
  default: return rt_lit_scalar(ps, l, s, w);
  }
}

/* ---- data files: whitespace-separated scalars in row-major order, or a
 * .csv file: a vector's values on one line or one a line, a matrix's rows
 * on lines, values separated by commas (src/eval/input.c reads the same) ---- */

/* Read in chunks, never whole: a process reading a block of a 10 GB file
 * holds 64 KB of it. */
#define RT_READ_CHUNK ((int64_t)1 << 16)

typedef struct rt_reader {
  int fd;                 /* the file */
  const char *path;       /* its name */
  char *buf;              /* a chunk of it */
  int64_t pos, len;       /* the next byte in buf, the bytes in buf */
  int64_t base;           /* the file offset of buf[0] */
  int line;               /* the line of the next byte */
  int64_t line_off;       /* the offset where that line starts */
  int64_t count;          /* scalars read or skipped */
  rt_site last;           /* just after the last scalar (file NULL before the first; text: NULL) */
  rt_site at;             /* the scalar being read (text: NULL) */
  int64_t last_line_off;  /* the start of last's line */
  int64_t at_line_off;    /* the start of at's line */
  const char *input;      /* the input's name */
  const rt_shape *whole;  /* its shape */
  bool csv;               /* a .csv file */
  bool comma;             /* csv: the value before ended in a comma, so another follows on its line */
  bool new_line;          /* csv: a line ended before the value just read */
  int64_t per_line;       /* csv: values a line (0: a vector's, decided by its second value) */
} rt_reader;

static inline bool rt_has_extension(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n >= e && strcmp(path + n - e, ext) == 0;
}

/* A .csv file holds a scalar, a vector or a matrix of scalars: the values
 * a line of a matrix are its rows' length. */
static inline void rt_csv_layout(rt_reader *r, const rt_shape *s) {
  bool vector = s->kind == RT_VEC, matrix = vector && s->a->kind == RT_VEC;
  const rt_shape *scalar = matrix ? s->a->a : vector ? s->a : s;
  if (scalar->kind == RT_PAIR || scalar->kind == RT_VEC)
    rt_error(NULL, "input '%s': a .csv file holds a vector or a matrix of int, float or bool, not %s", r->input,
             rt_shape_str(s));
  r->csv = true;
  r->per_line = matrix ? s->a->len : vector ? 0 : 1;
}

static inline int rt_column(int64_t offset_in_line) {
  return offset_in_line < INT_MAX ? (int)offset_in_line + 1 : INT_MAX;
}

/* The data file of an input, open for reading (a directory is an error). */
static inline int rt_open_data(const char *input, const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0) rt_error(NULL, "input '%s': cannot read '%s': %s", input, path, strerror(errno));
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
    rt_error(NULL, "input '%s': '%s' is a directory, not a data file", input, path);
  return fd;
}

static inline void rt_reader_open(rt_reader *r, const char *input, const char *path, const rt_shape *whole) {
  *r = (rt_reader){.path = path, .line = 1, .input = input, .whole = whole};
  r->fd = rt_open_data(input, path);
  r->buf = malloc((size_t)RT_READ_CHUNK);
  if (!r->buf) rt_out_of_memory();
  if (rt_has_extension(path, ".csv")) rt_csv_layout(r, whole);
}

static inline void rt_reader_close(rt_reader *r) {
  close(r->fd);
  free(r->buf);
}

/* The next chunk; false at the end of the file. */
static inline bool rt_reader_fill(rt_reader *r) {
  r->base += r->len;
  r->pos = r->len = 0;
  ssize_t n;
  do n = read(r->fd, r->buf, (size_t)RT_READ_CHUNK);
  while (n < 0 && errno == EINTR);
  if (n < 0) rt_error(NULL, "input '%s': cannot read '%s': %s", r->input, r->path, strerror(errno));
  r->len = n;
  return n > 0;
}

/* A site of the reader with the text of its line, read again from the file
 * only for an error (a data file can be one line of millions of values),
 * whole, as eval shows it. */
static inline const rt_site *rt_reader_site(rt_reader *r, rt_site *site, int64_t line_off) {
  size_t len = 0, cap = (size_t)RT_READ_CHUNK;
  char *text = malloc(cap + 1), *nl = NULL;
  for (int64_t got; text && !nl; len += (size_t)got) {
    if (len + (size_t)RT_READ_CHUNK > cap) text = realloc(text, (cap *= 2) + 1);
    got = text ? rt_npy_pread(r->fd, text + len, RT_READ_CHUNK, line_off + (int64_t)len) : 0;
    if (got <= 0) break;
    nl = memchr(text + len, '\n', (size_t)got);
  }
  if (!text) rt_out_of_memory();
  text[nl ? (size_t)(nl - text) : len] = '\0';
  site->text = text;
  return site;
}

/* The next value of a .csv file (spaces around it and blank lines
 * ignored), as rt_reader_word. */
static inline bool rt_reader_field(rt_reader *r, char *word, int64_t *len) {
  r->new_line = false;
  for (;; r->pos++) {
    if (r->pos == r->len && !rt_reader_fill(r)) {
      if (!r->comma) return false;
      break;
    }
    char c = r->buf[r->pos];
    if (c == '\n' && !r->comma) {
      r->line++;
      r->line_off = r->base + r->pos + 1;
      r->new_line = true;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      break;
    }
  }
  int64_t start = r->base + r->pos, n = 0, kept = 0; /* kept: up to the last character not a blank */
  r->at = (rt_site){r->path, r->line, rt_column(start - r->line_off), NULL};
  r->at_line_off = r->line_off;
  char c = 0;
  while ((r->pos < r->len || rt_reader_fill(r)) && (c = r->buf[r->pos]) != ',' && c != '\n') {
    if (word && n < 63) word[n] = c;
    n++;
    if (c != ' ' && c != '\t' && c != '\r') kept = n;
    r->pos++;
  }
  r->comma = r->pos < r->len && c == ',';
  r->pos += r->comma;
  if (word) word[kept < 63 ? kept : 63] = '\0';
  *len = kept;
  r->last = r->at;
  r->last.col = rt_column(start - r->line_off + kept);
  r->last_line_off = r->at_line_off;
  return true;
}

/* The next whitespace-separated word (in a .csv file, the next value): its
 * length, and its first 63 bytes into word (if not NULL); false at the end
 * of the file. */
static inline bool rt_reader_word(rt_reader *r, char *word, int64_t *len) {
  if (r->csv) return rt_reader_field(r, word, len);
  for (;; r->pos++) {
    if (r->pos == r->len && !rt_reader_fill(r)) return false;
    char c = r->buf[r->pos];
    if (c == '\n') {
      r->line++;
      r->line_off = r->base + r->pos + 1;
    } else if (!isspace((unsigned char)c)) {
      break;
    }
  }
  int64_t start = r->base + r->pos, n = 0;
  r->at = (rt_site){r->path, r->line, rt_column(start - r->line_off), NULL};
  r->at_line_off = r->line_off;
  while ((r->pos < r->len || rt_reader_fill(r)) && !isspace((unsigned char)r->buf[r->pos])) {
    if (word && n < 63) word[n] = r->buf[r->pos];
    n++;
    r->pos++;
  }
  if (word) word[n < 63 ? n : 63] = '\0';
  *len = n;
  r->last = r->at;
  r->last.col = rt_column(start - r->line_off + n);
  r->last_line_off = r->at_line_off;
  return true;
}

static inline _Noreturn void rt_reader_short(rt_reader *r) {
  rt_site at = r->last.file ? r->last : (rt_site){r->path, 1, 1, NULL};
  rt_error(rt_reader_site(r, &at, r->last.file ? r->last_line_off : 0),
           "input '%s': the file ends after %" PRId64 " values; the declared shape %s needs more", r->input,
           r->count, rt_shape_str(r->whole));
}

/* Passes over n scalars without converting them (they were checked). */
static inline void rt_reader_skip(rt_reader *r, int64_t n) {
  int64_t len;
  for (int64_t i = 0; i < n; i++, r->count++)
    if (!rt_reader_word(r, NULL, &len)) rt_reader_short(r);
}

/* In a .csv file, value k = r->count (at r->at; the one before ended at
 * before) starts a line exactly when k is a multiple of the values a line. */
static inline void rt_csv_check_line(rt_reader *r, rt_site before, int64_t before_line_off) {
  int64_t k = r->count;
  if (k == 0) return;
  if (r->per_line == 0) r->per_line = r->new_line ? 1 : r->whole->len;
  if (k % r->per_line == 0 && !r->new_line)
    rt_error(rt_reader_site(r, &r->at, r->at_line_off),
             "input '%s': line %d has more than %" PRId64 " values; the declared shape %s needs %" PRId64 " a line",
             r->input, r->at.line, r->per_line, rt_shape_str(r->whole), r->per_line);
  if (k % r->per_line != 0 && r->new_line)
    rt_error(rt_reader_site(r, &before, before_line_off),
             "input '%s': line %d has %" PRId64 " values; the declared shape %s needs %" PRId64 " a line", r->input,
             before.line, k % r->per_line, rt_shape_str(r->whole), r->per_line);
}

static inline _Noreturn void rt_csv_empty(rt_reader *r) {
  rt_error(rt_reader_site(r, &r->at, r->at_line_off), "input '%s': an empty value (two commas, or a comma ending a line)",
           r->input);
}

static inline int64_t *rt_text_scalar(rt_reader *r, const rt_shape *s, int64_t *w) {
  char buf[64];
  int64_t len;
  rt_site before = r->last;
  int64_t before_line_off = r->last_line_off;
  if (!rt_reader_word(r, buf, &len)) rt_reader_short(r);
  if (r->csv) rt_csv_check_line(r, before, before_line_off);
  r->count++;
  if (len == 0) rt_csv_empty(r);
  if (len >= (int64_t)sizeof buf)
    rt_error(rt_reader_site(r, &r->at, r->at_line_off), "input '%s': this value is too long", r->input);
  if (strlen(buf) != (size_t)len)
    rt_error(rt_reader_site(r, &r->at, r->at_line_off), "input '%s': a NUL byte in this value", r->input);
  char *end;
  errno = 0;
  if (s->kind == RT_BOOL) {
    if (strcmp(buf, "true") == 0 || strcmp(buf, "1") == 0) return rt_put_word(w, 1);
    if (strcmp(buf, "false") == 0 || strcmp(buf, "0") == 0) return rt_put_word(w, 0);
  } else if (s->kind == RT_INT) {
    long long v = strtoll(buf, &end, 10);
    if (*end == '\0' && errno == 0) return rt_put_word(w, v);
  } else {
    double v = strtod(buf, &end);  /* ERANGE below the smallest normal is a denormal or 0, as printed */
    if (*end == '\0' && (errno == 0 || (errno == ERANGE && !isinf(v)))) return rt_put_float(w, v);
  }
  rt_error(rt_reader_site(r, &r->at, r->at_line_off), "input '%s': expected %s, found '%s'", r->input,
           s->kind == RT_INT ? "an int" : s->kind == RT_FLOAT ? "a float" : "a bool (true, false, 1, 0)", buf);
}

/* The packed words of a value of shape s read from r, after w (NULL: only
 * checked). */
static inline int64_t *rt_text_values(rt_reader *r, const rt_shape *s, int64_t *w) {
  if (s->kind == RT_PAIR) return rt_text_values(r, s->b, rt_text_values(r, s->a, w));
  if (s->kind != RT_VEC) return rt_text_scalar(r, s, w);
  if (!w && !rt_shape_has_scalars(s)) return NULL;
  w = rt_put_word(w, s->len);
  for (int64_t i = 0; i < s->len; i++) w = rt_text_values(r, s->a, w);
  return w;
}

/* The whole input from a data file into w (NULL: only checked), nothing after it. */
static inline void rt_text_input(const char *name, const char *path, const rt_shape *s, int64_t *w) {
  rt_reader r;
  rt_reader_open(&r, name, path, s);
  rt_text_values(&r, s, w);
  char word[64];
  int64_t n;
  if (rt_reader_word(&r, word, &n)) {
    if (n == 0) rt_csv_empty(&r);
    rt_error(rt_reader_site(&r, &r.at, r.at_line_off), "input '%s': extra value '%.*s' after the %" PRId64 " values of the declared shape %s",
             name, n > 20 ? 20 : (int)n, word, r.count, rt_shape_str(s));
  }
  rt_reader_close(&r);
}

/* Elements [lo, hi) of the vector input of shape s after w: the scalars
 * before them are passed over, those after them are not read. */
static inline void rt_text_block(const char *name, const char *path, const rt_shape *s, int64_t lo, int64_t hi, int64_t *w) {
  rt_reader r;
  rt_reader_open(&r, name, path, s);
  int64_t before;
  if (__builtin_mul_overflow(lo, rt_shape_scalars(s->a), &before)) rt_out_of_memory();
  rt_reader_skip(&r, before);
  for (int64_t i = lo; i < hi; i++) w = rt_text_values(&r, s->a, w);
  rt_reader_close(&r);
}

/* ---- .npy files: an n-d array of int64, float64 or bool (format_npy.c) ---- */

typedef struct rt_npy_file {
  int fd;            /* the file, open */
  rt_npy_header h;   /* its header, checked against the input */
  rt_npy_kind kind;  /* its scalars */
} rt_npy_file;

/* The array an input of shape s is: its dimensions and scalars. */
static inline rt_npy_kind rt_npy_kind_of(const rt_shape *s, int64_t *dims, int *ndim) {
  for (*ndim = 0; s->kind == RT_VEC; s = s->a, ++*ndim)
    if (*ndim < RT_NPY_MAX_DIMS) dims[*ndim] = s->len;
  return s->kind == RT_INT ? RT_NPY_INT : s->kind == RT_FLOAT ? RT_NPY_FLOAT : s->kind == RT_BOOL ? RT_NPY_BOOL : RT_NPY_NONE;
}

static inline void rt_npy_open(const char *name, const char *path, const rt_shape *s, rt_npy_file *f) {
  int64_t dims[RT_NPY_MAX_DIMS];
  int ndim;
  f->kind = rt_npy_kind_of(s, dims, &ndim);
  f->fd = rt_open_data(name, path);
  char err[1024];
  if (!rt_npy_check_input(f->fd, path, name, rt_shape_str(s), f->kind, dims, ndim, &f->h, err, sizeof err)) {
    close(f->fd);
    rt_error(NULL, "%s", err);
  }
}

/* count values of shape dims[0..ndim) from the file's bytes at *from to
 * packed words at *to. *to never passes *from (the bytes sit at the end
 * of the words' memory, and a packed value is never shorter than its bytes),
 * and each scalar is read before its word is written. */
static inline void rt_npy_unpack(int64_t **to, const unsigned char **from, rt_npy_kind kind, const int64_t *dims,
                                 int ndim, int64_t count) {
  if (ndim > 0) {
    for (int64_t i = 0; i < count; i++) {
      *(*to)++ = dims[0];
      rt_npy_unpack(to, from, kind, dims + 1, ndim - 1, dims[0]);
    }
  } else if (kind == RT_NPY_BOOL) {
    for (int64_t i = 0; i < count; i++) *(*to)++ = *(*from)++ != 0;
  } else if (rt_npy_le64(1) == 1) {
    memmove(*to, *from, (size_t)count * 8);
    *to += count;
    *from += count * 8;
  } else {
    for (int64_t i = 0; i < count; i++, *from += 8) {
      uint64_t v;
      memcpy(&v, *from, 8);
      *(*to)++ = (int64_t)rt_npy_le64(v);
    }
  }
}

/* Elements [lo, hi) of the input of shape s (the whole input if it is not
 * a vector) into w, with one read, and closes the file. */
static inline void rt_npy_load(const char *name, const char *path, rt_npy_file *f, const rt_shape *s, int64_t lo,
                               int64_t hi, int64_t *w) {
  const rt_npy_header *h = &f->h;
  int64_t per_row = rt_npy_itemsize(f->kind); /* bytes of an element of the outer vector (checked: the file holds them all) */
  for (int i = 1; i < h->ndim; i++) per_row *= h->shape[i];
  int64_t rows = s->kind == RT_VEC ? hi - lo : 1;
  int64_t words = s->kind == RT_VEC ? 1 + rows * rt_shape_words(s->a) : 1;
  int64_t bytes = rows * per_row;
  unsigned char *from = (unsigned char *)w + words * 8 - bytes;
  int64_t got = rt_npy_pread(f->fd, from, bytes, h->data_offset + lo * per_row);
  int err = errno;
  close(f->fd);
  if (got != bytes)
    rt_error(NULL, "input '%s': cannot read '%s': %s", name, path, got < 0 ? strerror(err) : "the file changed while it was read");
  const unsigned char *p = from;
  if (s->kind == RT_VEC) {
    *w++ = rows;
    rt_npy_unpack(&w, &p, f->kind, h->shape + 1, h->ndim - 1, rows);
  } else {
    rt_npy_unpack(&w, &p, f->kind, h->shape, 0, 1);
  }
}

/* ---- binding every input ---- */

static inline bool rt_is_literal(const char *text) {
  struct stat st;
  if (text[0] == '[' || text[0] == '(') return true;
  if (stat(text, &st) == 0) return false;
  return isdigit((unsigned char)text[0]) || text[0] == '-' || strcmp(text, "true") == 0 ||
         strcmp(text, "false") == 0;
}

/* A file whose name ends in .npy is a NumPy array; any other is text. */
static inline bool rt_is_npy(const char *path) {
  size_t n = strlen(path);
  return n >= 4 && strcmp(path + n - 4, ".npy") == 0;
}

/* The literal into w (NULL: only checked). */
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

/* The --input value of input k; NULL for a random one (an error without a seed). */
static inline const char *rt_input_value(const rt_decls *d, const rt_args *a, int k) {
  const char *value = NULL;
  for (int i = 0; i < a->ninputs; i++) {
    const char *v;
    if (rt_input_index(d, a->inputs[i], &v) != k) continue;
    if (value) rt_error(NULL, "input '%s' is given twice", d->inputs[k]);
    value = v;
  }
  if (!value && !a->has_seed)
    rt_error(&d->input_sites[k], "input '%s' is not given; supply it with --input %s=... or use --random SEED",
             d->inputs[k], d->inputs[k]);
  return value;
}

/* Process 0, before any other process loads a block: checks input k
 * completely (a data file's syntax and its count of values against the
 * shape s, a .npy file's header and size, a literal) and reports the first
 * error exactly as rt_input_words would, without keeping the data in memory
 * (a text file is read in chunks). --random needs no check. */
static inline void rt_validate_input(const rt_decls *d, const rt_args *a, int k, const rt_shape *s) {
  const char *value = rt_input_value(d, a, k);
  size_t mark = rt_mark();
  if (!value) {
  } else if (rt_is_literal(value)) {
    rt_literal_input(d->inputs[k], value, s, NULL);
  } else if (rt_is_npy(value)) {
    rt_npy_file f;
    rt_npy_open(d->inputs[k], value, s, &f);
    close(f.fd);
  } else {
    rt_text_input(d->inputs[k], value, s, NULL);
  }
  rt_release(mark);
}

/* The packed words of input k (its shape s), from --input or the seed;
 * in the arena. */
static inline int64_t *rt_input_words(const rt_decls *d, const rt_args *a, int k, const rt_shape *s) {
  const char *value = rt_input_value(d, a, k);
  int64_t words;
  if (__builtin_add_overflow(rt_shape_words(s), 1, &words)) rt_out_of_memory();
  int64_t *w = rt_array(words, 8);  /* in the arena: freed with the process */
  if (!value) {
    uint64_t state = rt_random_stream(a->seed, k);
    rt_random_words(s, &state, w);
  } else if (rt_is_literal(value)) {
    rt_literal_input(d->inputs[k], value, s, w);
  } else if (rt_is_npy(value)) {
    rt_npy_file f;
    rt_npy_open(d->inputs[k], value, s, &f);
    rt_npy_load(d->inputs[k], value, &f, s, 0, s->kind == RT_VEC ? s->len : 1, w);
  } else {
    rt_text_input(d->inputs[k], value, s, w);
  }
  return w;
}

/* Input k's elements [lo, hi) of its outermost vector, 0 <= lo <= hi <=
 * s->len, as the packed words rt_input_words returns for a vector of
 * hi - lo elements (first word hi - lo, then the elements' packed words),
 * so that the ld_* and un_* helpers read it unchanged. For an input that is
 * not a vector, lo and hi are ignored and the whole input is returned. Any
 * process may call it after process 0 validated the input; it reads only
 * what it needs: --random draws the block's values directly, a text file is
 * scanned to the block's first value without converting the values before
 * it, a .npy file is read with one seek and read, a literal is parsed whole
 * and cut. In the arena. */
static inline int64_t *rt_input_block(const rt_decls *d, const rt_args *a, int k, const rt_shape *s, int64_t lo,
                                      int64_t hi) {
  if (s->kind != RT_VEC) return rt_input_words(d, a, k, s);
  if (lo < 0 || hi < lo || hi > s->len)
    rt_error(NULL, "input '%s': the block [%" PRId64 ", %" PRId64 ") is not inside [0, %" PRId64 ")", d->inputs[k],
             lo, hi, s->len);
  const char *value = rt_input_value(d, a, k);
  int64_t per = rt_shape_words(s->a), words;
  if (__builtin_mul_overflow(hi - lo, per, &words) || __builtin_add_overflow(words, 2, &words)) rt_out_of_memory();
  int64_t *w = rt_array(words, 8);
  w[0] = hi - lo;
  if (!value) {
    rt_random_block(a->seed, k, s, lo, hi, w + 1);
  } else if (rt_is_literal(value)) {
    size_t mark = rt_mark();
    int64_t *whole = rt_input_words(d, a, k, s);
    memcpy(w + 1, whole + 1 + lo * per, (size_t)((hi - lo) * per) * 8);
    rt_release(mark);
  } else if (rt_is_npy(value)) {
    rt_npy_file f;
    rt_npy_open(d->inputs[k], value, s, &f);
    rt_npy_load(d->inputs[k], value, &f, s, lo, hi, w);
  } else {
    rt_text_block(d->inputs[k], value, s, lo, hi, w + 1);
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
