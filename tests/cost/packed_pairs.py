#!/usr/bin/env python3
"""packed_pairs.py VECBSP: the model's packed pairs are the loops gcc packs.

For each program below, the exact model says whether its stored pairs are
packed (plan_packed_pair: one vector operation and one 16-byte store each,
so `vecbsp cost --json` counts fewer calibration operations than W; none of
these programs has a select or a division, which count more), at p = 1
(the passes of a prefix at p > 1 are checked by hand in cost.packed-pairs). The
independent side is gcc itself: the program's C (`vecbsp compile -p 1`),
its region functions kept out of line, compiled with -O2 as `vecbsp run`
compiles it, and its region loops read for a 16-byte store of an xmm
register. Both must agree on every program, and each answer must occur."""
import json
import os
import re
import subprocess
import sys
import tempfile

vecbsp = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INT_INPUT = "param n\ninput x : [n]int\n"
FLOAT_INPUT = "param n\ninput x : [n]float\n"
PAIRS = "(\\a b -> (fst a + fst b, snd a + snd b))"
PROGRAMS = {
    "prefix of (y, 1)": INT_INPUT + f"main = prefix {PAIRS} (map (\\y -> (y, 1)) x)\n",
    "prefix of (y, y * y)": INT_INPUT + f"main = prefix {PAIRS} (map (\\y -> (y, y * y)) x)\n",
    "prefix of (y, 3), -": INT_INPUT + "main = prefix (\\a b -> (fst a - fst b, snd a - snd b)) (map (\\y -> (y, 3)) x)\n",
    "map (y + 1, y - 1)": INT_INPUT + "main = map (\\y -> (y + 1, y - 1)) x\n",
    "map (y + 1, y * 2)": INT_INPUT + "main = map (\\y -> (y + 1, y * 2)) x\n",
    "map over a prefix": INT_INPUT + f"main = map (\\p -> (fst p + 1, snd p + 2)) (prefix {PAIRS} (map (\\y -> (y, 1)) x))\n",
    "float prefix of (y, y * y)": FLOAT_INPUT + f"main = prefix {PAIRS} (map (\\y -> (y, y * y)) x)\n",
    "float map of (y, y + 1.0)": FLOAT_INPUT + "main = map (\\p -> (fst p * 2.0, snd p * 3.0)) (map (\\y -> (y, y + 1.0)) x)\n",
    "float map (y * 2.0, y * 3.0)": FLOAT_INPUT + "main = map (\\y -> (y * 2.0, y * 3.0)) x\n",
    "map (y + y, y + 1)": INT_INPUT + "main = map (\\y -> (y + y, y + 1)) x\n",
    "prefix of pairs in memory": "param n\ninput x : [n](int, int)\n" + f"main = prefix {PAIRS} x\n",
    "map of pairs in memory": "param n\ninput x : [n](int, int)\nmain = map (\\p -> (fst p + 1, snd p + 1)) x\n",
    "prefix of (+, *)": INT_INPUT + "main = prefix (\\a b -> (fst a + fst b, snd a * snd b)) (map (\\y -> (y, 1)) x)\n",
}
REGION = re.compile(r"^static (\S+) (r\d+_\w+)\(", re.M)
STORE16 = re.compile(r"\s(movups|movupd|movdqu|movaps|movapd|movdqa)\s+%xmm\d+, [^%]*\(")
failures = []


def run(*args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def model_packs(src):
    cost = json.loads(run(vecbsp, "cost", src, "-D", "n=1000", "-p", "1", "--machine", "local", "--json"))
    return any(s["counts"]["op"] < s["w"] for s in cost["supersteps"])


def functions(asm, names):
    """Each region function's instructions, by name."""
    out, name = {}, None
    for line in asm.splitlines():
        label = re.match(r"^([\w.]+):", line)
        if label:
            base = label.group(1).split(".")[0]
            name = base if base in names else (name if label.group(1).startswith(".L") else None)
        if name:
            out.setdefault(name, []).append(line)
    return out


def loop_lines(lines):
    """The lines of its one-block loops (a label, then a jump back to it
    with no other label between): an element loop without a data if."""
    label, inside = None, []
    for i, line in enumerate(lines):
        m = re.match(r"^(\.L\w+):", line)
        if m:
            label = (m.group(1), i)
        j = re.match(r"^\s+j\w+\s+(\.L\w+)", line)
        if j and label and j.group(1) == label[0]:
            inside += lines[label[1]:i + 1]
    return inside


def gcc_packs(src, work):
    c = os.path.join(work, "p.c")
    run(vecbsp, "compile", src, "-D", "n=1000", "-p", "1", "-o", c)
    text = open(c).read()
    names = {m.group(2) for m in REGION.finditer(text)}
    text = REGION.sub(r"static __attribute__((noinline)) \1 \2(", text)
    open(c, "w").write(text)
    asm = run("gcc", "-O2", "-S", "-o", "-", "-I", os.path.join(root, "include"), c)
    bodies = functions(asm, names)
    if not bodies:
        sys.exit(f"no region function found in the assembly of {src}")
    return any(STORE16.search(line) for body in bodies.values() for line in loop_lines(body))


with tempfile.TemporaryDirectory() as work:
    seen = set()
    for name, program in PROGRAMS.items():
        src = os.path.join(work, "prog.vec")
        open(src, "w").write(program)
        model, gcc = model_packs(src), gcc_packs(src, work)
        print(f"{name:28} model {'packed' if model else 'not packed':10}  gcc {'packed' if gcc else 'not packed'}")
        seen.add(gcc)
        if model != gcc:
            failures.append(f"{name}: the model says {'packed' if model else 'not packed'}, gcc -O2 does otherwise")
    if seen != {True, False}:
        failures.append("the programs do not show both answers")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
