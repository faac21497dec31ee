/* rt/output.c: the program's result written as a NumPy .npy file by every
 * process at once, each its own block at its own offset, through
 * PATH.partial renamed into place (docs/user-guide.md, "Results"). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* The message field of rt_output_npy's reports to process 0 (region 0):
 * generated code numbers its fields from 0 up and never reaches this one. */
#define RT_OUTPUT_FIELD 4095
/* Bytes gathered before a write. */
#define RT_OUTPUT_CHUNK ((int64_t)1 << 20)

/* What a process found about its block and its write, sent to process 0. */
enum { RT_OUT_OK, RT_OUT_WRITE, RT_OUT_IRREGULAR, RT_OUT_BAD_WORDS };

typedef struct rt_out_block {
  int64_t status;                /* RT_OUT_* */
  int64_t err;                   /* RT_OUT_WRITE: the errno */
  int64_t lo, count;             /* the block: elements [lo, lo + count) */
  int64_t axis, was, is;         /* RT_OUT_IRREGULAR: two lengths along one axis */
  int64_t dims[RT_NPY_MAX_DIMS]; /* the lengths along axes 1.. (-1: unknown, below an empty vector) */
} rt_out_block;

/* A type as vecbsp prints it: "vec (int, float)". */
static inline void rt_type_text(const rt_shape *s, int prec, char *buf, size_t size) {
  size_t n = strlen(buf);
  if (n + 8 >= size) return;
  switch (s->kind) {
  case RT_INT: strcat(buf, "int"); return;
  case RT_FLOAT: strcat(buf, "float"); return;
  case RT_BOOL: strcat(buf, "bool"); return;
  case RT_PAIR:
    strcat(buf, "(");
    rt_type_text(s->a, 0, buf, size);
    strcat(buf, ", ");
    rt_type_text(s->b, 0, buf, size);
    strcat(buf, ")");
    return;
  case RT_VEC:
    strcat(buf, prec > 1 ? "(vec " : "vec ");
    rt_type_text(s->a, 2, buf, size);
    if (prec > 1) strcat(buf, ")");
    return;
  }
}

/* The scalars and the dimensions (1 + the depth of elem) of the result. */
static inline rt_npy_kind rt_output_kind(const rt_shape *elem, int *ndim) {
  for (*ndim = 1; elem->kind == RT_VEC; elem = elem->a) ++*ndim;
  return elem->kind == RT_INT ? RT_NPY_INT : elem->kind == RT_FLOAT ? RT_NPY_FLOAT : elem->kind == RT_BOOL ? RT_NPY_BOOL : RT_NPY_NONE;
}

/* A value of shape s at w (the words end at end), its vectors' lengths set
 * into or compared with b->dims from axis on. NULL when it stops: at the
 * first two lengths that differ along an axis (b->status is set) or when the
 * words run out. */
static inline const int64_t *rt_output_walk(const rt_shape *s, const int64_t *w, const int64_t *end, int axis,
                                            rt_out_block *b) {
  if (w >= end) return NULL;
  if (s->kind != RT_VEC) return w + 1;
  int64_t len = *w++;
  if (len < 0) return NULL;
  if (b->dims[axis] < 0) {
    b->dims[axis] = len;
  } else if (b->dims[axis] != len) {
    b->status = RT_OUT_IRREGULAR; /* dims keeps the first element's lengths */
    b->axis = axis;
    b->was = b->dims[axis];
    b->is = len;
    return NULL;
  }
  for (int64_t i = 0; i < len && w; i++) w = rt_output_walk(s->a, w, end, axis + 1, b);
  return w;
}

/* Bytes gathered for one write at a time. */
typedef struct rt_out_writer {
  int fd;
  int64_t offset;        /* where the gathered bytes go */
  unsigned char *buf;    /* RT_OUTPUT_CHUNK bytes */
  int64_t used;
  bool failed;           /* a write failed (errno in err) */
  int err;
} rt_out_writer;

static inline void rt_out_flush(rt_out_writer *o) {
  if (!o->failed && o->used > 0 && !rt_npy_pwrite(o->fd, o->buf, o->used, o->offset)) {
    o->failed = true;
    o->err = errno;
  }
  o->offset += o->used;
  o->used = 0;
}

static inline void rt_out_bytes(rt_out_writer *o, const void *bytes, int64_t n) {
  for (const unsigned char *p = bytes; n > 0;) {
    int64_t take = n < RT_OUTPUT_CHUNK - o->used ? n : RT_OUTPUT_CHUNK - o->used;
    memcpy(o->buf + o->used, p, (size_t)take);
    o->used += take;
    p += take;
    n -= take;
    if (o->used == RT_OUTPUT_CHUNK) rt_out_flush(o);
  }
}

/* The scalars of a value of shape s at w, in row-major order, as the file
 * holds them; returns the words after it. */
static inline const int64_t *rt_out_value(rt_out_writer *o, const rt_shape *s, rt_npy_kind kind, const int64_t *w) {
  if (s->kind == RT_VEC) {
    int64_t len = *w++;
    if (s->a->kind != RT_VEC && kind != RT_NPY_BOOL && rt_npy_le64(1) == 1) {
      rt_out_bytes(o, w, len * 8); /* a row of words, as it is */
      return w + len;
    }
    for (int64_t i = 0; i < len; i++) w = rt_out_value(o, s->a, kind, w);
    return w;
  }
  if (kind == RT_NPY_BOOL) {
    unsigned char byte = *w != 0;
    rt_out_bytes(o, &byte, 1);
  } else {
    uint64_t v = rt_npy_le64((uint64_t)*w);
    rt_out_bytes(o, &v, 8);
  }
  return w + 1;
}

/* This process's part: checks its block and writes it into PATH.partial
 * (creating it if it is the first); what it found goes into b. */
static inline int rt_output_block(const char *partial, const rt_shape *elem, rt_npy_kind kind, int ndim,
                                  const int64_t *words, int64_t nwords, rt_out_block *b) {
  const int64_t *w = words, *end = words + nwords;
  for (int64_t i = 0; i < b->count && w; i++) w = rt_output_walk(elem, w, end, 1, b);
  if (b->status != RT_OUT_OK) return -1;
  if (w != end) {
    b->status = RT_OUT_BAD_WORDS;
    return -1;
  }
  int fd = -1;
  if (bsp_pid() == 0 || b->count > 0) fd = open(partial, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0 && (bsp_pid() == 0 || b->count > 0)) {
    b->status = RT_OUT_WRITE;
    b->err = errno;
    return -1;
  }
  int64_t row = rt_npy_itemsize(kind), offset = 0;
  for (int i = 1; i < ndim; i++) row *= b->dims[i] < 0 ? 0 : b->dims[i]; /* no overflow: the block is in memory */
  if (b->count > 0 && (__builtin_mul_overflow(b->lo, row, &offset) ||
                       __builtin_add_overflow(offset, rt_npy_header_size(ndim), &offset))) {
    b->status = RT_OUT_WRITE;
    b->err = EFBIG;
    return fd;
  }
  if (b->count == 0) return fd;
  rt_out_writer o = {.fd = fd, .offset = offset, .buf = malloc((size_t)RT_OUTPUT_CHUNK)};
  if (!o.buf) rt_out_of_memory();
  if (elem->kind != RT_VEC && kind != RT_NPY_BOOL && rt_npy_le64(1) == 1) {
    if (!rt_npy_pwrite(fd, words, b->count * 8, offset)) { /* a vector of words: written as it is */
      o.failed = true;
      o.err = errno;
    }
  } else {
    w = words;
    for (int64_t i = 0; i < b->count; i++) w = rt_out_value(&o, elem, kind, w);
    rt_out_flush(&o);
  }
  free(o.buf);
  if (o.failed) {
    b->status = RT_OUT_WRITE;
    b->err = o.err;
  }
  return fd;
}

/* Process 0: removes PATH.partial and stops everybody with the error. */
static inline _Noreturn void rt_output_fail(const char *partial, int fd, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (fd >= 0) close(fd);
  unlink(partial);
  rt_error_now(NULL, "%s", msg);
}

static inline const char *rt_output_irregular(char *msg, size_t size, int64_t axis, int64_t was, int64_t is) {
  rt_npy_say(msg, size, "the result is not a regular array: along axis %d it has lengths %" PRId64 " and %" PRId64,
           (int)axis, was, is);
  return msg;
}

/* Process 0: the first problem the blocks report, else NULL with the
 * result's dimensions in shape. Irregularity comes first, in element order
 * as eval finds it: a block's first element against the first block's
 * (each block's lengths are its first element's), then the block's own
 * elements against each other; then a failed write. */
static inline const char *rt_output_check(const rt_out_block *blocks, int p, int ndim, int64_t n, int64_t *shape,
                                          char *msg, size_t size) {
  const rt_out_block *first = NULL;
  int64_t covered = 0;
  for (int q = 0; q < p; q++) {
    const rt_out_block *b = &blocks[q];
    if (b->status == RT_OUT_BAD_WORDS || (b->count > 0 && b->lo != covered) || b->count < 0)
      bsp_abort("vecbsp: error: rt_output_npy: the blocks of the processes do not make up the result\n");
    covered += b->count;
    if (b->count == 0) continue;
    for (int i = 1; first && i < ndim; i++)
      if (b->dims[i] != first->dims[i]) return rt_output_irregular(msg, size, i, first->dims[i], b->dims[i]);
    if (b->status == RT_OUT_IRREGULAR) return rt_output_irregular(msg, size, b->axis, b->was, b->is);
    if (!first) first = b;
  }
  if (covered != n) bsp_abort("vecbsp: error: rt_output_npy: the blocks of the processes do not make up the result\n");
  for (int q = 0; q < p; q++)
    if (blocks[q].status == RT_OUT_WRITE) {
      rt_npy_say(msg, size, "%s", strerror((int)blocks[q].err));
      return msg;
    }
  shape[0] = n;
  for (int i = 1; i < ndim; i++) shape[i] = first && first->dims[i] >= 0 ? first->dims[i] : 0;
  return NULL;
}

/* Collective (every process calls it, after the program's timed part, at a
 * superstep boundary: it syncs once, and the messages received before are
 * gone after it): writes the program's result, a vector of n elements of
 * which this process holds elements [lo, lo + count) as the packed words
 * `words` (each element packed as pk_* packs it: a nested vector element
 * is its length word then its elements; no leading count), to path as a
 * .npy array. Every process writes its block at its offset into
 * PATH.partial (opened with O_CREAT by each: the words may be read where a
 * message holds them, so they are written before the sync), behind a header
 * of a fixed size; after the sync process 0 checks what each reported (its
 * lengths, regular or not, its write), writes the header, cuts the file to
 * its size (a stale PATH.partial may have been longer) and renames it into
 * place. A result that is not a regular array of int, float or bool is an
 * error, reported by process 0, and leaves nothing behind; so does a failed
 * write ("cannot write PATH: REASON"). elem describes the element type (its
 * RT_VEC lengths are not known: -1). Messages: region 0, field
 * RT_OUTPUT_FIELD, from every process to process 0. */
static inline void rt_output_npy(const char *path, const rt_shape *elem, const int64_t *words, int64_t nwords,
                                 int64_t lo, int64_t count, int64_t n) {
  char *partial = rt_alloc(strlen(path) + 9);
  sprintf(partial, "%s.partial", path);
  int ndim;
  rt_npy_kind kind = rt_output_kind(elem, &ndim);
  rt_out_block b = {.lo = lo, .count = count};
  for (int i = 0; i < RT_NPY_MAX_DIMS; i++) b.dims[i] = -1;
  int fd = -1;
  if (kind != RT_NPY_NONE && ndim <= RT_NPY_MAX_DIMS)
    fd = rt_output_block(partial, elem, kind, ndim, words, nwords, &b);
  if (bsp_pid() != 0 && fd >= 0 && close(fd) != 0 && b.status == RT_OUT_OK) {
    b.status = RT_OUT_WRITE;
    b.err = errno;
  }
  rt_send(0, (rt_tag){rt_head(0, RT_OUTPUT_FIELD, bsp_pid()), n, -1}, &b, sizeof b / 8);
  rt_sync();
  if (bsp_pid() != 0) return;
  char type[512] = "vec ";
  rt_type_text(elem, 2, type, sizeof type);
  if (kind == RT_NPY_NONE)
    rt_output_fail(partial, fd, "cannot write %s: a .npy result must be a vector of int, float or bool, or of such vectors; the result is %s",
                   path, type);
  if (ndim > RT_NPY_MAX_DIMS)
    rt_output_fail(partial, fd, "cannot write %s: the result has %d dimensions; a .npy file has at most %d", path, ndim,
                   RT_NPY_MAX_DIMS);
  int p = bsp_nprocs();
  rt_out_block *blocks = rt_array(p, sizeof *blocks);
  for (int q = 0; q < p; q++) {
    const rt_msg *m = rt_find(RT_OUTPUT_FIELD, q);
    if (!m || m->nwords * 8 != (int64_t)sizeof *blocks) bsp_abort("vecbsp: error: rt_output_npy: a report is missing\n");
    memcpy(&blocks[q], m->words, sizeof *blocks);
  }
  int64_t shape[RT_NPY_MAX_DIMS], size, header = rt_npy_header_size(ndim);
  char msg[512];
  const char *why = rt_output_check(blocks, p, ndim, n, shape, msg, sizeof msg);
  if (why) rt_output_fail(partial, fd, "cannot write %s: %s", path, why);
  if (rt_npy_data_bytes(shape, ndim, rt_npy_itemsize(kind)) < 0 ||
      __builtin_add_overflow(rt_npy_data_bytes(shape, ndim, rt_npy_itemsize(kind)), header, &size))
    rt_output_fail(partial, fd, "cannot write %s: %s", path, strerror(EFBIG));
  char *text = rt_alloc((size_t)header);
  rt_npy_format_header(text, header, kind, shape, ndim);
  if (!rt_npy_pwrite(fd, text, header, 0) || ftruncate(fd, (off_t)size) != 0)
    rt_output_fail(partial, fd, "cannot write %s: %s", path, strerror(errno));
  int closed = close(fd);
  if (closed != 0 || rename(partial, path) != 0) rt_output_fail(partial, -1, "cannot write %s: %s", path, strerror(errno));
}
