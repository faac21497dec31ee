#!/usr/bin/env python3
"""npytool.py: an independent writer and reader of NumPy .npy files for the
io tests (the standard library only: struct, ast, csv), and the values the
tests expect, printed as vecbsp prints them.

  npytool.py fixtures DIR N M C    text, .npy and (for vectors, matrices and
                                   scalars of scalars) .csv files of every
                                   input of inputs.vec, and NAME.expect, its value
  npytool.py bad DIR               malformed .npy files for npy-errors.sh
  npytool.py check-output PATH KIND N...  the files prelude_driver output wrote
  npytool.py read PATH             a .npy file's array in vecbsp's literal syntax
  npytool.py tuple DIR NAME...     the tuple of the NAME.expect values, as printed
"""
import ast
import csv
import math
import struct
import sys

DTYPES = {'<i8': ('<q', 8), '<f8': ('<d', 8), '|b1': ('?', 1)}


def header(descr, shape, fortran=False, version=(1, 0), pad_to=64):
    """The bytes before the data, as numpy.lib.format writes them."""
    if len(shape) == 1:
        dims = '(%d,)' % shape[0]
    else:
        dims = '(' + ', '.join('%d' % d for d in shape) + ')'
    text = "{'descr': %r, 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, dims)
    pre = 10 if version[0] == 1 else 12
    total = (pre + len(text) + 1 + pad_to - 1) // pad_to * pad_to
    text = text + ' ' * (total - pre - len(text) - 1) + '\n'
    length = struct.pack('<H', len(text)) if version[0] == 1 else struct.pack('<I', len(text))
    return b'\x93NUMPY' + bytes(version) + length + text.encode('latin1')


def flat(values):
    """Row-major scalars of nested lists."""
    if isinstance(values, list):
        return [x for v in values for x in flat(v)]
    return [values]


def array_bytes(descr, values):
    fmt, _ = DTYPES[descr]
    return b''.join(struct.pack(fmt, v) for v in flat(values))


def write_npy(path, descr, shape, values, version=(1, 0)):
    with open(path, 'wb') as f:
        f.write(header(descr, shape, version=version) + array_bytes(descr, values))


def read_npy(path):
    """(descr, shape, nested values): the array of a C-order .npy file."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:6] != b'\x93NUMPY':
        raise ValueError('bad magic')
    if data[6] == 1:
        hlen, start = struct.unpack('<H', data[8:10])[0], 10
    else:
        hlen, start = struct.unpack('<I', data[8:12])[0], 12
    if (start + hlen) % 64 != 0:
        raise ValueError('the header is not padded to 64 bytes')
    meta = ast.literal_eval(data[start:start + hlen].decode('latin1'))
    if meta['fortran_order']:
        raise ValueError('fortran order')
    fmt, size = DTYPES[meta['descr']]
    shape = meta['shape']
    count = 1
    for d in shape:
        count *= d
    body = data[start + hlen:]
    if len(body) != count * size:
        raise ValueError('%d data bytes, expected %d' % (len(body), count * size))
    scalars = [struct.unpack(fmt, body[i * size:(i + 1) * size])[0] for i in range(count)]

    def nest(dims, items):
        if not dims:
            return items[0]
        step = len(items) // dims[0] if dims[0] else 0
        return [nest(dims[1:], items[i * step:(i + 1) * step]) for i in range(dims[0])]
    return meta['descr'], tuple(shape), nest(list(shape), scalars)


# ---- values printed as vecbsp prints them (docs/language.md) ----

def show_float(f):
    """Python's repr is the shortest text that reads back, with an exponent
    below 1e-4 and from 1e16 on: vecbsp's rule, but for the exponent's '+'."""
    if math.isnan(f):
        return 'nan'
    if math.isinf(f):
        return 'inf' if f > 0 else '-inf'
    return repr(f).replace('e+', 'e')


def show(v):
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, int):
        return '%d' % v
    if isinstance(v, float):
        return show_float(v)
    if isinstance(v, tuple):
        return '(' + show(v[0]) + ', ' + show(v[1]) + ')'
    return '[' + ', '.join(show(x) for x in v) + ']'


# ---- the inputs of inputs.vec ----

FLOATS = [0.0, -0.0, 1.5, -2.25e300, 5e-324, 1e-320, float('inf'), -1 / 3, 1e20, 123456.789,
          float('nan'), 100000.0, 2.0 ** -30]
SPACES = [' ', '\t', '\n', '  ', '\r\n', ' \n\n', ' ']


def fixture_values(n, m, c):
    def x(i):
        if i == 1:
            return 2 ** 63 - 1
        if i == 2:
            return -2 ** 63
        return (-1) ** i * (i * 2654435761 % 10 ** 12)
    return {
        'x': [x(i) for i in range(n)],
        'f': [FLOATS[i] if i < len(FLOATS) else i * 0.1 - 7 for i in range(n)],
        'b': [i * i % 3 == 1 for i in range(n)],
        'pr': [(i - 3, i / 4) for i in range(n)],
        'M': [[r * 1000 - j * 7 for j in range(c)] for r in range(m)],
        'F': [[r + j / 16 - 0.5 for j in range(c)] for r in range(m)],
        'B': [[(r + 2 * j) % 3 == 0 for j in range(c)] for r in range(m)],
        's': -42,
        'q': (7, True),
        'E': [[] for _ in range(n)],
        'T': [[[r * 100 + j * 10 + k - 50 for k in range(c)] for j in range(2)] for r in range(m)],
    }


def text_words(v, kind_index):
    """The scalars of v as a data file writes them, row-major, pairs' components in turn."""
    if isinstance(v, (list, tuple)):
        return [w for x in v for w in text_words(x, kind_index)]
    if isinstance(v, bool):
        return [('true' if v else 'false') if kind_index % 2 else ('1' if v else '0')]
    if isinstance(v, float):
        return [repr(v)]
    return ['%d' % v]


def fixtures(directory, n, m, c):
    values = fixture_values(n, m, c)
    npy = {'x': '<i8', 'f': '<f8', 'b': '|b1', 'M': '<i8', 'F': '<f8', 'B': '|b1', 's': '<i8', 'E': '<i8',
           'T': '<i8'}
    shapes = {'x': (n,), 'f': (n,), 'b': (n,), 'M': (m, c), 'F': (m, c), 'B': (m, c), 's': (), 'E': (n, 0),
              'T': (m, 2, c)}
    for name, v in values.items():
        words = text_words(v, len(name))
        text = ''.join(w + SPACES[i % len(SPACES)] for i, w in enumerate(words))
        with open('%s/%s.txt' % (directory, name), 'w') as f:
            f.write(text)
        with open('%s/%s.expect' % (directory, name), 'w') as f:
            f.write(show(v) + '\n')
        if name in npy:
            version = (2, 0) if name in ('f', 'T') else (1, 0)
            write_npy('%s/%s.npy' % (directory, name), npy[name], shapes[name], v, version)
        if name in CSV_ROWS:
            write_csv('%s/%s.csv' % (directory, name), CSV_ROWS[name](v, len(name)))


# The inputs a .csv file holds, as Python's csv module writes their rows
# (its default dialect ends lines in \r\n): a vector on one line (x, b) or
# one value a line (f), a matrix's rows, a scalar.
CSV_ROWS = {
    'x': lambda v, k: [text_words(v, k)],
    'b': lambda v, k: [text_words(v, k)],
    'f': lambda v, k: [[w] for w in text_words(v, k)],
    'M': lambda v, k: [text_words(row, k) for row in v],
    'F': lambda v, k: [text_words(row, k) for row in v],
    'B': lambda v, k: [text_words(row, k) for row in v],
    's': lambda v, k: [text_words(v, k)],
}


def write_csv(path, rows):
    with open(path, 'w', newline='') as f:
        csv.writer(f).writerows(rows)


def bad(directory):
    """Malformed files, each named for the error it makes; x is [5]int, M is [3][5]int."""
    five = array_bytes('<i8', [1, 2, 3, 4, 5])
    files = {
        'magic': b'\x93NUMPZ\x01\x00' + header('<i8', (5,))[8:] + five,
        'version3': b'\x93NUMPY\x03\x00' + header('<i8', (5,))[8:] + five,
        'short-header': header('<i8', (5,))[:40],
        'no-shape': b'\x93NUMPY\x01\x00' + struct.pack('<H', 54) + b"{'descr': '<i8', 'fortran_order': False, }".ljust(53) + b'\n' + five,
        'unknown-key': b'\x93NUMPY\x01\x00' + struct.pack('<H', 118) + b"{'descr': '<i8', 'fortran_order': False, 'shape': (5,), 'foo': 1}".ljust(117) + b'\n' + five,
        'fortran': header('<i8', (5,), fortran=True) + five,
        'i4': header('<i4', (5,)) + struct.pack('<5i', 1, 2, 3, 4, 5),
        'big-endian': header('>i8', (5,)) + struct.pack('>5q', 1, 2, 3, 4, 5),
        'float-for-int': header('<f8', (5,)) + struct.pack('<5d', 1, 2, 3, 4, 5),
        'structured': b'\x93NUMPY\x01\x00' + struct.pack('<H', 118) + b"{'descr': [('a', '<i8')], 'fortran_order': False, 'shape': (5,), }".ljust(117) + b'\n' + five,
        'matrix-3x4': header('<i8', (3, 4)) + array_bytes('<i8', list(range(12))),
        'cut-short': header('<i8', (5,)) + five[:32],
        'extra': header('<i8', (5,)) + five + b'\0' * 8,
        'pairs': header('<i8', (5, 2)) + array_bytes('<i8', list(range(10))),
        'header-past-end': b'\x93NUMPY\x01\x00' + struct.pack('<H', 60000) + b"{'descr'",
    }
    for name, data in files.items():
        with open('%s/%s.npy' % (directory, name), 'wb') as f:
            f.write(data)


# ---- what prelude_driver output writes (its pack_result, computed again) ----

def expected_output(kind, n):
    """(descr, shape, values); an empty result's inner lengths are unknown, written as 0."""
    descr, shape, values = expected_values(kind, n)
    return descr, shape if n else tuple(0 for _ in shape), values


def expected_values(kind, n):
    if kind == 'int1':
        return '<i8', (n,), [i * 7 - 3 for i in range(n)]
    if kind == 'float2':
        return '<f8', (n, 3), [[i + j / 8 - (0.5 if i == 0 and j == 0 else 0) for j in range(3)] for i in range(n)]
    if kind == 'bool2':
        return '|b1', (n, 4), [[(i + j) % 3 == 0 for j in range(4)] for i in range(n)]
    if kind == 'int3':
        return '<i8', (n, 2, 3), [[[i * 100 + j * 10 + k for k in range(3)] for j in range(2)] for i in range(n)]
    if kind == 'empty2':
        return '<i8', (n, 0), [[] for _ in range(n)]
    raise ValueError('unknown kind ' + kind)


def same(a, b):
    """Equal values, floats bit for bit (so -0.0 is not 0.0)."""
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return isinstance(b, float) and struct.pack('<d', a) == struct.pack('<d', b)
    return type(a) == type(b) and a == b


def main():
    cmd = sys.argv[1]
    if cmd == 'fixtures':
        fixtures(sys.argv[2], *map(int, sys.argv[3:6]))
    elif cmd == 'bad':
        bad(sys.argv[2])
    elif cmd == 'check-output':
        args = sys.argv[2:]
        for path, kind, n in zip(args[0::3], args[1::3], map(int, args[2::3])):
            want = expected_output(kind, n)
            got = read_npy(path)
            if got[0] != want[0] or got[1] != want[1] or not same(got[2], want[2]):
                print('%s: got %r, expected %r' % (path, got, want))
                sys.exit(1)
        print('ok')
    elif cmd == 'tuple':  # (a, b, c) prints as (a, (b, c))
        parts = [open('%s/%s.expect' % (sys.argv[2], name)).read().strip() for name in sys.argv[3:]]
        text = parts[-1]
        for part in reversed(parts[:-1]):
            text = '(%s, %s)' % (part, text)
        print(text)
    elif cmd == 'read':
        print(show(read_npy(sys.argv[2])[2]))
    else:
        sys.exit('unknown command ' + cmd)


if __name__ == '__main__':
    main()
