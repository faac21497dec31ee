#!/usr/bin/env python3
"""cli.py VECBSP: topology machines on the command line (docs/topology.md):
the machine file's errors, `vecbsp topology` against the thesis's formulas
worked out here, `cost` on a topology machine against its supersteps costed
by hand, and `plan` choosing the configuration."""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check, finish, program, run  # noqa: E402


def machine(name, obj):
    return program(name, obj if isinstance(obj, str) else json.dumps(obj))


def expect_error(want, *args):
    r = run(*args)
    first = r.stderr.splitlines()[0] if r.stderr else ""
    check(r.returncode == 1 and not r.stdout and first == want, f"{args}: status {r.returncode}, got '{first}', want '{want}'")


def close(x, want):
    return abs(x - want) <= 1e-9 * max(1, abs(want))


# Errors in the machine file: each one names the file.
bad = [
    ({"kind": "ring", "p": 4, "K0": 1, "K1": 1}, '"kind" must be one of hypercube, linear, torus, torus-nonuniform, tree'),
    ({"kind": "hypercube", "p": 12, "K0": 1, "K1": 1}, 'a hypercube\'s "p" must be a power of two'),
    ({"kind": "hypercube", "p": 16, "K1": 1}, '"K0" (the start-up of a transfer) is missing'),
    ({"kind": "hypercube", "p": 16, "K0": 1, "K1": 0}, '"K1" must be positive'),
    ({"kind": "hypercube", "p": 16, "K0": -1, "K1": 1}, '"K0" must not be negative'),
    ({"kind": "hypercube", "p": 16, "d": 3, "K0": 1, "K1": 1}, '"p" is 16 but the other keys make 8 processors'),
    ({"kind": "linear", "p": 8, "s": 2, "K0": 1, "K1": 1},
     '"s" is not a key of a linear topology (its keys: kind p K0 K1 element_bytes)'),
    ({"kind": "linear", "p": 0, "K0": 1, "K1": 1}, '"p" must be an integer in [1, 1048576]'),
    ({"kind": "torus", "p1": 8, "p2": 4, "K0": 1, "K1": 1},
     'a torus needs "p1" <= "p2", both powers of two (the thesis\'s p1 = 2^k1 <= p2 = 2^k2)'),
    ({"kind": "torus-nonuniform", "p1": 4, "K0": 1, "K1": 1}, '"p2" is missing'),
    ({"kind": "tree", "s": 2, "d": 30, "K0": 1, "K1": 1}, "the tree has more than 1048576 processors"),
    ({"kind": "tree", "s": 2, "d": 3, "K0": 1, "K1": 1, "element_bytes": "4"}, '"element_bytes" must be a number'),
    ([1, 2], 'must be an object: {"kind": "hypercube", "p": 16, "K0": ..., "K1": ...}'),
]
for i, (topology, message) in enumerate(bad):
    path = machine(f"bad{i}.json", {"topology": topology})
    expect_error(f'vecbsp: error: {path}: "topology": {message}', "topology", path, "--bytes", "8", "--elements", "8")
path = machine("p.json", {"p": 4, "topology": {"kind": "linear", "p": 8, "K0": 1, "K1": 1}})
expect_error(f'vecbsp: error: {path}: "p" differs from the topology\'s processors', "topology", path, "--bytes", "1",
             "--elements", "1")
path = machine("plain.json", {"p": 2, "g": 1, "l": 1, "s": 1})
expect_error(f'vecbsp: error: {path}: the machine has no "topology" object (docs/topology.md: {{"topology": {{"kind": '
             '"hypercube", "p": 16, "K0": 1, "K1": 100}})', "topology", path, "--bytes", "1", "--elements", "1")
cube = machine("cube.json", {"name": "cube", "topology": {"kind": "hypercube", "p": 16, "K0": 1.0, "K1": 100.0,
                                                          "element_bytes": 4}})
expect_error("vecbsp: error: topology needs --bytes B (a message) and --elements N (a list)", "topology", cube, "--bytes", "8")
expect_error(f"vecbsp: error: -p 3: the hypercube of 16 processors (d = 4) of {cube} is configured with 1, 2, 4, 8, 16 "
             "processors", "topology", cube, "--bytes", "8", "--elements", "8", "-p", "3")

# vecbsp topology --json: the thesis's formulas, written out here for
# B = 1024 bytes and N = 1024 elements of 4 bytes, C_f = 1, K0 = 1, K1 = 100.
K0, K1, e, B, N = 1.0, 100.0, 4, 1024, 1024


def T(b):
    return K0 + b / K1


def expected(kind, p, p1=0, p2=0, s=0, d=0):
    m = math.ceil(N / p)
    if kind == "hypercube":
        return {"broadcast": d * T(B), "scatter": d * K0 + B / K1 * (p - 1) / p,
                "total_exchange": 2 * d * K0 + 2 * B / K1 * (p - 1) / p,
                "s_fold": (m + d - 1) + d * T(e),                              # (6.29)
                "s_scan": (2 * m + 2 * d - 3) + (2 * d - 1) * T(e)}             # its algorithm ((6.47) prints 2d - 4)
    if kind == "linear":
        r = min(range(1, 200), key=lambda r: (p + 2 * r - 3) * (K0 + B / (r * K1)))
        return {"broadcast": (p + 2 * r - 3) * (K0 + B / (r * K1)),           # (6.4), the best r
                "scatter": (p - 1) * (K0 + B / (2 * K1)),                       # (6.9)
                "total_exchange": p * (K0 + B / (2 * K1)),                      # (6.16), p even
                "s_fold": (m - 1 + math.log2(p)) + (p - 1) * T(e),              # (6.26)
                "s_scan": (2 * m + p - 3) + (p - 1) * T(e)}                     # its algorithm ((6.44) prints p - 4)
    if kind == "torus":
        return {"broadcast": (p1 + p2) / 2 * T(B),                              # (6.5)
                "scatter": K0 * (p1 + p2) / 2 + B / (4 * K1) * ((p2 / 2 + 1) + (p1 / 2 + 1) / p2),  # (6.10)
                "total_exchange": K0 * (p1 + p2 - 2) + B / K1 * (1 - 1 / p),    # (6.18)
                "s_fold": (m + 1 + math.log2(p1 / 2) + math.log2(p2 / 2)) + T(e) * (p1 + p2) / 2,  # (6.32)
                "s_scan": (2 * m + p1 + p2 - 3) + (1.5 * p1 + p2 - 2) * T(e)}  # its algorithm ((6.51): -4, -1)
    if kind == "torus-nonuniform":
        return {"broadcast": (p1 + p2 / 2 - 1) * T(B),                          # (6.6)
                "scatter": K0 * (p1 + p2 / 2 - 1) + B / K1 * (0.25 * (p2 / 2 + 1) + (p1 - 1) / (2 * p2)),  # (6.11)
                "total_exchange": K0 * (2 * p1 + p2 - 3) + B / (K1 * p) * (p1 + p - 2),
                "s_fold": (m + math.log2(p1) + math.log2(p2 / 2)) + T(e) * (p1 + p2 / 2 - 1),  # (6.35)
                "s_scan": (2 * m + p1 + p2 - 3) + (1.5 * p1 + p2 - 2) * T(e)}
    leaf = math.ceil(N / s ** d)
    scatter = s * d * K0 + B / K1 / p * s / (s - 1) * (p - 1 - d)              # (6.14)
    return {"broadcast": s * d * T(B), "scatter": scatter,                      # (6.7)
            "total_exchange": scatter + s * d * T(B),                           # (6.19)
            "s_fold": (m - 1 + d * s) + d * s * T(e),                           # (6.38)
            "s_scan": (2 * leaf - 2 + (s - 1) * (2 * d - 1)) + 2 * d * s * T(e)}  # its steps ((6.54) prints 2d + 1)


cases = [("hypercube", {"p": 16}, dict(p=16, d=4)), ("linear", {"p": 16}, dict(p=16)),
         ("torus", {"p1": 4, "p2": 8}, dict(p=32, p1=4, p2=8)),
         ("torus-nonuniform", {"p1": 4, "p2": 8}, dict(p=32, p1=4, p2=8)),
         ("tree", {"s": 3, "d": 2}, dict(p=13, s=3, d=2))]
for kind, keys, args in cases:
    path = machine(f"{kind}.json", {"topology": {"kind": kind, **keys, "K0": K0, "K1": K1, "element_bytes": e}})
    r = run("topology", path, "--bytes", str(B), "--elements", str(N), "--json")
    check(r.returncode == 0, f"topology {kind}: {r.stderr}")
    if r.returncode:
        continue
    got = json.loads(r.stdout)
    want = expected(kind, **args)
    want["gather"] = want["scatter"]
    want["map"] = math.ceil(N / args["p"])
    for key in ["broadcast", "scatter", "gather", "total_exchange", "map", "s_fold", "s_scan"]:
        check(close(got[key], want[key]), f"topology {kind}: {key} = {got[key]}, the thesis's formula {want[key]}")
    check(got["topology"]["kind"] == kind and got["topology"]["p"] == args["p"], f"topology {kind}: description")
r = run("topology", cube, "--bytes", str(B), "--elements", str(N), "-p", "4", "--json")
check(r.returncode == 0 and json.loads(r.stdout)["topology"]["p"] == 4 and
      close(json.loads(r.stdout)["broadcast"], 2 * T(B)), "topology -p 4: the subcube of 4")

# cost on a topology machine: each superstep's work at s operations per
# second, then its exchanges by the thesis's routines. matvec (1) under the
# papers' template at p = 4: M scattered and v broadcast, the result gathered.
hyper = machine("meiko.json", {"name": "meiko", "s": 1e6, "topology": {"kind": "hypercube", "p": 16, "K0": 1e-4,
                                                                       "K1": 1.7e6, "element_bytes": 4}})
r = run("cost", "examples/matvec1.vec", "-D", "m=16", "-D", "n=16", "--machine", hyper, "-p", "4", "--plan", "paper", "--json")
check(r.returncode == 0, f"cost on a topology machine: {r.stderr}")
if r.returncode == 0:
    got = json.loads(r.stdout)
    k0, k1, d, p = 1e-4, 1.7e6, 2, 4
    scatter = lambda b: d * k0 + b / k1 * (p - 1) / p
    work = sum(step["w"] for step in got["supersteps"]) / 1e6
    want = work + scatter(16 * 16 * 4) + d * (k0 + 16 * 4 / k1) + scatter(16 * 4)
    check(close(got["seconds"], want), f"cost matvec1 on the hypercube: {got['seconds']}, by hand {want}")
    check(got["topology"]["kind"] == "hypercube" and got["g"] > 0 and got["l"] > 0, "cost --json: topology, g and l")
expect_error("vecbsp: error: the hypercube has 16 processors: it cannot run 32 processes", "cost", "examples/matvec1.vec",
             "-D", "m=16", "-D", "n=16", "--machine", hyper, "-p", "32")

# plan chooses the configuration: matvec (1) with its inputs on process 0
# costs a scatter that grows with p against work that shrinks.
r = run("plan", "examples/matvec1.vec", "-D", "m=64", "-D", "n=64", "--machine", hyper, "--plan", "best,inputs=root", "--json")
check(r.returncode == 0, f"plan on a topology machine: {r.stderr}")
if r.returncode == 0:
    got = json.loads(r.stdout)
    rows = got["configurations"]
    check([row["p"] for row in rows] == [1, 2, 4, 8, 16], "plan: the hypercube's configurations")
    best = min(rows, key=lambda row: row["seconds"])
    check(got["p"] == best["p"] and close(got["seconds"], best["seconds"]), "plan: the fastest configuration chosen")
r = run("plan", "examples/matvec1.vec", "-D", "m=64", "-D", "n=64", "--machine", hyper, "--vary", "p=1:8", "--json")
check(r.returncode == 0 and [row["p"] for row in json.loads(r.stdout)["rows"]] == [1, 2, 4, 8],
      "plan --vary on a hypercube: its configurations only")

# Merge sort planned on the thesis's hypercube (grown to 64) against the
# thesis's own prediction (section 7.4.2.1), summed here term by term: the
# scatter of xs (6.8), the n/2p msorts (a merge of 1 and 1: 2 steps), the
# local g_fold of the pairs and the d combinations of partial results that
# double (6.30), with merge's cost f(a, b) = a + b steps of 1 / s seconds;
# split makes views (the thesis's S, list rearrangement, is left out).
k0, k1, e, step = 1e-4, 1.7e6, 4, 1e-6
cube64 = machine("meiko64.json", {"s": 1 / step, "topology": {"kind": "hypercube", "p": 64, "K0": k0, "K1": k1,
                                                               "element_bytes": e}})


def merge_steps(a, b):
    return (a + b) * step


def thesis_mergesort(n, p):
    d, block = int(math.log2(p)), n // p
    scatter = d * k0 + n * e / k1 * (p - 1) / p
    msort = block // 2 * merge_steps(1, 1)
    local = sum(merge_steps(2 * i, 2) for i in range(1, block // 2))
    rounds = sum(k0 + 2 ** i * block * e / k1 + merge_steps(2 ** i * block, 2 ** i * block) for i in range(d))
    return scatter + msort + local + rounds


for n in (512, 1024):
    for p in (1, 2, 4, 8, 16, 32, 64):
        r = run("plan", "examples/mergesort.vec", "-D", f"n={n}", "--machine", cube64, "-p", str(p),
                "--plan", "best,inputs=root,result=block", "--json")
        check(r.returncode == 0, f"plan mergesort n = {n}, p = {p}: {r.stderr}")
        if r.returncode == 0:
            got, want = json.loads(r.stdout)["seconds"], thesis_mergesort(n, p)
            check(close(got, want), f"plan mergesort n = {n}, p = {p}: {got} s, the thesis's (7.4.2.1) {want} s")

finish()
