/* rt/format_npy.c: the NumPy .npy format (versions 1.0 and 2.0): headers
 * read, checked against an input's declared shape, and written. Plain C and
 * POSIX with no BSPlib, so that the interpreter includes this file too
 * (src/eval/npy.c): eval and the generated programs accept the same files
 * and report the same messages. Errors are returned as text, never raised. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* NumPy itself allows 64 dimensions (32 before 2.0). */
#define RT_NPY_MAX_DIMS 64
/* Longer headers are not read (NumPy's own reader stops at 10000 bytes). */
#define RT_NPY_MAX_HEADER ((int64_t)1 << 20)

/* The scalars a .npy file may hold here; RT_NPY_NONE: a type with pairs. */
typedef enum { RT_NPY_INT, RT_NPY_FLOAT, RT_NPY_BOOL, RT_NPY_NONE } rt_npy_kind;

typedef struct rt_npy_header {
  char descr[64];                 /* the dtype as written, e.g. "<i8" */
  bool fortran_order;             /* 'fortran_order' */
  int ndim;                       /* entries of shape */
  int64_t shape[RT_NPY_MAX_DIMS]; /* 'shape' */
  int64_t data_offset;            /* bytes before the data: magic, version, length, dictionary */
} rt_npy_header;

/* snprintf for messages that may be cut short at size (through a va_list,
 * which the compiler's truncation warnings leave alone). */
static inline void rt_npy_say(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, size, fmt, ap);
  va_end(ap);
}

static inline const char *rt_npy_descr(rt_npy_kind k) {
  return k == RT_NPY_INT ? "<i8" : k == RT_NPY_FLOAT ? "<f8" : "|b1";
}

static inline int rt_npy_itemsize(rt_npy_kind k) { return k == RT_NPY_BOOL ? 1 : 8; }

/* A little-endian 64-bit word to the host's order and back (the same swap). */
static inline uint64_t rt_npy_le64(uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return __builtin_bswap64(v);
#else
  return v;
#endif
}

/* A shape as NumPy prints it: "(3, 4)", "(3,)", "()". */
static inline void rt_npy_shape_text(const int64_t *shape, int ndim, char *buf, size_t size) {
  size_t n = 0;
  for (int i = 0; i <= ndim && n < size; i++) {
    int m = i < ndim ? snprintf(buf + n, size - n, "%s%" PRId64, i ? ", " : "(", shape[i])
                     : snprintf(buf + n, size - n, "%s", ndim == 0 ? "()" : ndim == 1 ? ",)" : ")");
    if (m < 0) return;
    n += (size_t)m;
  }
}

/* Reads len bytes at offset, as many as there are; -1 on a read error. */
static inline int64_t rt_npy_pread(int fd, void *buf, int64_t len, int64_t offset) {
  int64_t got = 0;
  while (got < len) {
    size_t chunk = len - got > ((int64_t)1 << 30) ? (size_t)1 << 30 : (size_t)(len - got);
    ssize_t n = pread(fd, (char *)buf + got, chunk, (off_t)(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    got += n;
  }
  return got;
}

/* Writes len bytes at offset; false (errno set) if it could not. */
static inline bool rt_npy_pwrite(int fd, const void *buf, int64_t len, int64_t offset) {
  int64_t done = 0;
  while (done < len) {
    size_t chunk = len - done > ((int64_t)1 << 30) ? (size_t)1 << 30 : (size_t)(len - done);
    ssize_t n = pwrite(fd, (const char *)buf + done, chunk, (off_t)(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {
      errno = EIO;
      return false;
    }
    done += n;
  }
  return true;
}

/* ---- the header's dictionary: a Python literal ---- */

typedef struct rt_npy_parser {
  const char *p, *end; /* the text left */
  char *err;           /* the message, when something is wrong */
  size_t errsize;
} rt_npy_parser;

static inline bool rt_npy_fail(rt_npy_parser *ps, const char *why) {
  rt_npy_say(ps->err, ps->errsize, "malformed .npy header: %s", why);
  return false;
}

static inline void rt_npy_blanks(rt_npy_parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}

static inline bool rt_npy_accept(rt_npy_parser *ps, char c) {
  rt_npy_blanks(ps);
  if (ps->p >= ps->end || *ps->p != c) return false;
  ps->p++;
  return true;
}

/* A quoted string (no escapes: NumPy writes none in these headers). */
static inline bool rt_npy_string(rt_npy_parser *ps, char *out, size_t size) {
  rt_npy_blanks(ps);
  if (ps->p >= ps->end || (*ps->p != '\'' && *ps->p != '"')) return false;
  char quote = *ps->p++;
  const char *start = ps->p;
  while (ps->p < ps->end && *ps->p != quote) ps->p++;
  if (ps->p >= ps->end) return false;
  size_t n = (size_t)(ps->p - start) < size - 1 ? (size_t)(ps->p - start) : size - 1;
  memcpy(out, start, n);
  out[n] = '\0';
  ps->p++;
  return true;
}

/* A structured dtype, [('a', '<i4'), ...]: kept as text, to be named in
 * the error that it is not supported. */
static inline bool rt_npy_list_text(rt_npy_parser *ps, char *out, size_t size) {
  const char *start = ps->p;
  int depth = 0;
  char quote = 0;
  for (; ps->p < ps->end; ps->p++) {
    char c = *ps->p;
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '(') {
      depth++;
    } else if ((c == ']' || c == ')') && --depth == 0) {
      ps->p++;
      size_t n = (size_t)(ps->p - start);
      rt_npy_say(out, size, n < size - 4 ? "%.*s" : "%.*s...", (int)(n < size - 4 ? n : size - 4), start);
      return true;
    }
  }
  return false;
}

static inline bool rt_npy_descr_value(rt_npy_parser *ps, rt_npy_header *h) {
  rt_npy_blanks(ps);
  if (ps->p < ps->end && *ps->p == '[') {
    if (rt_npy_list_text(ps, h->descr, sizeof h->descr)) return true;
  } else if (rt_npy_string(ps, h->descr, sizeof h->descr)) {
    return true;
  }
  return rt_npy_fail(ps, "'descr' is not a string");
}

static inline bool rt_npy_bool_value(rt_npy_parser *ps, rt_npy_header *h) {
  rt_npy_blanks(ps);
  size_t left = (size_t)(ps->end - ps->p);
  if (left >= 4 && memcmp(ps->p, "True", 4) == 0) {
    h->fortran_order = true;
    ps->p += 4;
    return true;
  }
  if (left >= 5 && memcmp(ps->p, "False", 5) == 0) {
    h->fortran_order = false;
    ps->p += 5;
    return true;
  }
  return rt_npy_fail(ps, "'fortran_order' is not True or False");
}

/* A dimension: decimal digits, with the L of Python 2's long integers. */
static inline bool rt_npy_dimension(rt_npy_parser *ps, int64_t *v) {
  rt_npy_blanks(ps);
  if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') return rt_npy_fail(ps, "'shape' is not a tuple of non-negative integers");
  *v = 0;
  for (; ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9'; ps->p++)
    if (__builtin_mul_overflow(*v, 10, v) || __builtin_add_overflow(*v, *ps->p - '0', v))
      return rt_npy_fail(ps, "a dimension of 'shape' is too large");
  if (ps->p < ps->end && *ps->p == 'L') ps->p++;
  return true;
}

static inline bool rt_npy_shape_value(rt_npy_parser *ps, rt_npy_header *h) {
  if (!rt_npy_accept(ps, '(')) return rt_npy_fail(ps, "'shape' is not a tuple of non-negative integers");
  h->ndim = 0;
  if (rt_npy_accept(ps, ')')) return true;
  do {
    rt_npy_blanks(ps);
    if (h->ndim > 0 && ps->p < ps->end && *ps->p == ')') break; /* (3,) */
    if (h->ndim == RT_NPY_MAX_DIMS) return rt_npy_fail(ps, "the array has more than 64 dimensions");
    if (!rt_npy_dimension(ps, &h->shape[h->ndim++])) return false;
  } while (rt_npy_accept(ps, ','));
  if (!rt_npy_accept(ps, ')')) return rt_npy_fail(ps, "'shape' is not a tuple of non-negative integers");
  return true;
}

/* The dictionary {'descr': ..., 'fortran_order': ..., 'shape': ...}, each
 * key exactly once, nothing else; blanks (the padding) after it. */
static inline bool rt_npy_dictionary(rt_npy_parser *ps, rt_npy_header *h) {
  static const char *const keys[] = {"descr", "fortran_order", "shape"};
  bool seen[3] = {false, false, false};
  if (!rt_npy_accept(ps, '{')) return rt_npy_fail(ps, "it does not start with '{'");
  while (!rt_npy_accept(ps, '}')) {
    char key[32];
    if (!rt_npy_string(ps, key, sizeof key)) return rt_npy_fail(ps, "expected a quoted key or '}'");
    int k = 0;
    while (k < 3 && strcmp(key, keys[k]) != 0) k++;
    char why[96];
    if (k == 3) {
      rt_npy_say(why, sizeof why, "unknown key '%s'", key);
      return rt_npy_fail(ps, why);
    }
    if (seen[k]) {
      rt_npy_say(why, sizeof why, "'%s' is given twice", key);
      return rt_npy_fail(ps, why);
    }
    seen[k] = true;
    if (!rt_npy_accept(ps, ':')) {
      rt_npy_say(why, sizeof why, "expected ':' after '%s'", key);
      return rt_npy_fail(ps, why);
    }
    if (!(k == 0 ? rt_npy_descr_value(ps, h) : k == 1 ? rt_npy_bool_value(ps, h) : rt_npy_shape_value(ps, h)))
      return false;
    if (!rt_npy_accept(ps, ',')) {
      if (!rt_npy_accept(ps, '}')) return rt_npy_fail(ps, "expected ',' or '}'");
      break;
    }
  }
  for (int k = 0; k < 3; k++)
    if (!seen[k]) {
      char why[64];
      rt_npy_say(why, sizeof why, "'%s' is missing", keys[k]);
      return rt_npy_fail(ps, why);
    }
  rt_npy_blanks(ps);
  if (ps->p < ps->end) return rt_npy_fail(ps, "text after the dictionary");
  return true;
}

/* Reads and parses the header of the file open on fd. */
static inline bool rt_npy_read_header(int fd, rt_npy_header *h, char *err, size_t errsize) {
  unsigned char pre[12];
  int64_t got = rt_npy_pread(fd, pre, sizeof pre, 0);
  if (got < 0) {
    rt_npy_say(err, errsize, "cannot read the file: %s", strerror(errno));
    return false;
  }
  if (got < 6 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    rt_npy_say(err, errsize, "not a NumPy .npy file (it does not start with \\x93NUMPY)");
    return false;
  }
  if (got < 8) {
    rt_npy_say(err, errsize, "malformed .npy header: the file ends inside it");
    return false;
  }
  if ((pre[6] != 1 && pre[6] != 2) || pre[7] != 0) {
    rt_npy_say(err, errsize, ".npy format version %d.%d is not supported (1.0 and 2.0 are)", pre[6], pre[7]);
    return false;
  }
  int prefix = pre[6] == 1 ? 10 : 12;
  if (got < prefix) {
    rt_npy_say(err, errsize, "malformed .npy header: the file ends inside it");
    return false;
  }
  int64_t len = prefix == 10 ? (int64_t)pre[8] | (int64_t)pre[9] << 8
                             : (int64_t)pre[8] | (int64_t)pre[9] << 8 | (int64_t)pre[10] << 16 | (int64_t)pre[11] << 24;
  if (len > RT_NPY_MAX_HEADER) {
    rt_npy_say(err, errsize, "malformed .npy header: it is %" PRId64 " bytes long (at most %" PRId64 " are read)", len,
             RT_NPY_MAX_HEADER);
    return false;
  }
  char *text = malloc((size_t)len + 1);
  if (!text) {
    rt_npy_say(err, errsize, "out of memory");
    return false;
  }
  got = rt_npy_pread(fd, text, len, prefix);
  if (got != len) {
    if (got < 0)
      rt_npy_say(err, errsize, "cannot read the file: %s", strerror(errno));
    else
      rt_npy_say(err, errsize, "malformed .npy header: the file ends inside it");
    free(text);
    return false;
  }
  memset(h, 0, sizeof *h);
  h->data_offset = prefix + len;
  rt_npy_parser ps = {text, text + len, err, errsize};
  bool ok = rt_npy_dictionary(&ps, h);
  free(text);
  return ok;
}

/* ---- an input read from a .npy file ---- */

/* The size in bytes of an array of this shape, or -1 past 2^63. */
static inline int64_t rt_npy_data_bytes(const int64_t *shape, int ndim, int itemsize) {
  int64_t n = itemsize;
  for (int i = 0; i < ndim; i++)
    if (__builtin_mul_overflow(n, shape[i], &n)) return -1;
  return n;
}

/* Checks the file open on fd (path) against the input named input, declared
 * (as text) as `declared`: an array of dims[0..ndim) of kind scalars
 * (RT_NPY_NONE: the declared type has pairs). In this order: the type, the
 * header, Fortran order, the dtype, the shape, the file's size. */
static inline bool rt_npy_check_input(int fd, const char *path, const char *input, const char *declared,
                                      rt_npy_kind kind, const int64_t *dims, int ndim, rt_npy_header *h,
                                      char *err, size_t errsize) {
  char why[512];
  bool ok = false;
  if (kind == RT_NPY_NONE) {
    rt_npy_say(why, sizeof why, "the input %s is %s; a .npy file holds only an array of int, float or bool", input,
             declared);
  } else if (!rt_npy_read_header(fd, h, why, sizeof why)) {
  } else if (h->fortran_order) {
    rt_npy_say(why, sizeof why, "the array is in Fortran order; only C order ('fortran_order': False) is supported");
  } else if (strcmp(h->descr, rt_npy_descr(kind)) != 0) {
    rt_npy_say(why, sizeof why, "the array's dtype is '%s'; the input %s is %s, which needs '%s' (int: '<i8', float: '<f8', bool: '|b1')",
             h->descr, input, declared, rt_npy_descr(kind));
  } else if (h->ndim != ndim || memcmp(h->shape, dims, (size_t)ndim * sizeof *dims) != 0) {
    char shape[RT_NPY_MAX_DIMS * 22 + 4];
    rt_npy_shape_text(h->shape, h->ndim, shape, sizeof shape);
    rt_npy_say(why, sizeof why, "the array has shape %s, the input %s is %s", shape, input, declared);
  } else {
    struct stat st;
    int64_t need = rt_npy_data_bytes(h->shape, h->ndim, rt_npy_itemsize(kind));
    if (fstat(fd, &st) != 0) {
      rt_npy_say(why, sizeof why, "cannot read the file: %s", strerror(errno));
    } else if (need < 0 || (int64_t)st.st_size - h->data_offset < need) {
      rt_npy_say(why, sizeof why, "the file is cut short: the array's data needs %" PRId64 " bytes, the file has %" PRId64 " after the header",
               need, (int64_t)st.st_size - h->data_offset);
    } else if ((int64_t)st.st_size - h->data_offset > need) {
      rt_npy_say(why, sizeof why, "the file has %" PRId64 " bytes after the array's data",
               (int64_t)st.st_size - h->data_offset - need);
    } else {
      ok = true;
    }
  }
  if (!ok) rt_npy_say(err, errsize, "%s: %s", path, why);
  return ok;
}

/* ---- writing: a header of a fixed size ---- */

/* The bytes of a version 1.0 header for ndim dimensions (at most 64), a
 * multiple of 64 large enough for any dimensions: every process of a
 * program writing its block knows where the data starts before the
 * dimensions are known. */
static inline int64_t rt_npy_header_size(int ndim) {
  int64_t dict = (int64_t)strlen("{'descr': '<i8', 'fortran_order': False, 'shape': (,), }\n") + 21 * (int64_t)ndim;
  return (10 + dict + 63) / 64 * 64;
}

/* Writes the header into buf (size bytes, rt_npy_header_size(ndim)): magic,
 * version 1.0, length, the dictionary padded with spaces, a newline. */
static inline void rt_npy_format_header(char *buf, int64_t size, rt_npy_kind kind, const int64_t *shape, int ndim) {
  char dims[RT_NPY_MAX_DIMS * 22 + 4];
  rt_npy_shape_text(shape, ndim, dims, sizeof dims);
  memset(buf, ' ', (size_t)size);
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (char)((size - 10) & 0xff);
  buf[9] = (char)((size - 10) >> 8);
  int n = snprintf(buf + 10, (size_t)(size - 10), "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                   rt_npy_descr(kind), dims);
  buf[10 + n] = ' '; /* snprintf's NUL */
  buf[size - 1] = '\n';
}
