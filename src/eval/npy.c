// npy.c: NumPy .npy files for the interpreter: an input read whole
// (--input NAME=FILE.npy) and a result written (vecbsp eval -o FILE.npy).
// The format code is the generated programs' own (src/codegen/rt/format_npy.c,
// included here), so that eval and run accept the same files and give the
// same messages.
#include "eval/eval.h"

#include "codegen/rt/format_npy.c"

#include <fcntl.h>
#include <stdlib.h>

//
// Inputs.
//

// count values of shape dims[0..ndim) from the bytes at *from.
static Value npy_values(Arena *a, const unsigned char **from, rt_npy_kind kind, const int64_t *dims, int ndim) {
  if (ndim > 0) {
    Value v = value_vec(a, dims[0]);
    for (int64_t i = 0; i < dims[0]; i++) v.vec->elems[i] = npy_values(a, from, kind, dims + 1, ndim - 1);
    return v;
  }
  if (kind == RT_NPY_BOOL) return value_bool(*(*from)++ != 0);
  uint64_t bits;
  memcpy(&bits, *from, 8);
  *from += 8;
  bits = rt_npy_le64(bits);
  if (kind == RT_NPY_INT) return value_int((int64_t)bits);
  double f;
  memcpy(&f, &bits, 8);
  return value_float(f);
}

Value npy_read_input(Arena *a, const char *path, const char *input, const char *declared, InputTypeKind scalar,
                     const int64_t *dims, int ndim) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) fatal("input '%s': cannot read '%s': %s", input, path, strerror(errno));
  rt_npy_kind kind = scalar == IT_INT ? RT_NPY_INT : scalar == IT_FLOAT ? RT_NPY_FLOAT : scalar == IT_BOOL ? RT_NPY_BOOL : RT_NPY_NONE;
  rt_npy_header h;
  char err[1024];
  if (!rt_npy_check_input(fd, path, input, declared, kind, dims, ndim, &h, err, sizeof err)) {
    close(fd);
    fatal("%s", err);
  }
  int64_t bytes = rt_npy_data_bytes(h.shape, h.ndim, rt_npy_itemsize(kind));
  unsigned char *data = malloc(bytes > 0 ? (size_t)bytes : 1);
  int64_t got = data ? rt_npy_pread(fd, data, bytes, h.data_offset) : -1;
  int error = data ? errno : ENOMEM;
  close(fd);
  if (got != bytes) {
    free(data);
    fatal("input '%s': cannot read '%s': %s", input, path, got < 0 ? strerror(error) : "the file changed while it was read");
  }
  const unsigned char *p = data;
  Value v = npy_values(a, &p, kind, h.shape, h.ndim);
  free(data);
  return v;
}

//
// Results.
//

// A type as vecbsp prints it, its variables int (as main's defaults).
static void type_text(Type *t, int prec, char *buf, size_t size) {
  t = type_resolve(t);
  size_t n = strlen(buf);
  if (n + 8 >= size) return;
  switch (t->kind) {
  case T_INT: case T_VAR: strcat(buf, "int"); return;
  case T_FLOAT: strcat(buf, "float"); return;
  case T_BOOL: strcat(buf, "bool"); return;
  case T_PAIR:
    strcat(buf, "(");
    type_text(t->a, 0, buf, size);
    strcat(buf, ", ");
    type_text(t->b, 0, buf, size);
    strcat(buf, ")");
    return;
  case T_VEC:
    strcat(buf, prec > 1 ? "(vec " : "vec ");
    type_text(t->a, 2, buf, size);
    if (prec > 1) strcat(buf, ")");
    return;
  case T_FUN: strcat(buf, "a function"); return;
  }
}

// The scalars and dimensions of a result of type t; fatal unless it is a
// vector of int, float or bool, or of such vectors.
static rt_npy_kind result_kind(const char *path, Type *t, int *ndim) {
  Type *s = type_resolve(t);
  for (*ndim = 0; s->kind == T_VEC; s = type_resolve(s->a)) ++*ndim;
  bool scalar = s->kind == T_INT || s->kind == T_FLOAT || s->kind == T_BOOL || s->kind == T_VAR;
  if (*ndim == 0 || !scalar) {
    char text[512] = "";
    type_text(t, 0, text, sizeof text);
    fatal("cannot write %s: a .npy result must be a vector of int, float or bool, or of such vectors; the result is %s",
          path, text);
  }
  if (*ndim > RT_NPY_MAX_DIMS)
    fatal("cannot write %s: the result has %d dimensions; a .npy file has at most %d", path, *ndim, RT_NPY_MAX_DIMS);
  return s->kind == T_FLOAT ? RT_NPY_FLOAT : s->kind == T_BOOL ? RT_NPY_BOOL : RT_NPY_INT;
}

void npy_check_result(const char *path, Type *t) {
  int ndim;
  result_kind(path, t, &ndim);
}

// The lengths of v's vectors set into or compared with dims from axis on,
// in element order (as the generated programs' rt_output_npy finds them).
static void result_dims(const char *path, Value v, int axis, int ndim, int64_t *dims) {
  if (axis == ndim) return;
  int64_t len = v.vec->len;
  if (dims[axis] < 0) {
    dims[axis] = len;
  } else if (dims[axis] != len) {
    fatal("cannot write %s: the result is not a regular array: along axis %d it has lengths %lld and %lld", path,
          axis, (long long)dims[axis], (long long)len);
  }
  for (int64_t i = 0; i < len; i++) result_dims(path, v.vec->elems[i], axis + 1, ndim, dims);
}

// Bytes gathered for one write at a time.
typedef struct Writer {
  int fd;
  unsigned char buf[1 << 16];
  size_t used;
  bool failed;  // a write failed (errno in err)
  int err;
} Writer;

static void writer_flush(Writer *w) {
  for (size_t done = 0; done < w->used && !w->failed;) {
    ssize_t n = write(w->fd, w->buf + done, w->used - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      w->failed = true;
      w->err = n < 0 ? errno : EIO;
    }
    done += n > 0 ? (size_t)n : 0;
  }
  w->used = 0;
}

static void writer_bytes(Writer *w, const void *bytes, size_t n) {
  if (w->used + n > sizeof w->buf) writer_flush(w);
  memcpy(w->buf + w->used, bytes, n);
  w->used += n;
}

static void write_scalars(Writer *w, Value v, rt_npy_kind kind) {
  if (v.kind == V_VEC) {
    for (int64_t i = 0; i < v.vec->len; i++) write_scalars(w, v.vec->elems[i], kind);
  } else if (kind == RT_NPY_BOOL) {
    unsigned char byte = v.b;
    writer_bytes(w, &byte, 1);
  } else {
    uint64_t bits;
    memcpy(&bits, kind == RT_NPY_INT ? (const void *)&v.i : (const void *)&v.f, 8);
    bits = rt_npy_le64(bits);
    writer_bytes(w, &bits, 8);
  }
}

void npy_write_result(const char *path, Value v, Type *t) {
  int ndim;
  rt_npy_kind kind = result_kind(path, t, &ndim);
  int64_t shape[RT_NPY_MAX_DIMS];
  for (int i = 0; i < ndim; i++) shape[i] = -1;
  result_dims(path, v, 0, ndim, shape);
  for (int i = 0; i < ndim; i++)
    if (shape[i] < 0) shape[i] = 0;  // below an empty vector
  char *partial = xmalloc(strlen(path) + 9);
  sprintf(partial, "%s.partial", path);
  Writer *w = xmalloc(sizeof *w);
  *w = (Writer){.fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666)};
  if (w->fd < 0) {
    w->failed = true;
    w->err = errno;
  } else {
    int64_t size = rt_npy_header_size(ndim);
    char *header = xmalloc((size_t)size);
    rt_npy_format_header(header, size, kind, shape, ndim);
    writer_bytes(w, header, (size_t)size);
    free(header);
    write_scalars(w, v, kind);
    writer_flush(w);
    if (close(w->fd) != 0 && !w->failed) {
      w->failed = true;
      w->err = errno;
    }
    if (!w->failed && rename(partial, path) != 0) {
      w->failed = true;
      w->err = errno;
    }
  }
  int err = w->err;
  bool failed = w->failed;
  if (failed && w->fd >= 0) unlink(partial);
  free(w);
  free(partial);
  if (failed) fatal("cannot write %s: %s", path, strerror(err));
}
