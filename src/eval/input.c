// input.c: binding a program's inputs from literals, text data files, .npy
// files (npy.c) or a seed, checked against their declared shapes.
#include "eval/eval.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct Binder {
  Arena *arena;
  Program *prog;
  const int64_t *params;
  Decl *input;   // the input being bound
} Binder;

int64_t input_length(Program *prog, const int64_t *params, InputType *t) {
  Arena *scratch = arena_new();
  int64_t n = interp_eval_closed(scratch, prog, params, t->len).i;
  arena_free(scratch);
  if (n < 0) error_at(t->len->pos, "this vector length is negative (%lld)", (long long)n);
  return n;
}

// The declared type with its lengths evaluated, e.g. "[3][4]int".
static char *shape_text(Binder *b, InputType *t) {
  switch (t->kind) {
  case IT_INT: return "int";
  case IT_FLOAT: return "float";
  case IT_BOOL: return "bool";
  case IT_PAIR: return arena_printf(b->arena, "(%s, %s)", shape_text(b, t->a), shape_text(b, t->b));
  case IT_VEC:
    return arena_printf(b->arena, "[%lld]%s", (long long)input_length(b->prog, b->params, t),
                        shape_text(b, t->a));
  }
  return "?";
}

//
// Random inputs: splitmix64, one stream per input so that supplying one
// input by hand does not change the others.
//

uint64_t random_stream_seed(uint64_t seed, int input_index) {
  return seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(input_index + 1));
}

uint64_t random_next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t random_int(uint64_t *state) { return (int64_t)(random_next(state) % 201) - 100; }
double random_float(uint64_t *state) { return (double)(random_next(state) >> 11) * 0x1.0p-52 - 1.0; }
bool random_bool(uint64_t *state) { return random_next(state) >> 63; }

static Value random_value(Binder *b, InputType *t, uint64_t *state) {
  switch (t->kind) {
  case IT_INT: return value_int(random_int(state));
  case IT_FLOAT: return value_float(random_float(state));
  case IT_BOOL: return value_bool(random_bool(state));
  case IT_PAIR: {
    Value x = random_value(b, t->a, state);
    return value_pair(b->arena, x, random_value(b, t->b, state));
  }
  case IT_VEC: {
    int64_t n = input_length(b->prog, b->params, t);
    Value v = value_vec(b->arena, n);
    for (int64_t i = 0; i < n; i++) v.vec->elems[i] = random_value(b, t->a, state);
    return v;
  }
  }
  return value_int(0);
}

//
// Literals: --input v=[1, 2, 3].
//

static Value literal_scalar(Binder *b, Node *n, InputType *t) {
  bool negate = false;
  Node *lit = n;
  while (lit->kind == N_UNOP && lit->op == OP_NEG) {
    negate = !negate;
    lit = lit->lhs;
  }
  if (t->kind == IT_BOOL && lit->kind == N_BOOL && !negate) return value_bool(lit->ival);
  if (t->kind == IT_INT && lit->kind == N_INT) return value_int(negate ? -lit->ival : lit->ival);
  if (t->kind == IT_FLOAT && (lit->kind == N_FLOAT || lit->kind == N_INT)) {
    double f = lit->kind == N_FLOAT ? lit->fval : (double)lit->ival;
    return value_float(negate ? -f : f);
  }
  error_at(n->pos, "input '%s': expected %s here", b->input->name, shape_text(b, t));
}

static Value literal_value(Binder *b, Node *n, InputType *t) {
  switch (t->kind) {
  case IT_PAIR: {
    if (n->kind != N_PAIR) error_at(n->pos, "input '%s': expected a tuple %s here", b->input->name, shape_text(b, t));
    Value x = literal_value(b, n->lhs, t->a);
    return value_pair(b->arena, x, literal_value(b, n->rhs, t->b));
  }
  case IT_VEC: {
    int64_t len = input_length(b->prog, b->params, t);
    if (n->kind != N_VEC) error_at(n->pos, "input '%s': expected a vector %s here", b->input->name, shape_text(b, t));
    if (n->nelems != len)
      error_at(n->pos, "input '%s': this vector has %d elements, the declared shape %s needs %lld",
               b->input->name, n->nelems, shape_text(b, t), (long long)len);
    Value v = value_vec(b->arena, len);
    for (int64_t i = 0; i < len; i++) v.vec->elems[i] = literal_value(b, n->elems[i], t->a);
    return v;
  }
  default: return literal_scalar(b, n, t);
  }
}

//
// Data files: whitespace-separated scalars in row-major order (the
// components of a tuple one after the other); or a .csv file: a vector's
// values on one line or one a line, a matrix's rows on lines, values
// separated by commas.
//

typedef struct Reader {
  const Source *src;
  const char *p;          // next character
  const char *line_start; // start of the current line
  int line;
  int64_t count;          // scalars read so far
  Pos end;                // just after the last scalar read
  bool csv;               // a .csv file
  bool comma;             // csv: the value before ended in a comma, so another follows on its line
  bool new_line;          // csv: a line ended before the value just read
  int64_t per_line;       // csv: values a line (0: a vector's, decided by its second value)
  int64_t len;            // csv: the vector's length
} Reader;

// The next value of a .csv file (spaces around it and blank lines ignored).
static bool next_field(Reader *r, const char **start, int *len, Pos *pos) {
  const char *end = r->src->text + r->src->len;
  r->new_line = false;
  for (; r->p < end; r->p++) {
    if (*r->p == '\n' && !r->comma) {
      r->line++;
      r->line_start = r->p + 1;
      r->new_line = true;
    } else if (*r->p != ' ' && *r->p != '\t' && *r->p != '\r') {
      break;
    }
  }
  if (r->p >= end && !r->comma) return false;
  *start = r->p;
  *pos = (Pos){r->src, r->line, (int)(r->p - r->line_start) + 1};
  while (r->p < end && *r->p != ',' && *r->p != '\n') r->p++;
  const char *stop = r->p;
  while (stop > *start && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\r')) stop--;
  *len = (int)(stop - *start);
  r->comma = r->p < end && *r->p == ',';
  r->p += r->comma;
  r->end = *pos;
  r->end.col += *len;
  return true;
}

static bool next_word(Reader *r, const char **start, int *len, Pos *pos) {
  if (r->csv) return next_field(r, start, len, pos);
  for (;;) {
    if (*r->p == '\n') {
      r->line++;
      r->line_start = ++r->p;
    } else if (isspace((unsigned char)*r->p)) {
      r->p++;
    } else {
      break;
    }
  }
  if (r->p >= r->src->text + r->src->len) return false;
  *start = r->p;
  *pos = (Pos){r->src, r->line, (int)(r->p - r->line_start) + 1};
  while (r->p < r->src->text + r->src->len && !isspace((unsigned char)*r->p)) r->p++;
  *len = (int)(r->p - *start);
  r->end = *pos;
  r->end.col += *len;
  return true;
}

// In a .csv file, value k = r->count (at pos; the one before ended at
// before) starts a line exactly when k is a multiple of the values a line.
static void check_line(Binder *b, Reader *r, Pos pos, Pos before, InputType *whole) {
  int64_t k = r->count;
  if (k == 0) return;
  if (r->per_line == 0) r->per_line = r->new_line ? 1 : r->len;
  if (k % r->per_line == 0 && !r->new_line)
    error_at(pos, "input '%s': line %d has more than %lld values; the declared shape %s needs %lld a line",
             b->input->name, pos.line, (long long)r->per_line, shape_text(b, whole), (long long)r->per_line);
  if (k % r->per_line != 0 && r->new_line)
    error_at(before, "input '%s': line %d has %lld values; the declared shape %s needs %lld a line", b->input->name,
             before.line, (long long)(k % r->per_line), shape_text(b, whole), (long long)r->per_line);
}

static Value file_scalar(Binder *b, Reader *r, InputType *t, InputType *whole) {
  const char *w;
  int len;
  Pos pos, before = r->end;
  if (!next_word(r, &w, &len, &pos))
    error_at(r->end.src ? r->end : (Pos){r->src, 1, 1},
             "input '%s': the file ends after %lld values; the declared shape %s needs more",
             b->input->name, (long long)r->count, shape_text(b, whole));
  if (r->csv) check_line(b, r, pos, before, whole);
  r->count++;
  if (len == 0) error_at(pos, "input '%s': an empty value (two commas, or a comma ending a line)", b->input->name);
  char buf[64];
  if (len >= (int)sizeof buf) error_at(pos, "input '%s': this value is too long", b->input->name);
  memcpy(buf, w, (size_t)len);
  buf[len] = '\0';
  if (strlen(buf) != (size_t)len) error_at(pos, "input '%s': a NUL byte in this value", b->input->name);
  char *end;
  errno = 0;
  if (t->kind == IT_BOOL) {
    if (strcmp(buf, "true") == 0 || strcmp(buf, "1") == 0) return value_bool(true);
    if (strcmp(buf, "false") == 0 || strcmp(buf, "0") == 0) return value_bool(false);
  } else if (t->kind == IT_INT) {
    long long v = strtoll(buf, &end, 10);
    if (*end == '\0' && errno == 0) return value_int(v);
  } else {
    double v = strtod(buf, &end);  // ERANGE below the smallest normal is a denormal or 0, as printed
    if (*end == '\0' && (errno == 0 || (errno == ERANGE && !isinf(v)))) return value_float(v);
  }
  error_at(pos, "input '%s': expected %s, found '%s'", b->input->name,
           t->kind == IT_INT ? "an int" : t->kind == IT_FLOAT ? "a float" : "a bool (true, false, 1, 0)", buf);
}

static Value file_value(Binder *b, Reader *r, InputType *t, InputType *whole) {
  switch (t->kind) {
  case IT_PAIR: {
    Value x = file_value(b, r, t->a, whole);
    return value_pair(b->arena, x, file_value(b, r, t->b, whole));
  }
  case IT_VEC: {
    int64_t n = input_length(b->prog, b->params, t);
    Value v = value_vec(b->arena, n);
    for (int64_t i = 0; i < n; i++) v.vec->elems[i] = file_value(b, r, t->a, whole);
    return v;
  }
  default: return file_scalar(b, r, t, whole);
  }
}

// A .csv file holds a scalar, a vector or a matrix of scalars: the values a
// line of a matrix are its rows' length.
static void csv_layout(Binder *b, Reader *r) {
  InputType *t = b->input->itype;
  bool vector = t->kind == IT_VEC, matrix = vector && t->a->kind == IT_VEC;
  InputType *scalar = matrix ? t->a->a : vector ? t->a : t;
  if (scalar->kind == IT_PAIR || scalar->kind == IT_VEC)
    fatal("input '%s': a .csv file holds a vector or a matrix of int, float or bool, not %s", b->input->name,
          shape_text(b, t));
  r->csv = true;
  r->len = vector ? input_length(b->prog, b->params, t) : 1;
  r->per_line = matrix ? input_length(b->prog, b->params, t->a) : vector ? 0 : 1;
}

static Value read_file_input(Binder *b, const char *path, bool csv) {
  Source *src = source_read(b->arena, path);
  if (!src) fatal("input '%s': cannot read '%s': %s", b->input->name, path, strerror(errno));
  Reader r = {.src = src, .p = src->text, .line_start = src->text, .line = 1};
  if (csv) csv_layout(b, &r);
  Value v = file_value(b, &r, b->input->itype, b->input->itype);
  const char *w;
  int len;
  Pos pos;
  if (!next_word(&r, &w, &len, &pos)) return v;
  if (len == 0) error_at(pos, "input '%s': an empty value (two commas, or a comma ending a line)", b->input->name);
  error_at(pos, "input '%s': extra value '%.*s' after the %lld values of the declared shape %s", b->input->name,
           len > 20 ? 20 : len, w, (long long)r.count, shape_text(b, b->input->itype));
}

// "[..]" and "(..)" are literals; otherwise an existing file is read, and a
// bare number or true/false is a scalar literal.
static bool is_literal(const char *text) {
  struct stat st;
  if (text[0] == '[' || text[0] == '(') return true;
  if (stat(text, &st) == 0) return false;
  return isdigit((unsigned char)text[0]) || text[0] == '-' || strcmp(text, "true") == 0 ||
         strcmp(text, "false") == 0;
}

// A file whose name ends in .npy is a NumPy array, in .csv values separated
// by commas; any other is text.
static bool has_extension(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n >= e && strcmp(path + n - e, ext) == 0;
}

// The input as an n-d array: its lengths (the first 64) and its scalars.
static Value read_npy_input(Binder *b, const char *path) {
  int64_t dims[64];
  int ndim = 0;
  InputType *t = b->input->itype;
  for (; t->kind == IT_VEC; t = t->a, ndim++)
    if (ndim < 64) dims[ndim] = input_length(b->prog, b->params, t);
  return npy_read_input(b->arena, path, b->input->name, shape_text(b, b->input->itype), t->kind, dims, ndim);
}

static Value bind_one(Binder *b, const char *text) {
  struct stat st;
  if (!is_literal(text) && stat(text, &st) == 0 && S_ISDIR(st.st_mode))
    fatal("input '%s': '%s' is a directory, not a data file", b->input->name, text);
  if (!is_literal(text))
    return has_extension(text, ".npy") ? read_npy_input(b, text) : read_file_input(b, text, has_extension(text, ".csv"));
  char *name = arena_printf(b->arena, "--input %s", b->input->name);
  Source *src = source_from_string(b->arena, name, text, strlen(text));
  return literal_value(b, parse_expression(b->arena, src), b->input->itype);
}

Value *inputs_bind(Arena *a, Program *prog, const int64_t *params, const InputSpec *spec) {
  Value *vals = arena_calloc(a, (size_t)prog->ninputs + 1, sizeof *vals);
  bool *given = arena_calloc(a, (size_t)prog->ninputs + 1, sizeof *given);
  Binder b = {.arena = a, .prog = prog, .params = params};
  for (int i = 0; i < spec->nassignments; i++) {
    const char *eq = strchr(spec->assignments[i], '=');
    if (!eq || eq == spec->assignments[i]) fatal("--input expects NAME=VALUE, got '%s'", spec->assignments[i]);
    int k = 0;
    size_t len = (size_t)(eq - spec->assignments[i]);
    while (k < prog->ninputs && (strlen(prog->inputs[k]->name) != len ||
                                 strncmp(prog->inputs[k]->name, spec->assignments[i], len) != 0))
      k++;
    if (k == prog->ninputs)
      fatal("--input %s: the program has no input named '%.*s'", spec->assignments[i], (int)len,
            spec->assignments[i]);
    if (given[k]) fatal("input '%s' is given twice", prog->inputs[k]->name);
    b.input = prog->inputs[k];
    vals[k] = bind_one(&b, eq + 1);
    given[k] = true;
  }
  for (int k = 0; k < prog->ninputs; k++) {
    if (given[k]) continue;
    Decl *d = prog->inputs[k];
    if (!spec->has_seed)
      error_at(d->pos, "input '%s' is not given; supply it with --input %s=... or use --random SEED",
               d->name, d->name);
    b.input = d;
    uint64_t state = random_stream_seed(spec->seed, k);
    vals[k] = random_value(&b, d->itype, &state);
  }
  return vals;
}
