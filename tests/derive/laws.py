#!/usr/bin/env python3
"""laws.py VECBSP: `vecbsp check` tests the associativity of the operators
given to fold and prefix. A counterexample it prints is recomputed here in
Python from the operator's definition; associative operators (the mss
paper's otimes, +, max, vector sums) raise no warning."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check, finish, program, run


def int_program(name, main, defs=""):
    return program(name, f"param n\ninput x : [n]int\n{defs}main = {main}\n")


# Not associative: max (a + b) 0, as the mss paper printed its operator.
clipped = int_program("clipped.vec", "fold (\\a b -> max (a + b) 0) x")
done = run("check", clipped)
check(done.returncode == 0 and "warning: the operator given to fold is not associative" in done.stderr,
      f"check of max (a + b) 0: {done.returncode} {done.stderr!r}")
m = re.search(r"a = (-?\d+), b = (-?\d+), c = (-?\d+), f \(f a b\) c = (-?\d+) but f a \(f b c\) = (-?\d+)", done.stderr)
check(m is not None, f"no counterexample in {done.stderr!r}")
if m:
    a, b, c, left, right = map(int, m.groups())
    f = lambda u, v: max(u + v, 0)
    check(f(f(a, b), c) == left and f(a, f(b, c)) == right and left != right,
          f"the counterexample is not one: {m.group(0)}")
check(done.stderr.startswith(clipped + ":3:14: warning:"), f"warning's position: {done.stderr!r}")

# --strict makes it an error.
done = run("check", clipped, "--strict")
check(done.returncode == 1 and ": error: the operator given to fold is not associative" in done.stderr
      and not done.stdout, f"check --strict: {done.returncode} {done.stderr!r}")

# Subtraction under prefix, through a def.
minus = int_program("minus.vec", "prefix sub x", "def sub a b = a - b\n")
done = run("check", minus)
check("warning: the operator given to prefix is not associative" in done.stderr, f"prefix of -: {done.stderr!r}")

# Associative operators: no warning.
for name, main, defs in (
        ("plus.vec", "fold (+) x", ""),
        ("max.vec", "fold max (prefix (+) x)", ""),
        ("pairs.vec", "fold otimes (map (\\y -> (y, max y 0)) x)",
         "def otimes a b = (fst a + fst b, max (snd a + fst b) (snd b))\n"),
        ("vectors.vec", "fold (\\a b -> pair_map (+) (a, b)) (map (\\y -> [y, 2 * y]) x)", ""),
        # An operator that reads data is left to run time, not tested here.
        ("captured.vec", "map (\\k -> fold (\\a b -> a + b - k) x) x", "")):
    done = run("check", int_program(name, main, defs), "--strict")
    check(done.returncode == 0 and "warning" not in done.stderr, f"{name}: {done.returncode} {done.stderr!r}")
for k in (1, 2, 3, 4, 5):
    done = run("check", f"examples/mss{k}.vec", "--strict")
    check(done.returncode == 0 and not done.stderr, f"mss{k}: {done.stderr!r}")

finish()
